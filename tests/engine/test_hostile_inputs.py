"""The inputs and options of issue 19, one reproducer per class: each ends in a score in
[0, 1] or in the project's own error naming the option, the path or the file, in bounded
time. (The fuzz harness covers the same classes at random; these pin the decisions.)"""

from __future__ import annotations

import json
import os

import numpy as np
import pytest

from pytest_jsonmatch import (
    ConfigError,
    JsonMatchError,
    ParseError,
    SchemaError,
    annotate_schema,
    assert_json_match,
    infer_schema,
    match_json,
    register_comparator,
    validate_gold,
)
from pytest_jsonmatch.engine.core.paths import PathPattern
from tests.helpers.timeout import GENEROUS, within

METRICS = ("field_match", "field_match_normalized", "json_similarity", "structural_f1", "field_f1")
BIG = 10**400  # valid JSON, beyond any float
HUGE = 10**5000  # beyond what repr and json.dumps write (4,300 digits)


# -- integers beyond float range compare exactly ------------------------------------------


@pytest.mark.parametrize("metric", METRICS)
def test_a_huge_integer_compares_with_itself_and_with_others_without_overflow(metric):
    assert match_json({"a": BIG}, {"a": BIG}, metric=metric).score == 1.0
    assert match_json({"a": 1}, {"a": BIG}, metric=metric).score == 0.0
    text = '{"a": 1' + "0" * 400 + "}"
    assert match_json(text, text, metric=metric).score == 1.0


