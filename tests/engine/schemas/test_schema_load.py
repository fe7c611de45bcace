"""Schemas as users have them (engine/schemas/loading.py): references resolved with `referencing`
(within the document, `$defs` and `definitions`, files next to the schema), `allOf` merged,
nullable unions read as their branch, recursive schemas followed as deep as the data goes,
pydantic model classes as schemas; and loud about what cannot be honoured."""

from __future__ import annotations

import enum
import json
import warnings

import pytest
from pydantic import BaseModel, Field

from pytest_jsonmatch import SchemaError, SchemaWarning, annotate_schema, match_json, validate_gold

MONEY = {"type": "number", "x-eval-compare": {"numeric": {"abs": 0.05}}}


def statuses(result):
    return [(f.path, f.status, f.comparator) for f in result.fields]


# -- $ref within the document ---------------------------------------------------------------


def test_a_reference_to_defs_brings_its_tolerance():
    schema = {
        "$defs": {"money": MONEY},
        "type": "object",
        "properties": {"total": {"$ref": "#/$defs/money"}, "tax": {"$ref": "#/$defs/money"}},
    }
    result = match_json({"total": 100.04, "tax": 5.1}, {"total": 100, "tax": 5}, schema=schema)
    # total: |100.04 - 100| = 0.04 <= 0.05, a match; tax: 0.1 > 0.05, a mismatch
    assert statuses(result) == [("total", "match", "numeric"), ("tax", "mismatch", "numeric")]
    assert result.score == 0.5  # TP 1 of 2 fields on both sides: P = R = 1/2


def test_a_reference_to_definitions_draft_07():
    schema = {
        "$schema": "http://json-schema.org/draft-07/schema#",
        "definitions": {"money": MONEY},
        "type": "object",
        "properties": {"total": {"$ref": "#/definitions/money"}},
    }
    assert statuses(match_json({"total": 9.96}, {"total": 10}, schema=schema)) == [
        ("total", "match", "numeric")
    ]


def test_keys_beside_a_reference_are_laid_over_its_target():
    schema = {
        "$defs": {"money": MONEY},
        "type": "object",
        "properties": {
            "total": {
                "$ref": "#/$defs/money",
                "x-eval-compare": "exact",
                "description": "the total, to the cent",
            }
        },
    }
    # the node's own x-eval-compare replaces money's tolerance: 100.04 is not 100
    assert statuses(match_json({"total": 100.04}, {"total": 100}, schema=schema)) == [
        ("total", "mismatch", "exact")
    ]


def test_a_chain_of_references_is_followed():
    schema = {
        "$defs": {"amount": {"$ref": "#/$defs/money"}, "money": MONEY},
        "type": "object",
        "properties": {"total": {"$ref": "#/$defs/amount"}},
    }
    assert statuses(match_json({"total": 1.03}, {"total": 1}, schema=schema)) == [
        ("total", "match", "numeric")
    ]


def test_a_reference_that_leads_nowhere_names_the_node_and_the_reference():
    schema = {"type": "object", "properties": {"total": {"$ref": "#/$defs/nothing"}}}
    with pytest.raises(SchemaError) as info:
        match_json({"total": 1}, {"total": 1}, schema=schema)
    assert str(info.value).startswith(
        "schema node total: $ref '#/$defs/nothing' cannot be resolved"
    )


def test_a_reference_in_a_schema_holding_a_node_that_is_not_a_schema_is_a_schema_error():
    # the reference library reads the whole document before it follows a $ref; a property
    # that is None (not a mapping, true or false) made it raise AttributeError
    # (a reference to another document is looked up in the library's registry, which it
    # builds by reading every subschema)
    schema = {"type": "object", "properties": {"id": {"$ref": "other.json"}, "a": None}}
    with pytest.raises(
        SchemaError,
        match=r"schema node id: \$ref 'other.json' cannot be resolved: "
        r".* every subschema must be a mapping",
    ):
        validate_gold({"id": "x"}, schema)


def test_a_reference_to_itself_without_content_is_an_error_not_a_hang():
    schema = {
        "$defs": {"a": {"$ref": "#/$defs/b"}, "b": {"$ref": "#/$defs/a"}},
        "type": "object",
        "properties": {"x": {"$ref": "#/$defs/a"}},
    }
    with pytest.raises(SchemaError, match=r"^schema node x: \$ref refers to itself"):
        match_json({"x": 1}, {"x": 1}, schema=schema)


