"""Golden case files: which files are collected, the items they make, ids, lines, defaults."""

from __future__ import annotations

import textwrap
import xml.etree.ElementTree as ET

import pytest

from tests.helpers.plugin_cases import write


def ini(pytester: pytest.Pytester, extra: str = "") -> None:
    write(pytester, "pytest.ini", "[pytest]\njsonmatch_golden = golden\n" + textwrap.dedent(extra))


# hypothesis' pytest plugin costs a second per in-process run and plays no part here
QUIET = ("-p", "no:hypothesispytest")


def run(pytester: pytest.Pytester, *args: str) -> pytest.RunResult:
    return pytester.runpytest_inprocess(*QUIET, *args)


def genitems(pytester: pytest.Pytester, *args: str) -> tuple[list[pytest.Item], object]:
    return pytester.inline_genitems(*QUIET, *args)


PASSING = """\
expected: {a: 1}
actual: {a: 1}
"""


def collected_ids(pytester: pytest.Pytester, *args: str) -> list[str]:
    result = run(pytester, "--collect-only", "-q", *args)
    return sorted(line for line in result.outlines if "::" in line)


# -- which files ------------------------------------------------------------------------------


def test_files_named_jsonmatch_yaml_or_yml_are_collected_anywhere(pytester):
    write(pytester, "a.jsonmatch.yaml", PASSING)
    write(pytester, "sub/b.jsonmatch.yml", PASSING)
    assert collected_ids(pytester) == ["a.jsonmatch.yaml::a", "sub/b.jsonmatch.yml::b"]


def test_every_yaml_under_a_golden_folder_is_collected(pytester):
    ini(pytester)
    write(pytester, "golden/one.yaml", PASSING)
    write(pytester, "golden/deeper/two.yml", PASSING)
    assert collected_ids(pytester) == ["golden/deeper/two.yml::two", "golden/one.yaml::one"]


def test_other_yaml_files_are_never_read(pytester):
    ini(pytester)
    write(pytester, "config.yaml", "this: is: not: valid: yaml: [")  # would be an error if read
    write(pytester, "other/x.yml", "- a list")
    write(pytester, "golden/jsonmatch.yaml", "threshold: 1.0\n")  # a defaults file, not cases
    write(pytester, "golden/case.yaml", PASSING)
    result = run(pytester)
    result.assert_outcomes(passed=1)


def test_without_the_ini_option_plain_yaml_in_a_folder_named_golden_is_ignored(pytester):
    write(pytester, "golden/case.yaml", "not a case file at all")
    result = run(pytester)
    assert result.ret == pytest.ExitCode.NO_TESTS_COLLECTED


# -- items, ids, lines ------------------------------------------------------------------------


def test_a_file_with_top_level_expected_is_one_case_named_after_the_file(pytester):
    write(pytester, "invoice_7.jsonmatch.yaml", PASSING)
    assert collected_ids(pytester) == ["invoice_7.jsonmatch.yaml::invoice_7"]


def test_a_single_case_may_name_itself(pytester):
    write(pytester, "x.jsonmatch.yaml", "id: my-case\n" + PASSING)
    assert collected_ids(pytester) == ["x.jsonmatch.yaml::my-case"]


MANY = """\
cases:
  - id: alpha
    expected: {a: 1}
    actual: {a: 1}

  - id: beta
    expected: {a: 1}
    actual: {a: 1}
  - id: 3
    expected: {a: 1}
    actual: {a: 1}
"""


def test_a_cases_list_makes_one_item_per_case_in_file_order(pytester):
    write(pytester, "m.jsonmatch.yaml", MANY)
    result = run(pytester, "--collect-only", "-q")
    ids = [line for line in result.outlines if "::" in line]
    assert ids == ["m.jsonmatch.yaml::alpha", "m.jsonmatch.yaml::beta", "m.jsonmatch.yaml::3"]


def test_k_selects_cases_by_id(pytester):
    write(pytester, "m.jsonmatch.yaml", MANY)
    result = run(pytester, "-k", "beta", "-v")
    result.assert_outcomes(passed=1, deselected=2)
    result.stdout.fnmatch_lines(["*m.jsonmatch.yaml::beta PASSED*"])


def test_items_report_the_line_where_their_case_starts(pytester):
    write(pytester, "m.jsonmatch.yaml", MANY)
    items, _ = genitems(pytester)
    # location lines are 0-based, as for Python tests; the domain (a failure's title) names
    # the case by its id, the case file's path from the root dir with it, and the 1-based line
    assert [(i.location[1], i.location[2]) for i in items] == [
        (1, "m.jsonmatch.yaml::alpha (line 2)"),
        (5, "m.jsonmatch.yaml::beta (line 6)"),
        (8, "m.jsonmatch.yaml::3 (line 9)"),
    ]
    assert [i.case.line for i in items] == [2, 6, 9]


def test_junit_xml_carries_the_case_line(pytester):
    write(pytester, "m.jsonmatch.yaml", MANY)
    run(pytester, "--junitxml=out.xml", "-o", "junit_family=xunit1")
    cases = ET.parse(pytester.path / "out.xml").getroot().iter("testcase")
    assert [(c.get("name"), c.get("line"), c.get("file")) for c in cases] == [
        ("alpha", "1", "m.jsonmatch.yaml"),
        ("beta", "5", "m.jsonmatch.yaml"),
        ("3", "8", "m.jsonmatch.yaml"),
    ]


def test_a_failing_case_header_names_its_line(pytester):
    write(
        pytester,
        "f.jsonmatch.yaml",
        """\
        cases:
          - id: ok
            expected: {a: 1}
            actual: {a: 1}
          - id: wrong
            expected: {a: 1, b: 2}
            actual: {a: 1, b: 3}
        """,
    )
    result = run(pytester)
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(["*_ f.jsonmatch.yaml::wrong (line 5) _*"])


