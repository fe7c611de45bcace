"""Schema conformance through the plugin: the summary's valid column and the places broken
most, the JSON report's per-comparison, per-case and per-metric figures,
jsonmatch_gates invalid_fails (an invalid answer fails its test, whatever its score) and
jsonmatch_gates min_valid (a floor on a metric's share of valid answers)."""

from __future__ import annotations

import json

import pytest

from pytest_jsonmatch.reporting.verdicts.report import load_report
from tests.helpers.plugin_cases import ARGS, write


@pytest.fixture(autouse=True)
def wide_terminal(monkeypatch):
    monkeypatch.setenv("COLUMNS", "200")


# Three answers under field_match (recall over expected's fields), threshold 0:
#   test_valid:  a, b match: 1.0, valid
#   test_extra:  a, b match: 1.0 (the extra key c costs field_match nothing), but the
#                schema forbids c (additionalProperties)
#   test_wrong:  a match, b mismatch: 1/2; b is a string where an integer is required (type),
#                and the required d is missing (required)
# valid share 1 of 3 = 0.3333; each place broken by one answer
TESTS = """
from pytest_jsonmatch import assert_json_match

SCHEMA = {"type": "object", "additionalProperties": False, "required": ["a"],
          "properties": {"a": {"type": "integer"}, "b": {"type": "integer"},
                         "d": {"type": "integer"}}}
WRONG_SCHEMA = {**SCHEMA, "required": ["a", "d"]}

def test_valid():
    assert_json_match({"a": 1, "b": 2}, {"a": 1, "b": 2}, metric="field_match", threshold=0,
                      schema=SCHEMA)

def test_extra():
    assert_json_match({"a": 1, "b": 2, "c": 3}, {"a": 1, "b": 2}, metric="field_match",
                      threshold=0, schema=SCHEMA)

def test_wrong():
    assert_json_match({"a": 1, "b": "2"}, {"a": 1, "b": 2}, metric="field_match", threshold=0,
                      schema=WRONG_SCHEMA)

def test_no_schema():
    assert_json_match({"a": 1}, {"a": 1}, metric="field_f1")
"""


def test_the_summary_shows_the_valid_share_and_the_places_broken_most(pytester):
    pytester.makepyfile(TESTS)
    result = pytester.runpytest_inprocess(*ARGS, "--jsonmatch-report=r.json")
    result.assert_outcomes(passed=4)  # conformance never fails a test unless asked
    result.stdout.fnmatch_lines(
        [
            "metric       cases  pass  fail  error   score    prec  recall      F1   valid",
            "field_f1         1     1     0      0  1.0000  1.0000  1.0000  1.0000       -",
            # field_match: scores 1, 1, 1/2: mean 5/6 = 0.8333
            "field_match      3     3     0      0  0.8333  *  0.3333",
            "schema: field_match: 1 of 3 answers valid (0.3333); broken most: b type (1 answer), "
            "c additionalProperties (1 answer), d required (1 answer)",
        ]
    )
    report = load_report(pytester.path / "r.json")  # checked whole against the report schema
    assert report["metrics"]["field_match"]["conformance"] == {
        "checked": 3,
        "valid": 1,
        "share": pytest.approx(1 / 3),
        "violated": [
            {"field_path": "b", "keyword": "type", "answers": 1},
            {"field_path": "c", "keyword": "additionalProperties", "answers": 1},
            {"field_path": "d", "keyword": "required", "answers": 1},
        ],
    }
    assert "conformance" not in report["metrics"]["field_f1"]
    by_id = {c["case_id"].split("::")[-1]: c for c in report["comparisons"]}
    assert by_id["test_wrong"]["conformance"] == {
        "valid": False,
        "count": 2,
        "violations": [
            {"path": "b", "field_path": "b", "keyword": "type"},
            {"path": "d", "field_path": "d", "keyword": "required"},
        ],
    }
    assert by_id["test_valid"]["conformance"] == {"valid": True, "count": 0, "violations": []}
    assert "conformance" not in by_id["test_no_schema"]
    cases = {c["case_id"].split("::")[-1]: c for c in report["cases"]}
    assert cases["test_extra"]["conformance"] == {"checked": 1, "valid": 0}
    assert cases["test_extra"]["status"] == "passed"


def test_invalid_fails_fails_an_invalid_answer_whatever_its_score(pytester):
    pytester.makepyfile(TESTS)
    pytester.makeini("[pytest]\njsonmatch_gates = invalid_fails\n")
    result = pytester.runpytest_inprocess(*ARGS, "--jsonmatch-report=r.json")
    result.assert_outcomes(passed=2, failed=2)
    result.stdout.fnmatch_lines(
        [
            "*field_match: score 1.0000 >= threshold 0.0000, but the answer breaks its schema*",
            "*answer breaks its schema (1 violation): c additionalProperties",
        ]
    )
    result.stdout.fnmatch_lines(["*answer breaks its schema (2 violations): b type, d required"])
    report = load_report(pytester.path / "r.json")
    cases = {c["case_id"].split("::")[-1]: c["status"] for c in report["cases"]}
    assert cases == {
        "test_valid": "passed",
        "test_extra": "failed",
        "test_wrong": "failed",
        "test_no_schema": "passed",
    }
    extra = next(c for c in report["comparisons"] if c["case_id"].endswith("test_extra"))
    assert extra["conformance"]["fails"] is True


