"""Issue 29, item 5: what the references' own test suites found, each with the case it was
found with, and the warnings the reference gives that were missing."""

from __future__ import annotations

import warnings

import pytest

from pytest_jsonmatch import (
    SchemaError,
    annotate_schema,
    evaluate_records,
    infer_schema,
    match_json,
)
from pytest_jsonmatch.engine.comparing.registry import REGISTRY
from pytest_jsonmatch.engine.core.errors import SchemaWarning

# -- (a) a node of two non-null types with properties is compared whole ------------------------

QUANTITY = {
    "type": "object",
    "properties": {
        "q": {"type": ["string", "object"], "properties": {"value": {"type": "integer"}}}
    },
}


def test_a_node_of_two_types_with_properties_is_compared_whole():
    with pytest.warns(SchemaWarning, match="schema node q: its properties are not read"):
        result = match_json(
            {"q": {"value": 1, "unit": "m"}},
            {"q": {"value": 1, "unit": "cm"}},
            metric="field_f1",
            schema=QUANTITY,
        )
    assert result.f1 == 0.0  # was 1.0: q.value scored, q.unit skipped
    assert [(f.path, f.status) for f in result.fields] == [("q", "mismatch")]
    same = match_json(
        {"q": {"value": 1, "unit": "cm"}},
        {"q": {"value": 1, "unit": "cm"}},
        metric="field_f1",
        schema=QUANTITY,
    )
    assert same.f1 == 1.0
    assert match_json({"q": "1 cm"}, {"q": "1 cm"}, metric="field_f1", schema=QUANTITY).f1 == 1.0


def test_a_node_of_two_types_is_annotated_as_a_leaf():
    annotated = annotate_schema(QUANTITY)
    q = annotated["properties"]["q"]
    assert q["x-eval-compare"] == "exact"
    assert "x-eval-compare" not in q["properties"]["value"]  # not walked into
    # the annotated schema compares it whole, without a warning
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert (
            match_json(
                {"q": {"value": 1, "unit": "m"}},
                {"q": {"value": 1, "unit": "cm"}},
                metric="field_f1",
                schema=annotated,
            ).f1
            == 0.0
        )


def test_a_nullable_object_is_still_walked():
    schema = {
        "type": "object",
        "properties": {
            "q": {"type": ["object", "null"], "properties": {"value": {"type": "integer"}}}
        },
    }
    result = match_json({"q": {"value": 1}}, {"q": {"value": 1}}, metric="field_f1", schema=schema)
    assert [(f.path, f.status) for f in result.fields] == [("q.value", "match")]
    assert "x-eval-compare" in annotate_schema(schema)["properties"]["q"]["properties"]["value"]


# -- (b) a key_field alignment that can never pair ---------------------------------------------


def _aligned(items):
    node = {"type": "array", "x-eval-align": {"match_by": "key_field", "key": "sku"}}
    if items is not None:
        node["items"] = items
    return {"type": "object", "properties": {"lines": node}}


@pytest.mark.parametrize(
    "items, why",
    [
        (None, "the array gives no items schema"),
        ({"type": "string"}, "the items are string, not objects"),
        ({"type": "array", "items": {"type": "object"}}, "the items are array, not objects"),
    ],
)
def test_a_key_field_alignment_that_cannot_pair_is_a_schema_error(items, why):
    value = {"lines": [{"sku": "a"}, {"sku": "b"}]}
    with pytest.raises(
        SchemaError, match=f"schema node lines: x-eval-align matches by key 'sku', but {why}"
    ):
        match_json(value, value, metric="field_f1", schema=_aligned(items))


def test_a_key_field_alignment_warns_as_the_reference_does():
    value = {"lines": [{"sku": "a", "n": 1}, {"sku": "b", "n": 2}]}
    with pytest.warns(
        SchemaWarning,
        match=r"lines\[\]: the items of an array aligned by key 'sku' have no properties",
    ):
        assert (
            match_json(value, value, metric="field_f1", schema=_aligned({"type": "object"})).f1
            == 1.0
        )
    with pytest.warns(
        SchemaWarning, match=r"the alignment key 'sku' is not among the items' properties \(n\)"
    ):
        match_json(
            value,
            value,
            metric="field_f1",
            schema=_aligned({"type": "object", "properties": {"n": {"type": "integer"}}}),
        )
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        schema = _aligned(
            {"type": "object", "properties": {"sku": {"type": "string"}, "n": {"type": "integer"}}}
        )
        assert match_json(value, value, metric="field_f1", schema=schema).f1 == 1.0


# -- (c) registered transforms are called on null ----------------------------------------------


@pytest.fixture
def registry():
    REGISTRY.register_transform(
        "test_null_to_empty", lambda value, params: "" if value is None else value
    )
    try:
        yield REGISTRY
    finally:
        REGISTRY.unregister("test_null_to_empty")


def test_a_registered_transform_is_called_on_null(registry):
    schema = {
        "type": "object",
        "properties": {"note": {"type": "string", "x-eval-transform": "test_null_to_empty"}},
    }
    result = match_json(
        {"note": None}, {"note": ""}, metric="field_f1", schema=schema, registry=registry
    )
    assert result.f1 == 1.0  # was 0
    assert (
        match_json(
            {"note": None},
            {"note": ""},
            metric="field_match",
            registry=registry,
            fields={"note": {"transform": "test_null_to_empty"}},
        ).score
        == 1.0
    )


def test_built_in_transforms_keep_leaving_null_alone(registry):
    schema = {
        "type": "object",
        "properties": {
            "k": {"type": "string", "x-eval-transform": {"type_convert": {"to": "str"}}},
            "s": {
                "type": "string",
                "x-eval-transform": ["strip", "test_null_to_empty", "lowercase"],
            },
        },
    }
    result = match_json(
        {"k": None, "s": None},
        {"k": "None", "s": " "},
        metric="field_f1",
        schema=schema,
        registry=registry,
    )
    by_path = {f.path: f.score for f in result.fields}
    assert by_path == {"k": 0.0, "s": 1.0}  # type_convert never turns null into "None"
    for name in (
        "lowercase",
        "strip",
        "normalize_whitespace",
        "sort_tokens",
        "strip_accents",
        "round_digits",
        {"type_convert": {"to": "str"}},
        {"type_convert": {"to": "int"}},
    ):
        from pytest_jsonmatch.engine.comparing.transforms import chain

        assert chain([registry.transform(name)])(None) is None
        assert chain([registry.transform(name), registry.transform("strip")])(None) is None


# -- the reference's warning during inference --------------------------------------------------


def test_infer_schema_warns_of_a_field_of_two_types():
    with pytest.warns(
        SchemaWarning,
        match=r"field a has values of several types across the instances \(integer, string\)",
    ):
        assert infer_schema([{"a": 1}, {"a": "x"}, {"a": None}])["properties"]["a"] == {
            "type": "integer"
        }
    with pytest.warns(SchemaWarning, match=r"field b\[\] has values of several types"):
        infer_schema([{"b": [1, {"c": 1}]}])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        infer_schema([{"a": 1, "b": [1.5, 2]}, {"a": 2.5, "b": [3]}])  # integers are numbers
        evaluate_records([{"a": 1}, {"a": "x"}], [{"a": 1}, {"a": "x"}])  # scoring: silent
