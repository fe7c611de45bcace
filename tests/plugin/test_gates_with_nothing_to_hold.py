"""A gate that has nothing to hold fails the run it was set for (reporting/verdicts/gates.py
``nothing_counted``, plugin/session.py): a whole run whose every case is quarantined, or whose
every case file is marked ``xfail``, or that compared no case at all, fails ``fail_under``
with why and what would make a case count, in the words of the pass^k floors ("...: nothing
to hold to it"). A run of part of the suite (``-k``, ``-m``, a file named, a folder named that
compared nothing) is not judged by the suite's gates, as field floors are not: it names the
gates it did not hold, as a warning."""

from __future__ import annotations

import json

import pytest

from tests.helpers.plugin_cases import ARGS, write

# Each case scores 0: a and b both differ (field_f1: TP 0, F1 0).
CASES = """\
threshold: 1
cases:
  - {id: bad, expected: {a: 1, b: 1}, actual: {a: 2, b: 2}}
  - {id: worse, expected: {a: 1, b: 1}, actual: {a: 3, b: 3}}
"""
QUARANTINE = """\
- {case: c.jsonmatch.yaml::bad, reason: flips a, until: 2026-11-30}
- {case: c.jsonmatch.yaml::worse, reason: flips b, until: 2026-11-30}
"""
GATE = "jsonmatch_gates = fail_under=0.9\n"
PLAIN = "def test_plain():\n    assert True\n"
QUARANTINED = (
    "jsonmatch_gates fail_under 0.9000: every case of this run is quarantined (2 cases; a "
    "gate holds a case again once its quarantine ends): nothing to hold to it"
)


@pytest.fixture(autouse=True)
def wide_terminal(monkeypatch):
    """Whole messages on one line each (at 80 columns they wrap); a fixed day for the
    quarantine's dates."""
    monkeypatch.setenv("COLUMNS", "300")
    monkeypatch.setenv("JSONMATCH_TODAY", "2026-11-25")


def _gates(pytester) -> dict:
    return json.loads((pytester.path / "r.json").read_text())["gates"]


def test_every_case_quarantined_fails_the_gate_that_held_nothing(pytester):
    write(pytester, "c.jsonmatch.yaml", CASES)
    write(pytester, "q.yaml", QUARANTINE)
    write(pytester, "pytest.ini", f"[pytest]\njsonmatch_quarantine = q.yaml\n{GATE}")
    result = pytester.runpytest_inprocess(*ARGS, "--jsonmatch-report=r.json")
    result.assert_outcomes(passed=2)  # a quarantined case's failure fails no test
    result.stdout.fnmatch_lines(["FAILED: jsonmatch gates: 1 failure", f"  {QUARANTINED}"])
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    gates = _gates(pytester)
    assert gates["passed"] is False and gates["failures"] == [QUARANTINED]
    assert gates["checked"] == []


def test_every_case_file_marked_xfail_fails_the_gate_that_held_nothing(pytester):
    write(pytester, "c.jsonmatch.yaml", "marks: [{xfail: {reason: known}}]\n" + CASES)
    write(pytester, "pytest.ini", f"[pytest]\n{GATE}")
    result = pytester.runpytest_inprocess(*ARGS)  # (no report file: the verdict is the same)
    result.assert_outcomes(xfailed=2)
    said = (
        "jsonmatch_gates fail_under 0.9000: every case of this run is marked xfail (2 xfailed, "
        "0 xpassed; a gate holds a case without the mark): nothing to hold to it"
    )
    result.stdout.fnmatch_lines(["FAILED: jsonmatch gates: 1 failure", f"  {said}"])
    assert result.ret == pytest.ExitCode.TESTS_FAILED


def test_a_whole_run_that_compared_no_case_fails_the_gate(pytester):
    write(pytester, "test_plain.py", PLAIN)
    write(pytester, "pytest.ini", f"[pytest]\n{GATE}")
    result = pytester.runpytest_inprocess(*ARGS)
    result.assert_outcomes(passed=1)
    said = (
        "jsonmatch_gates fail_under 0.9000: this run compared no case (none was collected: "
        "are the golden cases where the run looks?): nothing to hold to it"
    )
    result.stdout.fnmatch_lines(["FAILED: jsonmatch gates: 1 failure", f"  {said}"])
    assert result.ret == pytest.ExitCode.TESTS_FAILED


def test_a_k_run_of_a_plain_test_is_part_of_the_suite_and_not_judged_by_its_gates(pytester):
    write(pytester, "c.jsonmatch.yaml", CASES)
    write(pytester, "test_plain.py", PLAIN)
    write(pytester, "pytest.ini", f"[pytest]\n{GATE}")
    result = pytester.runpytest_inprocess(*ARGS, "-k", "plain", "--jsonmatch-report=r.json")
    result.assert_outcomes(passed=1)
    assert result.ret == pytest.ExitCode.OK
    gates = _gates(pytester)
    assert gates["failures"] == []
    assert gates["warnings"] == [
        "1 gate not held, as this run is part of the suite (-k 'plain') and counted no case: "
        "jsonmatch_gates fail_under 0.9000"
    ]
    # without a report file nothing is judged either: the same exit status
    assert pytester.runpytest_inprocess(*ARGS, "-k", "plain").ret == pytest.ExitCode.OK


def test_a_named_folder_that_compared_nothing_is_part_of_the_suite(pytester):
    """``pytest tests/unit`` in a project whose ini sets the gates for its golden cases."""
    write(pytester, "c.jsonmatch.yaml", CASES)
    write(pytester, "unit/test_plain.py", PLAIN)
    write(pytester, "pytest.ini", f"[pytest]\n{GATE}")
    result = pytester.runpytest_inprocess(*ARGS, "unit", "--jsonmatch-report=r.json")
    result.assert_outcomes(passed=1)
    assert result.ret == pytest.ExitCode.OK
    assert _gates(pytester)["warnings"] == [
        "1 gate not held, as this run is part of the suite (named unit) and counted no case: "
        "jsonmatch_gates fail_under 0.9000"
    ]


def test_a_partial_run_whose_cases_are_all_quarantined_names_the_gates_it_did_not_hold(
    pytester,
):
    write(pytester, "c.jsonmatch.yaml", CASES)
    write(pytester, "q.yaml", QUARANTINE)
    floors = "jsonmatch_field_floors =\n    strict\n    a=0.5\n"
    write(pytester, "pytest.ini", f"[pytest]\njsonmatch_quarantine = q.yaml\n{GATE}{floors}")
    result = pytester.runpytest_inprocess(*ARGS, "-k", "bad", "--jsonmatch-report=r.json")
    result.assert_outcomes(passed=1)
    assert result.ret == pytest.ExitCode.OK
    gates = _gates(pytester)
    assert gates["failures"] == []
    assert (
        "2 gates not held, as this run is part of the suite (-k 'bad') and counted no case "
        "(1 quarantined): jsonmatch_gates fail_under 0.9000, jsonmatch_field_floors 'a'"
    ) in gates["warnings"]