@pytest.mark.parametrize(("floor", "passes"), [("0.3333", True), ("0.5", False)])
def test_min_valid_is_a_floor_on_each_metrics_valid_share(pytester, floor, passes):
    pytester.makepyfile(TESTS)
    result = pytester.runpytest_inprocess(*ARGS, f"--jsonmatch-gates=min_valid={floor}")
    result.assert_outcomes(passed=4)
    # 1 of 3 answers valid: 0.3333 (to four places, as printed) meets 0.3333, not 0.5
    what = "field_match: valid share 0.3333 (1 of 3 answers valid against their schema)"
    if passes:
        assert result.ret == pytest.ExitCode.OK
        result.stdout.fnmatch_lines(
            [f"jsonmatch gates passed: {what} is at least jsonmatch_gates min_valid 0.3333"]
        )
    else:
        assert result.ret == pytest.ExitCode.TESTS_FAILED
        result.stdout.fnmatch_lines(
            [
                "FAILED: jsonmatch gates: 1 failure",
                f"  {what} is below jsonmatch_gates min_valid 0.5000",
            ]
        )


@pytest.mark.parametrize(
    ("floor", "status", "stream", "line"),
    [
        (
            "0.9",
            pytest.ExitCode.OK,
            "stdout",
            "warning: jsonmatch_gates min_valid 0.9000: no answer was "
            "checked against a schema (give the comparisons a schema)",
        ),
        (
            "most",
            pytest.ExitCode.USAGE_ERROR,
            "stderr",
            "*jsonmatch_gates min_valid must be a number between 0 and 1, not 'most'*",
        ),
    ],
)
def test_min_valid_without_a_schema_warns_and_a_bad_one_stops(
    pytester, floor, status, stream, line
):
    pytester.makepyfile("def test_x(json_match):\n    json_match({'a': 1}, {'a': 1})\n")
    result = pytester.runpytest_inprocess(*ARGS, f"--jsonmatch-gates=min_valid={floor}")
    assert result.ret == status
    getattr(result, stream).fnmatch_lines([line])


def test_a_golden_case_with_a_schema_file_and_a_reference(pytester):
    # the case's schema reads money.json beside it (inside the test root)
    write(pytester, "cases/money.json", json.dumps({"type": "number", "minimum": 0}))
    write(
        pytester,
        "cases/invoice.json",
        json.dumps(
            {
                "type": "object",
                "properties": {"total": {"$ref": "money.json"}},
                "required": ["total", "currency"],
            }
        ),
    )
    write(
        pytester,
        "cases/invoices.yaml",
        """
        cases:
          - id: negative
            options: {schema: invoice.json}
            threshold: 0
            expected: {total: 5}
            actual: {total: -5}
        """,
    )
    pytester.makeini("[pytest]\njsonmatch_golden = cases\njsonmatch_gates = invalid_fails\n")
    result = pytester.runpytest_inprocess(*ARGS, "--jsonmatch-report=r.json")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        ["*answer breaks its schema (2 violations): total minimum, currency required*"]
    )
    report = load_report(pytester.path / "r.json")
    assert report["metrics"]["field_f1"]["conformance"]["violated"] == [
        {"field_path": "currency", "keyword": "required", "answers": 1},
        {"field_path": "total", "keyword": "minimum", "answers": 1},
    ]


# One answer valid, one cut off inside its JSON value, one that holds no JSON at all, each
# held to the same schema; a fourth test's *expected* side is broken (not the answer's
# fault: it is no answer and is not counted as checked).
UNREAD = """
import pytest
from pytest_jsonmatch import assert_json_match
from pytest_jsonmatch.engine.core.errors import ParseError

SCHEMA = {"type": "object", "properties": {"a": {"type": "integer"}}}

def test_valid():
    assert_json_match('{"a": 1}', {"a": 1}, metric="field_match", threshold=0, schema=SCHEMA)

def test_cut():
    assert_json_match('{"a": 1, "b": "par', {"a": 1}, metric="field_match", schema=SCHEMA)

def test_prose():
    assert_json_match("I cannot help.", {"a": 1}, metric="field_match", schema=SCHEMA)

def test_broken_expected():
    assert_json_match('{"a": 1}', "{nope", metric="field_match", schema=SCHEMA)
"""


def test_an_answer_that_was_cut_or_holds_no_json_is_not_valid(pytester):
    pytester.makepyfile(UNREAD)
    pytester.makeini("[pytest]\njsonmatch_gates = min_valid=0.9\n")
    result = pytester.runpytest_inprocess(*ARGS, "--jsonmatch-report=r.json")
    result.assert_outcomes(passed=1, failed=3)
    # 1 of the 3 answers valid: the cut one and the one with no JSON count against the share
    result.stdout.fnmatch_lines(
        [
            "FAILED: jsonmatch gates: *",
            "  field_match: valid share 0.3333 (1 of 3 answers valid against their schema) is "
            "below jsonmatch_gates min_valid 0.9000",
        ]
    )
    report = load_report(pytester.path / "r.json")
    violated = report["metrics"]["field_match"]["conformance"]["violated"]
    assert [(v["field_path"], v["keyword"]) for v in violated] == [
        ("(answer)", "cut off"),
        ("(answer)", "unreadable"),
    ]
