"""Options given at several levels merge key by key, down to each field's own settings
(issue 95, F4): the session's ``jsonmatch_options``, a folder's ``jsonmatch.yaml``, a file's
and a case's, and ``assert_json_match``'s keywords over the session's. ``fields`` merge
pattern by pattern and setting by setting, ``ignore`` adds up, ``run_options``' ``tool_args``
merge tool by tool; null clears what is inherited. Real pytest sessions (in process), and
``merged_options`` called directly."""

from __future__ import annotations

import pytest

from pytest_jsonmatch.cases.option_merge import merged_options
from tests.helpers.plugin_cases import ARGS, write


def _run(pytester: pytest.Pytester, *args: str) -> pytest.RunResult:
    return pytester.runpytest_inprocess(*ARGS, *args)


def _ini(pytester: pytest.Pytester, extra: str = "") -> None:
    write(pytester, "pytest.ini", "[pytest]\njsonmatch_golden = golden\n" + extra)


# the finding's suite: a folder says how notes compare (fuzzy, case folded: no judge, no
# network), a file says how its lines pair; each case's note is worded otherwise
FOLDER = """\
options:
  fields:
    "**.note": {comparator: fuzzy, transform: lowercase}
"""
LINES_FILE = """\
options:
  fields:
    lines: {align: {match_by: key_field, key: sku}}
cases:
  - id: recount
    expected: {note: Restocked after count, lines: [{sku: A, qty: 2}, {sku: B, qty: 1}]}
    actual: {note: restocked after the count, lines: [{sku: B, qty: 1}, {sku: A, qty: 2}]}
"""


def test_a_files_fields_keep_the_folders_field_settings(pytester):
    _ini(pytester)
    write(pytester, "golden/jsonmatch.yaml", FOLDER)
    write(pytester, "golden/stock.yaml", LINES_FILE)
    result = _run(pytester, "-rA")
    out = result.stdout.str()
    # the note scored by the folder's fuzzy comparator (token sets: 1.0), the lines by the
    # file's key field: every field matches; compared exactly, the note failed the case
    result.assert_outcomes(passed=1)
    assert "Warning" not in out, out


def test_a_cases_setting_for_a_field_merges_with_the_folders_for_that_field(pytester):
    _ini(pytester)
    write(pytester, "golden/jsonmatch.yaml", FOLDER)
    write(
        pytester,
        "golden/floor.yaml",
        """\
        cases:
          - id: floored
            threshold: 0
            options: {fields: {"**.note": {min_score: 0.9}}}
            expected: {note: Restocked after count, qty: 2}
            actual: {note: Recounted, qty: 2}
          - id: kept
            threshold: 0
            options: {fields: {"**.note": {min_score: 0.9}}}
            expected: {note: Restocked after count, qty: 2}
            actual: {note: RESTOCKED AFTER THE COUNT, qty: 2}
        """,
    )
    items, _ = pytester.inline_genitems(*ARGS)
    assert {i.name: i.case.options for i in items} == {
        name: {"fields": {"**.note": {"comparator": "fuzzy", "transform": "lowercase"} | floor}}
        for name, floor in (("floored", {"min_score": 0.9}), ("kept", {"min_score": 0.9}))
    }
    result = _run(pytester, "-rA")
    # the folder's comparator and the case's floor both hold: a note far off fails its floor,
    # one worded otherwise in capitals passes through the folder's lowercase and fuzzy
    result.assert_outcomes(passed=1, failed=1)
    assert "FAILED golden/floor.yaml::floored" in result.stdout.str()


def test_ignore_adds_up_from_the_folder_to_the_case_and_null_clears_it(pytester):
    _ini(pytester)
    write(pytester, "golden/jsonmatch.yaml", "options: {ignore: ['**.request_id']}\n")
    write(
        pytester,
        "golden/notes.yaml",
        """\
        cases:
          - id: both
            options: {ignore: [note]}
            expected: {request_id: r-1, note: a, qty: 2}
            actual: {request_id: r-2, note: b, qty: 2}
          - id: cleared
            options: {ignore: null}
            expected: {request_id: r-1, qty: 2}
            actual: {request_id: r-2, qty: 2}
        """,
    )
    items, _ = pytester.inline_genitems(*ARGS)
    assert {i.name: i.case.options for i in items} == {
        "both": {"ignore": ["**.request_id", "note"]},
        "cleared": {"ignore": None},
    }
    result = _run(pytester, "-rA")
    result.assert_outcomes(passed=1, failed=1)
    assert "FAILED golden/notes.yaml::cleared" in result.stdout.str()


def test_the_sessions_options_merge_with_a_cases_field_by_field(pytester):
    _ini(pytester, "jsonmatch_options = {fields: {note: {comparator: fuzzy}}, ignore: [rid]}\n")
    write(
        pytester,
        "golden/c.yaml",
        """\
        options: {fields: {qty: {tolerance: 1}}, ignore: [at]}
        expected: {note: after count, qty: 2, rid: x, at: 1}
        actual: {note: after the count, qty: 3, rid: y, at: 2}
        """,
    )
    result = _run(pytester, "-rA")
    result.assert_outcomes(passed=1)


