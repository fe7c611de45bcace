"""The item nodes field_f1 infers for arrays without a schema, kept by their elements'
skeleton (``eval_schema.inferred_items``, switch ``KEEP_ITEMS``; docs/architecture.md, "Fast
paths"): the kept node is the node ``infer_node`` gives any elements of that skeleton, and a
comparison scores the same to the bit with the switch off, and on with the node (and the
scorers generated for it) kept from other arrays of the same skeleton. A node is kept once
its first object's keys recur (``_SIGHTED``); elements led by a scalar have its shared leaf.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from pytest_jsonmatch import match_json
from pytest_jsonmatch.engine.comparing.registry import REGISTRY
from pytest_jsonmatch.engine.core.errors import JsonMatchError
from pytest_jsonmatch.engine.schemas import eval_schema
from pytest_jsonmatch.engine.schemas.eval_schema import _as_mapping, infer_node, inferred_items
from tests.helpers import fuzz_values as fv
from tests.helpers.sweeps import sweep

SETTINGS = sweep(60)

SCALARS = st.one_of(
    st.none(), st.booleans(), st.integers(-5, 5), st.floats(-5, 5), st.text("ab", max_size=3)
)
FLAT_OBJECTS = st.dictionaries(st.sampled_from(["a", "b", "c", "d"]), SCALARS, max_size=4)
ELEMENTS = st.lists(st.one_of(SCALARS, FLAT_OBJECTS), max_size=6)


@contextlib.contextmanager
def keeping(on: bool) -> Iterator[None]:
    before = eval_schema.KEEP_ITEMS
    eval_schema.KEEP_ITEMS = on
    eval_schema._ITEMS.clear()
    eval_schema._SIGHTED.clear()
    try:
        yield
    finally:
        eval_schema.KEEP_ITEMS = before
        eval_schema._ITEMS.clear()
        eval_schema._SIGHTED.clear()


def sibling(value: Any) -> Any:
    """``value`` with every scalar changed to another of its type (None stays None): the
    same skeleton, other values."""
    if type(value) is dict:
        return {k: sibling(v) for k, v in value.items()}
    if type(value) is list:
        return [sibling(v) for v in value]
    if type(value) is bool:
        return not value
    if type(value) is int:
        return value + 1
    if type(value) is float:
        return value / 2 + 0.25
    if type(value) is str:
        return value + "z"
    return value


_OTHER_TYPE = {bool: None, int: "s", float: 1, str: 1.5, type(None): True}


def retyped(value: Any) -> Any:
    """``value`` with every scalar replaced by one of another type: the same keys in the
    same places, another skeleton."""
    if type(value) is dict:
        return {k: retyped(v) for k, v in value.items()}
    if type(value) is list:
        return [retyped(v) for v in value]
    return _OTHER_TYPE[type(value)]


@SETTINGS
@given(elements=ELEMENTS)
def test_the_node_kept_for_a_skeleton_is_the_one_inferred_from_any_elements_of_it(
    elements: list[Any],
) -> None:
    with keeping(True):
        first = inferred_items(elements, REGISTRY)  # (its keys sighted: not kept yet)
        inferred_items(retyped(elements), REGISTRY)  # kept for another skeleton
        kept = inferred_items(sibling(elements), REGISTRY)  # kept for this one
        assert inferred_items(elements, REGISTRY) is kept
        assert _as_mapping(kept) == _as_mapping(infer_node(elements, REGISTRY))
        assert _as_mapping(first) == _as_mapping(kept)


@SETTINGS
@given(elements=ELEMENTS)
def test_elements_led_by_a_scalar_have_its_shared_leaf(elements: list[Any]) -> None:
    # (what infer_node gives them: the very node, kept or not)
    for on in (True, False):
        with keeping(on):
            node = inferred_items(elements, REGISTRY)
            assert _as_mapping(node) == _as_mapping(infer_node(elements, REGISTRY))
            lead = next((e for e in elements if e is not None), None)
            if lead is None or type(lead) is not dict:
                assert node is infer_node(elements, REGISTRY)


def test_the_switch_turns_the_keeping_off() -> None:
    """Not vacuous: on, two arrays of one skeleton share their node; off, each has its own;
    nested elements are never kept."""
    one, other = [{"sku": "a", "n": 1}], [{"sku": "b", "n": 2}]
    with keeping(True):
        seen = inferred_items(one, REGISTRY)  # the keys met once: inferred, not kept
        assert inferred_items(one, REGISTRY) is inferred_items(other, REGISTRY)
        assert seen is not inferred_items(one, REGISTRY)
        nested = [{"sku": "a", "tags": ["x"]}]
        assert inferred_items(nested, REGISTRY) is not inferred_items(nested, REGISTRY)
    with keeping(False):
        assert inferred_items(one, REGISTRY) is not inferred_items(other, REGISTRY)


def scored(actual: Any, expected: Any, options: dict[str, Any]) -> str:
    try:
        return fv.exact_repr(match_json(actual, expected, "field_f1", **options))
    except JsonMatchError as exc:
        return f"{type(exc).__name__}: {exc}"


ALIGN = st.sampled_from([{}, {"align": "hungarian"}])


@SETTINGS
@given(elements=ELEMENTS, seed=st.integers(0, 50), options=ALIGN)
def test_an_array_scores_the_same_with_its_node_kept_from_other_arrays(
    elements: list[Any], seed: int, options: dict[str, Any]
) -> None:
    expected = {"id": 1, "items": elements}
    actual = fv.mutate(expected, seed, 0.3)
    with keeping(False):
        general = scored(actual, expected, options)
    with keeping(True):
        # other arrays of the skeleton first, often enough for their shapes' scorers to be
        # generated on the kept node
        for _ in range(6):
            scored(retyped(actual), retyped(expected), options)
            scored(sibling(actual), sibling(expected), options)
        assert scored(actual, expected, options) == general


@SETTINGS
@given(pair=fv.PAIRS, options=ALIGN)
def test_any_pair_scores_the_same_with_the_item_nodes_kept_or_not(
    pair: tuple[Any, Any], options: dict[str, Any]
) -> None:
    actual, expected = pair
    with keeping(False):
        general = scored(actual, expected, options)
    with keeping(True):
        scored(actual, expected, options)
        scored(actual, expected, options)  # (the nodes kept the first time)
        assert scored(actual, expected, options) == general