# -- $ref to files next to the schema ---------------------------------------------------------


def test_a_reference_to_a_file_next_to_the_schema_file(tmp_path):
    (tmp_path / "common").mkdir()
    (tmp_path / "common" / "money.json").write_text(json.dumps({"$defs": {"amount": MONEY}}))
    (tmp_path / "invoice.json").write_text(
        json.dumps(
            {
                "type": "object",
                "properties": {
                    "total": {"$ref": "common/money.json#/$defs/amount"},
                    "lines": {"type": "array", "items": {"$ref": "line.yaml"}},
                },
            }
        )
    )
    (tmp_path / "line.yaml").write_text(
        "type: object\nproperties:\n  price: {$ref: 'common/money.json#/$defs/amount'}\n"
    )
    result = match_json(
        {"total": 10.01, "lines": [{"price": 2.2}]},
        {"total": 10, "lines": [{"price": 2}]},
        schema=str(tmp_path / "invoice.json"),
    )
    # 0.01 <= 0.05 a match; 0.2 > 0.05 a mismatch: both read through two files
    assert statuses(result) == [
        ("total", "match", "numeric"),
        ("lines[0].price", "mismatch", "numeric"),
    ]


def test_a_referenced_file_that_does_not_exist_is_named(tmp_path):
    (tmp_path / "s.json").write_text(
        json.dumps({"type": "object", "properties": {"a": {"$ref": "gone.json"}}})
    )
    with pytest.raises(SchemaError) as info:
        match_json({"a": 1}, {"a": 1}, schema=str(tmp_path / "s.json"))
    message = str(info.value)
    assert message.startswith("schema node a: $ref 'gone.json' cannot be resolved")
    assert "gone.json" in message and "No such file or directory" in message


def test_a_reference_to_the_network_is_refused():
    schema = {"type": "object", "properties": {"a": {"$ref": "https://example.com/money.json"}}}
    with pytest.raises(SchemaError) as info:
        match_json({"a": 1}, {"a": 1}, schema=schema)
    assert "only files are read (nothing is fetched from the network)" in str(info.value)


# -- allOf, unions ------------------------------------------------------------------------------


def test_all_of_branches_are_merged():
    schema = {
        "$defs": {"party": {"type": "object", "properties": {"name": {"type": "string"}}}},
        "type": "object",
        "properties": {
            "vendor": {
                "allOf": [
                    {"$ref": "#/$defs/party"},
                    {"properties": {"vat": {"type": "string", "x-eval-transform": "lowercase"}}},
                ]
            }
        },
    }
    result = match_json(
        {"vendor": {"name": "Acme", "vat": "gb1"}},
        {"vendor": {"name": "Acme", "vat": "GB1"}},
        schema=schema,
    )
    assert statuses(result) == [("vendor.name", "match", "exact"), ("vendor.vat", "match", "exact")]


def test_all_of_branches_that_disagree_on_type_are_an_error():
    schema = {
        "type": "object",
        "properties": {"n": {"allOf": [{"type": "string"}, {"type": "integer"}]}},
    }
    with pytest.raises(SchemaError) as info:
        match_json({"n": 1}, {"n": 1}, schema=schema)
    assert str(info.value) == "schema node n: allOf branches disagree on type (string and integer)"


def test_all_of_branches_that_disagree_on_the_comparator_are_an_error():
    schema = {
        "type": "object",
        "properties": {
            "n": {"allOf": [{"x-eval-compare": "exact"}, {"x-eval-compare": "levenshtein"}]}
        },
    }
    with pytest.raises(
        SchemaError, match=r"^schema node n: allOf branches give different x-eval-compare"
    ):
        match_json({"n": "a"}, {"n": "a"}, schema=schema)


def test_integer_and_number_meet_as_integer():
    schema = {
        "type": "object",
        "properties": {"n": {"allOf": [{"type": "number"}, {"type": "integer"}]}},
    }
    with pytest.raises(SchemaError, match="n is number, the schema says integer"):
        validate_gold({"n": 1.5}, schema)


