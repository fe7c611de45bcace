"""--jsonmatch-report (reporting/verdicts/report.py through the plugin): the version-3 JSON report, which
validates against the JSON Schema shipped in the package: run metadata, every comparison with
a stable case id, its status, its fields (values cut to 200 characters, or full, or none)
and pairings; cases, metrics, fields and the gates' verdict; written even when nothing was
compared. The atomic write itself is tested in test_atomic.py."""

from __future__ import annotations

import json
import os
from datetime import datetime, timedelta, timezone

import jsonschema
import pytest

from pytest_jsonmatch.reporting.run_model.validation import schema
from tests.helpers.plugin_cases import ARGS, ONE_TEST, TWO_TESTS
from tests.helpers.reports import held
from tests.helpers.timeout import GENEROUS, within

pytestmark = pytest.mark.slow  # (CONTRIBUTING.md: the inner loop leaves it out)

FAST = ARGS  # the same flags, under the name some tests here were written with


def _leftovers(folder) -> list[str]:
    return sorted(name for name in os.listdir(folder) if name.endswith(".tmp"))


def _report(pytester, *flags, files=None):
    pytester.makepyfile(**(files or {"test_two": TWO_TESTS}))
    result = pytester.runpytest_inprocess(*ARGS, "--jsonmatch-report=out/report.json", *flags)
    text = (pytester.path / "out" / "report.json").read_text()
    jsonschema.validate(json.loads(text), schema())  # every report the plugin writes fits it
    return result, held(text)  # as the reader holds it: each field made from its row


# -- content ----------------------------------------------------------------------------------


def test_report_holds_comparisons_cases_metrics_fields_and_overall(pytester):
    result, data = _report(pytester)
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines([f"report written to {pytester.path / 'out' / 'report.json'}"])
    third = pytest.approx(1 / 3)
    # test_fail: a match, b mismatch, d omission, c hallucination: TP 1 over 3 on each side
    # test_pass: both fields match: 1.  Overall and means: (1/3 + 1) / 2 = 2/3
    assert (data["version"], data["overall"], data["count"], data["errors"]) == (
        4,
        pytest.approx(2 / 3),
        2,
        0,
    )
    fail, ok = data["comparisons"]  # sorted by case id
    assert (
        fail["case_id"],
        fail["nodeid"],
        fail["metric"],
        fail["score"],
        fail["threshold"],
        fail["status"],
        fail["repeat"],
    ) == ("test_two.py::test_fail", "test_two.py::test_fail", "field_f1", third, 0.9, "failed", 0)
    assert (ok["case_id"], ok["score"], ok["threshold"], ok["status"]) == (
        "test_two.py::test_pass",
        1.0,
        1.0,
        "passed",
    )
    # the test's def line (the file starts with the import: test_fail's def is line 6)
    assert (fail["file"], fail["line"]) == ("test_two.py", 6)
    assert sorted(
        (f["path"], f["status"], f["score"], f.get("expected", "-"), f.get("actual", "-"))
        for f in fail["fields"]
    ) == [
        ("a", "match", 1.0, 1, 1),
        ("b", "mismatch", 0.0, "x", "y"),
        ("c", "hallucination", 0.0, "-", [1, 2]),
        ("d", "omission", 0.0, 3, "-"),
    ]
    assert data["metrics"] == {
        "field_f1": {
            "count": 2,
            "passed": 1,
            "failed": 1,
            "errors": 0,
            "mean_score": pytest.approx(2 / 3),
            "precision": pytest.approx(2 / 3),
            "recall": pytest.approx(2 / 3),
            "f1": pytest.approx(2 / 3),
        }
    }
    assert data["fields"]["a"] == {
        "mean_score": 1.0,
        "score_sum": 2.0,
        "scored": 2,
        "match": 2,
        "mismatch": 0,
        "omission": 0,
        "hallucination": 0,
    }
    assert data["fields"]["b"]["mean_score"] == 0.5  # (1 + 0) / 2
    assert (data["fields"]["c"]["hallucination"], data["fields"]["d"]["omission"]) == (1, 1)
    assert data["groups"] == {"field_f1": data["fields"]}
    assert [(c["case_id"], c["status"], c["runs"]) for c in data["cases"]] == [
        ("test_two.py::test_fail", "failed", 1),
        ("test_two.py::test_pass", "passed", 1),
    ]
    assert data["gates"] == {"passed": True, "failures": [], "warnings": [], "checked": []}
    run = data["run"]
    assert run["command"][0] == "pytest" and "--jsonmatch-report=out/report.json" in run["command"]
    assert run["plugin_version"] and run["python"] and run["time"].endswith("+00:00")
    # the run's start in UTC, to the second, as datetime.isoformat writes it
    made = datetime.fromisoformat(run["time"])
    assert made.isoformat() == run["time"] and made.utcoffset() == timedelta(0)
    assert abs(datetime.now(timezone.utc) - made) < timedelta(minutes=10)


