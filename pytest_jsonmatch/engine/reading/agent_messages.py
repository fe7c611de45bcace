"""An agent's messages, in any vendor's shape, read into one model: :class:`Message`.

Every agent API reads through here: the ``tool_calls`` metric (:func:`read_calls`), the
``trajectory`` metric and a run (:func:`read_messages`), a reply (:func:`read_reply`). A
message is its role (OpenAI's names: ``assistant``, ``tool``, ``user``, ``system``...), the
calls it makes (a name and arguments each) and, for the assistant, its answer. The shapes:

- OpenAI chat: messages (``tool_calls`` of ``{type: function, function: {name,
  arguments}}``, the legacy ``function_call``), a chat-completions response (its first
  choice's message), a ``tool_calls`` list alone; ``arguments`` text is read by
  :func:`read_arguments`.
- OpenAI Responses: a response (``output``) or its items: ``message``, ``function_call``,
  ``function_call_output`` (a result), ``reasoning`` (passed over). The items of one turn
  (a message item, its reasoning and its calls, side by side) are one message, as the chat
  form gives a turn.
- Anthropic: messages of ``text`` and ``tool_use`` blocks; a user message made of
  ``tool_result`` blocks is a result.
- Gemini: a response (its first candidate's content), a request's ``contents``, contents of
  ``parts`` (``functionCall`` a call, a ``thought`` part no answer; ``role`` optional);
  ``model`` is the assistant; a content made of ``functionResponse`` parts is a result.
- LangChain / LangGraph: message dicts naming their role as ``type`` (``human``, ``ai``,
  ``tool``, ``AIMessageChunk``...), ``tool_calls`` of ``{name, args, type: tool_call}``; a
  state holding them under ``messages``.
- Plain steps: ``{name, arguments}`` (``args``, ``input``, ``parameters``) or BFCL's
  ``{name: {arg: value}}`` a call, ``{result: ...}`` (``tool_result``) a result, ``{answer:
  ...}`` (``final_answer``) the answer; ``{calls: [...]}`` holding calls.

Each tool result is read with its status (:class:`Answer`: ``error`` where the tool failed, in
its vendor's words: the table's ``failed`` and ``error_keys``, or ``run_tools``' text
``error: ...``; else ``ok``), and each call takes the status of the result that answers it
(by id, else by name, else in order: :func:`_linked`), so that a step's success is read once.
A plain call's ``status`` (``ok``, ``error``) is the status an expected step must end in.

Content blocks, parts and calls given bare (a message's content without its envelope) are
pieces of one assistant turn. A message's content is never read as a call unless a vendor
marks it as one. Anything else is a ParseError naming where it is and what it is.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable, Iterator, Mapping
from typing import Literal, NamedTuple

from ..core.errors import ParseError, shown
from ..core.paths import index_segment, key_segment
from ..core.values import JsonObject, JsonValue
from .deep_json import read_whole
from .intake import as_data
from .parse import parse_actual, parse_actual_checked

ASSISTANT, TOOL, USER = "assistant", "tool", "user"
AgentKind = Literal["run", "reply"] | None  # an agent's whole run, one reply, or no agent's


class Vocabulary(NamedTuple):
    """One vendor's words for the parts of a conversation, as this reader reads them."""

    vendor: str
    roles: Mapping[str, str] = {}  # its names of roles -> OpenAI's
    calls: tuple[str, ...] = ()  # the ``type`` of its call items or blocks
    call_keys: tuple[str, ...] = ()  # the keys of a part or message that hold one call
    arguments: tuple[str, ...] = ()  # the keys of a call that hold its arguments
    results: tuple[str, ...] = ()  # the ``type`` of its tool-result items or blocks
    result_keys: tuple[str, ...] = ()  # the keys of a part that hold a tool's result
    texts: tuple[str, ...] = ()  # the ``type`` of blocks or items whose text is the answer
    pieces: tuple[str, ...] = ()  # other ``type``s of a piece of an assistant's turn
    ids: tuple[tuple[str | None, str], ...] = ()  # (an object's type, None: any; its id key)
    failed: tuple[tuple[str, JsonValue], ...] = ()  # (key, value) a result holds when it failed
    error_keys: tuple[str, ...] = ()  # the keys of a result part's response holding its error


