"""The fast paths and their switches (docs/architecture.md, "Fast paths").

The table there lists every fast path with the general path it mirrors, the switch that
turns it off and its differential tests. Here: the table and the code agree (every switch
exists and is on, every module-level flag set to ``True`` is a switch in the table, each
switch is flipped by a test it names), and each switch that no older test flips is flipped
here, on the fuzz generators' values: the same answer either way, to the bit.
"""

from __future__ import annotations

import ast
import importlib
import json
import re
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pytest_jsonmatch import evaluate_records, match_json
from pytest_jsonmatch.cli.app import main as jsonmatch
from pytest_jsonmatch.dataset import fitting
from pytest_jsonmatch.engine import entry
from pytest_jsonmatch.engine.core.errors import JsonMatchError
from pytest_jsonmatch.engine.core.paths import PathPattern
from pytest_jsonmatch.engine.pairing import pair_scores
from pytest_jsonmatch.engine.schemas import conformance
from pytest_jsonmatch.engine.walking import inline_leaves, rule_apart
from pytest_jsonmatch.reporting.verdicts import field_counts
from tests.helpers import fuzz_values as fv
from tests.helpers.run_records import run_text
from tests.helpers.sweeps import sweep
from tests.helpers.switches import switched

pytestmark = pytest.mark.slow  # (CONTRIBUTING.md: the inner loop leaves it out)

REPO = Path(__file__).resolve().parents[1]
PACKAGE = REPO / "pytest_jsonmatch"

SETTINGS = sweep(40)


def table() -> list[dict[str, str]]:
    """The rows of architecture.md's fast-path table, by column."""
    text = (REPO / "docs" / "architecture.md").read_text(encoding="utf-8")
    section = text.split("\n## Fast paths\n", 1)[1].split("\n## ", 1)[0]
    lines = [line for line in section.splitlines() if line.startswith("| ")]
    head = [cell.strip() for cell in lines[0].strip("|").split("|")]
    return [
        dict(zip(head, (cell.strip() for cell in line.strip("|").split(" | "))))
        for line in lines[1:]
    ]


def switch_of(row: dict[str, str]) -> tuple[str, str]:
    """(module, flag) of a row's switch, ``engine.entry.COUNT_TALLIES`` written in it."""
    dotted = row["switch"].strip("`")
    module, _, name = dotted.rpartition(".")
    return "pytest_jsonmatch." + module, name


def test_every_switch_in_the_table_exists_is_on_and_is_flipped_by_its_test() -> None:
    rows = table()
    assert len(rows) >= 8
    for row in rows:
        module, name = switch_of(row)
        assert getattr(importlib.import_module(module), name) is True, row["switch"]
        tests = re.findall(r"`(tests/[^`]+\.py)`", row["differential test"])
        assert tests, row
        for test in tests:
            assert (REPO / test).is_file(), test
        flipping = [t for t in tests if re.search(rf"\b{name}\b", (REPO / t).read_text())]
        assert flipping, f"no test named for {row['switch']} sets {name}"


def test_every_module_level_flag_set_to_true_is_a_switch_in_the_table() -> None:
    listed = {switch_of(row) for row in table()}
    found = set()
    for path in PACKAGE.rglob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        module = ".".join(path.relative_to(REPO).with_suffix("").parts)
        for node in tree.body:
            if (
                isinstance(node, ast.Assign)
                and isinstance(node.value, ast.Constant)
                and node.value.value is True
            ):
                found |= {
                    (module, t.id)
                    for t in node.targets
                    if isinstance(t, ast.Name) and t.id.isupper()
                }
    assert found == listed, (
        "module-level flags set to True are the fast paths' switches: list each in "
        "docs/architecture.md's table (or rename a flag that is not one)"
    )


@st.composite
def records(draw: Any) -> tuple[list[Any], list[Any]]:
    pairs = draw(st.lists(fv.PAIRS, min_size=1, max_size=4))
    return [e for _, e in pairs], [a for a, _ in pairs]


OPTIONS = st.one_of(st.just({}), st.builds(lambda align: {"align": align}, fv.ALIGN_VALID))


@pytest.mark.parametrize("name", ["COUNT_TALLIES", "READ_IN_WALK", "READ_GOLD_IN_WALK"])
@SETTINGS
@given(pair_lists=records(), options=OPTIONS)
def test_evaluate_records_scores_the_same_with_its_fast_paths_off(
    name: str, pair_lists: tuple[list[Any], list[Any]], options: dict[str, Any]
) -> None:
    expected, actual = pair_lists
    with switched(entry, name, False):
        general = run_text(expected, actual, options)
    assert run_text(expected, actual, options) == general


