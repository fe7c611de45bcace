"""JUnit XML: each comparison's metric and score as properties of its test case."""

from __future__ import annotations

import xml.etree.ElementTree as ET

from tests.helpers.plugin_cases import ARGS, TWO_TESTS


THREE_TESTS = TWO_TESTS + """
def test_plain():
    pass
"""


def _properties(path):
    tree = ET.parse(path)
    return {case.get("name"): [(p.get("name"), p.get("value")) for p in case.iter("property")]
            for case in tree.iter("testcase")}


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
    pytester.makeini("[pytest]\njsonmatch_junit_properties = false\n")
    pytester.makepyfile(THREE_TESTS)
    pytester.runpytest_inprocess(*ARGS, "--junitxml=out.xml")
    assert _properties(pytester.path / "out.xml") == {"test_pass": [], "test_fail": [],
                                                      "test_plain": []}
