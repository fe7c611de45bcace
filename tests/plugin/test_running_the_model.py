"""Running the model (runner.py through session.py and golden.py): concurrency, selection,
timeouts, stopping cleanly, bad settings, retries, the rate limit, latency and usage.

Against real parts: a threading HTTP server on 127.0.0.1 started here, called by a real
httpx client in the target (a pytester conftest's ``pytest_jsonmatch_target``). The server
counts its own requests in flight; cancellation is checked by the threads and tasks left."""

from __future__ import annotations

import json
import sys
import threading
import time
import types
from email.utils import formatdate
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlparse

import pytest

httpx = pytest.importorskip("httpx")

from pytest_jsonmatch.calls import retries  # noqa: E402
from tests.helpers.http_models import CountsCalls, InFlight, serving  # noqa: E402
from tests.helpers.plugin_cases import ARGS  # noqa: E402

pytestmark = pytest.mark.slow  # (CONTRIBUTING.md: the inner loop leaves it out)


class _Server(CountsCalls, ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.lock = threading.Lock()
        self.calls = InFlight()
        self.starts: list[float] = []
        self.hits: dict[str, int] = {}
        self.keyed_starts: dict[str, list[float]] = {}
        self.sent: list[float] = []  # when each call started, as its caller said (``sent=``)
        self.stop = threading.Event()

    def starts_of(self, key: str) -> list[float]:
        return self.keyed_starts.get(key, [])

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}"


class _Handler(BaseHTTPRequestHandler):
    server: _Server

    def log_message(self, *args):  # quiet
        pass

    def do_GET(self):
        srv, url = self.server, urlparse(self.path)
        query = {k: v[0] for k, v in parse_qs(url.query).items()}
        key = query.get("key", url.path)
        with srv.lock:
            srv.starts.append(time.monotonic())
            srv.hits[key] = hit = srv.hits.get(key, 0) + 1
            srv.keyed_starts.setdefault(key, []).append(time.monotonic())
            if "sent" in query:
                srv.sent.append(float(query["sent"]))
        with srv.calls.call() as leave:
            try:
                status, headers = 200, {}
                if url.path == "/latency":
                    time.sleep(float(query.get("s", "0.2")))
                elif url.path == "/hang":
                    srv.stop.wait(30)  # bounded: the test's end releases it
                elif url.path == "/429" and hit <= int(query.get("fail", "1")):
                    status, headers = 429, {"Retry-After": query.get("after", "0")}
                    if "ms" in query:  # as OpenAI and Azure send it, beside a Retry-After
                        headers["retry-after-ms"] = query["ms"]
                    if "date" in query:  # an HTTP date, "date" seconds from now
                        headers["Retry-After"] = formatdate(
                            time.time() + float(query["date"]), usegmt=True
                        )
                elif url.path == "/500" and hit <= int(query.get("fail", "1")):
                    status = 500
                elif url.path == "/404":
                    status = 404
                body = json.dumps({"vendor": query.get("vendor", "ACME")}).encode()
                leave()
                self.send_response(status)
                for name, value in headers.items():
                    self.send_header(name, value)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)
            except OSError:
                pass


@pytest.fixture
def server():
    srv = _Server()
    with serving(srv):
        try:
            yield srv
        finally:
            srv.stop.set()  # a handler waiting on /hang ends before the server shuts down


@pytest.fixture
def probe():
    """A module the pytester conftest reports to (the same process: runpytest_inprocess)."""
    module = types.SimpleNamespace(cancelled=[], started=[])
    sys.modules["jm_probe"] = module
    yield module
    del sys.modules["jm_probe"]


SYNC_TARGET = """
import httpx

def pytest_jsonmatch_target(case, config):
    response = httpx.get("{url}" + case.input, timeout=30)
    response.raise_for_status()
    return response.json()
"""

ASYNC_TARGET = """
import asyncio
import httpx
import jm_probe

async def call(path):
    jm_probe.started.append(path)
    try:
        async with httpx.AsyncClient(timeout=30) as client:
            response = await client.get("{url}" + path)
            response.raise_for_status()
            return response.json()
    except asyncio.CancelledError:
        jm_probe.cancelled.append(path)
        raise

def pytest_jsonmatch_target(case, config):
    return call(case.input)
"""


