"""CI gates (reporting/verdicts/gates.py through the plugin): --jsonmatch-gates fail_under, per-field floors
(patterns; a floor that matches nothing is named, and fails with a 'strict' line), and a
baseline held case by case with a largest drop: statistical by default (a drop beyond
max_drop fails only when its 95% interval lies below zero, else it is a warning), strict on
request. A failing gate says why and makes the exit status non-zero though every test
passed. A baseline that cannot be used is a one-line usage error naming it, never rewritten.
"""

from __future__ import annotations

import json
import os

import pytest

from tests.helpers.plugin_cases import ARGS, ONE_TEST
from tests.helpers.timeout import GENEROUS, within

pytestmark = pytest.mark.slow  # (CONTRIBUTING.md: the inner loop leaves it out)


@pytest.fixture(autouse=True)
def wide_terminal(monkeypatch):
    """Whole reasons on one line each (at 80 columns they wrap)."""
    monkeypatch.setenv("COLUMNS", "250")


# Both tests pass (threshold 0). field_f1:
#   test_perfect: a, b match: score 1
#   test_half:    a match, b mismatch: TP 1, P = R = F1 = 1/2
# overall = (1 + 0.5) / 2 = 0.75; field a: 2/2 = 1.0; field b: (1 + 0) / 2 = 0.5
PASSING = """
from pytest_jsonmatch import assert_json_match

def test_perfect():
    assert_json_match({"a": 1, "b": "x"}, {"a": 1, "b": "x"}, threshold=0)

def test_half():
    assert_json_match({"a": 1, "b": "y"}, {"a": 1, "b": "x"}, threshold=0)
"""


def test_fail_under_fails_a_session_whose_tests_all_passed(pytester):
    pytester.makepyfile(PASSING)
    result = pytester.runpytest_inprocess(*ARGS, "--jsonmatch-gates=fail_under=0.8")
    result.assert_outcomes(passed=2)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(
        [
            "overall score 0.7500 over 2 cases",
            "*",
            "FAILED: jsonmatch gates: 1 failure",
            "  overall score 0.7500 is below jsonmatch_gates fail_under 0.8000",
        ]
    )


def test_fail_under_met_leaves_the_exit_status_alone(pytester):
    pytester.makepyfile(PASSING)
    result = pytester.runpytest_inprocess(*ARGS, "--jsonmatch-gates=fail_under=0.75")
    assert result.ret == pytest.ExitCode.OK
    result.stdout.no_fnmatch_line("*FAILED*jsonmatch gates*")
    # a passing run says which gates it passed
    result.stdout.fnmatch_lines(
        [
            "jsonmatch gates passed: overall score 0.7500 is at least jsonmatch_gates fail_under 0.7500"
        ]
    )


def test_fail_under_from_ini(pytester):
    pytester.makeini("[pytest]\njsonmatch_gates = fail_under=0.9\n")
    pytester.makepyfile(PASSING)
    result = pytester.runpytest_inprocess(*ARGS)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(
        ["  overall score 0.7500 is below jsonmatch_gates fail_under 0.9000"]
    )


def test_the_flag_wins_over_the_ini(pytester):
    pytester.makeini("[pytest]\njsonmatch_gates = fail_under=0.9\n")
    pytester.makepyfile(PASSING)
    assert pytester.runpytest_inprocess(*ARGS, "--jsonmatch-gates=fail_under=0.5").ret == 0


def test_a_failing_gate_keeps_a_failed_run_failed(pytester):
    pytester.makepyfile("""
        from pytest_jsonmatch import assert_json_match

        def test_bad():
            assert_json_match({"a": 2}, {"a": 1})
    """)
    result = pytester.runpytest_inprocess(*ARGS, "--jsonmatch-gates=fail_under=1")
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(
        ["  overall score 0.0000 is below jsonmatch_gates fail_under 1.0000"]
    )


# -- field floors ---------------------------------------------------------------------------------


def test_field_floors_fail_the_session_and_name_the_field(pytester):
    pytester.makeini("""
        [pytest]
        jsonmatch_field_floors =
            a=0.9
            b=0.6
    """)
    pytester.makepyfile(PASSING)
    result = pytester.runpytest_inprocess(*ARGS)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    # a: 1.0 >= 0.9 passes; b: 0.5 < 0.6 fails
    result.stdout.fnmatch_lines(
        [
            "FAILED: jsonmatch gates: 1 failure",
            "  field b (field_f1): mean score 0.5000 is below its floor 0.6000",
        ]
    )
    result.stdout.no_fnmatch_line("*field a (*")
    result.stdout.no_fnmatch_line("jsonmatch gates passed*")