def test_the_tally_switch_turns_its_path_off() -> None:
    """Not vacuous: with the switch on, a plain record's fields are made when first read;
    off, they are made with the record (an instance attribute from the start)."""
    record = {"id": "a", "n": 1, "tags": ["x"]}
    on = evaluate_records([record] * 3, [record] * 3, "field_f1").records[0]
    assert "fields" not in vars(on)
    with switched(entry, "COUNT_TALLIES", False):
        off = evaluate_records([record] * 3, [record] * 3, "field_f1").records[0]
    assert "fields" in vars(off)
    assert fv.exact_repr(on.fields) == fv.exact_repr(off.fields)


def pair_text(actual: Any, expected: Any, metric: str, options: dict[str, Any]) -> str:
    """Everything match_json says of one pair, as exact text (or the error it raises)."""
    try:
        return fv.exact_repr(match_json(actual, expected, metric, **options))
    except JsonMatchError as exc:
        return f"{type(exc).__name__}: {exc}"


# the metrics whose walk takes Walk.obj's inline leaves (field_f1 where no scorer is made)
INLINE_METRICS = ["field_match", "field_match_normalized", "json_similarity", "structural_f1"]


@SETTINGS
@given(
    pair=fv.PAIRS,
    metric=st.sampled_from([*INLINE_METRICS, "field_f1"]),
    options=OPTIONS,
)
def test_an_objects_leaves_score_the_same_inline_or_through_the_node(
    pair: tuple[Any, Any], metric: str, options: dict[str, Any]
) -> None:
    actual, expected = pair
    with switched(inline_leaves, "INLINE_LEAVES", False):
        general = pair_text(actual, expected, metric, options)
    assert pair_text(actual, expected, metric, options) == general


@SETTINGS
@given(pair=fv.PAIRS, options=OPTIONS)
def test_match_json_scores_the_same_with_its_expected_side_read_by_the_door(
    pair: tuple[Any, Any], options: dict[str, Any]
) -> None:
    """``Entry.unread_pair``: both sides handed to the walk unread (tests/engine/
    test_pair_read_in_walk.py holds the hostile values)."""
    actual, expected = pair
    with switched(entry, "READ_PAIR_IN_WALK", False):
        general = pair_text(actual, expected, "field_f1", options)
    assert pair_text(actual, expected, "field_f1", options) == general


# rules on a key at the root, below it, inside array elements, and anywhere: an object no
# rule may reach below scores its leaves inline (WalkConfig.inline_plan's path), any other
# goes its general way
RULES = st.sampled_from(
    [
        {"ignore": ["a"]},
        {"ignore": ["a.b", "items[*].sku"]},
        {"fields": {"name": {"comparator": "exact"}}},
        {"fields": {"a.b": {"tolerance": 1}, "id": {"skip": True}}},
        {"fields": {"**.sku": {"comparator": "levenshtein"}}},
        {"ignore": ['["unit price"]'], "fields": {"*": {"min_score": 0.5}}},
    ]
)


@SETTINGS
@given(pair=fv.PAIRS, metric=st.sampled_from([*INLINE_METRICS, "field_f1"]), rules=RULES)
def test_leaves_score_the_same_inline_or_through_the_node_under_rules(
    pair: tuple[Any, Any], metric: str, rules: dict[str, Any]
) -> None:
    actual, expected = pair
    with switched(inline_leaves, "INLINE_LEAVES", False):
        general = pair_text(actual, expected, metric, rules)
    assert pair_text(actual, expected, metric, rules) == general


