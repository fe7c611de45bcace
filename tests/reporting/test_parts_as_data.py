"""A comparison made of parts (an agent's answer, calls, run, end state) is shown by its
parts as data (``MatchResult.parts``, a report's ``parts``: each part's name, metric, rows
and score), never by its metric's label or its rows' paths: a label that names no
trajectory, and rows under no ``run``, still show the trajectory part's steps; an answer's
row at a ``run[...]`` path is no step; an answer's field named ``state`` is the answer's. A conversation's parts are each turn's
in turn, then its end state's: a merge rescores them so."""

from __future__ import annotations

import json

import pytest

from pytest_jsonmatch import match_conversation
from pytest_jsonmatch.engine.results.field_results import (
    MATCH,
    MISMATCH,
    FieldResult,
    Part,
    combined,
)
from pytest_jsonmatch.reporting.render.failure_message import format_failure
from pytest_jsonmatch.reporting.render.html_cases import CaseData
from pytest_jsonmatch.reporting.run_model.comparisons import Comparison, parts_of
from pytest_jsonmatch.reporting.verdicts.shard_checks import score_disagreement
from pytest_jsonmatch.telemetry.otel_events import case_attributes, field_attributes


def _result(label: str = "odd label"):
    answer = [FieldResult("run[0].status", MISMATCH, 0.0, "booked", "held", "exact")]
    steps = [
        FieldResult("journey[0].search.to", MATCH, 1.0, "Oslo", "Oslo", "exact"),
        FieldResult("journey[1].book.date", MISMATCH, 0.0, "12-01", "12-02", "exact"),
    ]
    # a label no renderer can read the parts from: only the parts say what the rows are
    return combined(
        [Part("answer", 0.0, answer, "field_f1"), Part("trajectory", 0.5, steps, "trajectory")],
        label=label,
    )


def _fooling():
    """An answer whose field is named ``state.total`` and an end state whose fields sit
    under ``run``, labelled as if it held a trajectory: the paths and the label say the
    opposite of the parts."""
    answer = [FieldResult("state.total", MATCH, 1.0, 3, 3, "exact")]
    state = [
        FieldResult("run[0].seat", MISMATCH, 0.0, "1A", "2B", "exact"),
        FieldResult("run[1].seat", MATCH, 1.0, "1C", "1C", "exact"),
    ]
    parts = [Part("answer", 1.0, answer, "field_f1"), Part("state", 0.5, state, "field_f1")]
    return combined(parts, label="field_f1+trajectory+state")


def _comparison(result):
    return Comparison.of_result(
        result, case_id="c", nodeid="t.py::c", threshold=0.9, passed=False, values="short"
    )


def test_the_failure_message_finds_the_trajectory_by_the_parts_not_the_label():
    message = format_failure(_result(), 0.9)
    assert "the run left the expected path at step 1 (book, argument date): mismatch" in message
    assert "step 0 (status" not in message  # the answer's row is no step


def test_a_label_naming_a_trajectory_is_no_trajectory_without_its_part():
    # "field_f1+trajectory+state" but no trajectory part: no row is a step
    assert "left the expected path" not in format_failure(_fooling(), 0.9)
    # labelled as the trajectory metric alone: still only the trajectory part's rows are steps
    message = format_failure(_result("trajectory"), 0.9)
    assert "left the expected path at step 1 (book, argument date)" in message


def test_the_html_page_heads_the_trajectory_parts_rows_by_step_from_the_parts():
    row = CaseData().run_row(_comparison(_result()).to_dict(), 0)
    extra = row[-1]
    assert isinstance(extra, dict)
    # rows 1 and 2 are the trajectory's; each starts a step
    assert extra["steps"] == [1, 3, [[1, "step 0: search"], [2, "step 1: book"]]]


def test_a_comparison_of_no_parts_and_no_trajectory_has_no_steps():
    row = CaseData().run_row(_comparison(combined([], label="field_f1")).to_dict(), 0)
    assert not (isinstance(row[-1], dict) and "steps" in row[-1])


def test_each_part_carries_its_name_into_the_report_and_back():
    result = _fooling()
    assert [p.name for p in result.parts] == ["answer", "state"]
    written = _comparison(result).to_dict()
    assert [p["name"] for p in written["parts"]] == ["answer", "state"]
    assert parts_of(written) == result.parts
    assert [p["name"] for p in result.to_dict()["parts"]] == ["answer", "state"]


def test_a_report_written_before_parts_were_named_reads_each_part_by_its_metric_and_place():
    older = {"metric": "x", "parts": []}
    older["parts"] = [
        {"metric": "field_f1", "rows": 1, "score": 1.0},
        {"metric": "trajectory", "rows": 2, "score": 0.5},
        {"metric": "field_f1", "rows": 2, "score": 0.5},
    ]
    assert [p.name for p in parts_of(older)] == ["answer", "trajectory", "state"]
    reply = {"metric": "x", "parts": [{"metric": "tool_calls", "rows": 2, "score": 1.0}]}
    assert [p.name for p in parts_of(reply)] == ["calls"]


