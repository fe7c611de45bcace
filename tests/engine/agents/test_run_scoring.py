"""``match_run``: an agent's whole run (its final answer, its trajectory, its end state) scored
as one comparison with one field table, each part by its own metric, the score the parts'
headlines weighted by their counted rows (docs/metrics.md, "An agent's run"); its JSON form
(``AgentRun``), and every mistake a JsonMatchError naming the part."""

from __future__ import annotations

import json
import sqlite3

import pytest

from pytest_jsonmatch import AgentRun, ConfigError, ParseError, match_json, match_run
from pytest_jsonmatch.reporting.render.failure_message import format_failure


def _call(name: str, **arguments: object) -> dict:
    return {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {
                "id": f"c_{name}",
                "type": "function",
                "function": {"name": name, "arguments": json.dumps(arguments)},
            }
        ],
    }


MESSAGES = [
    {"role": "system", "content": "You book flights."},
    {"role": "user", "content": "Book the first flight to Oslo on 1 December"},
    _call("search_flights", to="OSL", date="2026-12-01"),
    {"role": "tool", "tool_call_id": "c_search_flights", "content": '[{"flight": "SK401"}]'},
    _call("book_flight", flight="SK401", date="2026-12-02"),
    {"role": "tool", "tool_call_id": "c_book_flight", "content": '{"pnr": "AB12"}'},
    {"role": "assistant", "content": '{"pnr": "AB12", "status": "booked"}'},
]
STATE = {"bookings": [{"pnr": "AB12", "flight": "SK401", "date": "2026-12-02"}]}
RUN = {"messages": MESSAGES, "state": STATE}
# strict mode: every step of the run from its first assistant message, tool results included
STEPS = [
    {"name": "search_flights", "arguments": {"to": "OSL", "date": "2026-12-01"}},
    {"result": "..."},
    {"name": "book_flight", "arguments": {"flight": "SK401", "date": "2026-12-01"}},
    {"result": "..."},
    {"answer": "..."},
]
WANT_STATE = {"bookings": [{"pnr": "AB12", "flight": "SK401", "date": "2026-12-01"}]}


def test_the_three_parts_in_one_table_and_one_score():
    result = match_run(RUN, {"pnr": "AB12", "status": "booked"}, STEPS, WANT_STATE)
    assert result.metric == "field_f1+trajectory+state"
    paths = [(fr.path, fr.status) for fr in result.fields]
    assert paths == [
        ("pnr", "match"),
        ("status", "match"),
        ("run[0].search_flights", "match"),
        ("run[0].search_flights.to", "match"),
        ("run[0].search_flights.date", "match"),
        ("run[1]", "match"),
        ("run[2].book_flight", "match"),
        ("run[2].book_flight.flight", "match"),
        ("run[2].book_flight.date", "mismatch"),
        ("run[3]", "match"),
        ("run[4]", "match"),
        ("state.bookings[0].pnr", "match"),
        ("state.bookings[0].flight", "match"),
        ("state.bookings[0].date", "mismatch"),
    ]
    # answer 2 rows at 1.0; run 9 rows, 8 right: F1 8/9; state 3 rows, 2 right: F1 2/3.
    # (2 * 1 + 9 * 8/9 + 3 * 2/3) / 14 = (2 + 8 + 2) / 14 = 12/14
    assert result.score == pytest.approx(12 / 14)
    # precision and recall over all 14 rows: 12 right of 14 compared
    assert (result.precision, result.recall) == (pytest.approx(12 / 14), pytest.approx(12 / 14))
    # the folded paths the per-field tables use, and where each run value was found
    assert result.fields[8].field_path == "run[].book_flight.date"
    assert result.fields[13].field_path == "state.bookings[].date"


def test_each_part_scores_as_its_own_metric_would():
    result = match_run(RUN, None, STEPS, None)
    alone = match_json(MESSAGES[2:], STEPS, "trajectory")
    assert result.metric == "trajectory"
    assert result.score == pytest.approx(alone.score)
    state = match_run(RUN, expected_state=WANT_STATE)
    assert (state.metric, state.score) == ("state", match_json(STATE, WANT_STATE).score)
    answer = match_run(RUN, {"status": "booked"}, expected_state=STATE)
    # answer: field_f1 counts the pnr it did not expect: P 1/2, R 1, F1 2/3 over 2 rows;
    # state 3 rows at 1.0: (2 * 2/3 + 3 * 1) / 5 = 13/15
    assert answer.score == pytest.approx(13 / 15)


def test_a_step_the_run_added_is_named_where_the_run_holds_it():
    result = match_run(RUN, None, [STEPS[2]], run_options={"mode": "unordered", "args": "ignore"})
    added = [fr for fr in result.fields if fr.status == "hallucination"]
    # the run's messages count from the conversation it was given: the search is messages[2]
    assert [(fr.path, fr.actual_path) for fr in added] == [
        ("run[0].search_flights", "messages[2].tool_calls[0].function")
    ]


