"""Several named targets in one session (calls/targets.py, reporting/verdicts/versus.py): each
``input:`` case once per target as ``case[target]``, each target with its own calls,
recordings, latency and cost, side by side in every report, and the gate that holds the
others to the reference.

Against real parts: two HTTP "models" on 127.0.0.1 started here, with different answers,
latencies and token counts, called through httpx by the targets; each server counts its own
requests in flight. The paired numbers are checked against ``jsonmatch diff`` of the same
targets run apart, and the HTML in headless Chromium."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlparse

import pytest

httpx = pytest.importorskip("httpx")

from tests.helpers.http_models import CountsCalls, InFlight, reply_json, serving  # noqa: E402
from tests.helpers.plugin_cases import ARGS, write  # noqa: E402
from tests.helpers.reports import held  # noqa: E402

pytestmark = pytest.mark.slow  # (CONTRIBUTING.md: the inner loop leaves it out)


class _Model(CountsCalls, ThreadingHTTPServer):
    """A model that answers ``{"vendor": ..., "total": ...}`` for ``?vendor=&total=`` after
    ``delay`` seconds; ``lower`` lowercases the vendors it is asked to lowercase (its
    mistakes); it counts its requests, and the most in flight at once."""

    daemon_threads = True

    def __init__(self, delay: float, lower: set[str] = frozenset()) -> None:
        super().__init__(("127.0.0.1", 0), _Answer)
        self.delay, self.lower = delay, set(lower)
        self.lock = threading.Lock()
        self.calls = InFlight()
        self.asked: list[str] = []
        self.starts: list[float] = []

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}"


class _Answer(BaseHTTPRequestHandler):
    server: _Model

    def log_message(self, *args):  # quiet
        pass

    def do_GET(self):
        srv = self.server
        query = {k: v[0] for k, v in parse_qs(urlparse(self.path).query).items()}
        with srv.lock:
            srv.asked.append(query["vendor"])
            srv.starts.append(time.monotonic())
        with srv.calls.call() as leave:
            time.sleep(srv.delay)
            vendor = query["vendor"]
            leave()
            reply_json(
                self,
                {
                    "vendor": vendor.lower() if vendor in srv.lower else vendor,
                    "total": int(query["total"]),
                },
            )


# Each model's time a call: long enough to be told apart from no wait and from each other
# (a p50, a p95, a latency gate read them), short enough that a run of the suite's eight
# calls waits a few tenths of a second, not two seconds
TODAY_DELAY = 0.05
CHEAP_DELAY = 0.1


@pytest.fixture
def models():
    """``today``: right every time, ``TODAY_DELAY`` a call; ``cheap``: lowercases ACME and
    Zeta, ``CHEAP_DELAY`` a call."""
    servers = {"today": _Model(TODAY_DELAY), "cheap": _Model(CHEAP_DELAY, {"ACME", "Zeta"})}
    with serving(*servers.values()):
        yield servers


# Each target reports its usage: today 100 tokens in, 10 out, 0.002 a call; cheap 40 in, 5
# out, 0.0005 a call.
MODELS = """
import httpx
from pytest_jsonmatch import TargetResult

def _ask(url, case_input):
    reply = httpx.get(url, params=case_input, timeout=30)
    reply.raise_for_status()
    return reply.json()

def today(case_input):
    return TargetResult(_ask("{today}", case_input), input_tokens=100, output_tokens=10,
                        cost=0.002)

def cheap(case_input):
    return TargetResult(_ask("{cheap}", case_input), input_tokens=40, output_tokens=5,
                        cost=0.0005)
"""

# Four input cases and one given answer. cheap lowercases ACME (c1, c3) and Zeta (c4).
CASES = """
cases:
  - id: c1
    input: {vendor: ACME, total: 10}
    expected: {vendor: ACME, total: 10}
  - id: c2
    input: {vendor: Blue, total: 20}
    expected: {vendor: Blue, total: 20}
  - id: c3
    input: {vendor: ACME, total: 30}
    expected: {vendor: ACME, total: 30}
  - id: c4
    input: {vendor: Zeta, total: 40}
    expected: {vendor: Zeta, total: 40}
  - id: given
    actual: {vendor: Q, total: 1}
    expected: {vendor: Q, total: 1}
