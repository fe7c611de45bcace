"""Array alignment (engine/pairing/assignment.py): field_f1's ordered, key_field and hungarian pairing,
with no size cap; structural_f1's pairing of arrays, at any depth. 1,000 and 5,000 shuffled
elements, and arrays of mixed types, pair up within a bounded time under every metric (or
the error says what is too large)."""

from __future__ import annotations

import json
import random
import re

import pytest

from pytest_jsonmatch import JsonMatchError, match_json
from tests.helpers.timeout import GENEROUS, within

KEY_SKU = {"match_by": "key_field", "key": "sku"}
HUNGARIAN = {"match_by": "hungarian"}
METRICS = ["field_match", "field_match_normalized", "json_similarity", "structural_f1", "field_f1"]
F1_METRICS = ["structural_f1", "field_f1"]
N = 5_000


def ff(actual, expected, **options):
    return match_json(actual, expected, metric="field_f1", **options)


def statuses(result):
    return sorted(f.status for f in result.fields)


# -- ordered ------------------------------------------------------------------------------


def test_ordered_is_the_default_and_pairs_by_index():
    result = ff({"t": [2, 1]}, {"t": [1, 2]})
    assert [(f.path, f.status) for f in result.fields] == [
        ("t[0]", "mismatch"),
        ("t[1]", "mismatch"),
    ]


def test_ordered_surplus_expected_becomes_omissions():
    result = ff({"t": [1, 2]}, {"t": [1, 2, 3]})
    assert [(f.path, f.status) for f in result.fields] == [
        ("t[0]", "match"),
        ("t[1]", "match"),
        ("t[2]", "omission"),
    ]


def test_ordered_surplus_actual_becomes_hallucinations():
    # t[0], t[1] match; two extra elements -> P = 2/4, R = 1, F1 = 2/3
    result = ff({"t": [1, 2, 3, 4]}, {"t": [1, 2]})
    assert statuses(result) == ["hallucination", "hallucination", "match", "match"]
    assert result.f1 == pytest.approx(2 / 3)


def test_ordered_surplus_actual_object_expands_to_every_leaf():
    result = ff({"t": [{"a": 1, "b": 2}, {"a": 3, "b": 4}]}, {"t": [{"a": 1, "b": 2}]})
    assert statuses(result) == ["hallucination", "hallucination", "match", "match"]


# -- key_field -------------------------------------------------------------------------------


def test_key_field_pairs_elements_by_key():
    # A-A: sku match, q 1 vs 5 mismatch; B-B: both match -> TP 3 of 4 -> 0.75
    expected = {"items": [{"sku": "A", "q": 1}, {"sku": "B", "q": 2}]}
    actual = {"items": [{"sku": "B", "q": 2}, {"sku": "A", "q": 5}]}
    result = ff(actual, expected, align=KEY_SKU)
    assert (result.precision, result.recall, result.f1) == (0.75, 0.75, 0.75)
    assert statuses(result) == ["match", "match", "match", "mismatch"]


def test_key_field_first_actual_element_wins_a_duplicate_key():
    # first actual A pairs (2 matches); the second A is left over: 2 hallucinations
    # P = 2/4, R = 2/2, F1 = 2/3  (had the last won: q mismatch, P 1/4, R 1/2)
    expected = {"items": [{"sku": "A", "q": 1}]}
    actual = {"items": [{"sku": "A", "q": 1}, {"sku": "A", "q": 2}]}
    result = ff(actual, expected, align=KEY_SKU)
    assert statuses(result) == ["hallucination", "hallucination", "match", "match"]
    assert result.f1 == pytest.approx(2 / 3)


def test_key_field_first_expected_element_wins_a_duplicate_key():
    # first expected A pairs: sku match, q 1 vs 2 mismatch; second expected A: 2 omissions
    # TP 1: P = 1/2, R = 1/4, F1 = 2*(1/8)/(3/4) = 1/3
    expected = {"items": [{"sku": "A", "q": 1}, {"sku": "A", "q": 2}]}
    actual = {"items": [{"sku": "A", "q": 2}]}
    result = ff(actual, expected, align=KEY_SKU)
    assert statuses(result) == ["match", "mismatch", "omission", "omission"]
    assert result.f1 == pytest.approx(1 / 3)


def test_key_field_unmatched_keys_are_omission_and_hallucination():
    result = ff({"items": [{"sku": "Z"}]}, {"items": [{"sku": "A"}]}, align=KEY_SKU)
    assert statuses(result) == ["hallucination", "omission"]


