"""OpenTelemetry spans held as objects, read into ``trace_formats.Span``: the requests of an
OTLP protobuf file, and the SDK's spans in memory.

- **OTLP protobuf**: a serialized ``ExportTraceServiceRequest``, or the Collector's file
  exporter's ``format: proto``: each request preceded by its length, 4 bytes big-endian
  (``exportMessageAsBuffer`` in its ``file_writer.go``). Read with ``opentelemetry-proto``,
  imported here only, when a file is protobuf (the ``otel`` extra; without it, a
  ConfigError naming the extra).
- **Spans in memory**: the SDK's ``ReadableSpan`` objects (``InMemorySpanExporter
  .get_finished_spans()``), read by their attributes (``context``, ``parent``, ``name``,
  ``kind``, ``start_time``, ``end_time``, ``status``, ``attributes``, ``events``,
  ``resource``); the SDK is not imported.

As ``trace_formats.py`` reads JSON: :class:`~.trace_formats.RawSpan` for every span, then
the whole span for the run's; values as plain JSON under the same bounds.
"""

from __future__ import annotations

import base64
import importlib
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

from ..core.errors import ConfigError, ParseError, shown
from ..core.values import JsonValue
from .trace_formats import (
    KINDS,
    MAX_NESTING,
    STATUSES,
    Budget,
    RawSpan,
    Span,
    SpanEvent,
    double,
    in_attribute,
)

_EXTRA = 'pip install "pytest-jsonmatch[otel]"'


def proto_requests(data: bytes, name: str) -> Iterator[tuple[int, Any]]:
    """The requests of an OTLP protobuf file: one request, or the Collector's sequence of
    requests each after its length (4 bytes, big-endian); each with its number (1-based)."""
    try:
        from opentelemetry.proto.collector.trace.v1 import trace_service_pb2
    except ImportError:
        raise ConfigError(
            f"{name} is OTLP protobuf, read with opentelemetry-proto, which is not "
            f"installed: {_EXTRA}"
        ) from None
    # (google.protobuf has no type stubs here: its error class is looked up, typed Any)
    decode_error = importlib.import_module("google.protobuf.message").DecodeError

    chunks = [data] if data[:1] == b"\x0a" else _framed(data, name)
    for number, chunk in enumerate(chunks, 1):
        request = trace_service_pb2.ExportTraceServiceRequest()
        try:
            request.ParseFromString(chunk)
        except (decode_error, RecursionError) as exc:
            cut = " (cut off?)" if number == len(chunks) else ""
            raise ParseError(f"{name} request {number} is not OTLP protobuf{cut}: {exc}") from None
        yield number, request


def _framed(data: bytes, name: str) -> list[bytes]:
    chunks: list[bytes] = []
    at = 0
    while at < len(data):
        if at + 4 > len(data):
            raise ParseError(
                f"{name} ends inside the length of request {len(chunks) + 1}: cut off?"
            )
        size = int.from_bytes(data[at : at + 4], "big")
        if at + 4 + size > len(data):
            raise ParseError(
                f"{name} request {len(chunks) + 1} should hold {size:,} bytes but the file "
                f"ends after {len(data) - at - 4:,}: cut off?"
            )
        chunks.append(data[at + 4 : at + 4 + size])
        at += 4 + size
    return chunks


def proto_spans(request: Any, number: int) -> Iterator[RawSpan]:
    """Every span of one protobuf request, as a RawSpan."""
    for i, resource_spans in enumerate(request.resource_spans):
        resource = resource_spans.resource.attributes
        for j, scope in enumerate(resource_spans.scope_spans):
            for k, span in enumerate(scope.spans):
                parent = span.parent_span_id.hex() or None
                at = (number, i, j, k)
                raw = RawSpan(
                    span.trace_id.hex(),
                    span.span_id.hex(),
                    parent,
                    span.name,
                    span,
                    resource,
                    at,
                    "proto",
                )
                yield raw


def proto_span(raw: RawSpan, budget: Budget) -> Span:
    """A span of an OTLP protobuf file read whole."""
    data = raw.data
    events = []
    for n, event in enumerate(data.events):
        try:
            events.append(SpanEvent(event.name, proto_attributes(event.attributes, budget)))
        except ParseError as exc:
            raise ParseError(f"events[{n}] ({event.name!r}): {exc}") from None
    return Span(
        raw.trace_id,
        raw.span_id,
        raw.parent_id,
        raw.name,
        KINDS[data.kind] if 0 <= data.kind < len(KINDS) else "unspecified",
        data.start_time_unix_nano,
        data.end_time_unix_nano,
        STATUSES[data.status.code] if 0 <= data.status.code < 3 else "unset",
        data.status.message,
        proto_attributes(data.attributes, budget),
        tuple(events),
    )