def _cases(pytester, paths, name="c", extra=""):
    body = "".join(
        f'  - id: c{i}\n    expected: {{vendor: ACME}}\n    input: "{p}"\n{extra}'
        for i, p in enumerate(paths)
    )
    (pytester.path / f"{name}.jsonmatch.yaml").write_text("cases:\n" + body)


def _run(pytester, *args, ini="", **kwargs):
    if ini:
        pytester.makeini("[pytest]\n" + ini)
    return pytester.runpytest_inprocess(*ARGS, "--jsonmatch-report=r.json", *args, **kwargs)


def _report(pytester):
    return json.loads((pytester.path / "r.json").read_text())


def _threads_left(within: float = 2.0):
    """The runner's threads still alive ``within`` seconds after the session: a cancelled
    call's thread ends just after its future is cancelled, which a loaded machine may not
    have scheduled yet when the session returns; one that never ends is still found."""
    deadline = time.monotonic() + within
    while True:
        left = [t.name for t in threading.enumerate() if t.name.startswith("jsonmatch-")]
        if not left or time.monotonic() >= deadline:
            return left
        time.sleep(0.02)


def _without_timing(report):
    return [{k: v for k, v in c.items() if k != "call"} for c in report["comparisons"]]


# -- stage 1: concurrency, selection, stopping, timeouts, bad settings ----------------------


@pytest.mark.parametrize("target", [SYNC_TARGET, ASYNC_TARGET], ids=["threads", "async"])
def test_n_calls_run_at_a_time_and_score_as_a_serial_run(pytester, server, probe, target):
    pytester.makeconftest(target.replace("{url}", server.url))
    # (each call 0.05 s at the server: the concurrent run's overlap is held by the gathering
    # wait, not by the length of a call, and the serial run waits 12 x 0.05 s)
    _cases(pytester, ["/latency?s=0.05"] * 12)
    server.calls.reset(gather=4)
    _run(pytester, "--jsonmatch-calls=concurrency=4").assert_outcomes(passed=12)
    # four calls were in the server at once: concurrency told by the server, not by a clock
    # (the time it saves is the suite benchmark's row)
    assert server.max_in_flight == 4 and server.total == 12
    concurrent = _without_timing(_report(pytester))
    server.calls.reset()
    _run(pytester, "--jsonmatch-calls=concurrency=1").assert_outcomes(passed=12)
    assert server.max_in_flight == 1
    assert _without_timing(_report(pytester)) == concurrent
    assert _threads_left() == []


def test_only_cases_pytest_runs_call_the_model(pytester, server, probe):
    pytester.makeconftest(SYNC_TARGET.replace("{url}", server.url))
    paths = [f"/latency?s=0&key=k{i}" for i in range(6)]
    _cases(pytester, paths)
    (pytester.path / "s.jsonmatch.yaml").write_text(
        "cases:\n  - id: skipped\n    marks: [skip]\n    expected: {vendor: ACME}\n"
        "    input: /latency?s=0&key=skipped\n"
        "  - id: noxrun\n    marks: [{xfail: {run: false}}]\n    expected: {vendor: ACME}\n"
        "    input: /latency?s=0&key=noxrun\n"
    )
    _run(pytester, "--jsonmatch-calls=concurrency=8", "-k", "c1 or c4 or skipped or noxrun")
    assert sorted(server.hits) == ["k1", "k4"]


def test_a_repeated_case_calls_once_per_run(pytester, server, probe):
    pytester.makeconftest(SYNC_TARGET.replace("{url}", server.url))
    _cases(pytester, ["/latency?s=0.1&key=r"], extra="    repeat: 3\n")
    server.calls.reset(gather=3)
    _run(pytester, "--jsonmatch-calls=concurrency=8").assert_outcomes(passed=1)
    assert server.hits["r"] == 3 and server.max_in_flight == 3
    assert [c["repeat"] for c in _report(pytester)["comparisons"]] == [0, 1, 2]