def test_key_field_element_without_the_key_stays_unpaired():
    result = ff(
        {"items": [{"q": 1}]},
        {"items": [{"sku": "A", "q": 1}]},
        schema={
            "type": "object",
            "properties": {
                "items": {
                    "type": "array",
                    "x-eval-align": KEY_SKU,
                    "items": {
                        "type": "object",
                        "properties": {"sku": {"type": "string"}, "q": {"type": "integer"}},
                    },
                }
            },
        },
    )
    assert statuses(result) == ["hallucination", "omission", "omission"]


def test_key_field_from_the_schema():
    schema = {
        "type": "object",
        "properties": {
            "items": {
                "type": "array",
                "x-eval-align": KEY_SKU,
                "items": {
                    "type": "object",
                    "properties": {"sku": {"type": "string"}, "q": {"type": "integer"}},
                },
            }
        },
    }
    expected = {"items": [{"sku": "A", "q": 1}, {"sku": "B", "q": 2}]}
    actual = {"items": [{"sku": "B", "q": 2}, {"sku": "A", "q": 1}]}
    assert ff(actual, expected, schema=schema).score == 1.0


# -- hungarian -------------------------------------------------------------------------------


def test_hungarian_pairs_regardless_of_order():
    expected = {"t": [{"n": "a", "v": 1}, {"n": "b", "v": 2}]}
    actual = {"t": [{"n": "b", "v": 2}, {"n": "a", "v": 1}]}
    assert ff(actual, expected, align="hungarian").score == 1.0
    assert ff(actual, expected, align=HUNGARIAN).score == 1.0


def test_hungarian_pair_with_f1_zero_stays_unmatched():
    # the only pair has F1 0: omission + hallucination, not a mismatch
    result = ff({"t": [{"n": "b"}]}, {"t": [{"n": "a"}]}, align="hungarian")
    assert statuses(result) == ["hallucination", "omission"]


def test_hungarian_scalar_pairs():
    result = ff({"t": [3, 1, 2]}, {"t": [1, 2, 3]}, align="hungarian")
    assert result.score == 1.0


def test_hungarian_maximises_the_total_pair_f1():
    # pair F1s: e0~a0 2/3, e0~a1 1/3, e1~a0 1, e1~a1 1/3
    # row-by-row greedy: e0-a0 (2/3) + e1-a1 (1/3) -> TP 3 of 6
    # optimum: e1-a0 (1) + e0-a1 (1/3) -> TP 4 of 6 -> F1 2/3
    expected = {"t": [{"x": 1, "y": 1, "z": 1}, {"x": 1, "y": 1, "z": 2}]}
    actual = {"t": [{"x": 1, "y": 1, "z": 2}, {"x": 1, "y": 5, "z": 5}]}
    result = ff(actual, expected, align="hungarian")
    assert result.f1 == pytest.approx(2 / 3)


def test_hungarian_unknown_field_in_element_counts_against_the_pair():
    schema = {
        "type": "object",
        "properties": {
            "t": {
                "type": "array",
                "items": {"type": "object", "properties": {"a": {"type": "integer"}}},
            }
        },
    }
    # one pair: a matches, junk is one hallucination -> P 1/2, R 1 -> F1 2/3
    result = ff({"t": [{"a": 1, "junk": 9}]}, {"t": [{"a": 1}]}, schema=schema, align="hungarian")
    assert statuses(result) == ["hallucination", "match"]
    assert result.f1 == pytest.approx(2 / 3)


def test_align_option_is_the_default_for_arrays_the_schema_does_not_configure():
    # t configured ordered in the schema: 2 mismatches; u takes align="hungarian": 2 matches
    schema = {
        "type": "object",
        "properties": {
            "t": {"type": "array", "items": {"type": "integer"}, "x-eval-align": {"ordered": True}},
            "u": {"type": "array", "items": {"type": "integer"}},
        },
    }
    result = ff(
        {"t": [2, 1], "u": [2, 1]}, {"t": [1, 2], "u": [1, 2]}, schema=schema, align="hungarian"
    )
    assert [(f.path, f.status) for f in result.fields if f.path.startswith("t")] == [
        ("t[0]", "mismatch"),
        ("t[1]", "mismatch"),
    ]
    assert result.f1 == 0.5


def test_align_in_fields_option():
    result = ff(
        {"t": [2, 1], "u": [2, 1]}, {"t": [1, 2], "u": [1, 2]}, fields={"u": {"align": "hungarian"}}
    )
    # t ordered: 2 mismatches; u hungarian: 2 matches
    assert result.f1 == 0.5


def test_hungarian_has_no_size_cap_above_50_by_50():
    # 60 x 60 = 3600 pairs: the reference falls back to ordered (all mismatches); we assign
    rng = random.Random(7)
    expected = [{"id": i, "name": f"item {i}"} for i in range(60)]
    actual = list(expected)
    rng.shuffle(actual)
    result = ff({"t": actual}, {"t": expected}, align="hungarian")
    assert result.f1 == 1.0
    assert len(result.fields) == 120


