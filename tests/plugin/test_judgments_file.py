"""The judge's recording, ``__recordings__/judgments.json`` (calls/judge_recordings.py), when
it is not what the plugin wrote: whatever stands there, a session either stops at start-up
with one line naming the file and what is wrong (pytest's usage-error status, never an
INTERNALERROR), or runs and saves its verdicts. Nothing there is followed or written
through, and nothing there can make the session hang or write outside the test root.

Real pytest sessions (pytester, in-process), real files, FIFOs and symbolic links, and a
real OpenAI-compatible judge on 127.0.0.1 (tests/helpers/judge_server.py)."""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.helpers.http_models import serving
from tests.helpers.judge_server import JudgeServer
from tests.helpers.plugin_cases import ARGS, write
from tests.helpers.timeout import within

RECORDING = "__recordings__/judgments.json"
CASE = "cases/m.jsonmatch.yaml::a"


@pytest.fixture
def server():
    srv = JudgeServer()
    with serving(srv):
        yield srv


def _suite(pytester, server) -> None:
    """One case with one judged field: ``s``, "two boxes" against "2 boxes"."""
    write(pytester, "pytest.ini", f"[pytest]\njsonmatch_judge = model=j endpoint={server.url}\n")
    write(
        pytester,
        "cases/m.jsonmatch.yaml",
        """\
        cases:
        - id: a
          options: {fields: {s: {comparator: semantic}}}
          expected: {s: two boxes}
          actual: {s: 2 boxes}
        """,
    )


def _recorded(path: Path) -> list[tuple[str, object, object, int, list[str]]]:
    data = json.loads(path.read_text(encoding="utf-8"))
    return sorted(
        (v["field"], v["expected"], v["actual"], v["verdict"], v.get("cases", []))
        for judge in data["judges"].values()
        for v in judge["verdicts"]
    )


def _old_verdict(**changes: object) -> str:
    """A judgments file of another judge holding one verdict, with ``changes`` to it."""
    verdict = {"field": "s", "expected": "x", "actual": "y", "verdict": 1, **changes}
    judge = {"model": "old", "prompt_file": None, "max_tokens": None, "verdicts": [verdict]}
    return json.dumps({"judges": {"0123456789abcdef": judge}, "version": 1})


# -- what stands at the path: each stops the session at start-up, in one line --------------


def _nested(root: Path) -> str:
    (root / RECORDING).write_text('{"judges": ' + "[" * 100_000 + "]" * 100_000 + "}")
    return "nests too deeply to read"


def _judges_a_list(root: Path) -> str:
    (root / RECORDING).write_text('{"judges": [], "version": 1}')
    return "cannot be read"


def _too_large(root: Path) -> str:
    with open(root / RECORDING, "wb") as fh:  # sparse: 65 MB by its size, no disk taken
        fh.truncate(65 * 2**20)
    return "larger than 64 MB"


def _fifo(root: Path) -> str:
    os.mkfifo(root / RECORDING)  # no writer: opening it for reading would block for good
    return "is a FIFO, not a regular file"


def _link_out(root: Path) -> str:
    outside = root.parent / f"{root.name}-outside.json"
    outside.write_text(_old_verdict())
    os.symlink(outside, root / RECORDING)
    return "outside the test root"


def _folder_out(root: Path) -> str:
    outside = root.parent / f"{root.name}-outside"
    outside.mkdir()
    (outside / "judgments.json").write_text(_old_verdict())
    (root / RECORDING).parent.rmdir()
    os.symlink(outside, root / "__recordings__")
    return "outside the test root"


def _link_in(root: Path) -> str:
    (root / "other.json").write_text(_old_verdict())
    os.symlink(root / "other.json", root / RECORDING)
    return "is a symbolic link, not a regular file"


@pytest.mark.parametrize(
    "make",
    [
        _nested,
        _judges_a_list,
        _too_large,
        _fifo,
        _link_out,
        _folder_out,
        _link_in,
    ],
)
def test_an_unreadable_judgments_file_stops_the_session_at_start_up_in_one_line(
    pytester, server, make: Callable[[Path], str]
):
    _suite(pytester, server)
    (pytester.path / "__recordings__").mkdir()
    what = make(pytester.path)
    with within(60):  # a FIFO opened for reading without a writer would never return
        result = pytester.runpytest_inprocess(*ARGS, "cases", "--jsonmatch-record=once")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    err = result.stderr.str()
    (line,) = [ln for ln in err.splitlines() if ln.startswith("ERROR: pytest-jsonmatch:")]
    assert "judgments.json" in line and what in line, err
    out = result.stdout.str() + err
    assert "INTERNALERROR" not in out and "Traceback" not in out
    assert server.total == 0  # stopped before any case was judged


# -- what a readable file holds: saved, never lost ------------------------------------------


def test_an_old_verdict_holding_a_lone_surrogate_is_kept_and_this_runs_verdicts_saved(
    pytester, server
):
    _suite(pytester, server)
    # "\ud800" is half a UTF-16 pair: JSON can escape it, UTF-8 cannot hold it
    write(pytester, RECORDING, _old_verdict(expected="\ud800 x"))  # escaped by json
    result = pytester.runpytest_inprocess(*ARGS, "cases", "--jsonmatch-record=once")
    result.assert_outcomes(failed=1)  # "two boxes" against "2 boxes": judged different
    assert server.total == 1
    text = (pytester.path / RECORDING).read_text(encoding="utf-8")
    assert "\\ud800 x" in text  # kept as its escape, and read back as it was
    assert _recorded(pytester.path / RECORDING) == [
        ("s", "two boxes", "2 boxes", 0, [CASE]),
        ("s", "\ud800 x", "y", 1, []),  # (U+D800 sorts after "t")
    ]
    again = pytester.runpytest_inprocess(*ARGS, "cases", "--jsonmatch-record=none")
    again.assert_outcomes(failed=1)
    assert server.total == 1  # replayed


def test_a_verdict_used_by_a_case_path_no_file_can_have_is_an_unused_verdict(pytester, server):
    _suite(pytester, server)
    long_case = "cases/" + "d" * 5_000 + ".jsonmatch.yaml::a"  # longer than a path may be
    write(pytester, RECORDING, _old_verdict(cases=[long_case]))
    result = pytester.runpytest_inprocess(*ARGS, "cases", "--jsonmatch-record=once")
    result.assert_outcomes(failed=1)
    out = result.stdout.str()
    assert "INTERNALERROR" not in out
    # the case's file cannot be there: the old verdict is unused, listed, and kept
    assert f"1 recorded judgment(s) in {RECORDING} no collected case uses" in out
    assert _recorded(pytester.path / RECORDING) == [
        ("s", "two boxes", "2 boxes", 0, [CASE]),
        ("s", "x", "y", 1, [long_case]),
    ]
    pruned = pytester.runpytest_inprocess(*ARGS, "cases", "--jsonmatch-record=once prune")
    assert "removed 1 unused recorded judgment(s)" in pruned.stdout.str()
    assert _recorded(pytester.path / RECORDING) == [("s", "two boxes", "2 boxes", 0, [CASE])]


def test_a_judgments_file_linked_inside_the_root_is_never_written_through(pytester, server):
    _suite(pytester, server)
    other = pytester.path / "other.json"
    other.write_text(_old_verdict())
    before = other.read_bytes()
    (pytester.path / "__recordings__").mkdir()
    os.symlink(other, pytester.path / RECORDING)
    result = pytester.runpytest_inprocess(*ARGS, "cases", "--jsonmatch-record=once")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert other.read_bytes() == before  # the file the link names is left as it was
    assert os.path.islink(pytester.path / RECORDING)