# Every vendor's vocabulary, in one table: a new vendor's shape is one entry here (and a test
# in tests/engine/reading/test_vendor_vocabulary.py); the reader below, and the record
# setting's scrub of call ids (calls/stable_form.py), read only the names this table gives.
VOCABULARIES = (
    Vocabulary(
        "OpenAI chat",
        calls=("function",),
        call_keys=("function_call",),  # (the legacy message's)
        arguments=("arguments",),
        ids=(("function", "id"), (None, "tool_call_id")),
    ),
    Vocabulary(
        "OpenAI Responses",
        calls=("function_call",),
        arguments=("arguments",),
        results=("function_call_output",),
        texts=("output_text",),
        pieces=("refusal",),
        ids=(("function_call", "call_id"), ("function_call_output", "call_id")),
    ),
    Vocabulary(
        "Anthropic",
        calls=("tool_use",),
        arguments=("input",),
        results=("tool_result",),
        texts=("text",),
        pieces=("thinking", "redacted_thinking"),
        ids=(("tool_use", "id"), ("tool_result", "tool_use_id")),
        failed=(("is_error", True),),
    ),
    Vocabulary(
        "Gemini",
        roles={"model": ASSISTANT},
        call_keys=("functionCall",),
        arguments=("args",),
        result_keys=("functionResponse", "function_response"),
        error_keys=("error",),
    ),
    Vocabulary(
        "LangChain",
        roles={
            "ai": ASSISTANT,
            "AIMessageChunk": ASSISTANT,
            "human": "user",
            "HumanMessageChunk": "user",
            "ToolMessageChunk": TOOL,
            "SystemMessageChunk": "system",
        },
        calls=("tool_call",),
        arguments=("args",),
        ids=(("tool_call", "id"),),
        failed=(("status", "error"),),  # (a ToolMessage's; a trace's tool message says it so)
    ),
)


def _all(field: str) -> tuple[str, ...]:
    """Every vendor's words of one field of the table, each once, in the table's order."""
    return tuple(dict.fromkeys(w for v in VOCABULARIES for w in getattr(v, field)))


_ROLES = {name: role for v in VOCABULARIES for name, role in v.roles.items()}
# the keys that hold a call's id, by the ``type`` of the object holding them (None: any)
ID_KEYS = tuple(dict.fromkeys(pair for v in VOCABULARIES for pair in v.ids))
_CALL_TYPES = frozenset(_all("calls")) - {"function"}  # (a chat call is typed by its object)
_CALL_KEYS = _all("call_keys")
_VENDOR_ARGUMENTS = _all("arguments")
_ARGUMENT_KEYS = ("arguments", "args", "input", "parameters")  # (a plain call's, any vendor's)
_RESULT_KEYS = ("result", "tool_result")
_ANSWER_KEYS = ("answer", "final_answer")
# blocks, parts and items whose text is the answer
_TEXT_TYPES = frozenset(_all("texts"))
# items that are a piece of an assistant's turn given bare: Responses items, content blocks
_PIECES = frozenset(_all("calls") + _all("texts") + _all("pieces"))
# items and parts that are a tool's result
_RESULTS = frozenset(_all("results"))
_RESULT_PARTS = _all("result_keys")
# what a tool's result holds where the tool failed: a key and its value (``is_error: true``),
# a key of a result part's response (Gemini's ``error``)
_FAILED = tuple(dict.fromkeys(pair for v in VOCABULARIES for pair in v.failed))
_ERROR_KEYS = _all("error_keys")
# the text a tool's result starts with where the tool failed, as ``run_tools`` writes it
# (calls/agent_loop.py) in every API's form
ERROR_TEXT = "error: "
OK, ERROR = "ok", "error"
STATUSES = (OK, ERROR)  # a step's status: its tool's result given, or the tool failed
# what a one-key object is read as, its value an object, other than BFCL's {name: {args}}
CALL_FORM_KEYS = frozenset(
    {"name", "type", "function", "functionCall", "function_call", *_RESULT_KEYS, *_ANSWER_KEYS}
)
# how an item joins the message before it: never, as a piece of its turn, or as the turn's
# message item (one per turn)
_OWN, _PIECE, _TURN = 0, 1, 2
# the plain chat message's fast reading (docs/architecture.md, "Fast paths"); False: _item's
CHAT_FAST = True
# an OpenAI chat message's keys as runs are written (no envelope's, vendor part's, nor type)
_CHAT_KEYS = frozenset({"role", "content", "tool_calls", "tool_call_id", "name", "status", "error"})


class ToolCall(NamedTuple):
    """One call: the function's name, its arguments, where in the input it was
    (``choices[0].message.tool_calls[1].function``), its ``id`` (as its vendor names it;
    None: none given), its ``status``, what the tool's result that answers it says (``ok``,
    ``error``; None: no result answers it), and ``required``, the status a plain call says
    its step must end in (an expected step's ``status``; None: it says none)."""

    name: str
    arguments: JsonObject
    where: str
    id: str | None = None
    status: str | None = None
    required: str | None = None


class Answer(NamedTuple):
    """One tool result a message carries: the id of the call it answers and the function's
    name (None: not given), and its ``status``: ``error`` where the tool failed (as its
    vendor says it: :data:`VOCABULARIES`' ``failed`` and ``error_keys``, or a text that
    starts with :data:`ERROR_TEXT`), else ``ok``."""

    call_id: str | None
    name: str | None
    status: str


