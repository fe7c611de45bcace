"""Faults a recording's place can hold, and outputs too large to record.

A recording is a file the plugin owns: whatever stands in its place that is not a regular
file (a named pipe, a directory, a symbolic link) is refused under every record mode, naming
the path and what to do, never written through (a pipe with no reader blocked
``--jsonmatch-record=all`` for good) and never followed. An output too large to record is
the case's error, naming the case, the size and the limit (issue 72: it was scored and the
target called again on every run, a line in the summary its only trace).
"""

from __future__ import annotations

import json
import os

import pytest

from pytest_jsonmatch.calls import recordings
from tests.helpers.plugin_cases import ARGS
from tests.helpers.timeout import GENEROUS, within

# answers {"vendor": <input upper-cased>}; a case whose input starts with "big" answers a
# long vendor name, longer than the recording limit these tests set
TARGET = """
def pytest_jsonmatch_target(case, config):
    if case.input.startswith("big"):
        return {"vendor": "B" * 10_000}
    return {"vendor": case.input.upper()}
"""
CASES = (
    "cases:\n"
    "  - id: acme\n    expected: {vendor: ACME}\n    input: acme\n"
    "  - id: beta\n    expected: {vendor: BETA}\n    input: beta\n"
)
RECORDINGS = ("__recordings__", "c.jsonmatch.yaml")


@pytest.fixture
def suite(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> pytest.Pytester:
    # the real limit is 256 MiB (tests/calls/test_large_recordings.py records 70 MB): the
    # same rule, smaller (the runs are in this process)
    monkeypatch.setattr(recordings, "MAX_RECORDING_BYTES", 4096)
    pytester.makeconftest(TARGET)
    (pytester.path / "c.jsonmatch.yaml").write_text(CASES)
    return pytester


def _run(pytester: pytest.Pytester, *flags: str) -> tuple[pytest.RunResult, dict[str, dict]]:
    # bounded: a run that blocks on a pipe fails here (Hang) instead of hanging the suite
    with within(GENEROUS):
        result = pytester.runpytest_inprocess(*ARGS, "--jsonmatch-report=r.json", *flags)
    report = json.loads((pytester.path / "r.json").read_text())
    return result, {c["case_id"].split("::")[1]: c for c in report["comparisons"]}


def _put_in_place(path, kind: str) -> None:
    """Replace the recording at ``path`` with a thing of ``kind``."""
    path.unlink()
    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "directory":
        path.mkdir()
    else:  # a link to the other case's recording, inside the test root
        path.symlink_to(path.with_name("beta.json"))


KINDS = {"fifo": "a FIFO", "directory": "a directory", "link": "a symbolic link"}


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_anything_but_a_regular_file_in_a_recordings_place_is_refused(suite, kind):
    _run(suite, "--jsonmatch-record=once")
    recording = suite.path.joinpath(*RECORDINGS, "acme.json")
    _put_in_place(recording, kind)
    for mode in ("once", "none", "all"):
        result, comparisons = _run(suite, f"--jsonmatch-record={mode}")
        acme = comparisons["acme"]
        assert acme["status"] == "error", mode
        assert f"acme.json is {KINDS[kind]}, not a regular file" in acme["error"], mode
        assert "remove it" in acme["error"]
        # the other case is untouched, and what stood in the place is still there
        assert comparisons["beta"]["status"] == "passed"
        assert os.path.lexists(recording) and (recording.is_symlink() or not recording.is_file())
        assert "Traceback" not in result.stdout.str()


@pytest.mark.parametrize(
    "content, says",
    [
        (b"\xff\xfe not UTF-8", "is not UTF-8 text"),
        (b'{"case_id": "acme", "output": {"vendor": "AC', "Unterminated string"),
    ],
)
def test_a_recording_that_cannot_be_read_says_how_to_mend_it(suite, content, says):
    _run(suite, "--jsonmatch-record=once")
    suite.path.joinpath(*RECORDINGS, "acme.json").write_bytes(content)
    for mode in ("once", "none"):
        _, comparisons = _run(suite, f"--jsonmatch-record={mode}")
        error = comparisons["acme"]["error"]
        assert comparisons["acme"]["status"] == "error" and says in error
        assert "delete it or re-record with --jsonmatch-record=all" in error


def test_all_writes_a_recording_that_cannot_be_read_anew(suite):
    _run(suite, "--jsonmatch-record=once")
    path = suite.path.joinpath(*RECORDINGS, "acme.json")
    path.write_bytes(b"\xff\xfe not UTF-8")
    _, comparisons = _run(suite, "--jsonmatch-record=all")
    assert comparisons["acme"]["recording"] == "recorded"
    assert json.loads(path.read_text())["output"] == {"vendor": "ACME"}


def test_an_output_too_large_to_record_is_the_cases_error_naming_size_and_limit(suite):
    (suite.path / "c.jsonmatch.yaml").write_text(CASES.replace("input: acme", "input: big"))
    for mode in ("once", "all"):
        result, comparisons = _run(suite, f"--jsonmatch-record={mode}")
        big = comparisons["acme"]
        assert (big["status"], big["source"], big["recording"]) == ("error", "live", ""), mode
        assert big["error"].startswith("cannot record the output of case 'acme': its recording ")
        assert "bytes, more than the 4,096 (0.00390625 MiB) a recording may hold" in big["error"]
        assert "--jsonmatch-record=off" in big["error"]
        # the other case is recorded (once) or written anew only if it changed (all)
        assert comparisons["beta"]["status"] == "passed"
        result.stdout.fnmatch_lines(
            ["c.jsonmatch.yaml:2: case 'acme': cannot record the output of case 'acme': *"]
        )
        assert not suite.path.joinpath(*RECORDINGS, "acme.json").exists()
    # replaying, the recording is missing (not stale), and says so
    _, comparisons = _run(suite, "--jsonmatch-record=none")
    assert comparisons["acme"]["error"].startswith("no recording of this case")


def test_a_recording_is_removed_when_its_new_output_cannot_be_recorded(suite):
    _run(suite, "--jsonmatch-record=once")
    path = suite.path.joinpath(*RECORDINGS, "acme.json")
    assert path.is_file()
    (suite.path / "c.jsonmatch.yaml").write_text(CASES.replace("input: acme", "input: big"))
    _, comparisons = _run(suite, "--jsonmatch-record=once")
    assert comparisons["acme"]["error"].startswith("cannot record the output of case 'acme'")
    assert not path.exists()  # never replayed in place of the output it no longer records
    _, comparisons = _run(suite, "--jsonmatch-record=none")
    assert comparisons["acme"]["error"].startswith("no recording of this case")
