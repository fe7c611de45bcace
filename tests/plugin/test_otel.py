"""OpenTelemetry export (telemetry/otel_settings.py, telemetry/otel_events.py, through the plugin):
``gen_ai.evaluation.result`` events and their spans, as a real OTLP/HTTP receiver on
127.0.0.1 decodes them (tests/helpers/otlp_receiver.py, the official protobuf messages).

The model is a real HTTP server started here, called through httpx by the target; calls run
concurrently, and under xdist in a subprocess whose conftest sets a global tracer provider
(the user's own) and opens a span around each call, as an instrumented client does, in a
runner thread (a plain target) or on the runner's event loop (an async one)."""

from __future__ import annotations

import os
import socket
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

httpx = pytest.importorskip("httpx")
pytest.importorskip("opentelemetry.sdk")
pytest.importorskip("opentelemetry.exporter.otlp.proto.http")

from tests.helpers.http_models import InFlight, reply_json, serving  # noqa: E402
from tests.helpers.otlp_receiver import Receiver  # noqa: E402
from tests.helpers.plugin_cases import ARGS  # noqa: E402

pytestmark = pytest.mark.slow  # (CONTRIBUTING.md: the inner loop leaves it out)

EVENT = "gen_ai.evaluation.result"
LATENCY = 0.15  # seconds each model call takes


class _Model(ThreadingHTTPServer):
    """``/ok`` and ``/bad`` answer JSON with a response id after LATENCY; ``/500`` fails."""

    daemon_threads = True

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), _ModelHandler)
        self.calls = InFlight()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}"


class _ModelHandler(BaseHTTPRequestHandler):
    server: _Model

    def log_message(self, *args: object) -> None:
        pass

    def do_GET(self) -> None:
        with self.server.calls.call() as leave:
            time.sleep(LATENCY)
            name = self.path.strip("/").split("?")[0]
            total = 99 if name == "bad" else 10
            leave()
            reply_json(
                self,
                {
                    "id": f"resp-{self.path.strip('/')}",
                    "answer": {"vendor": "ACME", "total": total},
                },
                500 if name == "500" else 200,
            )


@pytest.fixture
def model():
    srv = _Model()
    with serving(srv):
        yield srv


@pytest.fixture
def receiver(monkeypatch):
    with Receiver() as rec:
        monkeypatch.setenv("OTEL_EXPORTER_OTLP_ENDPOINT", rec.url)
        monkeypatch.delenv("OTEL_SERVICE_NAME", raising=False)
        monkeypatch.delenv("OTEL_SDK_DISABLED", raising=False)
        yield rec


# The target returns usage with the output: 7 tokens in, 3 out.
PLAIN_TARGET = """
import httpx
from pytest_jsonmatch import TargetResult

def pytest_jsonmatch_target(case, config):
    response = httpx.get("{url}" + case.input, timeout=30)
    response.raise_for_status()
    return TargetResult(response.json()["answer"], input_tokens=7, output_tokens=3)
"""

# The user's own global tracer provider, and a span around each call (as an instrumented
# client makes one), holding the response's id.
USERS_PROVIDER = """
import httpx
from opentelemetry import trace
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor

provider = TracerProvider()
provider.add_span_processor(BatchSpanProcessor(OTLPSpanExporter()))
trace.set_tracer_provider(provider)
tracer = trace.get_tracer("my-model-client")

async def call_async(path):  # on the runner's event loop
    with tracer.start_as_current_span("chat local-model") as span:
        async with httpx.AsyncClient(timeout=30) as client:
            response = await client.get("{url}" + path)
        span.set_attribute("gen_ai.response.id", response.json()["id"])
        response.raise_for_status()
        return response.json()["answer"]

def pytest_jsonmatch_target(case, config):
    if "async" in case.input:
        return call_async(case.input)
    with tracer.start_as_current_span("chat local-model") as span:
        response = httpx.get("{url}" + case.input, timeout=30)
        span.set_attribute("gen_ai.response.id", response.json()["id"])
        response.raise_for_status()
        return response.json()["answer"]
"""

EXPECTED = "{vendor: ACME, total: 10}"


def _cases(pytester, inputs):
    body = "".join(
        f'  - id: {name}\n    expected: {EXPECTED}\n    input: "/{path}"\n' for name, path in inputs
    )
    (pytester.path / "model.jsonmatch.yaml").write_text("cases:\n" + body)


