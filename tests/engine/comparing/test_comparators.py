"""Comparators (engine/comparing/comparators.py): exact, numeric and oneof under field_f1 (metrics.md
section 4), set per field through the fields option, their parameters checked by name; every
metric's string comparison on 10 MB strings within a bounded time; and the vectorised
all-pairs matrices and column sums that array pairing uses, equal to the per-pair scores."""

from __future__ import annotations

import random as _random

import numpy as _np
import pytest

from pytest_jsonmatch import ConfigError, match_json
from tests.helpers.one_field import leaf
from tests.helpers.timeout import GENEROUS, within

METRICS = ["field_match", "field_match_normalized", "json_similarity", "structural_f1", "field_f1"]


# -- exact ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "expected, actual, score",
    [
        ("a", "a", 1.0),
        ("a", "A", 0.0),
        ("30", 30, 0.0),
        (30, "30", 0.0),
        (True, 1, 0.0),
        (1, True, 0.0),
        (42, 42.0, 1.0),  # same JSON type (number) and value
        (None, None, 1.0),
        (None, "x", 0.0),
        (False, False, 1.0),
    ],
)
def test_exact_needs_same_json_type_and_value(expected, actual, score):
    assert leaf(actual, expected, "exact")[1] == score


# -- numeric -------------------------------------------------------------------------------


def test_numeric_without_tolerance_is_exact_value():
    assert leaf(5.0, 5, "numeric", type_="number") == ("match", 1.0)
    assert leaf(5.001, 5, "numeric", type_="number") == ("mismatch", 0.0)


def test_numeric_abs_tolerance_is_inclusive():
    cmp = {"numeric": {"abs": 0.5}}
    assert leaf(10.5, 10, cmp, type_="number")[1] == 1.0  # |d| = 0.5 <= 0.5
    assert leaf(9.5, 10, cmp, type_="number")[1] == 1.0
    assert leaf(10.75, 10, cmp, type_="number")[1] == 0.0


def test_numeric_rel_tolerance_is_inclusive():
    cmp = {"numeric": {"rel": 0.01}}
    assert leaf(101, 100, cmp, type_="number")[1] == 1.0  # 1/100 = 0.01 <= 0.01
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


# -- per-field settings -----------------------------------------------------------------------


def test_tolerance_in_fields_option():
    result = match_json(
        {"price": 10.4},
        {"price": 10},
        metric="field_f1",
        fields={"price": {"tolerance": {"abs": 0.5}}},
    )
    assert result.score == 1.0


def test_comparator_in_fields_option():
    result = match_json(
        {"m": "CVD"},
        {"m": "PVD"},
        metric="field_f1",
        fields={"m": {"comparator": {"oneof": {"values": ["PVD", "CVD"]}}}},
    )
    assert result.score == 1.0


def test_an_unknown_comparator_parameter_lists_the_known_ones():
    with pytest.raises(ConfigError) as info:
        match_json(
            {"a": 1},
            {"a": 1},
            metric="field_f1",
            fields={"a": {"comparator": {"numeric": {"absolute": 0.1}}}},
        )
    assert str(info.value) == (
        "fields['a']: comparator 'numeric' has no parameter 'absolute'; "
        "known: abs, coerce, rel, tolerance"
    )


# -- 10 MB strings ----------------------------------------------------------------------------

BIG = "x" * 10_000_000


@pytest.mark.parametrize("metric", METRICS)
def test_10mb_strings_are_compared_under_every_metric(metric):
    near = BIG[:-1] + "y"
    with within(GENEROUS, f"comparing 10 MB strings under {metric}"):
        result = match_json({"a": near, "b": 1}, {"a": BIG, "b": 1}, metric=metric)
    assert 0.0 <= result.score < 1.0
    assert [f.status for f in result.fields if f.path == "a"] == ["mismatch"]


# -- vectorised all-pairs matrices agree with the per-pair scores -----------------------------


