"""A plan of flat_similarity.py read by a loop (engine/pairing/plan_rows.py): the same rows as
the plan's written code and as the general path's columns, to the bit, and the same
comparisons through match_json with the loop on or off; scalar elements scored from their
types alone; what the loop does not read takes the general path."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pytest_jsonmatch import match_json
from pytest_jsonmatch.engine.metrics.base import configure
from pytest_jsonmatch.engine.metrics.structural_f1 import STRUCTURAL_F1
from pytest_jsonmatch.engine.pairing import flat_similarity, pair_scores, plan_rows
from tests.engine.pairing.test_flat_similarity import (
    ARRAYS,
    NUMBERS,
    OPTIONS,
    SETTINGS,
    TEXTS,
    never_walked,
)
from tests.helpers import fuzz_values as fv


@contextlib.contextmanager
def flags(**values: Any) -> Iterator[None]:
    """flat_similarity's and plan_rows' module flags set for a block, then put back."""
    modules = {"INTERPRET": plan_rows}
    before = {name: getattr(modules.get(name, flat_similarity), name) for name in values}
    for name, value in values.items():
        setattr(modules.get(name, flat_similarity), name, value)
    try:
        yield
    finally:
        for name, value in before.items():
            setattr(modules.get(name, flat_similarity), name, value)


def hexed(found: Any) -> Any:
    return (
        None if found is None else ([[float(s).hex() for s in row] for row in found[0]], found[1])
    )


def three_ways(expected: list[Any], actual: list[Any], options: dict[str, Any]) -> Any:
    """(the loop's rows and scale or None, the written code's, the general path's)."""
    cfg = configure(STRUCTURAL_F1, options)
    with flags(WRITE_AT=10**9, MIN_PAIRS=9, _KEPT={}, _FIRSTS=set()):
        looped = flat_similarity.similarity_rows(cfg, None, expected, actual)
    with flags(WRITE_AT=1, MIN_PAIRS=1, _KEPT={}, _FIRSTS=set(), INTERPRET=False):
        written = flat_similarity.similarity_rows(cfg, None, expected, actual)
    with flags(SPECIALISE=False):
        general = pair_scores.pair_scores(
            cfg, "items", None, expected, actual, "similarity", never_walked
        )
    return looped, written, general


@SETTINGS
@given(expected=ARRAYS, actual=ARRAYS, options=OPTIONS)
def test_the_loops_rows_are_the_written_codes_and_the_columns_to_the_bit(
    expected: list[Any], actual: list[Any], options: dict[str, Any]
) -> None:
    looped, written, general = three_ways(expected, actual, options)
    if looped is not None:
        assert hexed(looped) == hexed(general)
        if written is not None:
            assert hexed(looped) == hexed(written)


@SETTINGS
@given(expected=ARRAYS, actual=ARRAYS, options=OPTIONS)
def test_match_json_says_the_same_with_the_loop_on_or_off(
    expected: list[Any], actual: list[Any], options: dict[str, Any]
) -> None:
    def said() -> str:
        found = match_json({"items": actual}, {"items": expected}, "structural_f1", **options)
        return fv.exact_repr(found)

    with flags(INTERPRET=False):
        general = said()
    assert said() == general


# (ties and repeats: two booleans on a side pair alike with either partner)
SCALARS = st.one_of(
    st.lists(st.one_of(TEXTS, st.none()), min_size=1, max_size=4),
    st.lists(st.one_of(NUMBERS, st.none()), min_size=1, max_size=4),
    st.lists(st.one_of(st.booleans(), st.none()), min_size=1, max_size=4),
)


@SETTINGS
@given(expected=SCALARS, actual=SCALARS, options=OPTIONS)
def test_scalar_elements_score_the_same_by_the_loop_or_the_columns(
    expected: list[Any], actual: list[Any], options: dict[str, Any]
) -> None:
    looped, _, general = three_ways(expected, actual, options)
    if looped is not None:
        assert hexed(looped) == hexed(general)
    found = match_json(actual, expected, "structural_f1", **options)
    with flags(INTERPRET=False):
        off = match_json(actual, expected, "structural_f1", **options)
    assert fv.exact_repr(found) == fv.exact_repr(off)


def test_most_drawn_arrays_take_the_loop() -> None:
    """Not vacuous: a plan met once, and small scalar arrays, are the loop's."""
    cfg = configure(STRUCTURAL_F1, {})
    with flags(WRITE_AT=10**9, _KEPT={}, _FIRSTS=set()):
        typed = [{"sku": "a b", "qty": 1}, {"sku": "c", "qty": 2}]
        assert flat_similarity.similarity_rows(cfg, None, typed, typed[::-1]) is not None
        assert flat_similarity.similarity_rows(cfg, None, ["a"], ["a", "b"]) is not None
        with flags(INTERPRET=False):
            assert flat_similarity.similarity_rows(cfg, None, typed, typed[::-1]) is None
            assert flat_similarity.similarity_rows(cfg, None, ["a"], ["a", "b"]) is None


def test_a_hand_worked_small_array_of_objects() -> None:
    cfg = configure(STRUCTURAL_F1, {"numeric_threshold": 0.5})  # (weighting 0.1: power 10)
    expected = [{"name": "acme widget", "qty": 2}, {"name": "blue", "qty": 5, "ok": True}]
    actual = [{"name": "Widget", "qty": 2.25}, {"name": "blue", "qty": 5, "extra": "x"}]
    with flags(WRITE_AT=10**9, _KEPT={}, _FIRSTS=set()):
        rows, scale = flat_similarity.similarity_rows(cfg, None, expected, actual)
    # 4 pairs, fewer than MIN_PAIRS: laid out and read by the loop. name and qty on every
    # element; ok, extra on one side only, so each sum is divided by its union
    # size_e + size_a - 2:
    # (0, 0): Jaccard {acme, widget} / {widget} = 1/2; |2 - 2.25| = 0.25 <= 0.5 scores
    #   1 - (0.25 / 0.5) ** 10 = 1023/1024; union 2 + 2 - 2 = 2
    # (0, 1), (1, 0): nothing shared, 2 vs 5 beyond the threshold: 0
    # (1, 1): blue = blue, 5 = 5: 2 / (3 + 3 - 2) = 1/2
    assert scale == 1.0
    assert rows == [[(0.5 + 1023 / 1024) / 2, 0.0], [0.0, 0.5]]


def test_a_hand_worked_scalar_array_with_nulls() -> None:
    cfg = configure(STRUCTURAL_F1, {})
    rows, scale = flat_similarity.similarity_rows(cfg, None, ["blue steel", None], ["steel", None])
    # each element one field, a null none: {blue, steel} / {steel} = 1/(2 + 1 - 1) = 1/2; a
    # text against a null 0 over a union of 1; two nulls share an empty union: 1
    assert scale == 1.0
    assert rows == [[0.5, 0.0], [0.0, 1.0]]


def test_scalars_of_one_type_without_nulls_give_their_scores_with_scale_one() -> None:
    cfg = configure(STRUCTURAL_F1, {"number_evaluation_type": {"evaluation_type": "binary"}})
    rows, scale = flat_similarity.similarity_rows(cfg, None, [1, 2.0], [2, 1.5, 1])
    # binary: 1 = 1 and 2.0 = 2 score 1, every other pair 0
    assert scale == 1.0
    assert rows == [[0.0, 0.0, 1.0], [1.0, 0.0, 0.0]]


@pytest.mark.parametrize(
    ("expected", "actual"),
    [
        (["x", 1], ["x"]),  # values of two types
        (["x"], [True]),  # a type a side, not the same
        (["x", ["x"]], ["x"]),  # a nested array among scalars
        (["x", {"a": "x"}], ["x"]),  # an object among scalars
        ([None, None], ["x"]),  # a side of nulls only
        ([10**400], [1]),  # a number no float holds
    ],
)
def test_what_the_scalar_loop_does_not_read_takes_the_general_path(
    expected: list[Any], actual: list[Any]
) -> None:
    cfg = configure(STRUCTURAL_F1, {})
    assert flat_similarity.similarity_rows(cfg, None, expected, actual) is None
    found = match_json({"items": actual}, {"items": expected}, "structural_f1")
    with flags(INTERPRET=False):
        off = match_json({"items": actual}, {"items": expected}, "structural_f1")
    assert fv.exact_repr(found) == fv.exact_repr(off)


def test_a_plan_met_fewer_than_write_at_times_is_counted_and_read_by_the_loop() -> None:
    cfg = configure(STRUCTURAL_F1, {})
    expected = [{"a": "x y", "n": 1}] * 3
    actual = [{"a": "y", "n": 1}, {"a": "x", "n": 2}, {"a": "z", "n": 3}]
    with flags(WRITE_AT=3, _FUNCTIONS={}, _SIGHTINGS={}, _KEPT={}, _FIRSTS=set()):
        met = [flat_similarity.similarity_rows(cfg, None, expected, actual) for _ in range(3)]
        assert len(flat_similarity._FUNCTIONS) == 1  # written the third time, as before
    # every element has a and n: sums with scale 2. {x, y} / {y} = 1/2 with 1 = 1;
    # {x, y} / {x} = 1/2 alone; {x, y} / {z} = 0 and 1 vs 3 beyond the threshold
    assert met[0] == met[1] == met[2] == ([[1.5, 0.5, 0.0]] * 3, 2.0)
