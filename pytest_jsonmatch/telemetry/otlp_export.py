"""The session's own spans and events, sent as OTLP/HTTP protobuf by a thread of its own: the
path taken for a signal the user set no SDK provider for (imported only when the export is on).

Why not the SDK's providers and exporter: for a suite of instant cases their objects cost
about ten times the comparison's own share of the run (docs/performance.md, "OpenTelemetry
export"). Here each span and log record is built once, straight into the official
``opentelemetry-proto`` message it is sent as, and batched.

It reads the standard variables as the SDK's OTLP/HTTP exporter and batch processors do:
``OTEL_EXPORTER_OTLP_[TRACES_|LOGS_]ENDPOINT`` (a signal's own endpoint is used as given, the
common one gets ``/v1/traces`` or ``/v1/logs``), ``_HEADERS`` (``key=value,...``, URL-encoded),
``_TIMEOUT`` (seconds a request may take, its retries included), ``_COMPRESSION`` (``gzip``,
``deflate``, ``none``), ``_CERTIFICATE``, ``_CLIENT_CERTIFICATE``, ``_CLIENT_KEY``;
``OTEL_BSP_*`` and ``OTEL_BLRP_*`` ``SCHEDULE_DELAY`` (milliseconds), ``MAX_EXPORT_BATCH_SIZE``
and ``MAX_QUEUE_SIZE``; the resource as ``Resource.create()`` makes it (``OTEL_SERVICE_NAME``,
``OTEL_RESOURCE_ATTRIBUTES``, the resource detectors). A rejected request is retried after
429, 502, 503, 504 or a lost connection, backing off 1, 2, 4 s (or as ``Retry-After`` says)
within the request's timeout; what still fails is logged and dropped, as the SDK does.
"""

from __future__ import annotations

import logging
import os
import random
import ssl
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
import zlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal, Protocol, TypeAlias, cast

from opentelemetry.proto.collector.logs.v1.logs_service_pb2 import ExportLogsServiceRequest
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest
from opentelemetry.proto.common.v1.common_pb2 import InstrumentationScope
from opentelemetry.proto.logs.v1.logs_pb2 import ResourceLogs
from opentelemetry.proto.resource.v1.resource_pb2 import Resource
from opentelemetry.proto.trace.v1.trace_pb2 import Span, Status

from ..engine.core.errors import printable
from ..engine.core.masking import without_userinfo
from ..engine.core.numbers import whole_in

if TYPE_CHECKING:
    from opentelemetry.proto.common.v1.common_pb2 import KeyValue
    from opentelemetry.util.types import AnyValue

Signal = Literal["traces", "logs"]
# A request of either signal.
_Request: TypeAlias = "ExportLogsServiceRequest | ExportTraceServiceRequest"
# A message's fields in the dict form the messages' constructors and ``add`` take.
_Fields: TypeAlias = dict[str, object]
_LOG = logging.getLogger("pytest_jsonmatch.otel")
_RETRY = frozenset({429, 502, 503, 504})
_TRIES = 6
_SAMPLED = 0x01  # W3C trace flags
_LOCAL_PARENT = 0x100  # Span.flags: whether the parent is remote is known (it is not)
# the processors' defaults: (schedule delay in ms, batch size, queue size)
_BATCHING = {"traces": ("OTEL_BSP", 5000, 512, 2048), "logs": ("OTEL_BLRP", 1000, 512, 2048)}


class _Messages(Protocol):
    """A request's repeated field of spans or log records, as filled here."""

    def add(self, **fields: object) -> object: ...

    def __len__(self) -> int: ...


def new_ids() -> tuple[bytes, bytes]:
    """A new trace id and span id (random, never all zero), as OTLP carries them."""
    return (random.getrandbits(128) | 1).to_bytes(16, "big"), (random.getrandbits(64) | 1).to_bytes(
        8, "big"
    )


# the field of ``AnyValue`` each plain type goes in (a bool is not an int here)
_KIND = {
    str: "string_value",
    bool: "bool_value",
    int: "int_value",
    float: "double_value",
    bytes: "bytes_value",
}


def any_value(value: object) -> _Fields:
    """An attribute's value as OTLP holds it, in the dict form the message constructors take
    (several times faster than building each ``AnyValue`` and ``KeyValue`` apart)."""
    kind = _KIND.get(type(value))
    if kind is not None:
        return {kind: value}
    if isinstance(value, (list, tuple)):
        return {"array_value": {"values": [any_value(v) for v in value]}}
    for base, name in _KIND.items():  # a subclass: an enum's str, a numpy-free int
        if isinstance(value, base):
            return {name: base(value)}
    return {"string_value": str(value)}


