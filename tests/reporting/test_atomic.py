"""Atomic writes (atomic.py, used for the JSON report, Markdown summaries, case files and
recordings): the content goes to a temporary file in the same folder and is renamed into
place, so that a failure at any point (an exception while writing, fsync failing, an
interrupt, the process dying, a failed rename) leaves the previous file whole and no
temporary file behind, and a reader never sees half a file. The new file gets the
permissions a plain write would; a writer's leftovers after it was killed are removed by the
next write. A path that is no regular file (a device, a named pipe) is written through, and
a symbolic link stays a link to the file written."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
import textwrap
import threading

import pytest

from pytest_jsonmatch.reporting.run_model import atomic, spool
from pytest_jsonmatch.reporting.verdicts import report
from tests.helpers.plugin_cases import ARGS, TWO_TESTS
from tests.helpers.timeout import GENEROUS, within

PREVIOUS = '{"previous": true}\n'
# a report with nothing in it: what write_report takes (its cases, comparisons and gates)
EMPTY = {"cases": [], "comparisons": [], "gates": {}}
# and what it then holds on disk besides the keys given (comparisons' tables of heads)
STORED = {"cases": [], "comparisons": [], "field_heads": [[]], "gates": {}}


def _leftovers(folder) -> list[str]:
    return sorted(name for name in os.listdir(folder) if name.endswith(".tmp"))


# -- atomic write -----------------------------------------------------------------------------


def test_a_failure_while_writing_leaves_the_previous_report_intact(tmp_path, monkeypatch):
    target = tmp_path / "report.json"
    target.write_text('{"previous": true}')

    def broken_line(value):
        raise RuntimeError("disk on fire")

    # the report's head is written before its first case's line fails
    monkeypatch.setattr(spool, "json_line", broken_line)
    new = {"version": 4, "cases": [{"case_id": "a"}], "comparisons": [], "gates": {}}
    with pytest.raises(RuntimeError, match="disk on fire"):
        report.write_report(target, new)
    assert target.read_text() == '{"previous": true}'
    assert os.listdir(tmp_path) == ["report.json"]  # no temporary file left behind


def test_a_failed_replace_fails_the_session_and_keeps_the_old_report(pytester, monkeypatch):
    target = pytester.path / "report.json"
    target.write_text('{"previous": true}')
    pytester.makepyfile(test_two=TWO_TESTS.replace("threshold=0.9", "threshold=0"))

    def broken_replace(src, dst):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(atomic.os, "replace", broken_replace)
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
    report.write_report(target, {**EMPTY, "overall": 0.5})
    assert json.loads(target.read_text()) == {**STORED, "overall": 0.5}


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

    monkeypatch.setattr(atomic.os, "replace", spy_replace)
    report.write_report(target, {**EMPTY, "overall": 0.75})
    assert os.path.dirname(seen["src"]) == os.path.dirname(seen["dst"]) == str(target.parent)
    assert seen["src"] != seen["dst"]
    assert seen["target_then"] == PREVIOUS
    assert json.loads(seen["tmp_content"]) == {**STORED, "overall": 0.75}
    assert json.loads(target.read_text()) == {**STORED, "overall": 0.75}
    assert _leftovers(target.parent) == []


@pytest.mark.parametrize(
    "failure",
    [
        OSError(28, "No space left on device"),
        KeyboardInterrupt(),
    ],
    ids=["disk-full-at-fsync", "interrupted-at-fsync"],
)
def test_a_failure_at_fsync_leaves_the_previous_report_intact(tmp_path, monkeypatch, failure):
    target = tmp_path / "report.json"
    target.write_text(PREVIOUS)

    def broken_fsync(fd):
        raise failure

    monkeypatch.setattr(atomic.os, "fsync", broken_fsync)
    with pytest.raises(type(failure)):
        report.write_report(target, {**EMPTY, "new": True})
    assert target.read_text() == PREVIOUS
    assert _leftovers(tmp_path) == []


def test_an_interrupt_half_way_through_the_json_leaves_the_previous_report_intact(
    tmp_path, monkeypatch
):
    target = tmp_path / "report.json"
    target.write_text(PREVIOUS)

    def interrupted_line(value):
        raise KeyboardInterrupt

    # the report's head is written, then its first case's line is interrupted
    monkeypatch.setattr(spool, "json_line", interrupted_line)
    with pytest.raises(KeyboardInterrupt):
        report.write_report(target, {**EMPTY, "cases": [{"case_id": "x"}]})
    monkeypatch.undo()
    assert target.read_text() == PREVIOUS
    assert _leftovers(tmp_path) == []


@pytest.mark.parametrize(
    "data",
    [{**EMPTY, "overall": float("nan")}, {**EMPTY, "fields": {"a": object()}}],
    ids=["nan-score", "not-serialisable"],
)
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
        from pytest_jsonmatch.reporting.verdicts import report

        from pytest_jsonmatch.reporting.run_model import spool

        def dying_line(value):
            # (the report's head is written before its first case's line)
            os._exit(9)  # no cleanup, no finally: the machine lost power

        spool.json_line = dying_line
        report.write_report({str(target)!r}, {{"new": True, "cases": [{{"case_id": "x"}}], "comparisons": [], "gates": {{}}}})
    """)
    with within(GENEROUS, "a dying writer"):
        done = subprocess.run(
            [sys.executable, "-c", script], capture_output=True, text=True, timeout=GENEROUS
        )
    assert done.returncode == 9, done.stderr
    assert target.read_text() == PREVIOUS  # a stale temporary file may remain; the report is whole


