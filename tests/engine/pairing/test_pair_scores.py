"""Pair scores of array elements (engine/pairing/pair_scores.py), which structural_f1 pairs by: the
plain-Python sums for small arrays equal the vectorised matrices, whatever fields each side
has; a NaN inside a paired element is named by its element."""

from __future__ import annotations

import numpy as np
import pytest


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
    from pytest_jsonmatch.engine.metrics import METRICS
    from pytest_jsonmatch.engine.metrics.base import configure
    from pytest_jsonmatch.engine.pairing.pair_scores import (
        ColumnScorer,
        pair_matrix,
        pair_matrix_small,
    )

    scorer = ColumnScorer(configure(METRICS["structural_f1"], options or {}), "items", None)
    cols_e, cols_a = scorer.columns(expected, actual)
    rows, scale = pair_matrix_small(cols_e, cols_a, scorer.add, "similarity")
    return rows, scale, pair_matrix(cols_e, cols_a, scorer.matrix, "similarity")


@pytest.mark.parametrize("seed", range(12))
@pytest.mark.parametrize(
    "options",
    [
        {},
        {"string_evaluator": "levenshtein"},
        {"string_evaluator": "exact", "numeric_threshold": 0.01},
    ],
)
def test_small_array_pair_scores_equal_the_vectorised_ones(seed, options):
    import random

    rng = random.Random(seed)
    expected, actual = (
        _random_elements(rng, rng.randint(1, 7)),
        _random_elements(rng, rng.randint(1, 7)),
    )
    rows, scale, large = _small_and_large_pair_scores(expected, actual, options)
    small = np.array(rows) / scale
    assert small.shape == large.shape == (len(expected), len(actual))
    assert np.allclose(small, large, rtol=0, atol=1e-12)


def test_small_pair_scores_when_only_one_side_has_some_fields():
    # sku and qty are in every element; note only in actual[0]. Union of fields:
    # (0, 0) has sku, qty, note = 3 and scores (1 + 1) / 3; (0, 1) has 2 and scores (0 + 1) / 2
    rows, scale, large = _small_and_large_pair_scores(
        [{"sku": "A", "qty": 1}], [{"sku": "A", "qty": 1, "note": "x"}, {"sku": "B", "qty": 1}]
    )
    assert scale == 1.0
    assert rows == [[2 / 3, 0.5]]
    assert large.tolist() == rows


@pytest.mark.parametrize("seed", range(6))
def test_small_pair_scores_with_fields_of_one_side_equal_the_vectorised_ones(seed):
    import random

    rng = random.Random(seed)

    def elements(n, extras):
        return [
            {
                "sku": rng.choice(["A1", "B2", "C3"]),
                "name": rng.choice(["blue steel", "acme"]),
                "qty": rng.choice([1, 2, 3.5]),
                **{f"x{k}": "extra" for k in range(rng.randint(0, extras))},
            }
            for _ in range(n)
        ]

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


def test_a_side_kept_from_one_block_to_the_next_is_the_same_list_only():
    # while one large array is scored block by block, what a matrix function works out for
    # the longer side is kept for that same list; a new list, even an equal one, is worked
    # out afresh; outside the blocks nothing is kept
    from pytest_jsonmatch.engine.comparing import all_pairs

    calls = []
    side = all_pairs.LongerSide(lambda values: calls.append(values) or len(values))
    long_a = ["red box", "blue", "green box", "red"]
    with all_pairs.blocks_of_one_array():
        assert side(long_a) == side(long_a) == side(list(long_a)) == 4
    assert len(calls) == 2
    side(long_a)
    assert len(calls) == 3

    other = ["blue", "red", "red box", "green box"]
    with all_pairs.blocks_of_one_array():
        assert all_pairs.exact_matrix(["red", "blue"], long_a).tolist() == [
            [0, 0, 0, 1],
            [0, 1, 0, 0],
        ]
        assert all_pairs.exact_matrix(["blue"], long_a).tolist() == [[0, 1, 0, 0]]
        assert all_pairs.exact_matrix(["red", "blue"], other).tolist() == [
            [0, 1, 0, 0],
            [1, 0, 0, 0],
        ]
        # Jaccard: "red box" against "red" shares 1 token of 2 -> 0.5; a token only the
        # shorter side has ("tin") still counts in its size: {"red", "tin"} against
        # {"red", "box"} shares 1 of 3 -> 1/3
        jac = all_pairs.jaccard_block(["red", "red tin"], long_a)
        assert jac.tolist() == [[0.5, 0, 0, 1], [1 / 3, 0, 0, 0.5]]
        assert all_pairs.jaccard_block(["red tin"], long_a).tolist() == [[1 / 3, 0, 0, 0.5]]
        assert all_pairs.jaccard_block(["red", "red tin"], other).tolist() == [
            [0, 1, 0.5, 0],
            [0, 0.5, 1 / 3, 0],
        ]
        # the longer side first: its work is the expected side's
        assert all_pairs.exact_matrix(long_a, ["red"]).tolist() == [[0], [0], [0], [1]]
        assert all_pairs.exact_matrix(long_a, ["blue", "red"]).tolist() == [
            [0, 0],
            [1, 0],
            [0, 0],
            [0, 1],
        ]