class Message(NamedTuple):
    """One message: its ``role`` (OpenAI's names), its ``calls``, its ``answer`` (an
    assistant's content: a JSON value, or the text of its text blocks; None: none), where it
    is in the input, ``item``, the index of the list item it starts at, and, for a tool's
    result, ``result``: what the tool gave (its content, output or response; a message of
    several results: their list), and ``answers``, each result it carries (the call it
    answers, its status)."""

    role: str
    calls: tuple[ToolCall, ...]
    answer: JsonValue | None
    where: str
    item: int = 0
    result: JsonValue | None = None
    answers: tuple[Answer, ...] = ()

    @property
    def status(self) -> str | None:
        """A tool result's status: ``error`` where a result it carries failed, else ``ok``
        (None: it carries none)."""
        if not self.answers:
            return None
        return ERROR if any(a.status == ERROR for a in self.answers) else OK


class Conversation(NamedTuple):
    """An agent's output read once, in no vendor's shape: its ``messages`` in order, the
    ``state`` it left (None: none given), ``start``, the item of its first assistant message
    (those before it are the conversation it was given; the number of items where it has
    none), and ``depth``, how deeply its JSON nests (what scoring it needs room for). Every
    part of an agent case is scored from it (engine/agents/agent_scorers.py);
    :func:`read_messages` gives its messages back as they are, unread again."""

    messages: tuple[Message, ...]
    state: JsonValue | None = None
    start: int = 0
    depth: int = 0

    @property
    def answer(self) -> JsonValue | None:
        """The answer of its last assistant message (None: that message only called tools,
        or it has none)."""
        replies = [m for m in self.messages if m.role == ASSISTANT]
        return replies[-1].answer if replies else None

    @property
    def calls(self) -> tuple[ToolCall, ...]:
        """Every call, in order."""
        return tuple(call for message in self.messages for call in message.calls)

    @property
    def results(self) -> tuple[JsonValue | None, ...]:
        """What each tool's result message gave, in order."""
        return tuple(m.result for m in self.messages if m.role == TOOL)

    def from_start(self) -> Conversation:
        """The run itself: its messages from its first assistant message on."""
        kept = tuple(m for m in self.messages if m.item >= self.start)
        return self._replace(messages=kept)


def conversation_of(messages: list[JsonValue], side: str, depth: int = 0) -> Conversation:
    """A run's messages (plain JSON) read once into a Conversation, ``where`` naming each
    under ``messages``; its ``start`` at its first assistant message."""
    read = tuple(read_messages({"messages": messages}, side))
    first = next((m.item for m in read if m.role == ASSISTANT), len(messages))
    return Conversation(read, None, first, depth)


def read_calls(value: object, side: str = "actual") -> list[ToolCall]:
    """Every tool call in ``value``, in order (ParseError naming the place of anything that
    is no message, call or step)."""
    return [call for message in read_messages(value, side) for call in message.calls]


def read_reply(value: object, side: str = "actual") -> Message:
    """``value`` read as one reply: every call its messages make, the assistant's answer
    (their texts joined where several wrote one). ParseError where it is no reply."""
    if not (type(value) is list or _is_reply(value)):
        raise ParseError(
            f"{side} is not an agent's reply: {shown(value)}; give the assistant message "
            f"(role, content, tool_calls), a chat-completions response, an Anthropic message, "
            f"a Gemini response or content, or a Responses output"
        )
    messages = read_messages(value, side)
    answers = [m.answer for m in messages if m.role == ASSISTANT and m.answer is not None]
    answer = answers[-1] if answers else None
    if len(answers) > 1 and all(isinstance(a, str) for a in answers):
        answer = "\n".join(str(a) for a in answers)
    return Message(ASSISTANT, tuple(c for m in messages for c in m.calls), answer, "")


def _is_reply(value: object) -> bool:
    keys = ("role", "type", "content", "parts", "tool_calls", "choices", "candidates", "output")
    return isinstance(value, Mapping) and any(key in value for key in keys)


def agent_data(actual: object, side: str) -> object:
    """What an agent gave, as data (a client's model objects dumped): JSON text read
    leniently."""
    value = as_data(actual, side)
    if isinstance(value, (str, bytes, bytearray)):
        value = parse_actual(value, allow_array=True)
    return value


def read_messages(value: object, side: str = "actual") -> list[Message]:
    """Every message of ``value`` (a list of messages, items, steps or calls; an object
    holding them; a response; one message, call or step; a Conversation, read already: its
    own), in order."""
    if type(value) is Conversation:
        return list(value.messages)
    return _read_messages(value, side, None)


# where a text an answer is read from stands: the object holding it, and its key
TextPlace = tuple[Mapping[str, JsonValue], str]


