"""A trace as an agent's output: OpenTelemetry spans read from a file or from memory, one
run selected, and read into the messages of one conversation (:func:`read_trace`).

A run is the spans of one trace (one trace id). :func:`read_trace` reads every span of its
source (an OTLP JSON file as the Collector's file exporter writes it, ``trace_formats.py``;
an OTLP protobuf file, or the SDK's spans in memory, ``trace_objects.py``; of a file of JSON
lines and a selection, only the lines that can hold the run: :func:`_narrowed`), groups
them by trace, and selects the run: by ``trace_id``, by ``root`` (the name of a span of the
trace with no parent in it), by
``attribute`` (``"session.id=abc"`` or ``{"session.id": "abc"}``: a span of the trace, or its
resource, holds each; a value given as text matches a number or boolean written so), all
that are given; a source that holds one trace needs none. No trace matching is a ParseError
(the output lacks the run), several a ConfigError (the selection is ambiguous), each naming
the source and the traces it holds. Only the run's spans are then read whole, ordered by
their start (a parent before its child at the same time, then the source's order), and read
into messages (``trace_messages.py``) as a :class:`Trace`, which
``agents/agent_run.read_run`` reads as it reads any run (``Trace.run_json``).

Bounds: a file is read as ``user_files.read_regular`` reads it (a regular file, at most
256 MB); a source of more than :data:`MAX_SPANS` spans is refused where the count is
passed; a span given twice (an export retried) is read once; parent ids that form a cycle
are a ParseError naming the spans; a span whose parent is not in the trace is a root of
it. Nothing recurses per span or per level of the tree.
"""

from __future__ import annotations

import base64
import os
import re
from collections.abc import Callable, Iterable, Iterator, Mapping
from operator import attrgetter
from typing import Any

from ..core.errors import ConfigError, ParseError, shown
from ..core.gc_pause import collector_paused
from ..core.slotted import Slotted
from ..core.values import JsonValue
from .agent_messages import Conversation, conversation_of
from .intake import read_json
from .trace_chat import Chat
from .trace_conversation import chat_conversation, chat_messages, straight_run
from .trace_formats import (
    Budget,
    RawSpan,
    RunRead,
    Span,
    in_attribute,
    json_file_lines,
    json_lines,
    json_requests,
    json_run,
    json_span,
    json_spans,
    json_value,
    place,
    run_place,
)
from .trace_messages import TraceStep, run_messages, steps_of
from .trace_objects import (
    memory_spans,
    proto_requests,
    proto_span,
    proto_spans,
    proto_value,
    sdk_span,
)
from .user_files import MAX_FILE_BYTES, open_regular, read_regular
from .user_files import decoded as utf8_decoded

MAX_SPANS = 1_000_000  # spans one source may hold
_SHOWN_RUNS = 5  # traces an error lists
_START = attrgetter("start_ns")
_COMPRESSED = {b"\x28\xb5\x2f\xfd": "zstd", b"\x1f\x8b": "gzip"}


