"""Only real failures count: a comparison whose failure the test expected (it caught the
error with ``pytest.raises``, or the test is xfail-marked) is reported apart, as
``xfailed``, in the summary, the JSON report and the Markdown, so that jsonmatch's fail and
error counts are pytest's."""

from __future__ import annotations

import json

import jsonschema

from pytest_jsonmatch.reporting.run_model.validation import schema
from tests.helpers.plugin_cases import ARGS

TESTS = """
import pytest
from pytest_jsonmatch import ConfigError, assert_json_match

def test_pass():
    assert_json_match({"a": 1}, {"a": 1})

def test_a_bad_answer_is_rejected():
    with pytest.raises(AssertionError):
        assert_json_match({"a": 2}, {"a": 1})

def test_a_bad_setting_is_refused():
    with pytest.raises(ConfigError):
        assert_json_match({"a": 1}, {"a": 1}, threshold=2)

@pytest.mark.xfail(reason="known")
def test_known_bad():
    assert_json_match({"a": 3}, {"a": 1})

def test_real_failure():
    assert_json_match({"a": 4}, {"a": 1})
"""


def test_expected_failures_are_counted_apart_so_the_counts_are_pytest_s(pytester):
    pytester.makepyfile(test_expected=TESTS)
    result = pytester.runpytest_inprocess(
        *ARGS, "--jsonmatch-report=out/r.json", "--jsonmatch-report=out/r.md"
    )
    result.assert_outcomes(passed=3, failed=1, xfailed=1)
    # jsonmatch: 2 counted cases (test_pass passes, test_real_failure fails), no error;
    # the caught failure, the caught ConfigError and the xfail test are not counted
    result.stdout.fnmatch_lines(
        [
            "metric    cases  pass  fail  error   score    prec  recall      F1",
            "field_f1      2     1     1      0  *",
            "not counted (expected to fail): 3 xfailed, 0 xpassed",
        ]
    )
    data = json.loads((pytester.path / "out" / "r.json").read_text(encoding="utf-8"))
    jsonschema.validate(data, schema())
    statuses = {c["nodeid"].split("::")[1]: c["status"] for c in data["comparisons"]}
    assert statuses == {
        "test_pass": "passed",
        "test_a_bad_answer_is_rejected": "xfailed",
        "test_a_bad_setting_is_refused": "xfailed",
        "test_known_bad": "xfailed",
        "test_real_failure": "failed",
    }
    assert (data["count"], data["errors"], data["xfailed"]) == (2, 0, 3)
    markdown = (pytester.path / "out" / "r.md").read_text(encoding="utf-8")
    assert "| field\\_f1 | 2 | 1 | 1 | 0 |" in markdown
    failed = markdown.split("### Cases that failed or could not be scored")[1].split("###")[0]
    assert (
        "test\\_real\\_failure" in failed and "rejected" not in failed and "refused" not in failed
    )
