"""Quarantined cases in real sessions (jsonmatch_quarantine), on a fixed clock
(JSONMATCH_TODAY): a quarantined case runs and is reported, but neither its test nor any gate
counts it through its date; from the day after, it gates again and the summary says so. An
entry that names no case is said; a malformed entry stops pytest with one line naming it. The
quarantine holds under xdist workers and through shards merged by ``jsonmatch merge``."""

from __future__ import annotations

import json

import pytest

from pytest_jsonmatch.cli.app import main
from tests.helpers.plugin_cases import ARGS

pytestmark = pytest.mark.slow  # (CONTRIBUTING.md: the inner loop leaves it out)

CASES = """
threshold: 1
cases:
  - {id: good, expected: {a: 1, b: 1}, actual: {a: 1, b: 1}}
  - {id: bad, expected: {a: 1, b: 1}, actual: {a: 1, b: 2}}
"""
# field_f1: good scores 1.0; bad matches a and misses b: precision 1/2, recall 1/2, F1 0.5.
# Every case gating: overall (1.0 + 0.5) / 2 = 0.75. bad quarantined: good alone, 1.0.
BAD = "c.jsonmatch.yaml::bad"
QUARANTINE = f"""
- case: {BAD}
  reason: the model flips b, ticket 12
  until: 2026-11-30
"""
INI = "[pytest]\njsonmatch_quarantine = q.yaml\njsonmatch_gates = fail_under=0.9\n"


def _suite(pytester, quarantine=QUARANTINE, ini=INI):
    pytester.makefile(".jsonmatch.yaml", c=CASES)
    (pytester.path / "q.yaml").write_text(quarantine)
    pytester.makeini(ini)


def _report(pytester, name="r.json"):
    return json.loads((pytester.path / name).read_text())


def test_a_quarantined_case_is_reported_but_gates_nothing_through_its_date(pytester, monkeypatch):
    _suite(pytester)
    monkeypatch.setenv("JSONMATCH_TODAY", "2026-11-30")  # its last day: "until" is inclusive
    result = pytester.runpytest_inprocess(*ARGS, "--jsonmatch-report=r.json")
    result.stdout.fnmatch_lines(
        [
            f"*quarantined until 2026-11-30, gates nothing: {BAD} (the model flips b, ticket 12)",
            "*overall score 1.0000 is at least jsonmatch_gates fail_under 0.9000*",
        ]
    )
    assert result.ret == 0  # its test does not fail either
    report = _report(pytester)
    assert report["overall"] == 1.0 and report["count"] == 1
    (case,) = [c for c in report["cases"] if c["case_id"] == BAD]
    assert case["status"] == "failed" and case["mean_score"] == 0.5
    quarantine = {"reason": "the model flips b, ticket 12", "until": "2026-11-30"}
    assert case["quarantine"] == quarantine
    (comparison,) = [c for c in report["comparisons"] if c["case_id"] == BAD]
    assert comparison["quarantine"] == quarantine
    assert report["run"]["provenance"]["quarantine"]["today"] == "2026-11-30"


def test_from_the_day_after_its_date_the_case_gates_again_and_the_summary_says_so(
    pytester, monkeypatch
):
    _suite(pytester)
    monkeypatch.setenv("JSONMATCH_TODAY", "2026-12-01")
    result = pytester.runpytest_inprocess(*ARGS, "--jsonmatch-report=r.json")
    result.stdout.fnmatch_lines(
        [
            f"*quarantine expired on 2026-11-30: {BAD} gates again; remove the entry or "
            f"extend it (q.yaml, entry 1 ({BAD}))",
            "*overall score 0.7500 is below jsonmatch_gates fail_under 0.9000",
        ]
    )
    assert result.ret == 1
    report = _report(pytester)
    assert report["overall"] == 0.75 and report["count"] == 2
    assert not any("quarantine" in c for c in report["cases"])


def test_an_entry_naming_no_case_is_said_and_a_partial_run_says_not_collected(
    pytester, monkeypatch
):
    _suite(
        pytester, QUARANTINE + "- {case: c.jsonmatch.yaml::gone, reason: r, until: 2027-01-01}\n"
    )
    monkeypatch.setenv("JSONMATCH_TODAY", "2026-11-25")
    whole = pytester.runpytest_inprocess(*ARGS, "-v")
    whole.stdout.fnmatch_lines(
        ["*quarantine entry 'c.jsonmatch.yaml::gone' names no case (q.yaml, entry 2 (*))"]
    )
    part = pytester.runpytest_inprocess(*ARGS, "-v", "-k", "good")
    part.stdout.fnmatch_lines(
        [
            f"*quarantine entry '{BAD}' not collected in this run (q.yaml, entry 1 (*))",
            "*quarantine entry 'c.jsonmatch.yaml::gone' not collected in this run*",
        ]
    )