@SETTINGS
@given(
    pair=fv.PAIRS,
    align=st.sampled_from([None, "hungarian"]),
    kind=st.sampled_from(["ignore", "exact", "tolerance", "floor", "neither"]),
    data=st.data(),
)
def test_a_rule_on_one_root_key_walked_apart_scores_as_the_whole_walk(
    pair: tuple[Any, Any], align: str | None, kind: str, data: st.DataObject
) -> None:
    """``rule_apart.py``: the record's other keys walked without the rule, the key with it
    (tests/engine/test_rule_apart.py holds every setting and the key's every place)."""
    actual, expected = pair
    keys = [k for side in (expected, actual) if isinstance(side, dict) for k in side]
    key = data.draw(st.sampled_from([k for k in keys if isinstance(k, str)] or ["a"]))
    pattern = key if key.isascii() and key.isidentifier() else f"[{json.dumps(key)}]"
    options: dict[str, Any] = {
        "ignore": {"ignore": [pattern]},
        "exact": {"fields": {pattern: {"comparator": "exact"}}},
        "tolerance": {"fields": {pattern: {"tolerance": 2}}},
        "floor": {"fields": {pattern: {"min_score": 0.5, "weight": 2}}},
        "neither": {"ignore": ["absent"]},
    }[kind]
    if align is not None:
        options["align"] = align
    with switched(rule_apart, "RULE_APART", False):
        general = pair_text(actual, expected, "field_f1", options)
    assert pair_text(actual, expected, "field_f1", options) == general


@SETTINGS
@given(
    pair=fv.PAIRS,
    align=st.sampled_from([None, "hungarian"]),
    kind=st.sampled_from(["ignore", "exact", "tolerance", "floor"]),
    data=st.data(),
)
def test_a_rule_on_one_root_key_of_two_unread_objects_scores_as_both_read(
    pair: tuple[Any, Any], align: str | None, kind: str, data: st.DataObject
) -> None:
    """``rule_apart.RULE_APART_UNREAD``: match_json's two objects with one rule on a root
    key, walked apart with neither side through the door; and ``entry.ONE_RULE_ENTRY``:
    that rule laid over the kept entry without the options' key
    (tests/engine/test_rule_apart.py holds every setting and what the door copies)."""
    actual, expected = pair
    actual = actual if isinstance(actual, dict) else {"k": actual}
    expected = expected if isinstance(expected, dict) else {"k": expected}
    keys = [k for side in (expected, actual) for k in side if isinstance(k, str)]
    key = data.draw(st.sampled_from([k for k in keys if k.isascii() and k.isidentifier()] or ["k"]))
    options: dict[str, Any] = {
        "ignore": {"ignore": [key]},
        "exact": {"fields": {key: {"comparator": "exact"}}},
        "tolerance": {"fields": {key: {"tolerance": 2}}},
        "floor": {"fields": {key: {"min_score": 0.5, "weight": 2}}},
    }[kind]
    if align is not None:
        options["align"] = align
    with switched(rule_apart, "RULE_APART_UNREAD", False), switched(entry, "ONE_RULE_ENTRY", False):
        general = pair_text(actual, expected, "field_f1", options)
    assert pair_text(actual, expected, "field_f1", options) == general


@SETTINGS
@given(
    pair=fv.PAIRS,
    align=st.sampled_from([None, "hungarian"]),
    kind=st.sampled_from(["ignore", "exact", "tolerance", "floor"]),
    metric=st.sampled_from(["field_f1", "json_similarity"]),
    data=st.data(),
)
def test_one_rule_on_a_root_key_scores_the_same_without_an_entry_made_for_it(
    pair: tuple[Any, Any], align: str | None, kind: str, metric: str, data: st.DataObject
) -> None:
    """``entry.ONE_RULE_PAIR``: match_json's two objects with one rule on one root key
    walked apart by the kept entry of the other options and the rule's spec
    (tests/engine/test_rule_apart.py holds every setting, metric and error)."""
    actual, expected = pair
    actual = actual if isinstance(actual, dict) else {"k": actual}
    expected = expected if isinstance(expected, dict) else {"k": expected}
    keys = [k for side in (expected, actual) for k in side if isinstance(k, str)]
    key = data.draw(st.sampled_from([k for k in keys if k.isascii() and k.isidentifier()] or ["k"]))
    options: dict[str, Any] = {
        "ignore": {"ignore": [key]},
        "exact": {"fields": {key: {"comparator": "exact"}}},
        "tolerance": {"fields": {key: {"tolerance": 2}}},
        "floor": {"fields": {key: {"min_score": 0.5}}},
    }[kind]
    if align is not None:
        options["align"] = align
    with switched(entry, "ONE_RULE_PAIR", False):
        general = pair_text(actual, expected, metric, options)
    assert pair_text(actual, expected, metric, options) == general