def key_values(attributes: Mapping[str, AnyValue]) -> list[_Fields]:
    """The ``KeyValue`` list in dict form."""
    return [{"key": key, "value": any_value(value)} for key, value in attributes.items()]


@dataclass(frozen=True)
class Endpoint:
    """Where one signal goes and how, from the ``OTEL_EXPORTER_OTLP_*`` variables."""

    url: str
    headers: dict[str, str]
    timeout: float
    compression: str  # "gzip", "deflate" or "none"
    context: ssl.SSLContext | None

    @property
    def shown(self) -> str:
        """The URL as messages name it: a user and password in it written ``***``, and its
        control characters escaped (the variable's value is anyone's text)."""
        return printable(without_userinfo(self.url), keep="")

    @classmethod
    def of(cls, signal: Signal, env: Mapping[str, str] = os.environ) -> Endpoint:
        def read(name: str) -> str:
            own = env.get(f"OTEL_EXPORTER_OTLP_{signal.upper()}_{name}", "").strip()
            return own or env.get(f"OTEL_EXPORTER_OTLP_{name}", "").strip()

        url = env.get(f"OTEL_EXPORTER_OTLP_{signal.upper()}_ENDPOINT", "").strip()
        if not url:
            base = env.get("OTEL_EXPORTER_OTLP_ENDPOINT", "").strip() or "http://localhost:4318"
            url = f"{base.rstrip('/')}/v1/{signal}"
        try:
            timeout = float(read("TIMEOUT") or 10)
        except ValueError:
            _LOG.warning(
                "OTEL_EXPORTER_OTLP_TIMEOUT: not a number of seconds, %r; using 10", read("TIMEOUT")
            )
            timeout = 10.0
        compression = read("COMPRESSION").lower() or "none"
        if compression not in ("gzip", "deflate", "none"):
            _LOG.warning(
                "OTEL_EXPORTER_OTLP_COMPRESSION: unsupported %r; sending uncompressed", compression
            )
            compression = "none"
        protocol = read("PROTOCOL")
        if protocol and protocol != "http/protobuf":
            _LOG.warning(
                "OTEL_EXPORTER_OTLP_PROTOCOL is %r: pytest-jsonmatch sends its own %s "
                "as http/protobuf to %s",
                protocol,
                signal,
                printable(without_userinfo(url), keep=""),
            )
        context = None
        if url.startswith("https:"):
            context = ssl.create_default_context(cafile=read("CERTIFICATE") or None)
            if read("CLIENT_CERTIFICATE"):
                context.load_cert_chain(read("CLIENT_CERTIFICATE"), read("CLIENT_KEY") or None)
        return cls(url, _headers(read("HEADERS")), timeout, compression, context)


def _headers(text: str) -> dict[str, str]:
    """``key=value,...`` with URL-encoded parts, names in lower case (the SDK's reading)."""
    out: dict[str, str] = {}
    for part in text.split(","):
        name, eq, value = part.partition("=")
        name = urllib.parse.unquote(name).strip().lower()
        if eq and name:
            out[name] = urllib.parse.unquote(value).strip()
        elif part.strip():
            _LOG.warning("OTEL_EXPORTER_OTLP_HEADERS: %r is not key=value; left out", part)
    return out


