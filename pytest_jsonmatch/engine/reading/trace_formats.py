"""OpenTelemetry spans as an OTLP JSON file holds them, read into one small record, :class:`Span`.

OTLP JSON as the OpenTelemetry Collector's file exporter writes it (``format: json``, its
default): one ``ExportTraceServiceRequest`` a line (``resourceSpans[].scopeSpans[]
.spans[]``), or one request over the whole file (pretty-printed). Fields in lowerCamelCase,
ids as hex (OTLP/JSON's rule; the base64 that ``google.protobuf.json_format`` writes for
bytes is read too), times as strings of nanoseconds (or numbers), enums as integers (or
their names), attributes as ``{"key", "value": {"stringValue" | "intValue" | "boolValue" |
"doubleValue" | "arrayValue" | "kvlistValue" | "bytesValue"}}``. A line holding metrics or
logs instead (``resourceMetrics``, ``resourceLogs``) is passed over. (Protobuf files and
the SDK's spans in memory: ``trace_objects.py``.)

Read in two passes: :class:`RawSpan`, what selecting a run needs (ids, name, where the span
is; its attributes left as the source holds them), for every span; then the whole
:class:`Span`, for the spans of the run selected only. Attribute values become plain JSON:
bytes their base64 text, a double that is no number (``NaN``, ``Infinity``) its name, an
array a list, a key-value list an object. A value of no OTLP type, a value nested more than
:data:`MAX_NESTING` levels, or more than :data:`MAX_RUN_TEXT` characters of text in one
run's attributes is a ParseError naming the source, the span and the attribute.
"""

from __future__ import annotations

import base64
import binascii
import json
import math
import re
from bisect import bisect_right
from collections.abc import Callable, Iterable, Iterator
from typing import Any, NamedTuple

from ..core.errors import ParseError, shown
from ..core.values import JsonValue

MAX_NESTING = 64  # levels of arrays and key-value lists within one attribute value
MAX_RUN_TEXT = 64 * 2**20  # characters of text in the attributes of one run's spans

KINDS = ("unspecified", "internal", "server", "client", "producer", "consumer")  # OTLP's order
STATUSES = ("unset", "ok", "error")
_OTHER_SIGNALS = frozenset({"resourceMetrics", "resourceLogs", "resourceProfiles"})


class SpanEvent(NamedTuple):
    """An event of a span: its name and its attributes (plain JSON)."""

    name: str
    attributes: dict[str, JsonValue]


class Span(NamedTuple):
    """One span: its ids (hex; ``parent_id`` None for a root), name, kind (``internal``,
    ``server``, ``client``, ``producer``, ``consumer``, ``unspecified``), start and end
    (nanoseconds since the epoch), status (``unset``, ``ok``, ``error``) and its message,
    attributes (plain JSON) and events."""

    trace_id: str
    span_id: str
    parent_id: str | None
    name: str
    kind: str
    start_ns: int
    end_ns: int
    status: str
    status_message: str
    attributes: dict[str, JsonValue]
    events: tuple[SpanEvent, ...]


class RawSpan(NamedTuple):
    """A span as a source holds it, with what selecting a run reads: its ids and name,
    ``data`` and ``resource`` (the span and its resource's attributes, as the source holds
    them), ``at`` (where: a JSON file's line, 0 for a whole-file request, and the indexes
    under it; a protobuf file's request and indexes; the index in memory) and ``form``
    (``json``, ``proto`` or ``sdk``)."""

    trace_id: str
    span_id: str
    parent_id: str | None
    name: str
    data: Any
    resource: Any
    at: tuple[int, ...]
    form: str


def place(raw: RawSpan) -> str:
    """Where ``raw`` is in its source: ``line 3, resourceSpans[0].scopeSpans[1].spans[4]``."""
    if raw.form == "sdk":
        return f"spans[{raw.at[0]}]"
    head, i, j, k = raw.at
    path = f"resourceSpans[{i}].scopeSpans[{j}].spans[{k}]"
    if raw.form == "proto":
        return f"request {head}, {path}"
    return f"line {head}, {path}" if head else path


# -- OTLP JSON ------------------------------------------------------------------------------