def test_hungarian_scalars_above_50_by_50():
    expected = list(range(75))
    result = ff({"t": expected[::-1]}, {"t": expected}, align="hungarian")
    assert result.f1 == 1.0


# -- 1,000 shuffled records --------------------------------------------------------------


def _thousand():
    expected = [
        {
            "id": i,
            "name": f"name {i}",
            "price": i * 1.5,
            "active": i % 2 == 0,
            "tag": f"t{i % 7}",
            "qty": i % 13,
        }
        for i in range(1000)
    ]
    actual = [dict(e) for e in expected]
    random.Random(1234).shuffle(actual)
    return expected, actual


def test_thousand_shuffled_objects_pair_perfectly_under_field_f1_hungarian():
    expected, actual = _thousand()
    result = ff(actual, expected, align="hungarian")
    assert result.f1 == 1.0
    assert len(result.fields) == 6000
    assert {f.status for f in result.fields} == {"match"}


def test_thousand_shuffled_objects_pair_perfectly_under_structural_f1():
    expected, actual = _thousand()
    result = match_json(actual, expected, metric="structural_f1", align="hungarian")
    assert result.f1 == 1.0
    assert len(result.fields) == 6000


def test_key_field_numeric_keys_compare_by_value():
    result = ff(
        {"t": [{"id": 1.0, "v": "a"}]},
        {"t": [{"id": 1, "v": "a"}]},
        align={"match_by": "key_field", "key": "id"},
    )
    assert result.score == 1.0


def test_key_field_boolean_key_does_not_pair_with_number():
    result = ff(
        {"t": [{"id": True}]}, {"t": [{"id": 1}]}, align={"match_by": "key_field", "key": "id"}
    )
    assert statuses(result) == ["hallucination", "omission"]


# -- 5,000 elements ---------------------------------------------------------------------------


def score_within(actual, expected, metric, **options):
    """The score, or the JsonMatchError a too-large input is refused with, within the bound."""
    with within(GENEROUS, f"{metric} {options or ''}"):
        try:
            result = match_json(actual, expected, metric=metric, **options)
        except JsonMatchError as exc:
            # a size error is acceptable if it says what is too large
            assert re.search(r"\b5,?000\b|too (large|many|big)", str(exc)), str(exc)
            return exc
    assert 0.0 <= result.score <= 1.0
    return result


def _records(seed: int = 1) -> tuple[dict, dict]:
    rnd = random.Random(seed)
    expected = [
        {"sku": f"S{i:05d}", "name": f"item number {i}", "price": i * 1.5, "qty": i % 7}
        for i in range(N)
    ]
    actual = [dict(e) for e in expected]
    rnd.shuffle(actual)
    for element in actual[::10]:
        element["price"] += 1
    return {"items": actual}, {"items": expected}


@pytest.mark.parametrize(
    ("metric", "options"),
    [
        ("field_match", {}),
        ("field_match_normalized", {}),
        ("json_similarity", {}),
        ("structural_f1", {}),
        ("field_f1", {"align": "hungarian"}),
    ],
    ids=[
        "field_match",
        "field_match_normalized",
        "json_similarity",
        "structural_f1",
        "field_f1-hungarian",
    ],
)
def test_5000_shuffled_objects_answer_within_bounds_under_every_metric(metric, options):
    actual, expected = _records()
    result = score_within(actual, expected, metric, **options)
    if metric in ("structural_f1", "field_f1") and not isinstance(result, JsonMatchError):
        # order-agnostic pairing finds every element: only the 500 changed prices cost points
        assert result.score == pytest.approx(1 - 500 / (4 * N), abs=0.02)


def test_5000_element_key_field_alignment_answers_within_bounds():
    actual, expected = _records()
    result = score_within(
        actual, expected, "field_f1", align={"match_by": "key_field", "key": "sku"}
    )
    assert result.score == pytest.approx(1 - 500 / (4 * N))


# -- arrays of mixed types, arrays of arrays --------------------------------------------------


def _mixed(seed: int, n: int) -> tuple[list, list]:
    kinds = [
        lambda i: i,
        lambda i: f"s{i}",
        lambda i: None,
        lambda i: i % 2 == 0,
        lambda i: {"k": i},
        lambda i: [i],
    ]
    expected = [kinds[i % len(kinds)](i) for i in range(n)]
    actual = list(expected)
    random.Random(seed).shuffle(actual)
    return actual, expected


@pytest.mark.parametrize("metric", METRICS)
def test_small_mixed_type_arrays_self_compare_to_one(metric):
    _, expected = _mixed(5, 60)
    with within(GENEROUS):
        result = match_json({"v": expected}, {"v": expected}, metric=metric)
    assert result.score == 1.0


