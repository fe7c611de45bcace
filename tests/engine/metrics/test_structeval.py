"""structeval as its users write it (engine/metrics/structural_f1.py): its configuration keys as
structural_f1's options, unchanged, and its JSON Schema through schema= (values checked,
properties it does not list dropped or refused, x-override-evaluator, enums binary)."""

from __future__ import annotations

import pytest

from pytest_jsonmatch import ConfigError, SchemaError, match_json

BINARY = {"evaluation_type": "binary"}


def sf(actual, expected, **options):
    return match_json(actual, expected, metric="structural_f1", **options)


def scores(result):
    return [(f.path, f.status, round(f.score, 4)) for f in result.fields]


# -- the configuration --------------------------------------------------------------------------


def test_a_structeval_config_file_is_taken_as_options_unchanged():
    config = {
        "string_evaluation_type": {"evaluation_type": "binary"},
        "number_evaluation_type": {
            "evaluation_type": "threshold",
            "evaluation_params": {"threshold": 10, "difference_penalty_weighting": 1},
        },
        "array_matching_threshold": 0.4,
    }
    result = sf(
        {"name": "Acme Corp", "n": 104, "tags": ["x", "y"]},
        {"name": "Acme", "n": 100, "tags": ["y", "z"]},
        **config,
    )
    # name: binary, 0. n: |104 - 100| = 4 <= 10, 1 - (4/10)^(1/1) = 0.6. tags: y pairs y (1.0 > 0.4);
    # z and x score 0 and stay unpaired (x named by its actual index)
    assert scores(result) == [
        ("name", "mismatch", 0.0),
        ("n", "mismatch", 0.6),
        ("tags[0]", "match", 1.0),
        ("tags[1]", "omission", 0.0),
        ("tags[0]", "hallucination", 0.0),
    ]
    # TP = 1.6 over 4 leaves each side
    assert result.score == pytest.approx(1.6 / 4)


def test_true_against_one_is_one_when_booleans_and_numbers_are_both_binary():
    assert (
        sf({"a": True}, {"a": 1}).score == 0.0
    )  # the defaults: binary booleans, threshold numbers
    assert sf({"a": True}, {"a": 1}, number_evaluation_type=BINARY).score == 1.0
    assert sf({"a": 1}, {"a": True}, number_evaluation_type=BINARY).score == 1.0
    assert (
        sf({"a": 1.0}, {"a": True}, integer_evaluation_type=BINARY).score == 0.0
    )  # a float: threshold


def test_integer_and_float_evaluation_types_apply_to_their_kind():
    options = {
        "integer_evaluation_type": BINARY,
        "float_evaluation_type": {
            "evaluation_type": "threshold",
            "evaluation_params": {"threshold": 1},
        },
    }
    result = sf({"i": 11, "f": 10.5, "mixed": 10.5}, {"i": 10, "f": 10.0, "mixed": 10}, **options)
    # i: two integers, binary: 0. f: two floats, 1 - 0.5^1 = 0.5. mixed: an integer and a float
    # take the float evaluator: 0.5
    assert scores(result) == [
        ("i", "mismatch", 0.0),
        ("f", "mismatch", 0.5),
        ("mixed", "mismatch", 0.5),
    ]


def test_threshold_weighs_linearly_unless_told_otherwise():
    # structeval's threshold evaluator: difference_penalty_weighting defaults to 1
    result = sf(
        {"n": 2.5},
        {"n": 2.0},
        float_evaluation_type={
            "evaluation_type": "threshold",
            "evaluation_params": {"threshold": 2},
        },
    )
    assert result.fields[0].score == pytest.approx(0.75)  # 1 - (0.5 / 2) ** 1


def test_the_cosine_string_evaluator_uses_the_embedder_option():
    def fake(texts):
        return [{"red": [1.0, 0.0], "crimson": [0.6, 0.8]}[t] for t in texts]

    result = sf(
        {"c": "crimson"},
        {"c": "red"},
        embedder=fake,
        string_evaluation_type={
            "evaluation_type": "cosine",
            "evaluation_params": {"embedding_model": "all-MiniLM-L6-v2"},
        },
    )
    assert scores(result) == [("c", "mismatch", 0.6)]