def json_requests(
    text: str, name: str, keep: Callable[[int, str], bool] | None = None
) -> Iterator[tuple[int, object]]:
    """The requests of an OTLP JSON file, each with its line (0: the whole file is one).
    ``keep``: of a file of one request a line, the lines read (by their number and text);
    a line left is still read where it does not end as a request ends (``}``), so that a
    line cut off is found wherever it is."""
    try:
        yield 0, json.loads(text)
        return
    except RecursionError:
        raise ParseError(f"{name} nests too deeply to be a trace") from None
    except json.JSONDecodeError as exc:
        whole = exc
    lines = text.split("\n")
    if whole.msg != "Extra data" and not _one_line(lines[0]):
        raise ParseError(
            f"{name} is not OTLP JSON: {whole.msg} at line {whole.lineno} column "
            f"{whole.colno}{_cut(whole, text)}"
        )
    last = len(lines) - next((n for n, line in enumerate(reversed(lines)) if line.strip()), 0)
    for number, line in enumerate(lines, 1):
        if keep is not None and not keep(number, line) and line.rstrip().endswith("}"):
            continue
        if not line.strip():
            continue
        try:
            yield number, json.loads(line)
        except RecursionError:
            raise ParseError(f"{name} line {number} nests too deeply to be a trace") from None
        except json.JSONDecodeError as exc:
            cut = " (the file ends inside it: cut off?)" if number == last else ""
            raise ParseError(
                f"{name} line {number} is not JSON: {exc.msg} at column {exc.colno}{cut}"
            ) from None


def json_lines(text: str) -> Iterator[tuple[int, object]]:
    """The requests of an OTLP JSON file of one request a line (or one request in all),
    as :func:`json_requests` gives them, each read where it is in ``text`` (no line cut
    out of it first); a ParseError, and nothing said of why, as soon as the text is of any
    other layout (a line that does not open an object at its first character or holds more
    than one value, a blank line, a request over several lines among others) or a request
    is not JSON: :func:`json_requests` reads such a file, and names what is wrong."""
    scan, size = _SCAN_ONCE, len(text)
    at, line = 0, 1
    while at < size:
        if text[at] != "{":
            if _BLANK_END.match(text, at):
                return  # (white space at the end)
            raise ParseError("not read at once")
        try:
            request, end = scan(text, at)
        except (StopIteration, ValueError, RecursionError):
            raise ParseError("not read at once") from None
        if line == 1 and _BLANK_END.match(text, end):
            yield 0, request  # (the whole file is one request, as json_requests reads it)
            return
        if end < size and text[end] != "\n" or text.find("\n", at, end) != -1:
            raise ParseError("not read at once")  # (more on its line, or over several)
        yield line, request
        at, line = end + 1, line + 1


_BLANK_END = re.compile(r"[ \t\n\r]*\Z")  # (JSON's white space up to the end)
_SCAN_ONCE: Callable[[str, int], tuple[object, int]] = json.JSONDecoder().scan_once  # type: ignore[attr-defined]


def json_file_lines(lines: Iterable[bytes], limit: int) -> Iterator[tuple[int, object]]:
    """The requests of an OTLP JSON file of one request a line, as :func:`json_requests`
    gives them, read from the file's ``lines`` (bytes, as a binary file gives them) one at
    a time: no copy of the file held whole. A ParseError, and nothing said of why, as soon
    as the file is of any other layout (a line that does not open and close an object at
    its ends, a blank line, a byte-order mark, more than ``limit`` bytes), or a line is not
    UTF-8 or not JSON: :func:`json_requests` reads such a file, and names what is wrong. A
    file of one line is one request, line 0 (as the whole text read at once): its first
    request is given once a second line is read."""
    first: object = _NOT_READ
    left = limit
    for number, raw in enumerate(lines, 1):
        left -= len(raw)
        if left < 0 or raw[:1] != b"{" or not raw.endswith((b"}\n", b"}")):
            raise ParseError("not read at once")
        try:
            request = json.loads(raw.decode("utf-8"))
        except (ValueError, RecursionError):
            raise ParseError("not read at once") from None
        if number == 1:
            first = request
            continue
        if first is not _NOT_READ:
            yield 1, first
            first = _NOT_READ
        yield number, request
    if first is not _NOT_READ:
        yield 0, first


