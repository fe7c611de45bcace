"""Schema conformance (engine/schemas/conformance.py): every violation of an answer, named by
its path and keyword, checked against hand-worked answers and against jsonschema's own
draft 2020-12 validator."""

from __future__ import annotations

import json
import random
import warnings

import jsonschema
import pytest

from pytest_jsonmatch import match_json
from pytest_jsonmatch.engine.core.errors import ConfigError, SchemaError
from pytest_jsonmatch.engine.match import evaluate_records
from pytest_jsonmatch.engine.schemas.conformance import validator_for

INVOICE = {
    "$defs": {
        "Item": {
            "type": "object",
            "properties": {
                "sku": {"type": "string", "pattern": "^SKU-", "x-eval-compare": "exact"},
                "qty": {"type": "integer", "minimum": 1},
                "price": {"type": "number", "multipleOf": 0.01},
            },
            "required": ["sku", "qty"],
            "additionalProperties": False,
        },
    },
    "type": "object",
    "properties": {
        "id": {"type": "string", "minLength": 3},
        "items": {
            "type": "array",
            "items": {"$ref": "#/$defs/Item"},
            "minItems": 1,
            "x-eval-align": {"match_by": "key_field", "key": "sku"},
        },
        "note": {"anyOf": [{"type": "string"}, {"type": "null"}]},
        "kind": {"enum": ["a", "b", 1]},
    },
    "required": ["id", "items"],
    "dependentRequired": {"note": ["kind"]},
}


def violations(value, schema=INVOICE):
    return [(v.path, v.keyword) for v in validator_for(schema).check(value).violations]


def test_a_valid_answer_has_no_violations():
    answer = {
        "id": "INV-1",
        "items": [{"sku": "SKU-1", "qty": 2, "price": 0.3}],
        "note": None,
        "kind": 1,
    }
    assert validator_for(INVOICE).check(answer).valid


def test_every_violation_is_named_by_its_path_and_keyword():
    answer = {
        "id": "ab",
        "items": [{"sku": "X-1", "qty": 0, "price": 0.305, "colour": "red"}, {"qty": 1.0}],
        "note": 3,
    }
    assert violations(answer) == [
        ("id", "minLength"),  # 2 characters, at least 3
        ("items[0].sku", "pattern"),  # "X-1" does not start with SKU-
        ("items[0].qty", "minimum"),  # 0 < 1
        ("items[0].price", "multipleOf"),  # 0.305 / 0.01 = 30.5
        ("items[0].colour", "additionalProperties"),  # the extra key, by its own path
        ("items[1].sku", "required"),  # the missing key, by its own path (1.0 is an integer)
        ("note", "anyOf"),  # neither a string nor null
        ("kind", "dependentRequired"),  # note given, kind missing
    ]
    found = validator_for(INVOICE).check(answer).violations
    assert found[1].field_path == "items[].sku"


def test_a_reference_to_a_nullable_model_names_the_models_own_violations():
    # pydantic's Optional[Item]: anyOf [{$ref}, {type: null}]; an object breaks only the first
    # branch's inner keywords, so those are named, not "anyOf"
    schema = {
        "$defs": INVOICE["$defs"],
        "type": "object",
        "properties": {"first": {"anyOf": [{"$ref": "#/$defs/Item"}, {"type": "null"}]}},
    }
    assert violations({"first": {"sku": "SKU-1"}}, schema) == [("first.qty", "required")]
    assert violations({"first": None}, schema) == []
    assert violations({"first": "x"}, schema) == [("first", "anyOf")]


def test_a_root_violation_is_at_dollar_and_x_eval_keys_are_ignored():
    schema = {"type": "object", "x-eval-compare": "no such comparator", "x-eval-weight": "heavy"}
    assert violations([1], schema) == [("$", "type")]
    assert violations({}, schema) == []


def test_draft_2020_12_arrays_and_the_draft_7_spellings():
    schema = {
        "type": "array",
        "prefixItems": [{"const": "head"}],
        "items": {"type": "integer"},
        "contains": {"const": 7},
        "maxContains": 1,
        "uniqueItems": True,
    }
    assert violations(["head", 7, 3], schema) == []
    # "x" at index 1 breaks items; no 7 is contained; 3 twice breaks uniqueItems
    assert violations(["nope", "x", 3, 3], schema) == [
        ("[0]", "const"),
        ("[1]", "type"),
        ("$", "contains"),
        ("$", "uniqueItems"),
    ]
    assert violations(["head", 7, 7], schema) == [("$", "maxContains"), ("$", "uniqueItems")]
    draft7 = {
        "items": [{"type": "string"}],
        "additionalItems": False,
        "dependencies": {"a": ["b"], "c": {"required": ["d"]}},
    }
    assert violations([1, 2], draft7) == [("[0]", "type"), ("[1]", "false")]
    assert violations({"a": 1, "c": 2}, draft7) == [("b", "dependentRequired"), ("d", "required")]