def test_a_call_that_overruns_its_timeout_is_cancelled_and_the_others_go_on(
    pytester, server, probe
):
    pytester.makeconftest(ASYNC_TARGET.replace("{url}", server.url))
    _cases(pytester, ["/latency?s=0", "/hang", "/latency?s=0"])
    started = time.monotonic()
    # 2 s: the quick calls' own start (an httpx client each) took over 0.5 s on a loaded machine
    result = _run(pytester, "--jsonmatch-calls=concurrency=3", ini="jsonmatch_calls = timeout=2")
    assert time.monotonic() - started < 15  # far below the hanging call's 30 s
    result.assert_outcomes(passed=2, failed=1)
    result.stdout.fnmatch_lines(["*case 'c1': target timed out after 2 s (1 attempt)"])
    errors = [c for c in _report(pytester)["comparisons"] if c["status"] == "error"]
    assert [(c["case_id"].split("::")[1], c["error"]) for c in errors] == [
        ("c1", "target timed out after 2 s (1 attempt)")
    ]
    assert probe.cancelled == ["/hang"] and _threads_left() == []


def test_x_stops_the_calls_in_flight_at_once(pytester, server, probe):
    pytester.makeconftest(ASYNC_TARGET.replace("{url}", server.url))
    _cases(pytester, ["/404"] + ["/hang"] * 20)
    started = time.monotonic()
    result = _run(pytester, "--jsonmatch-calls=concurrency=4", "-x")
    assert time.monotonic() - started < 10
    result.assert_outcomes(failed=1)
    assert server.total <= 5 and len(probe.started) <= 5
    assert (
        sorted(set(probe.cancelled)) == ["/hang"] and len(probe.cancelled) == len(probe.started) - 1
    )
    assert _threads_left() == []


def test_a_target_that_crashes_stops_the_session_and_its_calls(pytester, server, probe):
    pytester.makeconftest(
        ASYNC_TARGET.replace("{url}", server.url)
        + """
_plain = pytest_jsonmatch_target

def pytest_jsonmatch_target(case, config):
    if case.input == "crash":
        raise KeyboardInterrupt
    return _plain(case, config)
"""
    )
    _cases(pytester, ["crash"] + ["/hang"] * 6)
    started = time.monotonic()
    result = _run(pytester, "--jsonmatch-calls=concurrency=4", no_reraise_ctrlc=True)
    assert time.monotonic() - started < 10
    assert result.ret == pytest.ExitCode.INTERRUPTED
    assert len(probe.cancelled) == len(probe.started) and _threads_left() == []


@pytest.mark.parametrize(
    "flag, ini, named",
    [
        (
            ["--jsonmatch-calls=concurrency=0"],
            "",
            "--jsonmatch-calls: concurrency must be a whole number of calls from 1 to 1000 (1: one after another), not '0'",
        ),
        (["--jsonmatch-calls=concurrency=-2"], "", "--jsonmatch-calls: concurrency * not '-2'"),
        ([], "jsonmatch_calls = concurrency=many", "jsonmatch_calls: concurrency * not 'many'"),
        (
            [],
            "jsonmatch_calls = timeout=0",
            "jsonmatch_calls: timeout must be a number of seconds above 0 and at most 86400 (a day), not '0'",
        ),
        (
            [],
            "jsonmatch_calls = rate=fast",
            "jsonmatch_calls: rate must be * like 120/min or 5/s, not 'fast'",
        ),
        (
            [],
            "jsonmatch_calls = retries=-1",
            "jsonmatch_calls: retries must be a whole number from 0 to 100, not '-1'",
        ),
        (
            [],
            "jsonmatch_calls = concurency=2",
            "jsonmatch_calls: expected key=value with a key of concurrency, timeout, retries, rate, retry_timeouts, retry_budget, not 'concurency=2' (did you mean 'concurrency'?)",
        ),
        ([], "jsonmatch_calls = timeout=1 timeout=2", "jsonmatch_calls: timeout given twice"),
    ],
)
def test_a_bad_setting_is_a_usage_error_before_any_call(pytester, server, probe, flag, ini, named):
    pytester.makeconftest(SYNC_TARGET.replace("{url}", server.url))
    _cases(pytester, ["/latency?s=0"])
    result = _run(pytester, *flag, ini=ini)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([f"ERROR: pytest-jsonmatch: {named}"])
    assert server.total == 0