def test_the_otel_events_name_each_rows_part_and_each_parts_score_from_the_parts():
    comparison = _comparison(_fooling())
    assert [event["jsonmatch.part"] for event in field_attributes(comparison)] == [
        "answer",
        "state",
        "state",
    ]
    case = case_attributes(comparison, None)
    assert case["jsonmatch.part.answer.score"] == 1.0
    assert case["jsonmatch.part.state.score"] == 0.5
    assert "jsonmatch.part.trajectory.score" not in case  # the label's words are not read
    assert all("jsonmatch.part" not in e for e in field_attributes(_comparison(combined([]))))


def test_a_merge_refuses_parts_named_twice_or_out_of_order():
    assert score_disagreement(_comparison(_fooling())) == ""
    written = _comparison(_fooling()).to_dict()
    written["parts"][0]["name"] = "state"
    assert "its parts are named state, state: each once, in the order" in score_disagreement(
        Comparison.from_dict(written)
    )


def _refund(order: str) -> dict[str, object]:
    """A conversation of two user turns: the agent asks for the order, then refunds
    ``order`` (one step) and says so; the state it leaves."""
    arguments = json.dumps({"order": order})
    call = {"id": "c1", "type": "function", "function": {"name": "refund", "arguments": arguments}}
    return {
        "messages": [
            {"role": "user", "content": "I want my money back"},
            {"role": "assistant", "content": '{"asks_for": "order_id"}'},
            {"role": "user", "content": "It is order 1234"},
            {"role": "assistant", "content": None, "tool_calls": [call]},
            {"role": "tool", "tool_call_id": "c1", "content": '{"ok": true}'},
            {"role": "assistant", "content": json.dumps({"refund": "done", "order": order})},
        ],
        "state": {"refunds": [{"order": order}]},
    }


def _conversation() -> Comparison:
    """The conversation with the order misread (4312): turn 0's answer (1 row) matches;
    turn 1's answer (2 rows) and step (its name and its order: 2 rows) match 1 of 2 each;
    the state's one row does not."""
    turns = [
        {"expected": {"asks_for": "order_id"}},
        {
            "expected": {"refund": "done", "order": "1234"},
            "expected_run": [{"name": "refund", "arguments": {"order": "1234"}}],
        },
    ]
    state = {"refunds": [{"order": "1234"}]}
    result = match_conversation(_refund("4312"), turns, state, run_options={"mode": "superset"})
    return _comparison(result)


def test_a_merge_rescores_a_conversations_parts_turn_by_turn():
    comparison = _conversation()
    # a part name comes once per turn: the turns' parts in turn, then the state's
    assert [(p.name, p.rows, p.score) for p in comparison.parts] == [
        ("answer", 1, 1.0),
        ("answer", 2, 0.5),
        ("trajectory", 2, 0.5),
        ("state", 1, 0.0),
    ]
    # (1 * 1 + 2 * 1/2 + 2 * 1/2 + 1 * 0) / 6 = 3/6
    assert comparison.score == 0.5
    assert score_disagreement(comparison) == ""
    assert score_disagreement(Comparison.from_dict(comparison.to_dict())) == ""
    # each turn's parts name their turn, in the report and read back from it
    assert [p.turn for p in Comparison.from_dict(comparison.to_dict()).parts] == [0, 1, 1, None]
    assert [p.get("turn") for p in comparison.to_dict()["parts"]] == [0, 1, 1, None]


def test_the_otel_events_keep_each_turns_part_score_apart():
    case = case_attributes(_conversation(), None)
    # each turn's parts their own attributes, named by their turn; the state's once
    assert {k: v for k, v in case.items() if k.startswith("jsonmatch.part.")} == {
        "jsonmatch.part.turn.0.answer.score": 1.0,
        "jsonmatch.part.turn.1.answer.score": 0.5,
        "jsonmatch.part.turn.1.trajectory.score": 0.5,
        "jsonmatch.part.state.score": 0.0,
    }


@pytest.mark.parametrize(
    ("part", "change"),
    [
        (1, {"name": "trajectory"}),  # turn 1's trajectory named twice
        (3, {"name": "answer"}),  # the state's rows, under no turn, as a turn's answer
        (2, {"name": "state"}),  # turn 1's steps as an end state, and a second state
        (0, {"rows": 2}),  # turn 0's answer holding a row of turn 1's (turn 1's one fewer)
        (1, {"turn": 0}),  # turn 1's answer saying it is turn 0's (its rows are turn 1's)
        (3, {"turn": 1}),  # the end state as a turn's part
    ],
)
def test_a_merge_refuses_a_conversations_parts_that_are_not_turn_by_turn(part, change):
    written = _conversation().to_dict()
    written["parts"][part].update(change)
    if "rows" in change:
        written["parts"][part + 1]["rows"] -= 1
    said = score_disagreement(Comparison.from_dict(written))
    assert "its parts are named" in said
    assert "a conversation's each once within a turn, its turns in order, its state last" in said
