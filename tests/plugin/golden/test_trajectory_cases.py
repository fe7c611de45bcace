"""Golden cases scored by ``metric: trajectory``: an agent's run of messages against the
expected run, in a case file; a failing case's message names the first step off the path, and
the per-field table counts each function's arguments across the cases."""

from __future__ import annotations

import pytest

from tests.helpers.plugin_cases import ARGS, write

CASES = """\
metric: trajectory
cases:
  - id: booked
    expected:
      - {role: user, content: book me a flight to Oslo}
      - {name: search_flights, arguments: {to: Oslo}}
      - {result: "2 flights"}
      - {name: book_flight, arguments: {flight: SK1}}
      - {answer: booked}
    actual:
      - {role: user, content: please book Oslo}
      - role: assistant
        tool_calls:
          - {type: function, function: {name: search_flights, arguments: '{"to": "Oslo"}'}}
      - {role: tool, tool_call_id: "1", content: "2 flights"}
      - role: assistant
        tool_calls:
          - {type: function, function: {name: book_flight, arguments: '{"flight": "SK1"}'}}
      - {role: assistant, content: Done, you are booked.}
  - id: wrong-flight
    expected:
      - {name: search_flights, arguments: {to: Oslo}}
      - {name: book_flight, arguments: {flight: SK1}}
    actual:
      - {name: search_flights, arguments: {to: Oslo}}
      - {name: book_flight, arguments: {flight: SK9}}
  - id: more-calls-allowed
    options: {mode: superset}
    expected:
      - {name: book_flight, arguments: {flight: SK1}}
    actual:
      - {name: search_flights, arguments: {to: Oslo}}
      - {name: book_flight, arguments: {flight: SK1}}
"""


def test_trajectory_cases_pass_and_fail_with_the_step_named(pytester: pytest.Pytester):
    write(pytester, "agent.jsonmatch.yaml", CASES)
    result = pytester.runpytest_inprocess(*ARGS)
    result.assert_outcomes(passed=2, failed=1)
    # wrong-flight: 4 fields (two names, two arguments), one mismatched: F1 = 3/4
    result.stdout.fnmatch_lines(
        [
            "*trajectory: score 0.7500 < threshold 1.0000*",
            "*the run left the expected path at step 1 (book_flight, argument flight): "
            'mismatch, expected "SK1", actual "SK9"*',
            "*FAILED agent.jsonmatch.yaml::wrong-flight*",
        ]
    )
    # the per-field table across the cases folds the step index: book_flight's flight was
    # matched in booked and more-calls-allowed, mismatched in wrong-flight: 2/3
    result.stdout.fnmatch_lines(["[[]].book_flight.flight *0.6667 *2 *1 *0 *0"])
