"""CI gates (report.py): --jsonmatch-fail-under, per-field floors, a baseline with a max drop. A
failing gate says why in the summary and makes the exit status non-zero though every test
passed. A baseline that is missing, half written or not a report is a one-line usage error
naming it, and is never rewritten."""

from __future__ import annotations

import json

import pytest

from tests.helpers.plugin_cases import ARGS, ONE_TEST
from tests.helpers.timeout import GENEROUS, within

FAST = ARGS  # the same flags, under the name some tests here were written with


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
    result = pytester.runpytest_inprocess(*ARGS, "--jsonmatch-fail-under=0.8")
    result.assert_outcomes(passed=2)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines([
        "overall score 0.7500 over 2 comparisons",
        "*",
        "FAILED: the session did not pass its jsonmatch gates:",
        "  overall score 0.7500 is below jsonmatch_fail_under 0.8000",
    ])


def test_fail_under_met_leaves_the_exit_status_alone(pytester):
    pytester.makepyfile(PASSING)
    result = pytester.runpytest_inprocess(*ARGS, "--jsonmatch-fail-under=0.75")
    assert result.ret == pytest.ExitCode.OK
    result.stdout.no_fnmatch_line("*jsonmatch gates*")


def test_fail_under_from_ini(pytester):
    pytester.makeini("[pytest]\njsonmatch_fail_under = 0.9\n")
    pytester.makepyfile(PASSING)
    result = pytester.runpytest_inprocess(*ARGS)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(["  overall score 0.7500 is below jsonmatch_fail_under 0.9000"])


def test_the_flag_wins_over_the_ini(pytester):
    pytester.makeini("[pytest]\njsonmatch_fail_under = 0.9\n")
    pytester.makepyfile(PASSING)
    assert pytester.runpytest_inprocess(*ARGS, "--jsonmatch-fail-under=0.5").ret == 0


def test_field_floors_fail_the_session_and_name_the_field(pytester):
    pytester.makeini("""
        [pytest]
        jsonmatch_field_floors =
            a=0.9
            b=0.6
            never.seen=1
    """)
    pytester.makepyfile(PASSING)
    result = pytester.runpytest_inprocess(*ARGS)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    # a: 1.0 >= 0.9 passes; b: 0.5 < 0.6 fails; a field no test produced is not judged
    result.stdout.fnmatch_lines([
        "FAILED: the session did not pass its jsonmatch gates:",
        "  field b: mean score 0.5000 is below its floor 0.6000",
    ])
    result.stdout.no_fnmatch_line("*field a:*")
    result.stdout.no_fnmatch_line("*never.seen*")


def test_a_failing_gate_keeps_a_failed_run_failed(pytester):
    pytester.makepyfile("""
        from pytest_jsonmatch import assert_json_match

        def test_bad():
            assert_json_match({"a": 2}, {"a": 1})
    """)
    result = pytester.runpytest_inprocess(*ARGS, "--jsonmatch-fail-under=1")
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(["  overall score 0.0000 is below jsonmatch_fail_under 1.0000"])


def _baseline(pytester, overall, fields):
    path = pytester.path / "baseline.json"
    path.write_text(json.dumps({"overall": overall,
                                "fields": {k: {"mean_score": v} for k, v in fields.items()}}))
    return path


def test_baseline_drop_beyond_max_drop_fails_and_shows_deltas(pytester):
    pytester.makepyfile(PASSING)
    _baseline(pytester, 1.0, {"a": 1.0, "b": 1.0, "gone": 1.0})
    result = pytester.runpytest_inprocess(*ARGS, "--jsonmatch-baseline=baseline.json",
                                          "--jsonmatch-max-drop=0.3")
    result.assert_outcomes(passed=2)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    # overall 1.0 -> 0.75 (-0.25, within 0.3); b 1.0 -> 0.5 (-0.5, beyond 0.3); a unchanged
    result.stdout.fnmatch_lines([
        "overall score 0.7500 over 2 comparisons (baseline 1.0000, -0.2500)",
        "",
        "field  mean score  match  mismatch  omission  hallucination  vs baseline",
        "b          0.5000      1         1         0              0      -0.5000",
        "a          1.0000      2         0         0              0      +0.0000",
        "FAILED: the session did not pass its jsonmatch gates:",
        "  field b: mean score dropped by 0.5000 (1.0000 -> 0.5000), more than "
        "jsonmatch_max_drop 0.3000",
    ])
    result.stdout.no_fnmatch_line("*overall score dropped*")


