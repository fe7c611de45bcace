"""A run that stops early (Ctrl-C, -x, --maxfail, a crash) says so: its report has
``run.complete`` false with why it stopped and how many of its tests ran, the summary says it
did not finish and judges no gate as passed, and its report is refused as the next run's
baseline unless the user allows a partial one (plugin/session.py, reporting/report.conclude,
reporting/baseline.load_baseline)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from tests.helpers.plugin_cases import ARGS

pytestmark = pytest.mark.slow  # (CONTRIBUTING.md: the inner loop leaves it out)

# Three comparisons that pass (score 1.0), the second test failing before its comparison
# when asked to: with -x the third never runs.
THREE = """
import os
from pytest_jsonmatch import assert_json_match

def test_a():
    assert_json_match({"a": 1}, {"a": 1})

def test_b():
    if os.environ.get("JM_STOP") == "fail":
        assert False, "stop here"
    if os.environ.get("JM_STOP") == "ctrl-c":
        raise KeyboardInterrupt
    assert_json_match({"b": 1}, {"b": 1})

def test_c():
    assert_json_match({"c": 1}, {"c": 1})
"""


def _run(pytester, monkeypatch, stop, *flags):
    pytester.makepyfile(test_three=THREE)
    if stop:
        monkeypatch.setenv("JM_STOP", stop)
    result = pytester.runpytest_inprocess(
        *ARGS,
        "--jsonmatch-report=r.json",
        "--jsonmatch-gates=fail_under=0.5",
        *flags,
        no_reraise_ctrlc=True,
    )
    return result, json.loads((pytester.path / "r.json").read_text())


def test_a_finished_run_is_complete(pytester, monkeypatch):
    result, report = _run(pytester, monkeypatch, "")
    result.assert_outcomes(passed=3)
    assert report["run"]["complete"] is True and "stopped" not in report["run"]
    assert report["gates"]["passed"] is True
    result.stdout.fnmatch_lines(["jsonmatch gates passed: overall score 1.0000 is at least *"])


@pytest.mark.parametrize("flag", ["-x", "--maxfail=1"])
def test_a_run_stopped_after_a_failure_is_partial_and_passes_no_gate(pytester, monkeypatch, flag):
    result, report = _run(pytester, monkeypatch, "fail", flag)
    result.assert_outcomes(passed=1, failed=1)
    # test_a and test_b ran; test_c, collected, never did
    assert report["run"]["complete"] is False
    assert report["run"]["stopped"] == "stopping after 1 failures: 2 of 3 tests ran"
    # the one comparison made scored 1.0, above the floor of 0.5: still no gate has passed
    assert report["overall"] == 1.0 and report["gates"]["passed"] is False
    assert report["gates"]["checked"] == []
    assert report["gates"]["failures"] == [
        "the run did not finish (stopping after 1 failures: 2 of 3 tests ran): no gate is "
        "judged as passed on a partial run"
    ]
    result.stdout.fnmatch_lines(
        [
            "FAILED: jsonmatch gates: 1 failure",
            "  the run did not finish (stopping after 1 failures: 2 of 3 tests ran)*",
        ]
    )
    result.stdout.no_fnmatch_line("jsonmatch gates passed*")


def test_ctrl_c_in_a_test_makes_a_partial_report(pytester, monkeypatch):
    result, report = _run(pytester, monkeypatch, "ctrl-c")
    assert result.ret == pytest.ExitCode.INTERRUPTED
    assert report["run"]["complete"] is False
    assert report["run"]["stopped"] == "interrupted by Ctrl-C: 1 of 3 tests ran"
    assert report["gates"]["passed"] is False


def test_a_partial_report_is_refused_as_a_baseline_unless_allowed(pytester, monkeypatch):
    _, report = _run(pytester, monkeypatch, "fail", "-x")
    (pytester.path / "partial.json").write_text(json.dumps(report))
    monkeypatch.delenv("JM_STOP")
    refused = pytester.runpytest_inprocess(*ARGS, "--jsonmatch-baseline=partial.json")
    assert refused.ret == pytest.ExitCode.USAGE_ERROR
    refused.stderr.fnmatch_lines(
        [
            "ERROR: pytest-jsonmatch: the baseline *partial.json is the report of a partial run "
            "(stopping after 1 failures: 2 of 3 tests ran): hold this run against a complete "
            "run's report, or allow a partial baseline (--jsonmatch-baseline='PATH partial'; "
            "jsonmatch diff --partial)"
        ]
    )
    allowed = pytester.runpytest_inprocess(*ARGS, "--jsonmatch-baseline=partial.json partial")
    allowed.assert_outcomes(passed=3)
    # held against the one case the partial run scored: test_a, 1.0 -> 1.0
    allowed.stdout.fnmatch_lines(["*1 shared case*"])
    # accepted on purpose, it lacks cases on purpose: 1 of 3 shared does not fail the gate
    assert allowed.ret == 0
    # jsonmatch diff refuses it the same way, and takes it with --partial (issue 51)
    (pytester.path / "new.json").write_text(json.dumps(_run(pytester, monkeypatch, "")[1]))

    def diff(*flags: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "pytest_jsonmatch", "diff", "partial.json", "new.json", *flags],
            cwd=pytester.path,
            capture_output=True,
            text=True,
            timeout=60,
        )

    refused_diff = diff()
    assert refused_diff.returncode == 2
    assert "is the report of a partial run" in refused_diff.stderr
    assert "jsonmatch diff --partial" in refused_diff.stderr
    taken = diff("--partial")
    assert taken.returncode == 0, taken.stdout + taken.stderr
    assert "1 case shared" in taken.stdout


def test_a_stopped_run_under_xdist_is_partial(pytester, monkeypatch):
    # the controller counts the tests whose reports reached it
    result, report = _run(pytester, monkeypatch, "fail", "-n", "1", "-x")
    assert report["run"]["complete"] is False
    assert report["run"]["stopped"].endswith("of 3 tests ran")
    assert report["gates"]["passed"] is False


@pytest.mark.parametrize(
    "setting",
    [
        "--jsonmatch-baseline=my reports/base.json",  # a path with spaces, as it is
        '--jsonmatch-baseline="my reports/base.json"',  # quoted as a shell quotes it
        "--jsonmatch-baseline=my reports/partial run.json partial",  # and the partial word
        "--jsonmatch-baseline='my reports/partial run.json' partial",
    ],
)
def test_a_baseline_path_with_spaces_is_read(pytester, monkeypatch, setting):
    _, report = _run(pytester, monkeypatch, "")
    folder = pytester.path / "my reports"
    folder.mkdir()
    (folder / "base.json").write_text(json.dumps(report))
    _, partial = _run(pytester, monkeypatch, "fail", "-x")
    (folder / "partial run.json").write_text(json.dumps(partial))
    monkeypatch.delenv("JM_STOP")
    result = pytester.runpytest_inprocess(*ARGS, setting)
    assert result.ret == pytest.ExitCode.OK, result.stderr.str()
    result.stdout.fnmatch_lines(["*shared case*"])


def test_a_report_path_with_spaces_is_written_and_read_back_as_the_baseline(pytester, monkeypatch):
    pytester.makepyfile(test_three=THREE)
    written = pytester.runpytest_inprocess(*ARGS, "--jsonmatch-report=my reports/base.json")
    assert written.ret == pytest.ExitCode.OK
    result = pytester.runpytest_inprocess(*ARGS, "--jsonmatch-baseline=my reports/base.json")
    assert result.ret == pytest.ExitCode.OK, result.stderr.str()
    result.stdout.fnmatch_lines(["*3 shared cases*"])