@pytest.mark.parametrize(
    ("entry", "said"),
    [
        (f"- {{case: {BAD}, until: 2026-11-30}}", "'reason' must say why"),
        (f"- {{case: {BAD}, reason: '  ', until: 2026-11-30}}", "'reason' must say why"),
        (f"- {{case: {BAD}, reason: r}}", "'until' is missing"),
        (f"- {{case: {BAD}, reason: r, until: 2026-13-01}}", "'until' must be a date YYYY-MM-DD"),
        (f"- {{case: {BAD}, reason: r, until: tomorrow}}", "'until' must be a date YYYY-MM-DD"),
        (f"- {{case: {BAD}, reason: r, untill: 2026-11-30}}", "unknown key 'untill'"),
        ("- {reason: r, until: 2026-11-30}", "'case' must name a case id"),
        ("case: x", "the file holds a list of entries"),
    ],
)
def test_a_malformed_entry_stops_pytest_with_one_line_naming_file_and_entry(pytester, entry, said):
    _suite(pytester, entry + "\n")
    result = pytester.runpytest_inprocess(*ARGS)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    errors = [line for line in result.stderr.lines if "jsonmatch_quarantine" in line]
    assert len(errors) == 1 and said in errors[0] and "q.yaml" in errors[0]
    assert "Traceback" not in result.stderr.str() and "INTERNALERROR" not in result.stdout.str()


def test_a_bad_today_variable_is_a_usage_error(pytester, monkeypatch):
    _suite(pytester)
    monkeypatch.setenv("JSONMATCH_TODAY", "25/11/2026")
    result = pytester.runpytest_inprocess(*ARGS)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*JSONMATCH_TODAY: '25/11/2026' is not a date YYYY-MM-DD*"])


def test_a_fifo_or_a_file_outside_the_root_is_refused(pytester, tmp_path_factory):
    import os

    _suite(pytester)
    (pytester.path / "q.yaml").unlink()
    os.mkfifo(pytester.path / "q.yaml")
    result = pytester.runpytest_inprocess(*ARGS)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*jsonmatch_quarantine 'q.yaml' is not a regular file (a FIFO)*"])
    outside = tmp_path_factory.mktemp("elsewhere") / "q.yaml"
    outside.write_text(QUARANTINE)
    (pytester.path / "q.yaml").unlink()
    os.symlink(outside, pytester.path / "q.yaml")
    result = pytester.runpytest_inprocess(*ARGS)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        ["*jsonmatch_quarantine: q.yaml: the file is outside the test root*"]
    )


def test_xdist_workers_and_merged_shards_hold_the_quarantine(pytester, monkeypatch):
    _suite(pytester)
    monkeypatch.setenv("JSONMATCH_TODAY", "2026-11-25")
    whole = pytester.runpytest_inprocess(*ARGS, "--jsonmatch-report=whole.json")
    spread = pytester.runpytest_subprocess(*ARGS, "-n", "2", "--jsonmatch-report=spread.json")
    assert whole.ret == spread.ret == 0
    expected = _report(pytester, "whole.json")
    assert _report(pytester, "spread.json")["cases"] == expected["cases"]
    paths = []
    for i, selection in enumerate(["good", "bad"], 1):
        pytester.runpytest_inprocess(
            *ARGS, "-k", selection, f"--jsonmatch-shard={i}/2", f"--jsonmatch-report=s{i}.json"
        )
        paths.append(str(pytester.path / f"s{i}.json"))
    out = str(pytester.path / "merged.json")
    assert main(["merge", *paths, "-o", out]) == 0
    merged = json.loads(open(out).read())
    assert merged["cases"] == expected["cases"] and merged["overall"] == 1.0
    # a shard that judged its dates on another day is another run's
    monkeypatch.setenv("JSONMATCH_TODAY", "2026-12-01")
    pytester.runpytest_inprocess(
        *ARGS, "-k", "bad", "--jsonmatch-shard=2/2", "--jsonmatch-report=s2.json"
    )
    assert main(["merge", *paths, "-o", out]) != 0