def answer_places(value: object, side: str = "actual") -> list[TextPlace]:
    """Where the answer of ``value``'s last assistant message that wrote one is read from, in
    order: each text block's or part's ``text``, or the message's string ``content`` (empty:
    no message wrote a text answer). The places are in ``value`` itself, so that what reads
    the answer can write it back (the record setting's scrub, calls/answer_scrub.py), and
    found by the reading that reads the answer, for every shape it reads."""
    places: list[list[TextPlace]] = []
    messages = _read_messages(value, side, places)
    written = [k for k, m in enumerate(messages) if m.role == ASSISTANT and m.answer is not None]
    return places[written[-1]] if written else []


def _read_messages(value: object, side: str, places: list[list[TextPlace]] | None) -> list[Message]:
    """read_messages; with ``places``, each message's answer places too (one list each)."""
    out: list[Message] = []
    open_turn = has_message = False
    for index, where, item in _items(value, side):
        read, joins = _item(item, where, side)
        if read is None:  # (a reasoning item: no step, the turn goes on)
            continue
        found = _answer_places(item) if places is not None and read.answer is not None else []
        if out and open_turn and (joins == _PIECE or (joins == _TURN and not has_message)):
            out[-1] = _merged(out[-1], read)
            has_message = has_message or joins == _TURN
            if places is not None:
                places[-1] += found
            continue
        out.append(_placed(read, index))
        if places is not None:
            places.append(found)
        open_turn, has_message = joins != _OWN, joins == _TURN
    return _linked(out)


def _linked(messages: list[Message]) -> list[Message]:
    """``messages`` with each call's ``status``, its answer's: a result answers the call of
    its id, else the first unanswered call before it of its name (where it names one), else
    the first unanswered call before it."""
    if not any(m.answers for m in messages):
        return messages
    calls: list[tuple[int, int]] = []  # (message, call) of every call so far, in order
    by_id: dict[str, int] = {}  # call id -> the index in ``calls`` of the first unanswered
    by_name: dict[str, deque[int]] = {}
    taken: dict[int, str] = {}  # the index in ``calls`` of each call answered -> its status
    first = 0  # no call before this index in ``calls`` is unanswered
    for m, message in enumerate(messages):
        for c, call in enumerate(message.calls):
            if call.id is not None:
                by_id.setdefault(call.id, len(calls))
            by_name.setdefault(call.name, deque()).append(len(calls))
            calls.append((m, c))
        for answer in message.answers:
            found = by_id.pop(answer.call_id, None) if answer.call_id is not None else None
            named = by_name.get(answer.name or "") if found is None else None
            while named and named[0] in taken:
                named.popleft()
            if found is None and named:
                found = named.popleft()
            while found is None and first < len(calls):
                found = first if first not in taken else None
                first += 1
            if found is None or found in taken:
                continue
            taken[found] = answer.status
    # (each message whose calls were answered made again once, its calls' statuses set)
    answered: dict[int, dict[int, str]] = {}
    for found, status in taken.items():
        at, k = calls[found]
        answered.setdefault(at, {})[k] = status
    out = list(messages)
    make = tuple.__new__  # (as _replace, without its keyword parsing: once per call)
    for at, statuses in answered.items():
        role, made, *rest = out[at]
        made = tuple(
            make(ToolCall, (*call[:4], statuses[k], call[5])) if k in statuses else call
            for k, call in enumerate(made)
        )
        out[at] = make(Message, (role, made, *rest))
    return out


def _placed(message: Message, item: int) -> Message:
    """``message`` at the list item ``item`` (``_replace(item=item)``, made directly)."""
    role, calls, answer, where, _, result, answers = message
    return tuple.__new__(Message, (role, calls, answer, where, item, result, answers))


def _merged(first: Message, then: Message) -> Message:
    answer = then.answer if first.answer is None else first.answer
    if isinstance(first.answer, str) and isinstance(then.answer, str):
        answer = f"{first.answer}\n{then.answer}"
    return first._replace(
        calls=first.calls + then.calls, answer=answer, answers=first.answers + then.answers
    )


# -- where the messages are -----------------------------------------------------------------


def _items(value: object, side: str) -> Iterator[tuple[int, str, Mapping[str, JsonValue]]]:
    """Each object of ``value`` that is a message, call or step: the index of the top-level
    item it is in, where it is, itself; envelopes (responses, ``messages``) and nested lists
    opened."""
    if type(value) is list:
        return _listed([(index_segment("", i), v) for i, v in enumerate(value)], side, None)
    if isinstance(value, Mapping):
        return _listed([("", value)], side, None)
    raise ParseError(
        f"{side} holds no tool calls or messages: {shown(value)}; give a list of messages, "
        f"calls or steps, a response, or one message"
    )