def _mixed_values(rng, n, spread):
    out = []
    for _ in range(n):
        k = rng.random()
        if k < 0.35:
            out.append(round(rng.uniform(-spread, spread), rng.choice([0, 1, 3, 4])))
        elif k < 0.45:
            out.append(rng.randint(-3, 3))
        elif k < 0.7:
            out.append(
                rng.choice(["a b", "b c", "", "A", "a  b", "x y z", "b", f"w{rng.randint(0, 500)}"])
            )
        elif k < 0.8:
            out.append(rng.choice([True, False, None]))
        elif k < 0.9:
            out.append({"k": rng.randint(0, 2)})
        else:
            out.append([rng.randint(0, 2)])
    return out


@pytest.mark.parametrize(
    "spec",
    [
        "exact",
        "normalized",
        "levenshtein",
        "jaccard",
        "relative",
        {"threshold": {"threshold": 0.5, "weighting": 0.5}},
        {"threshold": {}},
        {"numeric": {}},
        {"numeric": {"abs": 0.5}},
        {"numeric": {"rel": 0.2}},
        {"numeric": {"abs": 0.3, "rel": 0.1}},
    ],
)
@pytest.mark.parametrize("size,spread", [(12, 3), (300, 1000)])
def test_all_pairs_matrix_equals_pairwise_scores(spec, size, spread):
    # small sizes take the dense path; 300 spread-out values take the windowed / sparse path
    from pytest_jsonmatch.engine.comparing.registry import REGISTRY

    comparator = REGISTRY.comparator(spec)
    rng = _random.Random(7)
    expected, actual = _mixed_values(rng, size, spread), _mixed_values(rng, size + 3, spread)
    actual[:20] = expected[:20]  # plenty of exact and near pairs
    matrix = comparator.matrix(expected, actual)
    pairwise = _np.array([[comparator.score(e, a) for a in actual] for e in expected])
    assert matrix.shape == (len(expected), len(actual))
    assert _np.allclose(matrix, pairwise, rtol=0, atol=1e-12)


@pytest.mark.parametrize(
    "spec",
    [
        "exact",
        "normalized",
        "jaccard",
        {"threshold": {}},
        {"threshold": {"threshold": 0.5, "weighting": 0.5}},
        {"numeric": {}},
    ],
)
@pytest.mark.parametrize("seed", range(4))
def test_add_scores_adds_exactly_the_pairwise_scores(spec, seed):
    # small-array pairing sums these per column and compares the sums with pairs walked one
    # by one, so they must be the very same floats, not merely close ones
    from pytest_jsonmatch.engine.comparing.registry import REGISTRY

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
    from pytest_jsonmatch.engine.comparing.registry import REGISTRY

    jaccard = REGISTRY.comparator("jaccard")
    tp = [[0.0, 0.0], [0.0, 0.0]]
    jaccard.add_scores(["SKU1", "abc"], ["sku1", "ABD"], [0, 1], [0, 1], tp)
    # "SKU1"/"sku1": one token each, equal lower-cased -> 1; every other pair shares nothing
    assert tp == [[1.0, 0.0], [0.0, 0.0]]


# -- date ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "expected, actual, formats, score",
    [
        ("2024-03-09", "2024-03-09", [], 1.0),
        ("2024-03-09", "20240309", [], 1.0),  # ISO basic form
        ("2024-03-09", "2024-03-09T23:15:00+02:00", [], 1.0),  # a time is ignored
        ("2024-03-09", "09/03/2024", ["%d/%m/%Y"], 1.0),  # day first
        ("2024-03-09", "03/09/2024", ["%d/%m/%Y"], 0.0),  # 3 September
        ("2024-03-09", "03/09/2024", ["%m/%d/%Y"], 1.0),  # month first
        ("2024-03-09", "9 March 2024", ["%d/%m/%Y", "%d %B %Y"], 1.0),  # patterns tried in order
        ("2024-03-09", "09/03/2024", [], 0.0),  # not ISO and no pattern: compared exactly
        ("2024-02-30", "2024-03-01", [], 0.0),  # not a date: compared exactly
        ("n/a", "n/a", ["%d/%m/%Y"], 1.0),
        ("2024-03-09", 20240309, [], 0.0),  # a number is not a date string
    ],
)
def test_date_compares_dates_written_differently(expected, actual, formats, score):
    assert leaf(actual, expected, compare={"date": {"formats": formats}})[1] == score


