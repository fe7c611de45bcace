"""Repeated cases (golden.py and reporting/run_model/aggregate.py): ``repeat: N`` on a case, a file or a
folder, or --jsonmatch-repeat=N, runs the target of an ``input:`` case N times; each run is
recorded with its repeat index, the case passes by jsonmatch_repeat's rule (mean, all,
majority), the summary shows its mean, min, max and passed runs, and it counts once, with its
mean, in every aggregate and baseline."""

from __future__ import annotations

import json

import pytest

from tests.helpers.plugin_cases import ARGS

# The target answers {"a": 1, "b": "x"}, then "y", "x", "y", ... for b: against
# {a: 1, b: x} under field_f1, runs score 1.0, 0.5, 1.0, 0.5, ...
TARGET = """
import itertools
answers = itertools.cycle(["x", "y"])

def pytest_jsonmatch_target(case, config):
    return {"a": 1, "b": next(answers)}
"""


def _suite(pytester, cases, ini=""):
    pytester.makeconftest(TARGET)
    if ini:
        pytester.makeini("[pytest]\n" + ini)
    pytester.makefile(".jsonmatch.yaml", c=cases)


def _report(pytester):
    return json.loads((pytester.path / "r.json").read_text())


def test_a_repeated_case_runs_its_target_n_times_and_passes_by_its_mean(pytester):
    _suite(
        pytester,
        "cases:\n  - id: flaky\n    repeat: 3\n    threshold: 0.8\n"
        "    expected: {a: 1, b: x}\n    input: q\n",
    )
    result = pytester.runpytest_inprocess(*ARGS, "--jsonmatch-report=r.json")
    # runs 1.0, 0.5, 1.0: mean 2.5 / 3 = 0.8333 >= 0.8: passes
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(
        [
            "field_f1      1     1     0      0  0.8333  0.8333  0.8333  0.8333",
            "overall score 0.8333 over 1 case",
            "*",
            "repeated case            runs    mean     min     max  passed",
            "c.jsonmatch.yaml::flaky     3  0.8333  0.5000  1.0000     2/3",
        ]
    )
    data = _report(pytester)
    assert [(c["case_id"], c["repeat"], c["score"], c["status"]) for c in data["comparisons"]] == [
        ("c.jsonmatch.yaml::flaky", 0, 1.0, "passed"),
        ("c.jsonmatch.yaml::flaky", 1, 0.5, "failed"),
        ("c.jsonmatch.yaml::flaky", 2, 1.0, "passed"),
    ]
    assert data["count"] == 1  # repeats are never extra cases
    assert data["fields"]["b"]["scored"] == 3  # the per-field table counts every run


@pytest.mark.parametrize(
    ("rule", "outcome"), [("mean", "passed"), ("all", "failed"), ("majority", "passed")]
)
def test_the_repeat_rule_decides_a_case(pytester, rule, outcome):
    # runs 1.0, 0.5, 1.0 at threshold 0.8: mean 0.8333 passes, not all do, 2 of 3 do
    _suite(
        pytester,
        "cases:\n  - id: flaky\n    repeat: 3\n    threshold: 0.8\n"
        "    expected: {a: 1, b: x}\n    input: q\n",
        ini=f"jsonmatch_repeat = {rule}\n",
    )
    result = pytester.runpytest_inprocess(*ARGS, "--jsonmatch-report=r.json")
    result.assert_outcomes(**{outcome: 1})
    assert _report(pytester)["cases"][0]["status"] == outcome
    if outcome == "failed":
        result.stdout.fnmatch_lines(
            [
                "*repeated case failed (all): mean score 0.8333 over 3 runs, "
                "2/3 at or above threshold 0.8000 (runs: 1.0000, 0.5000, 1.0000)*"
            ]
        )


def test_the_repeat_flag_runs_every_input_case_and_a_case_setting_wins(pytester):
    _suite(
        pytester,
        "cases:\n  - id: two\n    expected: {a: 1, b: x}\n    input: q\n"
        "  - id: once\n    repeat: 1\n    expected: {a: 1, b: x}\n    input: q\n"
        "  - id: given\n    expected: {a: 1}\n    actual: {a: 1}\n",
    )
    pytester.runpytest_inprocess(*ARGS, "--jsonmatch-repeat=2", "--jsonmatch-report=r.json")
    runs = {c["case_id"].split("::")[1]: c["runs"] for c in _report(pytester)["cases"]}
    assert runs == {"two": 2, "once": 1, "given": 1}  # an actual: case has nothing to repeat


def test_repeat_from_a_folder_defaults_file(pytester):
    pytester.makeconftest(TARGET)
    (pytester.path / "jsonmatch.yaml").write_text("repeat: 4\n")
    pytester.makefile(".jsonmatch.yaml", c="expected: {a: 1, b: x}\ninput: q\n")
    pytester.runpytest_inprocess(*ARGS, "--jsonmatch-report=r.json")
    (case,) = _report(pytester)["cases"]
    assert (case["runs"], case["mean_score"], case["passed_runs"]) == (4, 0.75, 2)


@pytest.mark.parametrize("value", ["0", "-1", "two", "1.5", "1001"])
def test_a_bad_repeat_is_refused(pytester, value):
    _suite(
        pytester, f"cases:\n  - id: x\n    repeat: {value}\n    expected: {{a: 1}}\n    input: q\n"
    )
    result = pytester.runpytest_inprocess(*ARGS)
    result.stdout.fnmatch_lines(
        ["c.jsonmatch.yaml:3: case 'x': repeat must be a whole number from 1 to 1000, not *"]
    )


def test_a_bad_repeat_flag_is_a_usage_error(pytester):
    _suite(pytester, "expected: {a: 1}\ninput: q\n")
    result = pytester.runpytest_inprocess(*ARGS, "--jsonmatch-repeat=zero")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        [
            "ERROR: pytest-jsonmatch: --jsonmatch-repeat must be a whole "
            "number of runs from 1 to 1000 and/or a rule (mean, all, "
            "majority), not 'zero'"
        ]
    )


def test_a_baseline_holds_a_repeated_case_by_its_mean(pytester):
    _suite(
        pytester,
        "cases:\n  - id: flaky\n    repeat: 2\n    threshold: 0\n"
        "    expected: {a: 1, b: x}\n    input: q\n",
    )
    pytester.runpytest_inprocess(*ARGS, "--jsonmatch-report=base.json")
    result = pytester.runpytest_inprocess(
        *ARGS, "--jsonmatch-baseline=base.json", "--jsonmatch-report=r.json"
    )
    # both runs: 1.0 and 0.5, mean 0.75: one shared case, no change
    baseline = _report(pytester)["baseline"]
    assert (baseline["shared"], baseline["before"], baseline["after"]) == (1, 0.75, 0.75)
    assert result.ret == 0
