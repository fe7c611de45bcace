"""Renderings of a report (reporting/render/tables.py, text.py, markdown.py, github.py): tables cut
to the width, the start of a path kept, control characters and Markdown escaped, GitHub
workflow commands escaped."""

from __future__ import annotations

from pytest_jsonmatch.reporting.render.github import annotations
from pytest_jsonmatch.reporting.render.markdown import escape
from pytest_jsonmatch.reporting.render.tables import cut_left, table, wrap
from pytest_jsonmatch.reporting.render.tables import escape_controls as printable


def test_a_table_fits_its_width_by_cutting_the_first_column_from_the_left():
    rows = [("field", "score"), ("a.very.long.path.to.a.field", "0.5000")]
    lines = table(rows, 25)
    # 6 characters of numbers and 2 of spacing leave 17 for the path (27 characters): an
    # ellipsis and its last 16
    assert lines == ["field               score", "….path.to.a.field  0.5000"]
    assert all(len(line) <= 25 for line in lines)


def test_cut_left_keeps_the_end():
    assert cut_left("items[].unit_price", 10) == "…nit_price"
    assert cut_left("short", 10) == "short"


def test_prose_wraps_with_an_indent():
    assert wrap("  a reason that is long", 12) == ["  a reason", "    that is", "    long"]


def test_control_characters_are_shown_as_escapes():
    assert printable("red\x1b[31m\nline") == "red\\x1b[31m\\nline"
    assert printable("plain ünïcode") == "plain ünïcode"


def test_markdown_escape():
    assert escape("a|b *c* <d> [e](f)\nnext") == "a\\|b \\*c\\* \\<d\\> \\[e\\]\\(f\\) next"
    assert escape("x & y") == "x &amp; y"


def test_annotations_escape_commas_colons_percent_and_newlines():
    report = {
        "cases": [
            {
                "case_id": "g/a,b.yaml::c",
                "status": "error",
                "file": "g/a,b.yaml",
                "line": 3,
                "metric": "field_f1",
                "mean_score": 0.0,
                "threshold": 1.0,
                "error": "50% done\nthen: failed",
            }
        ]
    }
    assert annotations(report) == [
        "::error file=g/a%2Cb.yaml,line=3,title=jsonmatch field_f1::g/a,b.yaml::c could not be "
        "scored: 50%25 done%0Athen: failed"
    ]


def test_only_failing_golden_cases_are_annotated():
    case = {
        "case_id": "t.py::test_x",
        "status": "failed",
        "file": "t.py",
        "line": 3,
        "metric": "field_f1",
        "mean_score": 0.0,
        "threshold": 1.0,
        "error": "",
    }
    assert annotations({"cases": [case]}) == []  # a Python test fails in pytest's own output
    assert (
        annotations(
            {"cases": [{**case, "case_id": "c.yaml::x", "file": "c.yaml", "status": "passed"}]}
        )
        == []
    )


def test_a_failure_message_never_starts_a_line_with_a_workflow_command():
    # a comparator's reason (an LLM judge's words) and values are data: a newline in them
    # cannot put '::warning' at the start of a line of the failure message
    from pytest_jsonmatch.engine.results.field_results import FieldResult, MatchResult
    from pytest_jsonmatch.reporting.render.failure_message import format_failure

    field = FieldResult(
        "a",
        "mismatch",
        0.0,
        "x\n::error::e",
        "y",
        "judge",
        reason="no\n::warning file=a.py::pwned\n  ::add-mask::x",
        field_path="a",
    )
    result = MatchResult("field_f1", 0.0, 0.0, 0.0, 0.0, (field,))
    message = format_failure(result, 1.0)
    assert "pwned" in message  # shown, defused
    assert [line for line in message.split("\n") if line.lstrip().startswith("::")] == []
    assert "(no ::warning file=a.py::pwned ::add-mask::x)" in message  # the reason, on one line
