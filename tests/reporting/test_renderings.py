"""Renderings of a report (reporting/render/tables.py, text.py, markdown.py, github.py): tables cut
to the width, the start of a path kept, control characters and Markdown escaped, GitHub
workflow commands escaped."""

from __future__ import annotations

from pytest_jsonmatch.reporting.render.github import annotations
from pytest_jsonmatch.reporting.render.markdown import escape
from pytest_jsonmatch.reporting.render.tables import cut_left, cut_middle, table, wrap
from pytest_jsonmatch.reporting.render.tables import escape_controls as printable


def test_a_table_fits_its_width_by_shortening_the_first_column_in_the_middle():
    rows = [("field", "score"), ("a.very.long.path.to.a.field", "0.5000")]
    lines = table(rows, 28)
    # 6 characters of numbers and 2 of spacing leave 20 for the path (27 characters): its
    # last part, "field" (5), an ellipsis, and the first 14 characters
    assert lines == ["field                  score", "a.very.long.pa…field  0.5000"]
    assert all(len(line) <= 28 for line in lines)


FIGURES = ["1.0000", "0.5000", "-0.5000", "0.0100", "0.0100", "0.0100"]
WIDE_ROWS = [
    ("field", "base", "now", "delta", "p", "q", "Holm p"),
    ("rebook_flight.flight_no", *FIGURES),
    ("rebook_flight", *FIGURES),
    ("refund.a_last_part_longer_than_the_column", *FIGURES),
]


def test_a_name_whose_last_part_cannot_fit_gets_a_line_of_its_own():
    lines = table(WIDE_ROWS, 75)
    # the figures take 49 characters with their spacing, which leaves 26 for the names: the
    # first two fit whole; the third's last part (34 characters) cannot, so it is written
    # whole above its figures
    assert lines[1].startswith("rebook_flight.flight_no     1.0000")
    assert lines[2].startswith("rebook_flight               1.0000")
    assert lines[3] == "refund.a_last_part_longer_than_the_column"
    assert lines[4] == " " * 28 + "1.0000  0.5000  -0.5000  0.0100  0.0100  0.0100"
    assert max(len(line) for line in lines) == 75


def test_where_the_figures_leave_under_twenty_characters_names_stand_above_them():
    lines = table(WIDE_ROWS, 60)
    # 11 characters are left: no name is cut to fit them; each name longer stands whole
    # on its line, the figures on the next, and every line keeps to the 60
    assert lines[0] == "field          base     now    delta       p       q  Holm p"
    assert lines[1::2] == [
        "rebook_flight.flight_no",
        "rebook_flight",
        "refund.a_last_part_longer_than_the_column",
    ]
    assert all(line.endswith("0.0100") for line in lines[2::2])
    assert max(len(line) for line in lines) == 60


def test_cut_middle_keeps_the_last_part_of_a_path():
    assert cut_middle("rebook_flight.flight_no", 16) == "rebook…flight_no"
    assert cut_middle("issue_refund.currency", 21) == "issue_refund.currency"
    assert cut_middle("items[3].unit_price", 14) == "ite…unit_price"


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
