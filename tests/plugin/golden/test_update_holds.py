"""What an update writes of a case (updating/update_review.py's case_update, plugin/golden_items.py):
only the fields the metric counted wrong, each field it counted right keeping its expected
value as written (a total within its tolerance, a note the judge accepted, an ignored field);
and nothing an xfail expects to fail: an xfail case is left as written by create, fix and
all, its review marks it, ``jsonmatch accept --all`` leaves it and ``--case ID`` writes it.
Real pytest sessions (in-process), the accepts through the command line's main."""

from __future__ import annotations

import json

import pytest

from pytest_jsonmatch import match_json, register_comparator
from pytest_jsonmatch.cli.app import main
from pytest_jsonmatch.engine.comparing.registry import REGISTRY
from pytest_jsonmatch.updating.update_fields import Rows, Selection
from pytest_jsonmatch.updating.update_review import REVIEW_JSON, REVIEW_MD
from tests.helpers.plugin_cases import ARGS

# a stand-in for the judge of a team's notes: it accepts a note holding the expected words
JUDGE = """
def _judge(items):
    return [1.0 if i.expected.lower() in i.actual.lower() else 0.0 for i in items]

def pytest_jsonmatch_register(registry):
    registry.register_comparator("judge", _judge, batch=True)
"""

REASON = "the agent adds to the count instead of overwriting it (WH-7)"
CASES = (
    "threshold: 0.9\n"
    "cases:\n"
    "  - id: restock\n"
    "    options:\n"
    "      fields: {total: {tolerance: 0.05}, note: {comparator: judge}}\n"
    "      ignore: [checked_at]\n"
    "    expected: {sku: SKU-3301, qty: 12, total: 120.0, note: restocked aisle B, "
    'checked_at: "09:00"}\n'
    "    actual: {sku: SKU-3301, qty: 14, total: 120.04, note: Restocked aisle B as asked, "
    'checked_at: "09:05"}\n'
    "  - id: known_flaw   # documents a known flaw of the model\n"
    f'    marks: [{{xfail: {{reason: "{REASON}"}}}}]\n'
    "    expected: {sku: SKU-3302, qty: 5}\n"
    "    actual: {sku: SKU-3302, qty: 9}\n"
)
# restock: qty wrong, sku, total (within 0.05), note (the judge) right, checked_at ignored:
# 3 of 4 scored fields, 0.75 < 0.9; known_flaw: qty wrong, 0.5
RESTOCK_FIXED = CASES.replace("qty: 12, total", "qty: 14, total")


def _suite(pytester, text=CASES):
    pytester.makeconftest(JUDGE)
    path = pytester.path / "stock.jsonmatch.yaml"
    path.write_text(text)
    return path


def test_all_rewrites_what_the_metric_counted_wrong_and_keeps_what_it_counted_right(pytester):
    path = _suite(pytester, CASES.split("  - id: known_flaw")[0])
    result = pytester.runpytest_inprocess(*ARGS, "--jsonmatch-update=all")
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(["updated 1 case in 1 file:", "  stock.jsonmatch.yaml:3 restock"])
    # qty alone: the total within its tolerance, the note the judge accepted and the ignored
    # time keep their values as written
    assert path.read_text() == RESTOCK_FIXED.split("  - id: known_flaw")[0]
    pytester.runpytest_inprocess(*ARGS).assert_outcomes(passed=1)


def test_a_review_lists_only_the_fields_the_metric_counted_wrong(pytester):
    path = _suite(pytester, CASES.split("  - id: known_flaw")[0])
    result = pytester.runpytest_inprocess(*ARGS, "--jsonmatch-update=all,review")
    result.stdout.fnmatch_lines(
        [
            "update review (all,review): 1 case in 1 file would change, 1 field; no case file "
            "was written",
            "  stock.jsonmatch.yaml:3 restock: scored 0.75 < 1.0",
            "    qty: 12 -> 14 (field scored 0.0: mismatch)",
            "review written to *",
        ]
    )
    (case,) = json.loads((pytester.path / ".jsonmatch" / REVIEW_JSON).read_text())["files"][0][
        "cases"
    ]
    assert case["new"] == {
        "sku": "SKU-3301",
        "qty": 14,
        "total": 120.0,
        "note": "restocked aisle B",
        "checked_at": "09:00",
    }
    assert main(["accept", "--all", str(pytester.path / ".jsonmatch" / REVIEW_JSON)]) == 0
    assert path.read_text() == RESTOCK_FIXED.split("  - id: known_flaw")[0]


