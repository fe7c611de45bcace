"""assert_json_match under pytest (assertion.py): the failure message (headline, the fields
that cost points worst first, array pairings, min_score floors), its limits and how -v and
-vv raise them; format_failure and format_value on their own."""

from __future__ import annotations

import pytest

from pytest_jsonmatch import assert_json_match
from pytest_jsonmatch.reporting.render.failure_message import format_failure, format_value
from tests.helpers.plugin_cases import ARGS

# json_similarity (leaf similarity, headline = recall, no hallucinations):
#   vendor: levenshtein "ACME Corp" vs "ACME" = 1 - 5/9 = 4/9 = 0.4444
#   total:  relative 100 vs 80 = 1 - 20/100 = 0.80
#   city:   "Paris" == "Paris" = 1
#   recall = (4/9 + 0.8 + 1) / 3 = 0.748148...; precision and F1 are the same (no extras)
INVOICE_TEST = """
from pytest_jsonmatch import assert_json_match

def test_invoice():
    assert_json_match({"vendor": "ACME", "total": 80, "city": "Paris"},
                      {"vendor": "ACME Corp", "total": 100, "city": "Paris"},
                      metric="json_similarity", threshold=0.9)
"""


def test_failure_message_has_headline_then_costly_fields_worst_first(pytester):
    pytester.makepyfile(INVOICE_TEST)
    result = pytester.runpytest_inprocess(*ARGS)
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            ">       assert_json_match(*",
            "E       AssertionError: json_similarity: score 0.7481 < threshold 0.9000 "
            "(precision 0.7481, recall 0.7481, F1 0.7481)",
            "E       fields that cost points, worst first (2):",
            'E         vendor  mismatch       score 0.44  expected "ACME Corp"  actual "ACME"',
            "E         total   mismatch       score 0.80  expected 100  actual 80",
            "",
            "test_failure_message_has_headline_then_costly_fields_worst_first.py:4: AssertionError",
        ]
    )
    # the helper's own frame is hidden: the traceback ends at the test's line
    result.stdout.no_fnmatch_line("*def _check(*")


def test_passing_assertion_returns_the_result():
    # field_f1, flat: a and b both match exactly: P = R = F1 = 2/2 = 1
    result = assert_json_match({"a": 1, "b": "x"}, {"a": 1, "b": "x"})
    assert (result.metric, result.score) == ("field_f1", 1.0)


def test_the_error_carries_result_and_threshold():
    with pytest.raises(AssertionError) as info:
        assert_json_match({"a": 2}, {"a": 1}, threshold=0.5)
    assert info.value.threshold == 0.5
    assert info.value.result.score == 0.0  # one field, mismatched: TP 0


def test_array_pairings_show_which_expected_went_with_which_actual(pytester):
    # structural_f1: items pair by similarity: expected[0] "A" <-> actual[1], expected[1] "B"
    # <-> actual[0], expected[2] "C" unpaired (omission). TP 2; P = 2/2 = 1; R = 2/3;
    # F1 = 2 * 1 * 2/3 / (1 + 2/3) = 0.8
    pytester.makepyfile("""
        from pytest_jsonmatch import assert_json_match

        def test_items():
            assert_json_match({"items": [{"sku": "B"}, {"sku": "A"}]},
                              {"items": [{"sku": "A"}, {"sku": "B"}, {"sku": "C"}]},
                              metric="structural_f1")
    """)
    result = pytester.runpytest_inprocess(*ARGS)
    result.stdout.fnmatch_lines(
        [
            "E       AssertionError: structural_f1: score 0.8000 < threshold 1.0000 "
            "(precision 1.0000, recall 0.6667, F1 0.8000)",
            "E       fields that cost points, worst first (1):",
            'E         items[2].sku  omission       score 0.00  expected "C"  actual <missing>',
            "E       array pairings (expected <-> actual):",
            "E         items: expected[0] <-> actual[1] (1.00)",
            "E         items: expected[1] <-> actual[0] (1.00)",
        ]
    )


def test_min_score_failure_names_the_field(pytester):
    # field_f1: a mismatches (0), b matches (1): P = R = F1 = 1/2, which meets 0.5, but a is
    # below its min_score 0.9
    pytester.makepyfile("""
        from pytest_jsonmatch import assert_json_match

        def test_floor():
            assert_json_match({"a": "x", "b": 2}, {"a": "y", "b": 2}, threshold=0.5,
                              fields={"a": {"min_score": 0.9}})
    """)
    result = pytester.runpytest_inprocess(*ARGS)
    result.stdout.fnmatch_lines(
        [
            "E       AssertionError: field_f1: score 0.5000 >= threshold 0.5000, but 1 field is "
            "below min_score (precision 0.5000, recall 0.5000, F1 0.5000)",
            "E       fields that cost points, worst first (1):",
            'E         a  mismatch       score 0.00  expected "y"  actual "x"',
            "E       fields below their min_score:",
            "E         a: score 0.00 < min_score 0.9",
        ]
    )


MANY_FIELDS_TEST = """
from pytest_jsonmatch import assert_json_match

def test_many():
    expected = {f"f{i:02d}": i for i in range(60)}
    actual = {f"f{i:02d}": -1 for i in range(60)}
    assert_json_match(actual, expected, metric="field_match")
"""


