"""The ``jsonmatch`` terminal summary: per-metric table, per-field table worst first, cut
unless -v, and silence in sessions that compared nothing."""

from __future__ import annotations

from tests.helpers.plugin_cases import ARGS, TWO_TESTS




def test_summary_has_a_metric_row_and_fields_worst_first(pytester):
    pytester.makepyfile(TWO_TESTS)
    result = pytester.runpytest_inprocess(*ARGS)
    result.assert_outcomes(passed=1, failed=1)
    # test_pass: a, b match: score 1.
    # test_fail: a match, b mismatch, d omission, c hallucination: TP = 1,
    #   P = 1/(1+1+1), R = 1/(1+1+1), F1 = 1/3.
    # field_f1 means over 2 comparisons: (1 + 1/3) / 2 = 0.6667 for score, P, R and F1.
    # fields: a 2 matches (1.0), b match + mismatch (0.5), c one hallucination (0),
    #   d one omission (0); worst first, ties by path: c, d, b, a
    result.stdout.fnmatch_lines([
        "*= jsonmatch =*",
        "metric    comparisons  passed  failed  mean score  precision  recall      F1",
        "field_f1            2       1       1      0.6667     0.6667  0.6667  0.6667",
        "overall score 0.6667 over 2 comparisons",
        "",
        "field  mean score  match  mismatch  omission  hallucination",
        "c          0.0000      0         0         0              1",
        "d          0.0000      0         0         1              0",
        "b          0.5000      1         1         0              0",
        "a          1.0000      2         0         0              0",
        "*short test summary info*",
    ])


def test_passing_comparisons_are_recorded_too(pytester):
    pytester.makepyfile("""
        from pytest_jsonmatch import assert_json_match

        def test_one():
            assert_json_match({"a": 1}, {"a": 1})
            assert_json_match({"a": 1}, {"a": 1}, metric="field_match")
    """)
    result = pytester.runpytest_inprocess(*ARGS)
    result.assert_outcomes(passed=1)
    # two comparisons in one test, one per metric, both perfect; metrics sorted by name
    result.stdout.fnmatch_lines([
        "*= jsonmatch =*",
        "metric       comparisons  passed  failed  mean score  precision  recall      F1",
        "field_f1               1       1       0      1.0000     1.0000  1.0000  1.0000",
        "field_match            1       1       0      1.0000     1.0000  1.0000  1.0000",
        "overall score 1.0000 over 2 comparisons",
    ])


def test_no_summary_in_a_session_without_comparisons(pytester):
    pytester.makepyfile("def test_plain():\n    assert 1 + 1 == 2\n")
    result = pytester.runpytest_inprocess(*ARGS, "--jsonmatch-fail-under=0.9")
    assert result.ret == 0
    result.stdout.no_fnmatch_line("*= jsonmatch =*")
    result.stdout.no_fnmatch_line("*overall score*")


TWENTY_FIELDS = """
from pytest_jsonmatch import assert_json_match

def test_wide():
    expected = {f"f{i:02d}": i for i in range(20)}
    actual = {f"f{i:02d}": (i if i >= 5 else -1) for i in range(20)}
    assert_json_match(actual, expected, threshold=0)
"""


def test_field_table_is_cut_to_15_rows(pytester):
    pytester.makepyfile(TWENTY_FIELDS)
    result = pytester.runpytest_inprocess(*ARGS)
    # f00..f04 mismatch (0.0) come first, then the perfect ones by path: f05..f14 fill 15 rows
    result.stdout.fnmatch_lines([
        "field  mean score  match  mismatch  omission  hallucination",
        "f00        0.0000      0         1         0              0",
        "f04        0.0000      0         1         0              0",
        "f05        1.0000      1         0         0              0",
        "f14        1.0000      1         0         0              0",
        "... 5 more fields (-v shows all)",
    ])
    result.stdout.no_fnmatch_line("f15 *")


def test_verbose_shows_every_field(pytester):
    pytester.makepyfile(TWENTY_FIELDS)
    result = pytester.runpytest_inprocess(*ARGS, "-v")
    result.stdout.fnmatch_lines(["f14 *", "f15 *", "f19        1.0000      1         0         0              0"])
    result.stdout.no_fnmatch_line("*more fields*")
