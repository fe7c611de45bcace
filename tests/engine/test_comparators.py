"""field_f1 comparators (exact, numeric, oneof) and transforms, metrics.md section 4."""

from __future__ import annotations

import pytest

from pytest_jsonmatch import REGISTRY, match_json, register_comparator, register_transform


def leaf(actual, expected, compare=None, transform=None, type_="string"):
    """Score one field `v` under an explicit schema; return (status, score)."""
    node = {"type": type_}
    if compare is not None:
        node["x-eval-compare"] = compare
    if transform is not None:
        node["x-eval-transform"] = transform
    schema = {"type": "object", "properties": {"v": node}}
    result = match_json({"v": actual}, {"v": expected}, metric="field_f1", schema=schema)
    (field,) = result.fields
    return field.status, field.score


# -- exact -----------------------------------------------------------------------------------


@pytest.mark.parametrize("expected, actual, score", [
    ("a", "a", 1.0),
    ("a", "A", 0.0),
    ("30", 30, 0.0),
    (30, "30", 0.0),
    (True, 1, 0.0),
    (1, True, 0.0),
    (42, 42.0, 1.0),     # same JSON type (number) and value
    (None, None, 1.0),
    (None, "x", 0.0),
    (False, False, 1.0),
])
def test_exact_needs_same_json_type_and_value(expected, actual, score):
    assert leaf(actual, expected, "exact")[1] == score


# -- numeric -------------------------------------------------------------------------------


def test_numeric_without_tolerance_is_exact_value():
    assert leaf(5.0, 5, "numeric", type_="number") == ("match", 1.0)
    assert leaf(5.001, 5, "numeric", type_="number") == ("mismatch", 0.0)


def test_numeric_abs_tolerance_is_inclusive():
    cmp = {"numeric": {"abs": 0.5}}
    assert leaf(10.5, 10, cmp, type_="number")[1] == 1.0   # |d| = 0.5 <= 0.5
    assert leaf(9.5, 10, cmp, type_="number")[1] == 1.0
    assert leaf(10.75, 10, cmp, type_="number")[1] == 0.0


def test_numeric_rel_tolerance_is_inclusive():
    cmp = {"numeric": {"rel": 0.01}}
    assert leaf(101, 100, cmp, type_="number")[1] == 1.0   # 1/100 = 0.01 <= 0.01
    assert leaf(101.5, 100, cmp, type_="number")[1] == 0.0


def test_numeric_rel_tolerance_is_relative_to_expected():
    cmp = {"numeric": {"rel": 0.01}}
    # expected 100, actual 99: 1/100 = 0.01 passes (relative to actual, 1/99 would fail)
    assert leaf(99, 100, cmp, type_="number")[1] == 1.0
    # expected 99, actual 100: 1/99 = 0.0101 > 0.01 fails
    assert leaf(100, 99, cmp, type_="number")[1] == 0.0


def test_numeric_is_binary():
    assert leaf(10.2, 10, {"numeric": {"abs": 0.5}}, type_="number") == ("match", 1.0)


def test_numeric_does_not_accept_a_numeric_string():
    assert leaf("10", 10, {"numeric": {"abs": 0.5}}, type_="number") == ("mismatch", 0.0)


def test_numeric_does_not_accept_a_boolean():
    assert leaf(True, 1, {"numeric": {"abs": 0.5}}, type_="number") == ("mismatch", 0.0)


def test_numeric_null_against_null_matches():
    assert leaf(None, None, "numeric", type_="number")[1] == 1.0


def test_numeric_null_against_number_does_not():
    assert leaf(None, 3, "numeric", type_="number")[1] == 0.0


# -- oneof -----------------------------------------------------------------------------------


def test_oneof_accepts_any_listed_value():
    cmp = {"oneof": {"values": ["PVD", "Sputtering", "CVD"]}}
    assert leaf("Sputtering", "PVD", cmp)[1] == 1.0
    assert leaf("PVD", "PVD", cmp)[1] == 1.0


