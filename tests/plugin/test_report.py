"""--jsonmatch-report (report.py): the JSON report's content (comparisons, metrics, fields, the
gates' verdict), written even when nothing was compared; and its atomic write. The report goes
to a temporary file in the same folder and is renamed into place, so that a failure at any
point (json.dump raising, fsync failing, an interrupt, the process dying, a failed rename, a
path that is a folder) leaves the previous report whole and no temporary file behind, and a
reader never sees half a report. A report may be written over the baseline it is compared with."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import threading

import pytest

from pytest_jsonmatch import report
from tests.helpers.plugin_cases import ARGS, ONE_TEST, TWO_TESTS
from tests.helpers.timeout import GENEROUS, within

PREVIOUS = '{"previous": true}\n'
FAST = ARGS  # the same flags, under the name some tests here were written with


def _leftovers(folder) -> list[str]:
    return sorted(name for name in os.listdir(folder) if name.endswith(".tmp"))


# -- content ----------------------------------------------------------------------------------


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


# -- atomic write -----------------------------------------------------------------------------


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


def test_the_report_goes_through_a_temporary_file_in_the_same_folder(tmp_path, monkeypatch):
    target = tmp_path / "reports" / "jsonmatch.json"
    target.parent.mkdir()
    target.write_text(PREVIOUS)
    seen = {}
    real_replace = os.replace

    def spy_replace(src, dst):
        seen["src"], seen["dst"] = os.fspath(src), os.fspath(dst)
        seen["target_then"] = target.read_text()  # the old file stays until the rename
        seen["tmp_content"] = open(src, encoding="utf-8").read()  # the new one is complete
        real_replace(src, dst)

    monkeypatch.setattr(report.os, "replace", spy_replace)
    report.write_report(target, {"overall": 0.75})
    assert os.path.dirname(seen["src"]) == os.path.dirname(seen["dst"]) == str(target.parent)
    assert seen["src"] != seen["dst"]
    assert seen["target_then"] == PREVIOUS
    assert json.loads(seen["tmp_content"]) == {"overall": 0.75}
    assert json.loads(target.read_text()) == {"overall": 0.75}
    assert _leftovers(target.parent) == []


@pytest.mark.parametrize("failure", [
    OSError(28, "No space left on device"),
    KeyboardInterrupt(),
], ids=["disk-full-at-fsync", "interrupted-at-fsync"])
def test_a_failure_at_fsync_leaves_the_previous_report_intact(tmp_path, monkeypatch, failure):
    target = tmp_path / "report.json"
    target.write_text(PREVIOUS)

    def broken_fsync(fd):
        raise failure

    monkeypatch.setattr(report.os, "fsync", broken_fsync)
    with pytest.raises(type(failure)):
        report.write_report(target, {"new": True})
    assert target.read_text() == PREVIOUS
    assert _leftovers(tmp_path) == []


def test_an_interrupt_half_way_through_the_json_leaves_the_previous_report_intact(tmp_path, monkeypatch):
    target = tmp_path / "report.json"
    target.write_text(PREVIOUS)
    real_dump = json.dump

    def interrupted_dump(data, fh, **kwargs):
        fh.write('{"comparisons": [')
        fh.flush()
        raise KeyboardInterrupt

    monkeypatch.setattr(report.json, "dump", interrupted_dump)
    with pytest.raises(KeyboardInterrupt):
        report.write_report(target, {"new": True})
    monkeypatch.setattr(report.json, "dump", real_dump)
    assert target.read_text() == PREVIOUS
    assert _leftovers(tmp_path) == []


@pytest.mark.parametrize("data", [{"overall": float("nan")}, {"fields": {"a": object()}}],
                         ids=["nan-score", "not-serialisable"])
def test_data_that_cannot_be_written_as_json_leaves_the_previous_report_intact(tmp_path, data):
    target = tmp_path / "report.json"
    target.write_text(PREVIOUS)
    with pytest.raises((ValueError, TypeError)):
        report.write_report(target, data)
    assert target.read_text() == PREVIOUS
    assert _leftovers(tmp_path) == []


def test_the_process_dying_mid_write_leaves_the_previous_report_intact(tmp_path):
    target = tmp_path / "report.json"
    target.write_text(PREVIOUS)
    script = textwrap.dedent(f"""
        import json, os
        from pytest_jsonmatch import report

        def dying_dump(data, fh, **kwargs):
            fh.write('{{"comparisons": [' + '{{"nodeid": "x"}}, ' * 10000)
            fh.flush()
            os._exit(9)  # no cleanup, no finally: the machine lost power

        report.json.dump = dying_dump
        report.write_report({str(target)!r}, {{"new": True}})
    """)
    with within(GENEROUS, "a dying writer"):
        done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                              timeout=GENEROUS)
    assert done.returncode == 9, done.stderr
    assert target.read_text() == PREVIOUS  # a stale temporary file may remain; the report is whole


def test_a_reader_never_sees_half_a_report(tmp_path):
    target = tmp_path / "report.json"
    big = {"comparisons": [{"nodeid": f"t{i}", "score": i / 3000} for i in range(3000)]}
    report.write_report(target, {"round": -1, **big})
    stop = threading.Event()
    bad: list[str] = []

    def read() -> None:
        while not stop.is_set():
            text = target.read_text()
            try:
                json.loads(text)
            except ValueError:
                bad.append(text[-80:])

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    with within(GENEROUS, "writing 30 reports"):
        for round_ in range(30):
            report.write_report(target, {"round": round_, **big})
    stop.set()
    reader.join(GENEROUS)
    assert bad == []
    assert json.loads(target.read_text())["round"] == 29
    assert _leftovers(tmp_path) == []


# -- through pytest: over its own baseline, onto a folder -------------------------------------


def test_a_report_written_over_its_own_baseline_is_read_first_then_replaced_whole(pytester):
    pytester.makepyfile(test_one=ONE_TEST)
    with within(GENEROUS):
        first = pytester.runpytest_inprocess(*FAST, "--jsonmatch-report=r.json")
    first.assert_outcomes(passed=1)
    with within(GENEROUS):
        second = pytester.runpytest_inprocess(*FAST, "--jsonmatch-report=r.json", "--jsonmatch-baseline=r.json")
    second.assert_outcomes(passed=1)
    assert second.ret == pytest.ExitCode.OK
    data = json.loads((pytester.path / "r.json").read_text())
    assert data["baseline"]["overall_delta"] == 0.0
    assert _leftovers(pytester.path) == []


def test_a_report_path_that_is_a_folder_fails_the_session_without_touching_it(pytester):
    pytester.makepyfile(test_one=ONE_TEST)
    folder = pytester.path / "out"
    folder.mkdir()
    (folder / "keep.txt").write_text("keep")
    with within(GENEROUS):
        result = pytester.runpytest_inprocess(*FAST, "--jsonmatch-report=out")
    result.assert_outcomes(passed=1)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    assert "Traceback" not in result.stdout.str()
    result.stdout.fnmatch_lines([f"FAILED: could not write the report {folder}: *"])
    assert sorted(os.listdir(folder)) == ["keep.txt"]
    assert _leftovers(pytester.path) == []