ITEMS = """
from pytest_jsonmatch import assert_json_match

def test_items():
    # items[].sku matches (1.0); items[].qty 2 vs 3 mismatches (0.0); skills: no such field
    assert_json_match({"items": [{"sku": "A", "qty": 3}]}, {"items": [{"sku": "A", "qty": 2}]},
                      threshold=0)
"""


def test_a_floor_pattern_holds_every_field_it_matches(pytester):
    pytester.makeini("[pytest]\njsonmatch_field_floors = items[].*=0.5\n")
    pytester.makepyfile(ITEMS)
    result = pytester.runpytest_inprocess(*ARGS)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(
        [
            "  field items[[]].qty (field_f1): mean score 0.0000 is below its "
            "floor 0.5000, floor 'items[[]].*'"
        ]
    )
    result.stdout.no_fnmatch_line("*items[[]].sku: mean*")


def test_a_floor_that_matches_no_field_is_named_with_the_closest_paths(pytester):
    pytester.makeini("[pytest]\njsonmatch_field_floors = items[].skus=0.9\n")
    pytester.makepyfile(ITEMS)
    result = pytester.runpytest_inprocess(*ARGS)
    assert result.ret == pytest.ExitCode.OK  # a warning, not a failure
    result.stdout.fnmatch_lines(
        [
            "warning: floor 'items[[]].skus' matched no scored field of this "
            "run; did you mean 'items[[]].sku' or 'items[[]].qty'? "
            "('strict' in jsonmatch_field_floors fails the run)"
        ]
    )


def test_with_a_strict_line_a_floor_that_matches_nothing_fails(pytester):
    pytester.makeini("[pytest]\njsonmatch_field_floors =\n    strict\n    skils[]=0.99\n")
    pytester.makepyfile(ITEMS)
    result = pytester.runpytest_inprocess(*ARGS)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(
        [
            "FAILED: jsonmatch gates: 1 failure",
            "  floor 'skils[[]]' matched no scored field of this run*",
        ]
    )


def test_a_misspelt_floor_line_is_a_usage_error(pytester):
    pytester.makeini("[pytest]\njsonmatch_field_floors = items[.sku=0.9\n")
    pytester.makepyfile(ITEMS)
    result = pytester.runpytest_inprocess(*ARGS)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        [
            "ERROR: pytest-jsonmatch: jsonmatch_field_floors: cannot read "
            "path 'items[.sku' at character 5"
        ]
    )


# -- baselines, case by case ----------------------------------------------------------------------

# One test per case; each case compares four keys, of which SCORES[case] match: under field_f1
# its score is matching / 4, and fields a..d score 1 or 0 in key order.
SCORED = """
import json, pathlib, pytest
from pytest_jsonmatch import assert_json_match

SCORES = json.loads(pathlib.Path(__file__).with_name("scores.json").read_text())

@pytest.mark.parametrize("case", sorted(SCORES))
def test_case(case):
    expected = {k: 1 for k in "abcd"}
    actual = {k: (1 if i < SCORES[case] else 2) for i, k in enumerate("abcd")}
    assert_json_match(actual, expected, threshold=0)
"""


def _run_with(pytester, scores, *flags):
    (pytester.path / "scores.json").write_text(json.dumps(scores))
    pytester.makepyfile(test_cases=SCORED)
    return pytester.runpytest_inprocess(*ARGS, *flags)


def _baseline(pytester, scores):
    assert _run_with(pytester, scores, "--jsonmatch-report=base.json").ret == 0


SIX_PERFECT = {f"c{i}": 4 for i in range(6)}


def test_a_real_regression_fails_with_its_interval(pytester):
    _baseline(pytester, SIX_PERFECT)
    # every case loses c and d: each difference is -0.5, the interval is exactly that
    result = _run_with(
        pytester,
        dict.fromkeys(SIX_PERFECT, 2),
        "--jsonmatch-baseline=base.json",
        "--jsonmatch-gates=max_drop=0.1",
    )
    result.assert_outcomes(passed=6)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(
        [
            "FAILED: jsonmatch gates: 9 failures",  # the mean, fields c and d, and the six cases
            "  overall score dropped by 0.5000 (1.0000 -> 0.5000 over 6 shared cases), more than*",
            "  field c (field_f1): mean score dropped by 1.0000 (1.0000 -> 0.0000 over 6 shared "
            "cases), more*",
            "  field d (field_f1): mean score dropped by 1.0000*",
            "  case test_cases.py::test_case[[]c0[]] (test_cases.py:*) dropped from 1.0000 to 0.5000, by more than "
            "jsonmatch_gates max_drop 0.1000",
        ]
    )