def test_fix_leaves_an_xfail_case_as_written_and_says_so(pytester):
    path = _suite(pytester)
    result = pytester.runpytest_inprocess(*ARGS, "--jsonmatch-update=fix", "-rxX")
    # restock fixed (passes); known_flaw still fails as its mark expects: xfailed, not XPASS
    result.assert_outcomes(passed=1, xfailed=1)
    result.stdout.fnmatch_lines(
        [
            "updated 1 case in 1 file:",
            "  stock.jsonmatch.yaml:3 restock",
            "left 1 xfail case as written (an update never writes what an xfail expects to "
            "fail; to write one, review it with ,review and name it: jsonmatch accept --case ID):",
            f"  stock.jsonmatch.yaml:9 known_flaw: xfail ({REASON}): qty",
        ]
    )
    assert path.read_text() == RESTOCK_FIXED  # known_flaw byte for byte
    # the next run: the known flaw is still an expected failure
    pytester.runpytest_inprocess(*ARGS).assert_outcomes(passed=1, xfailed=1)


def test_all_leaves_an_xfail_case_and_judges_a_run_that_wrote_nothing(pytester):
    text = CASES.replace("qty: 12, total", "qty: 14, total")
    path = _suite(pytester, text)
    result = pytester.runpytest_inprocess(*ARGS, "--jsonmatch-update=all")
    result.assert_outcomes(passed=1, xfailed=1)
    assert path.read_text() == text
    assert "updated" not in result.stdout.str()
    result.stdout.fnmatch_lines(["left 1 xfail case as written (*"])
    # nothing written: the scores are the case file's, and the gates judge them
    assert "not judged" not in result.stdout.str()


def test_a_review_marks_an_xfail_case_accept_all_leaves_it_and_accept_case_writes_it(
    pytester, capsys
):
    path = _suite(pytester)
    result = pytester.runpytest_inprocess(*ARGS, "--jsonmatch-update=fix,review")
    result.assert_outcomes(failed=1, xfailed=1)  # reviewed: nothing changed
    result.stdout.fnmatch_lines(
        [
            "update review (fix,review): 2 cases in 1 file would change, 2 fields; no case "
            "file was written",
            "  stock.jsonmatch.yaml:3 restock: scored 0.75 < threshold 0.9",
            "    qty: 12 -> 14 (field scored 0.0: mismatch)",
            f"  stock.jsonmatch.yaml:9 known_flaw: scored 0.5 < threshold 0.9 [xfail ({REASON}): "
            "jsonmatch accept --all leaves it; --case known_flaw writes it]",
            "    qty: 5 -> 9 (xfail; field scored 0.0: mismatch)",
        ]
    )
    review = pytester.path / ".jsonmatch" / REVIEW_JSON
    restock, flaw = json.loads(review.read_text())["files"][0]["cases"]
    assert "xfail" not in restock and "xfail" not in restock["fields"][0]
    assert flaw["xfail"] == f"xfail ({REASON})"
    assert [(f["path"], f["xfail"]) for f in flaw["fields"]] == [("qty", True)]
    markdown = (pytester.path / ".jsonmatch" / REVIEW_MD).read_text()
    assert "| qty | 5 | 9 | xfail; field scored 0.0: mismatch |" in markdown
    assert "jsonmatch accept --all leaves it; --case known\\_flaw writes it" in markdown
    capsys.readouterr()
    assert main(["accept", "--all", str(review)]) == 0
    assert path.read_text() == RESTOCK_FIXED
    assert capsys.readouterr().out.splitlines() == [
        "accepted 1 field of 1 case:",
        "  stock.jsonmatch.yaml:3 restock: every field",
        f"the review {review} holds 1 more case; --all left 1 xfail case (an update never "
        "writes what an xfail expects to fail; name one to write it: --case ID or --field "
        "ID:PATH):",
        f"  stock.jsonmatch.yaml:9 known_flaw: xfail ({REASON}): qty",
    ]
    assert main(["accept", "--all", str(review)]) == 0  # again: still left
    assert path.read_text() == RESTOCK_FIXED
    assert main(["accept", "--case", "known_flaw", str(review)]) == 0  # named: written
    assert path.read_text() == RESTOCK_FIXED.replace("qty: 5}", "qty: 9}")
    assert not review.exists()


