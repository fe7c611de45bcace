"""The ``jsonmatch`` terminal summary (reporting/render/text.py through session.py): the per-metric
table with an errors column, the overall score over cases, the per-field table worst first
(cut unless -v, per group), repeated cases, cases that could not be scored, every table
within the terminal's width, and silence in sessions that compared nothing."""

from __future__ import annotations

import json

import pytest

from tests.helpers.plugin_cases import ARGS, TWO_TESTS


def test_summary_has_a_metric_row_and_fields_worst_first(pytester):
    pytester.makepyfile(TWO_TESTS)
    result = pytester.runpytest_inprocess(*ARGS)
    result.assert_outcomes(passed=1, failed=1)
    # test_pass: a, b match: score 1.
    # test_fail: a match, b mismatch, d omission, c hallucination: TP = 1,
    #   P = 1/(1+1+1), R = 1/(1+1+1), F1 = 1/3.
    # field_f1 means over 2 cases: (1 + 1/3) / 2 = 0.6667 for score, P, R and F1.
    # fields: a 2 matches (1.0), b match + mismatch (0.5), c one hallucination (0),
    #   d one omission (0); worst first, ties by path: c, d, b, a
    result.stdout.fnmatch_lines(
        [
            "*= jsonmatch =*",
            "metric    cases  pass  fail  error   score    prec  recall      F1",
            "field_f1      2     1     1      0  0.6667  0.6667  0.6667  0.6667",
            "overall score 0.6667 over 2 cases",
            "",
            "field   score  match  mismatch  omission  halluc.",
            "c      0.0000      0         0         0        1",
            "d      0.0000      0         0         1        0",
            "b      0.5000      1         1         0        0",
            "a      1.0000      2         0         0        0",
            "*short test summary info*",
        ]
    )


def test_passing_comparisons_are_recorded_too(pytester):
    pytester.makepyfile("""
        from pytest_jsonmatch import assert_json_match

        def test_one():
            assert_json_match({"a": 1}, {"a": 1})
            assert_json_match({"a": 1}, {"a": 1}, metric="field_match")
    """)
    result = pytester.runpytest_inprocess(*ARGS)
    result.assert_outcomes(passed=1)
    # two comparisons in one test (cases test_one.py::test_one and ...#1), both perfect
    result.stdout.fnmatch_lines(
        [
            "*= jsonmatch =*",
            "metric       cases  pass  fail  error   score    prec  recall      F1",
            "field_f1         1     1     0      0  1.0000  1.0000  1.0000  1.0000",
            "field_match      1     1     0      0  1.0000  1.0000  1.0000  1.0000",
            "overall score 1.0000 over 2 cases",
        ]
    )


def test_no_summary_in_a_session_without_comparisons(pytester):
    pytester.makepyfile("def test_plain():\n    assert 1 + 1 == 2\n")
    result = pytester.runpytest_inprocess(*ARGS, "--jsonmatch-gates=fail_under=0.9")
    # the gate given had nothing to hold: its failure alone is said
    # (tests/plugin/test_gates_with_nothing_to_hold.py)
    assert result.ret == 1
    result.stdout.fnmatch_lines(["FAILED: jsonmatch gates: 1 failure", "*nothing to hold to it"])
    result.stdout.no_fnmatch_line("*= jsonmatch =*")
    result.stdout.no_fnmatch_line("*overall score*")


TWENTY_FIELDS = """
from pytest_jsonmatch import assert_json_match

def test_wide():
    expected = {f"f{i:02d}": i for i in range(20)}
    actual = {f"f{i:02d}": (i if i >= 5 else -1) for i in range(20)}
    assert_json_match(actual, expected, threshold=0)
"""


def test_field_table_is_cut_to_15_rows(pytester):
    pytester.makepyfile(TWENTY_FIELDS)
    result = pytester.runpytest_inprocess(*ARGS)
    # f00..f04 mismatch (0.0) come first, then the perfect ones by path: f05..f14 fill 15 rows
    result.stdout.fnmatch_lines(
        [
            "field   score  match  mismatch  omission  halluc.",
            "f00    0.0000      0         1         0        0",
            "f04    0.0000      0         1         0        0",
            "f05    1.0000      1         0         0        0",
            "f14    1.0000      1         0         0        0",
            "... 5 more fields (-v shows all)",
        ]
    )
    result.stdout.no_fnmatch_line("f15 *")


def test_verbose_shows_every_field(pytester):
    pytester.makepyfile(TWENTY_FIELDS)
    result = pytester.runpytest_inprocess(*ARGS, "-v")
    result.stdout.fnmatch_lines(
        ["f14 *", "f15 *", "f19    1.0000      1         0         0        0"]
    )
    result.stdout.no_fnmatch_line("*more fields*")


# -- every attempted comparison counts ---------------------------------------------------------