def test_a_nullable_union_is_read_as_its_other_branch():
    schema = {
        "$defs": {
            "address": {
                "type": "object",
                "properties": {"city": {"type": "string"}, "zip": {"type": "string"}},
            }
        },
        "type": "object",
        "properties": {
            "billing": {"anyOf": [{"$ref": "#/$defs/address"}, {"type": "null"}]},
            "note": {"anyOf": [{"type": "string", "x-eval-transform": "strip"}, {"type": "null"}]},
        },
    }
    expected = {"billing": {"city": "Paris", "zip": "75001"}, "note": "x"}
    result = match_json(
        {"billing": {"city": "Paris", "zip": "75002"}, "note": " x "}, expected, schema=schema
    )
    assert statuses(result) == [
        ("billing.city", "match", "exact"),
        ("billing.zip", "mismatch", "exact"),
        ("note", "match", "exact"),
    ]
    # a null billing: each of its two leaves omitted (one_sided expansion of the object node)
    result = match_json({"billing": None, "note": "x"}, expected, schema=schema)
    assert [(f.path, f.status) for f in result.fields] == [
        ("billing.city", "omission"),
        ("billing.zip", "omission"),
        ("note", "match"),
    ]


def test_a_union_of_scalars_is_one_field_of_several_types():
    schema = {
        "type": "object",
        "properties": {"id": {"anyOf": [{"type": "string"}, {"type": "integer"}]}},
    }
    assert statuses(match_json({"id": 7}, {"id": 7}, schema=schema)) == [("id", "match", "exact")]
    assert validate_gold({"id": "A7"}, schema) == []
    with pytest.raises(SchemaError, match=r"id is boolean, the schema says integer or string"):
        validate_gold({"id": True}, schema)


def test_a_union_of_two_shapes_is_an_error_naming_the_schema_path():
    schema = {
        "type": "object",
        "properties": {
            "payment": {
                "type": "object",
                "properties": {
                    "method": {
                        "oneOf": [
                            {"type": "object", "properties": {"iban": {"type": "string"}}},
                            {"type": "object", "properties": {"card": {"type": "string"}}},
                        ]
                    }
                },
            }
        },
    }
    with pytest.raises(SchemaError) as info:
        match_json(
            {"payment": {"method": {"iban": "X"}}},
            {"payment": {"method": {"iban": "X"}}},
            schema=schema,
        )
    assert str(info.value) == (
        "schema node payment.method: a union of 2 shapes (object, object) cannot be scored field by "
        "field; give the node x-eval-compare to compare its value whole, or x-eval-skip to leave it out"
    )


def test_a_union_of_different_types_is_one_field_compared_whole():
    # an object or a string: as extract-eval reads a list-valued type, one field of several
    # types, compared whole (exact) whatever it holds
    schema = {
        "type": "object",
        "properties": {
            "address": {
                "anyOf": [
                    {"type": "object", "properties": {"city": {"type": "string"}}},
                    {"type": "string"},
                    {"type": "null"},
                ]
            }
        },
    }
    result = match_json(
        {"address": {"city": "Paris"}}, {"address": {"city": "Paris"}}, schema=schema
    )
    assert statuses(result) == [("address", "match", "exact")]
    assert statuses(
        match_json({"address": "Paris"}, {"address": {"city": "Paris"}}, schema=schema)
    ) == [("address", "mismatch", "exact")]
    assert validate_gold({"address": "Paris"}, schema) == []


def test_a_union_of_shapes_compared_whole_is_honoured():
    union = {
        "oneOf": [
            {"type": "object", "properties": {"iban": {"type": "string"}}},
            {"type": "object", "properties": {"card": {"type": "string"}}},
        ]
    }
    schema = {"type": "object", "properties": {"method": {**union, "x-eval-compare": "exact"}}}
    result = match_json({"method": {"card": "X"}}, {"method": {"iban": "X"}}, schema=schema)
    assert statuses(result) == [("method", "mismatch", "exact")]


# -- recursion -----------------------------------------------------------------------------------


def test_a_recursive_schema_is_followed_as_deep_as_the_data_goes():
    schema = {
        "$defs": {
            "node": {
                "type": "object",
                "properties": {
                    "name": {"type": "string", "x-eval-transform": "lowercase"},
                    "children": {"type": "array", "items": {"$ref": "#/$defs/node"}},
                },
            }
        },
        "$ref": "#/$defs/node",
    }

    def tree(*names):
        out = {"name": names[-1], "children": []}
        for name in reversed(names[:-1]):
            out = {"name": name, "children": [out]}
        return out

    expected = tree("a", "b", "c", "d", "e")
    actual = tree("A", "B", "C", "D", "x")
    result = match_json(actual, expected, schema=schema)
    deep = "children[0].children[0].children[0].children[0]"
    assert (deep + ".name", "mismatch") in [(f.path, f.status) for f in result.fields]
    # five names (4 match after lowercasing, e vs x does not) and the innermost [] vs []
    assert result.counts["match"] == 5 and result.counts["mismatch"] == 1


