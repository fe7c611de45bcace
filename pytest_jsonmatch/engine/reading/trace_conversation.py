"""A run read from its trace into one Conversation without its general reading's steps:
straight from its spans (:func:`straight_run`), or from its chat messages in one pass
(:func:`chat_conversation`).

The general reading of a run: ``trace_messages.run_messages`` makes its spans into plain
OpenAI chat messages (keys among ``role``, ``content``, ``tool_calls``, ``tool_call_id``,
``status``, ``error``; an assistant's content text or null), and ``Trace.run_conversation``
(with :data:`TRACE_FAST` off) takes each through the door's check (``intake.read_json``),
then reads the list by ``agent_messages``' ``conversation_of``: the list's envelope opened,
each item's kind tested, then every call linked to the result that answers it (by id, by
name, in order). Both readings here give the same Conversation (every message, call,
status, place, the start and the depth):

- :func:`chat_conversation`, from the chat messages: each checked as the door checks a
  plain value (``intake._plain_depth``, the door's own test), read by the plain chat
  message's reading (``agent_messages._chat``, which the general reading takes for these
  messages too), its calls linked by id as it goes.
- :func:`straight_run`, from the spans, with the steps, as the trace is read: each span
  read as ``run_messages`` reads it, by the same functions in the same order, and what it
  would make read at once as :func:`chat_conversation` would read it, without the chat
  message made (a model call's reply of GenAI parts and a tool's result in fewer steps,
  any other message by ``_chat``). The chat messages are then made only where asked for
  (``Trace.messages``).

Wherever a message is of another form, is no plain JSON within the door's fast depth,
cannot be read (a ParseError), or a result names no call left open by its id (or, read
straight, a tool span names none by its id, or an id is given twice), these readings give
None and the caller reads the run the general way, which reads it, or refuses it with the
error it names, as before. A ParseError of the spans themselves (``run_messages``') is
raised by the straight reading as the general one raises it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ..core.errors import ParseError
from .agent_messages import (
    _CHAT_KEYS,
    ASSISTANT,
    ERROR,
    ERROR_TEXT,
    OK,
    TOOL,
    Answer,
    Conversation,
    Message,
    ToolCall,
    _chat,
    _status,
    read_arguments,
)
from .intake import _FAST_DEPTH, _PLAIN_SCALARS, _plain_depth
from .trace_chat import _SCAN, SHORT_JSON, Chat, agent_output, inputs, json_text, output
from .trace_formats import Span
from .trace_messages import (
    CHAT,
    RESULT_KEYS,
    Where,
    _error,
    _first,
    _given,
    _kinds,
    _said,
    _tool_name,
    kinds_in_order,
    read_steps,
    stepped,
)
from .trace_messages import TOOL as TOOL_STEP

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


# -- the run read straight from its spans -----------------------------------------------------


class _Other(Exception):
    """A message the straight reading leaves to the general one (of another form, or
    that it cannot read: the general reading raises what it finds, where it finds it)."""


_OUTPUT = "gen_ai.output.messages"
_ABSENT: Any = object()  # (an attribute a span does not hold)
_OK_HELD = {"status": "ok"}  # (what a tool result's message says of it where it did not fail)
# whether a result's message that says so says the tool failed, whatever its result (no
# vocabulary reads it so: a text result's status is then its own)
_OK_FAILED = _status(_OK_HELD, None) == ERROR


def straight_run(
    spans: Sequence[Span], depth: Mapping[str, int], where: Where, parents_first: bool = False
) -> tuple[Conversation, list[object], list[object]] | None:
    """The run of ``spans`` (in the order they start; ``depth``: each span's level;
    ``parents_first``: every span's parent is known to come before it) read
    straight into the Conversation and the steps that ``trace_messages.run_messages`` then
    :func:`chat_conversation` (or the general reading) give, without its chat messages
    made: the Conversation, what each step is made of (``steps_of`` makes them) and what
    each chat message is (``chat_messages``); None where the run must be read that way. A
    ParseError ``run_messages`` raises is raised here as it is, before the same spans'
    later ones.

    Where every parent comes first, the steps' kinds are found in the same pass as the
    steps are read, the conversation the run was given read at its first model call (as
    ``run_messages`` reads it first: the first model call's input); where that call holds
    none, or no model call is found, the run is read again as ``run_messages`` reads it,
    its kinds first."""
    if not TRACE_FAST:
        return None
    try:
        try:
            if not parents_first:
                raise _Unsuited
            reading = _Straight(where, given=False)
            agent = read_steps(kinds_in_order(spans), depth, reading)
            if not reading.given:
                raise _Unsuited  # (no model call)
        except _Unsuited:
            reading = _Straight(where)
            kinds = _kinds(spans, depth, parents_first)
            for message in _given(spans, kinds, where):
                reading.chat(message)
            agent = read_steps(stepped(spans, kinds), depth, reading)
        if agent is not None:
            reading.agent_answer(agent)
    except _Other:
        return None
    return reading.conversation(), reading.marks, reading.chats


class _Unsuited(Exception):
    """A run the straight reading reads in two passes, its kinds first: its first model
    call holds no input (the run's given conversation is another span's), or it has
    none."""


def _arguments(text: str, at: str, name: str) -> dict[str, Any]:
    """A call's arguments text read as ``agent_messages.read_arguments`` reads it (short
    JSON text of an object at once; ``at``: where the call is, ``name`` its function, as
    an error names them); ``_Other`` where it gives no object or refuses it."""
    if len(text) < SHORT_JSON:
        try:
            value, end = _SCAN(text, 0)
        except (StopIteration, ValueError, RecursionError):
            value = end = None
        if type(value) is dict and end == len(text):
            return value
    try:
        value = read_arguments(text, f"actual {at}.arguments (call {name!r})")
    except ParseError:
        raise _Other from None
    if type(value) is not dict:
        raise _Other
    return value


class _Straight:
    """What the straight reading has read so far: the messages as ``_chat`` reads them
    (each at item 0), the steps, every call by its id (its message and place, whether a
    model call made it; None once a result answered it), and the content of the last
    assistant message (whether the agent's output is the answer).

    Two matchings meet here: ``run_messages``' (which call a tool span answers: the first
    open one of its id, else of its name) and the one-pass reading's (which call a result
    answers: the first open one of its id). Where every call's id is its own, both are the
    call open under the tool span's id; anything else (an id given twice, a result or tool
    span that names no open call by its id, a call the reader makes for a tool span) is
    left to the general reading."""

    def __init__(self, where: Where, given: bool = True) -> None:
        self.where = where
        # whether the conversation the run was given is read (else it is read at the first
        # model call, its input: where every parent comes first, the steps are read as
        # their kinds are found, in one pass)
        self.given = given
        self.read: list[Message] = []
        # each step's span, kind, message, tool and error, one after another (as few
        # objects as may be kept: ``trace_messages.steps_of`` makes the steps of them)
        self.marks: list[object] = []
        self.depth = 0
        self.ids: dict[str, tuple[int, int, bool] | None] = {}
        # what each message's chat message is made of (chat_messages), one after another:
        # the chat message; a reply of GenAI parts' text, then each of its calls' arguments
        # as given; or a tool result's error (None: none)
        self.chats: list[object] = []
        self.replied = False  # whether a message of the role ``assistant`` was read
        self.said: object = None  # the content of the last one

    def chat(self, message: object, modelled: bool = False) -> None:
        """A chat message read as :func:`chat_conversation` reads it (``modelled``: a
        model call's reply, whose calls tool spans answer)."""
        index = len(self.read)
        if type(message) is not dict or not message.keys() <= _CHAT_KEYS:
            raise _Other
        deep = _plain_depth(message, _FAST_DEPTH)
        try:
            one = _chat(message, f"messages[{index}]", "actual") if deep >= 0 else None
        except ParseError:
            raise _Other from None
        if one is None:
            raise _Other
        one = tuple.__new__(Message, (*one[:4], index, *one[5:]))  # (placed at its item)
        if message.get("role") == "assistant":
            self.replied, self.said = True, message.get("content")
        if deep > self.depth:
            self.depth = deep
        self.read.append(one)
        self.chats.append(message)
        for k, call in enumerate(one.calls):
            self._made(call.id, index, k, modelled)
        for given in one.answers:
            self._answer(given.call_id, given.status)

    def _made(self, call_id: str | None, index: int, k: int, modelled: bool) -> None:
        if call_id is None:
            if modelled:
                raise _Other  # (run_messages names it by its text: the general reading's)
            return
        if call_id in self.ids:
            raise _Other
        self.ids[call_id] = (index, k, modelled)

    def _answer(self, call_id: str | None, status: str) -> None:
        """The open call of ``call_id`` answered: its message made again, the call's
        status set (as ``_linked`` sets it)."""
        found = self.ids.get(call_id) if call_id is not None else None
        if found is None:
            raise _Other  # (found by name or in order: conversation_of's own steps)
        at, k, _ = found
        self.ids[call_id] = None  # type: ignore[index]
        message = self.read[at]
        calls = message[1]
        call = calls[k]
        made = tuple.__new__(ToolCall, (*call[:4], status, call[5]))
        self.read[at] = tuple.__new__(
            Message, (message[0], (*calls[:k], made, *calls[k + 1 :]), *message[2:])
        )

    def model_call(self, span: Span) -> None:
        """As ``run_messages`` reads a model call: its reply, its calls' ids given where
        they have none (the first one's input first, where the run's given conversation
        is not read yet: ``_Unsuited`` where it holds none)."""
        if not self.given:
            given = _said(span, self.where, inputs)
            if given is None:
                raise _Unsuited
            for message in given:
                self.chat(message)
            self.given = True
        at = len(self.read)
        if self._parts(span):
            self.marks += (span, CHAT, at, None, None)
            return
        reply = _said(span, self.where, output)
        if reply is not None:
            listed = reply.get("tool_calls")
            for number, call in enumerate(listed or []):
                if isinstance(call, dict) and not call.get("id"):
                    call["id"] = f"{span.span_id}.{number}"
            if not self._chat_reply(reply, listed):
                self.chat(reply, True)
        self.marks += (span, CHAT, at if reply is not None else None, None, None)

    def _parts(self, span: Span) -> bool:
        """A model call's reply given as ``gen_ai.output.messages`` JSON text of GenAI
        messages, its first an assistant's of text and tool call parts, read as
        ``trace_chat.output`` then :meth:`_chat_reply` read it, without the chat message
        made; False, and nothing read, where it is given otherwise."""
        value = span.attributes.get(_OUTPUT)
        if type(value) is not str:
            return False
        listed: Any = None
        if len(value) < SHORT_JSON:  # (as json_text reads it: short text at once)
            try:
                listed, end = _SCAN(value, 0)
            except (StopIteration, ValueError, RecursionError):
                end = -1
            if end != len(value):
                listed = None
        if listed is None:
            try:
                listed = json_text(value, _OUTPUT)
            except (ValueError, ParseError):
                return False  # (output's own error, raised by it)
        if type(listed) is not list or not listed:
            return False  # (none)
        if len(listed) > 1 and str in map(type, listed):
            return False  # (a message given as text, read by output)
        message = listed[0]
        if type(message) is not dict or message.get("role") != "assistant":
            return False
        parts: Any = message.get("parts", [])
        if type(parts) is not list:
            return False
        texts: list[str] = []
        calls: list[tuple[object, object, object]] = []
        for part in parts:
            kind = part.get("type") if type(part) is dict else None
            if kind == "text":
                content = part.get("content")
                if type(content) is str:
                    texts.append(content)
            elif kind == "tool_call":
                call_id, arguments = part.get("id"), part.get("arguments")
                if not call_id:
                    call_id = f"{span.span_id}.{len(calls)}"
                calls.append((call_id, part.get("name"), {} if arguments is None else arguments))
            # (a part of another kind, reasoning or media, is no step; a tool's result is
            # a message before the reply, which output leaves)
        text = "\n".join(texts) if texts else None
        if not self._reply(text, calls or None):
            return False
        # (its chat message's text, then each call's arguments as given: chat_messages)
        self.chats.append(text)
        for _, _, arguments in calls:
            self.chats.append(arguments)
        return True

    def _chat_reply(self, reply: dict[str, Any], listed: object) -> bool:
        """A model call's reply as ``trace_chat`` makes it of GenAI parts (``{role:
        assistant, content: text or null, tool_calls?: [{id, type, function: {name,
        arguments}}]}``) read as :meth:`chat` reads it, in fewer steps; False where it is
        of another form (:meth:`chat` reads it)."""
        content = reply.get("content")
        if (
            reply.get("role") != "assistant"
            or len(reply) != (2 if listed is None else 3)
            or (content is not None and type(content) is not str)
            or (listed is not None and type(listed) is not list)
        ):
            return False
        calls: list[tuple[object, object, object]] = []
        for call in listed or ():
            if type(call) is not dict or len(call) != 3 or call.get("type") != "function":
                return False
            function = call.get("function")
            if type(function) is not dict or len(function) != 2 or "arguments" not in function:
                return False
            calls.append((call.get("id"), function.get("name"), function["arguments"]))
        if not self._reply(content, calls if listed is not None else None):
            return False
        self.chats.append(reply)
        return True

    def _reply(
        self, content: str | None, listed: list[tuple[object, object, object]] | None
    ) -> bool:
        """An assistant's reply, its text ``content`` and its calls (``listed``: each one's
        id, name and arguments; None: the reply holds no ``tool_calls``), read as
        :meth:`chat` reads ``{role: assistant, content, tool_calls?: [{id, type: function,
        function: {name, arguments}}]}``; False, and nothing read, where :meth:`chat` must
        read it."""
        index = len(self.read)
        where = f"messages[{index}]"
        deep = 1 if listed is None else 2
        calls: list[ToolCall] = []
        named: list[str] = []  # (each call's id)
        for j, (call_id, name, arguments) in enumerate(listed or ()):
            if type(call_id) is not str or type(name) is not str:
                return False
            at = f"{where}.tool_calls[{j}].function"
            if type(arguments) is str:
                if deep < 4:
                    deep = 4
                arguments = _arguments(arguments, at, name)
            elif type(arguments) is dict:
                nested = _plain_depth(arguments, _FAST_DEPTH - 4)
                if nested < 0:
                    raise _Other
                deep = max(deep, 4 + nested)
                arguments = dict(arguments)
            else:
                return False
            calls.append(tuple.__new__(ToolCall, (name, arguments, at, call_id, None, None)))
            named.append(call_id)
        ids = self.ids
        for k, call_id in enumerate(named):  # (as _made makes them)
            if call_id in ids:
                raise _Other
            ids[call_id] = (index, k, True)
        self.replied, self.said = True, content
        if deep > self.depth:
            self.depth = deep
        answer = content if content is not None and content.strip() else None
        message = (ASSISTANT, tuple(calls), answer, where, index, None, ())
        self.read.append(tuple.__new__(Message, message))
        return True

    def tool_call(self, span: Span) -> None:
        """As ``run_messages`` reads a tool call, its result read as ``_chat`` reads the
        message ``run_messages`` makes of it: ``{role: tool, tool_call_id, content,
        status[, error]}``."""
        # (as _tool_name, _first_text and _first read them, each attribute's first key
        # looked up at once: nearly every tool span holds it)
        attributes = span.attributes
        named = attributes.get("gen_ai.tool.name")
        name = named if type(named) is str and named else _tool_name(span)
        given = attributes.get("gen_ai.tool.call.id", _ABSENT)
        if given is _ABSENT:
            given = attributes.get("tool_call.id")
        call_id = given if type(given) is str and given else None
        found = self.ids.get(call_id) if call_id is not None else None
        if found is None or not found[2]:
            raise _Other  # (by its name, or a call the reader makes: the general reading's)
        error = _error(span) if span.events or span.status == "error" else None
        content = attributes.get(RESULT_KEYS[0], _ABSENT)
        if content is _ABSENT:
            content = _first(span, RESULT_KEYS)
        kind = type(content)
        deep = 1
        if kind is dict or kind is list:
            deep = _plain_depth(content, _FAST_DEPTH - 1) + 1
            if deep <= 0:
                raise _Other
        elif kind not in _PLAIN_SCALARS and not (kind is float and content - content == 0.0):
            raise _Other
        if deep > self.depth:
            self.depth = deep
        index = len(self.read)
        if error is not None:
            status = ERROR
        elif kind is str and not _OK_FAILED:  # (as _status reads a text beside _OK_HELD)
            status = ERROR if content.startswith(ERROR_TEXT) else OK
        else:
            status = _status(_OK_HELD, content)
        result = tuple.__new__(Answer, (call_id, None, status))
        where = f"messages[{index}]"
        self.read.append(tuple.__new__(Message, (TOOL, (), None, where, index, content, (result,))))
        self.chats.append(error)
        self._answer(call_id, status)
        self.marks += (span, TOOL_STEP, index, name, error)

    def step(
        self,
        span: Span,
        kind: str,
        message: int | None,
        tool: str | None = None,
        error: str | None = None,
    ) -> None:
        self.marks += (span, kind, message, tool, error)

    def agent_answer(self, agent: Span) -> None:
        """As ``run_messages`` reads the agent's output: the answer where the last
        assistant message wrote none."""
        if self.replied and self.said not in (None, ""):
            return
        answer = _said(agent, self.where, agent_output)
        if answer is not None:
            self.chat({"role": "assistant", "content": answer})
            at, marks = len(self.read) - 1, self.marks
            for k in range(0, len(marks), 5):
                if marks[k] is agent:
                    marks[k + 2] = at

    def conversation(self) -> Conversation:
        """The messages read (each at its item, its calls' statuses set where results
        answered them), as :func:`chat_conversation` gives them."""
        out = tuple(self.read)
        first = next((m.item for m in out if m.role == ASSISTANT), len(out))
        return Conversation(out, None, first, self.depth)


def chat_messages(read: Sequence[Message], chats: Sequence[object]) -> list[Chat]:
    """The chat messages ``trace_messages.run_messages`` makes of a run read straight
    (its messages ``read``; ``chats``: what :func:`straight_run` kept of each, one after
    another: a chat message; a reply of GenAI parts' text, then each of its calls'
    arguments as given; a tool's result's error, None where nothing failed)."""
    out: list[Chat] = []
    at = 0
    for message in read:
        made = chats[at]
        at += 1
        if type(made) is dict:
            out.append(made)
        elif message.role == TOOL:  # (a tool's result: what failed)
            result: Chat = {
                "role": "tool",
                "tool_call_id": message.answers[0].call_id,
                "content": message.result,
                "status": "ok" if made is None else "error",
            }
            if made is not None:
                result["error"] = made
            out.append(result)
        else:  # (a reply of GenAI parts: its text, then its calls' arguments)
            reply: Chat = {"role": "assistant", "content": made}
            if message.calls:
                given = chats[at : at + len(message.calls)]
                at += len(given)
                reply["tool_calls"] = [
                    {
                        "id": call.id,
                        "type": "function",
                        "function": {"name": call.name, "arguments": arguments},
                    }
                    for call, arguments in zip(message.calls, given)
                ]
            out.append(reply)
    return out
