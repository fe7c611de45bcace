"""The conformance check generated as Python (engine/schemas/conformance_code.py) against the
closures it stands in for (engine/schemas/conformance.py, ``generated=False``): the same
violations, in the same order, at the same places, on generated schemas and answers; and
the text it writes, read as a person would."""

from __future__ import annotations

import random
import re
from typing import Any

import pytest

from pytest_jsonmatch import match_json
from pytest_jsonmatch.engine.core.violations import VALID
from pytest_jsonmatch.engine.schemas import conformance_code
from pytest_jsonmatch.engine.schemas.conformance import validator_for

pytestmark = pytest.mark.slow  # (CONTRIBUTING.md: the inner loop leaves it out)

SEEDS = 500  # generated schemas, each checked on ANSWERS answers
ANSWERS = 8

# more names than CHAIN_KEYS, so that an object of many properties takes the table of callees
KEYS = [f"k{i}" for i in range(conformance_code.CHAIN_KEYS + 4)] + ["a", "b", ""]
TYPES = ["null", "boolean", "integer", "number", "string", "array", "object"]
KEYWORDS = [
    "type",
    "type",
    "type",
    "enum",
    "const",
    "bound",
    "length",
    "pattern",
    "multipleOf",
    "properties",
    "properties",
    "required",
    "additionalProperties",
    "patternProperties",
    "items",
    "prefixItems",
    "contains",
    "uniqueItems",
    "size",
    "allOf",
    "anyOf",
    "oneOf",
    "not",
    "if",
    "dependentRequired",
    "propertyNames",
    "nullable",
    "ref",
    "draft7",
]


class Unread:
    """A value the door leaves unread (an ignored field holds anything): no JSON type."""


LEAVES = [
    None,
    True,
    False,
    -3,
    -1,
    0,
    1,
    2,
    3,
    0.0,
    -0.0,
    1.0,
    2.5,
    0.5,
    1e300,
    "",
    "a",
    "ab",
    "abc",
    "SKU-12",
    "k1",
    "\u00e9",
    (1, 2),
    Unread(),
]
JSON_LEAVES = [None, True, False, -1, 0, 1, 2, 0.0, 1.0, 2.5, "", "a", "k1"]


def value(rng: random.Random, depth: int = 0) -> Any:
    """An answer: a leaf, or a list or an object (of the schemas' own key names) of answers."""
    roll = rng.random()
    if depth >= 3 or roll < 0.45:
        return rng.choice(LEAVES)
    if roll < 0.65:
        return [value(rng, depth + 1) for _ in range(rng.randint(0, 4))]
    return {key: value(rng, depth + 1) for key in rng.sample(KEYS, rng.randint(0, 8))}