def _listed(
    items: list[tuple[str, object]], side: str, top: int | None
) -> Iterator[tuple[int, str, Mapping[str, JsonValue]]]:
    for i, (where, item) in enumerate(items):
        index = i if top is None else top
        if CHAT_FAST and type(item) is dict and item.keys() <= _CHAT_KEYS:  # (no envelope's key)
            yield index, where, item
            continue
        held = _held(item, where) if isinstance(item, Mapping) else None
        if type(item) is list:
            held = [(index_segment(where, j), v) for j, v in enumerate(item)]
        if held is not None:  # (the items a top-level envelope holds are counted in it)
            yield from _listed(held, side, index if where else None)
        elif isinstance(item, Mapping):
            yield index, where, item
        else:
            raise ParseError(
                f"{side} {where} must be a message, a call or a step (an object), not {shown(item)}"
            )


def _held(value: Mapping[str, JsonValue], where: str) -> list[tuple[str, object]] | None:
    """The items an envelope holds, each with where it is (None: ``value`` is none)."""
    for key, inner in (("choices", "message"), ("candidates", "content")):
        listed = value.get(key)
        if type(listed) is list:  # a chat-completions or Gemini response: its first choice
            first = listed[0] if listed else None
            found = first.get(inner) if isinstance(first, Mapping) else None
            at = key_segment(index_segment(key_segment(where, key), 0), inner)
            return [] if found is None else [(at, found)]
    for key, unless in (
        ("messages", "role"),
        ("contents", "role"),
        ("output", "type"),
        ("calls", ""),
    ):
        listed = value.get(key)
        if type(listed) is list and unless not in value:
            at = key_segment(where, key)
            return [(index_segment(at, i), v) for i, v in enumerate(listed)]
    return None


# -- one item -------------------------------------------------------------------------------


def _item(item: Mapping[str, JsonValue], where: str, side: str) -> tuple[Message | None, int]:
    """One object read as a message, and how it joins the message before it."""
    if CHAT_FAST and type(item) is dict and item.keys() <= _CHAT_KEYS:
        read = _chat(item, where, side)
        if read is not None:
            return read, _OWN
    kind, role = item.get("type"), item.get("role")
    if role is None and kind == "reasoning":
        return None, _PIECE
    if role is None and (kind in _RESULTS or any(key in item for key in _RESULT_PARTS)):
        return _result(item, where), _OWN
    if role is None and (kind in _PIECES or (kind is None and _is_part(item))):
        call = _vendor_call(item, where, side)
        if call is None and kind == "function":  # (a plain call marked as a function)
            call = _plain_call(item, where, side)
        if call is not None:
            return Message(ASSISTANT, (call,), None, where), _PIECE
        return Message(ASSISTANT, (), _text(item), where), _PIECE
    if role is None and isinstance(kind, str) and kind != "message":
        role = kind  # a LangChain message dict names its role as its type
    if role is None:
        return _step(item, where, side), _OWN
    if not isinstance(role, str):
        raise ParseError(
            f"{side} message at {where or '$'}: its role must be text, not {shown(role)}"
        )
    role = _ROLES.get(role, role)
    if role == ASSISTANT:
        message = Message(ASSISTANT, _calls(item, where, side), _answer(item, where, side), where)
        return message, _TURN if kind == "message" else _OWN
    if role == TOOL:
        result = item.get("content")
        name = item.get("name")
        answer = Answer(
            _id_of(item), name if isinstance(name, str) else None, _status(item, result)
        )
        return Message(TOOL, (), None, where, result=result, answers=(answer,)), _OWN
    if role == "user" and _only_results(item):
        return _results(item, where), _OWN
    return Message(role, (), None, where), _OWN


def _chat(item: dict[str, JsonValue], where: str, side: str) -> Message | None:
    """An OpenAI chat message of the plain form (its keys :data:`_CHAT_KEYS`, its content
    text or null, each call ``{id, type, function: {name, arguments}}``) read as
    :func:`_item` reads it, in fewer steps: a run holds thousands. None where it is of any
    other form (or wrong), which :func:`_item`'s own reading then reads (or refuses)."""
    role, content = item.get("role"), item.get("content")
    if type(role) is not str:
        return None
    role = _ROLES.get(role, role)
    if role == TOOL:
        name = item.get("name")
        result = Answer(
            _id_of(item), name if isinstance(name, str) else None, _status(item, content)
        )
        return Message(TOOL, (), None, where, 0, content, (result,))
    if content is not None and type(content) is not str:
        return None  # (blocks, parts, or an answer given as a JSON value)
    if role != ASSISTANT:
        return Message(role, (), None, where)
    listed = item.get("tool_calls")
    if listed is not None and type(listed) is not list:
        return None
    calls: tuple[ToolCall, ...] = ()
    if listed:
        made = []
        prefix = key_segment(where, "tool_calls")
        for j, value in enumerate(listed):
            if type(value) is not dict:
                return None
            function = value.get("function")
            if type(function) is not dict:
                return None
            name = function.get("name")
            if type(name) is not str:
                return None
            arguments: object = function["arguments"] if "arguments" in function else {}
            at = f"{prefix}[{j}].function"
            if type(arguments) is str:
                arguments = read_arguments(arguments, f"{side} {at}.arguments (call {name!r})")
            elif arguments is None:
                arguments = {}
            if type(arguments) is not dict and not isinstance(arguments, Mapping):
                return None
            made.append(ToolCall(name, dict(arguments), at, _id_of(value, "function")))
        calls = tuple(made)
    answer = content if content is not None and content.strip() else None
    return Message(ASSISTANT, calls, answer, where)