@pytest.mark.parametrize(
    "options, message",
    [
        (
            {"string_evaluation_type": "binary"},
            "string_evaluation_type must be a mapping {'evaluation_type': ..., 'evaluation_params': {...}}, not 'binary'",
        ),
        (
            {
                "string_evaluation_type": {
                    "evaluation_type": "threshold",
                    "evaluation_params": {"threshold": 1},
                }
            },
            "string_evaluation_type: evaluation_type must be one of binary, jaccard, cosine, not 'threshold'",
        ),
        (
            {"boolean_evaluation_type": {"evaluation_type": "jaccard"}},
            "boolean_evaluation_type: evaluation_type must be one of binary, not 'jaccard'",
        ),
        (
            {"float_evaluation_type": {"evaluation_type": "threshold"}},
            "float_evaluation_type: evaluation_type 'threshold' needs evaluation_params "
            "{'threshold': t, 'difference_penalty_weighting': w}",
        ),
        (
            {
                "float_evaluation_type": {
                    "evaluation_type": "threshold",
                    "evaluation_params": {"threshold": 1, "w": 2},
                }
            },
            "float_evaluation_type: evaluation_type 'threshold' takes no parameter 'w'; known: threshold, "
            "difference_penalty_weighting",
        ),
        (
            {
                "number_evaluation_type": {
                    "evaluation_type": "threshold",
                    "evaluation_params": {"threshold": 0},
                }
            },
            "number_evaluation_type: comparator 'threshold': threshold must be greater than 0",
        ),
        (
            {"number_evaluation_type": {"evaluation_type": "binary", "params": {}}},
            "number_evaluation_type: unknown keys ['params']; known: evaluation_type, evaluation_params",
        ),
        (
            {"string_evaluation_type": BINARY, "string_evaluator": "jaccard"},
            "give string_evaluator or string_evaluation_type, not both",
        ),
        (
            {"number_evaluation_type": BINARY, "numeric_threshold": 0.1},
            "give numeric_threshold or number_evaluation_type, not both",
        ),
    ],
)
def test_a_malformed_configuration_is_a_config_error_naming_the_key(options, message):
    with pytest.raises(ConfigError) as info:
        sf({"a": 1}, {"a": 1}, **options)
    assert str(info.value) == message


def test_existing_option_names_keep_working():
    result = sf(
        {"s": "a b", "n": 1.05},
        {"s": "a c", "n": 1.0},
        string_evaluator="levenshtein",
        numeric_threshold=0.1,
        numeric_weighting=1,
    )
    # s: 1 - 1/3; n: 1 - 0.05 / 0.1
    assert scores(result) == [("s", "mismatch", 0.6667), ("n", "mismatch", 0.5)]


# -- the schema -----------------------------------------------------------------------------------

SCHEMA = {
    "type": "object",
    "properties": {
        "status": {"type": "string", "enum": ["paid", "open", "paid late"]},
        "name": {"type": "string"},
        "code": {"type": "string", "x-override-evaluator": {"evaluation_type": "binary"}},
        "items": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "label": {
                        "type": "string",
                        "x-override-evaluator": {"evaluation_type": "binary"},
                    },
                    "n": {"type": "integer"},
                },
            },
        },
    },
}


def test_enums_compare_binary_and_overrides_apply_at_any_depth():
    expected = {
        "status": "paid",
        "name": "big red box",
        "code": "A B",
        "items": [{"label": "big red", "n": 1}],
    }
    actual = {
        "status": "paid late",
        "name": "big red",
        "code": "A",
        "items": [{"label": "big red box", "n": 1}],
    }
    result = sf(actual, expected, schema=SCHEMA)
    # status: an enum, binary 0 (jaccard would give 1/2); name: jaccard 2/3; code: binary 0;
    # items[0].label: binary 0 (structeval 0.1.1's code misses an override inside arrays and
    # gives Jaccard's 2/3; we do what its README says); n: 1. The pair's similarity is 1/2 > 0.3.
    assert scores(result) == [
        ("status", "mismatch", 0.0),
        ("name", "mismatch", 0.6667),
        ("code", "mismatch", 0.0),
        ("items[0].label", "mismatch", 0.0),
        ("items[0].n", "match", 1.0),
    ]


