"""Agents: an agent's output scored whole, above the engine's one way in (``entry.py``).

Takes what an agent produced (one reply holding an answer and tool calls, the state an
environment was left in, a run of several turns; its messages read by
``reading/agent_messages.py``) and the expected side; gives one
:class:`~..results.field_results.MatchResult` with one field table, each part scored by the
engine's own metrics through :class:`~..entry.Entry`. May import every engine stage and the
engine's root modules (``entry.py``, ``match.py``); of the engine, only ``bfcl`` imports it.

| module               | its job                                                              |
|----------------------|----------------------------------------------------------------------|
| agent_scorers.py     | an agent case's scorer, built once: a reply's answer and calls, or   |
|                      | a run's answer, trajectory and end state; one reading, one table     |
| agent_run.py         | a run's JSON form (messages, state) and reading: its final answer    |
| state_reading.py     | a state as JSON: an object's public attributes, a database, files    |
| state_database.py    | a database's tables as JSON, within a state's limits and a time      |
| file_data.py         | a file's text as its format's data: JSON, YAML, TOML, CSV            |
| end_states.py        | ``match_state``, ``match_turn_states``: states compared, per turn    |
| conversation_scoring | a conversation scored turn by turn: each turn's answer and steps,    |
|   .py                | the end state once; one table (``match_conversation``)               |
| conversation_driver  | a conversation made turn by turn: the user's side and the agent's,   |
|   .py                | one call a turn; the whole kept as one run                           |
| simulated_user.py    | a user played by a model, its messages held to its instructions      |
| tau2_reward.py       | ``tau2_reward``: a conversation scored as tau2-bench's evaluator     |
|                      | scores it, reward and components                                     |

Callers outside the package import the names below from here, each loaded on first use
(PEP 562), so that a command that never scores an agent never imports this package's modules.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..core.lazy_names import lazy_names

# name -> the module of this package that defines it
_FACE: dict[str, str] = {
    # an agent's reply
    "match_reply": "agent_scorers",
    "ReplyScorer": "agent_scorers",
    "answer_of": "agent_scorers",
    # an agent's whole run
    "run_json": "agent_run",
    "read_run": "agent_run",
    "match_run": "agent_scorers",
    "RunScorer": "agent_scorers",
    # a conversation, turn by turn
    "match_conversation": "conversation_scoring",
    "ConversationScorer": "conversation_scoring",
    "tau2_reward": "tau2_reward",
    "Tau2Reward": "tau2_reward",
    # end states
    "read_state": "state_reading",
    "match_state": "end_states",
    "match_turn_states": "end_states",
    "TurnStates": "end_states",
}

if TYPE_CHECKING:
    # an agent's reply, an agent's whole run
    from .agent_run import read_run as read_run
    from .agent_run import run_json as run_json
    from .agent_scorers import ReplyScorer as ReplyScorer
    from .agent_scorers import RunScorer as RunScorer
    from .agent_scorers import answer_of as answer_of
    from .agent_scorers import match_reply as match_reply
    from .agent_scorers import match_run as match_run
    from .conversation_scoring import ConversationScorer as ConversationScorer
    from .conversation_scoring import match_conversation as match_conversation

    # end states
    from .end_states import TurnStates as TurnStates
    from .end_states import match_state as match_state
    from .end_states import match_turn_states as match_turn_states
    from .state_reading import read_state as read_state
    from .tau2_reward import Tau2Reward as Tau2Reward
    from .tau2_reward import tau2_reward as tau2_reward

__all__ = sorted(_FACE)


__getattr__ = lazy_names(__name__, _FACE, globals())  # (each name imported on first use)