def _is_part(item: Mapping[str, JsonValue]) -> bool:
    """Whether a role-less, type-less object is a Gemini part or a chat call given bare."""
    function = item.get("function")
    return (
        isinstance(item.get("text"), str)
        or isinstance(item.get("functionCall"), Mapping)
        or (isinstance(function, Mapping) and "name" in function)
    )


def _step(item: Mapping[str, JsonValue], where: str, side: str) -> Message:
    """A role-less object: a plain step, a call, or a message without its role."""
    for key in _RESULT_KEYS:
        if key in item:
            result = item[key]
            answer = Answer(_id_of(item), None, _status(item, result))
            return Message(TOOL, (), None, where, result=result, answers=(answer,))
    for key in _ANSWER_KEYS:
        if key in item:
            return Message(ASSISTANT, (), item[key], where)
    tool_calls = item.get("tool_calls", False)
    if (
        type(item.get("content")) in (list, str)
        or type(item.get("parts")) is list
        or tool_calls is None
        or type(tool_calls) is list
    ):
        return Message(ASSISTANT, _calls(item, where, side), _answer(item, where, side), where)
    call = _vendor_call(item, where, side) or _plain_call(item, where, side)
    if call is None:
        raise ParseError(
            f"{side} {where or '$'}: {shown(item)} is neither a call nor a message (role, "
            f"content), a tool result (result) nor an answer (answer); give messages, calls "
            f"or steps, or an object holding them under 'messages'"
        )
    return Message(ASSISTANT, (call,), None, where)


def _result(item: Mapping[str, JsonValue], where: str) -> Message:
    """A tool's result given as an item, a block or a part: what it holds (a Responses
    ``function_call_output``'s ``output``, a ``tool_result`` block's ``content``, a Gemini
    ``functionResponse``'s ``response``)."""
    for key in _RESULT_PARTS:
        part = item.get(key)
        if isinstance(part, Mapping):
            response, name = part.get("response"), part.get("name")
            status = _status(part, response)
            if isinstance(response, Mapping) and any(
                response.get(k) is not None for k in _ERROR_KEYS
            ):
                status = ERROR
            answer = Answer(None, name if isinstance(name, str) else None, status)
            return Message(TOOL, (), None, where, result=response, answers=(answer,))
    key = "output" if item.get("type") == "function_call_output" else "content"
    result = item.get(key)
    answer = Answer(_id_of(item), None, _status(item, result))
    return Message(TOOL, (), None, where, result=result, answers=(answer,))


def _status(holder: Mapping[str, JsonValue], result: JsonValue | None) -> str:
    """A tool result's status: ``error`` where ``holder`` (its message, item, block or
    part) says the tool failed in its vendor's words, or the result is a text (or text
    blocks) starting with :data:`ERROR_TEXT`; else ``ok``."""
    for key, value in _FAILED:
        said = holder.get(key)
        if key in holder and type(said) is type(value) and said == value:
            return ERROR
    if type(result) is list and result and isinstance(result[0], Mapping):
        result = result[0].get("text")
    return ERROR if isinstance(result, str) and result.startswith(ERROR_TEXT) else OK


def _id_of(item: Mapping[str, JsonValue], kind: object = None) -> str | None:
    """The id ``item`` (a call or a result, of the type ``kind``, else its own) is named by,
    as the vendor's table says (None: none)."""
    kind = item.get("type") if kind is None else kind
    for of, key in ID_KEYS:
        found = item.get(key)
        if (of is None or of == kind) and isinstance(found, str) and found:
            return found
    return None


def _results(item: Mapping[str, JsonValue], where: str) -> Message:
    """A user message made of tool results (Anthropic's ``tool_result`` blocks, Gemini's
    ``functionResponse`` parts): what each holds, one result as it is, several as a list."""
    blocks = item.get("parts", item.get("content"))
    held = [
        _result(block, where)
        for block in (blocks if type(blocks) is list else [])
        if isinstance(block, Mapping)
        and (block.get("type") == "tool_result" or any(k in block for k in _RESULT_PARTS))
    ]
    results = [m.result for m in held]
    answers = tuple(a for m in held for a in m.answers)
    result = results[0] if len(results) == 1 else results
    return Message(TOOL, (), None, where, result=result, answers=answers)