@dataclass
class _Queue:
    """One signal's messages waiting to leave, each built in the request it will leave in
    (no copy when it is sent), and its batching settings."""

    signal: Signal
    endpoint: Endpoint
    delay: float  # seconds a message may wait for its batch
    batch: int
    limit: int
    full: list[_Request] = field(default_factory=list)  # requests of ``batch`` messages each
    request: _Request | None = None  # the request the next messages go into
    messages: _Messages | None = None  # its repeated field of spans or log records
    since: float = 0.0  # when the first message of ``request`` came
    waiting: int = 0  # messages in ``full`` and ``request``
    dropped: int = 0

    @classmethod
    def of(cls, signal: Signal, env: Mapping[str, str] = os.environ) -> _Queue:
        prefix, delay, batch, limit = _BATCHING[signal]

        def number(name: str, default: int) -> int:
            # not a whole number from 1 to a billion, a variable is ignored, as OpenTelemetry's
            # SDK ignores one it cannot read (a delay of 1e30 ms would end the sending thread
            # with an OverflowError: a thread's wait takes at most threading.TIMEOUT_MAX s)
            value = whole_in(env.get(f"{prefix}_{name}", ""), 1, 10**9)
            return default if value is None else value

        return cls(
            signal,
            Endpoint.of(signal, env),
            number("SCHEDULE_DELAY", delay) / 1000,
            number("MAX_EXPORT_BATCH_SIZE", batch),
            number("MAX_QUEUE_SIZE", limit),
        )

    def add(self, fields: _Fields) -> bool:
        """A message built from ``fields`` into the current request; whether the sending
        thread should look again (a new batch began, or one is full)."""
        if self.waiting >= self.limit:
            self.dropped += 1
            return False
        if self.messages is None:
            if self.signal == "logs":
                self.request = ExportLogsServiceRequest()
                self.messages = self.request.resource_logs.add().scope_logs.add().log_records
            else:
                self.request = ExportTraceServiceRequest()
                self.messages = self.request.resource_spans.add().scope_spans.add().spans
            self.since = time.monotonic()
        self.messages.add(**fields)
        self.waiting += 1
        if len(self.messages) < self.batch:
            return len(self.messages) == 1  # the thread learns when this batch is due
        self.full.append(cast("_Request", self.request))  # (made with ``messages``)
        self.request = self.messages = None
        return True

    def due(self, now: float, closing: bool) -> bool:
        return (
            bool(self.full)
            or self.messages is not None
            and (closing or now - self.since >= self.delay)
        )

    def take(self) -> list[_Request]:
        """The requests to send now: the full ones, and the one being filled."""
        out, self.full = self.full, []
        if self.request is not None:
            out.append(self.request)
            self.request = self.messages = None
        self.waiting = 0
        return out


class _Sender(threading.Thread):
    """The outbox's thread. A replay's network block (calls/offline.py) lets a thread that
    ``sends_reports`` through: the session's own export to the collector ``jsonmatch_otel``
    names is no call of a test or target."""

    sends_reports = True


