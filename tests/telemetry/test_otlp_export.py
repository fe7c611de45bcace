"""The plugin's own OTLP/HTTP outbox (telemetry/otlp_export.py): the ``OTEL_*`` variables read as
the SDK's exporter reads them, and batches sent to a real receiver on 127.0.0.1 that decodes
them with the official protobuf messages (tests/helpers/otlp_receiver.py): batching,
compression, headers, retries, what a collector that rejects or never answers costs."""

from __future__ import annotations

import logging
import socket
import threading
import time

import pytest

pytest.importorskip("opentelemetry.proto")
pytest.importorskip("opentelemetry.sdk")

from pytest_jsonmatch.telemetry import otlp_export
from pytest_jsonmatch.telemetry.otlp_export import Endpoint, Outbox, _Queue
from tests.helpers.otlp_receiver import Receiver

RESOURCE = {"service.name": "evals", "deployment.environment": "ci"}


def _outbox(*signals):
    return Outbox(signals or ("logs",), lambda: RESOURCE, ("pytest_jsonmatch", "9.9"))


def _event(outbox, n):
    trace_id, span_id = otlp_export.new_ids()
    outbox.event(
        "gen_ai.evaluation.result",
        1_700_000_000_000_000_000 + n,
        trace_id,
        span_id,
        {"n": n, "ok": True, "score": 0.5, "case": f"c{n}"},
    )


@pytest.fixture
def receiver(monkeypatch):
    for name in ("ENDPOINT", "HEADERS", "TIMEOUT", "COMPRESSION"):
        for signal in ("", "LOGS_", "TRACES_"):
            monkeypatch.delenv(f"OTEL_EXPORTER_OTLP_{signal}{name}", raising=False)
    with Receiver() as rec:
        monkeypatch.setenv("OTEL_EXPORTER_OTLP_ENDPOINT", rec.url)
        yield rec


def test_the_endpoint_is_read_from_the_standard_variables(caplog):
    default = Endpoint.of("logs", {})
    assert (
        default.url,
        default.headers,
        default.timeout,
        default.compression,
        default.context,
    ) == ("http://localhost:4318/v1/logs", {}, 10.0, "none", None)
    env = {
        "OTEL_EXPORTER_OTLP_ENDPOINT": "http://collector:4318/",
        "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://tempo:9999/otlp",
        "OTEL_EXPORTER_OTLP_HEADERS": "Api-Key=a%20b%3D, x-team = evals ",
        "OTEL_EXPORTER_OTLP_TRACES_HEADERS": "only=traces",
        "OTEL_EXPORTER_OTLP_TIMEOUT": "2.5",
        "OTEL_EXPORTER_OTLP_COMPRESSION": "GZIP",
    }
    logs, traces = Endpoint.of("logs", env), Endpoint.of("traces", env)
    # the common endpoint gets the signal's path; a signal's own is used as it is
    assert (logs.url, traces.url) == ("http://collector:4318/v1/logs", "http://tempo:9999/otlp")
    # names in lower case, parts URL-decoded; a signal's own headers replace the common ones
    assert logs.headers == {"api-key": "a b=", "x-team": "evals"}
    assert traces.headers == {"only": "traces"}
    assert (logs.timeout, logs.compression) == (2.5, "gzip")
    with caplog.at_level(logging.WARNING, "pytest_jsonmatch.otel"):
        odd = Endpoint.of(
            "logs",
            {
                "OTEL_EXPORTER_OTLP_TIMEOUT": "soon",
                "OTEL_EXPORTER_OTLP_COMPRESSION": "brotli",
                "OTEL_EXPORTER_OTLP_HEADERS": "novalue",
                "OTEL_EXPORTER_OTLP_LOGS_PROTOCOL": "grpc",
            },
        )
    assert (odd.timeout, odd.compression, odd.headers) == (10.0, "none", {})
    assert [r.getMessage() for r in caplog.records] == [
        "OTEL_EXPORTER_OTLP_TIMEOUT: not a number of seconds, 'soon'; using 10",
        "OTEL_EXPORTER_OTLP_COMPRESSION: unsupported 'brotli'; sending uncompressed",
        "OTEL_EXPORTER_OTLP_PROTOCOL is 'grpc': pytest-jsonmatch sends its own logs as "
        "http/protobuf to http://localhost:4318/v1/logs",
        "OTEL_EXPORTER_OTLP_HEADERS: 'novalue' is not key=value; left out",
    ]
    secure = Endpoint.of("logs", {"OTEL_EXPORTER_OTLP_ENDPOINT": "https://collector:4318"})
    assert secure.context is not None and secure.context.verify_mode.name == "CERT_REQUIRED"