def _case_events(received):
    return {
        e.attributes["jsonmatch.case_id"].rpartition("::")[2]: e
        for e in received.events
        if "jsonmatch.field" not in e.attributes
    }


def test_each_case_is_an_event_in_a_span_of_its_own_holding_the_call(pytester, model, receiver):
    pytester.makeconftest(PLAIN_TARGET.replace("{url}", model.url))
    _cases(pytester, [("good", "ok"), ("wrong_total", "bad"), ("broken", "500")])
    model.calls.reset(gather=3)
    result = pytester.runpytest_inprocess(
        *ARGS, "--jsonmatch-otel=fields flush=5", "--jsonmatch-calls=concurrency=3"
    )
    result.assert_outcomes(passed=1, failed=2)
    assert model.calls.most == 3  # the three calls were out at once
    got = receiver.received
    assert {e.name for e in got.events} == {EVENT}
    events = _case_events(got)
    assert set(events) == {"good", "wrong_total", "broken"}
    good, wrong, broken = (
        events["good"].attributes,
        events["wrong_total"].attributes,
        events["broken"].attributes,
    )
    assert (
        good["gen_ai.evaluation.name"],
        good["gen_ai.evaluation.score.value"],
        good["gen_ai.evaluation.score.label"],
    ) == ("field_f1", 1.0, "pass")
    # vendor matches, total does not: TP = 1 of 2 fields each side, P = R = F1 = 1/2
    assert (wrong["gen_ai.evaluation.score.value"], wrong["gen_ai.evaluation.score.label"]) == (
        0.5,
        "fail",
    )
    assert (
        wrong["gen_ai.evaluation.explanation"]
        == "score 0.5 < threshold 1; worst fields: total 0 (mismatch)"
    )
    assert (
        broken["gen_ai.evaluation.score.value"],
        broken["gen_ai.evaluation.score.label"],
        broken["error.type"],
    ) == (0.0, "error", "HTTPStatusError")
    assert "500 Internal Server Error" in broken["gen_ai.evaluation.explanation"]
    assert "error.type" not in good and "gen_ai.response.id" not in good
    # one event per field too: two fields in each scored case, none in the broken one
    fields = sorted(
        (
            e.attributes["jsonmatch.case_id"].rpartition("::")[2],
            e.attributes["jsonmatch.field"],
            e.attributes["gen_ai.evaluation.score.value"],
            e.attributes["gen_ai.evaluation.score.label"],
        )
        for e in got.events
        if "jsonmatch.field" in e.attributes
    )
    assert fields == [
        ("good", "total", 1.0, "match"),
        ("good", "vendor", 1.0, "match"),
        ("wrong_total", "total", 0.0, "mismatch"),
        ("wrong_total", "vendor", 1.0, "match"),
    ]
    # each case's events are in its own span, which spans the call and holds its usage
    spans = {s.span_id: s for s in got.spans}
    assert len(spans) == 3 and {s.name for s in spans.values()} == {"jsonmatch.case"}
    for event in events.values():
        span = spans[event.span_id]
        assert (span.trace_id, span.parent_id) == (event.trace_id, "")
        assert span.attributes["jsonmatch.case_id"] == event.attributes["jsonmatch.case_id"]
        assert span.end_ns - span.start_ns >= LATENCY * 1e9
        assert span.attributes["jsonmatch.source"] == "live"
        assert span.service == event.service == "pytest-jsonmatch"
    for event in got.events:  # a field's event is in its case's span
        case = events[event.attributes["jsonmatch.case_id"].rpartition("::")[2]]
        assert (event.trace_id, event.span_id) == (case.trace_id, case.span_id)
    usage = {
        s.attributes["jsonmatch.case_id"].rpartition("::")[2]: (
            s.attributes.get("gen_ai.usage.input_tokens"),
            s.attributes.get("gen_ai.usage.output_tokens"),
            s.status,
        )
        for s in spans.values()
    }
    # a failed call reported no usage, and its span's status is ERROR (2)
    assert usage == {"good": (7, 3, 0), "wrong_total": (7, 3, 0), "broken": (None, None, 2)}