def test_a_second_comparison_in_a_test_has_its_own_case_id(pytester):
    _, data = _report(
        pytester,
        files={
            "test_many": """
        from pytest_jsonmatch import assert_json_match

        def test_three():
            for value in (1, 2, 1):
                assert_json_match({"a": value}, {"a": 1}, threshold=0)
    """
        },
    )
    assert [(c["case_id"], c["seq"], c["score"]) for c in data["comparisons"]] == [
        ("test_many.py::test_three", 0, 1.0),
        ("test_many.py::test_three#1", 1, 0.0),
        ("test_many.py::test_three#2", 2, 1.0),
    ]


LONG = "x" * 300


@pytest.mark.parametrize(
    ("mode", "expected"),
    [
        (None, {"expected": '"' + LONG[:196] + "...", "expected_cut": True, "actual": "y"}),
        ("short", {"expected": '"' + LONG[:196] + "...", "expected_cut": True, "actual": "y"}),
        ("full", {"expected": LONG, "actual": "y"}),
        ("none", {}),
    ],
)
def test_report_values_are_cut_kept_whole_or_left_out(pytester, mode, expected):
    flags = [f"--jsonmatch-report=values={mode}"] if mode else []
    _, data = _report(
        pytester,
        *flags,
        files={
            "test_long": f"""
        from pytest_jsonmatch import assert_json_match

        def test_long():
            assert_json_match({{"a": "y"}}, {{"a": "{LONG}"}}, threshold=0)
    """
        },
    )
    (field,) = data["comparisons"][0]["fields"]
    # short: compact JSON ('"' + 300 x + '"', 302 characters) cut to 197 + "..." = 200
    assert {
        k: v for k, v in field.items() if k in ("expected", "actual", "expected_cut", "actual_cut")
    } == expected


@pytest.mark.parametrize("mode", ["short", "full", "none"])
def test_the_html_page_keeps_the_values_the_setting_keeps(pytester, mode):
    # the page's data holds each field as the JSON report does: cut, whole, or no values
    from tests.cli.html_data import page_data, reconstructed
    from tests.helpers.reports import read as read_report

    pytester.makepyfile(
        test_long=f"""
        from pytest_jsonmatch import assert_json_match

        def test_long():
            assert_json_match({{"a": "y", "b": 2.5}}, {{"a": "{LONG}", "b": 2.5}}, threshold=0)
    """
    )
    pytester.runpytest_inprocess(
        *ARGS,
        "--jsonmatch-report=out/report.json",
        "--jsonmatch-report=out/report.html",
        f"--jsonmatch-report=values={mode}",
    )
    data = read_report(pytester.path / "out" / "report.json")  # its fields made from rows
    page = page_data((pytester.path / "out" / "report.html").read_text(encoding="utf-8"))
    keys = ("path", "status", "score", "expected", "actual", "expected_cut", "actual_cut")
    (fields,) = reconstructed(page)
    assert [{k: v for k, v in f.items() if k in keys and v is not False} for f in fields] == [
        {k: v for k, v in f.items() if k in keys} for f in data["comparisons"][0]["fields"]
    ]
    assert ("expected" in fields[0]) is (mode != "none")
    assert fields[0].get("expected_cut", False) is (mode == "short")


@pytest.mark.parametrize("mode", ["short", "full"])
def test_an_integer_too_long_for_json_text_is_described_in_the_report_and_the_message(
    pytester, mode
):
    # 10**5000 has more digits than Python writes as text (4,300): the report says what it
    # was, marked cut, in every mode; the failure message too (before: a ValueError)
    result, data = _report(
        pytester,
        f"--jsonmatch-report=values={mode}",
        files={
            "test_huge": """
        from pytest_jsonmatch import assert_json_match

        def test_huge():
            assert_json_match({"a": 1}, {"a": 10 ** 5000})
    """
        },
    )
    result.stdout.fnmatch_lines(
        ["*a  mismatch*expected an integer of about 5,001 digits  actual 1*"]
    )
    (field,) = data["comparisons"][0]["fields"]
    assert (field["expected"], field["expected_cut"], field["actual"]) == (
        "an integer of about 5,001 digits",
        True,
        1,
    )