# -- stage 2: retries and the rate limit --------------------------------------------------


def _calls_of(pytester):
    return {c["case_id"].split("::")[1]: c for c in _report(pytester)["comparisons"]}


def test_retries_honour_retry_after_and_back_off_on_5xx(pytester, server, probe, monkeypatch):
    # the 5xx backoff (0.5 s, then 1 s, jittered down to half) made 25 times shorter: d's two
    # waits held the run up to 1.5 s; that the 5xx are retried is the promise, not how long.
    # Short beside a's Retry-After (0.15 s), it also tells a wait as asked from a backoff
    monkeypatch.setattr(retries, "BACKOFF_BASE_S", 0.02)
    pytester.makeconftest(SYNC_TARGET.replace("{url}", server.url))
    _cases(
        pytester,
        ["/429?key=a&fail=2&after=0.15", "/500?key=b&fail=1", "/404?key=c", "/500?key=d&fail=5"],
    )
    started = time.monotonic()
    result = _run(pytester, "--jsonmatch-calls=concurrency=4", ini="jsonmatch_calls = retries=2")
    result.assert_outcomes(passed=2, failed=2)
    assert server.hits == {"a": 3, "b": 2, "c": 1, "d": 3}
    calls = _calls_of(pytester)
    assert [calls[c]["call"]["attempts"] for c in ("c0", "c1", "c2", "c3")] == [3, 2, 1, 3]
    assert [calls[c]["call"]["failed"] for c in ("c0", "c1", "c2", "c3")] == [
        False,
        False,
        True,
        True,
    ]
    assert time.monotonic() - started >= 0.3  # two Retry-After waits of 0.15 s
    a = server.starts_of("a")
    assert a[1] - a[0] >= 0.15 and a[2] - a[1] >= 0.15  # each of them waited


def test_retry_after_ms_and_an_http_date_are_honoured_and_the_budget_bounds_them(
    pytester, server, probe
):
    # a: retry-after-ms 400 beside Retry-After 0 (the milliseconds win); b: Retry-After as an
    # HTTP date 2 s ahead (whole seconds: 1 to 2 s of waiting); c: Retry-After 1e9, taken at
    # 300 s, past the retry budget of 5 s: not retried at all
    pytester.makeconftest(SYNC_TARGET.replace("{url}", server.url))
    _cases(pytester, ["/429?key=a&ms=400", "/429?key=b&date=2", "/429?key=c&after=1e9"])
    started = time.monotonic()
    result = _run(pytester, "--jsonmatch-calls=concurrency=3 retries=2 retry_budget=5")
    elapsed = time.monotonic() - started
    result.assert_outcomes(passed=2, failed=1)
    assert server.hits == {"a": 2, "b": 2, "c": 1}
    calls = _calls_of(pytester)
    assert [calls[c]["call"]["attempts"] for c in ("c0", "c1", "c2")] == [2, 2, 1]
    assert calls["c0"]["call"]["failed"] is False and calls["c2"]["call"]["failed"] is True
    assert 1.0 <= elapsed < 4.0  # b's date wait; c did not wait 300 s (nor 5)
    a, b = (server.starts_of(key) for key in ("a", "b"))
    assert a[1] - a[0] >= 0.4 and b[1] - b[0] >= 1.0


def test_without_retries_a_429_fails_at_once(pytester, server, probe):
    pytester.makeconftest(SYNC_TARGET.replace("{url}", server.url))
    _cases(pytester, ["/429?key=a&fail=1"])
    _run(pytester).assert_outcomes(failed=1)
    assert server.hits == {"a": 1}


def test_a_timed_out_call_is_retried_only_when_asked(pytester, server, probe, monkeypatch):
    # the backoff before the retry made a fifth as long (0.05 to 0.1 s, not 0.25 to 0.5 s):
    # that a timeout is retried when asked is the promise, not the pause before it
    monkeypatch.setattr(retries, "BACKOFF_BASE_S", 0.1)
    pytester.makeconftest(ASYNC_TARGET.replace("{url}", server.url))
    _cases(pytester, ["/hang"])
    result = _run(pytester, ini="jsonmatch_calls = timeout=0.3 retries=1 retry_timeouts=yes")
    result.assert_outcomes(failed=1)
    # Attempts are counted where the target starts them: on a loaded machine an attempt can
    # time out before its request reaches the server (creating the client alone can take
    # 0.3 s), so the server may see fewer than were made, never more.
    assert probe.started == ["/hang", "/hang"] and probe.cancelled == ["/hang", "/hang"]
    assert server.hits.get("/hang", 0) <= 2
    result.stdout.fnmatch_lines(["*target timed out after 0.3 s (2 attempts)*"])
    assert _threads_left() == []