def test_create_leaves_an_xfail_case_without_expected(pytester):
    text = (
        "cases:\n"
        "  - id: known_flaw\n"
        f'    marks: [{{xfail: {{reason: "{REASON}"}}}}]\n'
        "    actual: {sku: SKU-3302, qty: 9}\n"
        "  - id: fresh\n"
        "    actual: {sku: SKU-3303, qty: 1}\n"
    )
    path = _suite(pytester, text)
    result = pytester.runpytest_inprocess(*ARGS, "--jsonmatch-update=create")
    result.stdout.fnmatch_lines(
        [
            "updated 1 case in 1 file:",
            "  stock.jsonmatch.yaml:5 fresh",
            "left 1 xfail case as written (*",
            f"  stock.jsonmatch.yaml:2 known_flaw: xfail ({REASON}): $",
        ]
    )
    assert path.read_text() == text + "    expected:\n      sku: SKU-3303\n      qty: 1\n"


def test_a_conftest_xfail_mark_holds_and_runxfail_updates_as_any_case(pytester):
    text = (
        "cases:\n"
        "  - id: flaw\n"
        "    expected: {sku: SKU-3302, qty: 5}\n"
        "    actual: {sku: SKU-3302, qty: 9}\n"
    )
    path = _suite(pytester, text)
    pytester.makeconftest(
        "import pytest\n"
        "def pytest_collection_modifyitems(items):\n"
        "    for item in items:\n"
        "        item.add_marker(pytest.mark.xfail(reason='known'))\n"
    )
    result = pytester.runpytest_inprocess(*ARGS, "--jsonmatch-update=fix")
    result.assert_outcomes(xfailed=1)
    assert path.read_text() == text
    result = pytester.runpytest_inprocess(*ARGS, "--jsonmatch-update=fix", "--runxfail")
    result.assert_outcomes(passed=1)
    assert path.read_text() == text.replace("qty: 5}", "qty: 9}")


def test_an_xfail_whose_condition_is_false_holds_nothing(pytester):
    text = (
        "cases:\n"
        "  - id: flaw\n"
        "    marks: [{xfail: {condition: false, reason: not on this platform}}]\n"
        "    expected: {sku: SKU-3302, qty: 5}\n"
        "    actual: {sku: SKU-3302, qty: 9}\n"
    )
    path = _suite(pytester, text)
    pytester.runpytest_inprocess(*ARGS, "--jsonmatch-update=fix").assert_outcomes(passed=1)
    assert path.read_text() == text.replace("qty: 5}", "qty: 9}")


# -- what an update takes of an output --------------------------------------------------------


def _written(old, new, **options):
    """What an update writes of ``new`` over ``old``, scored by match_json(options)."""
    return Selection(Rows(match_json(new, old, **options).fields)).of(old, new)


def test_an_extra_key_is_added_only_where_the_metric_counts_it():
    old, new = {"a": 1, "b": 2}, {"a": 1, "b": 3, "extra": 4}
    # field_f1 counts the extra key as a hallucination; json_similarity (recall) does not
    assert _written(old, new) == new
    assert _written(old, new, metric="json_similarity") == {"a": 1, "b": 3}
    # a key the output lacks is an omission: removed
    assert _written({"a": 1, "gone": 2}, {"a": 1}) == {"a": 1}


