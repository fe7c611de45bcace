"""Answers cut off inside their JSON value, through the plugin: by default an error case that
says where the answer was cut; with the ``truncated: close`` option, scored closed for
partial credit and marked ``truncated`` in the terminal summary, the JSON report (which
still fits its schema), the Markdown report and the failure message. The HTML report's mark
is checked in a real browser (tests/cli/test_browser.py)."""

from __future__ import annotations

import json

import jsonschema
import pytest

from pytest_jsonmatch.reporting.run_model.validation import schema
from tests.helpers.plugin_cases import ARGS, write

# The invoice, cut inside items[1] after 87 characters: the text ends at column 88.
CUT = '{"invoice": "INV-1", "total": 12.5, "items": [{"sku": "A", "qty": 1}, {"sku": "B", "qty'
CASES = f"""\
cases:
  - id: cut-items
    expected: {{invoice: INV-1, total: 12.5, items: [{{sku: A, qty: 1}}, {{sku: B, qty: 2}}]}}
    actual: '{CUT}'
  - id: whole
    expected: {{invoice: INV-2}}
    actual: '{{"invoice": "INV-2"}}'
"""
REPORTS = ("--jsonmatch-report=out/r.json", "--jsonmatch-report=out/r.md")


def _run(pytester: pytest.Pytester, *flags: str) -> tuple[pytest.RunResult, dict]:
    result = pytester.runpytest_inprocess(*ARGS, *REPORTS, *flags)
    data = json.loads((pytester.path / "out" / "r.json").read_text(encoding="utf-8"))
    jsonschema.validate(data, schema())
    return result, data


def test_by_default_a_cut_answer_is_one_error_saying_where_it_was_cut(pytester):
    write(pytester, "golden/inv.jsonmatch.yaml", CASES)
    result, data = _run(pytester)
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(
        [
            "*golden/inv.jsonmatch.yaml:2: case 'cut-items': actual was cut off: its JSON value opened "
            "at line 1, column 1 is not closed when the text ends at line 1, column 88, after 87 "
            "characters (the answer was truncated, e.g. by max_tokens)*"
        ]
    )
    cut = next(c for c in data["comparisons"] if c["case_id"].endswith("cut-items"))
    assert (cut["status"], cut["score"], cut["fields"]) == ("error", 0.0, [])
    assert "truncated" not in cut  # not scored: nothing was closed
    assert "truncated:" not in result.stdout.str()  # no case was scored closed


@pytest.mark.parametrize("where", ["file", "ini"])
def test_close_scores_a_cut_answer_for_partial_credit_and_marks_it(pytester, where):
    if where == "file":
        write(pytester, "golden/inv.jsonmatch.yaml", "options: {truncated: close}\n" + CASES)
    else:
        write(pytester, "golden/inv.jsonmatch.yaml", CASES)
        write(pytester, "pytest.ini", '[pytest]\njsonmatch_options = {"truncated": "close"}\n')
    result, data = _run(pytester)
    result.assert_outcomes(passed=1, failed=1)  # 10/11 is below the default threshold of 1
    out = result.stdout.str()
    # the failure says why a field is missing: 5 of 6 fields written in full, qty omitted;
    # precision 5/5, recall 5/6, F1 = 10/11 = 0.9091
    result.stdout.fnmatch_lines(
        [
            "field_f1: score 0.9091 < threshold 1.0000 (precision 1.0000, recall 0.8333, F1 0.9091)",
            "the answer was cut off (truncated) at line 1, column 88, after 87 characters and scored "
            "closed: the fields past the cut count as omitted",
            "fields that cost points, worst first (1):",
            "  items?1?.qty  omission *",
        ]
    )  # ? for [ and ], which fnmatch reads as a set
    assert "hallucination" not in out.split("fields that cost points")[1].split("\n\n")[0]
    # the summary names the case
    result.stdout.fnmatch_lines(
        [
            "truncated: 1 case scored from an answer cut off, closed for partial credit:",
            "  golden/inv.jsonmatch.yaml::cut-items: 0.9091",
        ]
    )
    # the JSON report: where it was cut on the comparison, a count on the case
    comparisons = {c["case_id"].rsplit("::", 1)[1]: c for c in data["comparisons"]}
    assert comparisons["cut-items"]["truncated"] == {"line": 1, "column": 88, "chars": 87}
    assert "truncated" not in comparisons["whole"]
    cases = {c["case_id"].rsplit("::", 1)[1]: c for c in data["cases"]}
    assert cases["cut-items"]["truncated"] == 1 and "truncated" not in cases["whole"]
    assert cases["cut-items"]["mean_score"] == pytest.approx(10 / 11)
    # the Markdown report: its own section, and the reason of the failed case says so
    markdown = (pytester.path / "out" / "r.md").read_text(encoding="utf-8")
    assert "### Answers cut off, scored closed for partial credit" in markdown
    line = 3 if where == "file" else 2  # the options line comes first in the file
    assert (
        f"| golden/inv.jsonmatch.yaml::cut-items | golden/inv.jsonmatch.yaml:{line} | 0.9091 "
        f"| 1 of 1 |"
    ) in markdown
    # (the field past the cut is named: its omission cost the case its points)
    assert (
        "score below threshold 1.0000: items\\[1\\].qty omission; the answer was cut off "
        "\\(scored closed\\)"
    ) in markdown


def test_assert_json_match_takes_the_option_and_the_report_marks_it(pytester):
    pytester.makepyfile(
        test_cut=f"""
        from pytest_jsonmatch import assert_json_match

        def test_cut():
            result = assert_json_match({CUT!r}, {{"invoice": "INV-1", "total": 12.5}},
                                       threshold=0.5, truncated="close")
            assert (result.truncated.line, result.truncated.column) == (1, 88)
        """
    )
    result, data = _run(pytester)
    result.assert_outcomes(passed=1)
    # invoice and total match; items, which the model wrote and the expected value does not
    # hold, is one hallucinated field (field_f1 infers its schema from expected): precision
    # 2/3, recall 2/2, F1 = 2 * (2/3) / (5/3) = 4/5. It is not spared: only the element
    # being written, items[1], would be.
    (comparison,) = data["comparisons"]
    assert comparison["score"] == pytest.approx(4 / 5)
    assert comparison["truncated"] == {"line": 1, "column": 88, "chars": 87}
    result.stdout.fnmatch_lines(["truncated: 1 case scored from an answer cut off*"])


def test_a_bad_value_in_a_file_is_one_collection_error_for_the_file(pytester):
    write(pytester, "golden/inv.jsonmatch.yaml", "options: {truncated: partial}\n" + CASES)
    result = pytester.runpytest_inprocess(*ARGS)
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(
        ["*golden/inv.jsonmatch.yaml*option truncated must be 'error' or 'close', not 'partial'*"]
    )