def test_a_timed_out_call_is_not_retried_by_default(pytester, server, probe):
    # retries are for 429, 5xx and failed connections: a hang is not retried unless asked,
    # so a case that hangs holds the run one timeout, not (retries + 1) timeouts
    pytester.makeconftest(ASYNC_TARGET.replace("{url}", server.url))
    _cases(pytester, ["/hang"])
    result = _run(pytester, ini="jsonmatch_calls = timeout=0.3 retries=3")
    result.assert_outcomes(failed=1)
    assert probe.started == ["/hang"] and probe.cancelled == ["/hang"]
    assert server.hits.get("/hang", 0) <= 1
    result.stdout.fnmatch_lines(["*target timed out after 0.3 s (1 attempt)*"])


def test_the_rate_limit_spaces_the_starts_whatever_n_is(pytester, server, probe):
    pytester.makeconftest(
        "import time, jm_probe\n"
        + SYNC_TARGET.replace("{url}", server.url).replace(
            "    response =", "    jm_probe.started.append(time.monotonic())\n    response =", 1
        )
    )
    _cases(pytester, ["/latency?s=0"] * 6)
    _run(
        pytester, "--jsonmatch-calls=concurrency=8", ini="jsonmatch_calls = rate=10/s"
    ).assert_outcomes(passed=6)
    starts = sorted(probe.started)  # when the target was called: the server sees them later
    # The limiter hands out start times 0.1 s apart: six calls span 0.5 s (unlimited, with 8 at
    # a time, they would start within a few milliseconds). What the target sees is each start
    # plus the delay until its thread runs: on a loaded machine one late call can bunch with
    # the next, so the test holds the span with room for that delay, not each gap.
    assert starts[-1] - starts[0] >= 0.3 and server.total == 6


# -- stage 3: latency and usage in the report, the summary and recordings -------------------

USAGE_TARGET = """
import httpx
from pytest_jsonmatch import TargetResult

def pytest_jsonmatch_target(case, config):
    response = httpx.get("{url}" + case.input, timeout=30)
    response.raise_for_status()
    return TargetResult(response.json(), input_tokens=100, output_tokens=20, cost=0.001)
"""


def test_latency_and_usage_reach_the_report_summary_markdown_and_html(pytester, server, probe):
    pytester.makeconftest(USAGE_TARGET.replace("{url}", server.url))
    _cases(pytester, ["/latency?s=0.1"] * 4)
    result = _run(
        pytester,
        "--jsonmatch-calls=concurrency=4",
        "--jsonmatch-report=s.md",
        "--jsonmatch-report=r.html",
    )
    result.assert_outcomes(passed=4)
    calls = [c["call"] for c in _report(pytester)["comparisons"]]
    assert all(0.09 < c["latency_s"] < 2 and c["attempts"] == 1 for c in calls)
    assert {(c["input_tokens"], c["output_tokens"], c["cost"]) for c in calls} == {(100, 20, 0.001)}
    line = (
        "calls: 4, latency p50 0.* s, p95 0.* s, max 0.* s, total *.* s; 0 retried, "
        "0 failed; tokens 400 in, 80 out, cost 0.00400"
    )
    result.stdout.fnmatch_lines([line])
    assert "calls: 4, latency p50" in (pytester.path / "s.md").read_text()
    assert "Calls of the target" in (pytester.path / "r.html").read_text()