def test_validate_gold_follows_a_recursive_schema():
    schema = {
        "$defs": {
            "node": {
                "type": "object",
                "properties": {
                    "n": {"type": "integer"},
                    "kids": {"type": "array", "items": {"$ref": "#/$defs/node"}},
                },
            }
        },
        "$ref": "#/$defs/node",
    }
    with pytest.raises(SchemaError) as info:
        validate_gold({"n": 1, "kids": [{"n": 2, "kids": [{"n": "three"}]}]}, schema)
    assert str(info.value) == (
        "gold does not fit the schema:\n"
        "  record 0: kids[0].kids[0].n is string, the schema says integer"
    )


# -- loud about what is not honoured ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("key", "value", "why"),
    [
        (
            "patternProperties",
            {"^x": {"type": "string"}},
            "fields matching a pattern are not given its schema",
        ),
        ("prefixItems", [{"type": "string"}], "array positions are not given their own schemas"),
        ("if", {"properties": {"a": {}}}, "conditional schemas are not applied"),
    ],
)
def test_a_keyword_that_is_not_honoured_is_a_warning_naming_the_node(key, value, why):
    schema = {"type": "object", "properties": {"meta": {"type": "object", key: value}}}
    with pytest.warns(SchemaWarning) as caught:
        match_json({"meta": {}}, {"meta": {}}, schema=schema)
    assert f"schema node meta: {key} is not read: {why}" in [str(w.message) for w in caught]


def test_annotations_and_validation_keywords_are_read_quietly():
    schema = {
        "type": "object",
        "title": "T",
        "properties": {
            "a": {
                "type": "string",
                "minLength": 2,
                "pattern": "^x",
                "format": "email",
                "description": "d",
            }
        },
    }
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert match_json({"a": "xy"}, {"a": "xy"}, schema=schema).score == 1.0


def test_x_eval_align_on_an_object_is_an_error():
    schema = {
        "type": "object",
        "properties": {
            "party": {
                "type": "object",
                "x-eval-align": {"match_by": "hungarian"},
                "properties": {"n": {"type": "string"}},
            }
        },
    }
    with pytest.raises(SchemaError) as info:
        match_json({"party": {"n": "a"}}, {"party": {"n": "a"}}, schema=schema)
    assert (
        str(info.value)
        == "schema node party: x-eval-align is only valid on arrays, and this node is object"
    )


def test_x_eval_align_on_an_array_through_a_reference():
    schema = {
        "$defs": {
            "lines": {
                "type": "array",
                "x-eval-align": {"match_by": "key_field", "key": "sku"},
                "items": {
                    "type": "object",
                    "properties": {"sku": {"type": "string"}, "qty": {"type": "integer"}},
                },
            }
        },
        "type": "object",
        "properties": {"lines": {"$ref": "#/$defs/lines"}},
    }
    expected = {"lines": [{"sku": "A", "qty": 1}, {"sku": "B", "qty": 2}]}
    actual = {"lines": [{"sku": "B", "qty": 2}, {"sku": "A", "qty": 1}]}
    assert match_json(actual, expected, schema=schema).score == 1.0


# -- validate_gold and annotate_schema through references ------------------------------------------


def test_validate_gold_checks_types_through_references():
    schema = {
        "$defs": {
            "line": {
                "type": "object",
                "properties": {"sku": {"type": "string"}, "qty": {"type": "integer"}},
            }
        },
        "type": "object",
        "properties": {"lines": {"type": "array", "items": {"$ref": "#/$defs/line"}}},
    }
    with pytest.raises(SchemaError) as info:
        validate_gold({"lines": [{"sku": 5, "qty": "one"}]}, schema)
    assert str(info.value) == (
        "gold does not fit the schema:\n"
        "  record 0: lines[0].sku is integer, the schema says string\n"
        "  record 0: lines[0].qty is string, the schema says integer"
    )


