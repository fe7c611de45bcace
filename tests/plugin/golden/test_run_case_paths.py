"""A run case's ``ignore`` and ``fields`` take the paths its reports show, each applied to its
own part (issue 73, B5): ``state.flights`` skips the end state's ``flights`` and not the
answer's; a bare ``flights`` is the answer's alone; a path of no part is a typo, said with the
nearest path. The run is given as the case's ``actual`` (its JSON form), in real sessions."""

from __future__ import annotations

import json

import pytest

from tests.helpers.plugin_cases import ARGS, write

pytestmark = pytest.mark.slow  # (CONTRIBUTING.md: the inner loop leaves it out)


def _case(case_id: str, answer: str, ignore: str) -> str:
    """A run whose answer gives ``flights`` (``answer``) and whose end state has a flight with
    3 seats where 9 are expected; the expected answer's flights are [SK401]."""
    return f"""\
  - id: {case_id}
    actual:
      messages:
        - {{role: user, content: Find a flight}}
        - {{role: assistant, content: '{{"flights": ["{answer}"], "status": "done"}}'}}
      state: {{flights: [{{id: SK401, seats: 3}}], log: 1}}
    expected: {{flights: [SK401], status: done}}
    expected_state: {{flights: [{{id: SK401, seats: 9}}], log: 1}}
    options: {{ignore: [{ignore}]}}
"""


def test_state_paths_skip_the_state_only_and_a_bare_path_the_answer_only(pytester):
    write(
        pytester,
        "trips.jsonmatch.yaml",
        "cases:\n"
        # the state's flights ignored, the answer right: every counted row matches
        + _case("state-ignored", "SK401", "state.flights")
        # the state's flights ignored, the answer wrong: its flights still count, and fail
        + _case("wrong-answer", "SK999", "state.flights")
        # a bare flights is the answer's: the state's seats (3, not 9) still count, and fail
        + _case("bare-path", "SK401", "flights"),
    )
    result = pytester.runpytest_inprocess(*ARGS, "--jsonmatch-report=r.json")
    result.assert_outcomes(passed=1, failed=2)
    report = json.loads((pytester.path / "r.json").read_text())
    scored = {
        c["case_id"].rsplit("::", 1)[1]: (c["metric"], c["status"], round(c["score"], 4))
        for c in report["comparisons"]
    }
    assert scored == {
        "state-ignored": ("field_f1+state", "passed", 1.0),
        # wrong-answer: answer 2 rows (flights[0] mismatch, status match) F1 1/2; state 1 row
        # (log) 1.0; weighted by rows (2 * 0.5 + 1 * 1.0) / 3 = 0.6667
        "wrong-answer": ("field_f1+state", "failed", 0.6667),
        # bare-path: answer 1 row (status) 1.0; state 3 rows (id, seats, log) 2/3:
        # (1 + 2) / 4 = 0.75
        "bare-path": ("field_f1+state", "failed", 0.75),
    }


def test_a_run_path_of_no_part_is_a_typo_with_the_nearest_path(pytester):
    write(pytester, "trips.jsonmatch.yaml", "cases:\n" + _case("typo", "SK401", "state.flihgts"))
    out = pytester.runpytest_inprocess(*ARGS).stdout.str()
    assert (
        "trips.jsonmatch.yaml:2: PathWarning: case 'typo': ignore 'state.flihgts' matches no "
        "field of the case; did you mean 'state.flights'"
    ) in out, out