def _only_results(item: Mapping[str, JsonValue]) -> bool:
    """Whether a user message is tool results and no text: an Anthropic message of
    ``tool_result`` blocks, a Gemini content of ``functionResponse`` parts."""
    blocks = item.get("parts", item.get("content"))
    if type(blocks) is not list or not blocks:
        return False
    results = text = False
    for block in blocks:
        if isinstance(block, Mapping):
            results |= block.get("type") == "tool_result" or any(k in block for k in _RESULT_PARTS)
            text |= block.get("type", "text") == "text" and "text" in block
    return results and not text


# -- an assistant's calls and answer ---------------------------------------------------------


def _calls(item: Mapping[str, JsonValue], where: str, side: str) -> tuple[ToolCall, ...]:
    """An assistant message's calls: its ``tool_calls`` list where it gives calls there,
    else its legacy ``function_call`` and the call blocks of its content or parts."""
    listed = item.get("tool_calls")
    if listed is not None and type(listed) is not list:
        raise ParseError(
            f"{side} message at {where or '$'}: its tool_calls must be a list of calls or "
            f"null (no call), not {shown(listed)}"
        )
    if listed:
        at = key_segment(where, "tool_calls")
        return tuple(_listed_call(c, index_segment(at, j), side) for j, c in enumerate(listed))
    found: list[ToolCall] = []
    legacy = item.get("function_call")
    if isinstance(legacy, Mapping):
        found.append(_call(legacy, ("arguments",), key_segment(where, "function_call"), side))
    key, blocks = _blocks(item, where, side)
    for j, block in enumerate(blocks):
        if isinstance(block, Mapping):
            call = _vendor_call(block, index_segment(key_segment(where, key), j), side)
            if call is not None:
                found.append(call)
    return tuple(found)


def _blocks(item: Mapping[str, JsonValue], where: str, side: str) -> tuple[str, list[JsonValue]]:
    """A message's Gemini parts (a list of objects) or content blocks, under their key."""
    if "parts" in item:
        parts = item["parts"]
        if type(parts) is not list or not all(isinstance(p, Mapping) for p in parts):
            raise ParseError(
                f"{side} message at {where or '$'}: its parts must be a list of parts "
                f"(objects), not {shown(parts)}"
            )
        return "parts", parts
    content = item.get("content")
    return "content", content if type(content) is list else []


def _listed_call(value: object, where: str, side: str) -> ToolCall:
    """An item of a message's ``tool_calls``: a call in any form."""
    if not isinstance(value, Mapping):
        raise ParseError(f"{side} call at {where} must be an object, not {shown(value)}")
    call = _vendor_call(value, where, side) or _plain_call(value, where, side)
    if call is None:
        raise ParseError(f"{side} call at {where} is no call: {shown(value)}")
    return call


def _answer(item: Mapping[str, JsonValue], where: str, side: str) -> JsonValue | None:
    """An assistant message's answer: the text of its text blocks or parts, else its content
    as a JSON value (an array of no blocks is one)."""
    key, blocks = _blocks(item, where, side)
    if key == "parts" or (blocks and all(isinstance(b, Mapping) and _is_block(b) for b in blocks)):
        return _joined(_text(b) for b in blocks if isinstance(b, Mapping))
    content = item.get("content")
    if isinstance(content, str):
        return content if content.strip() else None
    return content


def _answer_places(item: Mapping[str, JsonValue]) -> list[TextPlace]:
    """Where :func:`_answer` (or a bare text piece, :func:`_text`) reads ``item``'s text."""
    if "role" not in item:
        if _text(item) is not None:
            return [(item, "text")]  # (a bare piece of a turn: a Responses output_text item)
        for key in _ANSWER_KEYS:  # (a plain step's answer)
            if isinstance(item.get(key), str):
                return [(item, key)]
    key = "parts" if "parts" in item else "content"
    blocks = item.get(key)
    if type(blocks) is list and (
        key == "parts" or (blocks and all(isinstance(b, Mapping) and _is_block(b) for b in blocks))
    ):
        return [(b, "text") for b in blocks if isinstance(b, Mapping) and _text(b) is not None]
    content = item.get("content")
    return [(item, "content")] if isinstance(content, str) and content.strip() else []


def _is_block(block: Mapping[str, JsonValue]) -> bool:
    """Whether an item of a message's content is a block (typed, or a Gemini part)."""
    return "type" in block or "text" in block or "functionCall" in block


def _text(block: Mapping[str, JsonValue]) -> str | None:
    """The answer's text a block holds (a Gemini part marked as a thought holds none)."""
    text = block.get("text")
    if isinstance(text, str) and block.get("type", "text") in _TEXT_TYPES:
        return None if block.get("thought") is True else text
    return None


def _joined(texts: Iterable[str | None]) -> str | None:
    text = "\n".join(t for t in texts if t is not None)
    return text if text.strip() else None


# -- one call -------------------------------------------------------------------------------


