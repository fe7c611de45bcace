"""Pairing from counts of equal fields (engine/pairing/equal_fields.py) against the general
pair scores (columns, pair_scores.py): the same pairs, the same pair scores, the same field
results, to the bit.

The differential cases score the same records twice through ``evaluate_records`` under
Hungarian alignment, once with the counts and once with ``equal_fields.SPECIALISE`` off,
and compare the ``repr`` of everything (a pairing's score is in its repr, exact to the bit).
The values are the ones where Python's ``==`` and JSON equality part (``True`` and 1, 1 and
1.0, -0.0, integers beyond a float), keys of every path form, elements of several shapes,
unknown and nested fields, and schemas that give a field another comparator, a transform
or ``x-eval-skip``.
"""

from __future__ import annotations

import contextlib
import random
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pytest_jsonmatch import evaluate_records, infer_schema
from pytest_jsonmatch.engine.configuring.walk_config import schema_node
from pytest_jsonmatch.engine.core.errors import JsonMatchError
from pytest_jsonmatch.engine.metrics import METRICS, REGISTRY
from pytest_jsonmatch.engine.metrics.base import configure
from pytest_jsonmatch.engine.pairing import assignment, equal_fields
from tests.helpers.sweeps import sweep

pytestmark = pytest.mark.slow  # (CONTRIBUTING.md: the inner loop leaves it out)

SETTINGS = sweep(150)


@contextlib.contextmanager
def counting(on: bool) -> Iterator[None]:
    before = equal_fields.SPECIALISE
    equal_fields.SPECIALISE = on
    try:
        yield
    finally:
        equal_fields.SPECIALISE = before


def outcome(expected: list[Any], actual: list[Any], options: dict[str, Any], on: bool) -> str:
    """Everything evaluate_records says under Hungarian alignment, as exact text."""
    with counting(on):
        try:
            run = evaluate_records(expected, actual, "field_f1", align="hungarian", **options)
        except JsonMatchError as exc:
            return f"{type(exc).__name__}: {exc}"
    return repr((run.records, run.per_field, run.mean_score, run.mean_f1))


def assert_same(expected: list[Any], actual: list[Any], options: dict[str, Any]) -> None:
    assert outcome(expected, actual, options, True) == outcome(expected, actual, options, False)


KEYS = st.sampled_from(["a", "b", "c", "unit price", "x.y", "[0]", ""])
# values Python's == and JSON equality tell apart, or that hash alike across types
SCALARS = st.sampled_from(
    [
        None,
        True,
        False,
        0,
        1,
        -1,
        1.0,
        0.0,
        -0.0,
        2.5,
        10**20,
        1e20,
        2**53 + 1,
        float(2**53),
        "",
        "a",
        "A",
        "1",
        "true",
    ]
)
VALUES = st.one_of(SCALARS, SCALARS, SCALARS, st.sampled_from([[1], [True], {"z": 1}, {}, []]))
ELEMENTS = st.one_of(
    st.dictionaries(KEYS, VALUES, max_size=4),
    st.dictionaries(KEYS, SCALARS, max_size=4),
    st.dictionaries(KEYS, SCALARS, max_size=4),
    SCALARS,
)
ARRAYS = st.lists(ELEMENTS, min_size=0, max_size=5)

# a field of the elements' schema: compared by equality (the counted kinds) or otherwise
FIELD_SCHEMAS = st.sampled_from(
    [
        {"type": "string"},
        {"type": "number"},
        {"type": "integer"},
        {"type": "boolean"},
        {"type": "string", "x-eval-compare": "exact"},
        {"type": "number", "x-eval-compare": "numeric"},
        {"type": "string", "x-eval-compare": "levenshtein"},
        {"type": "number", "x-eval-compare": {"numeric": {"abs": 0.5}}},
        {"type": "string", "x-eval-skip": True},
        {"type": "string", "x-eval-transform": "lower"},
        {"type": "object", "properties": {"z": {"type": "integer"}}},
    ]
)


@st.composite
def records(draw: Any) -> tuple[list[Any], list[Any]]:
    """1-3 records ``{"items": [...]}``: each actual array unrelated to its expected one, or
    a near copy of it (shuffled, elements dropped or repeated, a value changed)."""
    expected, actual = [], []
    for _ in range(draw(st.integers(1, 3))):
        items = draw(ARRAYS)
        if draw(st.booleans()):
            other = draw(ARRAYS)
        else:
            rng = random.Random(draw(st.integers(0, 2**32)))
            other = [dict(e) if type(e) is dict else e for e in items]
            rng.shuffle(other)
            if other and rng.random() < 0.3:
                other.pop(rng.randrange(len(other)))
            if other and rng.random() < 0.3:
                other.append(other[rng.randrange(len(other))])
            for element in other:
                if type(element) is dict and element and rng.random() < 0.4:
                    element[rng.choice(sorted(element))] = draw(SCALARS)
        expected.append({"items": items})
        actual.append({"items": other})
    return expected, actual