_NOT_READ = object()


def _one_line(line: str) -> bool:
    try:
        json.loads(line)
    except (ValueError, RecursionError):
        return False
    return True


def _cut(error: json.JSONDecodeError, text: str) -> str:
    """What an error of the whole file says of where it ends (a string left open, or an
    error at its end: cut off)."""
    cut = error.pos >= len(text.rstrip()) or error.msg.startswith("Unterminated string")
    return " (the file ends inside it: cut off?)" if cut else ""


def json_spans(request: object, line: int, name: str) -> list[RawSpan]:
    """Every span of one request of an OTLP JSON file, as a RawSpan."""
    at = f"{name} line {line}" if line else name
    if type(request) is not dict:
        raise ParseError(f"{at}: a request must be a JSON object, not {shown(request)}")
    listed = request.get("resourceSpans")
    if listed is None:
        if request and not _OTHER_SIGNALS & request.keys():
            raise ParseError(
                f"{at} holds no resourceSpans: not an OTLP ExportTraceServiceRequest "
                f"(its keys: {', '.join(map(repr, list(request)[:5]))})"
            )
        return []
    out: list[RawSpan] = []
    for i, resource_spans in enumerate(_list(listed, f"{at}: resourceSpans")):
        where = f"{at}: resourceSpans[{i}]"
        held = _object(resource_spans, where)
        resource = _object(held.get("resource", {}), f"{where}.resource").get("attributes")
        scopes = held.get("scopeSpans", held.get("instrumentationLibrarySpans", []))
        for j, scope in enumerate(_list(scopes, f"{where}.scopeSpans")):
            spans = _object(scope, f"{where}.scopeSpans[{j}]").get("spans", [])
            out += _json_raws(
                _list(spans, f"{where}.scopeSpans[{j}].spans"), resource, (line, i, j), name
            )
    return out


def _json_raws(
    spans: list[Any], resource: object, at: tuple[int, int, int], name: str
) -> list[RawSpan]:
    """The spans of one scope: ids read in place where they are hex of their size (the
    Collector's), else by :func:`_json_id`; anything else a ParseError naming the span.
    (This runs once for every span of a file: each record is made as a plain tuple.)"""
    out = []
    line, i, j = at
    make = tuple.__new__
    last_given: object = None
    last_trace = ""
    for k, span in enumerate(spans):
        if type(span) is not dict:
            raise ParseError(
                f"{name} {_at((*at, k))}: a span must be a JSON object, not {shown(span)}"
            )
        get = span.get
        trace_id, span_id, parent_id, label = (
            get("traceId"),
            get("spanId"),
            get("parentSpanId"),
            get("name", ""),
        )
        if type(trace_id) is not str or len(trace_id) != 32:
            trace_id = _json_id(trace_id, 16, (*at, k), name, "traceId")
        if type(span_id) is not str or len(span_id) != 16:
            span_id = _json_id(span_id, 8, (*at, k), name, "spanId")
        if not parent_id:
            parent_id = None
        elif type(parent_id) is not str or len(parent_id) != 16:
            parent_id = _json_id(parent_id, 8, (*at, k), name, "parentSpanId").lower()
        elif not (parent_id.islower() or parent_id.isdecimal()):
            parent_id = parent_id.lower()
        if type(label) is not str:
            raise ParseError(f"{name} {_at((*at, k))}: its name must be text, not {shown(label)}")
        # (an id of hex in lower case, as the Collector writes it, is kept as it is: a
        # trace's id made lower once)
        if trace_id != last_given:
            last_given, last_trace = trace_id, trace_id.lower()
        if not (span_id.islower() or span_id.isdecimal()):
            span_id = span_id.lower()
        fields = (last_trace, span_id, parent_id, label, span, resource)
        out.append(make(RawSpan, (*fields, (line, i, j, k), "json")))
    return out


