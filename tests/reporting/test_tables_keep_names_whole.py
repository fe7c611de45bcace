"""At 80 columns a table that says where it may be split keeps every name whole on the line
of its figures (reporting/render/tables.py ``split_at``): the summary's metric table with a
long metric name (issue 73: ``field_f1+trajectory+state``), the fields against the baseline
(issue 75: any path past 9 characters stood on a line of its own)."""

from __future__ import annotations

from pytest_jsonmatch.reporting.render.tables import table
from pytest_jsonmatch.reporting.render.text import _metric_lines

METRIC = "field_f1+trajectory+state"


def _tally(count: int, score: float) -> dict[str, object]:
    return {
        "count": count,
        "passed": count,
        "failed": 0,
        "errors": 0,
        "mean_score": score,
        "precision": score,
        "recall": score,
        "f1": score,
    }


def test_a_long_metric_name_is_whole_on_the_line_of_its_figures_at_80_columns():
    report = {"metrics": {METRIC: _tally(32, 0.9375), "tool_calls": _tally(6, 0.5)}}
    lines = _metric_lines(report, 80)  # type: ignore[arg-type]
    assert all(len(line) <= 80 for line in lines)
    # metric (25) + the eight figures' columns (58 with their gaps) = 83 > 80: two tables
    assert [line.split() for line in lines] == [
        ["metric", "cases", "pass", "fail", "error", "score"],
        [METRIC, "32", "32", "0", "0", "0.9375"],
        ["tool_calls", "6", "6", "0", "0", "0.5000"],
        ["metric", "prec", "recall", "F1"],
        [METRIC, "0.9375", "0.9375", "0.9375"],
        ["tool_calls", "0.5000", "0.5000", "0.5000"],
    ]


def test_a_table_that_fits_is_one_table_and_one_that_cannot_split_is_as_before():
    rows = [["field", "a", "b"], ["customer.name", "1.0000", "0.5000"]]
    assert table(rows, 80, split_at=2) == table(rows, 80)
    assert len(table(rows, 80, split_at=2)) == 2
    # without split_at, a name that cannot be read in what the figures leave stands alone
    wide = [["field", *("x" * 30,) * 2], ["customer.name", "1", "2"]]
    assert table(wide, 70)[1] == "customer.name"
    split = table(wide, 70, split_at=2)
    assert [line.split()[0] for line in split] == ["field", "customer.name"] * 2
