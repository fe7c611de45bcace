"""A comparison made of parts (an agent's answer, calls, run, end state) is shown by its
parts as data (``MatchResult.parts``, a report's ``parts``), never by its metric's label or
its rows' paths: a label that names no trajectory, and rows under no ``run``, still show
the trajectory part's steps; an answer's row at a ``run[...]`` path is no step."""

from __future__ import annotations

from pytest_jsonmatch.engine.results.field_results import (
    MATCH,
    MISMATCH,
    FieldResult,
    Part,
    combined,
)
from pytest_jsonmatch.reporting.render.failure_message import format_failure
from pytest_jsonmatch.reporting.render.html_cases import CaseData
from pytest_jsonmatch.reporting.run_model.comparisons import Comparison


def _result():
    answer = [FieldResult("run[0].status", MISMATCH, 0.0, "booked", "held", "exact")]
    steps = [
        FieldResult("journey[0].search.to", MATCH, 1.0, "Oslo", "Oslo", "exact"),
        FieldResult("journey[1].book.date", MISMATCH, 0.0, "12-01", "12-02", "exact"),
    ]
    # a label no renderer can read the parts from: only the parts say what the rows are
    return combined("odd label", [Part(0.0, answer, "field_f1"), Part(0.5, steps, "trajectory")])


def test_the_failure_message_finds_the_trajectory_by_the_parts_not_the_label():
    message = format_failure(_result(), 0.9)
    assert "the run left the expected path at step 1 (book, argument date): mismatch" in message
    assert "step 0 (status" not in message  # the answer's row is no step


def test_the_html_page_heads_the_trajectory_parts_rows_by_step_from_the_parts():
    comparison = Comparison.of_result(
        _result(), case_id="c", nodeid="t.py::c", threshold=0.9, passed=False, values="short"
    )
    row = CaseData().run_row(comparison.to_dict(), 0)
    extra = row[-1]
    assert isinstance(extra, dict)
    # rows 1 and 2 are the trajectory's; each starts a step
    assert extra["steps"] == [1, 3, [[1, "step 0: search"], [2, "step 1: book"]]]


def test_a_comparison_of_no_parts_and_no_trajectory_has_no_steps():
    plain = combined("field_f1", [])
    comparison = Comparison.of_result(
        plain, case_id="c", nodeid="t.py::c", threshold=0.9, passed=True, values="short"
    )
    row = CaseData().run_row(comparison.to_dict(), 0)
    assert not (isinstance(row[-1], dict) and "steps" in row[-1])