def test_annotate_schema_annotates_definitions_and_leaves_references_alone():
    schema = {
        "$defs": {
            "line": {
                "type": "object",
                "properties": {"sku": {"type": "string"}, "qty": {"type": "integer"}},
            }
        },
        "type": "object",
        "properties": {
            "lines": {"type": "array", "items": {"$ref": "#/$defs/line"}},
            "note": {"anyOf": [{"type": "string"}, {"type": "null"}]},
        },
    }
    out = annotate_schema(schema)
    assert out["$defs"]["line"]["properties"] == {
        "sku": {"type": "string", "x-eval-compare": "exact"},
        "qty": {"type": "integer", "x-eval-compare": "numeric"},
    }
    assert out["properties"]["lines"]["items"] == {"$ref": "#/$defs/line"}
    assert out["properties"]["note"]["anyOf"] == [
        {"type": "string", "x-eval-compare": "exact"},
        {"type": "null"},
    ]
    assert (
        "x-eval-compare" not in schema["$defs"]["line"]["properties"]["sku"]
    )  # the input is not changed


# -- pydantic model classes as schemas --------------------------------------------------------------


class Status(str, enum.Enum):
    PAID = "paid"
    OPEN = "open"


class Address(BaseModel):
    city: str
    zip: str


class Line(BaseModel):
    sku: str
    qty: int
    price: float = Field(json_schema_extra={"x-eval-compare": {"numeric": {"abs": 0.01}}})


class Invoice(BaseModel):
    number: str
    status: Status
    billing: Address | None = None
    lines: list[Line] = Field(
        json_schema_extra={"x-eval-align": {"match_by": "key_field", "key": "sku"}}
    )
    note: str | None = None


def test_a_pydantic_model_class_is_a_schema_with_its_references_resolved():
    expected = {
        "number": "A-1",
        "status": "paid",
        "billing": {"city": "Paris", "zip": "75001"},
        "lines": [{"sku": "X", "qty": 2, "price": 9.99}, {"sku": "Y", "qty": 1, "price": 5.0}],
        "note": None,
    }
    actual = {
        "number": "A-1",
        "status": "open",
        "billing": {"city": "Paris", "zip": "75001"},
        "lines": [{"sku": "Y", "qty": 1, "price": 5.004}, {"sku": "X", "qty": 3, "price": 9.99}],
        "note": None,
    }
    result = match_json(actual, expected, schema=Invoice)
    assert [(f.path, f.status) for f in result.fields] == [
        ("number", "match"),
        ("status", "mismatch"),
        ("billing.city", "match"),
        ("billing.zip", "match"),
        ("lines[0].sku", "match"),
        ("lines[0].qty", "mismatch"),
        ("lines[0].price", "match"),
        ("lines[1].sku", "match"),
        ("lines[1].qty", "match"),
        ("lines[1].price", "match"),
        ("note", "match"),
    ]
    # 11 fields, 9 right: P = R = F1 = 9/11 (lines paired by sku; 5.004 within 0.01 of 5.0)
    assert result.score == pytest.approx(9 / 11)


def test_validate_gold_with_a_pydantic_model_checks_list_items():
    with pytest.raises(SchemaError) as info:
        validate_gold(
            {"number": "A", "status": "paid", "lines": [{"sku": 5, "qty": "one", "price": 1.0}]},
            Invoice,
        )
    assert str(info.value).splitlines()[1:] == [
        "  record 0: lines[0].sku is integer, the schema says string",
        "  record 0: lines[0].qty is string, the schema says integer",
    ]


def test_a_schema_of_the_wrong_kind_names_what_is_accepted():
    with pytest.raises(SchemaError) as info:
        match_json({"a": 1}, {"a": 1}, schema=42)
    assert (
        str(info.value) == "a schema is a mapping, a file path or a pydantic model class, not int"
    )


def test_annotate_schema_takes_a_model_class():
    out = annotate_schema(Invoice)
    assert out["$defs"]["Line"]["properties"]["qty"] == {
        "title": "Qty",
        "type": "integer",
        "x-eval-compare": "numeric",
    }
    assert out["$defs"]["Line"]["properties"]["price"]["x-eval-compare"] == {
        "numeric": {"abs": 0.01}
    }  # kept
    assert out["properties"]["note"]["anyOf"][0] == {"type": "string", "x-eval-compare": "exact"}
    assert (
        match_json(
            {"number": "A", "status": "paid", "lines": []},
            {"number": "A", "status": "paid", "lines": []},
            schema=out,
        ).score
        == 1.0
    )