def test_oneof_rejects_an_unlisted_value():
    cmp = {"oneof": {"values": ["PVD", "Sputtering"]}}
    assert leaf("ALD", "PVD", cmp) == ("mismatch", 0.0)


def test_oneof_does_not_take_true_for_one():
    assert leaf(True, 1, {"oneof": {"values": [1, 2]}}, type_="integer")[1] == 0.0


# -- transforms -------------------------------------------------------------------------------


@pytest.mark.parametrize("transform, expected, actual", [
    ("lowercase", "abc", "ABC"),
    ("strip", "abc", "  abc \n"),
    ("normalize_whitespace", "a b c", "a   b\n\t c "),
    ("sort_tokens", "alpha beta gamma", "gamma alpha beta"),
    ("strip_accents", "Jose", "José"),
    ({"round_digits": {"digits": 2}}, 3.14, 3.14159),
])
def test_transform_makes_values_equal(transform, expected, actual):
    type_ = "number" if isinstance(expected, float) else "string"
    # without the transform the values differ
    assert leaf(actual, expected, type_=type_)[1] == 0.0
    assert leaf(actual, expected, transform=[transform], type_=type_)[1] == 1.0


def test_transforms_apply_to_both_sides():
    assert leaf("ABC", "Abc", transform=["lowercase"]) == ("match", 1.0)


def test_transforms_chain():
    assert leaf("  ABC  ", "abc", transform=["strip", "lowercase"]) == ("match", 1.0)


def test_transforms_chain_left_to_right():
    seen = []

    def append_x(value, params):
        return value + "X"

    def record(e, a, params):
        seen.append((e, a))
        return 1.0

    register_transform("test_append_x", append_x)
    register_comparator("test_record", record)
    try:
        leaf("b", "A", compare="test_record", transform=["test_append_x", "lowercase"])
    finally:
        REGISTRY.unregister("test_append_x")
        REGISTRY.unregister("test_record")
    # append first, then lowercase: "A" -> "AX" -> "ax"; the other order would give "aX"
    assert seen == [("ax", "bx")]


def test_string_transform_leaves_a_number_as_it_is():
    assert leaf(5, 5, transform=["lowercase"], type_="integer") == ("match", 1.0)


def test_string_transform_against_a_number_is_a_mismatch_not_an_error():
    assert leaf(5, "ABC", transform=["lowercase", "strip"]) == ("mismatch", 0.0)


def test_round_digits_leaves_a_string_as_it_is():
    assert leaf("3.14159", "3.14159", transform=[{"round_digits": {"digits": 2}}]) == ("match", 1.0)


def test_transforms_are_skipped_for_null():
    calls = []

    def spy(value, params):
        calls.append(value)
        return value

    register_transform("test_spy", spy)
    try:
        assert leaf(None, None, transform=["test_spy"]) == ("match", 1.0)
        assert leaf(None, "x", transform=["test_spy", "lowercase"])[1] == 0.0
    finally:
        REGISTRY.unregister("test_spy")
    assert None not in calls
    assert calls == ["x"]


def test_builtin_transform_on_null_is_not_an_error():
    assert leaf(None, "ABC", transform=["lowercase", "strip", "sort_tokens"]) == ("mismatch", 0.0)


def test_transform_in_fields_option():
    result = match_json({"a": "HELLO"}, {"a": "hello"}, metric="field_f1",
                        fields={"a": {"transform": ["lowercase"]}})
    assert result.score == 1.0


def test_tolerance_in_fields_option():
    result = match_json({"price": 10.4}, {"price": 10}, metric="field_f1",
                        fields={"price": {"tolerance": {"abs": 0.5}}})
    assert result.score == 1.0


def test_comparator_in_fields_option():
    result = match_json({"m": "CVD"}, {"m": "PVD"}, metric="field_f1",
                        fields={"m": {"comparator": {"oneof": {"values": ["PVD", "CVD"]}}}})
    assert result.score == 1.0


# -- vectorised all-pairs matrices agree with the per-pair scores --------------------------

import random as _random  # noqa: E402

