"""Array pairing has two ways to the same pair scores, and both must give the same answers.

A few elements are scored in plain Python (rows of floats, pair_scores.pair_matrix_small),
many with numpy matrices (pair_scores.pair_matrix); when every element of the shorter side
has a clearly best partner, align.dominant_pairs takes the pairing without a solver. The
package is pure Python: this is the one code path.
"""

from __future__ import annotations

import enum
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from scipy.optimize import linear_sum_assignment

import pytest_jsonmatch
from pytest_jsonmatch import ParseError, match_json
from pytest_jsonmatch.engine.metrics import METRICS
from pytest_jsonmatch.engine.metrics.base import configure
from pytest_jsonmatch.engine.pairing import assignment as align
from pytest_jsonmatch.engine.pairing import pair_scores

pytestmark = pytest.mark.slow  # (CONTRIBUTING.md: the inner loop leaves it out)

SETTINGS = settings(
    max_examples=200,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.too_slow],
)

# Keys and values of the kind pairing meets: some keys quoted in paths, strings with
# several tokens, repeated tokens, case, non-ASCII and non-breaking spaces; ints and floats
# that fall within and outside a threshold; booleans next to 0 and 1; nulls (no field).
KEYS = st.sampled_from(["sku", "name", "qty", "price", "unit price", "ok", "x.y"])
TEXT = st.lists(
    st.sampled_from(["blue", "Blue", "steel", "a", "ä", "İ", "", " ", "\u00a0", "x1", "straße"]),
    max_size=4,
).map(" ".join)
NUMBERS = st.one_of(
    st.integers(-5, 5),
    st.sampled_from([0.0, 1.0, 1.0004, 0.9995, 2.25, -1.5, 0.1 + 0.2, 1e300, -1e300]),
    st.floats(-10, 10, allow_nan=False),
)
VALUES = st.one_of(TEXT, NUMBERS, st.booleans(), st.none())
ELEMENTS = st.lists(st.dictionaries(KEYS, VALUES, max_size=5), min_size=1, max_size=14)
THRESHOLDS = st.sampled_from(
    [
        {},
        {"numeric_threshold": 0.5},
        {"numeric_weighting": 0.0},
        {"numeric_threshold": 3, "numeric_weighting": 0.5},
    ]
)


def small_rows(options, expected, actual):
    """structural_f1's pair scores of two element lists in plain Python: (rows, scale)."""
    scorer = pair_scores.ColumnScorer(configure(METRICS["structural_f1"], options), "items", None)
    cols_e, cols_a = scorer.columns(expected, actual)
    return pair_scores.pair_matrix_small(cols_e, cols_a, scorer.add, "similarity")


def large_matrix(options, expected, actual):
    """The same pair scores through numpy."""
    scorer = pair_scores.ColumnScorer(configure(METRICS["structural_f1"], options), "items", None)
    cols_e, cols_a = scorer.columns(expected, actual)
    return pair_scores.pair_matrix(cols_e, cols_a, scorer.matrix, "similarity")


def test_the_package_is_pure_python():
    # one wheel for every platform: nothing compiled, nothing to compile
    package = Path(pytest_jsonmatch.__file__).parent
    suffixes = {
        p.suffix for p in package.rglob("*") if p.is_file() and "__pycache__" not in p.parts
    }
    assert suffixes <= {".py", ".typed", ".json"}, suffixes
    assert not (package.parent / "setup.py").exists()


@SETTINGS
@given(expected=ELEMENTS, actual=ELEMENTS, options=THRESHOLDS)
def test_small_rows_equal_the_vectorised_matrix(expected, actual, options):
    rows, scale = small_rows(options, expected, actual)
    assert all(type(x) is float for row in rows for x in row)
    large = large_matrix(options, expected, actual)
    assert np.allclose(np.array(rows) / scale, large, rtol=0, atol=1e-12)


# Scores near each other and exactly tied, so that the margin test and the first-maximum
# rule both matter; shapes wider and taller than square.
NEAR = st.sampled_from([0.0, -0.0, 0.3, 0.5, 1.0, 1.0 - 1e-10, 1.0 - 2e-9, 2.0, 3.0])
ROWS = st.integers(1, 6).flatmap(
    lambda m: st.lists(
        st.lists(st.one_of(NEAR, st.floats(0, 4)), min_size=m, max_size=m), min_size=1, max_size=6
    )
)


@SETTINGS
@given(rows=ROWS)
def test_dominant_pairs_is_the_solver_s_optimum_whenever_it_answers(rows):
    found = align.dominant_pairs(rows, align.DOMINANCE_MARGIN)
    if found is None:
        return
    matrix = np.array(rows)
    solver_rows, solver_cols = linear_sum_assignment(matrix, maximize=True)
    assert [(i, j) for i, j, _ in found] == sorted(zip(solver_rows.tolist(), solver_cols.tolist()))
    assert [score for _, _, score in found] == [rows[i][j] for i, j, _ in found]


def test_dominant_pairs_by_hand():
    # each row's best is clear and distinct: taken; a tie within the margin: no answer
    assert align.dominant_pairs([[0.2, 0.9], [0.8, 0.1]], 1e-9) == [(0, 1, 0.9), (1, 0, 0.8)]
    assert align.dominant_pairs([[0.9, 0.9 - 1e-10]], 1e-9) is None
    assert align.dominant_pairs([[0.9, 0.1], [0.8, 0.2]], 1e-9) is None  # both want column 0
    # three rows, two columns: the columns choose, and the pairs come back in row order
    assert align.dominant_pairs([[0.1, 0.7], [0.2, 0.1], [0.9, 0.0]], 1e-9) == [
        (0, 1, 0.7),
        (2, 0, 0.9),
    ]


