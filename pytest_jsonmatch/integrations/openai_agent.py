"""``run_tools`` where users import it from; its home is calls/agent_loop.py (the same loop
drives the ``anthropic`` client: integrations/anthropic_agent.py exports it too)."""

from ..calls.agent_loop import ERROR_CHARS as ERROR_CHARS
from ..calls.agent_loop import MAX_CALLS_PER_RESPONSE as MAX_CALLS_PER_RESPONSE
from ..calls.agent_loop import MAX_RESULT_CHARS as MAX_RESULT_CHARS
from ..calls.agent_loop import MAX_RUN_RESULT_CHARS as MAX_RUN_RESULT_CHARS
from ..calls.agent_loop import MaxStepsError as MaxStepsError
from ..calls.agent_loop import RunLimitError as RunLimitError
from ..calls.agent_loop import run_tools as run_tools
