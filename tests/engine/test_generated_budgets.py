"""Generated code pays for itself or is not generated (issue 55): each generator falls back
to its general path, with the same result, past its budget. The tests assert which path
was taken, never a time; benchmarks/generated_budgets.py times the issue's three shapes."""

from __future__ import annotations

import functools
import random

import pytest

from pytest_jsonmatch import match_json
from pytest_jsonmatch.dataset import fitting
from pytest_jsonmatch.dataset.sketch import SchemaSketch
from pytest_jsonmatch.engine.schemas import conformance
from pytest_jsonmatch.engine.walking import generated_scorers as compiled

pytestmark = pytest.mark.production_sightings  # (shapes compiled as a run compiles them)


@pytest.fixture
def compiles(monkeypatch):
    """The structures compiled during the test (a list the real ``_make`` appends to)."""
    made: list[tuple] = []
    real = compiled._make

    def counting(node, shape, align):
        scorer = real(node, shape, align)
        if scorer is not None:
            made.append(shape[0])
        return scorer

    monkeypatch.setattr(compiled, "_make", counting)
    monkeypatch.setattr(compiled, "_spent", [0.0])
    monkeypatch.setattr(compiled, "_FACTORIES", {})  # every structure compiled afresh
    return made


def rows_schema(width: int) -> dict:
    known = {f"k{i}": {"type": "string"} for i in range(width)}
    item = {"type": "object", "properties": known}
    return {
        "type": "object",
        "properties": {"rows": {"type": "array", "items": item, "x-eval-align": "ordered"}},
    }


def shuffled_rows(count: int, width: int, same_order: bool) -> dict:
    rng = random.Random(7)
    keys = [f"k{i}" for i in range(width)] + [f"u{i}" for i in range(width)]
    rows = []
    for _ in range(count):
        order = keys[:]
        if not same_order:
            rng.shuffle(order)
        rows.append({k: k for k in order})
    return {"rows": rows}


def general_score(expected, actual, schema) -> float:
    compiled.SPECIALISE = False
    try:
        return match_json(actual, expected, schema=schema).score
    finally:
        compiled.SPECIALISE = True


def test_object_shapes_met_once_are_never_compiled(compiles):
    # 40 objects of 64 keys (32 known, 32 not), each in its own order: 40 shapes, once each
    schema, expected = rows_schema(32), shuffled_rows(40, 32, same_order=False)
    actual = {"rows": [dict(row, k0="changed") for row in expected["rows"]]}
    score = match_json(actual, expected, schema=schema).score
    assert not [keys for keys in compiles if len(keys) == 64]
    assert score == general_score(expected, actual, schema)
    assert 0.0 < score < 1.0


def test_a_shape_met_often_enough_is_compiled(compiles):
    # one order for all 40 objects: compiled at its sightings(64) = 8 + 64 // 8 = 16th meeting
    assert compiled.sightings(64) == 16
    schema, expected = rows_schema(32), shuffled_rows(40, 32, same_order=True)
    actual = {"rows": [dict(row, k0="changed") for row in expected["rows"]]}
    score = match_json(actual, expected, schema=schema).score
    assert [keys for keys in compiles if len(keys) == 64] == [tuple(expected["rows"][0])]
    assert score == general_score(expected, actual, schema)


@pytest.mark.parametrize("items", [7, 8])
def test_a_few_records_compile_no_scorer_for_their_shapes(compiles, items):
    # an invoice's line items, one shape of two keys: compiled at its sightings(2) = 8 + 0 =
    # 8th meeting, so that a run of a record or two (jsonmatch score of one invoice: four
    # items) pays no compile (about 1.4 ms a small shape) for a handful of meetings
    assert compiled.sightings(2) == 8
    expected = {"items": [{"sku": f"A{i}", "qty": i} for i in range(items)]}
    actual = {"items": [{"sku": f"A{i}", "qty": i + i % 2} for i in range(items)]}
    score = match_json(actual, expected).score
    assert [keys for keys in compiles if keys == ("sku", "qty")] == (
        [("sku", "qty")] if items == 8 else []
    )
    # each item's sku matches, its qty in the even items: (items + ceil(items / 2)) / (2 items)
    assert score == pytest.approx((items + (items + 1) // 2) / (2 * items))


def test_once_the_compile_budget_is_spent_new_structures_take_the_general_walk(compiles):
    compiled._spent[0] = compiled.COMPILE_BUDGET
    schema, expected = rows_schema(5), shuffled_rows(40, 5, same_order=True)
    actual = {"rows": [dict(row, k1="changed") for row in expected["rows"]]}
    score = match_json(actual, expected, schema=schema).score
    assert compiles == [] and compiled._FACTORIES == {}  # nothing was compiled
    assert score == general_score(expected, actual, schema)


def test_a_wide_gold_line_gets_the_general_fit_test():
    wide = {f"k{i}": {} for i in range(fitting.MAX_CONSTANTS)}  # a key set and a key each
    sketch = SchemaSketch.of([wide])
    test = fitting.fitting(sketch)
    assert isinstance(test, functools.partial) and test.func is fitting.fits
    assert test(wide) and not test({"new": 1}) and test({"k1": {}})
    narrow = SchemaSketch.of([{f"k{i}": {} for i in range(100)}])
    assert not isinstance(fitting.fitting(narrow), functools.partial)


def test_once_the_fit_tests_budget_is_spent_the_general_fit_test_serves(monkeypatch):
    monkeypatch.setattr(fitting, "_spent", [fitting.COMPILE_BUDGET])
    monkeypatch.setattr(fitting, "_FACTORIES", {})
    sketch = SchemaSketch.of([{"a": {"b": None}, "c": []}])
    test = fitting.fitting(sketch)
    assert isinstance(test, functools.partial)
    assert test({"a": {"b": None}}) and not test({"a": {"b": 1}}) and not test({"c": [1]})


def test_a_schema_of_more_nodes_than_the_cap_is_never_written_out(monkeypatch):
    monkeypatch.setattr(conformance, "MAX_WRITTEN_NODES", 50)
    wide = {
        "type": "object",
        "properties": {f"p{i}": {"type": "string", "minLength": 1} for i in range(60)},
    }
    validator = conformance.validator_for(wide)
    for _ in range(200):  # far past the writing budget of a schema this small
        assert validator.check({"p0": "x", "p1": ""}).total == 1
    assert not validator.generated and validator.source is None
    narrow = {"type": "object", "properties": {"p0": {"type": "string"}}}
    assert conformance.validator_for(narrow).source is not None  # written when asked for
