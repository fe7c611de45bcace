"""Transforms (engine/comparing/transforms.py): each built-in one makes equal what it should, applied to
both sides, chained left to right, the built-in ones skipped for null and for a value of another type; set in the
schema (x-eval-transform) or through the fields option."""

from __future__ import annotations

import pytest

from pytest_jsonmatch import REGISTRY, match_json, register_comparator, register_transform
from tests.helpers.one_field import leaf


@pytest.mark.parametrize(
    "transform, expected, actual",
    [
        ("lowercase", "abc", "ABC"),
        ("strip", "abc", "  abc \n"),
        ("normalize_whitespace", "a b c", "a   b\n\t c "),
        ("sort_tokens", "alpha beta gamma", "gamma alpha beta"),
        ("strip_accents", "Jose", "José"),
        ({"round_digits": {"digits": 2}}, 3.14, 3.14159),
    ],
)
def test_transform_makes_values_equal(transform, expected, actual):
    type_ = "number" if isinstance(expected, float) else "string"
    # without the transform the values differ
    assert leaf(actual, expected, type_=type_)[1] == 0.0
    assert leaf(actual, expected, transform=[transform], type_=type_)[1] == 1.0


def test_transforms_apply_to_both_sides():
    assert leaf("ABC", "Abc", transform=["lowercase"]) == ("match", 1.0)


def test_transforms_chain():
    assert leaf("  ABC  ", "abc", transform=["strip", "lowercase"]) == ("match", 1.0)


def test_transforms_chain_left_to_right():
    seen = []

    def append_x(value, params):
        return value + "X"

    def record(e, a, params):
        seen.append((e, a))
        return 1.0

    register_transform("test_append_x", append_x)
    register_comparator("test_record", record)
    try:
        leaf("b", "A", compare="test_record", transform=["test_append_x", "lowercase"])
    finally:
        REGISTRY.unregister("test_append_x")
        REGISTRY.unregister("test_record")
    # append first, then lowercase: "A" -> "AX" -> "ax"; the other order would give "aX"
    assert seen == [("ax", "bx")]


def test_string_transform_leaves_a_number_as_it_is():
    assert leaf(5, 5, transform=["lowercase"], type_="integer") == ("match", 1.0)


def test_string_transform_against_a_number_is_a_mismatch_not_an_error():
    assert leaf(5, "ABC", transform=["lowercase", "strip"]) == ("mismatch", 0.0)


def test_round_digits_leaves_a_string_as_it_is():
    assert leaf("3.14159", "3.14159", transform=[{"round_digits": {"digits": 2}}]) == ("match", 1.0)


def test_registered_transforms_are_called_on_null():
    # extract-eval calls its custom transforms on null (issue 29, item 5c); the built-in ones
    # leave null alone (test_builtin_transform_on_null_is_not_an_error)
    calls = []

    def spy(value, params):
        calls.append(value)
        return value

    register_transform("test_spy", spy)
    try:
        assert leaf(None, None, transform=["test_spy"]) == ("match", 1.0)
        assert leaf(None, "x", transform=["test_spy", "lowercase"])[1] == 0.0
    finally:
        REGISTRY.unregister("test_spy")
    assert sorted(calls, key=repr) == ["x", None, None, None]


def test_builtin_transform_on_null_is_not_an_error():
    assert leaf(None, "ABC", transform=["lowercase", "strip", "sort_tokens"]) == ("mismatch", 0.0)


def test_transform_in_fields_option():
    result = match_json(
        {"a": "HELLO"},
        {"a": "hello"},
        metric="field_f1",
        fields={"a": {"transform": ["lowercase"]}},
    )
    assert result.score == 1.0


# -- type_convert (extract-eval's) ----------------------------------------------------------------


@pytest.mark.parametrize(
    "to, expected, actual, type_, status",
    [
        ("str", "7", 7, "string", "match"),  # str(7)
        ("str", "True", True, "string", "match"),  # Python's str: True, not true
        ("str", "true", True, "string", "mismatch"),
        ("int", 42, "42", "integer", "match"),
        ("int", 42, " 42 ", "integer", "match"),  # int() ignores surrounding spaces
        ("int", 2, 2.9, "integer", "match"),  # int() truncates
        ("int", 2, "2.5", "integer", "mismatch"),  # int("2.5") fails: the value stays "2.5"
        ("float", 1.5, "1.5", "number", "match"),
        ("float", 1.0, "nan", "number", "mismatch"),  # not a JSON number: left as it is
        ("bool", True, "TRUE", "boolean", "match"),
        ("bool", False, 0, "boolean", "match"),
        ("bool", True, "yes", "boolean", "mismatch"),  # only true/false/1/0
    ],
)
def test_type_convert_converts_both_sides(to, expected, actual, type_, status):
    assert (
        leaf(actual, expected, transform=[{"type_convert": {"to": to}}], type_=type_)[0] == status
    )


@pytest.mark.parametrize(
    "params, message",
    [
        ({}, "transform 'type_convert': to must be one of bool, float, int, str, not None"),
        (
            {"to": "date"},
            "transform 'type_convert': to must be one of bool, float, int, str, not 'date'",
        ),
        ({"to": "int", "base": 2}, "transform 'type_convert' knows only 'to', got ['base']"),
    ],
)
def test_type_convert_parameters_are_checked(params, message):
    from pytest_jsonmatch import SchemaError

    with pytest.raises(SchemaError) as info:
        leaf("1", 1, transform=[{"type_convert": params}], type_="integer")
    assert str(info.value) == f"schema node v: {message}"
