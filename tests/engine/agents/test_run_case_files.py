"""A golden case file's run keys, read as a library (no pytest session): ``expected_run`` and
``expected_state`` beside or instead of ``expected``, ``run_options`` merged from the folder
to the case as ``options`` is, and every mistake one CaseFileError with its line."""

from __future__ import annotations

from pathlib import Path

import pytest

from pytest_jsonmatch.cases.case_files import CaseFiles
from pytest_jsonmatch.engine.core.errors import CaseFileError

RUN_CASES = """\
run_options: {mode: superset}
cases:
  - id: book
    input: {question: "Book a flight to Oslo"}
    expected: {status: booked}
    expected_run: [{name: book_flight, arguments: {flight: SK401}}]
    expected_state: {bookings: [{flight: SK401}]}
    run_options: {args: subset}
  - id: state_only
    input: {question: "Book a flight to Rome"}
    expected_state: {bookings: []}
"""


def _write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def test_a_case_gives_its_run_and_state_and_the_run_options_merge(tmp_path):
    _write(tmp_path / "jsonmatch.yaml", "run_options: {pairing: agentevals, mode: strict}\n")
    path = _write(tmp_path / "runs.jsonmatch.yaml", RUN_CASES)
    book, state_only = CaseFiles(root=tmp_path).load(path)
    assert book.expected == {"status": "booked"}
    assert book.agent.run == [{"name": "book_flight", "arguments": {"flight": "SK401"}}]
    assert book.agent.state == {"bookings": [{"flight": "SK401"}]}
    # the folder's, the file's and the case's, key by key, the nearest winning
    assert book.agent.run_options == {"pairing": "agentevals", "mode": "superset", "args": "subset"}
    # a run case may leave its answer out: None, no answer scored
    assert state_only.expected is None
    assert state_only.agent.run is None
    assert state_only.agent.state == {"bookings": []}


MISTAKES = [
    (
        "run not a list",
        "input: {q: 1}\nexpected_run: book_flight\n",
        "r.jsonmatch.yaml:2: case 'r': expected_run must be the run's steps or messages",
    ),
    (
        "state not a mapping",
        "input: {q: 1}\nexpected_state: [1]\n",
        "r.jsonmatch.yaml:2: case 'r': expected_state must be a mapping",
    ),
    (
        "run beside calls",
        "input: {q: 1}\nexpected: {a: 1}\nexpected_calls: []\nexpected_run: []\n",
        "r.jsonmatch.yaml:3: case 'r': expected_calls score one reply; a run's calls are "
        "scored by its expected_run: give expected_run or expected_calls, not both",
    ),
    (
        "run under the trajectory metric",
        "input: {q: 1}\nmetric: trajectory\nexpected_run: []\n",
        "r.jsonmatch.yaml:3: case 'r': expected_run is scored beside the answer's metric, "
        "not under metric trajectory",
    ),
    (
        "bad run option",
        "input: {q: 1}\nexpected_run: []\nrun_options: {mode: strct}\n",
        "r.jsonmatch.yaml:3: run_options: trajectory option mode must be one of",
    ),
    (
        "run options not a mapping",
        "input: {q: 1}\nexpected_run: []\nrun_options: superset\n",
        "r.jsonmatch.yaml:3: run_options must be a mapping of trajectory options",
    ),
    (
        "typo",
        "input: {q: 1}\nexpected_runs: []\n",
        "r.jsonmatch.yaml:2: case: unknown key 'expected_runs' (did you mean 'expected_run'",
    ),
]


@pytest.mark.parametrize(("name", "text", "message"), MISTAKES, ids=[m[0] for m in MISTAKES])
def test_each_mistake_is_one_error_with_its_line(tmp_path, name, text, message):
    path = _write(tmp_path / "r.jsonmatch.yaml", text)
    with pytest.raises(CaseFileError) as raised:
        CaseFiles(root=tmp_path).load(path)
    assert message in str(raised.value)


def test_a_folders_bad_run_options_are_one_error_for_the_folder(tmp_path):
    _write(tmp_path / "jsonmatch.yaml", "run_options: {args: exactly}\n")
    path = _write(tmp_path / "r.jsonmatch.yaml", "input: {q: 1}\nexpected_run: []\n")
    with pytest.raises(CaseFileError, match="jsonmatch.yaml:1: run_options: trajectory option"):
        CaseFiles(root=tmp_path).load(path)
