"""The node of an unread array's objects of plain scalars inferred in the pass that checks
them (schemas/flat_items.py, switch ``FLAT_ITEMS``), held to ``checked_items``: the same
node (each property the same shared leaf, in the same order), the same first sighting
counted, and nothing taken (None, nothing counted) where ``checked_items`` would refuse
the elements or read them another way; and field_f1's results the same either way."""

from __future__ import annotations

import math
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pytest_jsonmatch import match_json
from pytest_jsonmatch.engine.core.errors import JsonMatchError
from pytest_jsonmatch.engine.metrics import REGISTRY
from pytest_jsonmatch.engine.reading.intake import Unread
from pytest_jsonmatch.engine.schemas import eval_schema, flat_items
from tests.helpers import fuzz_values as fv
from tests.helpers.switches import switched

SETTINGS = settings(
    max_examples=150,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)

SCALARS = st.sampled_from([None, None, True, False, 0, 1, 2.5, -0.0, 10**20, "", "a", "1"])
ODD = st.sampled_from([[1], {"z": 1}, math.nan, math.inf, (1,), b"x"])
KEYS = st.sampled_from(["a", "b", "c", "unit price", ""])
FLAT = st.dictionaries(KEYS, SCALARS, max_size=4)
OBJECTS = st.dictionaries(KEYS, st.one_of(SCALARS, SCALARS, SCALARS, SCALARS, ODD), max_size=4)
# mostly objects of plain scalars (the fast path's), now and then anything else
ELEMENTS = st.one_of(
    st.lists(FLAT, min_size=1, max_size=5),
    st.lists(FLAT, min_size=1, max_size=5),
    st.lists(st.one_of(OBJECTS, OBJECTS, OBJECTS, SCALARS), min_size=1, max_size=5),
)


def shown(node: Any) -> Any:
    """A node as the walk reads it: its fields, and each property's leaf by identity."""
    props = node.properties
    return (node, None if props is None else [(k, id(v)) for k, v in props.items()])


@SETTINGS
@given(elements=ELEMENTS, levels=st.sampled_from([1, 2, 5]), seen=st.booleans())
def test_the_node_is_checked_items_own(
    monkeypatch: pytest.MonkeyPatch, elements: list[Any], levels: int, seen: bool
) -> None:
    first = elements[0]
    sighted = {tuple(first): None} if seen and type(first) is dict else {}
    monkeypatch.setattr(eval_schema, "_SIGHTED", dict(sighted))
    monkeypatch.setattr(flat_items, "_SIGHTED", eval_schema._SIGHTED)
    found = flat_items.flat_items(elements, REGISTRY, levels)
    after_fast = dict(eval_schema._SIGHTED)
    monkeypatch.setattr(eval_schema, "_SIGHTED", dict(sighted))
    try:
        general: Any = eval_schema.checked_items(elements, REGISTRY, levels)
    except Unread:
        general = Unread
    if found is None:
        assert after_fast == sighted  # (nothing counted: checked_items counts it)
        return
    assert general is not Unread
    assert shown(found) == shown(general)
    assert after_fast == eval_schema._SIGHTED


def test_a_key_takes_its_first_value_not_null_and_keeps_its_place(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # (a table of first keys of its own: an array with first keys "a", "b" met earlier in
    # this process, by another test, would be left to checked_items, and None returned)
    monkeypatch.setattr(eval_schema, "_SIGHTED", {})
    monkeypatch.setattr(flat_items, "_SIGHTED", eval_schema._SIGHTED)
    elements = [{"a": None, "b": 1}, {"b": "x", "a": None, "c": None}, {"c": 2.5, "a": True}]
    node = flat_items.flat_items(elements, REGISTRY, 5)
    assert node is not None and node.properties is not None
    assert [(k, v.type) for k, v in node.properties.items()] == [
        ("a", "boolean"),
        ("b", "integer"),
        ("c", "number"),
    ]
    assert shown(node) == shown(eval_schema.infer_node(elements, REGISTRY))


@st.composite
def pairs(draw: Any) -> tuple[dict[str, Any], dict[str, Any]]:
    items = draw(st.lists(OBJECTS, min_size=1, max_size=4))
    other = [dict(e) for e in items]
    if draw(st.booleans()):
        other = draw(st.lists(OBJECTS, max_size=4))
    elif other and draw(st.booleans()):
        other.reverse()
    return {"rows": items, "n": 1}, {"rows": other, "n": 2}


@settings(max_examples=100, deadline=None, derandomize=True, database=None)
@given(pair=pairs(), align=st.sampled_from([None, "hungarian"]))
def test_field_f1_scores_the_same_either_way(
    pair: tuple[dict[str, Any], dict[str, Any]], align: str | None
) -> None:
    expected, actual = pair
    options = {"align": align} if align else {}

    def text() -> str:
        eval_schema._SIGHTED.clear()  # (each array's first keys met for the first time)
        try:
            result = match_json(actual, expected, metric="field_f1", **options)
        except JsonMatchError as exc:
            return f"{type(exc).__name__}: {exc}"
        return fv.exact_repr((result, result.fields, result.pairings))

    fast = text()
    with switched(flat_items, "FLAT_ITEMS", False):
        assert text() == fast
