"""Output for CI (reporting/render/markdown.py and reporting/render/github.py through the plugin): a Markdown
summary with --jsonmatch-report=PATH.md and in $GITHUB_STEP_SUMMARY (appended, as GitHub
expects), and under GitHub Actions one ::error annotation per golden case that failed or
could not be scored, at the line where it starts, printed once (by the xdist controller)."""

from __future__ import annotations

import pytest

from tests.helpers.plugin_cases import ARGS

CASES = """\
threshold: 0.9
cases:
  - id: good
    expected: {vendor: ACME, total: 10}
    actual: {vendor: ACME, total: 10}
  - id: wrong-total
    expected: {vendor: ACME, total: 10}
    actual: {vendor: ACME, total: 12}
  - id: no-json
    expected: {vendor: ACME}
    actual: "I could not read the invoice, 100%"
"""


def test_a_markdown_summary_is_written_with_the_gates_cases_and_fields(pytester):
    pytester.makefile(".jsonmatch.yaml", invoices=CASES)
    result = pytester.runpytest_inprocess(
        *ARGS, "--jsonmatch-report=out/summary.md", "--jsonmatch-gates=fail_under=0.9"
    )
    result.assert_outcomes(passed=1, failed=2)
    text = (pytester.path / "out" / "summary.md").read_text()
    # good 1.0, wrong-total 0.5 (vendor matches, total does not), no-json an error (0):
    # overall 1.5 / 3 = 0.5; 1 of 3 unscored is more than the 25% a passing gate allows
    assert (
        "**Gates: FAILED**\n- 1 of 3 cases could not be scored, more than the 25% a passing "
        "gate allows: no gate is judged as passed on what was not scored\n"
        "- overall score 0.5000 is below jsonmatch\\_gates fail\\_under 0.9000" in text
    )
    assert "| field\\_f1 | 3 | 1 | 1 | 1 | 0.5000 | 0.5000 | 0.5000 | 0.5000 |" in text
    assert (
        "| invoices.jsonmatch.yaml::no-json | invoices.jsonmatch.yaml:9 | 0.0000 | no JSON "
        "object found in actual: 'I could not read the invoice, 100%' |"
    ) in text
    assert (
        "| invoices.jsonmatch.yaml::wrong-total | invoices.jsonmatch.yaml:6 | 0.5000 | score "
        "below threshold 0.9000: total mismatch |"
    ) in text
    assert "| total | 0.5000 | 1 | 1 | 0 | 0 |" in text


def test_the_job_summary_is_appended_to(pytester, monkeypatch):
    summary = pytester.path / "step_summary.md"
    summary.write_text("# earlier step\n")
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    pytester.makefile(".jsonmatch.yaml", invoices=CASES)
    pytester.runpytest_inprocess(*ARGS)
    text = summary.read_text()
    assert text.startswith("# earlier step\n## jsonmatch\n")


def test_markup_in_a_model_s_output_stays_text(pytester):
    pytester.makefile(
        ".jsonmatch.yaml",
        c="cases:\n  - id: x\n    expected: {a: 1}\n"
        '    actual: "<script>alert(1)</script> | **bold** [l](http://x)"\n',
    )
    pytester.runpytest_inprocess(*ARGS, "--jsonmatch-report=s.md")
    text = (pytester.path / "s.md").read_text()
    assert "<script>" not in text and "](http" not in text
    # markup escaped, and the bare URL broken by a zero-width space (GitHub would link it)
    assert (
        "\\<script\\>alert\\(1\\)\\</script\\> \\| \\*\\*bold\\*\\* \\[l\\]\\(http:\u200b//x\\)"
        in text
    )


@pytest.mark.parametrize("workers", [[], ["-n", "2"]], ids=["serial", "xdist"])
def test_github_actions_get_one_annotation_per_failing_case(pytester, monkeypatch, workers):
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    pytester.makefile(".jsonmatch.yaml", invoices=CASES)
    result = pytester.runpytest_subprocess(*ARGS, *workers)
    annotations = [line for line in result.outlines if line.startswith("::")]
    # a comma and a colon in a property, a percent sign in the message, are escaped
    assert annotations == [
        "::error file=invoices.jsonmatch.yaml,line=9,title=jsonmatch field_f1::"
        "invoices.jsonmatch.yaml::no-json could not be scored: no JSON object found in actual: "
        "'I could not read the invoice, 100%25'",
        "::error file=invoices.jsonmatch.yaml,line=6,title=jsonmatch field_f1::"
        "invoices.jsonmatch.yaml::wrong-total: field_f1 score 0.5000 < threshold 0.9000; "
        "worst fields: total 0.00 (mismatch)",
    ]


def test_no_annotations_outside_github_actions(pytester, monkeypatch):
    monkeypatch.delenv("GITHUB_ACTIONS", raising=False)
    pytester.makefile(".jsonmatch.yaml", invoices=CASES)
    result = pytester.runpytest_inprocess(*ARGS)
    assert not [line for line in result.outlines if line.startswith("::error")]


def test_the_html_report_is_written_by_the_plugin_with_values_escaped(pytester):
    pytester.makefile(
        ".jsonmatch.yaml",
        c='cases:\n  - id: x\n    expected: {a: "</textarea><script>alert(1)</script>"}\n'
        '    actual: {a: "fine"}\n',
    )
    result = pytester.runpytest_inprocess(*ARGS, "--jsonmatch-report=out/report.html")
    result.assert_outcomes(failed=1)
    page = (pytester.path / "out" / "report.html").read_text()
    assert page.startswith("<!DOCTYPE html>")
    assert "<script>alert(1)</script>" not in page and "</textarea><script>" not in page
    # the value is in the page's data block, each "<" as its JSON escape
    assert "\\u003c/textarea>\\u003cscript>alert(1)\\u003c/script>" in page
    from tests.cli.html_data import case_ids, page_data

    assert case_ids(page_data(page)) == ["c.jsonmatch.yaml::x"]
    assert "http://" not in page and "https://" not in page  # nothing loads from the network
