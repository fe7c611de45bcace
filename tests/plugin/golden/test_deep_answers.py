"""A golden case whose answer nests deeply, through the plugin (engine/reading/parse.py): pytest
runs a case tens of calls deep, where the standard JSON reader ran out of stack sooner, and
an answer nested 1,500 levels was "no JSON object found". It is scored now, as it is at the
top of a program, and an answer nested past the door's 2,000 levels is the door's error
naming where."""

from __future__ import annotations

import pytest

from tests.helpers.plugin_cases import ARGS, write


def _answer(levels: int) -> str:
    return '{"ok": 1, "deep": ' + "[" * levels + "]" * levels + "}"


CASES = f"""\
options: {{ignore: [deep]}}
cases:
  - id: deep
    expected: {{ok: 1}}
    actual: '{_answer(1_500)}'
  - id: too-deep
    expected: {{ok: 1}}
    actual: '{_answer(2_500)}'
"""


def test_a_deep_answer_is_scored_and_one_past_the_door_is_its_error(pytester: pytest.Pytester):
    write(pytester, "golden/deep.jsonmatch.yaml", CASES)
    result = pytester.runpytest_inprocess(*ARGS, "-rA")
    result.assert_outcomes(passed=1, failed=1)
    out = result.stdout.str()
    assert "no JSON object found" not in out
    result.stdout.fnmatch_lines(["PASSED golden/deep.jsonmatch.yaml::deep"])
    result.stdout.fnmatch_lines(
        [
            "*case 'too-deep': actual: values nest too deeply (more than 2,000 levels, at "
            "deep?0??0??0?*"
        ]
    )  # ? for [ and ], which fnmatch reads as a set
