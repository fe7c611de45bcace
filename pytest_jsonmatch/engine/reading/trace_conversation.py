"""A trace's chat messages read into one Conversation in one pass (:func:`chat_conversation`).

A run read from its spans is a list of plain OpenAI chat messages (``trace_messages.py``
makes every one: keys among ``role``, ``content``, ``tool_calls``, ``tool_call_id``,
``status``, ``error``; an assistant's content text or null). Its general reading
(``Trace.run_conversation`` with :data:`TRACE_FAST` off) takes each message through the
door's check (``intake.read_json``), then reads the list by ``agent_messages``'
``conversation_of``: the list's envelope opened, each item's kind tested, then every call
linked to the result that answers it (by id, by name, in order). Here the same messages
give the same Conversation (every message, call, status, place, the start and the depth)
with the steps a trace's messages never need left out: each message is checked as the
door checks a plain value (``intake._plain_depth``, the door's own test), read by the
plain chat message's reading (``agent_messages._chat``, which the general reading takes
for these messages too), and its calls linked by id as it goes.

Wherever a message is of another form, is no plain JSON within the door's fast depth,
cannot be read (a ParseError), or a result names no call left open by its id, this
reading gives None and the caller reads the run the general way, which reads it, or
refuses it with the error it names, as before.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..core.errors import ParseError
from .agent_messages import (
    _CHAT_KEYS,
    ASSISTANT,
    Conversation,
    Message,
    ToolCall,
    _chat,
)
from .intake import _FAST_DEPTH, _plain_depth

# The switch of this fast path (docs/architecture.md, "Fast paths"): False reads every
# trace's run by the door's check and ``conversation_of``.
TRACE_FAST = True


def chat_conversation(messages: Sequence[Any], side: str) -> Conversation | None:
    """``messages`` (a trace's chat messages) read into the Conversation the door's check
    and ``conversation_of`` read them into; None where they must be read that way."""
    if not TRACE_FAST:
        return None
    read: list[Message] = []  # (each message as ``_chat`` reads it: at item 0)
    depth = 0
    open_ids: dict[str, int] = {}  # a call's id -> its place in ``calls``, while unanswered
    calls: list[tuple[int, int]] = []  # (message, call) of every call so far, in order
    answered: dict[int, dict[int, str]] = {}  # message -> its calls answered -> their status
    plain_depth, chat, chat_keys = _plain_depth, _chat, _CHAT_KEYS
    try:
        for index, message in enumerate(messages):
            if type(message) is not dict or not message.keys() <= chat_keys:
                return None
            deep = plain_depth(message, _FAST_DEPTH)
            one = chat(message, f"messages[{index}]", side) if deep >= 0 else None
            if one is None:
                return None
            if deep > depth:
                depth = deep
            read.append(one)
            if one.calls:
                for k, call in enumerate(one.calls):
                    if call.id is not None:
                        open_ids.setdefault(call.id, len(calls))
                    calls.append((index, k))
            for given in one.answers:  # (a result: the call of its id, as _linked finds it)
                found = open_ids.pop(given.call_id, None) if given.call_id is not None else None
                if found is None:
                    return None  # (found by name or in order: _linked's own steps)
                at, k = calls[found]
                statuses = answered.get(at)
                if statuses is None:
                    answered[at] = statuses = {}
                statuses[k] = given.status
    except ParseError:
        return None  # (the general reading raises what the door or the reader finds first)
    # each message placed at its item (as ``_placed`` places it), its calls' statuses set
    # where results answered them (as ``_linked`` sets them)
    make = tuple.__new__
    out: list[Message] = []
    for index, (role, made, answer, where, _, result, answers) in enumerate(read):
        statuses = answered.get(index)
        if statuses is not None:
            made = tuple(
                make(ToolCall, (*call[:4], statuses[k], call[5])) if k in statuses else call
                for k, call in enumerate(made)
            )
        out.append(make(Message, (role, made, answer, where, index, result, answers)))
    first = next((m.item for m in out if m.role == ASSISTANT), len(out))
    return Conversation(tuple(out), None, first, depth)