BROKEN_AND_XFAIL = """
import pytest
from pytest_jsonmatch import assert_json_match

def test_good():
    assert_json_match({"a": 1}, {"a": 1})

def test_no_json():
    assert_json_match("I cannot help", {"a": 1})

@pytest.mark.xfail(reason="known gap")
def test_known_gap():
    assert_json_match({"a": 2}, {"a": 1})

@pytest.mark.xfail(reason="fixed by now")
def test_fixed_gap():
    assert_json_match({"a": 1}, {"a": 1})
"""


def test_an_unscorable_comparison_is_an_error_scored_zero_and_xfail_ones_stand_apart(pytester):
    pytester.makepyfile(test_no_json=BROKEN_AND_XFAIL)
    result = pytester.runpytest_inprocess(*ARGS, "-rN")
    result.assert_outcomes(passed=1, failed=1, xfailed=1, xpassed=1)
    # counted cases: test_good (1.0) and test_no_json (an error: 0); the two xfail-marked
    # tests stay out: overall (1 + 0) / 2 = 0.5
    result.stdout.fnmatch_lines(
        [
            "metric    cases  pass  fail  error   score    prec  recall      F1",
            "field_f1      2     1     0      1  0.5000  0.5000  0.5000  0.5000",
            "overall score 0.5000 over 2 cases, 1 unscored (counted as 0)",
            "not counted (expected to fail): 1 xfailed, 1 xpassed",
            "*",
            "could not be scored (counted as 0):",
            "  test_no_json.py::test_no_json: no JSON object found in actual: 'I cannot help'",
        ]
    )


def test_a_raising_target_is_an_error_of_its_case(pytester):
    pytester.makeconftest("""
        def pytest_jsonmatch_target(case, config):
            raise TimeoutError("the model did not answer")
    """)
    pytester.makefile(
        ".jsonmatch.yaml", c="cases:\n  - id: slow\n    expected: {a: 1}\n    input: x\n"
    )
    result = pytester.runpytest_inprocess(*ARGS, "--jsonmatch-gates=fail_under=0.5")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            "field_f1      1     0     0      1  0.0000  0.0000  0.0000  0.0000",
            "overall score 0.0000 over 1 case, 1 unscored (counted as 0)",
            "*",
            "  c.jsonmatch.yaml::slow: TimeoutError: the model did not answer (1 attempt)",
            "FAILED: jsonmatch gates: 2 failures",
            "  1 of 1 case could not be scored, more than the 25% a passing gate allows: no "
            "gate is judged as passed on what was not scored",
            "  overall score 0.0000 is below jsonmatch_gates fail_under 0.5000",
        ]
    )


def test_data_in_the_summary_cannot_drive_the_terminal(pytester):
    pytester.makeconftest("""
        def pytest_jsonmatch_target(case, config):
            raise RuntimeError("\\x1b[2J\\x1b[31mscreen cleared")
    """)
    pytester.makefile(
        ".jsonmatch.yaml", c="cases:\n  - id: evil\n    expected: {a: 1}\n    input: x\n"
    )
    result = pytester.runpytest_inprocess(*ARGS)
    # our section only (pytest's own short summary prints the exception as it is)
    summary = result.stdout.str().split("= jsonmatch =")[1].split("\n=")[0]
    assert "\x1b" not in summary
    assert "c.jsonmatch.yaml::evil: RuntimeError: \\x1b[2J\\x1b[31mscreen cleared" in summary


# -- width ----------------------------------------------------------------------------------

LONG_PATHS = """
from pytest_jsonmatch import assert_json_match

def test_deep():
    key = "a_rather_long_field_name_that_goes_on"
    expected = {"section_" + str(i): {key: {"inner_value": i}} for i in range(3)}
    actual = {"section_" + str(i): {key: {"inner_value": i + 1}} for i in range(3)}
    assert_json_match(actual, expected, metric="json_similarity", threshold=0)
"""


@pytest.mark.parametrize("columns", [80, 200])
def test_every_summary_line_fits_the_terminal(pytester, monkeypatch, columns):
    monkeypatch.setenv("COLUMNS", str(columns))
    pytester.makepyfile(LONG_PATHS)
    result = pytester.runpytest_inprocess(*ARGS)
    summary = result.stdout.str().split("= jsonmatch =")[1].splitlines()[1:]
    assert summary and max(len(line) for line in summary) <= columns
    rows = [line.split()[0] for line in summary if "inner_value" in line]
    # three fields, section_N.a_rather_long_field_name_that_goes_on.inner_value (57 chars)
    assert len(rows) == 3
    if columns == 80:
        # 44 characters of numbers leave 36 for the path: shortened in the middle, each
        # keeps its last part whole (".inner_value" less its dot, 11 characters), an
        # ellipsis, and as much of its beginning as the rest allows (24 characters), which
        # tells the three apart
        path = "a_rather_long_field_name_that_goes_on.inner_value"
        assert rows == [f"section_{i}.{path[:14]}…inner_value" for i in range(3)]
    else:
        assert rows[0] == "section_0.a_rather_long_field_name_that_goes_on.inner_value"


