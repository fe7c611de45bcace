"""field_f1 array alignment (ordered, key_field, hungarian) and large assignments."""

from __future__ import annotations

import random

import numpy as np
import pytest

from pytest_jsonmatch import match_json

KEY_SKU = {"match_by": "key_field", "key": "sku"}
HUNGARIAN = {"match_by": "hungarian"}


def ff(actual, expected, **options):
    return match_json(actual, expected, metric="field_f1", **options)


def statuses(result):
    return sorted(f.status for f in result.fields)


# -- ordered ------------------------------------------------------------------------------


def test_ordered_is_the_default_and_pairs_by_index():
    result = ff({"t": [2, 1]}, {"t": [1, 2]})
    assert [(f.path, f.status) for f in result.fields] == [("t[0]", "mismatch"), ("t[1]", "mismatch")]


def test_ordered_surplus_expected_becomes_omissions():
    result = ff({"t": [1, 2]}, {"t": [1, 2, 3]})
    assert [(f.path, f.status) for f in result.fields] == [
        ("t[0]", "match"), ("t[1]", "match"), ("t[2]", "omission")]


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
    result = ff({"items": [{"q": 1}]}, {"items": [{"sku": "A", "q": 1}]},
                schema={"type": "object", "properties": {"items": {
                    "type": "array", "x-eval-align": KEY_SKU,
                    "items": {"type": "object", "properties": {"sku": {"type": "string"},
                                                               "q": {"type": "integer"}}}}}})
    assert statuses(result) == ["hallucination", "omission", "omission"]


def test_key_field_from_the_schema():
    schema = {"type": "object", "properties": {"items": {
        "type": "array", "x-eval-align": KEY_SKU,
        "items": {"type": "object", "properties": {"sku": {"type": "string"}, "q": {"type": "integer"}}}}}}
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
    schema = {"type": "object", "properties": {"t": {"type": "array", "items": {
        "type": "object", "properties": {"a": {"type": "integer"}}}}}}
    # one pair: a matches, junk is one hallucination -> P 1/2, R 1 -> F1 2/3
    result = ff({"t": [{"a": 1, "junk": 9}]}, {"t": [{"a": 1}]}, schema=schema, align="hungarian")
    assert statuses(result) == ["hallucination", "match"]
    assert result.f1 == pytest.approx(2 / 3)


def test_align_option_is_the_default_for_arrays_the_schema_does_not_configure():
    # t configured ordered in the schema: 2 mismatches; u takes align="hungarian": 2 matches
    schema = {"type": "object", "properties": {
        "t": {"type": "array", "items": {"type": "integer"}, "x-eval-align": {"ordered": True}},
        "u": {"type": "array", "items": {"type": "integer"}}}}
    result = ff({"t": [2, 1], "u": [2, 1]}, {"t": [1, 2], "u": [1, 2]}, schema=schema, align="hungarian")
    assert [(f.path, f.status) for f in result.fields if f.path.startswith("t")] == [
        ("t[0]", "mismatch"), ("t[1]", "mismatch")]
    assert result.f1 == 0.5


def test_align_in_fields_option():
    result = ff({"t": [2, 1], "u": [2, 1]}, {"t": [1, 2], "u": [1, 2]},
                fields={"u": {"align": "hungarian"}})
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
    expected = [{"id": i, "name": f"name {i}", "price": i * 1.5, "active": i % 2 == 0,
                 "tag": f"t{i % 7}", "qty": i % 13} for i in range(1000)]
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
    result = ff({"t": [{"id": 1.0, "v": "a"}]}, {"t": [{"id": 1, "v": "a"}]},
                align={"match_by": "key_field", "key": "id"})
    assert result.score == 1.0


def test_key_field_boolean_key_does_not_pair_with_number():
    result = ff({"t": [{"id": True}]}, {"t": [{"id": 1}]}, align={"match_by": "key_field", "key": "id"})
    assert statuses(result) == ["hallucination", "omission"]


# -- the plain-Python pair scores of small arrays equal the vectorised ones ------------------