def test_under_xdist_events_are_parented_to_the_users_span_of_each_call(
    pytester, model, receiver, monkeypatch
):
    monkeypatch.setenv("OTEL_SERVICE_NAME", "my-evals")
    pytester.makeconftest(USERS_PROVIDER.replace("{url}", model.url))
    # half the calls made by a plain function in a runner thread, half by an async one
    inputs = [(f"case{i}", "ok?n=" + str(i) + "&async" * (i % 2)) for i in range(4)] + [
        ("wrong", "bad?async"),
        ("broken", "500"),
    ]
    _cases(pytester, inputs)
    result = pytester.runpytest_subprocess(
        *ARGS, "-n", "2", "--jsonmatch-otel=cases", "--jsonmatch-calls=concurrency=4"
    )
    result.assert_outcomes(passed=4, failed=2)
    got = receiver.received
    events = _case_events(got)
    assert len(got.events) == 6 and set(events) == {name for name, _ in inputs}
    chats = {s.span_id: s for s in got.spans if s.name == "chat local-model"}
    assert len(chats) == 6 and not [s for s in got.spans if s.name == "jsonmatch.case"]
    for name, path in inputs:
        event = events[name]
        span = chats[event.span_id]  # the event's parent is the span of its own call
        assert span.trace_id == event.trace_id
        assert (
            span.attributes["gen_ai.response.id"]
            == event.attributes["gen_ai.response.id"]
            == f"resp-{path}"
        )
        assert event.service == span.service == "my-evals"
    labels = sorted(e.attributes["gen_ai.evaluation.score.label"] for e in events.values())
    assert labels == ["error", "fail", "pass", "pass", "pass", "pass"]


def test_a_collector_that_refuses_connections_costs_at_most_the_flush_time(
    pytester, model, monkeypatch
):
    with socket.socket() as sock:  # a port nothing listens on
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    monkeypatch.setenv("OTEL_EXPORTER_OTLP_ENDPOINT", f"http://127.0.0.1:{port}")
    monkeypatch.setenv("OTEL_EXPORTER_OTLP_TIMEOUT", "60")  # the exporter would retry 60 s
    pytester.makeconftest(PLAIN_TARGET.replace("{url}", model.url))
    _cases(pytester, [("good", "ok"), ("also_good", "ok?again")])
    started = time.monotonic()
    result = pytester.runpytest_inprocess(*ARGS, "--jsonmatch-otel=cases flush=0.5")
    elapsed = time.monotonic() - started
    result.assert_outcomes(passed=2)
    # two calls of LATENCY each, the flush's 0.5 s, and a session's start-up: far below
    # the exporter's own 60 s of retries
    assert elapsed < 10, elapsed
    # and it is said in the summary, not only in a log record pytest may not show (issue 51)
    # (which of the two it names first depends on whether the flush or the refusal came
    # first: the other is counted, "(and 1 more)")
    notes = [line for line in result.outlines if line.startswith("OpenTelemetry: ")]
    assert len(notes) == 1 and notes[0].startswith("OpenTelemetry: not everything was sent: ")
    assert (
        "what waited was not all sent within the flush time (0.5 s)" in notes[0]
        or f"not sent to http://127.0.0.1:{port}/v1/" in notes[0]
    ), notes


def test_a_collector_that_is_down_and_answers_at_once_is_named_in_the_summary(
    pytester, model, monkeypatch
):
    with socket.socket() as sock:  # a port nothing listens on: refused at once
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    monkeypatch.setenv("OTEL_EXPORTER_OTLP_ENDPOINT", f"http://127.0.0.1:{port}")
    monkeypatch.setenv("OTEL_EXPORTER_OTLP_TIMEOUT", "0.5")  # no retry outlasts the flush
    pytester.makeconftest(PLAIN_TARGET.replace("{url}", model.url))
    _cases(pytester, [("good", "ok")])
    result = pytester.runpytest_inprocess(*ARGS, "--jsonmatch-otel=cases flush=5")
    result.assert_outcomes(passed=1)
    (note,) = [line for line in result.outlines if line.startswith("OpenTelemetry: ")]
    sent_to = f"not sent to http://127.0.0.1:{port}/v1/"
    assert note.startswith(
        tuple(
            f"OpenTelemetry: not everything was sent: {kind} {sent_to}"
            for kind in ("traces", "logs")
        )
    ), note
    assert "Connection refused" in note and "; dropped" in note


