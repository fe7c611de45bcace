"""An xfail mark that names what it expects to fail (``xfail: {fields: [flight_number]}``,
cases/marks.py, plugin/golden_items.py): the case is an expected failure only while it fails
at those fields alone; a wrong value in any other field fails it for real, so a known bug
cannot hide a later regression; ``strict`` fails a case whose named fields all match."""

from __future__ import annotations

import json

import pytest

from pytest_jsonmatch.cases.marks import MarkError, field_xfail, fields_expected_to_fail, marks_from
from tests.helpers.plugin_cases import ARGS, write

KNOWN = "{xfail: {reason: 'flight number is wrong (FL-12)', fields: [flight_number]}}"
CASES = f"""\
cases:
- id: known
  marks: [{KNOWN}]
  expected: {{flight_number: BA117, date: '2026-05-01', origin: LHR}}
  actual: {{flight_number: BA171, date: '2026-05-01', origin: LHR}}
- id: regressed
  marks: [{KNOWN}]
  expected: {{flight_number: BA117, date: '2026-05-01', origin: LHR}}
  actual: {{flight_number: BA171, date: '2026-05-02', origin: LHR}}
- id: fixed_strict
  marks: [{{xfail: {{fields: flight_number, strict: true}}}}]
  expected: {{flight_number: BA117, date: '2026-05-01'}}
  actual: {{flight_number: BA117, date: '2026-05-01'}}
- id: fixed
  marks: [{{xfail: {{fields: ['**.flight_number']}}}}]
  expected: {{flight_number: BA117, date: '2026-05-01'}}
  actual: {{flight_number: BA117, date: '2026-05-01'}}
"""


def test_only_the_named_fields_are_expected_to_fail(pytester):
    write(pytester, "cases/flights.jsonmatch.yaml", CASES)
    result = pytester.runpytest_inprocess(*ARGS, "cases", "-rxX", "--jsonmatch-report=r.json")
    # known: only flight_number wrong (field_f1 2/3 < 1.0) -> xfailed; regressed: the date is
    # wrong too -> failed; fixed_strict: the named field matched under strict -> failed;
    # fixed: it matched, not strict -> passed
    result.assert_outcomes(passed=1, failed=2, xfailed=1)
    out = result.stdout.str()
    # (pytest 7 puts "reason: " before the reason, later pytests do not)
    (line,) = [x for x in out.splitlines() if x.startswith("XFAIL cases/flights.jsonmatch.yaml")]
    assert line.startswith("XFAIL cases/flights.jsonmatch.yaml::known - ")
    assert line.endswith("expected to fail at flight_number (flight number is wrong (FL-12))")
    assert "failing at date, which xfail does not name; expected to fail at flight_number" in out
    assert "xfail(strict) expected flight_number to fail, and none of them did" in out
    statuses = {
        c["case_id"].split("::")[-1]: c["status"]
        for c in json.loads((pytester.path / "r.json").read_text())["comparisons"]
    }
    assert statuses == {
        "known": "xfailed",
        "regressed": "failed",
        "fixed_strict": "xpassed",  # failed as pytest fails a strict XPASS, and not counted
        "fixed": "passed",
    }


def test_a_field_xfail_is_never_handed_to_pytest():
    marks = marks_from([{"xfail": {"fields": ["a.b", "items[].c"], "reason": "r"}}, "slow"])
    expected = fields_expected_to_fail(marks)
    assert expected is not None and expected.named == "a.b, items[].c"
    assert expected.covers("items[3].c") and not expected.covers("items[3].d")


@pytest.mark.parametrize(
    ("passed", "failing", "outcome"),
    [
        (False, ["flight_number"], ("xfail", "expected to fail at flight_number (r)")),
        (
            False,
            ["flight_number", "date"],
            (
                "fail",
                "failing at date, which xfail does not name; expected to fail at flight_number",
            ),
        ),
        (False, ["date"], ("fail", "failing at date, which xfail does not name")),
        (True, ["flight_number"], ("", "")),  # failed a field, passed its threshold: a pass
        (True, [], ("", "")),
    ],
)
def test_what_a_field_xfail_makes_of_an_outcome(passed, failing, outcome):
    from pytest_jsonmatch.engine.results.field_results import FieldResult, MatchResult

    (spec,) = marks_from([{"xfail": {"fields": "flight_number", "reason": "r"}}])
    # one run whose failing fields are mismatches, beside a field that matched and one skipped
    fields = [FieldResult(path, "mismatch", 0.0, 1, 2, "exact") for path in failing]
    fields += [FieldResult("ok", "match", 1.0, 1, 1, "exact")]
    fields += [FieldResult("skip", "skipped", 0.0, 1, 1, "")]
    run = MatchResult("field_f1", 0.5, 0.5, 0.5, 0.5, tuple(fields))
    assert field_xfail(fields_expected_to_fail([spec]), passed, [run]) == outcome


@pytest.mark.parametrize(
    ("spec", "error"),
    [
        ({"xfail": {"fields": 3}}, "mark 'xfail': fields must be a field path or a list"),
        ({"xfail": {"fields": []}}, "mark 'xfail': fields must be a field path or a list"),
        ({"xfail": {"fields": ["a[x"]}}, "mark 'xfail': fields must be a field path or a list"),
        ({"xfail": {"fields": "a", "condition": True}}, "mark 'xfail': fields= names what fails"),
    ],
)
def test_a_bad_fields_argument_is_named(spec, error):
    with pytest.raises(MarkError, match=f"^{error}"):
        marks_from([spec])


def test_an_update_leaves_the_named_fields_and_reports_the_case_as_any_run(pytester):
    # the run of --jsonmatch-update=all rewrites what no xfail names (regressed's date) and
    # leaves what one does (flight_number: the known flaw stays a failure to fix), and
    # reports each as any run would: known xfailed (left out of the figures), regressed failed
    write(pytester, "cases/flights.jsonmatch.yaml", CASES)
    result = pytester.runpytest_inprocess(
        *ARGS, "cases", "--jsonmatch-update=all", "--jsonmatch-report=r.json"
    )
    result.assert_outcomes(passed=2, failed=1, xfailed=1)
    statuses = {
        c["case_id"].split("::")[-1]: c["status"]
        for c in json.loads((pytester.path / "r.json").read_text())["comparisons"]
    }
    assert statuses["known"] == "xfailed" and statuses["regressed"] == "failed"
    written = (pytester.path / "cases/flights.jsonmatch.yaml").read_text()
    assert written == CASES.replace(
        "{flight_number: BA117, date: '2026-05-01', origin: LHR}\n  actual: {flight_number: "
        "BA171, date: '2026-05-02'",
        "{flight_number: BA117, date: '2026-05-02', origin: LHR}\n  actual: {flight_number: "
        "BA171, date: '2026-05-02'",
    )
    result.stdout.fnmatch_lines(
        [
            "updated 1 case in 1 file:",
            "  cases/flights.jsonmatch.yaml:6 regressed",
            "left 2 xfail cases as written (*",
            "  cases/flights.jsonmatch.yaml:2 known: xfail at flight_number (flight number is "
            "wrong (FL-12)): flight_number",
            "  cases/flights.jsonmatch.yaml:6 regressed: xfail at flight_number (*): flight_number",
        ]
    )
    # the next run: known and regressed fail at flight_number alone, as the mark expects
    again = pytester.runpytest_inprocess(*ARGS, "cases")
    again.assert_outcomes(passed=1, failed=1, xfailed=2)