def _vendor_call(value: Mapping[str, JsonValue], where: str, side: str) -> ToolCall | None:
    """``value`` as a call in a vendor's own form (a chat-completions tool call, a Responses
    ``function_call`` item, an Anthropic ``tool_use`` block, a LangChain ``tool_call``, a
    Gemini ``functionCall`` part), or None when it is none of them."""
    kind = value.get("type")
    function = value.get("function")
    if isinstance(function, Mapping) and "name" in function:  # chat completions
        call = _call(function, ("arguments",), key_segment(where, "function"), side)
        return call._replace(id=_id_of(value, "function"))
    if kind in _CALL_TYPES:
        return _call(value, _VENDOR_ARGUMENTS, where, side)._replace(id=_id_of(value))
    for key in _CALL_KEYS:  # Gemini (and OpenAI's legacy message)
        inner = value.get(key)
        if isinstance(inner, Mapping):
            return _call(inner, _VENDOR_ARGUMENTS, key_segment(where, key), side)
    return None


def _plain_call(value: Mapping[str, JsonValue], where: str, side: str) -> ToolCall | None:
    """``value`` as a plain call (``{name, arguments}``) or BFCL's ``{name: {arg: value}}``,
    or None when it is content that is no call (a text part, a refusal)."""
    kind = value.get("type")
    if kind is not None and kind != "function":
        return None
    if "name" in value and (
        len(value) == 1 or any(key in value for key in (*_ARGUMENT_KEYS, "id", "type", "status"))
    ):
        call = _call(value, _ARGUMENT_KEYS, where, side)
        found = value.get("id")
        named = found if isinstance(found, str) else None
        return call._replace(id=named, required=_required(value, call, side))
    if len(value) == 1:
        ((name, arguments),) = value.items()
        if isinstance(arguments, Mapping):  # BFCL's decoded form
            return ToolCall(name, dict(arguments), where)
        if name in ("text", "thought", "thinking", "refusal", "content", "role") or isinstance(
            arguments, list
        ):
            return None  # content, or an envelope of no known name: no call
        raise ParseError(
            f"{side} call at {where or '$'} ({name!r}): its arguments must be an object, "
            f"not {shown(arguments)}"
        )
    if len(value) > 1 and all(isinstance(v, Mapping) for v in value.values()):
        raise ParseError(
            f"{side} call at {where or '$'} names {len(value)} functions "
            f"({', '.join(map(repr, value))}): a call in BFCL's form has one"
        )
    return None


def _required(value: Mapping[str, JsonValue], call: ToolCall, side: str) -> str | None:
    """The status a plain call says its step must end in (its ``status``: ``ok`` or
    ``error``; None: it says none). On the expected side another, or a status beside an
    argument named ``status`` (their rows would share a path), is a ParseError naming the
    step; on a run's, a word of its own there is no status (its results say it)."""
    if "status" not in value:
        return None
    said = value["status"]
    expected = side.startswith("expected")
    where = f"{side} call at {call.where or '$'} ({call.name!r})"
    if not (isinstance(said, str) and said in STATUSES):
        if not expected:
            return None
        raise ParseError(
            f"{where}: its status must be 'ok' (the tool gave its result) or 'error' (the "
            f"tool failed), not {shown(said)}"
        )
    if expected and "status" in call.arguments:
        raise ParseError(
            f"{where}: it has both an argument named status and a status, whose rows would "
            f"share one path (run[k].{call.name}.status); rename the argument or leave out "
            f"the status"
        )
    return said


def _call(value: Mapping[str, JsonValue], keys: tuple[str, ...], where: str, side: str) -> ToolCall:
    name = value.get("name")
    if not isinstance(name, str):
        raise ParseError(f"{side} call at {where or '$'}: its name must be text, not {shown(name)}")
    arguments: object = {}
    key = "arguments"
    for key in keys:
        if key in value:
            arguments = value[key]
            break
    if arguments is None:
        arguments = {}
    if isinstance(arguments, str):
        arguments = read_arguments(arguments, f"{side} {key_segment(where, key)} (call {name!r})")
    if not isinstance(arguments, Mapping):
        raise ParseError(
            f"{side} call at {where or '$'} ({name!r}): its {key} must be an object or "
            f"JSON text holding one, not {shown(arguments)}"
        )
    return ToolCall(name, dict(arguments), where)


def read_arguments(text: str, what: str) -> object:
    """A call's arguments given as JSON text (OpenAI's chat and Responses forms; what
    ``run_tools`` calls a function with): the whole text as a JSON object nested as deeply
    as the door reads (past it, the door's ParseError, ``what`` its side), else read
    leniently; empty text is no arguments; text cut off is a TruncatedError naming
    ``what``."""
    stripped = text.strip()
    if not stripped:
        return {}
    try:
        whole = read_whole(stripped, what)
    except ParseError:
        raise
    except ValueError:
        whole = None  # not one JSON value: read leniently (prose, a fence, a cut text)
    if isinstance(whole, dict):
        return whole
    parsed, _ = parse_actual_checked(text, what=what)
    return parsed
