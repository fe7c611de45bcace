"""Reading a golden case's failure (issue 75, item 5): the section pytest prints is headed by
the case's id as every other output names it (the case file's path from the root dir, the
case, its ``[target]``) and the line where the case starts; under GitHub Actions the
annotation on the pull request names the fields that cost the most, with their scores; a
cut-off answer pasted as a ``|`` block scalar (YAML adds a final newline inside its
unfinished string) is scored as cut off, as ``|-`` is. Real pytest sessions (pytester)."""

from __future__ import annotations

import re

import pytest

from tests.helpers.plugin_cases import ARGS, write


def _titles(out: str) -> list[str]:
    """The titles of the failure sections pytest printed (``____ title ____``)."""
    return re.findall(r"^_{3,} (.+?) _{3,}$", out, flags=re.MULTILINE)


EMAILS = """\
threshold: 0.9
cases:
  - id: refund_1
    expected: {order_id: A-17, sentiment: negative}
    actual: {order_id: A-17, sentiment: negative}
  - id: refund_3
    expected: {order_id: A-19, sentiment: negative}
    actual: {order_id: A-19, sentiment: positive}
"""


def test_a_failure_is_headed_by_its_case_file_case_and_line(pytester):
    write(pytester, "golden/emails.jsonmatch.yaml", EMAILS)
    result = pytester.runpytest_inprocess(*ARGS)
    result.assert_outcomes(passed=1, failed=1)
    # the id of the report, the gates and the short summary, and the line the case starts at
    assert _titles(result.stdout.str()) == ["golden/emails.jsonmatch.yaml::refund_3 (line 6)"]
    result.stdout.fnmatch_lines(["FAILED golden/emails.jsonmatch.yaml::refund_3*"])


def test_a_named_targets_failure_is_headed_by_its_id_with_the_target(pytester):
    write(
        pytester,
        "golden/inv.jsonmatch.yaml",
        """\
        cases:
          - id: acme
            input: {vendor: ACME, total: 10}
            expected: {vendor: ACME, total: 10}
        """,
    )
    pytester.makeconftest(
        """
        def pytest_jsonmatch_target(case, config, target):
            return dict(case.input) if target == "base" else {"vendor": "?", "total": 10}
        """
    )
    pytester.makeini("[pytest]\njsonmatch_targets =\n    base\n    cand\n    wild\n")
    result = pytester.runpytest_inprocess(*ARGS)
    result.assert_outcomes(passed=1, failed=2)
    # each target's failure its own section, named as docs/ci.md names the case everywhere
    assert _titles(result.stdout.str()) == [
        "golden/inv.jsonmatch.yaml::acme[cand] (line 2)",
        "golden/inv.jsonmatch.yaml::acme[wild] (line 2)",
    ]


# order_id and sentiment wrong, summary near (levenshtein), the rest right: the annotation
# names the three worst of the fields that cost points, worst first, and how many more
FIELDS = """\
threshold: 0.9
options: {fields: {summary: {comparator: levenshtein}}}
cases:
  - id: refund_3
    expected: {order_id: A-19, sentiment: negative, summary: refund asked, qty: 1, sku: X, note: n}
    actual: {order_id: A-91, sentiment: positive, summary: refund asked!, qty: 2, sku: X, note: n}
"""


def _annotations(out: str) -> list[str]:
    return [line for line in out.splitlines() if line.startswith("::error")]


@pytest.mark.parametrize("workers", [[], ["-n", "2"]], ids=["serial", "xdist"])
def test_an_annotation_names_the_worst_fields_with_their_scores(pytester, monkeypatch, workers):
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    write(pytester, "golden/emails.jsonmatch.yaml", FIELDS)
    result = pytester.runpytest_subprocess(*ARGS, *workers)
    result.assert_outcomes(failed=1)
    # order_id, sentiment, qty mismatch: 0 each; summary 'refund asked' against
    # 'refund asked!': levenshtein 1 - 1/13 = 12/13 = 0.923...; sku and note match.
    # Six fields, TP = 2 + 12/13 = 38/13 of 6: P = R = F1 = 38/78 = 0.4872...
    # The three worst in path order among equals (as the failure lists them), then one more.
    (line,) = _annotations(result.stdout.str())
    assert line == (
        "::error file=golden/emails.jsonmatch.yaml,line=4,title=jsonmatch field_f1::"
        "golden/emails.jsonmatch.yaml::refund_3: field_f1 score 0.4872 < threshold 0.9000; "
        "worst fields: order_id 0.00 (mismatch), sentiment 0.00 (mismatch), qty 0.00 "
        "(mismatch), and 1 more"
    )


def test_an_annotation_names_a_field_below_its_floor_and_escapes_field_paths(pytester, monkeypatch):
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    # a key holding a comma, a colon, a percent sign and a workflow command's marker
    write(
        pytester,
        "golden/floors.jsonmatch.yaml",
        """\
        threshold: 0.9
        options: {fields: {'["a,b:%##[x]"]': {min_score: 1}}}
        cases:
          - id: floor
            expected: {"a,b:%##[x]": 1, c: 1, d: 1}
            actual: {"a,b:%##[x]": 2, c: 1, d: 1}
        """,
    )
    result = pytester.runpytest_subprocess(*ARGS)
    result.assert_outcomes(failed=1)
    # 2 of 3 match: 2/3 < 0.9, and the field is below its floor, which the annotation says;
    # the path's percent sign escaped, '##[' broken by a zero-width space
    (line,) = _annotations(result.stdout.str())
    assert line == (
        "::error file=golden/floors.jsonmatch.yaml,line=4,title=jsonmatch field_f1::"
        "golden/floors.jsonmatch.yaml::floor: field_f1 score 0.6667 < threshold 0.9000; "
        'worst fields: ["a,b:%25#\u200b#[x]"] 0.00 '
        "(mismatch, below min_score 1)"
    )


def test_a_cut_off_answer_in_a_literal_block_scalar_is_scored_as_cut_off(pytester):
    # The docs advise '|' to keep the answer exactly; YAML's clip keeps one final newline,
    # which here falls inside the string the model was writing. '|-' strips it.
    answer = '{"order_id": "A-17", "sentiment": "negative", "summary": "Customer wa'
    write(
        pytester,
        "golden/cut.jsonmatch.yaml",
        "options: {truncated: close}\ncases:\n"
        + "".join(
            f"  - id: {name}\n"
            "    expected: {order_id: A-17, sentiment: negative, summary: Customer wants a refund}\n"
            f"    actual: {style}\n      {answer}\n"
            for name, style in (("clip", "|"), ("strip", "|-"), ("keep", "|+"))
        )
        + "\n",
    )
    result = pytester.runpytest_inprocess(*ARGS, "-rA")
    # closed: {"order_id": "A-17", "sentiment": "negative", "summary": "Customer wa"}:
    # order_id and sentiment match, summary mismatches under exact: TP = 2 of 3 each side,
    # P = R = F1 = 2/3 = 0.6667, below the threshold 1: each case fails, scored, not an error
    result.assert_outcomes(failed=3)
    out = result.stdout.str()
    assert "broken" not in out and "no JSON object found" not in out, out
    # the text ends where the model stopped, at column 70 of line 1, whichever the chomping:
    # len(answer) = 69 characters: {"order_id": 13, "A-17", 8, "sentiment": 13,
    # "negative", 12, "summary": 11, "Customer wa 12
    assert len(answer) == 69
    assert out.count("field_f1: score 0.6667 < threshold 1.0000") == 3
    assert out.count("cut off (truncated) at line 1, column 70, after 69 characters") == 3