def test_date_pairs_array_elements_by_date():
    # 30 elements a side (900 pairs): the matrix form, by key, pairs each date with its twin
    days = [f"2024-01-{d:02d}" for d in range(1, 31)]
    written = [f"{d:02d}/01/2024" for d in range(30, 0, -1)]
    result = match_json(
        {"d": written},
        {"d": days},
        metric="structural_f1",
        fields={"d[*]": {"comparator": {"date": {"formats": ["%d/%m/%Y"]}}}},
    )
    assert result.score == 1.0


@pytest.mark.parametrize("formats", [[5], "%Y", ["Y-m-d"]])
def test_date_formats_must_be_strptime_patterns(formats):
    if formats == "%Y":  # one pattern given as a string is a list of one
        assert leaf("2024", "2024-05-06", compare={"date": {"formats": formats}})[1] == 0.0
        return
    with pytest.raises(
        ConfigError, match=r"comparator 'date': formats must be a list of strptime patterns"
    ):
        leaf("x", "y", compare={"date": {"formats": formats}})


# -- binary (structeval) ------------------------------------------------------------------------


@pytest.mark.parametrize(
    "expected, actual, score",
    [
        (True, 1, 1.0),
        (1, True, 1.0),
        (False, 0, 1.0),
        (1, 1.0, 1.0),
        ("a", "a", 1.0),
        ("1", 1, 0.0),
        (True, 2, 0.0),
        ({"a": 1}, {"a": 1}, 1.0),
        ([1], [True], 0.0),  # objects and arrays compare as JSON: a boolean is not a number there
    ],
)
def test_binary_is_python_equality(expected, actual, score):
    assert leaf(actual, expected, compare="binary")[1] == score


# -- cosine, with a fake embedder: exact arithmetic ----------------------------------------------

VECTORS = {
    "red": [1.0, 0.0, 0.0],
    "crimson": [0.8, 0.6, 0.0],
    "blue": [0.0, 0.0, 1.0],
    "anti": [-1.0, 0.0, 0.0],
    "void": [0.0, 0.0, 0.0],
}


def fake_embedder(texts):
    return [VECTORS[t] for t in texts]


@pytest.mark.parametrize(
    "expected, actual, score",
    [
        ("red", "crimson", 0.8),  # (1, 0, 0) . (0.8, 0.6, 0) = 0.8, both unit vectors
        ("red", "blue", 0.0),  # orthogonal
        ("red", "anti", 0.0),  # cosine -1, clipped to 0
        ("void", "red", 0.0),  # a zero vector is like nothing
        ("void", "void", 1.0),  # equal strings are 1 whatever their vectors
        ("red", 5, 0.0),  # not two strings: exact
    ],
)
def test_cosine_scores_the_cosine_of_the_two_embeddings(expected, actual, score):
    result = match_json(
        {"v": actual},
        {"v": expected},
        fields={"v": {"comparator": "cosine"}},
        embedder=fake_embedder,
    )
    assert result.fields[0].comparator == "cosine"
    assert result.fields[0].score == pytest.approx(score, abs=1e-12)


def test_cosine_s_embedder_may_be_named_in_its_parameters():
    result = match_json(
        {"v": "crimson"},
        {"v": "red"},
        fields={"v": {"comparator": {"cosine": {"embedder": fake_embedder}}}},
    )
    assert result.score == pytest.approx(0.8)