class Trace(Slotted):
    """One run read from a trace: its ``spans`` (in the order they start), ``source`` (the
    file, or spans in memory), ``trace_id``, ``messages`` (OpenAI chat messages: the
    conversation it was given, then each model call's reply and each tool's result) and
    ``steps`` (a :class:`~.trace_messages.TraceStep` per model call, tool call and agent).
    ``read_run`` (and so ``match_run``) reads it as a run: :meth:`run_conversation`, the
    reading of its JSON form (:meth:`run_json`) made without writing that form out.

    A run read straight from its spans (``trace_conversation.straight_run``) holds its
    Conversation from the start, and makes its chat messages and its steps only when they
    are asked for (``messages``: the span tree's marks, :meth:`run_json`; ``steps``: the
    span tree), from the Conversation and ``chats``, what the straight reading kept of each
    message, and from ``marks``, what it kept of each step: fewer objects kept while the
    run is scored, for the collector to pass over and to free."""

    __slots__ = ("spans", "source", "trace_id", "_messages", "_steps", "_read", "_chats", "_marks")
    _fields = ("spans", "source", "trace_id", "messages", "steps")

    def __init__(
        self,
        spans: tuple[Span, ...],
        source: str,
        trace_id: str,
        messages: tuple[Chat, ...] | None,
        steps: tuple[TraceStep, ...] | None,
        read: Conversation | None = None,
        chats: list[object] | None = None,
        marks: list[object] | None = None,
    ) -> None:
        self.spans, self.source, self.trace_id = spans, source, trace_id
        self._messages, self._steps = messages, steps
        self._read, self._chats, self._marks = read, chats, marks

    @property
    def steps(self) -> tuple[TraceStep, ...]:
        """The run's steps (made on first use where the run was read straight)."""
        if self._steps is None:
            assert self._marks is not None
            with collector_paused():
                self._steps = steps_of(self._marks)
            self._marks = None
        return self._steps

    @property
    def messages(self) -> tuple[Chat, ...]:
        """The run's chat messages (made on first use where the run was read straight)."""
        if self._messages is None:
            assert self._read is not None and self._chats is not None
            with collector_paused():
                self._messages = tuple(chat_messages(self._read.messages, self._chats))
            self._chats = None
        return self._messages

    def run_json(self) -> dict[str, JsonValue]:
        """The run's JSON form, as ``agents/agent_run.py`` reads it: its messages, and no
        state (a trace holds none)."""
        return {"messages": list(self.messages), "state": None}

    def run_conversation(self, side: str = "actual") -> Conversation:
        """The run read into one Conversation, as ``agents/agent_run.read_run`` reads
        :meth:`run_json`, without that form written out and read back: each message
        checked by the door's own check (``intake.read_json``; plain JSON already, as this
        reader makes it: only how deeply it nests is new) and the messages read by
        ``agent_messages.conversation_of``, the one reader of every run (read so in one
        pass, ``trace_conversation.chat_conversation``, where the messages allow; read
        straight from the spans with the trace, where they allow). Read once, then kept;
        ``side`` names the run in an error."""
        if self._read is None:
            with collector_paused():  # (many small objects, none in a cycle: gc_pause.py)
                self._read = chat_conversation(self.messages, side)
                if self._read is not None:  # (read in one pass: trace_conversation.py)
                    return self._read
                messages = list(self.messages)
                depth = 0
                for index, message in enumerate(messages):
                    checked, deep = read_json(message, f"{side} messages[{index}]")
                    messages[index] = checked  # type: ignore[assignment]
                    depth = max(depth, deep)
                self._read = conversation_of(messages, side, depth)  # type: ignore[arg-type]
        return self._read

    def steps_json(self) -> list[JsonValue]:
        """The steps as plain JSON: an object per step, its fields by name."""
        return [dict(step._asdict()) for step in self.steps]

    def __repr__(self) -> str:
        return (
            f"Trace({self.source}, trace {self.trace_id}, {len(self.spans)} spans, "
            f"{len(self.messages)} messages)"
        )


def read_trace(
    path_or_spans: object,
    *,
    trace_id: object = None,
    root: object = None,
    attribute: object = None,
) -> Trace:
    """The run ``path_or_spans`` holds, selected by ``trace_id``, ``root`` and
    ``attribute``, read into a :class:`Trace`. ``path_or_spans``: a trace file's path (OTLP
    JSON or protobuf), the SDK's finished spans, or an ``InMemorySpanExporter``."""
    wanted = _selection(trace_id, root, attribute)
    with collector_paused():  # (a read makes many objects, none in a cycle: gc_pause.py)
        return _read(path_or_spans, wanted)


def _read(path_or_spans: object, wanted: dict[str, Any]) -> Trace:
    if not wanted and isinstance(path_or_spans, (str, os.PathLike)):
        name = f"trace file {os.fspath(path_or_spans)!r}"
        whole = _streamed_run(path_or_spans)
        if whole is not None:  # (a file of one run a line and no selection: read at once)
            return _at_once(whole, name)
    name, spans_of, data = _source(path_or_spans)
    if not wanted and data is not None:
        assert isinstance(path_or_spans, (str, os.PathLike))
        whole = _whole_run(data, os.fspath(path_or_spans), name)
        if whole is not None:  # (a file of one run and no selection: read at once)
            return _at_once(whole, name)
    try:  # (a file of JSON lines: the lines that may hold the run only)
        chosen_id, chosen = _select(_runs(spans_of(wanted), name), wanted, name)
    except ParseError:
        if not (isinstance(path_or_spans, (str, os.PathLike)) and _needles(wanted)):
            raise  # (read whole already)
        chosen_id, chosen = _select(_runs(spans_of(None), name), wanted, name)
    return trace_of(chosen_id, chosen, name)