# c0, c1 lose one key (-0.25 each), c2 gains one (+0.25): differences -0.25, -0.25, +0.25, 0, 0, 0
NOISE = {"c0": 3, "c1": 3, "c2": 4, "c3": 3, "c4": 4, "c5": 4}
NOISE_BEFORE = {"c0": 4, "c1": 4, "c2": 3, "c3": 3, "c4": 4, "c5": 4}


def test_a_drop_that_may_be_noise_is_a_warning_naming_n_and_the_detectable_drop(pytester):
    _baseline(pytester, NOISE_BEFORE)
    # c0 and c1 dropped by 0.25 each: the per-case rule, held at 0.25, lets them be
    result = _run_with(
        pytester,
        NOISE,
        "--jsonmatch-baseline=base.json",
        "--jsonmatch-gates=max_drop=0.01",
        "--jsonmatch-gates=max_case_drop=0.25",
        "-v",
    )
    assert result.ret == pytest.ExitCode.OK
    # mean -0.25/6 = -0.0417; s = 0.18819, SE = s / sqrt(6) = 0.07683;
    # t(0.975, 5) = 2.5706: interval -0.0417 -/+ 0.1975 = -0.2392 to +0.1558, includes 0;
    # detectable (1.95996 + 0.84162) * 0.07683 = 0.2152
    result.stdout.fnmatch_lines(
        [
            "warning: overall score dropped by 0.0417 (0.9167 -> 0.8750 over 6 shared cases), "
            "more than jsonmatch_gates max_drop 0.0100, but it may be noise: the 95% interval -0.2392 to "
            "+0.1558 includes no change, and 6 cases can only detect drops of 0.2152 or more, "
            "so the statistical rule passes it ('strict' in jsonmatch_gates fails it)",
        ]
    )


def test_strict_gates_fail_on_the_point_estimate(pytester):
    pytester.makeini("[pytest]\njsonmatch_gates = strict\n")
    _baseline(pytester, NOISE_BEFORE)
    result = _run_with(
        pytester, NOISE, "--jsonmatch-baseline=base.json", "--jsonmatch-gates=max_drop=0.01"
    )
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    # field d (1 where 4 keys match): before 1, 1, 0, 0, 1, 1 (4/6), after 0, 0, 1, 0, 1, 1
    # (3/6): differences -1, -1, +1, 0, 0, 0, mean -1/6 = -0.1667
    result.stdout.fnmatch_lines(
        [
            "FAILED: jsonmatch gates: 4 failures",
            "  overall score dropped by 0.0417 (0.9167 -> 0.8750 over 6 shared cases), more than "
            "jsonmatch_gates max_drop 0.0100: 'strict' in jsonmatch_gates fails any drop beyond it",
            "  field d (field_f1): mean score dropped by 0.1667 (0.6667 -> 0.5000 over 6 shared "
            "cases), more than jsonmatch_gates max_drop 0.0100; worse in 2 cases "
            "(test_cases.py::test_case[[]c0[]], test_cases.py::test_case[[]c1[]]): 'strict' in "
            "jsonmatch_gates fails any drop beyond it",
            "  case test_cases.py::test_case[[]c0[]] (test_cases.py:*) dropped from 1.0000 to 0.7500, by more than "
            "jsonmatch_gates max_drop 0.0100",
            "  case test_cases.py::test_case[[]c1[]] (test_cases.py:*) dropped from 1.0000 to 0.7500, by more than "
            "jsonmatch_gates max_drop 0.0100",
        ]
    )


def test_a_subset_against_a_full_baseline_reports_no_change(pytester):
    _baseline(pytester, {"c0": 4, "c1": 2, "c2": 3, "c3": 1})
    # -k keeps c0 and c2, unchanged: the full run's mean (0.625) is not what they are held to
    result = _run_with(
        pytester,
        {"c0": 4, "c1": 2, "c2": 3, "c3": 1},
        "--jsonmatch-baseline=base.json",
        "-k",
        "c0 or c2",
    )
    assert result.ret == pytest.ExitCode.OK
    result.stdout.fnmatch_lines(
        [
            "baseline *base.json: 2 cases shared, 0 added, 2 removed",
            "  mean change +0.0000 (0.8750 -> 0.8750), 95% interval +0.0000 to +0.0000, detectable*",
            "  removed: test_cases.py::test_case[[]c1[]], test_cases.py::test_case[[]c3[]]",
        ]
    )
    result.stdout.no_fnmatch_line("*score dropped*")
    result.stdout.no_fnmatch_line("*case * dropped from*")


