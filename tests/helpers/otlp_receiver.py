"""A real OTLP/HTTP receiver on 127.0.0.1 for the OpenTelemetry tests: it takes the protobuf
requests sent to ``/v1/logs`` and ``/v1/traces`` (by the SDK's exporters or the plugin's own
outbox), gzip- or deflate-encoded or not, decodes them with the official
``opentelemetry-proto`` messages and keeps each log record and span, its attributes as plain
Python values, and each request's headers. ``answers`` scripts the status of the next
requests (``[503, 200]``: the first is refused, as a collector under load does)."""

from __future__ import annotations

import threading
import zlib
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from opentelemetry.proto.collector.logs.v1.logs_service_pb2 import (
    ExportLogsServiceRequest,
    ExportLogsServiceResponse,
)
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
    ExportTraceServiceRequest,
    ExportTraceServiceResponse,
)

from tests.helpers.http_models import POLL  # (how often the serving thread looks for its shutdown)


def _value(any_value: Any) -> Any:
    kind = any_value.WhichOneof("value")
    return getattr(any_value, kind) if kind else None


def _attributes(pairs: Any) -> dict[str, Any]:
    return {pair.key: _value(pair.value) for pair in pairs}


def _service(resource: Any) -> str:
    return str(_attributes(resource.attributes).get("service.name", ""))


@dataclass
class Event:
    name: str
    attributes: dict[str, Any]
    trace_id: str  # hex, "" when the record has none
    span_id: str
    service: str


@dataclass
class SpanSeen:
    name: str
    attributes: dict[str, Any]
    trace_id: str
    span_id: str
    parent_id: str
    start_ns: int
    end_ns: int
    status: int
    service: str


@dataclass
class Received:
    events: list[Event] = field(default_factory=list)
    spans: list[SpanSeen] = field(default_factory=list)
    requests: int = 0
    headers: list[dict[str, str]] = field(default_factory=list)  # each request's, lower-case
    resources: list[dict[str, Any]] = field(default_factory=list)  # each batch's resource


class _Handler(BaseHTTPRequestHandler):
    server: _Server

    def log_message(self, *args: object) -> None:  # quiet
        pass

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
        got = self.server.received
        with self.server.lock:
            got.headers.append({k.lower(): v for k, v in self.headers.items()})
            status = self.server.answers.pop(0) if self.server.answers else 200
        if status != 200:
            self.send_response(status)
            self.send_header("Content-Length", "0")
            self.send_header("Retry-After", "0.05")
            self.end_headers()
            return
        encoding = self.headers.get("Content-Encoding", "")
        if encoding in ("gzip", "deflate"):
            body = zlib.decompress(body, wbits=31 if encoding == "gzip" else 15)
        if self.path == "/v1/logs":
            request = ExportLogsServiceRequest.FromString(body)
            reply = ExportLogsServiceResponse().SerializeToString()
            events = [
                Event(
                    r.event_name,
                    _attributes(r.attributes),
                    r.trace_id.hex(),
                    r.span_id.hex(),
                    _service(rl.resource),
                )
                for rl in request.resource_logs
                for sl in rl.scope_logs
                for r in sl.log_records
            ]
            with self.server.lock:
                got.events += events
                got.requests += 1
                got.resources += [
                    _attributes(rl.resource.attributes) for rl in request.resource_logs
                ]
        elif self.path == "/v1/traces":
            request = ExportTraceServiceRequest.FromString(body)
            reply = ExportTraceServiceResponse().SerializeToString()
            spans = [
                SpanSeen(
                    s.name,
                    _attributes(s.attributes),
                    s.trace_id.hex(),
                    s.span_id.hex(),
                    s.parent_span_id.hex(),
                    s.start_time_unix_nano,
                    s.end_time_unix_nano,
                    s.status.code,
                    _service(rs.resource),
                )
                for rs in request.resource_spans
                for ss in rs.scope_spans
                for s in ss.spans
            ]
            with self.server.lock:
                got.spans += spans
                got.requests += 1
        else:
            self.send_response(404)
            self.end_headers()
            return
        self.send_response(200)
        self.send_header("Content-Type", "application/x-protobuf")
        self.send_header("Content-Length", str(len(reply)))
        self.end_headers()
        self.wfile.write(reply)


class _Server(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.lock = threading.Lock()
        self.received = Received()
        self.answers: list[int] = []


class Receiver:
    """``with Receiver() as receiver``: listening at ``receiver.url`` until the block ends."""

    def __enter__(self) -> Receiver:
        self.server = _Server()
        self.thread = threading.Thread(target=self.server.serve_forever, args=(POLL,), daemon=True)
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()
        self.thread.join(5)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}"

    def answer(self, *statuses: int) -> None:
        """The statuses of the next requests, in order (then 200)."""
        with self.server.lock:
            self.server.answers += statuses

    @property
    def received(self) -> Received:
        return self.server.received
