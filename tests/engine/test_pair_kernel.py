"""The compiled pair-score kernel gives structural_f1 exactly the Python path's numbers.

The kernel (engine/_pair_kernel.c) is built at install time where a C compiler exists and
stands in for pair_scores' column-wise Python for arrays of flat objects under the default
policy. Every float it returns must equal the Python path's bit for bit: a last-bit
difference could change which pairing wins a near tie.
"""

from __future__ import annotations

import enum
import shutil
import sysconfig

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pytest_jsonmatch import ParseError, match_json
from pytest_jsonmatch.engine import align, pair_scores
from pytest_jsonmatch.engine.metrics import REGISTRY, configure
from pytest_jsonmatch.engine.walk import Walk

KERNEL = align.pair_kernel
# Only a machine without a C compiler lacks the kernel; the first test below fails if one
# that has a compiler did not build it, so these never skip where CI runs.
needs_kernel = pytest.mark.skipif(KERNEL is None, reason="no C compiler: the kernel was not built")

SETTINGS = settings(max_examples=300, deadline=None, derandomize=True, database=None,
                    suppress_health_check=[HealthCheck.too_slow])

# Keys and values of the kind pairing meets: some keys quoted in paths, strings with
# several tokens, repeated tokens, case, non-ASCII and non-breaking spaces; ints and floats
# that fall within and outside a threshold; booleans next to 0 and 1; nulls (no field).
KEYS = st.sampled_from(["sku", "name", "qty", "price", "unit price", "ok", "x.y"])
TEXT = st.lists(st.sampled_from(["blue", "Blue", "steel", "a", "ä", "İ", "", " ", "\u00a0", "x1",
                                 "straße"]), max_size=4).map(" ".join)
NUMBERS = st.one_of(st.integers(-5, 5), st.sampled_from([0.0, 1.0, 1.0004, 0.9995, 2.25, -1.5,
                                                          0.1 + 0.2, 1e300, -1e300]),
                    st.floats(-10, 10, allow_nan=False))
VALUES = st.one_of(TEXT, NUMBERS, st.booleans(), st.none())
ELEMENTS = st.lists(st.dictionaries(KEYS, VALUES, max_size=5), min_size=1, max_size=14)
THRESHOLDS = st.sampled_from([{}, {"numeric_threshold": 0.5}, {"numeric_weighting": 0.0},
                              {"numeric_threshold": 3, "numeric_weighting": 0.5}])


def python_rows(options, expected, actual):
    """pair_scores' own column-wise computation, bypassing the kernel."""
    cfg = configure(REGISTRY.metric("structural_f1"), options)
    scores = pair_scores.PairScores(Walk(cfg), "items", None)
    cols_e = scores._similarity_columns(expected, "expected")
    cols_a = scores._similarity_columns(actual, "actual")
    return align.pair_matrix_small(cols_e, cols_a, scores._column_add, "similarity")


def kernel_rows(options, expected, actual):
    cfg = configure(REGISTRY.metric("structural_f1"), options)
    assert cfg.kernel_args is not None
    return KERNEL.similarity_rows(expected, actual, *cfg.kernel_args)


def test_the_kernel_is_built_wherever_a_c_compiler_is():
    # CI and the development machine have gcc: a build that silently fell back to Python
    # would make every test below compare the Python path with itself.
    compiler = (sysconfig.get_config_var("CC") or "cc").split()[0]
    if shutil.which(compiler):
        assert KERNEL is not None, "the C compiler is here, but _pair_kernel was not built"
    else:
        assert KERNEL is None


@needs_kernel
@SETTINGS
@given(expected=ELEMENTS, actual=ELEMENTS, options=THRESHOLDS)
def test_kernel_rows_equal_the_python_path_bit_for_bit(expected, actual, options):
    got = kernel_rows(options, expected, actual)
    assert got is not None  # flat objects of scalars: the kernel's own case
    assert got == python_rows(options, expected, actual)
    assert all(type(x) is float for row in got[0] for x in row)


# Scores near each other and exactly tied, so that the margin test and the first-maximum
# rule both matter; shapes wider and taller than square.
NEAR = st.sampled_from([0.0, -0.0, 0.3, 0.5, 1.0, 1.0 - 1e-10, 1.0 - 2e-9, 2.0, 3.0])
ROWS = st.integers(1, 6).flatmap(lambda m: st.lists(
    st.lists(st.one_of(NEAR, st.floats(0, 4)), min_size=m, max_size=m), min_size=1, max_size=6))


@needs_kernel
@SETTINGS
@given(rows=ROWS, margin=st.sampled_from([0.0, 1e-9, 3e-9, 0.1]))
def test_dominant_pairs_answers_as_the_python_function(rows, margin):
    assert KERNEL.dominant_pairs(rows, margin) == align.dominant_pairs(rows, margin)


