"""Arrays whose elements are objects of one schema node (field_f1's arrays of objects): the
pairs walked with the inline loop's plan and set-up worked out once for the array
(walking/object_elements.py, ``ObjectElements.object_pairs``, switch ``OBJECT_ELEMENTS``),
held to ``Walk._walk_pairs``' own loop through ``Walk._keys`` to the bit: every result's
exact text the same with the switch on and off, through ``match_json`` (sides the walk
reads itself), ``evaluate_records`` (tallies, the generated scorers' tally form) and with
the scorers compiled from a shape's first sighting."""

from __future__ import annotations

import math
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pytest_jsonmatch import evaluate_records, match_json
from pytest_jsonmatch.engine.core.errors import JsonMatchError
from pytest_jsonmatch.engine.schemas import eval_schema, flat_items
from pytest_jsonmatch.engine.walking import generated_scorers, object_elements
from tests.helpers import fuzz_values as fv
from tests.helpers.sweeps import sweep
from tests.helpers.switches import switched

pytestmark = pytest.mark.slow  # (CONTRIBUTING.md: the inner loop leaves it out)

SETTINGS = sweep(100)

SCALARS = st.sampled_from([None, True, False, 0, 1, 1.0, -0.0, 2.5, 10**20, "", "a", "A b"])
ODD = st.sampled_from([[1, "a"], {"z": 1}, {}, [], math.nan, (1,)])
KEYS = st.sampled_from(["a", "b", "c", "unit price", "[0]"])
VALUES = st.one_of(SCALARS, SCALARS, SCALARS, ODD)
OBJECTS = st.dictionaries(KEYS, VALUES, max_size=4)
ELEMENTS = st.one_of(OBJECTS, OBJECTS, OBJECTS, SCALARS)


@st.composite
def pairs(draw: Any) -> tuple[dict[str, Any], dict[str, Any]]:
    """(expected, actual): an array of objects, the actual one a near copy (keys dropped,
    added or changed, elements reordered) or another array."""
    rows = draw(st.lists(ELEMENTS, min_size=1, max_size=4))
    if draw(st.booleans()):
        other = draw(st.lists(ELEMENTS, max_size=4))
    else:
        other = [dict(e) if type(e) is dict else e for e in rows]
        if draw(st.booleans()):
            other.reverse()
        for element in other:
            if type(element) is dict and element and draw(st.booleans()):
                element[draw(KEYS)] = draw(VALUES)
    return {"rows": rows, "n": 1}, {"rows": other, "n": 2}


ITEM_SCHEMAS = st.sampled_from(
    [
        {"type": "object", "properties": {"a": {"type": "string"}, "b": {"type": "number"}}},
        {
            "type": "object",
            "properties": {
                "a": {"type": "string", "x-eval-compare": "levenshtein"},
                "c": {"type": "object", "properties": {"z": {"type": "integer"}}},
                "[0]": {"type": "array", "items": {"type": "integer"}},
            },
        },
    ]
)


@st.composite
def options(draw: Any) -> dict[str, Any]:
    found: dict[str, Any] = {}
    if draw(st.booleans()):
        found["align"] = "hungarian"
    if draw(st.integers(0, 2)) == 0:
        found["schema"] = {
            "type": "object",
            "properties": {
                "rows": {"type": "array", "items": draw(ITEM_SCHEMAS)},
                "n": {"type": "integer"},
            },
        }
    return found


def one_text(expected: Any, actual: Any, options: dict[str, Any]) -> str:
    try:
        result = match_json(actual, expected, metric="field_f1", **options)
    except JsonMatchError as exc:
        return f"{type(exc).__name__}: {exc}"
    return fv.exact_repr((result, result.fields, result.pairings, result.counts))


def run_text(expected: list[Any], actual: list[Any], options: dict[str, Any]) -> str:
    try:
        run = evaluate_records(expected, actual, "field_f1", **options)
    except JsonMatchError as exc:
        return f"{type(exc).__name__}: {exc}"
    return fv.exact_repr((run.records, run.per_field, run.mean_score, run.mean_f1))


@SETTINGS
@given(pair=pairs(), options=options(), compiled=st.booleans())
def test_match_json_scores_the_same_either_way(
    pair: tuple[dict[str, Any], dict[str, Any]], options: dict[str, Any], compiled: bool
) -> None:
    expected, actual = pair
    with switched(generated_scorers, "MIN_SIGHTINGS", 1 if compiled else 8):
        fast = one_text(expected, actual, options)
        with switched(object_elements, "OBJECT_ELEMENTS", False):
            assert one_text(expected, actual, options) == fast


@SETTINGS
@given(found=st.lists(pairs(), min_size=1, max_size=3), options=options(), compiled=st.booleans())
def test_evaluate_records_scores_the_same_either_way(
    found: list[tuple[dict[str, Any], dict[str, Any]]], options: dict[str, Any], compiled: bool
) -> None:
    expected, actual = [e for e, _ in found], [a for _, a in found]
    with switched(generated_scorers, "MIN_SIGHTINGS", 1 if compiled else 8):
        fast = run_text(expected, actual, options)
        with switched(object_elements, "OBJECT_ELEMENTS", False):
            assert run_text(expected, actual, options) == fast


def test_the_loop_is_taken_and_worked_out_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """Not vacuous: with the switch on, an array of three objects works out its plan once
    and no element goes through Walk._keys; off, each element does."""
    from pytest_jsonmatch.engine.walking.walk import Walk

    keys: list[str] = []
    real = Walk._keys

    def spied(self: Any, expected: Any, actual: Any, where: Any, *rest: Any) -> None:
        keys.append(where.path)
        real(self, expected, actual, where, *rest)

    monkeypatch.setattr(Walk, "_keys", spied)
    monkeypatch.setattr(generated_scorers, "MIN_SIGHTINGS", 8)  # (no scorer for 3 elements)
    # (keys of this test's own, each array's node inferred afresh: no scorer kept for it)
    monkeypatch.setattr(eval_schema, "_SIGHTED", {})
    monkeypatch.setattr(flat_items, "_SIGHTED", eval_schema._SIGHTED)
    expected = {"rows": [{"a": 1, "b": "x"}, {"a": 2, "b": "y"}, {"a": 3, "b": "z"}]}
    actual = {"rows": [{"a": 1, "b": "x"}, {"a": 5, "b": "y"}, {"a": 3, "b": "q", "c": 0}]}
    fast = one_text(expected, actual, {})
    assert keys == []  # (the root object's own loop is plain_root's, no element's)
    keys.clear()
    with switched(object_elements, "OBJECT_ELEMENTS", False):
        eval_schema._SIGHTED.clear()
        assert one_text(expected, actual, {}) == fast
    assert keys == ["rows[0]", "rows[1]", "rows[2]"]
    # the fields, worked out by hand: a and b of each element, c only in actual's third
    # (a hallucination "not in the schema"); matches 1+1, 0+1, 1+0 -> 4 of 6 expected
    # fields, 4 of 7 actual ones: precision 4/7, recall 4/6, F1 = 8/13
    result = match_json(actual, expected, metric="field_f1")
    assert result.score == pytest.approx(8 / 13, abs=1e-15)
