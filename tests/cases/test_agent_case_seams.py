"""Agent cases down the paths a suite sends them (issue 73): a tool-only reply (no
``expected:``) as a golden case, through the fixture, the JSON report and an update; a run
whose strict trajectory calls the wrong tool, through a field floor and the HTML report.
Real pytest sessions (pytester); every score worked by hand."""

from __future__ import annotations

import json

import pytest

from tests.cli.html_data import fields_of, page_data
from tests.helpers.plugin_cases import ARGS, write

TOOL_ONLY = """\
threshold: 1.0
cases:
  # its only call is another function than the one expected: no row right, 0
  - id: wrong
    actual:
      role: assistant
      content: Booking it now.
      tool_calls:
        - {id: c1, type: function, function: {name: book_flight, arguments: '{"flight": "SK1"}'}}
    expected_calls: [{name: cancel_booking, arguments: {pnr: JKL012}}]
  # the call expected, its text beside it never read: 1.0
  - id: right
    actual:
      role: assistant
      content: Cancelling JKL012.
      tool_calls:
        - {id: c2, type: function, function: {name: cancel_booking, arguments: '{"pnr": "JKL012"}'}}
    expected_calls: [{name: cancel_booking, arguments: {pnr: JKL012}}]
"""


def _comparisons(path) -> list[tuple[str, str, float]]:
    report = json.loads(path.read_text())
    return [(c["case_id"].split("::")[-1], c["metric"], c["score"]) for c in report["comparisons"]]


def test_a_tool_only_case_is_scored_on_its_calls_and_an_update_leaves_it_as_written(pytester):
    path = write(pytester, "cancel.jsonmatch.yaml", TOOL_ONLY)
    result = pytester.runpytest_inprocess(*ARGS, "--jsonmatch-report=r.json")
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(["*tool_calls: score 0.0000 < threshold 1.0000*"])
    assert sorted(_comparisons(pytester.path / "r.json")) == [
        ("right", "tool_calls", 1.0),
        ("wrong", "tool_calls", 0.0),
    ]
    before = path.read_bytes()
    # an update writes a case's expected answer: a tool-only case has none to write (its
    # calls are the reviewer's), so the file stays byte for byte, and the case still fails
    for mode in ("fix", "all"):
        updated = pytester.runpytest_inprocess(*ARGS, f"--jsonmatch-update={mode}")
        updated.assert_outcomes(passed=1, failed=1)
        assert path.read_bytes() == before


FIXTURE = """
from pytest_jsonmatch import TargetResult, assert_json_match

CALL = {"id": "c1", "type": "function",
        "function": {"name": "cancel_booking", "arguments": '{"pnr": "JKL012"}'}}
WANT = [{"name": "cancel_booking", "arguments": {"pnr": "JKL012"}}]

def test_fixture(json_match):
    json_match(TargetResult("On it.", tool_calls=[CALL]).answer(), None, expected_calls=WANT)

def test_function():
    other = dict(CALL, function={"name": "cancel_booking", "arguments": '{"pnr": "X"}'})
    # the name matches, the pnr does not: F1 1/2
    result = assert_json_match(TargetResult(None, tool_calls=[other]).answer(), None,
                               threshold=0.5, expected_calls=WANT)
    assert result.score == 0.5 and result.metric == "tool_calls"
"""


def test_the_fixture_and_assert_json_match_take_a_tool_only_reply(pytester):
    write(pytester, "test_replies.py", FIXTURE)
    result = pytester.runpytest_inprocess(*ARGS, "--jsonmatch-report=r.json")
    result.assert_outcomes(passed=2)
    assert sorted(_comparisons(pytester.path / "r.json")) == [
        ("test_fixture", "tool_calls", 1.0),
        ("test_function", "tool_calls", 0.5),
    ]


WRONG_TOOL_RUN = """\
threshold: 0.0
run_options: {mode: strict}
id: booked-instead
actual:
  messages:
    - {role: user, content: Fly me to Oslo on the 26th}
    - role: assistant
      content: null
      tool_calls:
        - {id: c1, type: function, function: {name: book_flight, arguments: '{"flight": "SK1"}'}}
    - {role: tool, tool_call_id: c1, content: booked}
    - {role: assistant, content: Booked SK1}
expected_run:
  - {name: search_flights, arguments: {to: Oslo, date: "2026-11-26"}}
  - {result: SK1, SK9}
  - {answer: Booked}
"""


def test_a_wrong_tool_in_a_strict_run_reaches_a_field_floor_and_the_html_report(pytester):
    write(pytester, "oslo.jsonmatch.yaml", WRONG_TOOL_RUN)
    pytester.makeini("[pytest]\njsonmatch_field_floors = run[].search_flights.date=0.5\n")
    result = pytester.runpytest_inprocess(*ARGS, "--jsonmatch-report=r.html")
    # the case passes its threshold 0; the skipped search's date is an omission (score 0),
    # which the floor holds: the gate fails naming it
    result.assert_outcomes(passed=1)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(
        ["*field run[].search_flights.date (trajectory): mean score 0.0000 is below its floor*"]
    )
    data = page_data((pytester.path / "r.html").read_text(encoding="utf-8"))
    [run] = data["runs"]
    # the page holds the step's rows, the arguments expected and the arguments sent: the
    # search's name and 2 arguments omitted, the booking's name and its flight invented
    # (with the 2 steps that match, P = 2/4, R = 2/5: F1 4/9)
    assert [
        (f["path"], f["status"], f.get("expected"), f.get("actual"))
        for f in fields_of(data, run)
        if f["status"] != "match"
    ] == [
        ("run[0].search_flights", "omission", "search_flights", None),
        ("run[0].search_flights.to", "omission", "Oslo", None),
        ("run[0].search_flights.date", "omission", "2026-11-26", None),
        ("run[0].book_flight", "hallucination", None, "book_flight"),
        ("run[0].book_flight.flight", "hallucination", None, "SK1"),
    ]
    assert run[3] == pytest.approx(4 / 9, abs=5e-5)
