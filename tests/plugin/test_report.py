"""--jsonmatch-report: the JSON report's content, and its atomic write."""

from __future__ import annotations

import json
import os

import pytest

import pytest_jsonmatch.engine  # noqa: F401  loaded once here, not again in every in-process run
from pytest_jsonmatch import report
from tests.helpers.plugin_cases import ARGS, TWO_TESTS




def test_report_holds_comparisons_metrics_fields_and_overall(pytester):
    pytester.makepyfile(test_two=TWO_TESTS)
    result = pytester.runpytest_inprocess(*ARGS, "--jsonmatch-report=out/report.json")
    result.assert_outcomes(passed=1, failed=1)
    path = pytester.path / "out" / "report.json"
    result.stdout.fnmatch_lines([f"report written to {path}"])
    data = json.loads(path.read_text())
    third = pytest.approx(1 / 3)
    # test_fail: a match, b mismatch, d omission, c hallucination: TP 1 over 3 on each side
    # test_pass: both fields match: 1.  Overall and means: (1/3 + 1) / 2 = 2/3
    assert data["overall"] == pytest.approx(2 / 3)
    assert data["count"] == 2
    fail, ok = data["comparisons"]  # sorted by test id
    assert (fail["nodeid"], fail["metric"], fail["score"], fail["threshold"], fail["passed"]) == (
        "test_two.py::test_fail", "field_f1", third, 0.9, False)
    assert (ok["nodeid"], ok["score"], ok["threshold"], ok["passed"]) == (
        "test_two.py::test_pass", 1.0, 1.0, True)
    assert sorted((f["path"], f["field_path"], f["status"], f["score"]) for f in fail["fields"]) == [
        ("a", "a", "match", 1.0), ("b", "b", "mismatch", 0.0),
        ("c", "c", "hallucination", 0.0), ("d", "d", "omission", 0.0)]
    assert data["metrics"] == {"field_f1": {
        "count": 2, "passed": 1, "failed": 1, "mean_score": pytest.approx(2 / 3),
        "precision": pytest.approx(2 / 3), "recall": pytest.approx(2 / 3), "f1": pytest.approx(2 / 3)}}
    assert data["fields"]["a"] == {"mean_score": 1.0, "score_sum": 2.0, "scored": 2, "match": 2,
                                   "mismatch": 0, "omission": 0, "hallucination": 0}
    assert data["fields"]["b"]["mean_score"] == 0.5  # (1 + 0) / 2
    assert (data["fields"]["c"]["hallucination"], data["fields"]["d"]["omission"]) == (1, 1)
    assert data["gates"] == {"passed": True, "failures": []}


def test_report_is_written_when_nothing_was_compared(pytester):
    pytester.makepyfile("def test_plain(): pass")
    assert pytester.runpytest_inprocess(*ARGS, "--jsonmatch-report=r.json").ret == 0
    data = json.loads((pytester.path / "r.json").read_text())
    assert (data["count"], data["overall"], data["comparisons"], data["fields"]) == (0, None, [], {})


def test_report_records_gate_failures(pytester):
    pytester.makepyfile(test_two=TWO_TESTS)
    pytester.runpytest_inprocess(*ARGS, "--jsonmatch-report=r.json", "--jsonmatch-fail-under=0.9")
    gates = json.loads((pytester.path / "r.json").read_text())["gates"]
    assert gates == {"passed": False,
                     "failures": ["overall score 0.6667 is below jsonmatch_fail_under 0.9000"]}


def test_a_failure_while_writing_leaves_the_previous_report_intact(tmp_path, monkeypatch):
    target = tmp_path / "report.json"
    target.write_text('{"previous": true}')

    def broken_dump(data, fh, **kwargs):
        fh.write('{"half": ')
        raise RuntimeError("disk on fire")

    monkeypatch.setattr(report.json, "dump", broken_dump)
    with pytest.raises(RuntimeError, match="disk on fire"):
        report.write_report(target, {"new": True})
    assert target.read_text() == '{"previous": true}'
    assert os.listdir(tmp_path) == ["report.json"]  # no temporary file left behind


def test_a_failed_replace_fails_the_session_and_keeps_the_old_report(pytester, monkeypatch):
    target = pytester.path / "report.json"
    target.write_text('{"previous": true}')
    pytester.makepyfile(test_two=TWO_TESTS.replace("threshold=0.9", "threshold=0"))

    def broken_replace(src, dst):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(report.os, "replace", broken_replace)
    result = pytester.runpytest_inprocess(*ARGS, "--jsonmatch-report=report.json")
    monkeypatch.undo()
    result.assert_outcomes(passed=2)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines([f"FAILED: could not write the report {target}: *No space left*"])
    assert target.read_text() == '{"previous": true}'
    assert sorted(p.name for p in pytester.path.iterdir() if p.name.startswith(".report")) == []


def test_write_report_replaces_the_file_whole(tmp_path):
    target = tmp_path / "r.json"
    target.write_text("old")
    report.write_report(target, {"overall": 0.5})
    assert json.loads(target.read_text()) == {"overall": 0.5}
