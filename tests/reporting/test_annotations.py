"""GitHub's annotations of failed cases (reporting/render/github.py), from a report's rows: the
score against the threshold, or the floors broken when the score reached it, and the worst
fields of the case's worst failed run. (tests/plugin/test_reading_failures.py runs them in
real pytest sessions, serial and under xdist.)"""

from __future__ import annotations

from pytest_jsonmatch.reporting.render.github import annotations

CASE = {
    "case_id": "g/c.yaml::x",
    "status": "failed",
    "file": "g/c.yaml",
    "line": 3,
    "metric": "field_f1",
    "mean_score": 0.5,
    "threshold": 0.9,
    "error": "",
}
HEAD = "::error file=g/c.yaml,line=3,title=jsonmatch field_f1::g/c.yaml::x: field_f1 score "


def _run(score: float, fields: list[dict], status: str = "failed", floors: int = 0) -> dict:
    return {
        "case_id": "g/c.yaml::x",
        "status": status,
        "score": score,
        "fields": fields,
        "floor_failures": [{"path": "p", "min_score": 1.0, "score": 0.0}] * floors,
    }


def _field(path: str, score: float, status: str = "mismatch", **extra: float) -> dict:
    return {"path": path, "field_path": path, "status": status, "score": score, **extra}


def test_the_worst_failed_run_names_its_fields_floors_first_then_worst_first():
    better = _run(0.75, [_field("a", 0.0)])
    worst = _run(
        0.25,
        [
            _field("a", 1.0, "match"),
            _field("b", 0.5),
            _field("c", 0.0, "omission"),
            _field("d", 0.75, min_score=0.9),  # below its floor: named first
            _field("e", 0.0, "skipped"),  # skipped: costs nothing
            _field("", 0.0, "hallucination"),  # the root: "$"
        ],
    )
    passed = _run(0.0, [_field("z", 0.0)], status="passed")  # a passed run is not the failure
    (line,) = annotations({"cases": [CASE], "comparisons": [better, worst, passed]})
    assert line == HEAD + (
        "0.5000 < threshold 0.9000; worst fields: d 0.75 (mismatch, below min_score 0.9), "
        "c 0.00 (omission), $ 0.00 (hallucination), and 1 more"
    )


def test_a_score_that_reached_the_threshold_says_what_failed_the_case():
    reached = {**CASE, "mean_score": 0.95}
    floor = _run(0.95, [_field("a", 0.5, min_score=1.0)], floors=1)
    (line,) = annotations({"cases": [reached], "comparisons": [floor]})
    assert line == HEAD + (
        "0.9500 >= threshold 0.9000, but 1 field is below min_score; "
        "worst fields: a 0.50 (mismatch, below min_score 1)"
    )
    schema = _run(0.95, [_field("a", 0.9)])  # failed by its schema, no floor broken
    (line,) = annotations({"cases": [reached], "comparisons": [schema]})
    assert line == HEAD + "0.9500 (threshold 0.9000); worst fields: a 0.90 (mismatch)"


def test_a_report_without_the_case_s_runs_names_no_field():
    (line,) = annotations({"cases": [CASE]})  # a report that lists no comparison
    assert line == HEAD + "0.5000 < threshold 0.9000"


def test_a_long_path_is_cut_and_a_path_s_text_cannot_end_or_start_a_command():
    long = "k" * 100
    hostile = "a%b\r\n::warning::z ##[x]"
    run = _run(0.0, [_field(long, 0.0), _field(hostile, 0.0)])
    (line,) = annotations({"cases": [CASE], "comparisons": [run]})
    # 77 characters of the path and "..." (80); the CR and LF escaped as GitHub reads them in
    # a message (%0D%0A: the annotation's text, never a line of the log); '%' escaped,
    # '##[' broken
    assert line == HEAD + (
        f"0.5000 < threshold 0.9000; worst fields: {'k' * 77}... 0.00 (mismatch), "
        "a%25b%0D%0A::warning::z #\u200b#[x] 0.00 (mismatch)"
    )
    assert "\n" not in line and "\r" not in line