def trace_of(chosen_id: str, chosen: list[RawSpan], name: str) -> Trace:
    """The run of trace ``chosen_id``, its spans ``chosen`` (every span of it the source
    ``name`` holds, in the source's order), read into a :class:`Trace`."""
    spans = _decoded(chosen, name)
    raws: dict[str, RawSpan] = {}  # (each span's raw record by id: made for an error only)

    def where(span: Span) -> str:
        if not raws:
            raws.update((raw.span_id, raw) for raw in chosen)
        return _named(raws[span.span_id], name)

    return _trace(chosen_id, spans, name, where)


def _trace(
    chosen_id: str,
    spans: list[Span],
    name: str,
    where: Callable[[Span], str],
    levels: tuple[dict[str, int], bool, bool] | None = None,
) -> Trace:
    """The run of trace ``chosen_id``, its spans read whole (in the source's order, each
    once), read into a :class:`Trace`; ``where`` names a span's place in an error;
    ``levels``: what :func:`_depths` gives, where it was found as the spans were read."""
    depth, parents_first, in_order = _depths(spans, name, where) if levels is None else levels
    # by start, a parent before its child at the same time, then the source's order: two
    # stable sorts, the later one's key first; none where the source's order is that order
    # already (a tracer's export, as a rule: found out while the levels are). Where it is,
    # and every span's parent came before it, the steps' kinds need not check that again.
    if not in_order:
        spans.sort(key=lambda span: depth[span.span_id])
        spans.sort(key=_START)
        parents_first = False

    straight = straight_run(spans, depth, where, parents_first)
    chats: list[object] | None = None
    marks: list[object] | None = None
    steps: tuple[TraceStep, ...] | None = None
    if straight is not None:
        read, marks, chats = straight
        messages = None
    else:
        made, steps = run_messages(spans, depth, where, parents_first)
        messages, read = tuple(made), None
    if not (marks or steps):
        raise ParseError(
            f"{name}: trace {chosen_id} holds no model call, tool call or agent among its "
            f"{len(spans)} spans (gen_ai.operation.name chat, execute_tool, invoke_agent; "
            f"openinference.span.kind LLM, TOOL, AGENT): no run to read"
        )
    return Trace(tuple(spans), name, chosen_id, messages, steps, read, chats, marks)


def _decoded(chosen: list[RawSpan], name: str) -> list[Span]:
    """The spans of the run read whole; a ParseError naming ``name``, the span and the
    attribute where a value cannot be read. (One source's spans are all of one form.)"""
    if not chosen:
        return []
    form = chosen[0].form
    read = json_span if form == "json" else proto_span if form == "proto" else sdk_span
    budget = Budget()
    spans: list[Span] = []
    try:
        for raw in chosen:
            spans.append(read(raw, budget))
    except ParseError as exc:
        raise ParseError(f"{_named(chosen[len(spans)], name)}: {exc}") from None
    return spans


def _whole_run(data: bytes, path: str, name: str) -> RunRead | None:
    """The run of an OTLP JSON file (its bytes ``data``) that holds one, read whole at
    once (``trace_formats.json_run``); None where the file must be read span by span (it
    is then read again, by the reading that names what it finds)."""
    body = data.removeprefix(b"\xef\xbb\xbf").lstrip()
    if body[:1] not in (b"{", b"["):
        return None  # (protobuf, compressed or empty: _file_spans says which)
    try:
        text = utf8_decoded(data, "trace file", ParseError, path)
        return json_run(json_lines(text), Budget(), MAX_SPANS)
    except ParseError:
        return None


def _streamed_run(path: str | os.PathLike[str]) -> RunRead | None:
    """The run of an OTLP JSON file of one request a line that holds one, read whole at
    once a line at a time (``trace_formats.json_file_lines``: the file never held whole);
    None where the file must be read otherwise (whole, then at once where it can be, else
    span by span: the reading that names what it finds, and refuses a file that is no
    regular file or too large as ``user_files.read_regular`` does)."""
    try:
        lines = open_regular(path, "trace file", ParseError)
        with lines:
            if lines.peek(1)[:1] != b"{":  # (a file of another form: not read a line at a time)
                return None
            return json_run(json_file_lines(lines, MAX_FILE_BYTES), Budget(), MAX_SPANS)
    except (ParseError, OSError):
        return None


def _at_once(whole: RunRead, name: str) -> Trace:
    """A run read whole at once (``trace_formats.json_run``) read into a :class:`Trace`,
    its spans' levels as found while they were read, where they were."""
    levels = None if whole.levels is None else (whole.levels, True, whole.in_order)
    return _trace(whole.trace_id, whole.spans, name, _places(whole, name), levels)