class Outbox:
    """Spans and log records of ``signals`` waiting to be sent; a daemon thread sends each
    signal's batch when it is full or has waited its schedule delay, and everything at
    :meth:`close`."""

    def __init__(
        self,
        signals: tuple[Signal, ...],
        resource: Callable[[], Mapping[str, AnyValue]],
        scope: tuple[str, str],
    ) -> None:
        self._queues = {signal: _Queue.of(signal) for signal in signals}
        self._resource_of = resource  # called in the thread, once: detectors may take time
        self._resource: Resource | None = None
        self._scope = InstrumentationScope(name=scope[0], version=scope[1])
        self._wake = threading.Condition()
        self._closing = False
        self._stopped = threading.Event()  # no more retries, no more sending
        # what could not be sent, in words, as logged: the session's summary says so
        self.lost: list[str] = []
        self._thread = _Sender(target=self._run, daemon=True, name="otlp-export (pytest-jsonmatch)")
        self._thread.start()

    new_ids = staticmethod(new_ids)  # ids for the spans it sends

    def event(
        self,
        name: str,
        timestamp: int,
        trace_id: bytes,
        span_id: bytes,
        attributes: Mapping[str, AnyValue],
    ) -> None:
        """An event: a log record with an event name, in the span ``span_id``."""
        self._add(
            "logs",
            {
                "time_unix_nano": timestamp,
                "observed_time_unix_nano": timestamp,
                "event_name": name,
                "trace_id": trace_id,
                "span_id": span_id,
                "flags": _SAMPLED,
                "attributes": key_values(attributes),
            },
        )

    def span(
        self,
        name: str,
        trace_id: bytes,
        span_id: bytes,
        start: int,
        end: int,
        attributes: Mapping[str, AnyValue],
        error: str | None,
    ) -> None:
        """A root span of kind INTERNAL; ``error`` (a message, maybe empty) sets its status
        to ERROR."""
        fields: _Fields = {
            "trace_id": trace_id,
            "span_id": span_id,
            "name": name,
            "kind": Span.SPAN_KIND_INTERNAL,
            "start_time_unix_nano": start,
            "end_time_unix_nano": end,
            "flags": _LOCAL_PARENT | _SAMPLED,
            "attributes": key_values(attributes),
        }
        if error is not None:
            fields["status"] = {"code": Status.STATUS_CODE_ERROR, "message": error}
        self._add("traces", fields)

    def _add(self, signal: Signal, fields: _Fields) -> None:
        with self._wake:
            if self._queues[signal].add(fields):
                self._wake.notify()

    def close(self, timeout: float) -> bool:
        """Send what waits, in at most ``timeout`` seconds; whether all of it left in time.
        After that nothing more is sent or retried."""
        with self._wake:
            self._closing = True
            self._wake.notify()
        self._thread.join(timeout)
        self._stopped.set()
        if self._thread.is_alive():
            self.lost.append(f"what waited was not all sent within the flush time ({timeout:g} s)")
        for queue in self._queues.values():
            if queue.dropped:
                _LOG.warning(
                    "pytest-jsonmatch: %d %s dropped: more than %d waited to be sent",
                    queue.dropped,
                    "spans" if queue.signal == "traces" else "events",
                    queue.limit,
                )
        return not self._thread.is_alive()

    def _run(self) -> None:
        while True:
            with self._wake:
                now = time.monotonic()
                ready = [q for q in self._queues.values() if q.due(now, self._closing)]
                if not ready:
                    if self._closing:
                        return
                    waits = [
                        q.since + q.delay - now
                        for q in self._queues.values()
                        if q.messages is not None
                    ]
                    self._wake.wait(min(waits, default=None))
                    continue
                batches = [(queue, request) for queue in ready for request in queue.take()]
            for queue, request in batches:
                if self._stopped.is_set():
                    return
                try:
                    self._send(queue, self._body(request))
                except Exception:  # noqa: BLE001 - never the suite's failure
                    _LOG.exception(
                        "pytest-jsonmatch: a batch of %s could not be sent", queue.signal
                    )

    def _body(self, request: _Request) -> bytes:
        """The request with its resource and scope, serialized."""
        if self._resource is None:
            # (a KeyValue's dict form: the constructors take it, the stubs name the class)
            attributes = cast("list[KeyValue]", key_values(self._resource_of()))
            self._resource = Resource(attributes=attributes)
        first = (
            request.resource_logs
            if isinstance(request, ExportLogsServiceRequest)
            else request.resource_spans
        )[0]
        first.resource.CopyFrom(self._resource)
        scoped = first.scope_logs if isinstance(first, ResourceLogs) else first.scope_spans
        scoped[0].scope.CopyFrom(self._scope)
        return bytes(request.SerializeToString())

    def _send(self, queue: _Queue, body: bytes) -> None:
        """POST ``body``, retrying transient failures until the endpoint's timeout."""
        endpoint = queue.endpoint
        headers = {"Content-Type": "application/x-protobuf", **endpoint.headers}
        if endpoint.compression == "gzip":
            import gzip

            body = gzip.compress(body)
            headers["Content-Encoding"] = "gzip"
        elif endpoint.compression == "deflate":
            body = zlib.compress(body)
            headers["Content-Encoding"] = "deflate"
        deadline = time.monotonic() + endpoint.timeout
        for attempt in range(_TRIES):
            backoff = 2.0**attempt * random.uniform(0.8, 1.2)
            left = deadline - time.monotonic()
            try:
                request = urllib.request.Request(
                    endpoint.url, data=body, headers=headers, method="POST"
                )
                with urllib.request.urlopen(
                    request, timeout=max(left, 0.01), context=endpoint.context
                ) as reply:
                    reply.read()
                return
            except urllib.error.HTTPError as error:
                if error.code not in _RETRY:
                    said = printable(str(error.reason), keep="")  # the collector's own text
                    self.lost.append(
                        f"the collector at {endpoint.shown} refused {queue.signal}: "
                        f"HTTP {error.code} {said}"
                    )
                    _LOG.error(
                        "pytest-jsonmatch: the collector at %s refused %s: HTTP %d %s",
                        endpoint.shown,
                        queue.signal,
                        error.code,
                        said,
                    )
                    return
                backoff = _retry_after(error.headers.get("Retry-After"), backoff)
                reason = f"HTTP {error.code}"
            except OSError as error:  # refused, reset, timed out: a lost connection
                reason = printable(str(error), keep="")
            if backoff > deadline - time.monotonic() or self._stopped.wait(backoff):
                break
        self.lost.append(f"{queue.signal} not sent to {endpoint.shown} ({reason}); dropped")
        _LOG.error(
            "pytest-jsonmatch: %s not sent to %s (%s); dropped",
            queue.signal,
            endpoint.shown,
            reason,
        )


def _retry_after(value: str | None, default: float) -> float:
    """A ``Retry-After`` of seconds, else ``default`` (an HTTP date is rare from a collector)."""
    try:
        seconds = float(value or "")
    except ValueError:
        return default
    return seconds if 0 <= seconds < 3600 else default