def test_huge_integers_keep_their_exact_differences():
    # json_similarity's relative score: 1 - |e - a| / |e| = 1 - 1 / 10**400, which rounds to 1.0
    # in a float; BIG + BIG: 1 - BIG / BIG = 0. They are scored in exact arithmetic, and only
    # the score is rounded.
    assert match_json({"a": BIG + 1}, {"a": BIG}, metric="json_similarity").score == 1.0
    assert match_json({"a": 2 * BIG}, {"a": BIG}, metric="json_similarity").score == 0.0
    # half of BIG off: 1 - 0.5 = 0.5 exactly
    assert match_json({"a": BIG + BIG // 2}, {"a": BIG}, metric="json_similarity").score == 0.5
    # structeval's threshold numbers: |BIG+1 - BIG| = 1 > 0.001: 0; structural F1 of 1 leaf = 0
    assert match_json({"a": BIG + 1}, {"a": BIG}, metric="structural_f1").score == 0.0
    # a tolerance in field_f1: |difference| 1 <= abs 2: equal
    assert (
        match_json(
            {"a": BIG + 1}, {"a": BIG}, metric="field_f1", fields={"a": {"tolerance": {"abs": 2}}}
        ).score
        == 1.0
    )


def test_huge_integers_in_paired_arrays_score_through_the_exact_path():
    # arrays of numbers are paired through NumPy matrices; a huge integer takes the pair-by-pair
    # path. Expected [BIG, 1, 2], actual [2, 1, BIG]: each finds its equal, F1 = 1.
    result = match_json({"a": [2, 1, BIG]}, {"a": [BIG, 1, 2]}, metric="structural_f1")
    assert result.score == 1.0
    result = match_json(
        {"a": [{"n": 2}, {"n": BIG}]},
        {"a": [{"n": BIG}, {"n": 2}]},
        metric="field_f1",
        align="hungarian",
    )
    assert result.score == 1.0


# -- option values --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("metric", "options", "named"),
    [
        ("structural_f1", {"numeric_threshold": BIG}, "numeric_threshold"),
        (
            "structural_f1",
            {"numeric_weighting": float("nan")},
            "numeric_threshold / numeric_weighting",
        ),
        ("structural_f1", {"numeric_threshold": HUGE}, "not an integer of about 5,001 digits"),
        (
            "field_f1",
            {"fields": {"a": {"tolerance": HUGE}}},
            "not an integer of about 5,001 digits",
        ),
        (
            "field_f1",
            {"fields": {"a": {"comparator": {"oneof": {"values": HUGE}}}}},
            "needs values: a list, not an integer of about 5,001 digits",
        ),
        ("structural_f1", {"beta": BIG}, "beta"),
        ("structural_f1", {"beta": -1}, "beta"),
        ("structural_f1", {"array_matching_threshold": BIG}, "array_matching_threshold"),
        ("field_f1", {"fields": {"a": {"tolerance": BIG}}}, "fields['a']"),
        ("field_f1", {"fields": {"a": {"min_score": BIG}}}, "fields['a']: min_score"),
        ("field_f1", {"fields": {"a": {"weight": BIG}}}, "fields['a']: weight"),
        ("field_f1", {"ignore": 5}, "ignore must be a path pattern or a list of them, not 5"),
        ("field_f1", {"ignore": [5]}, "ignore must be a path pattern or a list of them"),
        ("field_f1", {"ignore": 0}, "ignore must be a path pattern or a list of them, not 0"),
        ("field_f1", {"fields": []}, "fields must map path patterns to settings, not []"),
        (
            "field_f1",
            {"fields": {1: {"skip": True}}},
            "fields: a key is a path pattern (a string), not 1",
        ),
        (
            "field_f1",
            {"fields": {"a": {"transform": {"round_digits": {"digits": "x"}}}}},
            "digits must be an integer",
        ),
    ],
)
def test_an_option_of_the_wrong_kind_or_size_is_a_config_error_naming_it(metric, options, named):
    with pytest.raises(ConfigError) as info:
        match_json({"a": 1.5}, {"a": 1.5}, metric=metric, **options)
    assert named in str(info.value)


def test_round_digits_at_the_ends_of_its_range_is_quick():
    with within(GENEROUS):
        for digits in (-(10**4), 10**4):
            result = match_json(
                {"a": 1.5, "b": BIG},
                {"a": 1.5, "b": BIG},
                metric="field_f1",
                fields={"*": {"transform": {"round_digits": {"digits": digits}}}},
            )
            assert result.score == 1.0


@pytest.mark.parametrize("threshold", ["0.5", "abc", BIG, float("nan"), 2, -0.1, None.__class__])
def test_assert_json_match_refuses_a_threshold_outside_the_unit_interval(threshold):
    with pytest.raises(ConfigError, match="threshold must be a number in"):
        assert_json_match({"a": 1}, {"a": 1}, threshold=threshold)


def test_a_threshold_too_long_to_print_is_described_and_the_attempt_recorded():
    from pytest_jsonmatch.session import channel as recording

    outcomes: list = []
    previous = recording.activate(outcomes.append)
    try:
        with pytest.raises(ConfigError, match="not an integer of about 5,001 digits"):
            assert_json_match({}, {}, threshold=10**5000)
    finally:
        recording.activate(previous)
    # every attempt counts: the refused threshold is an error in the summary, not nothing
    assert [o.error for o in outcomes] == [
        "threshold must be a number in [0, 1], not an integer of about 5,001 digits"
    ]


# -- keys, numpy values ---------------------------------------------------------------------


@pytest.mark.parametrize("metric", METRICS)
@pytest.mark.parametrize("key", [1, (1, 2), None])
def test_a_key_that_is_not_a_string_is_a_parse_error_naming_the_path(metric, key):
    with pytest.raises(ParseError, match=r"\$: key .* is not a string"):
        match_json({key: 1}, {key: 1}, metric=metric)
    with pytest.raises(ParseError, match=r"a\[0\]: key .* is not a string"):
        match_json({"a": [{key: 0, "b": 0}] * 21}, {"a": [{key: 0, "b": 0}] * 21}, metric=metric)


@pytest.mark.parametrize("metric", METRICS)
def test_numpy_values_read_as_the_json_values_they_hold(metric):
    # np.bool_ is a boolean, never the number 2**63; an array is a list
    assert match_json({"a": np.bool_(True)}, {"a": 2**63}, metric=metric).score == 0.0
    assert match_json({"a": np.bool_(True)}, {"a": True}, metric=metric).score == 1.0
    assert match_json({"a": [np.array([1, 2])]}, {"a": [[1, 2]]}, metric=metric).score == 1.0
    with pytest.raises(ParseError, match="inf .* is not a JSON number"):
        match_json({"a": np.float64("inf")}, {"a": np.float64("inf")}, metric=metric)


@pytest.mark.parametrize("metric", METRICS)
def test_numpy_values_in_an_ignored_field_still_read_as_json(metric):
    # field_match compares an array whole: the ignored elements keep their places in it (their
    # content never compared), and are the JSON they hold (before: "a: int64 is not a JSON
    # value")
    def value():
        return {"a": [np.int64(0)], "b": np.array([1, 2])}

    assert match_json(value(), value(), metric=metric, ignore=["a[*]", "b[*]"]).score == 1.0


def test_validate_gold_reads_numpy_values_as_infer_schema_does():
    schema = infer_schema([{"a": np.False_, "n": np.int64(3)}])
    assert schema["properties"]["a"]["type"] == "boolean"
    assert validate_gold({"a": np.False_, "n": np.int64(3)}, schema) == []
    with pytest.raises(SchemaError, match="record 0: a is integer, the schema says boolean"):
        validate_gold({"a": np.int64(1), "n": 3}, schema)


# -- batch comparators ------------------------------------------------------------------------


def test_a_batch_comparator_as_structevals_string_evaluator_scores_a_value_with_itself_1():
    calls = []

    def judge(items):
        calls.append(len(items))
        return [1.0 if item.expected == item.actual else 0.0 for item in items]

    register_comparator("test_hostile_judge", judge, batch=True, overwrite=True)
    try:
        value = {"a": "x", "b": [{"c": "y", "d": "z"}, {"c": "w"}], "e": ["p", "q"]}
        result = match_json(
            value, value, metric="structural_f1", string_evaluator="test_hostile_judge"
        )
        assert result.score == 1.0
        # the judge answered once for the record: 2 + 2 candidate pairs' strings of "b"
        # (3 + 3 - ... walked per pair) and the rest; one call, whatever the count
        assert len(calls) == 1
    finally:
        from pytest_jsonmatch import REGISTRY

        REGISTRY.unregister("test_hostile_judge")


# -- schema tools and schema files ----------------------------------------------------------


@pytest.mark.parametrize(
    ("call", "error", "words"),
    [
        (
            lambda: annotate_schema(None),
            SchemaError,
            "a schema is a mapping, a file path or a pydantic",
        ),
        (
            lambda: annotate_schema({}, 5),
            ConfigError,
            "type_defaults maps JSON types to comparators",
        ),
        (
            lambda: annotate_schema({}, {"strin": "exact"}),
            ConfigError,
            "'strin' is not a JSON type",
        ),
        (lambda: annotate_schema({}, {"string": "nope"}), ConfigError, "unknown comparator 'nope'"),
        (lambda: infer_schema({"a": 1}), ConfigError, "takes a list of gold instances, not dict"),
        (lambda: infer_schema("abc"), ConfigError, "takes a list of gold instances, not str"),
        (lambda: infer_schema([]), SchemaError, "needs at least one instance"),
        (lambda: infer_schema([{1: 2}]), ParseError, "key 1 in instance 0 is not a string"),
    ],
)
def test_schema_tools_refuse_what_they_cannot_read(call, error, words):
    with pytest.raises(error, match=words):
        call()


def test_infer_schema_reads_self_containing_and_deep_values_through_the_door():
    cyclic: dict = {}
    cyclic["a"] = cyclic
    with pytest.raises(ParseError, match="contains itself"):
        infer_schema([cyclic])
    deep: object = 1
    for _ in range(1000):
        deep = {"a": deep}
    with within(GENEROUS):
        schema = infer_schema([deep])
    depth = 0
    while schema.get("type") == "object":
        schema, depth = schema["properties"]["a"], depth + 1
    assert (depth, schema) == (1000, {"type": "integer"})


def test_a_schema_as_deep_as_the_values_the_door_reads_is_read():
    # infer_schema of a value 1,500 levels deep gives a schema about 3,000 levels deep
    # ("properties" is a level of its own): annotate_schema, match_json and validate_gold
    # read it (before: "nests too deeply", past a few hundred levels)
    value: dict = {"x": 1}
    for _ in range(1_500):
        value = {"a": value}
    schema = annotate_schema(infer_schema([value]))
    assert match_json(value, value, metric="field_f1", schema=schema).score == 1.0
    assert validate_gold(value, schema) == []


def test_a_schema_nested_beyond_the_doors_bound_is_a_schema_error():
    schema: dict = {"type": "string"}
    for _ in range(2_100):  # 4,201 mapping levels: a schema of a value past MAX_DEPTH (2,000)
        schema = {"type": "object", "properties": {"a": schema}}
    with pytest.raises(SchemaError, match="the schema nests more than 4,010 levels"):
        annotate_schema(schema)
    with pytest.raises(SchemaError, match="the schema nests more than 4,010 levels"):
        match_json({"a": 1}, {"a": 1}, metric="field_f1", schema=schema)


@pytest.mark.parametrize("kind", ["a directory", "a FIFO", "a character device"])
def test_a_schema_path_that_is_not_a_regular_file_is_refused_without_reading(tmp_path, kind):
    if kind == "a directory":
        path = str(tmp_path)
    elif kind == "a FIFO":
        path = str(tmp_path / "pipe.json")
        os.mkfifo(path)
    else:
        path = "/dev/zero"  # reading it would never end
    with within(GENEROUS), pytest.raises(SchemaError) as info:
        match_json({"a": 1}, {"a": 1}, metric="field_f1", schema=path)
    assert str(info.value) == f"schema file {path!r} is not a regular file ({kind})"


def test_a_binary_schema_file_is_a_schema_error_naming_the_byte(tmp_path):
    path = tmp_path / "schema.json"
    path.write_bytes(b'{"type": "object"}\n\xff\xfe')
    with pytest.raises(SchemaError, match=r"is not UTF-8 text: byte 0xff at offset 19 \(line 2\)"):
        match_json({"a": 1}, {"a": 1}, metric="field_f1", schema=str(path))


def test_a_yaml_schema_file_with_nested_aliases_is_refused_quickly(tmp_path):
    # each level doubles the last one: 2**30 values from a file of a few hundred bytes
    lines = ["a0: &a0 {type: string}"]
    lines += [f"a{i}: &a{i} [*a{i - 1}, *a{i - 1}]" for i in range(1, 31)]
    lines.append("type: object")
    path = tmp_path / "bomb.yaml"
    path.write_text("\n".join(lines) + "\n")
    with within(GENEROUS), pytest.raises(SchemaError, match="aliases expand to more than"):
        match_json({"a": 1}, {"a": 1}, metric="field_f1", schema=str(path))


def test_a_yaml_schema_file_takes_the_case_files_safety_rules(tmp_path):
    path = tmp_path / "schema.yaml"
    path.write_text("type: object\nproperties: !!python/object/apply:os.getcwd []\n")
    with pytest.raises(SchemaError, match="tag '!!python/object/apply:os.getcwd' is not allowed"):
        match_json({"a": 1}, {"a": 1}, metric="field_f1", schema=str(path))
    path.write_text("type: object\nproperties:\n  a: {type: string}\n  a: {type: number}\n")
    with pytest.raises(SchemaError, match="duplicate key 'a'"):
        match_json({"a": 1}, {"a": 1}, metric="field_f1", schema=str(path))


# -- patterns and deep values: polynomial time ------------------------------------------------


def test_a_pattern_of_many_double_stars_matches_in_linear_time():
    deep: object = 1
    for _ in range(30):
        deep = {"a": deep}
    with within(GENEROUS):
        result = match_json(
            deep, deep, metric="structural_f1", ignore=["**.**.**.**.**.**.**.**.zzz"]
        )
    assert result.score == 1.0
    pattern = PathPattern("**.b.**.c")
    assert pattern.matches("b.c") and pattern.matches("x.b.y[3].z.c")
    assert not pattern.matches("c.b") and not pattern.matches("b.cc")
    assert PathPattern('**["a.b"][*]').matches('x["a.b"][7]')


def test_hungarian_pairing_of_arrays_nested_deep_is_not_exponential():
    # arrays of two arrays, 10 levels: 1,024 leaves a side. Walking every candidate pair
    # exactly would cost about 4**10 walks; past its budget a candidate is scored by leaf
    # overlap, and the chosen pairs are still walked exactly.
    import random

    def tree(depth, rng):
        if depth == 0:
            return {"x": rng.randint(0, 3), "y": f"s{rng.randint(0, 3)}"}
        return [tree(depth - 1, rng), tree(depth - 1, rng)]

    expected, actual = tree(10, random.Random(1)), tree(10, random.Random(2))
    with within(GENEROUS):
        result = match_json({"a": actual}, {"a": expected}, metric="field_f1", align="hungarian")
    assert 0.0 <= result.score <= 1.0
    assert len([f for f in result.fields if f.status != "skipped"]) >= 2 * 1024
    # a value with itself is still 1 (identical elements pair first)
    assert (
        match_json({"a": expected}, {"a": expected}, metric="field_f1", align="hungarian").score
        == 1.0
    )


def test_a_json_schema_from_text_with_huge_numbers_reads(tmp_path):
    path = tmp_path / "s.json"
    path.write_text(json.dumps({"type": "object", "properties": {"a": {"type": "integer"}}}))
    assert match_json({"a": BIG}, {"a": BIG}, metric="field_f1", schema=str(path)).score == 1.0
    with pytest.raises(JsonMatchError):
        match_json({"a": 1}, {"a": 1}, metric="field_f1", schema=str(tmp_path / "missing.json"))