def test_dates_stay_the_strings_they_were_written_as(pytester):
    write(
        pytester,
        "d.jsonmatch.yaml",
        """\
        expected: {date: 2024-03-05}
        actual: '{"date": "2024-03-05"}'
        threshold: 1.0
        """,
    )
    items, _ = genitems(pytester)
    assert items[0].case.expected == {"date": "2024-03-05"}
    run(pytester).assert_outcomes(passed=1)


# -- defaults ---------------------------------------------------------------------------------

HALF = """\
cases:
  - id: half
    expected: {a: 1, b: 2}
    actual: {a: 1, b: 3}
"""


def test_the_session_threshold_applies_when_nothing_else_sets_one(pytester):
    write(pytester, "h.jsonmatch.yaml", HALF)  # field_f1 0.5 < the default threshold 1.0
    run(pytester).assert_outcomes(failed=1)


def test_file_level_threshold_and_metric_are_defaults_for_its_cases(pytester):
    write(pytester, "h.jsonmatch.yaml", "metric: field_match\nthreshold: 0.5\n" + HALF)
    items, _ = genitems(pytester)
    assert (items[0].case.metric, items[0].case.threshold) == ("field_match", 0.5)
    run(pytester).assert_outcomes(passed=1)


def test_a_case_overrides_its_file(pytester):
    write(
        pytester,
        "h.jsonmatch.yaml",
        """\
        threshold: 0.5
        cases:
          - id: strict
            threshold: 0.9
            expected: {a: 1, b: 2}
            actual: {a: 1, b: 3}
        """,
    )
    run(pytester).assert_outcomes(failed=1)


def test_folder_defaults_merge_outward_in_and_the_nearest_wins(pytester):
    ini(pytester)
    write(
        pytester,
        "golden/jsonmatch.yaml",
        """\
        metric: json_similarity
        threshold: 0.2
        options: {ignore: [id]}
        """,
    )
    write(
        pytester,
        "golden/inner/jsonmatch.yaml",
        """\
        threshold: 0.7
        options: {target_output_key: data}
        """,
    )
    write(pytester, "golden/inner/c.yaml", HALF)
    write(pytester, "golden/top.yaml", HALF)
    items, _ = genitems(pytester)
    got = {i.nodeid: (i.case.metric, i.case.threshold, dict(i.case.options)) for i in items}
    assert got == {
        "golden/inner/c.yaml::half": (
            "json_similarity",
            0.7,
            {"ignore": ["id"], "target_output_key": "data"},
        ),
        "golden/top.yaml::half": ("json_similarity", 0.2, {"ignore": ["id"]}),
    }


def test_a_schema_path_is_relative_to_the_file_that_names_it(pytester):
    ini(pytester)
    write(
        pytester,
        "schemas/s.json",
        '{"type": "object", "properties": {"total": '
        '{"type": "number", "x-eval-compare": {"numeric": {"abs": 0.5}}}}}',
    )
    write(pytester, "golden/jsonmatch.yaml", "schema: ../schemas/s.json\n")
    write(
        pytester,
        "golden/t.yaml",
        """\
        expected: {total: 10.0}
        actual: {total: 10.4}
        """,
    )
    items, _ = genitems(pytester)
    assert items[0].case.options["schema"] == str(pytester.path / "schemas" / "s.json")
    run(pytester).assert_outcomes(passed=1)


def test_schema_null_drops_a_schema_inherited_from_the_folder(pytester):
    ini(pytester)
    write(pytester, "s.json", '{"type": "object"}')
    write(pytester, "golden/jsonmatch.yaml", "schema: ../s.json\n")
    write(pytester, "golden/t.yaml", "schema: null\n" + PASSING)
    items, _ = genitems(pytester)
    assert items[0].case.options == {"schema": None}


def test_an_inline_schema_mapping_sets_per_field_comparison(pytester):
    write(
        pytester,
        "t.jsonmatch.yaml",
        """\
        schema:
          type: object
          properties:
            name: {type: string, x-eval-transform: [lowercase]}
        cases:
          - id: case-folded
            expected: {name: ACME}
            actual: {name: acme}
        """,
    )
    run(pytester).assert_outcomes(passed=1)


# -- marks ------------------------------------------------------------------------------------


def test_marks_apply_per_case_and_select_with_m(pytester):
    ini(pytester, "markers =\n    slow: slow cases\n")
    write(
        pytester,
        "golden/m.yaml",
        """\
        cases:
          - id: fast
            expected: {a: 1}
            actual: {a: 1}
          - id: heavy
            marks: [slow]
            expected: {a: 1}
            actual: {a: 1}
          - id: known-bad
            marks:
              - xfail: {reason: model confuses a and b, strict: true}
            expected: {a: 1}
            actual: {a: 2}
          - id: known-bad-short
            marks: [xfail]
            expected: {a: 1}
            actual: {a: 2}
        """,
    )
    result = run(pytester, "-m", "slow")
    result.assert_outcomes(passed=1, deselected=3)
    result = run(pytester, "-rx")
    result.assert_outcomes(passed=2, xfailed=2)
    result.stdout.fnmatch_lines(["*XFAIL golden/m.yaml::known-bad - model confuses a and b*"])


def test_file_level_marks_apply_to_every_case(pytester):
    write(pytester, "m.jsonmatch.yaml", "marks: [{skip: {reason: not today}}]\n" + MANY)
    run(pytester).assert_outcomes(skipped=3)