def test_a_list_the_pairing_reordered_is_one_part():
    # structural_f1 pairs the items by their content: the expected A pairs with the actual's
    # second item (its qty wrong), B with the first; index for index would write A's qty as 2
    old = {"lines": [{"sku": "A", "qty": 1}, {"sku": "B", "qty": 2}], "total": 3.0}
    new = {"lines": [{"sku": "B", "qty": 2}, {"sku": "A", "qty": 5}], "total": 3.01}
    tolerant = {"fields": {"total": {"tolerance": 0.05}}}
    assert _written(old, new, metric="structural_f1", **tolerant) == {**new, "total": 3.0}
    # all of it right, reordered: kept
    same = {"lines": [{"sku": "B", "qty": 2}, {"sku": "A", "qty": 1}], "total": 3.0}
    assert _written(old, same, metric="structural_f1") == old


def test_a_list_that_grows_keeps_its_items_counted_right():
    # the items both have are walked one by one (the price within its tolerance kept), the
    # item the output adds is its own part (a hallucination under field_f1: added)
    old = {"lines": [{"sku": "A", "price": 10.0}]}
    new = {"lines": [{"sku": "A", "price": 10.02}, {"sku": "B", "price": 4.0}]}
    tolerant = {"fields": {"lines[].price": {"tolerance": 0.05}}}
    assert _written(old, new, **tolerant) == {
        "lines": [{"sku": "A", "price": 10.0}, {"sku": "B", "price": 4.0}]
    }
    # json_similarity does not count the added item: nothing to write
    assert _written(old, new, metric="json_similarity", **tolerant) == old


def test_a_field_compared_whole_decides_its_keys():
    # field_match compares each top-level key whole: a change inside a key is that key's
    # row's (addr mismatches: its zip is rewritten); the normalized metric folds case, so
    # the name spelt otherwise is right and kept
    old = {"addr": {"city": "Oslo", "zip": "0150"}, "name": "Acme"}
    new = {"addr": {"city": "Oslo", "zip": "0151"}, "name": "ACME"}
    assert _written(old, new, metric="field_match") == new
    assert _written(old, new, metric="field_match_normalized") == {**new, "name": "Acme"}


def test_rows_that_are_not_the_value_s_fields_make_the_value_one_part():
    # tool_calls names its rows by the call (get_weather.unit): the value is written whole
    old = {"calls": [{"name": "get_weather", "arguments": {"location": "Oslo", "unit": "c"}}]}
    new = {"calls": [{"name": "get_weather", "arguments": {"location": "Oslo"}}]}
    assert _written(old, new, metric="tool_calls") == new


def test_a_field_the_judge_could_not_score_keeps_its_value():
    # the judge down (a batch comparator answering None): the note is not scored, and an
    # update does not write what nobody judged; the wrong qty is written
    before = REGISTRY.state()
    register_comparator("down", lambda items: [None for _ in items], batch=True)
    try:
        old, new = {"note": "restocked", "qty": 1}, {"note": "done", "qty": 2}
        fields = {"note": {"comparator": "down"}}
        assert _written(old, new, fields=fields) == {"note": "restocked", "qty": 2}
    finally:
        REGISTRY.restore(before)


# -- an xfail that names fields, reviewed; the review file's marks --------------------------------

FLIGHTS = (
    "cases:\n"
    "- id: regressed\n"
    "  marks: [{xfail: {reason: transposed (FL-12), fields: [flight_number]}}]\n"
    "  expected: {flight_number: BA117, date: '2026-05-01', origin: LHR}\n"
    "  actual: {flight_number: BA171, date: '2026-05-02', origin: LHR}\n"
)


