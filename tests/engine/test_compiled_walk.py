"""The object scorers generated per schema node (engine/walking/generated_scorers.py) against the
general walk: the same field results, pairings, floors and aggregates, to the bit.

Each case scores the same records twice through the public API, once with the generated
scorers and once with ``compiled.SPECIALISE`` off, and compares the ``repr`` of everything
(``repr`` of a float is exact: -0.0 and 0.0 differ, as do two floats one bit apart). With
the generated scorers, ``evaluate_records`` scores records from their tallies and makes
their fields when read (tests/engine/test_counted_records.py): the comparison covers both.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pytest_jsonmatch import evaluate_records, infer_schema
from pytest_jsonmatch.engine.configuring.walk_config import schema_node
from pytest_jsonmatch.engine.core.errors import JsonMatchError
from pytest_jsonmatch.engine.metrics import REGISTRY
from pytest_jsonmatch.engine.schemas.eval_schema import infer_node
from pytest_jsonmatch.engine.walking import generated_scorers as compiled
from tests.helpers import fuzz_values as fv
from tests.helpers.sweeps import sweep

SETTINGS = sweep(60)


@contextlib.contextmanager
def specialised(on: bool) -> Iterator[None]:
    """The generated scorers on or off; on, without a compile budget, so that a slow machine
    never hands a differential test the general walk on both sides."""
    before = compiled.SPECIALISE, compiled.COMPILE_BUDGET
    compiled.SPECIALISE = on
    if on:
        compiled.COMPILE_BUDGET = float("inf")
    try:
        yield
    finally:
        compiled.SPECIALISE, compiled.COMPILE_BUDGET = before


def outcome(expected: list[Any], actual: list[Any], options: dict[str, Any], on: bool) -> str:
    """Everything evaluate_records says, as exact text (or the error it raises)."""
    with specialised(on):
        try:
            run = evaluate_records(expected, actual, "field_f1", **options)
        except JsonMatchError as exc:
            return f"{type(exc).__name__}: {exc}"
    # (a per-field aggregate's repr leaves its exact sum out: to_dict has it)
    return fv.exact_repr(
        (
            run.records,
            {path: agg.to_dict() for path, agg in run.per_field.items()},
            run.mean_score,
            run.mean_f1,
            run.mean_precision,
            run.mean_recall,
        )
    )


def assert_same(expected: list[Any], actual: list[Any], options: dict[str, Any]) -> None:
    assert outcome(expected, actual, options, True) == outcome(expected, actual, options, False)


@st.composite
def records(draw: Any) -> tuple[list[Any], list[Any]]:
    """1-4 (expected, actual) pairs from the fuzz harness: an accepted value and a near
    copy of it, or two unrelated values (objects mostly, so that one schema covers them)."""
    pairs = draw(st.lists(fv.PAIRS, min_size=1, max_size=4))
    return [e for _, e in pairs], [a for a, _ in pairs]


OPTIONS = st.one_of(
    st.just({}),
    st.builds(lambda align: {"align": align}, fv.ALIGN_VALID),
    st.builds(lambda node: {"schema": node}, fv.schema_nodes()),
)


@SETTINGS
@given(pair_lists=records(), options=OPTIONS)
def test_generated_scorers_agree_with_the_general_walk_on_fuzz_values(
    pair_lists: tuple[list[Any], list[Any]], options: dict[str, Any]
) -> None:
    assert_same(*pair_lists, options)


@SETTINGS
@given(
    expected=st.lists(
        st.dictionaries(fv.PLAIN_KEYS, fv.ACCEPTED_TREES, min_size=1, max_size=6),
        min_size=1,
        max_size=4,
    ),
    seed=st.integers(0, 2**32),
    rate=st.sampled_from([0.1, 0.3, 0.7]),
    align=fv.ALIGN_EQUAL_KEEPING,
)
def test_near_copies_under_the_inferred_schema(
    expected: list[Any], seed: int, rate: float, align: str
) -> None:
    """Objects only, their predictions near copies: most fields take the generated code."""
    actual = [fv.mutate(e, seed + k, rate) for k, e in enumerate(expected)]
    assert_same(expected, actual, {"align": align})


INVOICE = {
    "id": "A-1",
    "vendor": {"name": "ACME", "address": {"city": "Lyon", "zip": "69001"}},
    "total": 10.5,
    "paid": True,
    "unit price": 3,
    "items": [{"sku": "a", "qty": 1}, {"sku": "b", "qty": 2}, {"sku": "c", "qty": 3}],
}


@pytest.mark.parametrize(
    "actual",
    [
        INVOICE,
        {**INVOICE, "vendor": None},  # a null object
        {**INVOICE, "vendor": ["ACME"]},  # an array where the schema says object
        {**INVOICE, "vendor": {}},  # an empty object against a full one
        {**INVOICE, "items": "none"},  # a string where the schema says array
        {**INVOICE, "items": []},  # every element omitted
        {**INVOICE, "items": [{"sku": "a", "qty": 1}, 5, {"sku": "c"}, {"sku": "d", "qty": 4}]},
        {**INVOICE, "items": [{"qty": 1, "sku": "a"}, {"sku": "b", "qty": 2, "x": 1}]},
        {**INVOICE, "extra": {"deep": [1, 2]}, "id": 1},  # a hallucinated field, a changed type
        {k: v for k, v in INVOICE.items() if k != "total"},  # an omitted field
        # one field omitted and one hallucinated: as many keys as expected, one of them other
        {**{k: v for k, v in INVOICE.items() if k != "paid"}, "bonus": 1},
        {**INVOICE, "vendor": {"name": "ACME", "town": "Lyon"}},  # the same, in a nested object
        {"items": INVOICE["items"][::-1], "id": "A-1"},  # reordered elements, keys missing
    ],
)
@pytest.mark.parametrize(
    "options", [{}, {"align": "hungarian"}, {"align": {"match_by": "key_field", "key": "sku"}}]
)
def test_shapes_the_generated_code_branches_on(
    actual: dict[str, Any], options: dict[str, Any]
) -> None:
    expected = [INVOICE, {**INVOICE, "items": [{"sku": "z", "qty": 9}]}, {"id": "B"}]
    assert_same(expected, [actual, actual, actual], options)


def test_a_given_schema_with_keys_it_does_not_know() -> None:
    """Fields the schema does not name are skipped (expected) or hallucinated (actual),
    and a skipped field or a field with a transform goes the general way."""
    schema = {
        "type": "object",
        "properties": {
            "id": {"type": "string"},
            "note": {"type": "string", "x-eval-skip": True},
            "name": {"type": "string", "x-eval-transform": "lower"},
            "items": {
                "type": "array",
                "items": {"type": "object", "properties": {"sku": {"type": "string"}}},
            },
        },
    }
    expected = [{"id": "a", "note": "n", "name": "Ab", "other": 1, "items": [{"sku": "s", "q": 1}]}]
    actual = [{"id": "a", "note": "m", "name": "ab", "more": 2, "items": [{"sku": "t", "r": 2}]}]
    assert_same(expected, actual, {"schema": schema})


def test_objects_of_more_shapes_than_a_node_keeps_take_the_general_walk() -> None:
    expected = [
        {f"k{i}": i, "k": 0} if i % 2 else {"k": 0, f"k{i}": i}
        for i in range(2 * compiled.MAX_SHAPES)
    ]
    actual = [{**e, "k": 1} for e in expected]
    schema = infer_schema(expected)
    assert_same(expected, actual, {"schema": schema})
    root = schema_node(schema, REGISTRY, None)
    assert len(root.scorers) == compiled.MAX_SHAPES  # the first shapes; no more kept


def test_the_generated_scorers_are_used() -> None:
    """Not a vacuous comparison: scoring an invoice fills its nodes' scorers."""
    schema = infer_schema([INVOICE])
    node = schema_node(schema, REGISTRY, None)
    with specialised(True):
        evaluate_records([INVOICE], [INVOICE], "field_f1", schema=schema)
    assert len(node.scorers) == 1  # the root's one key shape
    assert node.properties is not None
    assert len(node.properties["vendor"].scorers) == 1
    assert len(node.properties["items"].items.scorers) == 1  # type: ignore[union-attr]
    with specialised(False):
        node.scorers.clear()
        evaluate_records([INVOICE], [INVOICE], "field_f1", schema=schema)
    assert not node.scorers