def schema(rng: random.Random, depth: int = 0, under_container: bool = False) -> Any:
    """A schema node: true, false, or a mapping of a few keywords, each with a value of the
    shape the keyword takes; ``$ref`` to the root only where a container was entered on the
    way (the reference then consumes a level of the answer: no endless recursion)."""
    if rng.random() < 0.05:
        return rng.random() < 0.5

    def child() -> Any:
        return schema(rng, depth + 1, under_container) if depth < 3 else rng.random() < 0.5

    def contained() -> Any:
        return schema(rng, depth + 1, True) if depth < 3 else rng.random() < 0.5

    node: dict[str, Any] = {}
    for keyword in rng.sample(KEYWORDS, rng.randint(0, 5)):
        if keyword == "type":
            node["type"] = (
                rng.choice(TYPES) if rng.random() < 0.6 else rng.sample(TYPES, rng.randint(1, 3))
            )
        elif keyword == "nullable":
            node["nullable"] = True
        elif keyword == "enum":
            node["enum"] = rng.sample(JSON_LEAVES + [[1, "a"], {"a": 1}], rng.randint(0, 4))
        elif keyword == "const":
            node["const"] = rng.choice(JSON_LEAVES + [{"a": [1]}])
        elif keyword == "bound":
            name = rng.choice(["minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"])
            node[name] = rng.choice([-2, -1, 0, 1, 2, 0.5, -1.5, 1.0])
        elif keyword == "length":
            node[rng.choice(["minLength", "maxLength"])] = rng.randint(0, 3)
        elif keyword == "size":
            node[rng.choice(["minItems", "maxItems", "minProperties", "maxProperties"])] = (
                rng.randint(0, 3)
            )
        elif keyword == "pattern":
            node["pattern"] = rng.choice(["^a", "b$", "[0-9]", "^SKU-[0-9]+$", ""])
        elif keyword == "multipleOf":
            node["multipleOf"] = rng.choice([0.5, 2, 0.1])
        elif keyword == "uniqueItems":
            node["uniqueItems"] = rng.random() < 0.5
        elif keyword == "properties":
            node["properties"] = {
                name: contained() for name in rng.sample(KEYS, rng.randint(0, len(KEYS)))
            }
        elif keyword == "required":
            node["required"] = rng.sample(KEYS, rng.randint(0, 4))
        elif keyword == "additionalProperties":
            node["additionalProperties"] = rng.random() < 0.5 if rng.random() < 0.5 else contained()
        elif keyword == "patternProperties":
            node["patternProperties"] = {"^k1": contained()}
        elif keyword == "items":
            node["items"] = contained()
        elif keyword == "prefixItems":
            node["prefixItems"] = [contained() for _ in range(rng.randint(1, 2))]
        elif keyword == "draft7":  # positional items, then additionalItems
            node["items"] = [contained() for _ in range(rng.randint(1, 2))]
            node["additionalItems"] = contained()
        elif keyword == "contains":
            node["contains"] = contained()
            if rng.random() < 0.5:
                node["maxContains"] = rng.randint(0, 2)
        elif keyword in ("allOf", "anyOf", "oneOf"):
            node[keyword] = [child() for _ in range(rng.randint(1, 3))]
        elif keyword == "not":
            node["not"] = child()
        elif keyword == "if":
            node["if"], node["then"] = child(), child()
            if rng.random() < 0.5:
                node["else"] = child()
        elif keyword == "dependentRequired":
            node["dependentRequired"] = {"a": ["b"]}
        elif keyword == "propertyNames":
            node["propertyNames"] = {"pattern": "^k"}
        elif keyword == "ref":
            node["$ref"] = rng.choice(
                ["#/$defs/leaf", "#/$defs/object"] + (["#"] if under_container else [])
            )
    return node


def document(rng: random.Random) -> dict[str, Any]:
    """A root schema with the definitions its references name (one of them a reference, so
    that a reference to a reference is followed)."""
    root = schema(rng)
    if root is True or root is False:  # a schema document is a mapping
        root = {"allOf": [root]}
    defs = {
        "leaf": rng.choice(
            [
                {"type": "string", "minLength": 1},
                {"enum": ["a", 1, None]},
                {"type": "integer"},
                True,
            ]
        ),
        "object": {"$ref": "#/$defs/named"},
        "named": {
            "type": "object",
            "required": ["a"],
            "properties": {"k1": {"$ref": "#"}, "a": {"type": "integer"}},
        },
    }
    return {**root, "$defs": defs}


def test_the_generated_check_finds_what_the_closures_find():
    keywords_met: set[str] = set()
    for seed in range(SEEDS):
        rng = random.Random(seed)
        doc = document(rng)
        generated, closures = written(doc), validator_for(doc, generated=False)
        assert closures.source is None and not closures.generated
        for _ in range(ANSWERS):
            answer = (
                value(rng)
                if rng.random() < 0.4
                else {key: value(rng, 1) for key in rng.sample(KEYS, rng.randint(1, 8))}
            )
            found = generated.check(answer)
            assert found == closures.check(answer), (seed, doc, answer, generated.source)
            keywords_met.update(v.keyword for v in found.violations)
    # the answers break the schemas in every way the generator writes or calls
    assert keywords_met >= {
        "type",
        "enum",
        "const",
        "minimum",
        "maximum",
        "exclusiveMinimum",
        "exclusiveMaximum",
        "minLength",
        "maxLength",
        "pattern",
        "multipleOf",
        "required",
        "additionalProperties",
        "minItems",
        "maxItems",
        "minProperties",
        "maxProperties",
        "uniqueItems",
        "contains",
        "maxContains",
        "anyOf",
        "oneOf",
        "not",
        "false",
        "dependentRequired",
        "propertyNames",
    }