def _places(read: RunRead, name: str) -> Callable[[Span], str]:
    """Where a span of a run read at once is, as :func:`_named` says it."""
    return lambda span: f"{name} {run_place(read, span)} (span {span.name!r})"


def _named(raw: RawSpan, name: str) -> str:
    """Where ``raw`` is, as an error names it: its source, its place, its name."""
    return f"{name} {place(raw)} (span {raw.name!r})"


# -- the source -----------------------------------------------------------------------------


def _source(
    given: object,
) -> tuple[str, Callable[[dict[str, Any] | None], Iterator[RawSpan]], bytes | None]:
    """What the spans are called in an error, what reads them (a file of JSON lines:
    only the lines that may hold the run a selection selects, where it is given), and a
    file's bytes (None: spans in memory)."""
    if isinstance(given, (str, os.PathLike)):
        name = f"trace file {os.fspath(given)!r}"
        data = read_regular(given, "trace file", ParseError)
        path = os.fspath(given)
        return name, lambda wanted: _file_spans(data, path, name, wanted), data
    finished = getattr(given, "get_finished_spans", None)
    if callable(finished):  # an InMemorySpanExporter
        given = finished()
    if isinstance(given, (bytes, bytearray, Mapping)) or not isinstance(given, Iterable):
        raise ConfigError(
            f"read_trace takes a trace file's path or OpenTelemetry SDK spans (an "
            f"InMemorySpanExporter, or its get_finished_spans()), not {shown(given)}"
        )
    spans = given  # (read once, or again where a file's narrowed reading missed: not here)
    return "spans in memory", lambda wanted: memory_spans(spans), None


def _file_spans(
    data: bytes, path: str, name: str, wanted: dict[str, Any] | None
) -> Iterator[RawSpan]:
    body = data.removeprefix(b"\xef\xbb\xbf").lstrip()
    if not body:
        raise ParseError(f"{name} is empty: it holds no spans")
    for magic, kind in _COMPRESSED.items():
        if body.startswith(magic):
            raise ParseError(f"{name} is compressed ({kind}): decompress it first")
    if body[:1] not in (b"{", b"["):  # (JSON; protobuf opens with 0x0a, or a length)
        for number, request in proto_requests(data, name):
            yield from proto_spans(request, number)
        return
    text = utf8_decoded(data, "trace file", ParseError, path)
    needles = _needles(wanted) if wanted else []
    if not needles:
        for line, request in json_requests(text, name):
            yield from json_spans(request, line, name)
        return
    assert wanted is not None
    yield from _narrowed(text, name, wanted, needles)


def _narrowed(
    text: str, name: str, wanted: dict[str, Any], needles: list[str]
) -> Iterator[RawSpan]:
    """The spans of a file of JSON lines that may belong to the run selected: first the
    lines that hold a needle (the trace id, the attribute's value or the root's name, as
    JSON writes it), then the other lines that hold the id of a trace one of their spans
    is of (every span names its trace). A line left is never read (a line cut off is, as
    ``json_requests`` keeps it); where the needles miss the run (a value written with
    escapes), ``read_trace`` reads the whole file again."""
    first: set[int] = set()
    found: list[RawSpan] = []
    for line, request in json_requests(text, name, lambda n, t: any(x in t for x in needles)):
        first.add(line)
        found += json_spans(request, line, name)
    yield from found
    if 0 in first:  # (the whole file is one request)
        return
    ids = {raw.trace_id for raw in found if _witness(raw, wanted, name)}
    forms = [f for t in ids for f in (t, base64.b64encode(bytes.fromhex(t)).decode())]
    if not forms:
        return
    keep = lambda n, t: n not in first and any(f in t for f in forms)  # noqa: E731
    for line, request in json_requests(text, name, keep):
        if line not in first:
            yield from json_spans(request, line, name)


_PLAIN = re.compile(r"[\w .:/@#+,;!?()~$%*^|-]+", re.ASCII)  # what no JSON writer escapes


def _needles(wanted: dict[str, Any] | None) -> list[str]:
    """What a line that holds a span of the run selected holds, as text (one criterion's:
    the trace id's, else the first attribute's plain value, else the root's name); none
    where no criterion has a needle."""
    if not wanted:
        return []
    if "trace_id" in wanted:
        tid = wanted["trace_id"]
        return [tid, base64.b64encode(bytes.fromhex(tid)).decode()]
    for value in wanted.get("attribute", {}).values():
        text = value if isinstance(value, str) else None
        if type(value) is int:
            text = str(value)
        if text is not None and _PLAIN.fullmatch(text):
            return [f'"{text}"']
    root = wanted.get("root")
    return [f'"{root}"'] if root and _PLAIN.fullmatch(root) else []