def test_properties_outside_the_schema_are_dropped_when_additional_properties_is_true():
    schema = {
        "type": "object",
        "additionalProperties": True,
        "properties": {"a": {"type": "string"}},
    }
    result = sf({"a": "x", "extra": 1, "more": {"b": 2}}, {"a": "x", "gone": 5}, schema=schema)
    assert scores(result) == [("a", "match", 1.0)]


@pytest.mark.parametrize(
    "actual, message",
    [
        (
            {"name": "x", "note": 1},
            "actual does not fit the schema: note is not in the schema, whose "
            "additionalProperties is not true",
        ),
        ({"name": 5}, "actual does not fit the schema: name is integer, the schema says string"),
        (
            {"name": "x", "items": [{"label": "a", "n": "one"}]},
            "actual does not fit the schema: items[0].n is string, the schema says integer",
        ),
        (
            {"items": {"label": "a"}},
            "actual does not fit the schema: items is object, the schema says array",
        ),
    ],
)
def test_values_that_do_not_fit_the_schema_are_errors_naming_side_and_path(actual, message):
    with pytest.raises(SchemaError) as info:
        sf(actual, {"name": "x"}, schema=SCHEMA)
    assert str(info.value) == message


def test_expected_is_checked_too():
    with pytest.raises(
        SchemaError, match=r"^expected does not fit the schema: extra is not in the schema"
    ):
        sf({"name": "x"}, {"name": "x", "extra": True}, schema=SCHEMA)


def test_null_is_accepted_and_a_boolean_passes_for_an_integer_as_structeval_checks_it():
    result = sf(
        {"name": None, "items": [{"n": True}]}, {"name": "x", "items": [{"n": 1}]}, schema=SCHEMA
    )
    # null against a value is structural_f1's mismatch; true against 1 under threshold numbers
    # scores 0, so the elements stay unpaired
    assert [(f.path, f.status) for f in result.fields] == [
        ("name", "mismatch"),
        ("items[0].n", "omission"),
        ("items[0].n", "hallucination"),
    ]


def test_an_ignored_field_outside_the_schema_is_not_an_error():
    result = sf(
        {"name": "x", "request_id": "r1"}, {"name": "x"}, schema=SCHEMA, ignore=["request_id"]
    )
    assert scores(result) == [("name", "match", 1.0), ("request_id", "skipped", 0.0)]


def test_override_with_x_eval_compare_on_one_node_is_an_error():
    schema = {
        "type": "object",
        "properties": {
            "a": {"type": "string", "x-eval-compare": "exact", "x-override-evaluator": BINARY}
        },
    }
    with pytest.raises(
        SchemaError, match="^schema node a: give x-override-evaluator or x-eval-compare, not both$"
    ):
        sf({"a": "x"}, {"a": "x"}, schema=schema)


def test_a_malformed_override_names_the_node():
    schema = {
        "type": "object",
        "properties": {
            "a": {"type": "string", "x-override-evaluator": {"evaluation_type": "fuzzy"}}
        },
    }
    with pytest.raises(SchemaError) as info:
        sf({"a": "x"}, {"a": "x"}, schema=schema)
    assert str(info.value) == (
        "schema node a: x-override-evaluator: evaluation_type must be one of binary, "
        "jaccard, cosine, threshold, not 'fuzzy'"
    )


def test_x_override_evaluator_under_another_metric_is_a_warning():
    from pytest_jsonmatch import SchemaWarning

    schema = {
        "type": "object",
        "properties": {"a": {"type": "string", "x-override-evaluator": BINARY}},
    }
    with pytest.warns(
        SchemaWarning, match="x-override-evaluator is structeval's key, read under structural_f1"
    ):
        match_json({"a": "x"}, {"a": "x"}, schema=schema)
