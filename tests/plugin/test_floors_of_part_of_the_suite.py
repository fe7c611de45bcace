"""A run of part of the suite holds floors only in the groups it ran, and names those it
skipped (reporting/verdicts/gates.py ``part_of_suite``, plugin/session.py); floors can be given
on the command line, a flag's floor replacing the ini's of the same field and group
(session/setting_parts.py ``floor_lines``)."""

from __future__ import annotations

import json

import pytest

from pytest_jsonmatch.session.setting_parts import floor_lines
from tests.helpers.plugin_cases import ARGS, write

FLIGHTS = "cases/flights.jsonmatch.yaml"
HOTELS = "cases/hotels.jsonmatch.yaml"
FLOORS = f"jsonmatch_field_floors =\n    strict\n    {FLIGHTS}:date=0.9\n    {HOTELS}:nights=0.9\n"


def _suite(pytester, floors: str = FLOORS) -> None:
    write(pytester, "pytest.ini", f"[pytest]\njsonmatch_report = group_by=file\n{floors}")
    write(
        pytester,
        FLIGHTS,
        "cases:\n- id: f1\n  expected: {date: '2026-05-01'}\n  actual: {date: '2026-05-01'}\n",
    )
    write(pytester, HOTELS, "cases:\n- id: h1\n  expected: {nights: 3}\n  actual: {nights: 3}\n")


def _run(pytester, *args: str):
    result = pytester.runpytest_inprocess(*ARGS, *args, "--jsonmatch-report=r.json")
    return result, json.loads((pytester.path / "r.json").read_text())["gates"]


def test_one_case_file_run_alone_skips_the_floors_of_the_others_and_names_them(pytester):
    _suite(pytester)
    result, gates = _run(pytester, FLIGHTS)
    result.assert_outcomes(passed=1)
    assert result.ret == 0  # strict, yet the hotels' floor is no failure here
    assert gates["failures"] == []
    assert gates["warnings"] == [
        "jsonmatch_field_floors: 1 floor not held, as this run is part of the suite (named "
        f"{FLIGHTS}) and ran no field it matches: '{HOTELS}:nights'"
    ]
    # the flights' floor was held: date 1.0 >= 0.9
    assert "jsonmatch_field_floors: 1 field row at or above its floor" in gates["checked"]


def test_a_k_selection_is_part_of_the_suite_too(pytester):
    _suite(pytester)
    result, gates = _run(pytester, "cases", "-k", "h1")
    result.assert_outcomes(passed=1)
    assert gates["failures"] == []
    assert gates["warnings"][0].startswith(
        "jsonmatch_field_floors: 1 floor not held, as this run is part of the suite (-k 'h1')"
    )


def test_the_whole_suite_still_fails_a_floor_that_matches_nothing(pytester):
    _suite(pytester, FLOORS + "    nigths=0.9\n")
    result, gates = _run(pytester, "cases")
    result.assert_outcomes(passed=2)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    assert gates["failures"] == [
        "floor 'nigths' matched no scored field of this run; did you mean 'nights'?"
    ]


def test_a_floor_on_the_command_line_replaces_the_ini_s_of_the_same_field(pytester):
    _suite(pytester)
    write(
        pytester,
        FLIGHTS,
        "cases:\n- id: f1\n  threshold: 0\n  expected: {date: '2026-05-01', num: 1}\n"
        "  actual: {date: '2026-05-02', num: 1}\n",
    )
    # the ini's date floor 0.9 becomes 0.0 (date scores 0 here); nights' floor stays
    result, gates = _run(pytester, "cases", f"--jsonmatch-field-floors={FLIGHTS}:date=0")
    result.assert_outcomes(passed=2)
    assert gates["failures"] == []
    assert "jsonmatch_field_floors: 2 field rows at or above their floor" in gates["checked"]
    # raised on the command line instead, the same row fails
    result, gates = _run(
        pytester, "cases", "--jsonmatch-field-floors=num=1", "--jsonmatch-field-floors=date=0.5"
    )
    assert gates["failures"] == [
        f"field date ({FLIGHTS}): mean score 0.0000 is below its floor 0.9000",
        f"field date ({FLIGHTS}): mean score 0.0000 is below its floor 0.5000",
    ]


def test_floor_lines_merge_by_group_and_pattern():
    ini = ["strict", "total=0.9", "field_f1:total=0.8", "# a note"]
    assert floor_lines(ini, ["field_f1 : total=0.95", "items[].sku=1"], "--f") == [
        "strict",
        "total=0.9",
        "field_f1 : total=0.95",
        "items[].sku=1",
    ]
    assert floor_lines(ini, None, "--f") == ["strict", "total=0.9", "field_f1:total=0.8"]


def test_a_bad_floor_on_the_command_line_is_named_by_the_flag(pytester):
    _suite(pytester)
    result = pytester.runpytest_inprocess(*ARGS, "--jsonmatch-field-floors=total")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        [
            "ERROR: pytest-jsonmatch: --jsonmatch-field-floors: expected 'field.path=score' or "
            "'group:field.path=score', not 'total'"
        ]
    )
