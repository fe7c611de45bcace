"""``run_tools`` for the ``anthropic`` client, where users import it from: the one loop of
calls/agent_loop.py, which asks a client with ``messages.create`` through Anthropic's
Messages API (``tool_use`` blocks, ``tool_result`` blocks), with the limits and errors it
has for the ``openai`` client (integrations/openai_agent.py exports the same)."""

from ..calls.agent_loop import ERROR_CHARS as ERROR_CHARS
from ..calls.agent_loop import MAX_CALLS_PER_RESPONSE as MAX_CALLS_PER_RESPONSE
from ..calls.agent_loop import MAX_RESULT_CHARS as MAX_RESULT_CHARS
from ..calls.agent_loop import MAX_RUN_RESULT_CHARS as MAX_RUN_RESULT_CHARS
from ..calls.agent_loop import MaxStepsError as MaxStepsError
from ..calls.agent_loop import RunLimitError as RunLimitError
from ..calls.agent_loop import run_tools as run_tools