def test_the_generated_source_can_be_printed_and_read() -> None:
    node = infer_node([INVOICE], REGISTRY)
    source = compiled.scorer_source(node, tuple(INVOICE))
    compile(source, "<scorer>", "exec")  # it is the text that runs
    assert "def score(walk, expected, actual, where, depth):" in source
    # 'id' is a plain leaf whose comparator (exact) scores by equality alone, 'vendor' an
    # object, 'items' an array aligned in order
    assert "# keys[0]: plain_exact" in source
    assert "# keys[1]: object" in source
    assert "# keys[5]: ordered_array" in source
    # straight-line: no loop over the object's keys
    assert "for " not in source


def test_a_wide_object_takes_the_general_walk() -> None:
    """An object of more keys than a generated function is made for: the general loop,
    the same answer, nothing compiled."""
    expected = [{f"k{i}": i for i in range(compiled.MAX_KEYS + 1)}]
    actual = [{**expected[0], "k0": -1}]
    schema = infer_schema(expected)
    assert_same(expected, actual, {"schema": schema})
    assert not schema_node(schema, REGISTRY, None).scorers


def test_a_call_site_keeps_the_scorers_of_the_shapes_it_meets() -> None:
    """A nested object and the elements of an array, of several key orders across records:
    each call site finds the scorer of each order it meets (and the node keeps no more
    than MAX_SHAPES, the rest taking the general walk), with the general walk's answer."""
    keys = [f"k{i}" for i in range(8)]
    shapes = [keys[i:] + keys[:i] for i in range(8)] + [keys[::-1], keys[::2]]
    expected, actual = [], []
    for n in range(2 * compiled.MAX_SHAPES):
        inner = {k: f"{k}-{n}" for k in shapes[n % len(shapes)]}
        if n >= compiled.MAX_SHAPES:  # more shapes than a node keeps: unique orders
            inner = {f"x{n}": 0, **inner}
        expected.append({"id": n, "inner": inner, "rows": [inner, dict(reversed(inner.items()))]})
        actual.append(
            {"id": n, "inner": {**inner, "k0": "other"}, "rows": [inner, {**inner, "k3": None}]}
        )
    schema = infer_schema(expected)
    for align in ("ordered", "hungarian"):
        assert_same(expected, actual, {"schema": schema, "align": align})
    root = schema_node(schema, REGISTRY, None)
    assert root.properties is not None
    assert len(root.properties["inner"].scorers) == compiled.MAX_SHAPES
    assert len(root.properties["rows"].items.scorers) == compiled.MAX_SHAPES  # type: ignore[union-attr]


def test_paired_object_elements_take_their_scorers_under_hungarian_alignment() -> None:
    """Elements paired by score go straight to their generated scorers: the same answer as
    the general walk, with elements moved, added, dropped and of another type."""
    expected = [INVOICE, {**INVOICE, "items": [{"sku": "z", "qty": 9}, {"sku": "y", "qty": 8}]}]
    actual = [
        {
            **INVOICE,
            "items": [{"sku": "c", "qty": 3}, 7, {"sku": "a", "qty": 2}, {"sku": "new", "qty": 0}],
        },
        {**INVOICE, "items": [{"qty": 8, "sku": "y"}]},
    ]
    assert_same(expected, actual, {"align": "hungarian"})
    schema = infer_schema(expected)
    node = schema_node(schema, REGISTRY, None)
    with specialised(True):
        evaluate_records(expected, actual, "field_f1", schema=schema, align="hungarian")
    items = node.properties["items"].items  # type: ignore[index]
    assert items is not None and items.scorers  # the paired elements' scorers were made