def test_if_then_else_not_one_of_and_a_recursive_reference():
    tree = {
        "$defs": {
            "node": {
                "type": "object",
                "properties": {
                    "value": {"oneOf": [{"type": "integer"}, {"minimum": 10}]},
                    "kind": {"not": {"const": "bad"}},
                    "children": {"type": "array", "items": {"$ref": "#/$defs/node"}},
                },
                "if": {"required": ["kind"]},
                "then": {"required": ["value"]},
            }
        },
        "$ref": "#/$defs/node",
    }
    answer = {"value": 3, "children": [{"kind": "x"}, {"value": 12, "children": [{"kind": "bad"}]}]}
    # children[0] has a kind and no value (then); 12 is an integer and >= 10 (two oneOf
    # branches hold); the deepest node has no value (then) and the bad kind (not). A node's
    # own keywords are checked before its properties.
    assert violations(answer, tree) == [
        ("children[0].value", "required"),
        ("children[1].value", "oneOf"),
        ("children[1].children[0].value", "required"),
        ("children[1].children[0].kind", "not"),
    ]


def test_a_pydantic_models_schema():
    pydantic = pytest.importorskip("pydantic")

    class Line(pydantic.BaseModel):
        sku: str
        qty: int = pydantic.Field(ge=1)

    class Invoice(pydantic.BaseModel):
        id: str
        lines: list[Line]
        first: Line | None = None

    assert violations({"id": "1", "lines": [{"sku": "a", "qty": 1}]}, Invoice) == []
    assert violations(
        {"id": 1, "lines": [{"sku": "a", "qty": 0}, {"qty": 2}], "first": {"sku": 5, "qty": 1}},
        Invoice,
    ) == [
        ("id", "type"),
        ("lines[0].qty", "minimum"),
        ("lines[1].sku", "required"),
        ("first.sku", "type"),
    ]


def test_a_reference_to_a_file_next_to_the_schema(tmp_path):
    (tmp_path / "money.json").write_text(json.dumps({"type": "number", "minimum": 0}))
    (tmp_path / "invoice.json").write_text(
        json.dumps({"type": "object", "properties": {"total": {"$ref": "money.json"}}})
    )
    assert violations({"total": -1}, str(tmp_path / "invoice.json")) == [("total", "minimum")]


def test_multiple_of_is_exact_for_any_size():
    # 0.3 = 3 * 0.1 as written; 10**40 = 2 * 10**40 / 2 (an int beyond 28 digits, a float step)
    assert violations(0.3, {"multipleOf": 0.1}) == []
    assert violations(10**40, {"multipleOf": 0.5}) == []
    assert violations(10**40 + 1, {"multipleOf": 2}) == [("$", "multipleOf")]
    assert violations(0.25, {"multipleOf": 0.1}) == [("$", "multipleOf")]


@pytest.mark.parametrize(
    ("schema", "says"),
    [
        (
            {"properties": {"a": {"pattern": "("}}},
            r"node #/properties/a: pattern '\(' is not a regular",
        ),
        ({"unevaluatedProperties": False}, "node #: unevaluatedProperties is not supported"),
        ({"type": "integr"}, "node #: type must name JSON types"),
        ({"minLength": -1}, "node #: minLength must be a whole number"),
        ({"$ref": "#/$defs/nowhere"}, "node #: \\$ref '#/\\$defs/nowhere' cannot be resolved"),
    ],
)
def test_a_schema_that_cannot_be_compiled_is_a_schema_error_naming_node_and_keyword(schema, says):
    with pytest.raises(SchemaError, match=f"the schema: {says}"):
        validator_for(schema)
    with pytest.raises(SchemaError), warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the scorer's own warning of what it does not read
        match_json({}, {}, metric="json_similarity", schema=schema)