def _witness(raw: RawSpan, wanted: dict[str, Any], name: str) -> bool:
    """Whether ``raw`` meets the criterion :func:`_needles` took its needle from."""
    if "trace_id" in wanted:
        return bool(raw.trace_id == wanted["trace_id"])
    for key, value in wanted.get("attribute", {}).items():
        if isinstance(value, str) or type(value) is int:
            return _same(_attribute(raw, key, name), value)
    return raw.name == wanted.get("root")


def _runs(raws: Iterator[RawSpan], name: str) -> dict[str, list[RawSpan]]:
    """The spans of each trace, in the source's order; a span given twice read once."""
    runs: dict[str, dict[str, RawSpan]] = {}
    count = 0
    for raw in raws:
        count += 1
        if count > MAX_SPANS:
            raise ParseError(
                f"{name} holds more than {MAX_SPANS:,} spans (passed at {place(raw)}): "
                f"give the run's own spans"
            )
        run = runs.get(raw.trace_id)
        if run is None:
            runs[raw.trace_id] = {raw.span_id: raw}
        else:
            run.setdefault(raw.span_id, raw)
    if not runs:
        raise ParseError(f"{name} holds no spans")
    return {trace_id: list(run.values()) for trace_id, run in runs.items()}


# -- selecting the run ----------------------------------------------------------------------


def _selection(trace_id: object, root: object, attribute: object) -> dict[str, Any]:
    """The selection, checked: ConfigError where a part of it is of no kind it takes."""
    wanted: dict[str, Any] = {}
    if trace_id is not None:
        if type(trace_id) is int and trace_id >= 0:
            trace_id = f"{trace_id:032x}"
        if not (isinstance(trace_id, str) and len(trace_id) == 32 and _hex(trace_id)):
            raise ConfigError(f"trace_id must be 32 hex digits (or an int), not {shown(trace_id)}")
        wanted["trace_id"] = trace_id.lower()
    if root is not None:
        if not isinstance(root, str):
            raise ConfigError(f"root must be a span's name (text), not {shown(root)}")
        wanted["root"] = root
    if attribute is not None:
        if isinstance(attribute, str) and "=" in attribute:
            key, _, value = attribute.partition("=")
            attribute = {key.strip(): value.strip()}
        if not (isinstance(attribute, Mapping) and attribute and all(attribute)):
            raise ConfigError(
                f"attribute must be 'KEY=VALUE' or a mapping of attributes to their values, "
                f"not {shown(attribute)}"
            )
        wanted["attribute"] = dict(attribute)
    return wanted


def _hex(text: str) -> bool:
    try:
        int(text, 16)
    except ValueError:
        return False
    return True


def _select(
    runs: dict[str, list[RawSpan]], wanted: dict[str, Any], name: str
) -> tuple[str, list[RawSpan]]:
    """The one run the selection matches (with its trace id)."""
    if not wanted:
        if len(runs) == 1:
            return next(iter(runs.items()))
        raise ConfigError(
            f"{name} holds {len(runs)} traces: select one by trace_id, root or attribute "
            f"({_listing(runs)})"
        )
    said = ", ".join(f"{k}={v!r}" for k, v in wanted.items())
    found = {k: v for k, v in runs.items() if _matches(k, v, wanted, name)}
    if not found:
        raise ParseError(f"{name}: no trace matches {said}; it holds {_listing(runs)}")
    if len(found) > 1:
        raise ConfigError(
            f"{name}: {len(found)} traces match {said}: {_listing(found)}; select one by "
            f"trace_id, or by root or an attribute that only it has"
        )
    return next(iter(found.items()))


def _matches(trace_id: str, run: list[RawSpan], wanted: dict[str, Any], name: str) -> bool:
    if wanted.get("trace_id", trace_id) != trace_id:
        return False
    if "root" in wanted and wanted["root"] not in _roots(run):
        return False
    for key, value in wanted.get("attribute", {}).items():
        if not any(_same(_attribute(raw, key, name), value) for raw in run):
            return False
    return True


def _roots(run: list[RawSpan]) -> list[str]:
    """The names of the spans of ``run`` with no parent in it."""
    ids = {raw.span_id for raw in run}
    return [raw.name for raw in run if raw.parent_id is None or raw.parent_id not in ids]


