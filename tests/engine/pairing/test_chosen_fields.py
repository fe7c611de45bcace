"""The fields of structural_f1's chosen pairs of flat objects, made where the pairs are chosen
(engine/pairing/chosen_fields.py) instead of by a second walk of each pair: the same
MatchResult to the bit as with the switch off (fields, their order, paths, statuses,
scores, pairings), with ties, scores at ``array_matching_threshold``, nulls, keys on one
side only, nested values (pairs left to the walk), elements moved by the pairing, arrays
below moved elements and at the root, under every structural_f1 option; and pairs it
cannot vouch for are left out."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pytest_jsonmatch import match_json
from pytest_jsonmatch.engine.core.paths import Where
from pytest_jsonmatch.engine.core.values import MISSING
from pytest_jsonmatch.engine.metrics.base import configure
from pytest_jsonmatch.engine.metrics.structural_f1 import STRUCTURAL_F1
from pytest_jsonmatch.engine.pairing import chosen_fields, flat_similarity
from pytest_jsonmatch.engine.results.field_results import (
    HALLUCINATION,
    MATCH,
    MISMATCH,
    OMISSION,
    FieldResult,
    WalkOutput,
)
from tests.helpers import fuzz_values as fv
from tests.helpers.switches import switched

SETTINGS = settings(
    max_examples=150,
    deadline=None,
    derandomize=True,
    database=None,
    # (scored_either_way holds for every drawn input alike: it is meant not to be reset)
    suppress_health_check=[
        HealthCheck.too_slow,
        HealthCheck.data_too_large,
        HealthCheck.function_scoped_fixture,
    ],
)


@contextlib.contextmanager
def walked_again() -> Iterator[None]:
    """The general path: every chosen pair walked."""
    with switched(chosen_fields, "CHOSEN_FIELDS", False):
        yield


# Values that meet every case: texts sharing tokens, differing in case, without tokens;
# numbers equal, within the threshold, at its edge, beyond it, ints and floats alike;
# booleans; null (absent to structural_f1); now and then a nested value.
TEXTS = st.sampled_from(["acme", "ACME", "acme widget", "widget acme", "blue steel", "", " ", "b1"])
NUMBERS = st.sampled_from([1, 1.0, 1.0005, 1.001, 1.002, 2, -3, 0, 0.0, 2**60])
SCALARS = st.one_of(TEXTS, NUMBERS, st.booleans(), st.none())
NESTED = st.one_of(st.just([1, "acme"]), st.just({"x": 1}), st.just([]), st.just({}))
KEYS = st.sampled_from(["sku", "name", "qty", "price", "ok", "note"])
FLAT = st.dictionaries(KEYS, SCALARS, max_size=5)
TYPED = st.fixed_dictionaries(
    {"sku": TEXTS, "qty": NUMBERS},
    optional={"name": TEXTS, "price": NUMBERS, "ok": st.booleans(), "note": st.none()},
)
ELEMENTS = st.one_of(TYPED, TYPED, FLAT, st.dictionaries(KEYS, st.one_of(SCALARS, NESTED)))
ARRAYS = st.one_of(
    st.lists(TYPED, max_size=6),
    st.lists(ELEMENTS, max_size=6),
    st.lists(st.one_of(ELEMENTS, SCALARS), max_size=5),
)
OPTIONS = st.sampled_from(
    [
        {},
        {"array_matching_threshold": 0.0},
        {"array_matching_threshold": 0.5},
        {"array_matching_threshold": 1.0},
        {"numeric_threshold": 1.5},
        {"numeric_threshold": 1.5, "numeric_weighting": 0},
        {"string_evaluator": "binary"},
        {"string_evaluator": "exact", "numeric_threshold": 0.01},
        {"string_evaluator": "levenshtein"},
        {"beta": 2},
        {"number_evaluation_type": {"evaluation_type": "binary"}},
        {"string_evaluation_type": {"evaluation_type": "binary"}},
        {"boolean_evaluation_type": {"evaluation_type": "binary"}},
        {
            "number_evaluation_type": {
                "evaluation_type": "threshold",
                "evaluation_params": {"threshold": 1.5},
            }
        },
        {
            "integer_evaluation_type": {"evaluation_type": "binary"},
            "float_evaluation_type": {
                "evaluation_type": "threshold",
                "evaluation_params": {"threshold": 0.5, "difference_penalty_weighting": 2},
            },
        },
    ]
)


def said(actual: Any, expected: Any, options: dict[str, Any]) -> str:
    return fv.exact_repr(match_json(actual, expected, "structural_f1", **options))


def both_ways(actual: Any, expected: Any, options: dict[str, Any]) -> tuple[str, str]:
    """(with the chosen pairs' fields made here, with every chosen pair walked)."""
    with walked_again():
        general = said(actual, expected, options)
    return said(actual, expected, options), general


@pytest.fixture(params=[False, True], ids=["columns", "generated"])
def scored_either_way(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    """The pairs scored by the general path's columns, or by flat_similarity's generated
    code for every plan and size (its own thresholds lowered): both hand their pairs here."""
    if request.param:
        monkeypatch.setattr(flat_similarity, "WRITE_AT", 1)
        monkeypatch.setattr(flat_similarity, "MIN_PAIRS", 1)


@SETTINGS
@given(expected=ARRAYS, actual=ARRAYS, options=OPTIONS)
def test_an_array_under_a_key_says_the_same_with_the_switch_on_or_off(
    scored_either_way: None, expected: list[Any], actual: list[Any], options: dict[str, Any]
) -> None:
    fast, general = both_ways({"id": 1, "items": actual}, {"id": 1, "items": expected}, options)
    assert fast == general


@SETTINGS
@given(expected=ARRAYS, actual=ARRAYS, options=OPTIONS)
def test_an_array_at_the_root_says_the_same_with_the_switch_on_or_off(
    scored_either_way: None, expected: list[Any], actual: list[Any], options: dict[str, Any]
) -> None:
    fast, general = both_ways(actual, expected, options)
    assert fast == general


@SETTINGS
@given(
    groups=st.lists(st.tuples(TEXTS, ARRAYS, ARRAYS), min_size=1, max_size=3),
    order=st.permutations(range(3)),
    options=OPTIONS,
)
def test_arrays_below_moved_elements_say_the_same_with_the_switch_on_or_off(
    scored_either_way: None,
    groups: list[tuple[str, list[Any], list[Any]]],
    order: list[int],
    options: dict[str, Any],
) -> None:
    """Arrays inside elements an outer pairing moved: their fields name the answer's
    index of the outer element (``actual_path``)."""
    expected = [{"name": name, "rows": e} for name, e, _ in groups]
    answer = [{"name": name, "rows": a} for name, _, a in groups]
    actual = [answer[k] for k in order if k < len(answer)]
    fast, general = both_ways({"groups": actual}, {"groups": expected}, options)
    assert fast == general


def test_the_fields_are_made_as_worked_out_by_hand() -> None:
    """Two chosen pairs, the second moved (expected 1 with actual 0): a match, a Jaccard
    mismatch ("acme widget" against "acme": 1 shared token of 2 in the union, 1/2), a
    threshold mismatch (1 against 1.125 with threshold 0.5 and weighting 1: 0.125 apart,
    1 - (0.125 / 0.5) ** 1 = 0.75), an omission, a null the answer lacks (no field), a
    hallucination."""
    options = {"numeric_threshold": 0.5, "numeric_weighting": 1}
    cfg = configure(STRUCTURAL_F1, options)
    expected = [{"sku": "acme", "qty": 1}, {"sku": "acme widget", "note": None, "ok": True}]
    actual = [{"sku": "acme", "extra": "x"}, {"sku": "acme", "qty": 1.125}]
    walked: dict[tuple[int, int], WalkOutput] = {}
    chosen = ([(0, 1, 0.9), (1, 0, 0.5)], [], [])
    got = chosen_fields.chosen_fields(
        cfg, expected, actual, Where("items", "items"), None, chosen, walked
    )
    assert got is chosen
    assert sorted(walked) == [(0, 1), (1, 0)]
    assert walked[0, 1].fields == [
        FieldResult("items[0].sku", MATCH, 1.0, "acme", "acme", "jaccard", "", "items[].sku", "items[1].sku"),
        FieldResult("items[0].qty", MISMATCH, 0.75, 1, 1.125, "threshold", "", "items[].qty", "items[1].qty"),
    ]  # fmt: skip
    assert walked[1, 0].fields == [
        FieldResult("items[1].sku", MISMATCH, 0.5, "acme widget", "acme", "jaccard", "", "items[].sku", "items[0].sku"),
        FieldResult("items[1].ok", OMISSION, 0.0, True, MISSING, "", "", "items[].ok"),
        FieldResult("items[0].extra", HALLUCINATION, 0.0, MISSING, "x", "", "", "items[].extra"),
    ]  # fmt: skip
    assert walked[0, 1].pairings == walked[0, 1].floors == []
    fast, general = both_ways({"items": actual}, {"items": expected}, options)
    assert fast == general


def test_pairs_it_cannot_vouch_for_are_left_to_the_walk() -> None:
    """A nested value on either side, a pair already walked, elements that are not
    objects, a configuration with rules or a schema: nothing made for them."""
    cfg = configure(STRUCTURAL_F1, {})
    expected: list[Any] = [{"a": [1]}, {"a": 1}, {"a": 1}, "x", {"a": 1}]
    actual: list[Any] = [{"a": [1]}, {"a": 1, "b": {"c": 1}}, {"a": 1}, "x", {"a": 1}]
    done = WalkOutput()
    walked: dict[tuple[int, int], WalkOutput] = {(4, 4): done}
    chosen = ([(k, k, 1.0) for k in range(5)], [], [])
    chosen_fields.chosen_fields(cfg, expected, actual, Where("", ""), None, chosen, walked)
    assert sorted(walked) == [(2, 2), (4, 4)] and walked[4, 4] is done
    ruled = configure(STRUCTURAL_F1, {"ignore": ["zzz"]})
    none: dict[tuple[int, int], WalkOutput] = {}
    chosen_fields.chosen_fields(ruled, expected, actual, Where("", ""), None, chosen, none)
    assert none == {}


def test_the_switch_turns_its_path_off() -> None:
    """Not vacuous: on, the chosen pairs' fields are made here; off, none are."""
    made: list[int] = []
    original = chosen_fields._pair_fields

    def counted(fields: list[FieldResult]) -> WalkOutput:
        made.append(len(fields))
        return original(fields)

    expected = {"items": [{"sku": "a b", "qty": 1}, {"sku": "c", "qty": 2}]}
    actual = {"items": [{"sku": "c", "qty": 2}, {"sku": "a", "qty": 1}]}
    with switched(chosen_fields, "_pair_fields", counted):
        with walked_again():
            match_json(actual, expected, "structural_f1")
        assert made == []
        match_json(actual, expected, "structural_f1")
    assert made == [2, 2]