def proto_attributes(pairs: Iterable[Any], budget: Budget) -> dict[str, JsonValue]:
    out: dict[str, JsonValue] = {}
    for pair in pairs:
        try:
            out[pair.key] = proto_value(pair.value, budget)
        except ParseError as exc:
            raise in_attribute(pair.key, exc) from None
    return out


def proto_value(value: Any, budget: Budget, depth: int = 0) -> JsonValue:
    """A protobuf ``AnyValue`` as plain JSON (one that holds none is null)."""
    kind = value.WhichOneof("value")
    if kind == "string_value":
        return budget.spend(value.string_value)
    if kind in ("bool_value", "int_value"):
        return getattr(value, kind)  # type: ignore[no-any-return]
    if kind == "double_value":
        return double(value.double_value)
    if kind == "bytes_value":
        return budget.spend(base64.b64encode(value.bytes_value).decode())
    if kind in ("array_value", "kvlist_value") and depth >= MAX_NESTING:
        raise ParseError(f"its value nests more than {MAX_NESTING} levels")
    if kind == "array_value":
        return [proto_value(v, budget, depth + 1) for v in value.array_value.values]
    if kind == "kvlist_value":
        return {p.key: proto_value(p.value, budget, depth + 1) for p in value.kvlist_value.values}
    return None


# -- spans in memory ------------------------------------------------------------------------


def memory_spans(spans: Iterable[object]) -> Iterator[RawSpan]:
    """Every span given in memory (the SDK's ``ReadableSpan``, read by its attributes)."""
    for index, span in enumerate(spans):
        context = getattr(span, "context", None)
        trace_id, span_id = getattr(context, "trace_id", None), getattr(context, "span_id", None)
        name = getattr(span, "name", None)
        if type(trace_id) is not int or type(span_id) is not int or not isinstance(name, str):
            raise ParseError(
                f"spans[{index}] is not a span ({shown(span)}): give OpenTelemetry SDK spans "
                f"(ReadableSpan, as InMemorySpanExporter.get_finished_spans() gives them)"
            )
        parent = getattr(getattr(span, "parent", None), "span_id", None)
        resource = getattr(getattr(span, "resource", None), "attributes", None)
        parent_id = f"{parent:016x}" if type(parent) is int and parent else None
        yield RawSpan(
            f"{trace_id:032x}", f"{span_id:016x}", parent_id, name, span, resource, (index,), "sdk"
        )


def sdk_span(raw: RawSpan, budget: Budget) -> Span:
    """A span in memory (the SDK's ``ReadableSpan``) read whole."""
    span = raw.data
    status = getattr(span, "status", None)
    code = getattr(getattr(status, "status_code", None), "name", "UNSET").lower()
    events = []
    for n, event in enumerate(getattr(span, "events", None) or ()):
        try:
            events.append(SpanEvent(str(event.name), sdk_attributes(event.attributes, budget)))
        except ParseError as exc:
            raise ParseError(f"events[{n}] ({event.name!r}): {exc}") from None
    kind = getattr(getattr(span, "kind", None), "name", "UNSPECIFIED").lower()
    return Span(
        raw.trace_id,
        raw.span_id,
        raw.parent_id,
        raw.name,
        kind if kind in KINDS else "unspecified",
        getattr(span, "start_time", None) or 0,
        getattr(span, "end_time", None) or 0,
        code if code in STATUSES else "unset",
        getattr(status, "description", None) or "",
        sdk_attributes(getattr(span, "attributes", None), budget),
        tuple(events),
    )


_SCALARS = (str, bool, int, float)


def sdk_attributes(attributes: object, budget: Budget) -> dict[str, JsonValue]:
    """An SDK span's (or event's) attributes as plain JSON: scalars, and lists of them."""
    if attributes is None:
        return {}
    if not isinstance(attributes, Mapping):
        raise ParseError(f"attributes must be a mapping, not {shown(attributes)}")
    out: dict[str, JsonValue] = {}
    for key, value in attributes.items():
        try:
            out[key] = sdk_value(value, budget)
        except ParseError as exc:
            raise in_attribute(str(key), exc) from None
    return out


def sdk_value(value: object, budget: Budget) -> JsonValue:
    """An SDK attribute's value as plain JSON (a sequence a list)."""
    if isinstance(value, str):
        return budget.spend(value)
    if isinstance(value, float):
        return double(value)
    if isinstance(value, (bool, int)):
        return value
    if isinstance(value, (tuple, list)) and all(isinstance(v, _SCALARS) for v in value):
        return [sdk_value(v, budget) for v in value]
    raise ParseError(
        f"{shown(value)} is no attribute value (text, a number, a boolean, or a list of them)"
    )