def written(schema: Any) -> Any:
    """The schema's validator, its check written out as Python now (a validator writes it
    only once its checks have cost what writing it does)."""
    validator = validator_for(schema)
    assert validator.source is not None and validator.generated
    return validator


INVOICE = {
    "$defs": {
        "item": {
            "type": "object",
            "additionalProperties": False,
            "required": ["sku", "qty"],
            "properties": {
                "sku": {"type": "string", "pattern": "^SKU-[0-9]+$"},
                "qty": {"type": "integer", "minimum": 1},
            },
        }
    },
    "type": "object",
    "required": ["id", "items"],
    "properties": {
        "id": {"type": "string", "minLength": 3},
        "currency": {"enum": ["EUR", "USD"]},
        "items": {"type": "array", "items": {"$ref": "#/$defs/item"}},
    },
}


def test_the_text_is_a_function_per_node_with_a_loop_and_its_scalars_inline():
    source = written(INVOICE).source
    # the root, the array and the item: three functions; the reference to the item is its
    # function, not a fourth one that calls it; the scalars' checks are written inline
    assert re.findall(r"^def (\w+)", source, re.M) == ["node0", "node1", "node2"]
    assert "node2(v1, (place, i1), found)" in source
    assert "if not len(v1) >= c" in source and ".search(v1) is None" in source
    # a string's ``type`` is decided where the branch reads the type: nothing left to test
    assert "found.append(((place, k1), 'minLength'))" in source
    compile(source, "<read back>", "exec")  # the text printed is the text that runs


def test_nothing_from_the_schema_is_written_into_the_text():
    hostile = "a'): __import__('os')._exit(3) #"
    schema = {
        "type": "object",
        "required": [hostile],
        "properties": {
            hostile: {"type": "string", "pattern": "'\\)\n#", "enum": [hostile]},
            **{f"p{i}": {"const": hostile} for i in range(20)},
        },
    }
    validator = written(schema)
    assert hostile not in validator.source and "__import__" not in validator.source
    assert "'\\)\n#" not in validator.source
    # 1 is no string and not the enum's one value; "x" is not p4's const, ``hostile`` is p3's
    found = validator.check({hostile: 1, "p3": hostile, "p4": "x"})
    assert [(v.path, v.keyword) for v in found.violations] == [
        (f'["{hostile}"]', "type"),
        (f'["{hostile}"]', "enum"),
        ("p4", "const"),
    ]


def test_an_object_of_many_properties_is_dispatched_by_a_table():
    # more properties than CHAIN_KEYS: a dict from each key to its node's function
    schema = {
        "type": "object",
        "additionalProperties": False,
        "properties": {
            f"k{i}": {"type": "object", "properties": {"n": {"type": "integer"}}}
            for i in range(conformance_code.CHAIN_KEYS + 1)
        },
    }
    validator = written(schema)
    assert ".get(k1)" in validator.source
    found = validator.check({"k0": {"n": "x"}, "zz": 1, f"k{conformance_code.CHAIN_KEYS}": []})
    assert [(v.path, v.keyword) for v in found.violations] == [
        ("k0.n", "type"),
        ("zz", "additionalProperties"),
        ("k12", "type"),
    ]