def test_assert_json_match_keywords_merge_with_the_sessions_options(pytester):
    write(
        pytester,
        "pytest.ini",
        "[pytest]\njsonmatch_options = {fields: {note: {comparator: fuzzy}}}\n",
    )
    write(
        pytester,
        "test_merge.py",
        """\
        from pytest_jsonmatch import assert_json_match

        def test_keywords(json_match):
            expected = {"note": "after count", "qty": 2}
            actual = {"note": "after the count", "qty": 3}
            assert_json_match(actual, expected, fields={"qty": {"tolerance": 1}})
            json_match(actual, expected, fields={"qty": {"tolerance": 1}})
        """,
    )
    _run(pytester).assert_outcomes(passed=1)


def test_a_folders_paths_are_judged_over_its_cases_beside_a_cases_own(pytester):
    # the folder's "**.note" and "rid" are in one case of two: no typo; the other case's own
    # "qty" and "at" are in it: no typo. Judged path by path, each by the level that set it
    _ini(pytester)
    write(pytester, "golden/jsonmatch.yaml", FOLDER + "  ignore: [rid]\n")
    write(
        pytester,
        "golden/c.yaml",
        """\
        cases:
          - id: with_note
            expected: {note: a, rid: x}
            actual: {note: a, rid: y}
          - id: without_note
            options: {fields: {qty: {tolerance: 1}}, ignore: [at]}
            expected: {qty: 2, at: 1}
            actual: {qty: 2, at: 2}
        """,
    )
    result = _run(pytester, "-rA")
    result.assert_outcomes(passed=2)
    assert "matches no field" not in result.stdout.str()
    # a case's own path that matches nothing is still said, naming the case
    write(
        pytester,
        "golden/c.yaml",
        "options: {ignore: [tiem]}\nexpected: {item: 1}\nactual: {item: 1}\n",
    )
    write(pytester, "golden/d.yaml", "expected: {note: a, rid: x}\nactual: {note: a, rid: x}\n")
    out = _run(pytester, "-rA").stdout.str()
    assert "case 'c': ignore 'tiem' matches no field of the case; did you mean 'item'?" in out
    assert "'rid'" not in out and "'**.note'" not in out


# -- the rule, called directly -----------------------------------------------------------------


def test_fields_merge_pattern_by_pattern_and_setting_by_setting():
    outer = {"fields": {"note": {"comparator": "fuzzy", "min_score": 0.5}, "id": {"skip": True}}}
    inner = {"fields": {"lines": {"weight": 2}, "note": {"min_score": 0.9}}}
    merged = merged_options(outer, inner)
    assert merged == {
        "fields": {
            "id": {"skip": True},
            "lines": {"weight": 2},
            "note": {"comparator": "fuzzy", "min_score": 0.9},
        }
    }
    # the nearer level's patterns come last (each setting comes from the last pattern that
    # sets it, so where a folder's and a case's patterns both match a field the case's win)
    assert list(merged["fields"]) == ["id", "lines", "note"]
    assert outer == {
        "fields": {"note": {"comparator": "fuzzy", "min_score": 0.5}, "id": {"skip": True}}
    }


def test_comparator_and_tolerance_are_one_setting():
    outer = {"fields": {"total": {"tolerance": 0.5, "weight": 2}}}
    assert merged_options(outer, {"fields": {"total": {"comparator": "exact"}}}) == {
        "fields": {"total": {"weight": 2, "comparator": "exact"}}
    }
    outer = {"fields": {"total": {"comparator": "exact"}}}
    assert merged_options(outer, {"fields": {"total": {"tolerance": 1}}}) == {
        "fields": {"total": {"tolerance": 1}}
    }


def test_ignore_is_a_union_a_string_one_pattern_and_null_clears():
    assert merged_options({"ignore": "a"}, {"ignore": ["b", "a"]}) == {"ignore": ["a", "b"]}
    assert merged_options({"ignore": ["a"]}, {"ignore": "b"}) == {"ignore": ["a", "b"]}
    assert merged_options({"ignore": ["a"]}, {"ignore": []}) == {"ignore": ["a"]}
    assert merged_options({"ignore": ["a"]}, {"ignore": None}) == {"ignore": None}
    assert merged_options({"ignore": None}, {"ignore": ["b"]}) == {"ignore": ["b"]}
    assert merged_options({}, {"ignore": "b"}) == {"ignore": "b"}


def test_null_and_values_of_another_type_replace_what_is_inherited():
    outer = {"fields": {"a": {"weight": 2}}, "schema": "s.json", "align": "hungarian"}
    assert merged_options(outer, {"fields": None, "schema": None}) == {
        "fields": None,
        "schema": None,
        "align": "hungarian",
    }
    # the metric names what is not of its type, as it would at one level
    assert merged_options({"ignore": ["a"]}, {"ignore": 3}) == {"ignore": 3}
    assert merged_options(outer, {"fields": ["a"]})["fields"] == ["a"]
    assert merged_options(outer, {"fields": {"a": "exact"}})["fields"] == {"a": "exact"}
    # a key other than fields, ignore and tool_args is replaced whole
    assert merged_options(
        {"align": {"match_by": "key_field", "key": "a"}}, {"align": "ordered"}
    ) == {"align": "ordered"}


def test_tool_args_merge_tool_by_tool():
    outer = {"args": "subset", "tool_args": {"book": ["seat"], "search": "ignore"}}
    assert merged_options(outer, {"tool_args": {"search": "exact"}}) == {
        "args": "subset",
        "tool_args": {"book": ["seat"], "search": "exact"},
    }