@pytest.mark.parametrize(
    ("flags", "shown", "more"),
    [
        ((), 10, "E         ... 50 more fields (-v shows up to 50, -vv all)"),
        (("-v",), 50, "E         ... 10 more fields (-vv shows all)"),
        (("-vv",), 60, None),
    ],
)
def test_verbosity_raises_the_field_limit_and_pytest_keeps_the_whole_message(
    pytester, flags, shown, more
):
    # field_match: 60 top-level fields, each mismatched (score 0), listed in document order
    pytester.makepyfile(MANY_FIELDS_TEST)
    result = pytester.runpytest_inprocess(*ARGS, *flags)
    lines = [line for line in result.outlines if line.startswith("E         f")]
    assert len(lines) == shown
    assert lines[-1].startswith(f"E         f{shown - 1:02d}  mismatch")
    if more is None:
        result.stdout.no_fnmatch_line("*more fields*")
    else:
        result.stdout.fnmatch_lines([more])


def test_long_values_are_cut_unless_vv():
    long_text = "x" * 100
    assert format_value(long_text) == '"' + "x" * 56 + "..."  # 60 characters in all
    assert format_value(long_text, None) == f'"{long_text}"'
    assert format_value({"a": [1, 2]}) == '{"a": [1, 2]}'


def test_format_failure_is_pure_and_says_more_beyond_the_limit():
    from pytest_jsonmatch import match_json

    # field_match, 12 fields all wrong: score 0, ten listed and 2 more
    result = match_json(
        {f"k{i:02d}": 0 for i in range(12)},
        {f"k{i:02d}": 1 for i in range(12)},
        metric="field_match",
    )
    text = format_failure(result, 1.0)
    assert text.splitlines()[-1] == "  ... 2 more fields (-v shows up to 50, -vv all)"
    assert len(format_failure(result, 1.0, verbosity=2).splitlines()) == 2 + 12


@pytest.mark.parametrize(
    "threshold", ["0.9", "abc", 90, 2, -0.1, float("nan"), float("inf"), 10**400, True]
)
def test_a_threshold_that_is_not_a_number_in_the_unit_interval_is_a_config_error(threshold):
    from pytest_jsonmatch import ConfigError, assert_json_match

    with pytest.raises(ConfigError) as info:
        assert_json_match({"a": 1}, {"a": 1}, threshold=threshold)
    assert str(info.value).startswith("threshold must be a number in [0, 1], not ")
    assert len(str(info.value)) < 120  # a huge number is shown cut


def test_a_threshold_of_zero_or_one_and_ints_are_fine():
    from pytest_jsonmatch import assert_json_match

    assert assert_json_match({"a": 1}, {"a": 1}, threshold=1).score == 1.0
    assert assert_json_match({"a": 2}, {"a": 1}, threshold=0).score == 0.0


JUDGE_DOWN_TEST = """
import pytest
from pytest_jsonmatch import assert_json_match, register_comparator

def down(items):
    raise TimeoutError("LLM API timed out")

register_comparator("judge_down", down, batch=True)

def test_judged():
    assert_json_match({"a": "x", "b": "y", "c": "z"}, {"a": "x", "b": "y", "c": "z"},
                      metric="field_f1", threshold=0.0, fields={"b": {"comparator": "judge_down"}})
"""


def test_a_batch_comparator_that_fails_makes_the_comparison_an_error_not_a_score(pytester):
    # even at threshold 0, and with the other fields right, an unscored field is not a pass:
    # the case is an error in the summary, and the message names the field and the reason
    pytester.makepyfile(JUDGE_DOWN_TEST)
    result = pytester.runpytest(*ARGS)
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            "*ComparatorError: field_f1: 1 field could not be scored (batch comparator 'judge_down' "
            "raised TimeoutError: LLM API timed out) at b",
            "field_f1*1*0*0*1*",  # cases 1, pass 0, fail 0, error 1
        ]
    )


# tool_calls through assert_json_match: an OpenAI message's calls against BFCL's possible
# answers; name and city match, unit is not the acceptable one: P = R = 2/3, F1 = 0.6667
TOOL_CALL_TEST = """
from pytest_jsonmatch import assert_json_match

def test_agent_called_the_tool():
    message = {"role": "assistant", "tool_calls": [{"id": "c", "type": "function",
               "function": {"name": "get_weather",
                            "arguments": '{"city": "Paris", "unit": "kelvin"}'}}]}
    expected = {"possible_answer": [{"get_weather": {"city": ["Paris"],
                                                     "unit": ["celsius", ""]}}]}
    assert_json_match(message, expected, metric="tool_calls", threshold=1.0)
"""


def test_tool_call_failures_name_the_function_and_argument(pytester):
    pytester.makepyfile(TOOL_CALL_TEST)
    result = pytester.runpytest_inprocess(*ARGS)
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            "E       AssertionError: tool_calls: score 0.6667 < threshold 1.0000 "
            "(precision 0.6667, recall 0.6667, F1 0.6667)",
            "E       fields that cost points, worst first (1):",
            'E         get_weather.unit  mismatch       score 0.00  expected "celsius"  '
            'actual "kelvin"  (wrong value)',
        ]
    )