@st.composite
def options(draw: Any) -> dict[str, Any]:
    """The schema inferred from expected (field_f1's default), or one given for the elements."""
    if draw(st.booleans()):
        return {}
    fields = draw(st.dictionaries(KEYS, FIELD_SCHEMAS, max_size=5))
    return {
        "schema": {
            "type": "object",
            "properties": {
                "items": {"type": "array", "items": {"type": "object", "properties": fields}}
            },
        }
    }


@SETTINGS
@given(pair_lists=records(), options=options())
def test_counted_pairs_agree_with_the_general_pair_scores(
    pair_lists: tuple[list[Any], list[Any]], options: dict[str, Any]
) -> None:
    assert_same(*pair_lists, options)


@SETTINGS
@given(
    expected=st.lists(
        st.dictionaries(
            st.sampled_from(["sku", "qty", "note", "ok"]), SCALARS, min_size=1, max_size=4
        ),
        min_size=1,
        max_size=6,
    ),
    seed=st.integers(0, 2**32),
)
def test_near_copies_of_one_shape(expected: list[dict[str, Any]], seed: int) -> None:
    """Elements of one shape (the generated functions), their copies shuffled and damaged:
    clear partners, ties (repeated elements: the solver's own choice), in-order copies."""
    keys = sorted(expected[0])
    expected = [{k: e.get(k) for k in keys} for e in expected]
    rng = random.Random(seed)
    actual = [dict(e) for e in expected]
    rng.shuffle(actual)
    for element in actual:
        if rng.random() < 0.3:
            element[rng.choice(keys)] = rng.choice([None, True, 1, 1.0, "x"])
    for records in (
        ([{"items": expected}], [{"items": actual}]),
        ([{"items": expected}], [{"items": [dict(e) for e in expected]}]),
        ([{"items": expected + expected}], [{"items": actual + actual[:1]}]),
    ):
        assert_same(*records, {})


@SETTINGS
@given(
    expected=st.lists(
        st.dictionaries(
            st.sampled_from(["sku", "qty", "note", "ok"]), SCALARS, min_size=1, max_size=4
        ),
        min_size=1,
        max_size=6,
    ),
    seed=st.integers(0, 2**32),
)
def test_copies_of_one_shape_that_leave_keys_out_or_add_some(
    expected: list[dict[str, Any]], seed: int
) -> None:
    """Expected of one shape, its copies with a key left out, a key the schema does not
    know added (any value: it is never read), a value changed: the actual side read
    against the expected side's shape, each pair's F1 from its count."""
    keys = sorted(expected[0])
    expected = [{k: e.get(k) for k in keys} for e in expected]
    rng = random.Random(seed)
    actual = [dict(e) for e in expected]
    rng.shuffle(actual)
    for element in actual:
        draw = rng.random()
        if draw < 0.35:
            del element[rng.choice(sorted(element))]
        elif draw < 0.7:
            element["extra"] = rng.choice([None, 1, "x", True, [1], {"d": 1}])
        if rng.random() < 0.3:
            element[rng.choice(keys)] = rng.choice([None, True, 1, 1.0, "x"])
    assert_same([{"items": expected}], [{"items": actual}], {})


INVOICE_ITEMS = [
    {"sku": "A-1", "qty": 2, "price": 9.5, "taxed": True},
    {"sku": "B-2", "qty": 1, "price": 20.0, "taxed": False},
    {"sku": "C-3", "qty": 2, "price": 9.5, "taxed": True},
]


@pytest.mark.parametrize(
    "actual",
    [
        INVOICE_ITEMS,  # an in-order copy
        INVOICE_ITEMS[::-1],  # shuffled: each element has one clear partner
        [{**INVOICE_ITEMS[2], "sku": "A-1"}, INVOICE_ITEMS[0]],  # two partners tie for one element
        [
            {**INVOICE_ITEMS[0], "taxed": 1},
            {**INVOICE_ITEMS[1], "qty": 1.0},
        ],  # 1 is not true; 1.0 is 1
        [
            {"sku": "A-1", "qty": 2},
            {"sku": "B-2", "price": 20.0, "taxed": False, "extra": [1]},
        ],  # other shapes
        [{**INVOICE_ITEMS[0], "note": {"deep": 1}}],  # a field the schema does not know, nested
        [{**INVOICE_ITEMS[0], "qty": [2]}],  # a nested value in a counted field
        [INVOICE_ITEMS[0], "A-1"],  # an element that is not an object
    ],
)
def test_invoice_lines(actual: list[Any]) -> None:
    assert_same([{"items": INVOICE_ITEMS}], [{"items": actual}], {})