def test_a_long_chain_of_references_is_called_not_inlined():
    # d0 -> d1 -> ... -> d199, each a string's bound and a reference to the next: the text
    # inlines a few levels and calls the rest, so writing it never recurses deeply
    n = 200
    defs = {
        f"d{i}": {"type": "string", "minLength": i % 3, "$ref": f"#/$defs/d{i + 1}"}
        for i in range(n - 1)
    }
    defs[f"d{n - 1}"] = {"type": "string", "maxLength": 2}
    schema = {"$defs": defs, "type": "object", "properties": {"s": {"$ref": "#/$defs/d0"}}}
    validator = written(schema)
    assert validator.source.count("\ndef ") >= n // conformance_code.INLINE_DEPTH
    for answer in ({"s": "abc"}, {"s": 3}, {"s": ""}):
        assert validator.check(answer) == validator_for(schema, generated=False).check(answer)
    assert [(v.path, v.keyword) for v in validator.check({"s": "abc"}).violations] == [
        ("s", "maxLength")
    ]


@pytest.mark.parametrize(
    ("schema", "answer", "says"),
    [
        ({"type": "integer"}, 2.0, []),  # a whole float is an integer
        ({"type": "integer"}, 2.5, [("$", "type")]),
        ({"type": "integer", "minimum": 3}, 2.0, [("$", "minimum")]),
        ({"type": "integer"}, True, [("$", "type")]),  # a boolean is no number
        ({"enum": [1, "a"]}, 1.0, []),  # JSON-equal
        ({"enum": [1, "a"]}, True, [("$", "enum")]),
        ({"enum": [[1], {"a": 1}]}, {"a": 1.0}, []),
        ({"const": {"a": [1]}}, {"a": [1, 2]}, [("$", "const")]),
        ({"type": "string", "nullable": True}, None, []),
        ({"type": ["string", "null"]}, Unread(), [("$", "type")]),
        ({"maxLength": 2}, "é€x", [("$", "maxLength")]),  # characters, not bytes
        ({"required": ["a"], "properties": {"a": False}}, {"a": 1}, [("a", "false")]),
    ],
)
def test_each_keyword_as_the_rules_say(schema, answer, says):
    found = written(schema).check(answer)
    assert [(v.path, v.keyword) for v in found.violations] == says
    assert found == validator_for(schema, generated=False).check(answer)


def test_the_code_is_written_once_the_checks_have_cost_what_writing_it_does():
    # a schema checked once (a match_json call) keeps the closures: writing and compiling
    # the code costs several times compiling the schema, for one answer
    schema = {"type": "object", "properties": {f"k{i}": {"type": "integer"} for i in range(300)}}
    answer = {f"k{i}": i for i in range(300)}
    validator = validator_for(schema)
    first = validator.check(answer)
    assert not validator.generated
    # checked again and again, it writes the code before long (the closures' time adds up)
    # and finds what the closures found
    for _ in range(1_000_000):
        if validator.generated:
            break
        validator.check(answer)
    assert validator.generated and validator.check(answer) == first == VALID
    bad = {"k1": "x", "k299": 1.5}
    assert validator.check(bad) == validator_for(schema, generated=False).check(bad)


def test_a_deep_answer_against_a_recursive_schema_in_the_written_code():
    # test_conformance.py checks this one answer with the closures; here the written code,
    # a call a level, is given the room the answer needs by match_json too
    schema = {
        "$defs": {
            "n": {
                "type": "object",
                "properties": {"a": {"$ref": "#/$defs/n"}, "x": {"type": "integer"}},
            }
        },
        "$ref": "#/$defs/n",
    }
    written(schema)  # the validator match_json takes from the cache, its code written
    value: dict = {"x": "deep"}
    for _ in range(1_900):  # below the door's 2,000 levels
        value = {"a": value}
    result = match_json(value, value, metric="json_similarity", schema=schema)
    assert [(v.path.count("a"), v.keyword) for v in result.conformance.violations] == [
        (1_900, "type")
    ]