def json_run(
    requests: Iterable[tuple[int, object]], budget: Budget, max_spans: int
) -> RunRead | None:
    """The spans of a source that holds one run, read whole at once, without a
    :class:`RawSpan` made for each: ``spans`` in the source's order, ``scopes`` (for each
    scope read: the index of its first span in ``spans``, its line and its indexes under
    it, what :func:`run_place` finds a span's place by), and the spans' levels where the
    source lists every parent before its children (as ``trace_spans`` finds them: found
    here in the same pass). None where the source holds anything else: a request or span
    of no form this reads at once (ids of other sizes, in base64 or in capitals, a value
    it cannot read), several traces, a span given twice, more than ``max_spans`` (the
    caller reads it span by span, which names what it finds)."""
    spans: list[Span] = []
    scopes: list[tuple[int, int, int, int]] = []
    run_id = ""
    levels: dict[str, int] = {}  # each span's level, where its parent came before it
    later: list[str] = []  # the parents not read yet where a child of theirs was
    in_order, last_start, last_level = True, -1, 0  # (as trace_spans._depths finds it)
    try:
        for line, request in requests:
            if type(request) is not dict:
                return None
            listed = request.get("resourceSpans")
            if listed is None:
                if request and not _OTHER_SIGNALS & request.keys():
                    return None
                continue
            if type(listed) is not list:
                return None
            for i, held in enumerate(listed):
                scoped = held.get("scopeSpans")
                if type(scoped) is not list or type(held.get("resource", _EMPTY)) is not dict:
                    return None
                for j, scope in enumerate(scoped):
                    scopes.append((len(spans), line, i, j))
                    listed_spans = scope.get("spans", [])
                    if type(listed_spans) is not list:
                        return None
                    if len(spans) + len(listed_spans) > max_spans:
                        return None
                    for span in listed_spans:
                        get = span.get
                        trace_id, span_id, parent_id = (
                            get("traceId"),
                            get("spanId"),
                            get("parentSpanId") or None,
                        )
                        if trace_id != run_id:
                            if run_id or type(trace_id) is not str or len(trace_id) != 32:
                                return None
                            run_id = trace_id
                        if type(span_id) is not str or len(span_id) != 16:
                            return None
                        if span_id in levels:
                            return None  # (given twice: read span by span, which keeps the first)
                        if parent_id is None:
                            level = 0
                        elif type(parent_id) is not str or len(parent_id) != 16:
                            return None
                        else:
                            level = levels.get(parent_id, -1) + 1
                            if not level:
                                later.append(parent_id)
                        levels[span_id] = level
                        label = get("name", "")
                        if type(label) is not str:
                            return None
                        made = _read_span(span, run_id, span_id, parent_id, label, budget)
                        spans.append(made)
                        start = made[5]
                        if start > last_start:
                            last_start, last_level = start, level
                        elif start < last_start or level < last_level:
                            in_order = False
                        else:
                            last_level = level
    except (ParseError, AttributeError):
        return None  # (read span by span, which names it)
    if not spans or not _lower(run_id):
        return None
    # every id as written in lower case (else read span by span, which writes it lower): a
    # parent's is a span's where the parent was read (the same text), else in ``later``
    ids = "".join(levels) + "".join(later)
    if ids != ids.lower():
        return None
    if any(parent in levels for parent in later):  # (a child before its parent)
        return RunRead(run_id, spans, scopes, None, False)
    return RunRead(run_id, spans, scopes, levels, in_order)


def _lower(hex_id: str) -> bool:
    return hex_id.islower() or hex_id.isdecimal()


class RunRead(NamedTuple):
    """A source of one run read whole at once (:func:`json_run`): ``levels``, each span's
    level in its tree where every parent came before its children (None: one did not),
    and ``in_order``, whether the spans were ordered by start, then level (False where
    ``levels`` is None)."""

    trace_id: str
    spans: list[Span]
    scopes: list[tuple[int, int, int, int]]
    levels: dict[str, int] | None
    in_order: bool


def run_place(read: RunRead, span: Span) -> str:
    """Where ``span`` (one of ``read.spans``) is in its source, as :func:`place` says it."""
    n = next(k for k, held in enumerate(read.spans) if held is span)
    first, line, i, j = read.scopes[bisect_right(read.scopes, (n, 1 << 62)) - 1]
    return place(RawSpan("", "", None, "", None, None, (line, i, j, n - first), "json"))


def _at(at: tuple[int, ...]) -> str:
    return place(RawSpan("", "", None, "", None, None, at, "json"))