def test_under_a_rule_at_the_root_a_nested_objects_leaves_are_inline() -> None:
    """Not vacuous: a rule on a root key leaves the objects below other keys to the inline
    loop (their leaves never reach Walk.leaf), and the results are those of the general
    loop."""
    from pytest_jsonmatch.engine.walking.leaf_scoring import LeafScoring

    calls: list[str] = []
    original = LeafScoring.leaf

    def counted(self: Any, *args: Any) -> None:
        calls.append(args[2].path)
        original(self, *args)

    pair = ({"a": 1, "k": 3, "n": {"b": "x", "c": 2}}, {"a": 2, "k": 3, "n": {"b": "y", "c": 2}})
    rules = {"fields": {"a": {"tolerance": 1}}}
    # (the whole walk with the rule: not its key walked apart, rule_apart.py)
    with switched(rule_apart, "RULE_APART", False), switched(LeafScoring, "leaf", counted):
        on = pair_text(*pair, "structural_f1", rules)
        assert calls == ["a"]  # (the key a rule names goes its general way, "k" inline)
        with switched(inline_leaves, "INLINE_LEAVES", False):
            off = pair_text(*pair, "structural_f1", rules)
    assert calls == ["a", "a", "k", "n.b", "n.c"]
    assert on == off


@SETTINGS
@given(
    pair=fv.PAIRS,
    metric=st.sampled_from([*INLINE_METRICS, "field_f1"]),
    kind=st.sampled_from(["ignore", "exact", "tolerance", "below"]),
    data=st.data(),
)
def test_a_rule_on_one_of_the_pairs_own_keys_scores_the_others_inline_alike(
    pair: tuple[Any, Any], metric: str, kind: str, data: st.DataObject
) -> None:
    """An assertion's rule names one of its own keys (``ignore=["id"]``): the other keys'
    leaves take the inline loop, the named one its general way, the same to the bit."""
    actual, expected = pair
    keys = sorted(expected) if isinstance(expected, dict) else []
    key = data.draw(st.sampled_from(keys)) if keys else "a"
    rules: dict[str, Any] = {
        "ignore": {"ignore": [key]},
        "exact": {"fields": {key: {"comparator": "exact"}}},
        "tolerance": {"fields": {key: {"tolerance": 2}}},
        "below": {"fields": {f"{key}.x": {"comparator": "exact"}}},
    }[kind]
    try:
        PathPattern(key)
    except JsonMatchError:
        return  # (a key that does not read as a path pattern names no field)
    with switched(inline_leaves, "INLINE_LEAVES", False):
        general = pair_text(actual, expected, metric, rules)
    assert pair_text(actual, expected, metric, rules) == general


def test_the_inline_leaves_switch_turns_its_path_off() -> None:
    """Not vacuous: the inline loop is what scores a flat object's leaves when on; off, each
    leaf goes through Walk.leaf (counted here), and the results are the same."""
    from pytest_jsonmatch.engine.walking.leaf_scoring import LeafScoring

    calls: list[str] = []
    original = LeafScoring.leaf

    def counted(self: Any, *args: Any) -> None:
        calls.append(args[2].path)
        original(self, *args)

    pair = ({"a": 1, "b": "x", "c": True}, {"a": 2, "b": "x", "c": True})
    on = pair_text(*pair, "field_match", {})
    with switched(LeafScoring, "leaf", counted):
        pair_text(*pair, "field_match", {})
        assert calls == []
        with switched(inline_leaves, "INLINE_LEAVES", False):
            off = pair_text(*pair, "field_match", {})
    assert calls == ["a", "b", "c"]
    assert on == off


FLAT = st.lists(
    st.fixed_dictionaries(
        {"sku": st.sampled_from("abcd"), "qty": st.integers(0, 3)},
        optional={"note": fv.TEXT, "price": fv.NUMBERS},
    ),
    min_size=1,
    max_size=12,
)


@SETTINGS
@given(expected=FLAT, actual=FLAT, align=st.sampled_from(["hungarian", "similarity"]))
def test_large_arrays_pair_the_same_blockwise_and_dense(
    expected: list[Any], actual: list[Any], align: str
) -> None:
    # arrays past LARGE_PAIRS pairs take the blockwise path: lowered here so that arrays of
    # a few elements do, and scored with it and with the dense matrix
    if align == "similarity":
        options: dict[str, Any] = {"align": {"mode": "hungarian", "threshold": 0.5}}
    else:
        options = {"align": align}
    with switched(pair_scores, "LARGE_PAIRS", 4):
        with switched(pair_scores, "BLOCKWISE", False):
            dense = run_text([{"items": expected}], [{"items": actual}], options)
        assert run_text([{"items": expected}], [{"items": actual}], options) == dense