def test_batches_leave_full_compressed_and_with_their_headers(receiver, monkeypatch):
    monkeypatch.setenv("OTEL_EXPORTER_OTLP_HEADERS", "authorization=Bearer%20t0ken")
    monkeypatch.setenv("OTEL_EXPORTER_OTLP_LOGS_COMPRESSION", "gzip")
    monkeypatch.setenv("OTEL_BLRP_MAX_EXPORT_BATCH_SIZE", "2")
    monkeypatch.setenv("OTEL_BLRP_SCHEDULE_DELAY", "60000")  # only full batches, then close
    outbox = _outbox()
    for n in range(5):
        _event(outbox, n)
    assert outbox.close(5)
    got = receiver.received
    assert got.requests == 3  # 2 + 2 full batches, and the last one at close
    assert sorted(e.attributes["n"] for e in got.events) == [0, 1, 2, 3, 4]
    first = next(e for e in got.events if e.attributes["n"] == 0)
    assert first.attributes == {"n": 0, "ok": True, "score": 0.5, "case": "c0"}
    assert first.name == "gen_ai.evaluation.result" and len(first.trace_id) == 32
    assert all(
        h["authorization"] == "Bearer t0ken"
        and h["content-encoding"] == "gzip"
        and h["content-type"] == "application/x-protobuf"
        for h in got.headers
    )
    assert got.resources == [RESOURCE] * 3


def test_a_batch_waits_at_most_its_schedule_delay(receiver, monkeypatch):
    monkeypatch.setenv("OTEL_BLRP_SCHEDULE_DELAY", "50")
    outbox = _outbox()
    _event(outbox, 1)
    deadline = time.monotonic() + 5
    while not receiver.received.events and time.monotonic() < deadline:
        time.sleep(0.02)
    assert [e.attributes["n"] for e in receiver.received.events] == [1]  # before close
    assert outbox.close(5)


def test_a_collector_under_load_gets_the_batch_again(receiver, caplog):
    receiver.answer(503, 429)  # refused twice, Retry-After 0.05 s each
    outbox = _outbox("logs", "traces")
    trace_id, span_id = otlp_export.new_ids()
    outbox.span(
        "jsonmatch.case",
        trace_id,
        span_id,
        10,
        20,
        {"jsonmatch.case_id": "a"},
        "TimeoutError: slow",
    )
    with caplog.at_level(logging.ERROR, "pytest_jsonmatch.otel"):
        assert outbox.close(5)
    (span,) = receiver.received.spans
    assert (
        span.name,
        span.trace_id,
        span.span_id,
        span.parent_id,
        span.start_ns,
        span.end_ns,
        span.status,
    ) == ("jsonmatch.case", trace_id.hex(), span_id.hex(), "", 10, 20, 2)
    assert len(receiver.received.headers) == 3 and not caplog.records


def test_a_rejected_batch_is_dropped_once_and_logged(receiver, caplog):
    receiver.answer(400)
    outbox = _outbox()
    _event(outbox, 1)
    with caplog.at_level(logging.ERROR, "pytest_jsonmatch.otel"):
        assert outbox.close(5)
    assert receiver.received.events == [] and len(receiver.received.headers) == 1
    assert [r.getMessage() for r in caplog.records] == [
        f"pytest-jsonmatch: the collector at {receiver.url}/v1/logs refused logs: "
        f"HTTP 400 Bad Request"
    ]


def test_a_collector_that_never_answers_costs_the_close_timeout_only(monkeypatch):
    with socket.socket() as silent:  # accepts connections, never replies
        silent.bind(("127.0.0.1", 0))
        silent.listen(8)
        monkeypatch.setenv(
            "OTEL_EXPORTER_OTLP_ENDPOINT", f"http://127.0.0.1:{silent.getsockname()[1]}"
        )
        monkeypatch.setenv("OTEL_EXPORTER_OTLP_TIMEOUT", "60")
        outbox = _outbox()
        _event(outbox, 1)
        started = time.monotonic()
        assert outbox.close(0.3) is False
        assert time.monotonic() - started < 2
    # the connection is reset now: the sending thread gives up at once, retrying nothing
    # (and logs it here, not in a later test)
    for thread in threading.enumerate():
        if thread.name.startswith("otlp-export"):
            thread.join(5)
            assert not thread.is_alive()


def test_more_than_the_queue_holds_is_dropped_and_counted(receiver, monkeypatch, caplog):
    monkeypatch.setenv("OTEL_BLRP_MAX_QUEUE_SIZE", "3")
    monkeypatch.setenv("OTEL_BLRP_SCHEDULE_DELAY", "60000")
    outbox = _outbox()
    for n in range(5):
        _event(outbox, n)
    with caplog.at_level(logging.WARNING, "pytest_jsonmatch.otel"):
        assert outbox.close(5)
    assert sorted(e.attributes["n"] for e in receiver.received.events) == [0, 1, 2]
    assert [r.getMessage() for r in caplog.records] == [
        "pytest-jsonmatch: 2 events dropped: more than 3 waited to be sent"
    ]


@pytest.mark.parametrize("given", ["1" + "0" * 30, "9" * 5000, "\u00b2", "-5", "0", "soon"])
def test_a_batching_variable_out_of_range_is_ignored_as_the_sdk_does(given):
    # a delay of 1e30 ms made the sending thread's wait raise OverflowError (issue 55)
    queue = _Queue.of(
        "logs", {"OTEL_BLRP_SCHEDULE_DELAY": given, "OTEL_BLRP_MAX_QUEUE_SIZE": given}
    )
    assert queue.delay == 1.0 and queue.limit == 2048  # the defaults: 1,000 ms, 2,048
    assert _Queue.of("logs", {"OTEL_BLRP_SCHEDULE_DELAY": "1000000000"}).delay == 1e6