def test_report_is_written_when_nothing_was_compared(pytester):
    result, data = _report(pytester, files={"test_plain": "def test_plain(): pass"})
    assert result.ret == 0
    assert (data["count"], data["overall"], data["comparisons"], data["fields"]) == (
        0,
        None,
        [],
        {},
    )


def test_report_records_gate_failures(pytester):
    _, data = _report(pytester, "--jsonmatch-gates=fail_under=0.9")
    assert data["gates"] == {
        "passed": False,
        "warnings": [],
        "checked": [],
        "failures": ["overall score 0.6667 is below jsonmatch_gates fail_under 0.9000"],
    }


def test_a_report_with_a_baseline_validates_and_holds_the_comparison(pytester):
    pytester.makepyfile(test_two=TWO_TESTS)
    assert pytester.runpytest_inprocess(*ARGS, "--jsonmatch-report=base.json").ret == 1
    _, data = _report(pytester, "--jsonmatch-baseline=base.json")
    baseline = data["baseline"]
    assert (baseline["shared"], baseline["added"], baseline["removed"], baseline["changed"]) == (
        2,
        [],
        [],
        [],
    )
    assert baseline["difference"]["mean"] == 0.0 and baseline["difference"]["n"] == 2
    # per table (grouped by metric): the fields both runs' shared cases hold
    assert list(baseline["groups"]) == ["field_f1"]
    assert set(baseline["groups"]["field_f1"]) == {"a", "b", "c", "d"}


# -- through pytest: over its own baseline, onto a folder -------------------------------------


def test_a_report_written_over_its_own_baseline_is_read_first_then_replaced_whole(pytester):
    pytester.makepyfile(test_one=ONE_TEST)
    with within(GENEROUS):
        first = pytester.runpytest_inprocess(*FAST, "--jsonmatch-report=r.json")
    first.assert_outcomes(passed=1)
    with within(GENEROUS):
        second = pytester.runpytest_inprocess(
            *FAST, "--jsonmatch-report=r.json", "--jsonmatch-baseline=r.json"
        )
    second.assert_outcomes(passed=1)
    assert second.ret == pytest.ExitCode.OK
    data = json.loads((pytester.path / "r.json").read_text())
    assert data["baseline"]["difference"]["mean"] == 0.0
    assert _leftovers(pytester.path) == []


def test_a_report_path_that_is_a_folder_fails_the_session_without_touching_it(pytester):
    pytester.makepyfile(test_one=ONE_TEST)
    folder = pytester.path / "out.json"
    folder.mkdir()
    (folder / "keep.txt").write_text("keep")
    with within(GENEROUS):
        result = pytester.runpytest_inprocess(*FAST, "--jsonmatch-report=out.json")
    result.assert_outcomes(passed=1)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    assert "Traceback" not in result.stdout.str()
    result.stdout.fnmatch_lines([f"FAILED: could not write the report {folder}: *"])
    assert sorted(os.listdir(folder)) == ["keep.txt"]
    assert _leftovers(pytester.path) == []


def test_a_golden_case_reports_its_input_and_the_models_output_and_a_test_neither(pytester):
    # the target answers with text; the case's input is a mapping. A plain test's actual
    # value is its own: no output is reported for it, and it has no input
    pytester.makeconftest("""
        def pytest_jsonmatch_target(case, config):
            return 'Sure: {"a": 1, "b": "' + case.input["ask"] + '"}'
    """)
    pytester.makefile(
        ".jsonmatch.yaml",
        c="cases:\n  - id: one\n    expected: {a: 1, b: x}\n    input: {ask: y}\n",
    )
    pytester.makepyfile(ONE_TEST)
    result = pytester.runpytest_inprocess(*ARGS, "--jsonmatch-report=r.json")
    result.assert_outcomes(passed=1, failed=1)
    report = json.loads((pytester.path / "r.json").read_text())
    jsonschema.validate(report, schema())
    by_case = {c["case_id"]: c for c in report["comparisons"]}
    golden = by_case["c.jsonmatch.yaml::one"]
    assert golden["input"] == {"ask": "y"}
    assert golden["output"] == 'Sure: {"a": 1, "b": "y"}'  # the raw text, before parsing
    (plain,) = [c for c in report["comparisons"] if not c["case_id"].startswith("c.")]
    assert "input" not in plain and "output" not in plain