def test_the_failure_message_names_the_first_step_off_the_path():
    result = match_run(RUN, {"pnr": "AB12"}, STEPS, WANT_STATE)
    message = format_failure(result, 1.0)
    assert (
        "the run left the expected path at step 2 (book_flight, argument date): mismatch, "
        'expected "2026-12-01", actual "2026-12-02"'
    ) in message.splitlines()


def test_run_options_and_the_metric_apply_to_their_parts():
    calls = [STEPS[0], STEPS[2]]
    # superset: the run's tool results and answer are not compared; 6 rows, 5 right
    result = match_run(RUN, None, calls, run_options={"mode": "superset", "args": "ignore"})
    # args ignore: only the function names are fields, both right
    assert [fr.path for fr in result.fields] == ["run[0].search_flights", "run[1].book_flight"]
    assert result.score == 1.0
    loose = match_run(RUN, None, None, WANT_STATE, ignore=["state.bookings[].date"])
    assert loose.score == 1.0


def test_an_agent_run_a_sqlite_state_and_a_list_of_messages_are_read():
    db = sqlite3.connect(":memory:")
    db.execute("create table bookings (pnr text, date text)")
    db.execute("insert into bookings values ('AB12', '2026-12-02')")
    run = AgentRun(MESSAGES, state=db, input_tokens=3)
    assert run.state == {"bookings": [{"pnr": "AB12", "date": "2026-12-02"}]}
    assert match_run(run, expected_state={"bookings": [{"pnr": "AB12"}]}).recall == 1.0
    assert match_run(MESSAGES, {"status": "booked"}).score == pytest.approx(2 / 3)
    assert match_run(json.dumps(RUN), expected_state=STATE).score == 1.0


def test_a_run_that_ends_on_a_call_wrote_no_answer():
    result = match_run({"messages": MESSAGES[:5]}, {"pnr": "AB12"})
    assert [(fr.path, fr.status) for fr in result.fields] == [("pnr", "omission")]
    assert result.score == 0.0


MISTAKES = [
    ({}, ConfigError, "an agent's run is scored against expected (its answer), expected_run"),
    (
        {"expected": {"run": 1}, "expected_run": STEPS},
        ConfigError,
        "expected answer key 'run' would share its paths with the run's trajectory",
    ),
    (
        {"expected": {"state": 1}, "expected_state": STATE},
        ConfigError,
        "expected answer key 'state' would share its paths with the run's end state",
    ),
    (
        {"expected_run": STEPS, "run_options": {"mode": "strct"}},
        ConfigError,
        "run_options: trajectory option mode must be one of",
    ),
    ({"expected_run": STEPS, "run_options": [1]}, ConfigError, "run_options must be a mapping"),
    ({"expected_run": 5}, ConfigError, "expected_run: "),
    ({"expected_state": [1]}, ConfigError, "expected state reads to list [1], not an object"),
    (
        {"expected": {"a": 1}, "metric": "trajectory"},
        ConfigError,
        "metric 'trajectory' scores one part of a run",
    ),
]


@pytest.mark.parametrize(("given", "error", "message"), MISTAKES)
def test_mistakes_are_the_projects_errors_naming_the_part(given, error, message):
    given = dict(given)
    expected = given.pop("expected", None)
    with pytest.raises(error) as raised:
        match_run(RUN, expected, **given)
    assert message in str(raised.value)


def test_a_run_without_a_state_or_no_run_at_all_is_the_actuals_fault():
    with pytest.raises(ParseError, match="the run holds no state") as raised:
        match_run({"messages": MESSAGES}, expected_state=STATE)
    assert raised.value.side == "actual"
    with pytest.raises(ParseError, match="is not an agent's run") as raised:
        match_run({"answer": 1}, {"a": 1})
    assert raised.value.side == "actual"
    with pytest.raises(ParseError, match=r"actual messages\[1\] must be a chat message"):
        match_run({"messages": [MESSAGES[0], 3]}, {"a": 1})


def test_assert_json_match_scores_a_run_and_refuses_what_has_no_part():
    from pytest_jsonmatch import assert_json_match

    result = assert_json_match(AgentRun(MESSAGES, STATE), None, expected_state=STATE)
    assert (result.metric, result.score) == ("state", 1.0)
    with pytest.raises(ConfigError, match="run_options apply to a run's trajectory"):
        assert_json_match(RUN, None, run_options={"mode": "superset"}, expected_state=STATE)
    with pytest.raises(
        ConfigError,
        match="expected_calls score one reply; a run's calls are scored by its expected_run",
    ):
        assert_json_match(RUN, {"pnr": "AB12"}, expected_calls=[], expected_run=STEPS)
