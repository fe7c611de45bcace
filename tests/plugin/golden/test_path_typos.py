"""A path a case file names that matches no field of the cases it applies to is never silent
(issue 75, "no silent typo"): ``fields``, ``ignore``, a key field and xfail's ``fields``,
each a warning naming the file, the case and the nearest path, and with the floors' ``strict``
a failure. A folder's or a file's path is judged on all its cases: one that some case has is
no typo. Real pytest sessions (in process), xdist's workers too."""

from __future__ import annotations

import json

import pytest

from tests.helpers.plugin_cases import ARGS, write

pytestmark = pytest.mark.slow  # (CONTRIBUTING.md: the inner loop leaves it out)

EMAIL = (
    "id: refund\n"
    "expected: {customer: {name: Ann}, refund_amount: 30, items: [{sku: A1, qty: 2}]}\n"
    "actual: {customer: {name: Ann}, refund_amount: 0, items: [{sku: A1, qty: 2}]}\n"
)


def _run(pytester: pytest.Pytester, *args: str) -> pytest.RunResult:
    return pytester.runpytest_inprocess(*ARGS, *args)


def _case(pytester: pytest.Pytester, options: str, name: str = "c.jsonmatch.yaml") -> None:
    write(pytester, name, EMAIL + options)


def test_a_misspelt_fields_path_is_a_warning_naming_file_case_and_nearest(pytester):
    # refund_amount scores 0 (30 against 0): 5 fields, 4 match, F1 0.8 < threshold 0.5? no:
    # threshold 0.75 passes it; the floor meant for refund_amount would fail it, misspelt
    _case(pytester, "threshold: 0.75\noptions:\n  fields: {refund_amont: {min_score: 1}}\n")
    result = _run(pytester)
    out = result.stdout.str()
    assert result.ret == 0, out
    assert (
        "c.jsonmatch.yaml:1: PathWarning: case 'refund': fields 'refund_amont' matches no field "
        "of the case; did you mean 'refund_amount'? ('strict' in jsonmatch_field_floors fails it)"
    ) in out


def test_with_strict_the_misspelt_path_fails_the_case(pytester):
    _case(pytester, "threshold: 0.75\noptions:\n  fields: {refund_amont: {min_score: 1}}\n")
    result = _run(pytester, "--jsonmatch-field-floors=strict")
    out = result.stdout.str()
    assert result.ret == 1, out
    assert (
        "c.jsonmatch.yaml:1: case 'refund': fields 'refund_amont' matches no field of the "
        "case; did you mean 'refund_amount'? ('strict' in jsonmatch_field_floors)"
    ) in out
    # failed in every figure too, as its test is: its score (0.8) meets its threshold
    result = _run(pytester, "--jsonmatch-field-floors=strict", "--jsonmatch-report=r.json")
    report = json.loads((pytester.path / "r.json").read_text())
    assert [c["status"] for c in report["cases"]] == ["failed"]
    assert [c["status"] for c in report["comparisons"]] == ["failed"]
    assert "field_f1      1     0     1" in result.stdout.str()


@pytest.mark.parametrize(
    ("options", "said"),
    [
        (
            "ignore: [custmer.name]",
            "ignore 'custmer.name' matches no field of the case; did you mean 'customer.name' or 'customer'?",
        ),
        (
            "fields: {items: {align: {match_by: key_field, key: skuu}}}",
            "key field 'skuu' of items names no key of the arrays it pairs in the case; did you mean 'sku'?",
        ),
        (
            "align: {match_by: key_field, key: qtty}",
            "key field 'qtty' names no key of the arrays it pairs in the case; did you mean 'qty'?",
        ),
    ],
)
def test_ignore_and_key_fields_that_match_nothing_are_warnings(pytester, options, said):
    _case(pytester, f"threshold: 0\noptions:\n  {options}\n")
    result = _run(pytester)
    assert f"c.jsonmatch.yaml:1: PathWarning: case 'refund': {said}" in result.stdout.str()


def test_an_xfail_field_that_matches_nothing_is_a_warning(pytester):
    _case(pytester, "marks: [{xfail: {fields: [refund_amout]}}]\n")
    out = _run(pytester).stdout.str()
    assert (
        "case 'refund': xfail fields 'refund_amout' matches no field of the case; "
        "did you mean 'refund_amount'?"
    ) in out


def test_paths_that_match_a_field_or_an_actual_only_field_are_no_typos(pytester):
    write(
        pytester,
        "c.jsonmatch.yaml",
        """\
        expected: {a: 1, items: [{sku: A, qty: 1}]}
        actual: {a: 1, items: [{sku: A, qty: 1}], debug: {trace: x}}
        options:
          ignore: [debug.trace, "**.qty"]
          fields: {"items[].sku": {min_score: 1}, items: {align: {match_by: key_field, key: sku}}}
        marks: [{xfail: {fields: ["items[].sku"]}}]
        """,
    )
    result = _run(pytester, "-W", "error::pytest_jsonmatch.engine.core.errors.JsonMatchWarning")
    out = result.stdout.str()
    assert "matches no" not in out and "names no key" not in out, out


FOLDER = "golden/jsonmatch.yaml"


def test_a_folder_path_some_case_has_is_no_typo_and_one_none_has_is_named_once(pytester):
    write(pytester, "pytest.ini", "[pytest]\njsonmatch_golden = golden\n")
    write(pytester, FOLDER, "options:\n  ignore: [debug, debgu_info]\n")
    write(pytester, "golden/a.yaml", "expected: {x: 1}\nactual: {x: 1, debug: 2}\n")
    write(
        pytester,
        "golden/b.yaml",
        "expected: {x: 1, debug_info: 1}\nactual: {x: 1, debug_info: 1}\n",
    )
    write(pytester, "golden/c.yaml", "expected: {x: 1}\nactual: {x: 1}\n")
    result = _run(pytester)
    out = result.stdout.str()
    assert result.ret == 0, out
    # debug is in a's actual: used; debgu_info is in none of the three cases
    assert "'debug' matches" not in out
    line = (
        "golden/jsonmatch.yaml:1: ignore 'debgu_info' matches no field of any of the 3 cases "
        "it applies to; did you mean 'debug_info' or 'debug'? (warning; 'strict' in "
        "jsonmatch_field_floors fails the run)"
    )
    assert out.count(line) == 1, out
    strict = _run(pytester, "--jsonmatch-field-floors=strict")
    failing = line.replace(
        "(warning; 'strict' in jsonmatch_field_floors fails the run)", "(fails the run)"
    )
    assert strict.ret == 1 and failing in strict.stdout.str(), strict.stdout.str()


def test_a_folder_path_is_judged_over_every_xdist_worker(pytester):
    write(pytester, "pytest.ini", "[pytest]\njsonmatch_golden = golden\n")
    write(pytester, FOLDER, "options:\n  ignore: [debug, nowhere]\n")
    for i in range(4):  # one case of four has debug: over two workers, the other has none
        extra = ", debug: 2" if i == 0 else ""
        write(pytester, f"golden/c{i}.yaml", f"expected: {{x: 1}}\nactual: {{x: 1{extra}}}\n")
    result = pytester.runpytest_subprocess(*ARGS, "-n", "2")
    out = result.stdout.str()
    assert result.ret == 0, out
    # the four cases counted together: each worker's tally reached the controller
    assert "ignore 'nowhere' matches no field of any of the 4 cases it applies to" in out, out
    assert "'debug' matches" not in out, out