@SETTINGS
@given(schema=fv.schema_nodes(), values=st.lists(fv.ACCEPTED_TREES, min_size=1, max_size=4))
def test_conformance_is_the_same_with_its_code_written_or_not(
    schema: Any, values: list[Any]
) -> None:
    doc = {"type": "object", "properties": {"a": schema}} if isinstance(schema, dict) else schema

    def checked() -> list[Any]:
        try:
            validator = conformance.validator_for(doc)
        except JsonMatchError as exc:
            return [f"{type(exc).__name__}: {exc}"]
        found: list[Any] = []
        for value in values:
            try:
                found.append(validator.check({"a": value}))
            except JsonMatchError as exc:
                found.append(f"{type(exc).__name__}: {exc}")
        return found

    conformance._VALIDATORS.clear()
    with switched(conformance, "SPECIALISE", False):
        closures = checked()
    conformance._VALIDATORS.clear()
    assert checked() == closures


def test_the_conformance_switch_turns_written_code_off() -> None:
    doc = {"type": "object", "properties": {"a": {"type": "integer"}}, "required": ["a"]}
    conformance._VALIDATORS.clear()
    with switched(conformance, "SPECIALISE", False):
        assert conformance.validator_for(doc).source is None
    conformance._VALIDATORS.clear()
    assert conformance.validator_for(doc).source is not None


# gold records as a dataset holds them: JSON text's values, objects at the top
GOLD_VALUES = st.recursive(
    st.one_of(
        st.none(),
        st.booleans(),
        st.integers(-(10**6), 10**6),
        st.floats(allow_nan=False, allow_infinity=False),
        st.text(max_size=8),
    ),
    lambda inner: st.one_of(
        st.lists(inner, max_size=3), st.dictionaries(fv.PLAIN_KEYS, inner, max_size=3)
    ),
    max_leaves=10,
)


@settings(SETTINGS, max_examples=15)
@given(
    golds=st.lists(st.dictionaries(fv.PLAIN_KEYS, GOLD_VALUES, max_size=4), min_size=2, max_size=8)
)
def test_a_dataset_scores_the_same_with_or_without_the_fitting_test(
    tmp_path_factory: pytest.TempPathFactory, golds: list[Any]
) -> None:
    # the schema is guessed from the first chunk's gold records (64: dataset/chunk_work.py) and the
    # later chunks' records are tested against the guess: a first chunk of one record's
    # copies, then records that may or may not fit it
    golds = [golds[0]] * 64 + golds[1:] + golds
    folder = tmp_path_factory.mktemp("fit")
    gold, pred = folder / "gold.jsonl", folder / "pred.jsonl"
    gold.write_text("".join(json.dumps(g) + "\n" for g in golds), encoding="utf-8")
    preds = [fv.mutate(g, i, 0.3) for i, g in enumerate(golds)]
    pred.write_text("".join(json.dumps(p) + "\n" for p in preds), encoding="utf-8")

    def scored(name: str) -> str:
        out = folder / name
        code = jsonmatch(["score", str(gold), str(pred), "--format", "json", "-o", str(out)])
        report = json.loads(out.read_text(encoding="utf-8")) if out.exists() else {}
        report.pop("run", None)  # (times and the command)
        return f"{code} {json.dumps(report, sort_keys=True)}"

    with switched(fitting, "SPECIALISE", False):
        general = scored("general.json")
    assert scored("fast.json") == general


def test_a_session_summary_is_the_same_with_field_records_kept(pytester: pytest.Pytester) -> None:
    pytester.makefile(
        ".jsonmatch.yaml",
        same="expected: {vendor: ACME, items: [{sku: a}, {sku: b}]}\n"
        "actual: {vendor: ACME, items: [{sku: a}, {sku: b}]}\n",
        changed="expected: {vendor: ACME, total: 10, items: [{sku: a}, {sku: b}]}\n"
        "actual: {vendor: Acme, total: 11, items: [{sku: b}], extra: 1}\n",
    )

    def summary() -> list[str]:
        result = pytester.runpytest_inprocess("-p", "no:randomly", "-p", "no:cacheprovider", "-v")
        result.assert_outcomes(passed=1, failed=1)
        return [line for line in result.outlines if " in " not in line and "rootdir" not in line]

    with switched(field_counts, "SPECIALISE", False):
        general = summary()
    assert any("vendor" in line for line in general)  # the per-field table is printed
    assert summary() == general
