"""Files the plugin writes (the JSON report, which is also what a baseline is) are written to
a temporary file in the same folder and renamed into place: a failure in the middle of a
write, whatever it is, leaves the previous file intact and no temporary file behind; a
reader never sees half a file.

tests/test_plugin_report.py shows one failure (json.dump raising) and one failed rename;
this module shows how the write is done and the other ways it can be cut short, including
the process dying mid-write.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import threading

import pytest

from pytest_jsonmatch import report
from tests.helpers.timeout import GENEROUS, within

PREVIOUS = '{"previous": true}\n'
FAST = ("-p", "no:cacheprovider", "-p", "no:hypothesispytest", "-p", "no:benchmark")
ONE_TEST = """
from pytest_jsonmatch import assert_json_match

def test_one():
    assert_json_match({"a": 1, "b": 2}, {"a": 1, "b": 2}, metric="field_match", threshold=0.5)
"""


def _leftovers(folder) -> list[str]:
    return sorted(name for name in os.listdir(folder) if name.endswith(".tmp"))


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


# -- through pytest: report and baseline -----------------------------------------------------------


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


@pytest.mark.parametrize(("content", "words"), [
    ('{"overall": 0.9, "fields": {', "is not valid JSON"),
    ("", "is not valid JSON"),
    ('["not", "a", "report"]', "is not a jsonmatch report"),
], ids=["half-written", "empty", "not-a-report"])
def test_a_broken_baseline_is_a_one_line_usage_error(pytester, content, words):
    pytester.makepyfile(test_one=ONE_TEST)
    (pytester.path / "base.json").write_text(content)
    with within(GENEROUS):
        result = pytester.runpytest_inprocess(*FAST, "--jsonmatch-baseline=base.json")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    err = result.stderr.str()
    assert "Traceback" not in err + result.stdout.str()
    assert f"pytest-jsonmatch: the baseline {pytester.path / 'base.json'} {words}" in err
    assert (pytester.path / "base.json").read_text() == content  # never rewritten by a failed run


def test_a_missing_baseline_names_the_path(pytester):
    pytester.makepyfile(test_one=ONE_TEST)
    with within(GENEROUS):
        result = pytester.runpytest_inprocess(*FAST, "--jsonmatch-baseline=nowhere/base.json")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert (f"pytest-jsonmatch: cannot read the baseline {pytester.path / 'nowhere' / 'base.json'}: "
            f"No such file or directory") in result.stderr.str()


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
