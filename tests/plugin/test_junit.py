"""JUnit XML: each comparison's metric and score as properties of its test case."""

from __future__ import annotations

import xml.etree.ElementTree as ET

from tests.helpers.plugin_cases import ARGS, TWO_TESTS

THREE_TESTS = (
    TWO_TESTS
    + """
def test_plain():
    pass
"""
)


def _properties(path):
    tree = ET.parse(path)
    return {
        case.get("name"): [(p.get("name"), p.get("value")) for p in case.iter("property")]
        for case in tree.iter("testcase")
    }


def test_each_test_case_carries_its_score(pytester):
    pytester.makepyfile(THREE_TESTS)
    pytester.runpytest_inprocess(*ARGS, "--junitxml=out.xml")
    # test_fail: field_f1 1/3 (see test_summary.py), rounded to 4 places
    assert _properties(pytester.path / "out.xml") == {
        "test_pass": [("jsonmatch_metric", "field_f1"), ("jsonmatch_score", "1.0")],
        "test_fail": [("jsonmatch_metric", "field_f1"), ("jsonmatch_score", "0.3333")],
        "test_plain": [],
    }


def test_properties_can_be_switched_off(pytester):
    pytester.makeini("[pytest]\njsonmatch_report = junit=no\n")
    pytester.makepyfile(THREE_TESTS)
    pytester.runpytest_inprocess(*ARGS, "--junitxml=out.xml")
    assert _properties(pytester.path / "out.xml") == {
        "test_pass": [],
        "test_fail": [],
        "test_plain": [],
    }


def test_a_failing_gate_is_a_failed_test_case_in_the_xml(pytester):
    pytester.makepyfile(THREE_TESTS.replace("threshold=0.9", "threshold=0"))
    result = pytester.runpytest_inprocess(
        *ARGS, "--junitxml=out.xml", "--jsonmatch-gates=fail_under=0.9"
    )
    result.assert_outcomes(passed=3)
    assert result.ret == 1
    suite = ET.parse(pytester.path / "out.xml").getroot().find("testsuite")
    # three passing tests and the gates: one failure, so test-report views go red
    assert (suite.get("tests"), suite.get("failures")) == ("4", "1")
    gate = next(case for case in suite.iter("testcase") if case.get("name") == "gates")
    assert gate.get("classname") == "jsonmatch"
    failure = gate.find("failure")
    assert failure.get("message") == (
        "the session did not pass its jsonmatch gates: overall score "
        "0.6667 is below jsonmatch_gates fail_under 0.9000"
    )


def test_passing_gates_add_no_test_case(pytester):
    pytester.makepyfile(THREE_TESTS.replace("threshold=0.9", "threshold=0"))
    pytester.runpytest_inprocess(*ARGS, "--junitxml=out.xml", "--jsonmatch-gates=fail_under=0.5")
    suite = ET.parse(pytester.path / "out.xml").getroot().find("testsuite")
    assert (suite.get("tests"), suite.get("failures")) == ("3", "0")