def test_the_summary_lists_the_cases_that_changed_most_worst_first(pytester):
    _baseline(pytester, {"c0": 4, "c1": 4, "c2": 2, "old": 4})
    result = _run_with(
        pytester,
        {"c0": 1, "c1": 3, "c2": 4, "new": 4},
        "--jsonmatch-baseline=base.json",
        "--jsonmatch-gates=max_drop=1",
    )
    # c0: 1.0 -> 0.25 (-0.75), c1: 1.0 -> 0.75 (-0.25), c2: 0.5 -> 1.0 (+0.5); pass/fail do
    # not change (threshold 0)
    result.stdout.fnmatch_lines(
        [
            "baseline *base.json: 3 cases shared, 1 added, 1 removed",
            "  pass -> fail 0, fail -> pass 0 (McNemar p = 1.0000)",
            "  changed most                  before   after   change",
            "  test_cases.py::test_case[[]c0[]]  1.0000  0.2500  -0.7500",
            "  test_cases.py::test_case[[]c1[]]  1.0000  0.7500  -0.2500",
            "  test_cases.py::test_case[[]c2[]]  0.5000  1.0000  +0.5000",
            "  added: test_cases.py::test_case[[]new[]]",
            "  removed: test_cases.py::test_case[[]old[]]",
        ]
    )


# -- a baseline that cannot be used -----------------------------------------------------------


@pytest.mark.parametrize(
    ("content", "words"),
    [
        ('{"overall": 0.9, "fields": {', "is not valid JSON"),
        ("", "is not valid JSON"),
        ('["not", "a", "report"]', "is not a jsonmatch report"),
        ('{"fields": {"a": 3}}', "is not a jsonmatch report"),
        (
            '{"version": 4, "overall": NaN, "comparisons": []}',
            "is not valid JSON: NaN is not a number",
        ),
        (
            '{"version": 4, "comparisons": [{"case_id": "x"}]}',
            "$.comparisons[0]: must contain ['error', ",
        ),
        ('{"version": 2, "comparisons": []}', "$.version: not a version-4 jsonmatch report"),
    ],
    ids=[
        "half-written",
        "empty",
        "not-a-report",
        "aggregates-only",
        "nan",
        "no-fields",
        "version-2",
    ],
)
def test_a_broken_baseline_is_a_one_line_usage_error(pytester, content, words):
    pytester.makepyfile(test_one=ONE_TEST)
    (pytester.path / "base.json").write_text(content)
    with within(GENEROUS):
        result = pytester.runpytest_inprocess(*ARGS, "--jsonmatch-baseline=base.json")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    err = result.stderr.str()
    assert "Traceback" not in err + result.stdout.str()
    named = f"pytest-jsonmatch: the baseline {pytester.path / 'base.json'}"
    assert f"{named} {words}" in err or f"{named}: {words}" in err  # the file, then its place
    assert (pytester.path / "base.json").read_text() == content  # never rewritten by a failed run


def test_a_missing_baseline_names_the_path(pytester):
    pytester.makepyfile(test_one=ONE_TEST)
    with within(GENEROUS):
        result = pytester.runpytest_inprocess(*ARGS, "--jsonmatch-baseline=nowhere/base.json")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert (
        f"pytest-jsonmatch: cannot read baseline {str(pytester.path / 'nowhere' / 'base.json')!r}: "
        f"No such file or directory"
    ) in result.stderr.str()


def test_a_baseline_that_is_a_fifo_is_refused_at_once(pytester):
    os.mkfifo(pytester.path / "pipe.json")
    pytester.makepyfile(test_one=ONE_TEST)
    with within(GENEROUS, "a FIFO as baseline"):
        result = pytester.runpytest_inprocess(*ARGS, "--jsonmatch-baseline=pipe.json")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert (
        f"pytest-jsonmatch: baseline {str(pytester.path / 'pipe.json')!r} is not a regular file "
        f"(a FIFO)"
    ) in result.stderr.str()
