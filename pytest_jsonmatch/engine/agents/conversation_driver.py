"""A conversation made turn by turn: the user's side (a script, or a function that plays
the user) and the agent's (the target), each called once a turn, the agent with the
conversation so far; the whole conversation kept as one run, ``{"messages": [...],
"state": ...}`` (agent_run.py's JSON form), which is what a conversation case records and
scores (conversation_scoring.py).

Each agent turn is read as a run case's output is (an ``AgentRun``, a run's JSON form, a
list of messages in any vendor's shape the reader reads, one assistant message, or text) and
made plain JSON once, here; the messages it was given, where it returns them at the head of
its own, are not kept twice. Nothing is scored here: an agent's turn that cannot be read is
an error naming the turn (a ParseError, the case's error), never a turn dropped.
"""

from __future__ import annotations

import copy
import uuid
from collections.abc import Callable, Mapping
from typing import Final, NamedTuple

from ..core.errors import ParseError, shown
from ..core.values import JsonValue
from .agent_run import run_json

# the user's side: called with the conversation so far, it gives the user's next message
# (None: the conversation ends)
User = Callable[[list[JsonValue]], "str | None"]
# what the agent's turn is given beside the case's own input keys
TURN_KEYS: Final = ("messages", "turn", "conversation_id", "state")
_USAGE: Final = ("input_tokens", "output_tokens", "cost")  # (what a turn may say it cost)


class Driven(NamedTuple):
    """A conversation as it was held: its JSON form (``run``, what is recorded and scored)
    and what its turns said they cost, summed (None: no turn said; a target's
    ``TargetResult``, an ``AgentRun``, reports ``input_tokens``, ``output_tokens``, ``cost``)."""

    run: dict[str, JsonValue]
    input_tokens: int | None = None
    output_tokens: int | None = None
    cost: float | None = None


def drive(
    agent: Callable[[object], object],
    given: Mapping[str, object],
    user: User,
    max_turns: int,
) -> Driven:
    """The conversation ``agent`` holds with ``user``, at most ``max_turns`` user turns:
    each turn the user's message is added, then ``agent`` is called with ``given`` (the
    case's input) and ``messages`` (the conversation so far), ``turn``, ``conversation_id``
    and, from the second turn, ``state`` (the state its last turn left); its new messages
    are added."""
    start = given.get("messages", [])
    messages: list[JsonValue] = run_json(start, None, "input")["messages"] if start else []  # type: ignore[assignment]
    state: JsonValue = None
    key = uuid.uuid4().hex
    used: list[float | None] = [None, None, None]  # (input tokens, output tokens, cost)
    for turn in range(max_turns):
        said = user(copy.deepcopy(messages))
        if said is None:
            break
        messages.append({"role": "user", "content": said})
        value: dict[str, object] = {**given, "messages": copy.deepcopy(messages)}
        value.update(turn=turn, conversation_id=key)
        if state is not None:
            value["state"] = copy.deepcopy(state)
        output = agent(value)
        for k, name in enumerate(_USAGE):
            figure = getattr(output, name, None)
            if isinstance(figure, (int, float)) and not isinstance(figure, bool):
                used[k] = figure if used[k] is None else used[k] + figure  # type: ignore[operator]
        new, left = turn_of(output, messages, turn)
        messages.extend(new)
        state = left if left is not None else state
    tokens_in, tokens_out, cost = used
    return Driven(
        {"messages": messages, "state": state},
        None if tokens_in is None else int(tokens_in),
        None if tokens_out is None else int(tokens_out),
        None if cost is None else float(cost),
    )


def turn_of(
    output: object, history: list[JsonValue], turn: int
) -> tuple[list[JsonValue], JsonValue]:
    """The agent's turn ``output`` as plain messages (those of ``history`` it repeats at its
    head left out) and the state it left (None: none given)."""
    side = f"the agent's turn {turn}"
    form_of = getattr(output, "run_json", None)
    if callable(form_of):  # an AgentRun
        output = form_of()
    if isinstance(output, str):
        return [{"role": "assistant", "content": output}], None
    if isinstance(output, Mapping) and "messages" in output and "role" not in output:
        run = run_json(output["messages"], output.get("state"), side)
    elif isinstance(output, (list, tuple)):
        run = run_json(output, None, side)
    elif output is None:
        raise ParseError(f"{side} returned None: return its messages, an AgentRun or its reply")
    else:  # one message: a dict with a role, or a client's message object
        run = run_json([output], None, side)
    messages = run["messages"]
    if not isinstance(messages, list):  # (run_json makes a list)
        raise ParseError(f"{side}: its messages are {shown(messages)}")
    if messages[: len(history)] == history:
        messages = messages[len(history) :]
    return messages, run["state"]
