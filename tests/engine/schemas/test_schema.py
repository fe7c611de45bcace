"""Schemas (engine/schemas/eval_schema.py): infer_schema, annotate_schema, validate_gold, and the
x-eval-* annotations a schema node may carry (an unknown one is a warning listing the known
ones)."""

from __future__ import annotations

import copy

import pytest

from pytest_jsonmatch import (
    ConfigError,
    SchemaError,
    SchemaWarning,
    annotate_schema,
    infer_schema,
    match_json,
    validate_gold,
)

# -- infer_schema -----------------------------------------------------------------------------


def test_infer_schema_types_of_scalars():
    schema = infer_schema([{"s": "x", "b": True, "f": 1.5, "i": 3}])
    props = schema["properties"]
    assert schema["type"] == "object"
    assert props["s"]["type"] == "string"
    assert props["b"]["type"] == "boolean"
    assert props["f"]["type"] == "number"
    assert props["i"]["type"] in ("integer", "number")


def test_infer_schema_boolean_is_not_integer():
    assert infer_schema([{"b": False}])["properties"]["b"]["type"] == "boolean"


def test_infer_schema_takes_the_first_non_null_value():
    with pytest.warns(
        SchemaWarning,
        match=r"field a has values of several types across the "
        r"instances \(string, integer\)",
    ):
        schema = infer_schema([{"a": None}, {"a": "x"}, {"a": 5}])
    assert schema["properties"]["a"]["type"] == "string"


def test_infer_schema_unions_keys_across_instances():
    schema = infer_schema([{"a": 1}, {"b": "x"}])
    assert set(schema["properties"]) == {"a", "b"}


def test_infer_schema_pools_array_elements():
    schema = infer_schema([{"t": []}, {"t": [{"x": 1}]}, {"t": [{"y": "z"}]}])
    items = schema["properties"]["t"]["items"]
    assert schema["properties"]["t"]["type"] == "array"
    assert items["type"] == "object"
    assert set(items["properties"]) == {"x", "y"}


def test_infer_schema_nested_objects():
    schema = infer_schema([{"o": {"p": {"q": "r"}}}])
    assert schema["properties"]["o"]["properties"]["p"]["properties"]["q"]["type"] == "string"


def test_infer_schema_has_no_eval_keys():
    schema = infer_schema([{"a": 1, "t": ["x"]}])
    assert "x-eval-compare" not in str(schema)


def test_infer_schema_does_not_mutate_instances():
    instances = [{"a": [1, {"b": None}]}]
    before = copy.deepcopy(instances)
    with pytest.warns(
        SchemaWarning,
        match=r"field a\[\] has values of several types across the "
        r"instances \(integer, object\)",
    ):
        infer_schema(instances)
    assert instances == before


# -- annotate_schema --------------------------------------------------------------------------


def test_annotate_schema_adds_default_comparators_to_leaves():
    schema = {
        "type": "object",
        "properties": {
            "s": {"type": "string"},
            "b": {"type": "boolean"},
            "n": {"type": "number"},
            "i": {"type": "integer"},
            "t": {"type": "array", "items": {"type": "string"}},
            "o": {"type": "object", "properties": {"x": {"type": "number"}}},
        },
    }
    out = annotate_schema(schema)
    props = out["properties"]
    assert props["s"]["x-eval-compare"] == "exact"
    assert props["b"]["x-eval-compare"] == "exact"
    assert props["n"]["x-eval-compare"] == "numeric"
    assert props["i"]["x-eval-compare"] == "numeric"
    assert props["t"]["items"]["x-eval-compare"] == "exact"
    assert props["o"]["properties"]["x"]["x-eval-compare"] == "numeric"


def test_annotate_schema_leaves_containers_without_comparator():
    out = annotate_schema(
        {
            "type": "object",
            "properties": {
                "t": {"type": "array", "items": {"type": "string"}},
                "o": {"type": "object", "properties": {"x": {"type": "string"}}},
            },
        }
    )
    assert "x-eval-compare" not in out
    assert "x-eval-compare" not in out["properties"]["t"]
    assert "x-eval-compare" not in out["properties"]["o"]


def test_annotate_schema_keeps_an_explicit_comparator():
    schema = {
        "type": "object",
        "properties": {"n": {"type": "number", "x-eval-compare": {"numeric": {"abs": 1}}}},
    }
    out = annotate_schema(schema)
    assert out["properties"]["n"]["x-eval-compare"] == {"numeric": {"abs": 1}}


def test_annotate_schema_leaves_skipped_fields_alone():
    schema = {"type": "object", "properties": {"n": {"type": "number", "x-eval-skip": True}}}
    out = annotate_schema(schema)
    assert "x-eval-compare" not in out["properties"]["n"]


def test_annotated_inferred_schema_scores_like_the_inferred_default():
    expected = {"a": 1, "s": "x", "t": [1, 2]}
    actual = {"a": 1.0, "s": "y", "t": [1, 3]}
    schema = annotate_schema(infer_schema([expected]))
    with_schema = match_json(actual, expected, metric="field_f1", schema=schema)
    without = match_json(actual, expected, metric="field_f1")
    # a match, s mismatch, t[0] match, t[1] mismatch -> 0.5 both ways
    assert with_schema.f1 == without.f1 == 0.5


# -- validate_gold -------------------------------------------------------------------------

SCHEMA = {
    "type": "object",
    "properties": {
        "name": {"type": "string"},
        "age": {"type": "integer"},
        "tags": {"type": "array", "items": {"type": "string"}},
    },
}


def test_validate_gold_accepts_fitting_gold():
    assert validate_gold([{"name": "a", "age": 3, "tags": ["x"]}], SCHEMA) == []


def test_validate_gold_type_error_is_an_error():
    with pytest.raises(SchemaError, match="age"):
        validate_gold([{"name": "a", "age": "three", "tags": []}], SCHEMA)


def test_validate_gold_type_error_inside_an_array_is_an_error():
    with pytest.raises(SchemaError, match="tags"):
        validate_gold([{"name": "a", "age": 3, "tags": ["x", 5]}], SCHEMA)


def test_validate_gold_unknown_field_is_an_error():
    with pytest.raises(SchemaError, match="nickname"):
        validate_gold([{"name": "a", "age": 3, "tags": [], "nickname": "b"}], SCHEMA)


def test_validate_gold_missing_field_is_a_warning():
    warnings = validate_gold([{"name": "a", "tags": []}], SCHEMA)
    assert len(warnings) == 1
    assert "age" in warnings[0]


def test_validate_gold_schema_error_is_a_config_error():
    assert issubclass(SchemaError, ConfigError)


# -- x-eval-* annotations ---------------------------------------------------------------------


def test_an_unknown_schema_annotation_is_a_warning_listing_the_known_ones():
    # extract-eval only warns about an unknown x-eval- key (its schema still scores), and so
    # do we: the key is named with its node, and the field keeps its default comparator
    schema = {"type": "object", "properties": {"a": {"type": "number", "x-eval-comapre": "exact"}}}
    with pytest.warns(SchemaWarning) as caught:
        result = match_json({"a": 1.0}, {"a": 1}, metric="field_f1", schema=schema)
    assert [str(w.message) for w in caught] == [
        "schema node a: unknown keys ['x-eval-comapre'] are not read; known: x-eval-compare, "
        "x-eval-transform, x-eval-align, x-eval-skip, x-eval-weight"
    ]
    assert [(f.path, f.status, f.comparator) for f in result.fields] == [("a", "match", "numeric")]