def test_the_counts_are_used(monkeypatch: pytest.MonkeyPatch) -> None:
    """Not a vacuous comparison: elements of one shape and of several take the counts (the
    node keeps its plan), an actual side of several shapes against an expected side of one
    is read against that shape, a nested value takes the general path, and the answer is
    the general path's."""
    apart: list[bool] = []
    read_apart = equal_fields._rows_apart

    def counted(*args: Any) -> Any:
        found = read_apart(*args)
        apart.append(found is not None)
        return found

    monkeypatch.setattr(equal_fields, "_rows_apart", counted)
    node = schema_node(infer_schema([{"items": INVOICE_ITEMS}]), REGISTRY, None)
    items = node.properties["items"].items  # type: ignore[index, union-attr]
    cfg = configure(METRICS["field_f1"], {"align": "hungarian"})
    assert equal_fields.counted_pairs(cfg, items, INVOICE_ITEMS, INVOICE_ITEMS[::-1], "items") == (
        [(0, 2, 1.0), (1, 1, 1.0), (2, 0, 1.0)],
        [],
        [],
    )
    other_shapes = [{"sku": "A-1", "qty": 2}, {**INVOICE_ITEMS[1], "unknown": 5}]
    pairs, lone_e, lone_a = equal_fields.counted_pairs(
        cfg, items, INVOICE_ITEMS, other_shapes, "items"
    )
    # A-1 with A-1: 2 equal fields, precision 2/2, recall 2/4, F1 = 2 * 1 * 0.5 / 1.5 = 2/3;
    # B-2 with B-2 and one unknown field: 4 equal, precision 4/5, recall 4/4,
    # F1 = 2 * 0.8 * 1.0 / 1.8 (8/9, as the float division rounds it)
    assert pairs == [(0, 0, 2 / 3), (1, 1, 2 * 0.8 * 1.0 / 1.8)] and lone_e == [2] and lone_a == []
    assert apart == [True]  # (the actual side read against the expected side's shape)
    assert items.plans["equal_fields"][0] == frozenset({"sku", "qty", "price", "taxed"})
    assert (
        equal_fields.counted_pairs(cfg, items, INVOICE_ITEMS, [{"sku": ["A-1"]}], "items") is None
    )


def test_the_generated_source_can_be_printed_and_read() -> None:
    source = equal_fields.counter_source(("sku", "qty", "price"))
    compile(source, "<counter>", "exec")  # it is the text that runs
    assert "def read(elements, keys):" in source and "def count(rows_e, rows_a):" in source
    # one comparison per key, written out: no loop over the keys
    assert "float((x0 == y0) + (x1 == y1) + (x2 == y2))" in source


@SETTINGS
@given(k=st.integers(1, 5), n=st.integers(1, 6), m=st.integers(1, 6), data=st.data())
def test_the_assignment_of_counts_is_assigns(k: int, n: int, m: int, data: Any) -> None:
    """Counts of equal fields (0 to k; ties, shared best partners, rows of zeros) are paired
    as assignment.assign pairs them, scores to the bit."""
    counts = [[float(data.draw(st.integers(0, k))) for _ in range(m)] for _ in range(n)]
    assert repr(equal_fields._assigned(counts, k)) == repr(
        assignment.assign([list(row) for row in counts], 0.0, scale=float(k))
    )


@pytest.mark.parametrize(
    ("expected", "actual"),
    [
        ([7], [7]),
        ([7], [7.0]),  # (1 and 1.0 are one JSON number)
        ([7], [8]),
        ([True], [1]),  # (true is not 1)
        ([None], [None]),
        (["a"], ["b"]),
        ([{"sku": "a", "qty": 1}], [{"sku": "a", "qty": 2}]),  # one field of two equal: 1/2
        ([{"sku": "a", "qty": 1}], [{"sku": "b", "qty": 2}]),  # none equal: both lone
        ([{"sku": "a", "qty": 1}], [{"sku": "a"}]),  # a key left out: F1 of 1 in 2 and 1
        ([{"sku": "a", "qty": 1}], [{"sku": "b", "x": 1}]),  # left out, one added: F1 0
        ([{"sku": "a", "ok": True}], [{"sku": "a", "ok": True, "x": [1]}]),
    ],
)
def test_one_element_each(expected: list[Any], actual: list[Any]) -> None:
    """One element on each side, paired or both lone without the assignment's steps, as
    the general pair scores pair them."""
    assert_same([{"items": expected}], [{"items": actual}], {})
