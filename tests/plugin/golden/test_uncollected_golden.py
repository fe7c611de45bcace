"""A golden folder pytest does not collect is said (issue 75, "no silent typo"): one outside
``testpaths`` is named with how to collect it; and a baseline given to a run that compared no
case fails it, rather than passing a gate over nothing. Real pytest sessions (in process)."""

from __future__ import annotations

import pytest

from tests.helpers.plugin_cases import ARGS, write

pytestmark = pytest.mark.slow  # (CONTRIBUTING.md: the inner loop leaves it out)

INI = "[pytest]\ntestpaths = tests\njsonmatch_golden = golden\n"
CASE = "expected: {a: 1}\nactual: {a: 1}\n"


def _suite(pytester: pytest.Pytester) -> None:
    write(pytester, "pytest.ini", INI)
    write(pytester, "golden/one.yaml", CASE)
    write(pytester, "tests/test_plain.py", "def test_plain():\n    pass\n")


def test_a_golden_folder_outside_testpaths_is_said_with_how_to_collect_it(pytester):
    _suite(pytester)
    result = pytester.runpytest_inprocess(*ARGS)
    out = result.stdout.str()
    assert result.ret == 0, out  # (a warning: the run is what it was asked to be)
    assert (
        "jsonmatch_golden folder 'golden' is not collected: pytest collects testpaths "
        "(tests) only; add 'golden' to testpaths, or name it: pytest golden"
    ) in out, out


def test_a_golden_folder_that_is_collected_is_not_said(pytester):
    _suite(pytester)
    out = pytester.runpytest_inprocess(*ARGS, "golden", "tests").stdout.str()
    assert "is not collected" not in out, out
    write(pytester, "pytest.ini", INI.replace("= tests", "= tests golden"))
    out = pytester.runpytest_inprocess(*ARGS).stdout.str()
    assert "is not collected" not in out, out


def test_a_baseline_given_to_a_run_that_compared_no_case_fails(pytester):
    _suite(pytester)
    made = pytester.runpytest_inprocess(*ARGS, "golden", "--jsonmatch-report=base.json")
    assert made.ret == 0, made.stdout.str()
    result = pytester.runpytest_inprocess(*ARGS, "--jsonmatch-baseline=base.json")
    out = result.stdout.str()
    assert result.ret == pytest.ExitCode.TESTS_FAILED, out
    assert "jsonmatch_golden folder 'golden' is not collected" in out, out
    assert (
        "this run compared no case (none was collected: are the golden cases where the run looks?)"
        in out
    ), out