def _random_elements(rng, n):
    words = ["acme", "widget", "blue", "steel", "", "Acme Widget", "blue  steel"]
    out = []
    for _ in range(n):
        element = {}
        for key in ("name", "qty", "price", "ok", "note"):
            if rng.random() < 0.15:
                continue  # a missing field
            kind = rng.random()
            if key == "name" or kind < 0.2:
                element[key] = " ".join(rng.sample(words, rng.randint(0, 3)))
            elif kind < 0.5:
                element[key] = rng.choice([1, 2, 2.0005, 3.5, 3.5004, 10])
            elif kind < 0.7:
                element[key] = rng.choice([True, False])
            elif kind < 0.8:
                element[key] = None
            else:
                element[key] = {"inner": rng.choice(["x", "y z", 1])}
        out.append(element)
    return out


def _small_and_large_pair_scores(expected, actual, options=None):
    """structural_f1's pair scores of two arrays: (rows, scale) from the plain-Python path
    for a few elements, and the vectorised matrix."""
    from pytest_jsonmatch.engine import align
    from pytest_jsonmatch.engine.metrics import METRICS, configure
    from pytest_jsonmatch.engine.pair_scores import PairScores
    from pytest_jsonmatch.engine.walk import Walk

    scores = PairScores(Walk(configure(METRICS["structural_f1"], options or {})), "items", None)
    cols_e = scores._columns_of(expected, "expected")
    cols_a = scores._columns_of(actual, "actual")
    rows, scale = align.pair_matrix_small(cols_e, cols_a, scores._column_add, "similarity")
    return rows, scale, align.pair_matrix(cols_e, cols_a, scores._leaf_matrix_for(), "similarity")


@pytest.mark.parametrize("seed", range(12))
@pytest.mark.parametrize("options", [{}, {"string_evaluator": "levenshtein"},
                                     {"string_evaluator": "exact", "numeric_threshold": 0.01}])
def test_small_array_pair_scores_equal_the_vectorised_ones(seed, options):
    import random

    rng = random.Random(seed)
    expected, actual = _random_elements(rng, rng.randint(1, 7)), _random_elements(rng, rng.randint(1, 7))
    rows, scale, large = _small_and_large_pair_scores(expected, actual, options)
    small = np.array(rows) / scale
    assert small.shape == large.shape == (len(expected), len(actual))
    assert np.allclose(small, large, rtol=0, atol=1e-12)


def test_small_pair_scores_when_only_one_side_has_some_fields():
    # sku and qty are in every element; note only in actual[0]. Union of fields:
    # (0, 0) has sku, qty, note = 3 and scores (1 + 1) / 3; (0, 1) has 2 and scores (0 + 1) / 2
    rows, scale, large = _small_and_large_pair_scores(
        [{"sku": "A", "qty": 1}], [{"sku": "A", "qty": 1, "note": "x"}, {"sku": "B", "qty": 1}])
    assert scale == 1.0
    assert rows == [[2 / 3, 0.5]]
    assert large.tolist() == rows


@pytest.mark.parametrize("seed", range(6))
def test_small_pair_scores_with_fields_of_one_side_equal_the_vectorised_ones(seed):
    import random

    rng = random.Random(seed)

    def elements(n, extras):
        return [{"sku": rng.choice(["A1", "B2", "C3"]), "name": rng.choice(["blue steel", "acme"]),
                 "qty": rng.choice([1, 2, 3.5]),
                 **{f"x{k}": "extra" for k in range(rng.randint(0, extras))}} for _ in range(n)]

    expected, actual = elements(rng.randint(1, 6), 2), elements(rng.randint(1, 6), 3)
    rows, scale, large = _small_and_large_pair_scores(expected, actual)
    assert np.allclose(np.array(rows) / scale, large, rtol=0, atol=1e-12)


@pytest.mark.parametrize("side", ["expected", "actual"])
def test_nan_inside_a_paired_array_is_named_by_its_element(side):
    from pytest_jsonmatch import ParseError, match_json

    good = {"items": [{"sku": "A", "price": 1.0}, {"sku": "B", "price": 2.0}]}
    bad = {"items": [{"sku": "A", "price": 1.0}, {"sku": "B", "price": float("nan")}]}
    expected, actual = (bad, good) if side == "expected" else (good, bad)
    with pytest.raises(ParseError) as info:
        match_json(actual, expected, metric="structural_f1")
    assert "items[1]" in str(info.value) and side in str(info.value)