def test_recordings_keep_the_figures_and_a_replay_shows_them_as_replayed(pytester, server, probe):
    pytester.makeconftest(USAGE_TARGET.replace("{url}", server.url))
    _cases(pytester, ["/latency?s=0.1"] * 2)
    _run(pytester, "--jsonmatch-record=once", "--jsonmatch-calls=concurrency=2").assert_outcomes(
        passed=2
    )
    recorded = json.loads((pytester.path / "__recordings__/c.jsonmatch.yaml/c0.json").read_text())
    assert recorded["call"]["input_tokens"] == 100 and recorded["call"]["latency_s"] > 0.09
    result = _run(pytester, "--jsonmatch-record=once")
    assert server.total == 2  # replayed: no call
    comparisons = _report(pytester)["comparisons"]
    assert [c["source"] for c in comparisons] == ["replayed", "replayed"]
    assert comparisons[0]["call"] == recorded["call"]
    result.stdout.fnmatch_lines(["replayed calls (recorded figures): 2, latency p50 *"])
    assert not any(line.startswith("calls: ") for line in result.outlines)


STAMPED_TARGET = """
import json
import time
import urllib.request

def pytest_jsonmatch_target(case, config):
    sent = time.monotonic()  # one clock for every process of the machine, the server's too
    with urllib.request.urlopen("{url}" + case.input + f"&sent={sent!r}", timeout=30) as reply:
        return json.loads(reply.read())
"""


def test_under_four_xdist_workers_a_rate_limit_holds_for_the_session_at_the_server(
    pytester, server
):
    # rate=480/min for the session, four workers, 12 calls: the server sees each call's start
    # (the time it says it was sent, on the machine's one monotonic clock) an eighth of a
    # second apart, whichever worker made it. Each worker taking a quarter of the rate and
    # starting at once put 4 calls within 0.03 s; 480/min allows 3 in any 0.25 s (two
    # intervals), 480 a minute
    pytester.makeconftest(STAMPED_TARGET.replace("{url}", server.url))
    _cases(pytester, [f"/latency?key=k{i}&s=0" for i in range(12)])
    result = pytester.runpytest_subprocess(
        *ARGS, "-n", "4", "-p", "no:randomly", "--jsonmatch-calls=concurrency=4 rate=480/min"
    )
    result.assert_outcomes(passed=12)
    sent, arrived = sorted(server.sent), sorted(server.starts)
    assert len(sent) == len(arrived) == 12
    most_in_2_intervals = max(sum(1 for t in sent if s <= t < s + 0.25) for s in sent)
    most_in_60s = max(sum(1 for t in arrived if s <= t < s + 60) for s in arrived)
    assert most_in_2_intervals <= 3 and most_in_60s <= 480, [round(t - sent[0], 3) for t in sent]
    # and no slower than the rate needs: 12 starts 1/8 s apart span 11/8 s, not 4 x that
    # (5.5 s); the bound leaves a loaded machine twice that and a second
    span = 11 / 8
    assert span * 0.9 < sent[-1] - sent[0] < span * 2 + 1
    result.stdout.fnmatch_lines(["*480 calls a minute in all, starts spaced across workers*"])


def test_under_xdist_the_call_limits_hold_for_the_whole_session_and_the_summary_says_so(
    pytester, server
):
    # concurrency=2 and rate=20/s for the session, two workers: each runs 1 call at a time at
    # 10/s. 12 calls of 0.1 s each (two of the session's intervals: calls overlap): never
    # more than 2 in flight at the server (4 if each worker took the session's limits), and
    # starts no closer than 20/s allows in all
    pytester.makeconftest(SYNC_TARGET.replace("{url}", server.url))
    _cases(pytester, [f"/latency?key=k{i}&s=0.1" for i in range(12)])
    result = pytester.runpytest_subprocess(
        *ARGS, "-n", "2", "-p", "no:randomly", "--jsonmatch-calls=concurrency=2 rate=20/s"
    )
    result.assert_outcomes(passed=12)
    assert server.total == 12 and server.max_in_flight <= 2
    starts = sorted(server.starts)
    # any 6 consecutive starts span at least 5 intervals of the session's rate, less a margin
    assert min(b - a for a, b in zip(starts, starts[5:])) >= 5 / 20 * 0.8
    result.stdout.fnmatch_lines(
        [
            "calls: jsonmatch_calls holds for the whole session, shared by 2 xdist workers: each "
            "runs 1 at a time, 1200 calls a minute in all, starts spaced across workers"
        ]
    )