def test_a_reader_never_sees_half_a_report(tmp_path):
    target = tmp_path / "report.json"
    big = {
        "comparisons": [
            {"nodeid": f"t{i}", "score": i / 3000, "fields": [], "case_id": f"t{i}"}
            for i in range(3000)
        ]
    }
    report.write_report(target, {**EMPTY, "round": -1, **big})
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
            report.write_report(target, {**EMPTY, "round": round_, **big})
    stop.set()
    reader.join(GENEROUS)
    assert bad == []
    assert json.loads(target.read_text())["round"] == 29
    assert _leftovers(tmp_path) == []


def test_a_written_file_gets_the_permissions_a_plain_write_would(tmp_path):
    target = tmp_path / "r.json"
    previous = os.umask(0o027)
    try:
        report.write_report(target, {**EMPTY, "a": 1})
        plain = tmp_path / "plain.txt"
        plain.write_text("x")
    finally:
        os.umask(previous)
    assert (target.stat().st_mode & 0o777) == (plain.stat().st_mode & 0o777) == 0o640


def test_the_next_write_removes_what_a_killed_writer_left(tmp_path):
    target = tmp_path / "report.json"
    target.write_text(PREVIOUS)
    script = textwrap.dedent(f"""
        import os
        from pytest_jsonmatch.reporting.verdicts import report

        from pytest_jsonmatch.reporting.run_model import spool

        def dying_line(value):
            os._exit(9)  # the report's head written, its first case's line not

        spool.json_line = dying_line
        report.write_report({str(target)!r}, {{"new": True, "cases": [{{"case_id": "x"}}], "comparisons": [], "gates": {{}}}})
    """)
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=GENEROUS
    )
    assert done.returncode == 9, done.stderr
    assert len(_leftovers(tmp_path)) == 1  # the dead writer's temporary file
    report.write_report(target, {**EMPTY, "round": 2})
    assert _leftovers(tmp_path) == []
    assert json.loads(target.read_text()) == {**STORED, "round": 2}


def test_a_live_writer_s_temporary_file_is_left_alone(tmp_path):
    target = tmp_path / "report.json"
    entered, release = threading.Event(), threading.Event()

    def slow(fh):
        fh.write("{")
        entered.set()
        release.wait(GENEROUS)
        fh.write("}")

    writer = threading.Thread(target=atomic.write_atomic, args=(target, slow), daemon=True)
    writer.start()
    assert entered.wait(GENEROUS)
    report.write_report(target, {**EMPTY, "other": True})  # does not remove the busy writer's file
    release.set()
    writer.join(GENEROUS)
    assert target.read_text() == "{}"  # the slow writer finished last, whole
    assert _leftovers(tmp_path) == []


# -- what is not a regular file -------------------------------------------------------------


def _read_in_thread(path) -> tuple[threading.Thread, list[str]]:
    """A reader of the named pipe ``path``, waiting for a writer in a thread of its own."""
    got: list[str] = []

    def read() -> None:
        with open(path, encoding="utf-8") as fh:
            got.append(fh.read())

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    return reader, got


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="named pipes are POSIX's")
def test_a_named_pipe_is_written_through_not_replaced_by_a_file(tmp_path):
    # ``-o /dev/null``, ``-o /dev/stdout`` or a pipe: renaming a file over the path would put
    # a file where the device or the pipe was (as root, /dev/null itself); the pipe here
    # stands for them all, so that a regression cannot harm the machine running the test
    pipe = tmp_path / "pipe"
    os.mkfifo(pipe)
    reader, got = _read_in_thread(pipe)
    with within(GENEROUS):
        atomic.write_atomic(pipe, lambda fh: fh.write("through the pipe\n"))
    reader.join(GENEROUS)
    assert got == ["through the pipe\n"]
    assert stat.S_ISFIFO(os.lstat(pipe).st_mode)  # still the pipe
    assert _leftovers(tmp_path) == []


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="named pipes are POSIX's")
def test_the_command_line_writes_a_report_through_a_named_pipe(tmp_path):
    from pytest_jsonmatch.cli import main

    gold, pred, pipe = tmp_path / "gold.jsonl", tmp_path / "pred.jsonl", tmp_path / "out"
    gold.write_text('{"a": 1}\n{"a": 2}\n')
    pred.write_text('{"a": 1}\n{"a": 3}\n')
    os.mkfifo(pipe)
    reader, got = _read_in_thread(pipe)
    with within(GENEROUS):
        assert main(["score", str(gold), str(pred), "--format", "json", "-o", str(pipe)]) == 0
    reader.join(GENEROUS)
    assert json.loads(got[0])["count"] == 2  # the whole report came through
    assert stat.S_ISFIFO(os.lstat(pipe).st_mode)


def test_a_symbolic_link_stays_a_link_to_the_file_written(tmp_path):
    real = tmp_path / "runs" / "42.json"
    real.parent.mkdir()
    real.write_text(PREVIOUS)
    link = tmp_path / "latest.json"
    link.symlink_to(real)
    report.write_report(link, {**EMPTY, "new": True})
    assert link.is_symlink() and os.readlink(link) == str(real)
    assert json.loads(real.read_text()) == {**STORED, "new": True}
    assert _leftovers(tmp_path) == _leftovers(real.parent) == []