@needs_kernel
def test_dominant_pairs_by_hand():
    # each row's best is clear and distinct: taken; a tie within the margin: no answer
    assert KERNEL.dominant_pairs([[0.2, 0.9], [0.8, 0.1]], 1e-9) == [(0, 1, 0.9), (1, 0, 0.8)]
    assert KERNEL.dominant_pairs([[0.9, 0.9 - 1e-10]], 1e-9) is None
    assert KERNEL.dominant_pairs([[0.9, 0.1], [0.8, 0.2]], 1e-9) is None  # both want column 0
    # three rows, two columns: the columns choose, and the pairs come back in row order
    assert KERNEL.dominant_pairs([[0.1, 0.7], [0.2, 0.1], [0.9, 0.0]], 1e-9) == [
        (0, 1, 0.7), (2, 0, 0.9)]


@needs_kernel
def test_a_uniform_pairing_by_hand():
    # numeric_threshold 0.5, weighting 0.1: a number d <= 0.5 away scores 1 - (d/0.5)**10
    expected = [{"sku": "A1", "name": "blue steel", "qty": 2},
                {"sku": "B2", "name": "red", "qty": 5}]
    actual = [{"sku": "b2", "name": "Red Wine", "qty": 5.0},
              {"sku": "A1", "name": "steel blue", "qty": 2.25}]
    # every element has the same 3 fields: the sums come back with scale 3
    # (0,0): 0 + 0 + 0 (d = 3)               (0,1): 1 + 1 + (1 - 0.5**10) = 2.9990234375
    # (1,0): 1 (case) + 1/2 ({red} vs {red, wine}) + 1 (5 == 5.0) = 2.5
    # (1,1): 0 + 0 + 0 (d = 2.75)
    want = ([[0.0, 2.9990234375], [2.5, 0.0]], 3.0)
    options = {"numeric_threshold": 0.5}
    assert kernel_rows(options, expected, actual) == want
    assert python_rows(options, expected, actual) == want


@needs_kernel
def test_fields_on_one_side_and_in_some_elements_by_hand():
    # 'c' only in actual: counted in the union, never scored: 1 / (2 + 2 - 1) = 1/3
    assert kernel_rows({}, [{"a": "x", "b": 1}], [{"a": "x", "c": True}]) == ([[1 / 3]], 1.0)
    # 'b' in one expected element only: pair (0,0) shares a and b, tp 2, union 2 + 2 - 2;
    # pair (1,0) shares a, tp 0 ('y' vs 'x'), union 1 + 2 - 1
    got = kernel_rows({}, [{"a": "x", "b": 1}, {"a": "y", "b": None}], [{"a": "x", "b": 1}])
    assert got == ([[1.0], [0.0]], 1.0)


class Level(enum.IntEnum):
    LOW = 1


class Tag(str):
    pass


@needs_kernel
@pytest.mark.parametrize("expected, actual", [
    ([{"a": {"x": 1}}], [{"a": {"x": 1}}]),         # nested object: flattened in Python
    ([{"a": [1, 2]}], [{"a": [1, 2]}]),             # nested array: compared after pairing
    ([{"a": float("nan")}], [{"a": 1.0}]),          # not JSON: reported by its field
    ([{"a": 1.0}], [{"a": float("inf")}]),
    ([{"a": 10**400}], [{"a": 1}]),                 # no float holds it
    ([{1: "x"}], [{1: "x"}]),                       # a key that is not a string
    ([{"a": Level.LOW}], [{"a": 1}]),               # subclasses of JSON types
    ([{"a": Tag("x")}], [{"a": "x"}]),
    ([["x", "y"]], [["x", "y"]]),                   # elements that are arrays
    ([{"a": 1}, "text"], [{"a": 1}]),               # an element that is a scalar
    (({"a": 1},), [{"a": 1}]),                      # a tuple as the array
])
def test_other_shapes_are_left_to_the_python_path(expected, actual):
    assert KERNEL.similarity_rows(expected, actual, 0.001, 0.1) is None


def test_a_nan_inside_an_element_is_still_named_by_its_field():
    expected = {"items": [{"sku": "A", "price": 1.0}, {"sku": "B", "price": 2.0}]}
    actual = {"items": [{"sku": "B", "price": float("nan")}, {"sku": "A", "price": 1.0}]}
    with pytest.raises(ParseError, match=r"items\[0\]\.price: nan in actual"):
        match_json(actual, expected, metric="structural_f1")


RECORD_ITEMS = st.lists(st.fixed_dictionaries(
    {"sku": st.sampled_from(["A1", "B2", "C3", "a1"]), "name": TEXT, "qty": NUMBERS},
    optional={"ok": st.booleans(), "note": st.one_of(TEXT, st.none())}), min_size=1, max_size=8)


@needs_kernel
@SETTINGS
@given(expected=RECORD_ITEMS, actual=RECORD_ITEMS, options=THRESHOLDS)
def test_whole_results_are_the_same_without_the_kernel(expected, actual, options):
    e, a = {"id": 7, "items": expected}, {"id": 7, "items": actual}
    with_kernel = match_json(a, e, metric="structural_f1", **options)
    saved = align.pair_kernel
    align.pair_kernel = None
    try:
        without = match_json(a, e, metric="structural_f1", **options)
    finally:
        align.pair_kernel = saved
    assert with_kernel == without