def test_group_by_file_prints_a_field_table_per_file(pytester):
    pytester.makepyfile(
        test_one="""
        from pytest_jsonmatch import assert_json_match
        def test_a():
            assert_json_match({"x": 1}, {"x": 1})
    """,
        test_two="""
        from pytest_jsonmatch import assert_json_match
        def test_b():
            assert_json_match({"y": 2}, {"y": 1}, threshold=0)
    """,
    )
    result = pytester.runpytest_inprocess(*ARGS, "--jsonmatch-report=group_by=file")
    result.stdout.fnmatch_lines(
        [
            "fields of file test_one.py",
            "field   score  match  mismatch  omission  halluc.",
            "x      1.0000      1         0         0        0",
            "",
            "fields of file test_two.py",
            "field   score  match  mismatch  omission  halluc.",
            "y      0.0000      0         1         0        0",
        ]
    )


# Two paths whose ends are alike, in a manifest: the run before had every weight right, this
# one gets the containers' weights wrong in two of three cases.
MANIFESTS = """
import pytest
from pytest_jsonmatch import assert_json_match

GOOD = {{"containers": [{{"gross_weight_kg": 10, "type": "pallet"}}], "total_gross_weight_kg": 10}}

@pytest.mark.parametrize("case", range(3))
def test_manifest(case):
    actual = {{"containers": [{{"gross_weight_kg": {weight}, "type": "pallet"}}],
              "total_gross_weight_kg": 10}}
    if case == 2:
        actual = GOOD
    assert_json_match(actual, GOOD, threshold=0)
"""


def test_at_80_columns_paths_stay_apart_and_no_number_is_cut(pytester, monkeypatch):
    monkeypatch.setenv("COLUMNS", "80")
    pytester.makepyfile(test_manifests=MANIFESTS.format(weight=10))
    pytester.runpytest_inprocess(*ARGS, "--jsonmatch-report=main.json")
    pytester.makepyfile(test_manifests=MANIFESTS.format(weight=99))
    result = pytester.runpytest_inprocess(
        *ARGS, "--jsonmatch-baseline=main.json", "--jsonmatch-gates=max_case_drop=1"
    )
    summary = result.stdout.str().split("= jsonmatch =")[1].split("\n=")[0].splitlines()
    # every table row ends in whole figures: no cell cut with an ellipsis at its end
    assert not [line for line in summary if line.rstrip().endswith("…")]
    # the against-the-baseline table of 8 columns: its header and its rows whole
    header = next(
        line for line in summary if line.lstrip().startswith("field") and "Holm p" in line
    )
    assert header.split()[-2:] == ["Holm", "p"]
    # per field table and against the baseline: the two weights never read alike
    at = [k for k, line in enumerate(summary) if "_weight_kg" in line]
    names = [summary[k].split()[0] for k in at]
    for table_names in (names[:2], names[2:4]):
        assert len(set(table_names)) == 2, table_names
    # against the baseline, 8 columns of figures leave under 20 characters at 80 columns:
    # the table is split in two (the changes, then intervals and p-values), each name whole
    # on the line of its figures in both, and no line is wider
    both = ["containers[].gross_weight_kg", "total_gross_weight_kg"]
    assert sorted(names[2:4]) == sorted(names[4:6]) == both
    # (the verdict and the warning are one line each, for a CI log's search: not tables)
    tables = [line for line in summary if not line.startswith(("jsonmatch gates", "warning:"))]
    assert max(len(line) for line in tables) <= 80
    # containers[].gross_weight_kg went from 1 to 1/3 over the 3 shared cases: the row's
    # numbers are whole (base 1.0000, now 0.3333, change -0.6667)
    (k,) = [k for k in at[2:4] if summary[k].split()[0].startswith("c")]
    assert summary[k].split()[1:5] == ["3", "1.0000", "0.3333", "-0.6667"]


def test_the_records_are_let_go_once_the_summary_and_the_report_are_out(pytester):
    # pytest 8.4 and later collect garbage five times as the config is unconfigured: the
    # session's records (its comparisons, their field passes, the report) are dropped
    # before, after the summary has been printed and the report written from them
    from pytest_jsonmatch.plugin.session import SESSION

    pytester.makepyfile(TWO_TESTS)
    reprec = pytester.inline_run(*ARGS, "--jsonmatch-report=out/r.json")
    reprec.assertoutcome(passed=1, failed=1)
    session = reprec.getcall("pytest_unconfigure").config.stash[SESSION]
    assert (session.comparisons, session.updates, session.report, session.counts) == (
        [],
        [],
        None,
        None,
    )
    report = json.loads((pytester.path / "out" / "r.json").read_text())
    assert sorted(c["status"] for c in report["comparisons"]) == ["failed", "passed"]
