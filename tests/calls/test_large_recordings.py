"""An output of 70 MB recorded and replayed, end to end (issue 72, item 1).

A recording may hold what any file the plugin reads may (256 MiB): a target's 70 MB output
under ``--jsonmatch-record=once`` (and the ini's ``jsonmatch_record = once``) was not
recorded (the old limit was 64 MiB) and the target was called again on every run. Writing
and reading hold a recording to the same limit (tests/calls/test_recordings.py).
"""

from __future__ import annotations

import json

import pytest

from tests.helpers.plugin_cases import ARGS

pytestmark = pytest.mark.slow  # two sessions writing and reading 70 MB (CONTRIBUTING.md)

# counts its calls in calls.txt; answers 70,000,000 characters under "a", which the case
# ignores (a failure would print them), and the field it scores under "b"
TARGET = """
import pathlib

def pytest_jsonmatch_target(case, config):
    counter = pathlib.Path(config.rootpath, "calls.txt")
    counter.write_text(str(int(counter.read_text()) + 1 if counter.exists() else 1))
    return {"a": "x" * 70_000_000, "b": case.input}
"""
CASES = (
    "cases:\n  - id: big\n    expected: {a: y, b: go}\n    input: go\n    options: {ignore: [a]}\n"
)
RECORDING = ("__recordings__", "c.jsonmatch.yaml", "big.json")


@pytest.fixture
def suite(pytester: pytest.Pytester) -> pytest.Pytester:
    pytester.makeconftest(TARGET)
    pytester.makeini("[pytest]\njsonmatch_record = once\n")
    (pytester.path / "c.jsonmatch.yaml").write_text(CASES)
    return pytester


def _run(pytester: pytest.Pytester, *flags: str) -> tuple[pytest.RunResult, dict]:
    result = pytester.runpytest_inprocess(*ARGS, "--jsonmatch-report=r.json", *flags)
    report = json.loads((pytester.path / "r.json").read_text())
    (big,) = report["comparisons"]
    return result, big


def _calls(pytester: pytest.Pytester) -> int:
    return int((pytester.path / "calls.txt").read_text())


def test_a_70_mb_output_is_recorded_once_and_replayed(suite):
    result, big = _run(suite)  # the ini's record mode: once
    assert (big["status"], big["source"], big["recording"]) == ("passed", "live", "recorded")
    result.stdout.fnmatch_lines(["recordings: 1 recorded"])
    path = suite.path.joinpath(*RECORDING)
    assert path.stat().st_size > 70_000_000  # the whole output, with the recording's keys
    result, big = _run(suite)
    assert (big["status"], big["source"], big["recording"]) == ("passed", "replayed", "")
    assert _calls(suite) == 1  # replayed: the target is not called again
    assert json.loads(path.read_text())["output"] == {"a": "x" * 70_000_000, "b": "go"}