import numpy as _np  # noqa: E402


def _mixed_values(rng, n, spread):
    out = []
    for _ in range(n):
        k = rng.random()
        if k < 0.35:
            out.append(round(rng.uniform(-spread, spread), rng.choice([0, 1, 3, 4])))
        elif k < 0.45:
            out.append(rng.randint(-3, 3))
        elif k < 0.7:
            out.append(rng.choice(["a b", "b c", "", "A", "a  b", "x y z", "b", f"w{rng.randint(0, 500)}"]))
        elif k < 0.8:
            out.append(rng.choice([True, False, None]))
        elif k < 0.9:
            out.append({"k": rng.randint(0, 2)})
        else:
            out.append([rng.randint(0, 2)])
    return out


@pytest.mark.parametrize("spec", [
    "exact", "normalized", "levenshtein", "jaccard", "relative",
    {"threshold": {"threshold": 0.5, "weighting": 0.5}}, {"threshold": {}},
    {"numeric": {}}, {"numeric": {"abs": 0.5}}, {"numeric": {"rel": 0.2}},
    {"numeric": {"abs": 0.3, "rel": 0.1}},
])
@pytest.mark.parametrize("size,spread", [(12, 3), (300, 1000)])
def test_all_pairs_matrix_equals_pairwise_scores(spec, size, spread):
    # small sizes take the dense path; 300 spread-out values take the windowed / sparse path
    from pytest_jsonmatch.engine.registry import REGISTRY

    comparator = REGISTRY.comparator(spec)
    rng = _random.Random(7)
    expected, actual = _mixed_values(rng, size, spread), _mixed_values(rng, size + 3, spread)
    actual[:20] = expected[:20]  # plenty of exact and near pairs
    matrix = comparator.matrix(expected, actual)
    pairwise = _np.array([[comparator.score(e, a) for a in actual] for e in expected])
    assert matrix.shape == (len(expected), len(actual))
    assert _np.allclose(matrix, pairwise, rtol=0, atol=1e-12)


@pytest.mark.parametrize("spec", ["exact", "normalized", "jaccard", {"threshold": {}},
                                  {"threshold": {"threshold": 0.5, "weighting": 0.5}},
                                  {"numeric": {}}])
@pytest.mark.parametrize("seed", range(4))
def test_add_scores_adds_exactly_the_pairwise_scores(spec, seed):
    # small-array pairing sums these per column and compares the sums with pairs walked one
    # by one, so they must be the very same floats, not merely close ones
    from pytest_jsonmatch.engine.registry import REGISTRY

    comparator = REGISTRY.comparator(spec)
    assert comparator.add_scores is not None
    rng = _random.Random(seed)
    words = ["Acme", "acme", "widget", "Blue", "steel", "x1", "river"]
    if spec in ("exact", "normalized", "jaccard"):
        def value() -> str:
            return "  ".join(rng.choice(words) for _ in range(rng.randint(0, 4)))
    else:
        def value() -> float:
            return rng.choice([1.0, 1.0004, 1.2, 3, 3.0, 250.75, 250.7504])
    expected = [value() for _ in range(rng.randint(1, 7))]
    actual = [value() for _ in range(rng.randint(1, 7))]
    tp = [[0.0] * len(actual) for _ in expected]
    comparator.add_scores(expected, actual, range(len(expected)), range(len(actual)), tp)
    assert tp == [[0.0 + comparator.score(e, a) for a in actual] for e in expected]


def test_jaccard_add_scores_one_token_columns_join_on_lower_case():
    from pytest_jsonmatch.engine.registry import REGISTRY

    jaccard = REGISTRY.comparator("jaccard")
    tp = [[0.0, 0.0], [0.0, 0.0]]
    jaccard.add_scores(["SKU1", "abc"], ["sku1", "ABD"], [0, 1], [0, 1], tp)
    # "SKU1"/"sku1": one token each, equal lower-cased -> 1; every other pair shares nothing
    assert tp == [[1.0, 0.0], [0.0, 0.0]]