def test_a_deep_answer_against_a_recursive_schema_is_checked_without_crashing():
    schema = {
        "$defs": {
            "n": {
                "type": "object",
                "properties": {"a": {"$ref": "#/$defs/n"}, "x": {"type": "integer"}},
            }
        },
        "$ref": "#/$defs/n",
    }
    value: dict = {"x": "deep"}
    for _ in range(1_900):  # below the door's 2,000 levels
        value = {"a": value}
    result = match_json(value, value, metric="json_similarity", schema=schema)
    assert result.score == 1.0
    assert [(v.path.count("a"), v.keyword) for v in result.conformance.violations] == [
        (1_900, "type")
    ]


def test_conformance_is_beside_the_score_never_in_it():
    expected = {"id": "INV-1", "items": [{"sku": "SKU-1", "qty": 2}]}
    actual = {"id": "INV-1", "items": [{"sku": "SKU-1", "qty": 2, "colour": "red"}]}
    with_schema = match_json(actual, expected, metric="field_match", schema=INVOICE)
    assert [(v.path, v.keyword) for v in with_schema.conformance.violations] == [
        ("items[0].colour", "additionalProperties")
    ]
    assert with_schema.to_dict()["conformance"] == {
        "valid": False,
        "total": 1,
        "violations": [{"path": "items[0].colour", "keyword": "additionalProperties"}],
    }
    assert match_json(actual, expected, metric="field_match").conformance is None
    run = evaluate_records(
        [expected, expected], [actual, expected], metric="field_f1", schema=INVOICE
    )
    assert [r.conformance.valid for r in run.records] == [False, True]
    # the scores are field_f1's own: id, sku, qty match (TP 3), colour is invented (FP 1):
    # precision 3/4, recall 1, F1 = 2 * 3/4 / (7/4) = 6/7; the violation takes nothing more
    assert [r.score for r in run.records] == [pytest.approx(6 / 7), 1.0]


def test_a_hostile_answer_is_counted_whole_and_listed_in_part():
    # 5,000 elements of the wrong type: all counted, the first 1,000 listed
    found = validator_for({"items": {"type": "string"}}).check(list(range(5_000)))
    assert found.total == 5_000 and len(found.violations) == 1_000
    assert found.violations[-1] == ("[999]", "[]", "type")


def test_the_validator_is_compiled_once_per_schema():
    assert validator_for(INVOICE) is validator_for(INVOICE)


@pytest.mark.parametrize("seed", range(3))
def test_valid_exactly_when_jsonschema_says_so(seed):
    rng = random.Random(seed)
    reference = jsonschema.Draft202012Validator(INVOICE)
    leaves = [None, True, 0, 1, 1.0, 2.5, 0.3, "SKU-1", "ab", "abcd", "a", 1, -1]

    def value(depth: int = 0):
        roll = rng.random()
        if depth > 2 or roll < 0.5:
            return rng.choice(leaves)
        if roll < 0.7:
            return [value(depth + 1) for _ in range(rng.randint(0, 2))]
        keys = ["id", "items", "note", "kind", "sku", "qty", "price", "zz"]
        return {k: value(depth + 1) for k in rng.sample(keys, rng.randint(0, 4))}

    for _ in range(1_500):
        answer = {
            "id": value(2),
            "items": [
                value(1)
                if rng.random() < 0.3
                else {
                    k: value(2)
                    for k in rng.sample(["sku", "qty", "price", "zz"], rng.randint(1, 3))
                }
                for _ in range(rng.randint(0, 2))
            ],
            **({"note": value(2)} if rng.random() < 0.5 else {}),
            **({"kind": value(2)} if rng.random() < 0.5 else {}),
        }
        if rng.random() < 0.2:
            answer = value()
        mine = validator_for(INVOICE).check(answer)
        assert mine.valid == reference.is_valid(answer), (answer, mine)


def test_the_conformance_option():
    schema = {"type": "object", "required": ["b"]}
    # None is the default (checked), False skips the check, anything else is refused by name
    assert match_json({"a": 1}, {"a": 1}, schema=schema, conformance=None).conformance.total == 1
    assert match_json({"a": 1}, {"a": 1}, schema=schema, conformance=False).conformance is None
    for bad in ("yes", 10**5000, []):  # the fuzzer's finds: an int too long to print plainly
        with pytest.raises(ConfigError, match="^conformance must be true or false, not "):
            match_json({"a": 1}, {"a": 1}, schema=schema, conformance=bad)