def test_the_setting_is_checked_and_off_by_default(pytester, receiver, monkeypatch):
    pytester.makepyfile("""
        from pytest_jsonmatch import assert_json_match

        def test_one():
            assert_json_match({"a": 1}, {"a": 1})
    """)
    pytester.runpytest_inprocess(*ARGS).assert_outcomes(passed=1)
    assert receiver.received.requests == 0  # nothing sent unless asked
    result = pytester.runpytest_inprocess(*ARGS, "--jsonmatch-otel=traces")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        [
            "*--jsonmatch-otel: expected off, cases or fields and "
            "optionally flush=SECONDS, not 'traces'"
        ]
    )
    result = pytester.runpytest_inprocess(*ARGS, "--jsonmatch-otel=cases flush=-1")
    result.stderr.fnmatch_lines(
        ["*--jsonmatch-otel: flush= takes a number of seconds from 0 to 600, not '-1'"]
    )
    with monkeypatch.context() as m:  # the SDK's own switch wins over the setting
        m.setenv("OTEL_SDK_DISABLED", "true")
        pytester.runpytest_inprocess(*ARGS, "--jsonmatch-otel=cases").assert_outcomes(passed=1)
    assert receiver.received.requests == 0
    monkeypatch.setenv("OTEL_RESOURCE_ATTRIBUTES", "deployment.environment=ci, team=evals%20core")
    pytester.runpytest_inprocess(*ARGS, "--jsonmatch-otel=cases").assert_outcomes(passed=1)
    (resource,) = receiver.received.resources  # read as the SDK reads the variable
    assert (
        resource["service.name"],
        resource["deployment.environment"],
        resource["team"],
        resource["telemetry.sdk.language"],
    ) == ("pytest-jsonmatch", "ci", "evals core", "python")
    (event,) = receiver.received.events  # a plain test's comparison is a case too
    assert event.attributes["jsonmatch.case_id"].endswith(".py::test_one")
    (span,) = receiver.received.spans
    assert (span.name, span.span_id, span.attributes["jsonmatch.source"]) == (
        "jsonmatch.case",
        event.span_id,
        "case",
    )


def test_without_the_extra_the_setting_names_it(pytester, monkeypatch):
    # an empty regular package "opentelemetry" first on the path hides the installed one
    (pytester.path / "hidden" / "opentelemetry").mkdir(parents=True)
    (pytester.path / "hidden" / "opentelemetry" / "__init__.py").write_text("")
    monkeypatch.setenv(
        "PYTHONPATH",
        os.pathsep.join(
            filter(None, [str(pytester.path / "hidden"), os.environ.get("PYTHONPATH")])
        ),
    )
    pytester.makepyfile("def test_one():\n    pass\n")
    assert pytester.runpytest_subprocess(*ARGS).ret == pytest.ExitCode.OK  # off: not needed
    result = pytester.runpytest_subprocess(*ARGS, "--jsonmatch-otel=cases")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        [
            "ERROR: pytest-jsonmatch: --jsonmatch-otel: OpenTelemetry's SDK "
            "and OTLP messages are not installed; pip install "
            '"pytest-jsonmatch[otel]"'
        ]
    )


def test_a_replayed_case_gets_a_span_as_long_as_its_recorded_call(pytester, model, receiver):
    pytester.makeconftest(PLAIN_TARGET.replace("{url}", model.url))
    _cases(pytester, [("good", "ok")])
    pytester.runpytest_inprocess(*ARGS, "--jsonmatch-record=once").assert_outcomes(passed=1)
    assert receiver.received.requests == 0
    model.shutdown()  # the replay calls no model
    pytester.runpytest_inprocess(
        *ARGS, "--jsonmatch-record=once", "--jsonmatch-otel=cases"
    ).assert_outcomes(passed=1)
    (event,) = receiver.received.events
    (span,) = receiver.received.spans
    assert (span.span_id, span.attributes["jsonmatch.source"]) == (event.span_id, "replayed")
    # the recorded call took at least LATENCY; the span ends when the event is sent
    assert span.end_ns - span.start_ns >= LATENCY * 1e9
    assert (
        span.attributes["gen_ai.usage.input_tokens"],
        span.attributes["gen_ai.usage.output_tokens"],
    ) == (7, 3)


# The user's own logger provider only: the events go through it, the spans through the
# plugin's outbox, and each event still carries its span's ids.
USERS_LOGGER = """
from opentelemetry import _logs
from opentelemetry.exporter.otlp.proto.http._log_exporter import OTLPLogExporter
from opentelemetry.sdk._logs import LoggerProvider
from opentelemetry.sdk._logs.export import BatchLogRecordProcessor
from opentelemetry.sdk.resources import Resource

provider = LoggerProvider(resource=Resource.create({"service.name": "users-logs"}))
provider.add_log_record_processor(BatchLogRecordProcessor(OTLPLogExporter()))
_logs.set_logger_provider(provider)
"""