def test_a_field_xfail_is_reviewed_field_by_field_and_accepted_when_named(pytester, capsys):
    path = pytester.path / "flights.jsonmatch.yaml"
    path.write_text(FLIGHTS)
    result = pytester.runpytest_inprocess(*ARGS, "--jsonmatch-update=fix,review")
    result.stdout.fnmatch_lines(
        [
            "  flights.jsonmatch.yaml:2 regressed: scored 0.3333 < threshold 1.0 [xfail at "
            "flight_number (transposed (FL-12)): jsonmatch accept --all leaves its fields "
            "marked xfail; --case regressed writes it]",
            '    flight_number: "BA117" -> "BA171" (xfail; field scored 0.0: mismatch)',
            '    date: "2026-05-01" -> "2026-05-02" (field scored 0.0: mismatch)',
        ]
    )
    review = pytester.path / ".jsonmatch" / REVIEW_JSON
    assert main(["accept", "--all", str(review)]) == 0  # the date alone
    dated = FLIGHTS.replace("date: '2026-05-01'", "date: '2026-05-02'")
    assert path.read_text() == dated
    assert "accepted 1 field of 1 case:\n  flights.jsonmatch.yaml:2 regressed: date\n" in (
        capsys.readouterr().out
    )
    (left,) = json.loads(review.read_text())["files"][0]["cases"]
    assert left["xfail"] == "xfail at flight_number (transposed (FL-12))"
    assert [(f["path"], f["xfail"]) for f in left["fields"]] == [("flight_number", True)]
    assert main(["accept", "--field", "regressed:flight_number", str(review)]) == 0
    assert path.read_text() == dated.replace("BA117", "BA171", 1)
    assert not review.exists()


def test_fix_leaves_the_fields_a_field_xfail_names(pytester):
    path = pytester.path / "flights.jsonmatch.yaml"
    path.write_text(FLIGHTS)
    result = pytester.runpytest_inprocess(*ARGS, "--jsonmatch-update=fix")
    result.stdout.fnmatch_lines(
        [
            "updated 1 case in 1 file:",
            "  flights.jsonmatch.yaml:2 regressed",
            "left 1 xfail case as written (*",
            "  flights.jsonmatch.yaml:2 regressed: xfail at flight_number (transposed "
            "(FL-12)): flight_number",
        ]
    )
    assert path.read_text() == FLIGHTS.replace("date: '2026-05-01'", "date: '2026-05-02'")
    pytester.runpytest_inprocess(*ARGS).assert_outcomes(xfailed=1)  # the known flaw alone


def test_a_held_update_crosses_the_xdist_wire():
    from pytest_jsonmatch.updating.updates import CaseUpdate

    update = CaseUpdate(
        **dict.fromkeys(("path", "display", "case_id", "default_id", "sha256", "root"), "x"),
        line=2,
        value={"a": 1},
        xfail="xfail (known)",
        held=("a", "b[0]"),
        writes=False,
    )
    assert CaseUpdate.from_dict(json.loads(json.dumps(update.to_dict()))) == update


@pytest.mark.parametrize(
    ("edit", "refused"),
    [
        (lambda case: case.update(xfail=3), True),
        (lambda case: case["fields"][0].update(xfail="yes"), True),
        (lambda case: case.pop("xfail"), True),  # a field marked, the case not
        (lambda case: [f.pop("xfail") for f in case["fields"]], False),  # the case alone
        (lambda case: [case.pop("xfail"), *(f.pop("xfail") for f in case["fields"])], False),
    ],
)
def test_a_review_s_xfail_marks_are_read_as_a_review_run_writes_them(
    pytester, capsys, edit, refused
):
    # a review of an earlier version, without marks, is read as before; marks of another
    # shape are refused before anything is written, naming the case
    path = _suite(pytester)
    pytester.runpytest_inprocess(*ARGS, "--jsonmatch-update=fix,review")
    review = pytester.path / ".jsonmatch" / REVIEW_JSON
    data = json.loads(review.read_text())
    edit(data["files"][0]["cases"][1])
    review.write_text(json.dumps(data))
    code = main(["accept", "--case", "restock", str(review)])
    if refused:
        assert code == 2 and path.read_text() == CASES
        assert (
            "not an update review jsonmatch can read (the xfail of case 'known_flaw' of "
            "'stock.jsonmatch.yaml' is not what a review run writes (the mark's words on the "
            "case, xfail: true on each field it holds))"
        ) in capsys.readouterr().err
    else:
        assert code == 0 and path.read_text() == RESTOCK_FIXED
