"""A run's ``ignore`` and ``fields`` in the paths its field table shows, each sent to its part
(engine/agents/run_paths.py; issue 73, B5): ``state.*`` to the end state, ``run...`` over the
trajectory's rows, any other path to the answer alone, ``**`` to every part."""

from __future__ import annotations

import pytest

from pytest_jsonmatch import ConfigError, match_run
from tests.engine.agents.test_run_scoring import RUN, STEPS, WANT_STATE

ANSWER = {"pnr": "AB12", "status": "booked"}
# Without rules (test_run_scoring.py): the answer's 2 rows match; the run's 9 rows, one
# mismatch (book_flight.date), F1 8/9; the state's 3 rows, one mismatch (date), 2/3.
# (2 * 1 + 9 * 8/9 + 3 * 2/3) / 14 = 12/14


def _off(result):
    return [(fr.path, fr.status) for fr in result.fields if fr.status != "match"]


def test_without_rules_the_parts_score_as_before():
    assert match_run(RUN, ANSWER, STEPS, WANT_STATE).score == pytest.approx(12 / 14)


def test_a_state_path_skips_the_state_field_only():
    result = match_run(RUN, ANSWER, STEPS, WANT_STATE, ignore=["state.bookings[].date"])
    assert _off(result) == [
        ("run[2].book_flight.date", "mismatch"),
        ("state.bookings[0].date", "skipped"),
    ]
    # the state's 2 rows left match: (2 + 8 + 2) / 13
    assert result.score == pytest.approx(12 / 13)


def test_a_run_path_skips_a_trajectory_row_and_the_part_is_scored_again():
    result = match_run(RUN, ANSWER, STEPS, WANT_STATE, ignore="run[].book_flight.date")
    assert _off(result) == [
        ("run[2].book_flight.date", "skipped"),
        ("state.bookings[0].date", "mismatch"),
    ]
    # the run's 8 rows left all match (1.0): (2 + 8 + 3 * 2/3) / 13 = 12/13
    assert result.score == pytest.approx(12 / 13)


def test_a_glob_reaches_every_part():
    result = match_run(RUN, ANSWER, STEPS, WANT_STATE, ignore=["**.date"])
    assert [path for path, status in _off(result) if status == "skipped"] == [
        "run[0].search_flights.date",
        "run[2].book_flight.date",
        "state.bookings[0].date",
    ]
    assert result.score == 1.0


def test_a_bare_path_is_the_answers_alone():
    # the answer and the state both have ``bookings``: ignoring it skips the answer's only
    answer = {"bookings": [{"date": "2026-12-09"}]}
    expected = {"bookings": [{"date": "2026-12-01"}]}
    run = {
        **RUN,
        "messages": [
            *RUN["messages"][:-1],
            {"role": "assistant", "content": str(answer).replace("'", '"')},
        ],
    }
    result = match_run(run, expected, None, WANT_STATE, ignore=["bookings"])
    assert _off(result) == [("bookings", "skipped"), ("state.bookings[0].date", "mismatch")]


def test_a_floor_under_run_holds_the_trajectory_row():
    result = match_run(
        RUN, ANSWER, STEPS, WANT_STATE, fields={"run[].book_flight.date": {"min_score": 1}}
    )
    assert [(f.path, f.min_score, f.score) for f in result.floor_failures] == [
        ("run[2].book_flight.date", 1.0, 0.0)
    ]
    assert result.score == pytest.approx(12 / 14)  # a floor changes no score


@pytest.mark.parametrize(
    ("options", "words"),
    [
        ({"ignore": ["state"]}, "ignore 'state' names the whole end state: name a field"),
        ({"fields": {"run": {"weight": 2}}}, "fields 'run' names the whole trajectory"),
        (
            {"fields": {"run[].book_flight.date": {"weight": 2}}},
            "fields['run[].book_flight.date']: the run's steps are scored by the trajectory "
            "metric, whose rows take min_score and skip, not 'weight'",
        ),
    ],
)
def test_what_a_part_cannot_take_is_a_config_error(options, words):
    with pytest.raises(ConfigError) as caught:
        match_run(RUN, ANSWER, STEPS, WANT_STATE, **options)
    assert words in str(caught.value)


def test_without_an_expected_state_a_state_key_of_the_answer_is_the_answers():
    answer = {"state": "booked"}
    run = {
        **RUN,
        "messages": [
            *RUN["messages"][:-1],
            {"role": "assistant", "content": '{"state": "booked", "x": 1}'},
        ],
    }
    result = match_run(run, answer, ignore=["state"])
    assert _off(result) == [("state", "skipped"), ("x", "hallucination")]