"""

TARGETS = """
[pytest]
pythonpath = .
jsonmatch_record = once
jsonmatch_targets =
    today = models:today
    cheap = models:cheap concurrency=3
"""


def _suite(pytester, models, ini_extra: str = "") -> None:
    write(
        pytester,
        "models.py",
        MODELS.replace("{today}", models["today"].url).replace("{cheap}", models["cheap"].url),
    )
    write(pytester, "inv.jsonmatch.yaml", CASES)
    pytester.makeini(TARGETS + ini_extra)


def _run(pytester, *args):
    return pytester.runpytest_inprocess(*ARGS, "--jsonmatch-report=r.json", *args)


def _report(pytester, name: str = "r.json") -> dict:
    return held((pytester.path / name).read_text())


def test_each_input_case_runs_once_per_target_with_its_own_calls_and_recordings(pytester, models):
    _suite(pytester, models)
    models["cheap"].calls.reset(gather=3)  # its calls held until three are out together
    result = _run(pytester, "-v")
    # today scores every case 1.0; cheap's vendor is wrong in c1, c3, c4: (1 + 0) / 2 = .5 each
    result.assert_outcomes(passed=6, failed=3)
    for name in ("c1[today]", "c1[cheap]", "c4[cheap]", "given"):
        assert any(f"inv.jsonmatch.yaml::{name} " in line for line in result.outlines), name
    assert not any("given[" in line for line in result.outlines)  # a given answer runs once
    # per-target concurrency, by the servers' own counts: today 1 at a time (the session's
    # default), cheap up to its own 3 (four calls, all submitted at the start)
    assert (models["today"].max_in_flight, models["cheap"].max_in_flight) == (1, 3)
    assert (models["today"].total, models["cheap"].total) == (4, 4)
    # the calls' figures per target, the reference (here the first declared) first
    result.stdout.fnmatch_lines(
        [
            "calls of today: 4, latency p50 *; 0 retried, 0 failed; tokens 400 in, 40 out, "
            "cost 0.00800",
            "calls of cheap: 4, latency p50 *; 0 retried, 0 failed; tokens 160 in, 20 out, "
            "cost 0.00200",
        ]
    )

    report = _report(pytester)
    by_id = {c["case_id"]: c for c in report["comparisons"]}
    assert by_id["inv.jsonmatch.yaml::c1[cheap]"]["target"] == "cheap"
    assert "target" not in by_id["inv.jsonmatch.yaml::given"]
    # usage and cost per target, from each target's own calls: 4 x .002 and 4 x .0005
    runs = {r["name"]: r for r in report["targets"]["runs"]}
    assert runs["today"]["usage"] == pytest.approx(
        {"input_tokens": 400, "output_tokens": 40, "cost": 0.008}
    )
    assert runs["cheap"]["usage"] == pytest.approx(
        {"input_tokens": 160, "output_tokens": 20, "cost": 0.002}
    )
    # each call takes its server's delay at least: every p50 and p95 is at or above it
    assert runs["today"]["latency"]["count"] == runs["cheap"]["latency"]["count"] == 4
    assert runs["today"]["latency"]["p50_s"] >= TODAY_DELAY
    assert runs["cheap"]["latency"]["p95_s"] >= CHEAP_DELAY

    folder = pytester.path / "__recordings__" / "inv.jsonmatch.yaml"
    assert sorted(p.name for p in folder.iterdir()) == sorted(
        f"c{i}[{t}].json" for i in range(1, 5) for t in ("today", "cheap")
    )
    assert json.loads((folder / "c1[cheap].json").read_text())["output"] == {
        "vendor": "acme",
        "total": 10,
    }
    assert json.loads((folder / "c1[today].json").read_text())["target"] == "today"

    # a second run replays each target's own recordings: no call, the same scores
    again = _run(pytester)
    again.assert_outcomes(passed=6, failed=3)
    assert (models["today"].total, models["cheap"].total) == (4, 4)
    assert {c["case_id"]: c["score"] for c in _report(pytester)["comparisons"]} == {
        c["case_id"]: c["score"] for c in report["comparisons"]
    }


def test_each_target_keeps_its_own_rate_limit(pytester, models):
    # today at 2 calls a second: its four starts are 0.5 s apart (1.5 s from first to last
    # at the runner; the server may see the first late by the client's start-up, so 0.75 s
    # at the least, where the session's limit alone would let all four start at once);
    # cheap, unlimited with 4 at a time, is not held back by today's limit
    _suite(pytester, models)
    pytester.makeini(
        TARGETS.replace("today = models:today", "today = models:today rate=2/s").replace(
            "concurrency=3", "concurrency=4"
        )
    )
    _run(pytester, "--jsonmatch-calls=concurrency=4").assert_outcomes(passed=6, failed=3)
    today, cheap = (sorted(models[name].starts) for name in ("today", "cheap"))
    assert today[-1] - today[0] >= 0.75
    assert cheap[-1] - cheap[0] < 1.0  # (sharing today's limit: 1.5 s at the least)


def test_under_xdist_the_targets_give_the_same_report(pytester, models):
    _suite(pytester, models)
    _run(pytester).assert_outcomes(passed=6, failed=3)
    alone = _report(pytester)
    # two workers replaying the recordings: the same items, scores and targets section
    result = pytester.runpytest_subprocess(*ARGS, "-n", "2", "--jsonmatch-report=x.json")
    result.assert_outcomes(passed=6, failed=3)
    apart = _report(pytester, "x.json")
    assert {
        c["case_id"]: (c["target"] if "target" in c else None, c["score"])
        for c in apart["comparisons"]
    } == {
        c["case_id"]: (c["target"] if "target" in c else None, c["score"])
        for c in alone["comparisons"]
    }
    for key in ("shared", "fields", "disagreements", "reference", "gated"):
        assert apart["targets"][key] == alone["targets"][key], key
    assert (models["today"].total, models["cheap"].total) == (4, 4)


def test_a_recording_never_replays_for_another_target(pytester, models):
    _suite(pytester, models)
    _run(pytester).assert_outcomes(passed=6, failed=3)
    folder = pytester.path / "__recordings__" / "inv.jsonmatch.yaml"
    # today's right answer put where cheap's recording of c1 lies: it names its target, so
    # cheap's case does not replay it but calls cheap's model again
    (folder / "c1[cheap].json").write_text((folder / "c1[today].json").read_text())
    result = _run(pytester)
    result.assert_outcomes(passed=6, failed=3)
    assert (models["today"].total, models["cheap"].total) == (4, 5)
    assert models["cheap"].asked[-1] == "ACME"
    assert json.loads((folder / "c1[cheap].json").read_text())["target"] == "cheap"
    # replaying only, the same swap is refused by name
    (folder / "c1[cheap].json").write_text((folder / "c1[today].json").read_text())
    refused = _run(pytester, "--jsonmatch-record=none")
    refused.assert_outcomes(passed=6, failed=3)
    (error,) = [c["error"] for c in _report(pytester)["comparisons"] if c["status"] == "error"]
    assert error == (
        "the recording __recordings__/inv.jsonmatch.yaml/c1[cheap].json is stale "
        "(the target (recorded for 'today'); target code models.py::cheap; target code "
        "models.py::today changed since it was recorded): "
        "re-record it with --jsonmatch-record=once"
    )  # each named target's fingerprint holds its own function's code


def test_the_paired_numbers_are_those_of_jsonmatch_diff_and_compare_runs(pytester, models):
    _suite(pytester, models, "jsonmatch_reference = today\njsonmatch_gates = max_case_drop=1\n")
    # the given answer runs under no target, but is in each run made apart: diff would pair it
    write(pytester, "inv.jsonmatch.yaml", CASES.split("  - id: given")[0])
    _run(pytester).assert_outcomes(passed=5, failed=3)
    together = _report(pytester)["targets"]
    # the same targets run apart, replaying the same recordings
    for name in ("today", "cheap"):
        pytester.runpytest_inprocess(
            *ARGS, f"--jsonmatch-targets={name}", f"--jsonmatch-report={name}.json"
        )
    assert (models["today"].total, models["cheap"].total) == (4, 4)
    diff = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest_jsonmatch",
            "diff",
            "today.json",
            "cheap.json",
            "--format",
            "json",
            "--max-drop",
            "1",
        ],
        cwd=pytester.path,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert diff.returncode == 0, diff.stderr
    apart = json.loads(diff.stdout)["baseline"]
    cheap = together["runs"][1]
    assert together["reference"] == "today" and together["gated"] is True
    assert cheap["name"] == "cheap" and together["shared"] == [
        f"inv.jsonmatch.yaml::c{i}" for i in range(1, 5)
    ]
    # per case cheap - today: c1 -.5, c2 0, c3 -.5, c4 -.5 -> mean -.375; deviations
    # -.125, .375, -.125, -.125: squares .0625 + .140625 + .015625 * 2 = .1875... / 3 = .0625,
    # s = .25, SE = .125; pass->fail c1, c3, c4 (3), fail->pass 0: McNemar 2 * (1/2)^3 = .25
    assert cheap["difference"]["mean"] == pytest.approx(-0.375)
    assert cheap["difference"]["se"] == pytest.approx(0.125)
    assert (cheap["pass_to_fail"], cheap["fail_to_pass"], cheap["mcnemar_p"]) == (3, 0, 0.25)
    assert cheap["difference"] == apart["difference"]
    assert (cheap["pass_to_fail"], cheap["fail_to_pass"], cheap["mcnemar_p"]) == (
        apart["pass_to_fail"],
        apart["fail_to_pass"],
        apart["mcnemar_p"],
    )
    assert (cheap["better"], cheap["worse"], cheap["same"]) == (0, 3, 1)
    # per field: vendor 1 -> 1, 0, 1, 0... cheap's vendor .25 against 1.0; total alike
    fields = {f["path"]: f for f in together["fields"]}
    assert fields["vendor"]["scores"] == [1.0, 0.25] and fields["total"]["scores"] == [1.0, 1.0]
    (vendor_apart,) = [d for g in apart["groups"].values() for p, d in g.items() if p == "vendor"]
    assert fields["vendor"]["differences"][1] == vendor_apart["difference"]
    # the cases where they disagree most, largest spread first, ties by case id
    assert [(d["case_id"], d["spread"]) for d in together["disagreements"]] == [
        ("inv.jsonmatch.yaml::c1", 0.5),
        ("inv.jsonmatch.yaml::c3", 0.5),
        ("inv.jsonmatch.yaml::c4", 0.5),
    ]
    # compare-runs of the one report gives the same numbers as of the two runs apart
    from pytest_jsonmatch.reporting.verdicts.report import load_report
    from pytest_jsonmatch.reporting.verdicts.runs import Run, compare_runs
    from pytest_jsonmatch.reporting.verdicts.versus import runs_of_report

    one = compare_runs(runs_of_report(load_report(pytester.path / "r.json"), "r.json"))
    two = compare_runs(
        [Run(n, n, load_report(pytester.path / f"{n}.json")) for n in ("today", "cheap")]
    )
    for key in ("shared", "fields", "disagreements"):
        assert one[key] == two[key] == together[key], key
    assert [r["difference"] for r in one["runs"]] == [r["difference"] for r in two["runs"]]
    # and their calls' figures, though each run apart keys its cases without the [target]
    assert (
        [r["usage"] for r in two["runs"]]
        == [r["usage"] for r in together["runs"]]
        == [
            {"input_tokens": 400.0, "output_tokens": 40.0, "cost": pytest.approx(0.008)},
            {"input_tokens": 160.0, "output_tokens": 20.0, "cost": pytest.approx(0.002)},
        ]
    )
    assert [r["latency"]["count"] for r in two["runs"]] == [4, 4]


def test_each_target_has_its_share_of_answers_valid_against_the_schema(pytester, models):
    # the schema wants a vendor starting with a capital: cheap's "acme" (c1, c3) and "zeta"
    # (c4) break it; today's four answers are valid
    _suite(pytester, models, "jsonmatch_reference = today\n")
    write(
        pytester,
        "inv.jsonmatch.yaml",
        "schema:\n  type: object\n  properties:\n"
        "    vendor: {type: string, pattern: '^[A-Z]'}\n" + CASES.split("  - id: given")[0],
    )
    result = _run(pytester)
    result.assert_outcomes(passed=5, failed=3)
    runs = {r["name"]: r for r in _report(pytester)["targets"]["runs"]}
    assert runs["today"]["valid"] == {"checked": 4, "valid": 4}
    assert runs["cheap"]["valid"] == {"checked": 4, "valid": 1}
    assert re.search(
        r"^cheap\s+0\s+3\s+1\s+3/0 \(p 0\.250\)\s+1/4$", result.stdout.str(), re.MULTILINE
    ), result.stdout.str()


def test_the_gate_holds_the_candidate_to_the_reference_and_says_which_rule_failed(pytester, models):
    # a case may drop by .5 (so none fails that rule); cheap's p95 must stay within 0.05 s
    # (each of its calls takes CHEAP_DELAY, 0.1 s, at least), its total cost at most 0.001
    # (it is 0.002)
    _suite(
        pytester,
        models,
        "jsonmatch_reference = today latency_p95=0.05s cost=0.001\njsonmatch_gates = max_case_drop=0.5\n",
    )
    result = _run(pytester)
    assert result.ret == 1
    gates = _report(pytester)["gates"]
    failures = gates["failures"]
    assert any(
        f.startswith("target cheap against today: latency p95 ")
        and f.endswith(" s is above 0.050 s (jsonmatch_reference latency_p95=0.05s)")
        for f in failures
    ), failures
    assert (
        "target cheap against today: total cost 0.00200 is above 0.00100 "
        "(jsonmatch_reference cost=0.001)" in failures
    )
    # -.375 over 4 cases: the interval (3.18245 * .125 = .3978 wide each way) includes zero,
    # so the mean rule warns, naming the rule, rather than fails
    assert any(
        w.startswith("target cheap against today: overall score dropped by 0.3750")
        and "may be noise" in w
        for w in gates["warnings"]
    ), gates["warnings"]
    assert (
        "target cheap against today: case regressions: no shared case of 4 dropped by "
        "more than jsonmatch_gates max_case_drop 0.5000" in gates["checked"]
    )
    out = result.stdout.str()
    assert "FAILED: jsonmatch gates: 2 failures" in out
    assert "targets, each held to today over 4 shared cases" in out

    # per case, at the default (no drop allowed): the three cases cheap got worse fail the
    # run, each named with its target, and the report marks them; a p95 within 100 times
    # today's (at least TODAY_DELAY, 0.05 s: 5 s) passes, saying so
    pytester.makeini(TARGETS + "jsonmatch_reference = today latency_p95=100x\n")
    _run(pytester).assert_outcomes(passed=6, failed=3)
    gates = _report(pytester)["gates"]
    assert any(
        c.startswith("target cheap against today: latency p95 ")
        and "(100x the reference's" in c
        and c.endswith("(jsonmatch_reference latency_p95=100x)")
        for c in gates["checked"]
    ), gates["checked"]
    assert {b["case_id"] for b in gates["blocked"]} == {
        f"inv.jsonmatch.yaml::c{i}[cheap]" for i in (1, 3, 4)
    }
    assert (
        "target cheap against today: case inv.jsonmatch.yaml::c1 (inv.jsonmatch.yaml:3) "
        "dropped from 1.0000 to 0.5000, by more than jsonmatch_gates max_drop 0.0000"
        in gates["failures"]
    )


def test_without_a_reference_the_targets_are_compared_and_not_gated(pytester, models):
    _suite(pytester, models, "jsonmatch_gates = fail_under=0.8\n")
    result = _run(pytester)
    report = _report(pytester)
    assert report["targets"]["reference"] == "today" and report["targets"]["gated"] is False
    # each target's own overall is held to fail_under: cheap's (1 + .5 * 3) / 4 = .625
    assert (
        "target cheap: overall score 0.6250 is below jsonmatch_gates fail_under 0.8000"
        in report["gates"]["failures"]
    )
    assert (
        "target today: overall score 1.0000 is at least jsonmatch_gates fail_under 0.8000"
        in report["gates"]["checked"]
    )
    assert not any("against" in m for m in report["gates"]["failures"])
    assert "targets, each against today over 4 shared cases" in result.stdout.str()


def test_a_hook_can_serve_a_named_target(pytester, models):
    write(pytester, "inv.jsonmatch.yaml", CASES)
    pytester.makeconftest("""
        def pytest_jsonmatch_target(case, config, target):
            if target == "echo":
                return dict(case.input)
            return {"vendor": "?", "total": 0}
    """)
    pytester.makeini("[pytest]\njsonmatch_targets =\n    echo\n    blank\n")
    result = _run(pytester)
    # echo is right everywhere (4 + given); blank's vendor and total are both wrong: 0.0 x 4
    result.assert_outcomes(passed=5, failed=4)
    assert _report(pytester)["targets"]["runs"][1]["overall"] == 0.0


@pytest.mark.parametrize(
    ("ini", "flags", "message"),
    [
        (
            "jsonmatch_targets = today = models:today\n",
            ("--jsonmatch-targets=todya",),
            "--jsonmatch-targets: no target 'todya' is declared in jsonmatch_targets (did you mean "
            "'today'?); declared: today",
        ),
        (
            "jsonmatch_targets = today = models:today\njsonmatch_reference = cheap\n",
            (),
            "jsonmatch_reference: no target 'cheap' is declared in jsonmatch_targets; declared: today",
        ),
        (
            "jsonmatch_targets = today = models:today\njsonmatch_target = models:today\n",
            (),
            "jsonmatch_target and jsonmatch_targets are both set",
        ),
        (
            "jsonmatch_targets = to day = models:today\n",
            (),
            "jsonmatch_targets: 'to day = models:today': a line is 'NAME = package.module:function'",
        ),
        (
            "jsonmatch_targets = today = models:today concurrency=0\n",
            (),
            "jsonmatch_targets: target 'today': concurrency",
        ),
        (
            "jsonmatch_targets = today = models:nothing\n",
            (),
            "jsonmatch_targets: target 'today' 'models:nothing': module 'models' has no 'nothing'",
        ),
        (
            "jsonmatch_targets = today = models:today\njsonmatch_reference = today cost=cheap\n",
            (),
            "jsonmatch_reference: cost must be a ratio of the reference's (1.2x) or a number",
        ),
        (
            "",
            ("--jsonmatch-targets=today",),
            "--jsonmatch-targets selects targets of jsonmatch_targets, which declares none",
        ),
    ],
)
def test_a_mistake_in_the_target_settings_stops_the_session_naming_it(
    pytester, models, ini, flags, message
):
    _suite(pytester, models)
    pytester.makeini("[pytest]\npythonpath = .\n" + ini)
    result = _run(pytester, *flags)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert message in result.stderr.str(), result.stderr.str()


def test_the_html_report_has_a_case_by_target_matrix_sorted_by_disagreement(pytester, models):
    from tests.cli.test_browser import offline_browser

    # c2 is lowered by no target; make cheap also drop c4's total so that c4 disagrees most
    _suite(pytester, models, "jsonmatch_reference = today\n")
    write(
        pytester,
        "inv.jsonmatch.yaml",
        CASES.replace("expected: {vendor: Zeta, total: 40}", "expected: {vendor: zeta, total: 40}"),
    )
    _run(pytester, "--jsonmatch-report=r.html")
    with offline_browser() as (load, requests):
        page, problems = load(pytester.path / "r.html")
        rows = page.locator("#targets-disagreement tbody tr")
        # c4: today's Zeta is now the wrong one (.5), cheap's zeta right (1.0): spread .5,
        # as c1 and c3 (1.0 against .5); in order of spread, then case id
        assert rows.evaluate_all("rs => rs.map(r => r.dataset.case)") == [
            "inv.jsonmatch.yaml::c1",
            "inv.jsonmatch.yaml::c3",
            "inv.jsonmatch.yaml::c4",
        ]
        # sorting by cheap's column (ascending): c1 and c3 (.5) before c4 (1.0)
        page.locator("#targets-disagreement th[data-col='2']").click()
        assert (
            rows.evaluate_all("rs => rs.map(r => r.dataset.case)")[-1] == "inv.jsonmatch.yaml::c4"
        )
        assert page.locator("#targets-runs tbody tr").count() == 2
        assert page.locator("#targets h2").inner_text() == "Targets"
        assert problems == [] and all(u.startswith("file:") for u in requests)