def test_a_uniform_pairing_by_hand():
    # numeric_threshold 0.5, weighting 0.1: a number d <= 0.5 away scores 1 - (d/0.5)**10
    expected = [
        {"sku": "A1", "name": "blue steel", "qty": 2},
        {"sku": "B2", "name": "red", "qty": 5},
    ]
    actual = [
        {"sku": "b2", "name": "Red Wine", "qty": 5.0},
        {"sku": "A1", "name": "steel blue", "qty": 2.25},
    ]
    # every element has the same 3 fields: the sums come back with scale 3
    # (0,0): 0 + 0 + 0 (d = 3)               (0,1): 1 + 1 + (1 - 0.5**10) = 2.9990234375
    # (1,0): 1 (case) + 1/2 ({red} vs {red, wine}) + 1 (5 == 5.0) = 2.5
    # (1,1): 0 + 0 + 0 (d = 2.75)
    assert small_rows({"numeric_threshold": 0.5}, expected, actual) == (
        [[0.0, 2.9990234375], [2.5, 0.0]],
        3.0,
    )


def test_fields_on_one_side_and_in_some_elements_by_hand():
    # 'c' only in actual: counted in the union, never scored: 1 / (2 + 2 - 1) = 1/3
    assert small_rows({}, [{"a": "x", "b": 1}], [{"a": "x", "c": True}]) == ([[1 / 3]], 1.0)
    # 'b' in one expected element only: pair (0,0) shares a and b, tp 2, union 2 + 2 - 2;
    # pair (1,0) shares a, tp 0 ('y' vs 'x'), union 1 + 2 - 1
    got = small_rows({}, [{"a": "x", "b": 1}, {"a": "y", "b": None}], [{"a": "x", "b": 1}])
    assert got == ([[1.0], [0.0]], 1.0)


class Level(enum.IntEnum):
    LOW = 1


class Tag(str):
    pass


@pytest.mark.parametrize(
    ("expected", "actual", "outcome"),
    [
        ([{"a": {"x": 1}}], [{"a": {"x": 1}}], 1.0),  # nested object: flattened
        ([{"a": [1, 2]}], [{"a": [1, 2]}], 1.0),  # nested array: compared after pairing
        ([{"a": float("nan")}], [{"a": 1.0}], "[0].a: nan in expected"),  # not JSON: named
        ([{"a": 1.0}], [{"a": float("inf")}], "[0].a: inf in actual"),
        ([{1: "x"}], [{1: "x"}], "[0]: key 1 in expected is not a string"),
        ([{"a": Level.LOW}], [{"a": 1}], 1.0),  # subclasses read as their JSON values
        ([{"a": Tag("x")}], [{"a": "x"}], 1.0),
        ([["x", "y"]], [["x", "y"]], 1.0),  # elements that are arrays
        # an element that is a scalar: "text" stays unpaired, one omission: TP 1, P 1, R 1/2
        ([{"a": 1}, "text"], [{"a": 1}], 2 / 3),
        (({"a": 1},), [{"a": 1}], 1.0),  # a tuple as the array
        ([{"a": 1}, {"a": 2}], ({"a": 2}, {"a": 1}), 1.0),
    ],
)
def test_other_shapes_are_read_through_the_door(expected, actual, outcome):
    if isinstance(outcome, str):
        with pytest.raises(ParseError) as info:
            match_json(actual, expected, metric="structural_f1")
        assert str(info.value).startswith(outcome)
        return
    assert match_json(actual, expected, metric="structural_f1").score == pytest.approx(outcome)


def test_a_nan_inside_an_element_is_still_named_by_its_field():
    expected = {"items": [{"sku": "A", "price": 1.0}, {"sku": "B", "price": 2.0}]}
    actual = {"items": [{"sku": "B", "price": float("nan")}, {"sku": "A", "price": 1.0}]}
    with pytest.raises(ParseError, match=r"items\[0\]\.price: nan in actual"):
        match_json(actual, expected, metric="structural_f1")


RECORD_ITEMS = st.lists(
    st.fixed_dictionaries(
        {"sku": st.sampled_from(["A1", "B2", "C3", "a1"]), "name": TEXT, "qty": NUMBERS},
        optional={"ok": st.booleans(), "note": st.one_of(TEXT, st.none())},
    ),
    min_size=1,
    max_size=8,
)


@SETTINGS
@given(expected=RECORD_ITEMS, actual=RECORD_ITEMS, options=THRESHOLDS)
def test_whole_results_are_the_same_on_the_small_and_the_large_path(expected, actual, options):
    e, a = {"id": 7, "items": expected}, {"id": 7, "items": actual}
    small = match_json(a, e, metric="structural_f1", **options)
    saved = pair_scores.SMALL_PAIRS
    pair_scores.SMALL_PAIRS = 0  # every array through numpy
    try:
        large = match_json(a, e, metric="structural_f1", **options)
    finally:
        pair_scores.SMALL_PAIRS = saved
    assert [(f.path, f.status, f.actual_path) for f in small.fields] == [
        (f.path, f.status, f.actual_path) for f in large.fields
    ]
    assert [f.score for f in small.fields] == pytest.approx(
        [f.score for f in large.fields], abs=1e-12
    )
    assert small.score == pytest.approx(large.score, abs=1e-12)
