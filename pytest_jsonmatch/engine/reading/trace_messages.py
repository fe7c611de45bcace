"""A run's spans read as an agent's conversation: messages in OpenAI's chat shape, which
``agent_messages.py`` reads as it reads any run, and a side table of the run's steps.

What a span is, by its ``gen_ai.operation.name`` (OpenTelemetry's GenAI semantic
conventions) or its ``openinference.span.kind`` (OpenInference):

- a model call (``chat``, ``text_completion``, ``generate_content``; ``LLM``): its output is
  the assistant's message (its first choice): its text and the calls it makes. Read from the
  ``gen_ai.output.messages`` attribute (semconv 1.37 on: JSON text, or structured, of
  ``{role, parts: [{type: text, content} | {type: tool_call, id, name, arguments}]}``), the
  same attribute on an event (``gen_ai.client.inference.operation.details``), the older
  ``gen_ai.choice`` event (semconv 1.28-1.36: ``{index, message: {content, tool_calls}}``),
  or ``llm.output_messages.N.message.{role, content, contents, tool_calls}``. The first
  model call's input (``gen_ai.input.messages``, ``gen_ai.system_instructions``, the older
  ``gen_ai.{system,user,assistant,tool}.message`` events, ``llm.input_messages``) is the
  conversation the run was given: the messages before its first assistant message. A model
  call inside another (a framework's span around the client's) is read once, the outer one.
- a tool call (``execute_tool``; ``TOOL``): the tool's result, a ``tool`` message:
  ``{"role": "tool", "tool_call_id", "content": <result>, "status": "ok" | "error"}``, with
  ``"error": <message>`` for a failed step: a span whose status is ERROR, or that holds an
  ``exception`` event (the message: the status's, else the exception's message or type).
  The result is ``gen_ai.tool.call.result`` (semconv 1.38 on) or ``output.value``, as the
  span holds it (JSON text stays text). It answers the call of the same id
  (``gen_ai.tool.call.id``, ``tool_call.id``) a model call made, else the first unanswered
  call of its name; a tool call no model call made (their content not recorded) is made a
  call of its own, from ``gen_ai.tool.name`` / ``tool.name`` / ``tool_call.function.name``
  and ``gen_ai.tool.call.arguments`` / ``tool_call.function.arguments`` / ``input.value``,
  in an assistant message of its own (tool calls that overlap in time, siblings, share
  one). A tool call inside a tool call of the same name is read once, the outer one.
- an agent (``invoke_agent``; ``AGENT``): its output (``gen_ai.output.messages``,
  ``output.value``, pydantic-ai's ``final_result``) is the answer where the run's last
  assistant message wrote none (the model's last act was a call: an output tool). The
  answer is never a tool's result.

The steps, in the order the spans start: one :class:`TraceStep` per model call, tool call
and agent, with its duration, status, token usage (``gen_ai.usage.input_tokens`` and
``output_tokens``; OpenInference's ``llm.token_count.prompt`` and ``completion``) and the
message it gave. Other spans (HTTP, a database) are no step and give no message.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import NamedTuple, Protocol, TypeVar

from ..core.errors import ParseError
from ..core.values import JsonValue
from .trace_chat import (
    Chat,
    agent_output,
    attribute_messages,
    inputs,
    output,
    with_instructions,
)
from .trace_formats import Span

Where = Callable[[Span], str]  # where a span is, as an error names it

CHAT, TOOL, AGENT = "chat", "execute_tool", "invoke_agent"
_OPERATIONS = {
    "chat": CHAT,
    "text_completion": CHAT,
    "generate_content": CHAT,
    "execute_tool": TOOL,
    "invoke_agent": AGENT,
}
_OPENINFERENCE = {"LLM": CHAT, "TOOL": TOOL, "AGENT": AGENT}
_EXCEPTIONS = frozenset({"exception", "gen_ai.execute_tool.exception"})
RESULT_KEYS = ("gen_ai.tool.call.result", "output.value")  # a tool's result, the first held


class TraceStep(NamedTuple):
    """One step of a run read from its trace: the span's id, its parent's and its name, the
    step's ``operation`` (``chat``, ``execute_tool``, ``invoke_agent``), the tool's name (a
    tool call's), its duration in milliseconds, its ``status`` (``ok`` or ``error``) and
    ``error`` (what failed), its token usage (None: not recorded), and ``message``, the
    index of the message it gave in the run's messages (None: none)."""

    span_id: str
    parent_id: str | None
    name: str
    operation: str
    tool: str | None
    duration_ms: float
    status: str
    error: str | None
    input_tokens: int | None
    output_tokens: int | None
    message: int | None


def operation(span: Span) -> str | None:
    """What ``span`` is: ``chat``, ``execute_tool``, ``invoke_agent``, or None (no step)."""
    attributes = span.attributes
    named = attributes.get("gen_ai.operation.name")
    if type(named) is str and named in _OPERATIONS:
        return _OPERATIONS[named]
    kind = attributes.get("openinference.span.kind")
    if kind is not None and isinstance(kind, str) and kind.upper() in _OPENINFERENCE:
        return _OPENINFERENCE[kind.upper()]
    if named is None and "gen_ai.tool.name" in attributes:
        return TOOL
    if named is None and span.events and any(e.name == "gen_ai.choice" for e in span.events):
        return CHAT
    return None


def run_messages(
    spans: Sequence[Span], depth: Mapping[str, int], where: Where, parents_first: bool = False
) -> tuple[list[Chat], tuple[TraceStep, ...]]:
    """The messages of the run ``spans`` (in the order they start; ``depth``: each span's
    level in its tree; ``parents_first``: every span's parent is known to come before it)
    and its steps."""
    kinds = _kinds(spans, depth, parents_first)
    reading = _Reading(where)
    reading.messages.extend(_given(spans, kinds, where))
    agent = read_steps(stepped(spans, kinds), depth, reading)
    if agent is not None:
        reading.agent_answer(agent)
    return reading.messages, tuple(reading.steps)


class StepReader(Protocol):
    """What reads a run's steps span by span: the general reading here, and the straight
    one (``trace_conversation``)."""

    def step(
        self,
        span: Span,
        kind: str,
        message: int | None,
        tool: str | None = None,
        error: str | None = None,
    ) -> None: ...

    def model_call(self, span: Span) -> None: ...

    def tool_call(self, span: Span) -> None: ...


def read_steps(
    steps: Iterable[tuple[Span, str]], depth: Mapping[str, int], reading: StepReader
) -> Span | None:
    """Each step's span (with its kind, in the order the spans start) handed to
    ``reading`` by its kind, an agent's step kept as it is; the agent span nearest the
    root (whose answer is the run's), or None where there is none."""
    agent: Span | None = None
    for span, kind in steps:
        if kind == CHAT:
            reading.model_call(span)
        elif kind == TOOL:
            reading.tool_call(span)
        else:
            reading.step(span, AGENT, None)
            if agent is None or depth[span.span_id] < depth[agent.span_id]:
                agent = span
    return agent


def stepped(spans: Sequence[Span], kinds: Mapping[str, str]) -> Iterator[tuple[Span, str]]:
    """The spans of ``spans`` that are steps, each with its kind (``kinds``: by span id)."""
    for span in spans:
        kind = kinds.get(span.span_id)
        if kind is not None:
            yield span, kind


def _kinds(
    spans: Sequence[Span], depth: Mapping[str, int], parents_first: bool = False
) -> dict[str, str]:
    """Each step's kind by its span's id: a model call inside a model call, and a tool
    call inside a tool call of its name, left out (read once, as the outer one).

    A span is read after its parent: in the order given, where every parent comes before
    its children (spans ordered by their start, as a tracer starts them; known already
    where ``parents_first``, else found out on the way), else in the order of their
    levels."""
    try:
        return dict(_ids(kinds_in_order(spans, None if parents_first else depth)))
    except ChildFirst:  # (a child before its parent: read again by their levels)
        return dict(_ids(kinds_in_order(sorted(spans, key=lambda s: depth[s.span_id]))))


def _ids(steps: Iterable[tuple[Span, str]]) -> Iterator[tuple[str, str]]:
    for span, kind in steps:
        yield span.span_id, kind


class ChildFirst(Exception):
    """A span met before its parent (:func:`kinds_in_order`)."""


def kinds_in_order(
    ordered: Sequence[Span], depth: Mapping[str, int] | None = None
) -> Iterator[tuple[Span, str]]:
    """The spans of ``ordered`` (each after its parent) that are steps, each with its kind,
    as :func:`_kinds` finds them; where ``depth`` is given, :class:`ChildFirst` as soon as
    a span comes before its parent in the trace. What a span passes to its children, the
    model call and the tool it is in (None: none), is kept only where it is in one."""
    # (for the spans in a model call or a tool: whether their children are in a model
    # call, and the tool span they are in, None: none; its name read only where a tool
    # is met inside it)
    inside: dict[str, tuple[bool, Span | None]] = {}
    done: set[str] = set()
    operations = _OPERATIONS
    for span in ordered:
        span_id, parent = span.span_id, span.parent_id
        if depth is not None:
            if parent is not None and parent not in done and parent in depth:
                raise ChildFirst
            done.add(span_id)
        # (operation's first test at once: nearly every step names its operation)
        named = span.attributes.get("gen_ai.operation.name")
        kind = operations.get(named) if type(named) is str else None
        if kind is None:
            kind = operation(span)
        held = inside.get(parent) if parent else None
        if held is None:  # (in no model call and no tool: nearly every step)
            if kind is not None:
                if kind == CHAT:
                    inside[span_id] = _IN_MODEL
                elif kind == TOOL:
                    inside[span_id] = (False, span)
                yield span, kind
            continue
        model, tool = held
        if kind == CHAT and not model:
            inside[span_id] = (True, tool)
            yield span, CHAT
        elif kind == TOOL and (tool is None or _tool_name(tool) != _tool_name(span)):
            inside[span_id] = (model, span)
            yield span, TOOL
        else:
            inside[span_id] = held
            if kind == AGENT:
                yield span, AGENT


_IN_MODEL = (True, None)  # (what a model call in no tool passes to its children)


def _given(spans: Sequence[Span], kinds: Mapping[str, str], where: Where) -> list[Chat]:
    """The conversation the run was given: its first model call's input (an agent's input
    where no model call records one)."""
    for span in spans:
        if kinds.get(span.span_id) == CHAT:
            given = _said(span, where, inputs)
            if given is not None:
                return given
    for span in spans:
        if kinds.get(span.span_id) == AGENT:
            given = _said(span, where, _agent_input)
            if given is not None:
                return given
    return []


def _agent_input(agent: Span) -> list[Chat] | None:
    listed = attribute_messages(agent, "gen_ai.input.messages")
    return None if listed is None else with_instructions(agent, listed)


def step_of(
    span: Span, kind: str, message: int | None, tool: str | None = None, error: str | None = None
) -> TraceStep:
    """The step of ``span``; ``error``: what failed in a tool call's (read by its caller),
    else read here where the span's status is an error."""
    if kind != TOOL and span.status == "error":
        error = _error(span)
    attributes = span.attributes
    used_in = attributes[_IN] if _IN in attributes else attributes.get(_IN_OTHER)
    used_out = attributes[_OUT] if _OUT in attributes else attributes.get(_OUT_OTHER)
    fields = (
        span.span_id,
        span.parent_id,
        span.name,
        kind,
        tool,
        max(0, span.end_ns - span.start_ns) / 1e6,
        "error" if error is not None else "ok",
        error,
        used_in if type(used_in) is int else None,
        used_out if type(used_out) is int else None,
        message,
    )
    return tuple.__new__(TraceStep, fields)  # (TraceStep(*fields): one a step)


def steps_of(marks: Sequence[object]) -> tuple[TraceStep, ...]:
    """The steps a reading marked: each step's span, kind, message, tool and error one after
    another (``trace_conversation``'s straight reading keeps them so, and makes the steps
    only where they are asked for)."""
    spans, kinds, messages, tools, errors = (marks[k::5] for k in range(5))
    return tuple(map(step_of, spans, kinds, messages, tools, errors))  # type: ignore[arg-type]


class _Reading:
    """The messages and steps read so far, and the calls not answered yet."""

    def __init__(self, where: Where) -> None:
        self.where = where
        self.messages: list[Chat] = []
        self.steps: list[TraceStep] = []
        self.open = _OpenCalls()  # the calls made and not answered yet
        self.made: tuple[Chat, Span] | None = None  # the last call made for a tool span

    def step(
        self,
        span: Span,
        kind: str,
        message: int | None,
        tool: str | None = None,
        error: str | None = None,
    ) -> None:
        self.steps.append(step_of(span, kind, message, tool, error))

    def model_call(self, span: Span) -> None:
        reply = _said(span, self.where, output)
        at = None
        if reply is not None:
            at = len(self.messages)
            self.messages.append(reply)
            self.made = None
            for number, call in enumerate(reply.get("tool_calls") or []):
                if isinstance(call, dict):
                    if not call.get("id"):
                        call["id"] = f"{span.span_id}.{number}"
                    function = call.get("function")
                    name = function.get("name") if isinstance(function, dict) else None
                    self.open.add(str(call["id"]), name if isinstance(name, str) else "")
        self.step(span, CHAT, at)

    def tool_call(self, span: Span) -> None:
        name = _tool_name(span)
        call_id = _first_text(span, ("gen_ai.tool.call.id", "tool_call.id"))
        answered = self.open.answered(call_id, name)
        if answered is None:
            answered = call_id or span.span_id
            self._made(span, name, answered)
        error = _error(span)
        message: Chat = {
            "role": "tool",
            "tool_call_id": answered,
            "content": _first(span, RESULT_KEYS),
            "status": "ok" if error is None else "error",
        }
        if error is not None:
            message["error"] = error
        self.messages.append(message)
        self.step(span, TOOL, len(self.messages) - 1, name, error)

    def _made(self, span: Span, name: str, call_id: str) -> None:
        """A call for a tool span no model call made: in the assistant message of the tool
        span before it where they overlap in time and share their parent, else its own."""
        arguments = _first(
            span, ("gen_ai.tool.call.arguments", "tool_call.function.arguments", "input.value")
        )
        call = {
            "id": call_id,
            "type": "function",
            "function": {"name": name, "arguments": arguments if arguments is not None else {}},
        }
        last = self.made
        if (
            last is not None
            and last[1].parent_id == span.parent_id
            and span.start_ns < last[1].end_ns
        ):
            calls = last[0]["tool_calls"]
            assert isinstance(calls, list)
            calls.append(call)
            self.made = (last[0], span)
            return
        assistant: Chat = {"role": "assistant", "content": None, "tool_calls": [call]}
        self.messages.append(assistant)
        self.made = (assistant, span)

    def agent_answer(self, agent: Span) -> None:
        """The agent's output as the answer, where the last assistant message wrote none."""
        replies = [m for m in self.messages if m.get("role") == "assistant"]
        if replies and replies[-1].get("content") not in (None, ""):
            return
        answer = _said(agent, self.where, agent_output)
        if answer is not None:
            self.messages.append({"role": "assistant", "content": answer})
            for k, step in enumerate(self.steps):
                if step.span_id == agent.span_id:
                    self.steps[k] = step._replace(message=len(self.messages) - 1)


class _OpenCalls:
    """The calls a run's model calls made that no tool span has answered yet, in the order
    they were made, found by id and by name in constant time (a run may leave thousands
    open: its tool spans not recorded)."""

    def __init__(self) -> None:
        self.ids: list[str] = []  # each call's id, by the order it was made in
        self.by_id: dict[str, deque[int]] = {}
        self.by_name: dict[str, deque[int]] = {}
        self.taken: set[int] = set()

    def add(self, call_id: str, name: str) -> None:
        n = len(self.ids)
        self.ids.append(call_id)
        for index, key in ((self.by_id, call_id), (self.by_name, name)):
            queue = index.get(key)
            if queue is None:
                index[key] = queue = deque()
            queue.append(n)

    def answered(self, call_id: str | None, name: str) -> str | None:
        """The id of the open call a tool span answers: the first of its id, else the first
        of its name, taken off the open calls; None: it answers none."""
        for index, key in ((self.by_id, call_id or None), (self.by_name, name)):
            queue = index.get(key) if key is not None else None
            while queue and queue[0] in self.taken:
                queue.popleft()
            if queue:
                n = queue.popleft()
                self.taken.add(n)
                return self.ids[n]
        return None


T = TypeVar("T")


def _said(span: Span, where: Where, read: Callable[[Span], T]) -> T:
    """``read(span)``; what it cannot read, a ParseError naming where the span is."""
    try:
        return read(span)
    except ParseError as exc:
        raise ParseError(f"{where(span)}: {exc}") from None


# -- a span's attributes --------------------------------------------------------------------


def _first(span: Span, keys: Sequence[str]) -> JsonValue | None:
    for key in keys:
        if key in span.attributes:
            return span.attributes[key]
    return None


def _first_text(span: Span, keys: Sequence[str]) -> str | None:
    value = _first(span, keys)
    return value if isinstance(value, str) and value else None


def _tool_name(span: Span) -> str:
    named = _first_text(span, ("gen_ai.tool.name", "tool.name", "tool_call.function.name"))
    if named is not None:
        return named
    return span.name.removeprefix("execute_tool ").strip() or span.name


def _error(span: Span) -> str | None:
    """What failed in ``span`` (its status's message, an exception event's message or
    type, its ``error.type``), or None where nothing did."""
    events = span.events
    raised = next((e for e in events if e.name in _EXCEPTIONS), None) if events else None
    if span.status != "error" and raised is None:
        return None
    if span.status_message:
        return span.status_message
    for value in (
        raised and raised.attributes.get("exception.message"),
        raised and raised.attributes.get("exception.type"),
        span.attributes.get("error.type"),
    ):
        if isinstance(value, str) and value:
            return value
    return "error"


# a step's token usage (input, output): the GenAI attribute, else OpenInference's (the first
# of the two the span holds; a value that is no whole number is none)
_USAGE = (
    ("gen_ai.usage.input_tokens", "llm.token_count.prompt"),
    ("gen_ai.usage.output_tokens", "llm.token_count.completion"),
)
(_IN, _IN_OTHER), (_OUT, _OUT_OTHER) = _USAGE