def _listing(runs: dict[str, list[RawSpan]]) -> str:
    shown_runs = [
        f"{trace_id} (root {', '.join(map(repr, _roots(run)[:2])) or 'none'}, {len(run)} spans)"
        for trace_id, run in list(runs.items())[:_SHOWN_RUNS]
    ]
    more = len(runs) - len(shown_runs)
    return "; ".join(shown_runs) + (f"; and {more} more" if more > 0 else "")


_NONE = object()


def _attribute(raw: RawSpan, key: str, name: str) -> object:
    """The value of the attribute ``key`` of ``raw`` (its resource's where the span has
    none), read alone; ``_NONE`` where neither holds it."""
    if raw.form == "sdk":
        for attributes in (getattr(raw.data, "attributes", None), raw.resource):
            if isinstance(attributes, Mapping) and key in attributes:
                value = attributes[key]
                return list(value) if isinstance(value, tuple) else value
        return _NONE
    listed = raw.data.get("attributes") if raw.form == "json" else raw.data.attributes
    for pairs in (listed, raw.resource):
        for pair in pairs or ():
            try:
                if raw.form == "json" and type(pair) is dict and pair.get("key") == key:
                    return json_value(pair.get("value", {}), Budget())
                if raw.form == "proto" and pair.key == key:
                    return proto_value(pair.value, Budget())
            except ParseError as exc:
                raise ParseError(f"{_named(raw, name)}: {in_attribute(key, exc)}") from None
    return _NONE


def _same(value: object, wanted: object) -> bool:
    """Whether an attribute's value is the one wanted (text matches a number or boolean
    written so: ``"42"``, ``"true"``)."""
    if value is _NONE:
        return False
    if value == wanted and type(value) is type(wanted):
        return True
    if isinstance(wanted, str) and isinstance(value, bool):
        return wanted == ("true" if value else "false")
    return isinstance(wanted, str) and isinstance(value, (int, float)) and str(value) == wanted


# -- the tree -------------------------------------------------------------------------------


def _depths(
    spans: list[Span], name: str, where: Callable[[Span], str]
) -> tuple[dict[str, int], bool, bool]:
    """Each span's level in its tree (a root's 0), walked without recursion; whether every
    span's parent (in the trace) comes before it in ``spans``; and whether ``spans`` are
    ordered by start, then level already (what the two stable sorts in :func:`trace_of`
    make of them). Parent ids that form a cycle are a ParseError naming the spans in it.
    (A span whose parent's level is known already, as in a source that writes a parent
    first, takes it at once.)"""
    parents = {span.span_id: span.parent_id for span in spans}
    depth: dict[str, int] = {}
    parents_first = in_order = True
    last_start, last_level = -1, 0
    for span in spans:
        span_id, parent, start = span.span_id, span.parent_id, span.start_ns
        if parent not in parents:  # (None, or a parent not in the trace: a root)
            level = depth[span_id] = 0
        else:
            above = depth.get(parent)
            if above is not None:
                level = depth[span_id] = above + 1
            else:
                parents_first = False
                if span_id not in depth:
                    _walk(span_id, parents, depth, spans, name, where)
                level = depth[span_id]
        if start > last_start:
            last_start, last_level = start, level
        elif start < last_start or level < last_level:
            in_order = False
        else:
            last_level = level
    return depth, parents_first, in_order


def _walk(
    start: str,
    parents: dict[str, str | None],
    depth: dict[str, int],
    spans: list[Span],
    name: str,
    where: Callable[[Span], str],
) -> None:
    """The levels of ``start`` and of its ancestors whose level is not known yet, up to a
    root or a span whose level is; a cycle among them is a ParseError."""
    path: list[str] = []
    on_path: set[str] = set()
    at: str | None = start
    while at is not None and at not in depth:
        if at in on_path:
            cycle = path[path.index(at) :]
            by_id = {span.span_id: span for span in spans}
            shown_ids = " -> ".join(cycle[:4] + [at]) + (" ..." if len(cycle) > 4 else "")
            raise ParseError(
                f"{name}: the parent ids of {len(cycle)} spans form a cycle ({shown_ids}, "
                f"the first: {where(by_id[cycle[0]])}): no span of it has a root"
            )
        path.append(at)
        on_path.add(at)
        parent = parents.get(at)
        at = parent if parent in parents else None
    base = -1 if at is None else depth[at]
    for offset, span_id in enumerate(reversed(path), 1):
        depth[span_id] = base + offset