def test_baseline_drop_within_max_drop_passes(pytester):
    pytester.makepyfile(PASSING)
    _baseline(pytester, 1.0, {"a": 1.0, "b": 1.0})
    result = pytester.runpytest_inprocess(*ARGS, "--jsonmatch-baseline=baseline.json",
                                          "--jsonmatch-max-drop=0.5")
    assert result.ret == pytest.ExitCode.OK
    result.stdout.fnmatch_lines(["overall score 0.7500 over 2 comparisons (baseline 1.0000, -0.2500)"])


def test_baseline_default_max_drop_is_zero(pytester):
    pytester.makepyfile(PASSING)
    # a new field (c) is shown as new and never judged; the overall drop 0.8 -> 0.75 fails
    _baseline(pytester, 0.8, {"a": 1.0, "c": 0.0})
    result = pytester.runpytest_inprocess(*ARGS, "--jsonmatch-baseline=baseline.json")
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines([
        "b          0.5000      1         1         0              0          new",
        "  overall score dropped by 0.0500 (0.8000 -> 0.7500), more than jsonmatch_max_drop 0.0000",
    ])


def test_a_report_serves_as_the_next_runs_baseline(pytester):
    pytester.makepyfile(PASSING)
    assert pytester.runpytest_inprocess(*ARGS, "--jsonmatch-report=run1.json").ret == 0
    result = pytester.runpytest_inprocess(*ARGS, "--jsonmatch-baseline=run1.json")
    assert result.ret == 0
    result.stdout.fnmatch_lines(["overall score 0.7500 over 2 comparisons (baseline 0.7500, +0.0000)"])


@pytest.mark.parametrize(("content", "error"), [
    (None, "cannot read the baseline *missing.json*"),
    ("{not json", "the baseline *missing.json is not valid JSON*"),
    ('{"fields": {"a": 3}}', "the baseline *missing.json is not a jsonmatch report"),
])
def test_an_unusable_baseline_is_a_usage_error(pytester, content, error):
    if content is not None:
        (pytester.path / "missing.json").write_text(content)
    pytester.makepyfile(PASSING)
    result = pytester.runpytest_inprocess(*ARGS, "--jsonmatch-baseline=missing.json")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["ERROR: pytest-jsonmatch: " + error])


# -- a baseline that cannot be used -----------------------------------------------------------


@pytest.mark.parametrize(("content", "words"), [
    ('{"overall": 0.9, "fields": {', "is not valid JSON"),
    ("", "is not valid JSON"),
    ('["not", "a", "report"]', "is not a jsonmatch report"),
], ids=["half-written", "empty", "not-a-report"])
def test_a_broken_baseline_is_a_one_line_usage_error(pytester, content, words):
    pytester.makepyfile(test_one=ONE_TEST)
    (pytester.path / "base.json").write_text(content)
    with within(GENEROUS):
        result = pytester.runpytest_inprocess(*FAST, "--jsonmatch-baseline=base.json")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    err = result.stderr.str()
    assert "Traceback" not in err + result.stdout.str()
    assert f"pytest-jsonmatch: the baseline {pytester.path / 'base.json'} {words}" in err
    assert (pytester.path / "base.json").read_text() == content  # never rewritten by a failed run


def test_a_missing_baseline_names_the_path(pytester):
    pytester.makepyfile(test_one=ONE_TEST)
    with within(GENEROUS):
        result = pytester.runpytest_inprocess(*FAST, "--jsonmatch-baseline=nowhere/base.json")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert (f"pytest-jsonmatch: cannot read the baseline {pytester.path / 'nowhere' / 'base.json'}: "
            f"No such file or directory") in result.stderr.str()