def _json_id(value: object, size: int, at: tuple[int, ...], name: str, key: str) -> str:
    """An id as hex: OTLP/JSON's hex, or the base64 ``json_format`` writes for bytes."""
    if isinstance(value, str):
        if len(value) == 2 * size:  # (hex)
            return value
        if len(value) == 4 * ((size + 2) // 3):
            try:
                return base64.b64decode(value, validate=True).hex()
            except (binascii.Error, ValueError):
                pass
    raise ParseError(
        f"{name} {_at(at)}: {key} {shown(value)} is not an id of {size} bytes "
        f"({2 * size} hex digits)"
    )


def _list(value: object, where: str) -> list[Any]:
    if type(value) is not list:
        raise ParseError(f"{where} must be a list, not {shown(value)}")
    return value


def _object(value: object, where: str) -> dict[str, Any]:
    if type(value) is not dict:
        raise ParseError(f"{where} must be an object, not {shown(value)}")
    return value


# -- decoding a span whole ------------------------------------------------------------------
# (what a span's decoding says is relative to the span: "attribute 'x': ..."; whoever reads
# the span puts where it is in front, so that nothing is written out for a span read well)


class Budget:
    """What is left of the text a run's attributes may hold (:data:`MAX_RUN_TEXT`)."""

    __slots__ = ("left",)

    def __init__(self, left: int | None = None) -> None:
        self.left = MAX_RUN_TEXT if left is None else left

    def spend(self, text: str) -> str:
        self.left -= len(text)
        if self.left < 0:
            raise self.spent(text)
        return text

    @staticmethod
    def spent(text: str) -> ParseError:
        return ParseError(
            f"the run's attributes hold more than {MAX_RUN_TEXT:,} characters of text (this "
            f"value {len(text):,}): too large to read as a run"
        )


def in_attribute(key: str, exc: ParseError) -> ParseError:
    """``exc`` said of the attribute ``key``."""
    return ParseError(f"attribute {key!r}: {exc}")


def json_span(raw: RawSpan, budget: Budget) -> Span:
    """A span of an OTLP JSON file read whole."""
    return _read_span(raw[4], raw[0], raw[1], raw[2], raw[3], budget)


def _read_span(
    data: dict[str, Any],
    trace_id: str,
    span_id: str,
    parent_id: str | None,
    name: str,
    budget: Budget,
) -> Span:
    """The span ``data`` read whole, its ids and name read already. (This runs once for
    every span of a run: each field is read in place where it is of the form the
    Collector writes.)"""
    get = data.get
    status = get("status")
    if status:
        code = status.get("code", 0) if type(status) is dict else None
        message = status.get("message", "") if type(status) is dict else ""
    else:  # (none, or empty: nearly every span)
        code, message = 0, ""
    kind, start, end = get("kind", 0), get("startTimeUnixNano", 0), get("endTimeUnixNano", 0)
    listed, events = get("attributes"), get("events")
    fields = (
        trace_id,
        span_id,
        parent_id,
        name,
        KINDS[kind] if type(kind) is int and 0 <= kind < 6 else _enum(kind, KINDS, "SPAN_KIND_"),
        int(start)
        if type(start) is str and start.isdecimal()
        else _nanos(start, "startTimeUnixNano"),
        int(end) if type(end) is str and end.isdecimal() else _nanos(end, "endTimeUnixNano"),
        STATUSES[code] if type(code) is int and 0 <= code < 3 else _status(status),
        message if type(message) is str else str(message),
        json_attributes(listed, budget) if listed else {},
        _json_events(events, budget) if events else (),
    )
    return tuple.__new__(Span, fields)  # (as Span(*fields), without its constructor's call)


_EMPTY: dict[str, Any] = {}  # (a resource where a request gives none)


def _json_events(events: object, budget: Budget) -> tuple[SpanEvent, ...]:
    out = []
    for n, event in enumerate(_list(events, "events")):
        name = _object(event, f"events[{n}]").get("name", "")
        try:
            out.append(SpanEvent(str(name), json_attributes(event.get("attributes"), budget)))
        except ParseError as exc:
            raise ParseError(f"events[{n}] ({name!r}): {exc}") from None
    return tuple(out)


def _status(status: object) -> str:
    if type(status) is not dict:
        raise ParseError(f"status must be an object, not {shown(status)}")
    return _enum(status.get("code", 0), STATUSES, "STATUS_CODE_")


def _enum(value: object, names: tuple[str, ...], prefix: str) -> str:
    if type(value) is int and 0 <= value < len(names):
        return names[value]
    if isinstance(value, str) and value.startswith(prefix):
        if value[len(prefix) :].lower() in names:
            return value[len(prefix) :].lower()
    what = "kind" if prefix == "SPAN_KIND_" else "status code"
    raise ParseError(f"{what} {shown(value)} is none of OTLP's ({prefix}*, 0-{len(names) - 1})")


def _nanos(value: object, key: str) -> int:
    if type(value) is int:
        return value
    if isinstance(value, str) and value.isdecimal():
        return int(value)
    raise ParseError(f"{key} {shown(value)} is not a time in nanoseconds")


def json_attributes(listed: object, budget: Budget, depth: int = 0) -> dict[str, JsonValue]:
    """Attributes (``[{key, value}]``) as an object, read in place where a value is text or
    a whole number (nearly all: the loop below runs for every attribute of a run, its
    budget kept in a local); ``depth``: the level of a key-value list's."""
    out: dict[str, JsonValue] = {}
    left = budget.left
    for pair in _list(listed or [], "attributes"):
        if type(pair) is dict:
            key, value = pair.get("key"), pair.get("value")
            if type(key) is str and type(value) is dict and len(value) == 1:
                text = value.get("stringValue")
                if type(text) is str:
                    left -= len(text)
                    if left < 0:
                        budget.left = left
                        raise in_attribute(key, budget.spent(text))
                    out[key] = text
                    continue
                number = value.get("intValue")
                if type(number) is str and number.isdecimal() and len(number) < 20:
                    out[key] = int(number)
                    continue
        key = pair.get("key") if type(pair) is dict else None
        if not isinstance(key, str):
            budget.left = left
            raise ParseError(f"an attribute must be {{key, value}}, not {shown(pair)}")
        budget.left = left
        try:
            out[key] = json_value(pair.get("value", {}), budget, depth)
        except ParseError as exc:
            raise (in_attribute(key, exc) if depth == 0 else exc) from None
        left = budget.left
    budget.left = left
    return out


_TYPES = "stringValue, intValue, boolValue, doubleValue, arrayValue, kvlistValue, bytesValue"


def json_value(value: object, budget: Budget, depth: int = 0) -> JsonValue:
    """An OTLP JSON ``AnyValue`` as plain JSON (an empty one is null)."""
    if type(value) is not dict or len(value) > 1:
        raise ParseError(f"{shown(value)} is no OTLP value (one of {_TYPES})")
    if not value:
        return None
    ((kind, inner),) = value.items()
    if kind in ("stringValue", "bytesValue") and isinstance(inner, str):
        return budget.spend(inner)
    if kind == "boolValue" and isinstance(inner, bool):
        return inner
    if kind == "intValue" and (type(inner) is int or (isinstance(inner, str) and _integer(inner))):
        return int(inner)
    if kind == "doubleValue" and type(inner) in (int, float, str):
        return double(inner)
    if kind in ("arrayValue", "kvlistValue") and type(inner) is dict:
        if depth >= MAX_NESTING:
            raise ParseError(f"its value nests more than {MAX_NESTING} levels")
        values = _list(inner.get("values", []), f"{kind}.values")
        if kind == "arrayValue":
            return [json_value(v, budget, depth + 1) for v in values]
        return json_attributes(values, budget, depth + 1)
    raise ParseError(f"{shown(value)} is no OTLP value (one of {_TYPES})")


def _integer(text: str) -> bool:
    return text.removeprefix("-").isdecimal() and len(text) < 24


def double(value: int | float | str) -> JsonValue:
    """A double as JSON: a number, or the name of one that is none (``NaN``, ...)."""
    if isinstance(value, str):
        if value in ("NaN", "Infinity", "-Infinity"):
            return value
        try:
            value = float(value)
        except ValueError:
            raise ParseError(f"doubleValue {shown(value)} is not a number") from None
    return float(value) if math.isfinite(value) else str(value).replace("inf", "Infinity")