@pytest.mark.parametrize("metric", F1_METRICS)
def test_small_shuffled_mixed_type_arrays_pair_up(metric):
    actual, expected = _mixed(5, 60)
    options = {"align": "hungarian"} if metric == "field_f1" else {}
    with within(GENEROUS):
        result = match_json({"v": actual}, {"v": expected}, metric=metric, **options)
    assert result.score == 1.0


def test_5000_shuffled_mixed_type_elements_under_hungarian_answer_within_bounds():
    actual, expected = _mixed(6, N)
    result = score_within({"v": actual}, {"v": expected}, "field_f1", align="hungarian")
    if not isinstance(result, JsonMatchError):
        assert result.score == 1.0


def test_5000_shuffled_mixed_type_elements_under_structural_f1_answer_within_bounds():
    actual, expected = _mixed(6, N)
    score_within({"v": actual}, {"v": expected}, "structural_f1")


@pytest.mark.parametrize(
    ("expected", "actual"),
    [
        ([[1], [2]], [[2], [1]]),
        ([["a"], ["b"], ["c"]], [["c"], ["a"], ["b"]]),
    ],
    ids=["numbers", "strings"],
)
def test_shuffled_arrays_of_arrays_pair_up_under_structural_f1(expected, actual):
    # element order does not matter for structural_f1, at any depth
    with within(GENEROUS):
        result = match_json({"v": actual}, {"v": expected}, metric="structural_f1")
    assert result.score == 1.0, [(f.path, f.status) for f in result.fields]


def test_lone_elements_of_deep_arrays_are_walked_once_not_once_per_level(monkeypatch):
    # Nested one-element arrays whose leaves differ, under Hungarian alignment: at every level the candidate pair
    # scores 0 and both elements are lone. Their leaves are found once (kept by the
    # candidate walk below, walking/unpaired.LoneLeaves), not walked again from every
    # level above: the values one_sided visits grow with the depth, not its square.
    from pytest_jsonmatch.engine.walking import unpaired

    visited = []
    real = unpaired.json_type

    def counting(value):
        visited.append(1)
        return real(value)

    monkeypatch.setattr(unpaired, "json_type", counting)
    depth = 120

    def nested(leaf):
        return {"root": json.loads("[" * depth + json.dumps(leaf) + "]" * depth)}

    result = ff(nested(2), nested(1), align="hungarian")
    assert result.score == 0.0
    assert sorted((f.status, f.path) for f in result.fields) == [
        ("hallucination", "root" + "[0]" * depth),
        ("omission", "root" + "[0]" * depth),
    ]
    assert len(visited) < 10 * depth  # (about depth * depth / 2 walked level by level)


@pytest.mark.parametrize("leaves", [(2, 1), ("b", "a"), (1, 1)], ids=["numbers", "texts", "equal"])
def test_arrays_200_deep_score_their_one_leaf_as_worked_out(leaves):
    # Issue 99's case: {"root": [[...[2]...]]} against [[...[1]...]], 200 levels of one-element
    # arrays, under field_f1 with Hungarian alignment, beside a field that matches ("id").
    # Differing leaves: the one candidate pair at every level scores 0, so no level pairs
    # and the bottom leaf is one omission (expected) and one hallucination (actual), at the
    # same path. Counted: matches 1 (id), expected fields 2, actual fields 2, so
    # precision = 1/2, recall = 1/2, F1 = 2 * (1/2 * 1/2) / (1/2 + 1/2) = 1/2.
    # Equal leaves: 2 matches of 2 on each side, F1 = 1.
    # Without "id": differing leaves 0/1 and 0/1, F1 = 0; equal leaves 1.
    depth = 200
    got, want = leaves

    def nested(leaf, **beside):
        return {"root": json.loads("[" * depth + json.dumps(leaf) + "]" * depth), **beside}

    leaf_path = "root" + "[0]" * depth
    with within(GENEROUS):
        alone = ff(nested(got), nested(want), align="hungarian")
        beside = ff(nested(got, id=7), nested(want, id=7), align="hungarian")
    if got == want:
        assert alone.score == 1.0 and beside.score == 1.0
        assert [(f.path, f.status) for f in beside.fields] == [
            (leaf_path, "match"),
            ("id", "match"),
        ]
        return
    assert alone.score == 0.0
    assert (beside.precision, beside.recall, beside.score) == (0.5, 0.5, 0.5)
    assert sorted(
        (f.path, f.status, f.expected if f.status == "omission" else f.actual)
        for f in beside.fields
    ) == [
        ("id", "match", 7),
        (leaf_path, "hallucination", got),
        (leaf_path, "omission", want),
    ]