def test_with_the_users_logger_provider_only_events_go_through_it_in_our_spans(
    pytester, model, receiver
):
    pytester.makeconftest(USERS_LOGGER + PLAIN_TARGET.replace("{url}", model.url))
    _cases(pytester, [("good", "ok"), ("wrong_total", "bad")])
    result = pytester.runpytest_subprocess(*ARGS, "--jsonmatch-otel=cases")
    result.assert_outcomes(passed=1, failed=1)
    got = receiver.received
    events = _case_events(got)
    spans = {s.span_id: s for s in got.spans}
    assert set(events) == {"good", "wrong_total"} and len(spans) == 2
    for event in events.values():
        span = spans[event.span_id]  # the plugin's own span, sent by its outbox
        assert (span.name, span.trace_id) == ("jsonmatch.case", event.trace_id)
        assert (event.service, span.service) == ("users-logs", "pytest-jsonmatch")


def test_a_judged_case_event_holds_what_the_judge_did(pytester, receiver):
    from tests.helpers.judge_server import JudgeServer

    judge = JudgeServer()
    with serving(judge):
        pytester.makeini(
            f"[pytest]\njsonmatch_judge = model=j endpoint={judge.url} price_in=2 price_out=8\n"
        )
        (pytester.path / "m.jsonmatch.yaml").write_text(
            "cases:\n"
            "  - id: judged\n"
            "    options: {fields: {s: {comparator: semantic}}}\n"
            "    expected: {s: two boxes}\n"
            "    actual: {s: 2 boxes}\n"
            "  - id: plain\n"
            "    expected: {s: x}\n"
            "    actual: {s: x}\n"
        )
        result = pytester.runpytest_inprocess(*ARGS, "--jsonmatch-otel=cases flush=5")
    result.assert_outcomes(passed=1, failed=1)
    events = _case_events(receiver.received)
    judged = events["judged"].attributes
    # one request of 100 tokens in, 10 out: 100 * 2 / 1e6 + 10 * 8 / 1e6 = 0.00028
    assert (
        judged["jsonmatch.judge.requests"],
        judged["jsonmatch.judge.not_judged"],
        judged["jsonmatch.judge.input_tokens"],
        judged["jsonmatch.judge.output_tokens"],
    ) == (1, 0, 100, 10)
    assert judged["jsonmatch.judge.cost"] == pytest.approx(0.00028)
    assert not any(k.startswith("jsonmatch.judge.") for k in events["plain"].attributes)


# Each run of the repeated case answers the next letter: x matches, y does not (at
# threshold 1 a run passes only with x); three of five runs pass.
REPEAT_TARGET = """
import collections
seen = collections.Counter()

def pytest_jsonmatch_target(case, config):
    i = seen[case.input]
    seen[case.input] += 1
    return {"a": 1, "b": "xxyxy"[i % 5]}
"""


def test_a_repeated_case_s_events_carry_pass_hat_k_and_pass_at_k(pytester, receiver):
    pytester.makeconftest(REPEAT_TARGET)
    pytester.makefile(
        ".jsonmatch.yaml",
        c="cases:\n  - {id: rep, repeat: 5, threshold: 1, expected: {a: 1, b: x}, input: q}\n",
    )
    pytester.runpytest_inprocess(
        *ARGS, "--jsonmatch-otel=cases flush=5", "--jsonmatch-gates=pass_k=2"
    )
    runs = [e.attributes for e in receiver.received.events]
    assert len(runs) == 5
    # 3 of 5 at k = 2: pass^2 = C(3, 2) / C(5, 2) = 0.3, pass@2 = 1 - C(2, 2) / C(5, 2) = 0.9
    for attributes in runs:
        assert (
            attributes["jsonmatch.pass_k"],
            attributes["jsonmatch.pass_hat_k"],
            attributes["jsonmatch.pass_at_k"],
            attributes["jsonmatch.runs.passed"],
            attributes["jsonmatch.runs.scored"],
            attributes["jsonmatch.flaky"],
        ) == (2, 0.3, 0.9, 3, 5, True)
