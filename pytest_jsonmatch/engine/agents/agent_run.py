"""An agent's whole run as JSON: its messages (tool results included) and the state it left.

A run's JSON form is ``{"messages": [...], "state": <state or null>}``: the messages as
OpenAI chat messages hold them (a client's message objects dumped to plain JSON, their
unset fields dropped), the state read to JSON by ``read_state`` when the run ends. That
form is what a recording holds, so a replay needs neither the model nor the environment.

Read back (:func:`read_run`, once, into one Conversation), a run is that form, the plain list of its messages, or JSON
text holding either, its messages in any shape ``reading/agent_messages.py`` reads, or an
object that gives that form (``run_json()``: an ``AgentRun``, a ``Trace`` that
``reading/trace_spans.read_trace`` read from spans); its
answer is its last assistant message's: a run whose last assistant message only called
tools wrote no answer.
"""

from __future__ import annotations

from collections.abc import Mapping

from ..core.errors import ParseError, shown
from ..core.paths import index_segment
from ..core.values import JsonValue
from ..reading.agent_messages import Conversation, agent_data, conversation_of
from ..reading.intake import as_data, read_json
from .state_reading import read_state


def run_json(messages: object, state: object = None, side: str = "run") -> dict[str, JsonValue]:
    """The JSON form of a run: ``messages`` (a list of chat messages, dicts or a client's
    message objects) as plain JSON, ``state`` read by ``read_state`` (None stays null).
    ParseError naming the message where one cannot be read."""
    return {
        "messages": _messages(messages, side)[0],
        "state": None if state is None else read_state(state, f"{side} state"),
    }


def _messages(messages: object, side: str) -> tuple[list[JsonValue], int]:
    """A run's messages as plain JSON, and how deeply the deepest nests."""
    if isinstance(messages, (str, bytes, Mapping)) or not hasattr(messages, "__iter__"):
        raise ParseError(f"{side}: messages must be a list of chat messages, not {shown(messages)}")
    plain: list[JsonValue] = []
    deepest = 0
    for index, message in enumerate(messages):
        where = f"{side} {index_segment('messages', index)}"
        value, depth = read_json(_dumped(message, where), where)
        if not isinstance(value, dict):
            raise ParseError(f"{where} must be a chat message (an object), not {shown(value)}")
        plain.append(value)
        deepest = max(deepest, depth)
    return plain, deepest


def _dumped(message: object, where: str) -> object:
    """A message as data; a client's model object loses the fields it left unset (null),
    ``content`` kept (an assistant message that only calls tools has none)."""
    data = as_data(message, where)
    if data is message or not isinstance(data, dict):
        return data
    return {k: v for k, v in data.items() if v is not None or k == "content"}


def read_run(actual: object, side: str = "actual") -> Conversation:
    """``actual`` read as a run, once: its messages, its state, where the run itself starts
    (ParseError, its side ``actual``, where it is none)."""
    try:
        return _read(actual, side)
    except ParseError as exc:
        exc.side = "actual"  # the run itself could not be read
        raise


def _read(actual: object, side: str) -> Conversation:
    read = getattr(actual, "run_conversation", None)
    if callable(read):  # a Trace: its run read as its JSON form reads, without that form
        return read(side)  # type: ignore[no-any-return]
    form_of = getattr(actual, "run_json", None)
    if callable(form_of):  # an AgentRun, given to assert_json_match; a Trace (its spans' run)
        actual = form_of()
    value = agent_data(actual, side)
    if isinstance(value, Mapping) and "messages" in value and "role" not in value:
        messages, depth = _messages(value["messages"], side)
        state = value.get("state")
        state = None if state is None else read_state(state, f"{side} state")
    elif type(value) is list:
        (messages, depth), state = _messages(value, side), None
    else:
        raise ParseError(
            f"{side} is not an agent's run: {shown(value)}; give AgentRun(messages=[...]), "
            f'{{"messages": [...], "state": ...}} or the list of its messages'
        )
    return conversation_of(messages, side, depth)._replace(state=state)
