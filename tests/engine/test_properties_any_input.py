"""Properties over the inputs a model really returns (hypothesis): over arbitrary JSON pairs
and every metric, no exception other than the project's documented error classes; every score
in [0, 1]; self-comparison scores 1.0; the inputs are not mutated; any text or bytes as a side
is a result or a ParseError.

test_properties.py draws small, tame trees (a few keys, short texts) and checks each metric
against an oracle of its rules. These draw what a model really returns: any Unicode keys and
text (empty, whitespace, control characters, combining marks), big and tiny numbers, booleans
next to 0 and 1, empty containers, raw text around the JSON, every option of alignment.
"""

from __future__ import annotations

import copy
import json
import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pytest_jsonmatch import (
    CaseFileError,
    ComparatorError,
    ConfigError,
    JsonMatchError,
    ParseError,
    SchemaError,
    match_json,
)
from tests.helpers.sweeps import sweep
from tests.helpers.timeout import GENEROUS, within

pytestmark = pytest.mark.slow  # (CONTRIBUTING.md: the inner loop leaves it out)

METRICS = ["field_match", "field_match_normalized", "json_similarity", "structural_f1", "field_f1"]
DOCUMENTED = (JsonMatchError, ParseError, ConfigError, SchemaError, ComparatorError, CaseFileError)

KEYS = st.one_of(
    st.sampled_from(["a", "b", "id", "", " ", "a.b", "[0]", "*", "**", "é", "\u0301"]),
    st.text(max_size=6),
)
TEXT = st.one_of(
    st.text(max_size=12), st.sampled_from(["", " ", "A\u0301", "Á", "ß", "SS", "{", "}", '"'])
)
NUMBERS = st.one_of(
    st.integers(min_value=-(10**20), max_value=10**20),
    st.floats(allow_nan=False, allow_infinity=False),
    st.sampled_from([0, 0.0, -0.0, 1, 1.0, 1e-13, 5e-324, 1.7976931348623157e308]),
)
SCALARS = st.one_of(st.none(), st.booleans(), NUMBERS, TEXT)
JSON = st.recursive(
    SCALARS,
    lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(KEYS, inner, max_size=4)),
    max_leaves=14,
)
OBJECTS = st.dictionaries(KEYS, JSON, max_size=5)
TOP = st.one_of(OBJECTS, st.lists(JSON, max_size=4))
OPTIONS = st.sampled_from(
    [{}, {"align": "hungarian"}, {"align": {"match_by": "key_field", "key": "id"}}]
)

SETTINGS = sweep(60)


def _options(metric: str, options: dict) -> dict:
    return options if metric == "field_f1" else {}


def _in_unit(x) -> bool:
    return isinstance(x, (int, float)) and not math.isnan(x) and 0.0 <= x <= 1.0


def _check(result) -> None:
    assert _in_unit(result.score)
    assert _in_unit(result.precision) and _in_unit(result.recall) and _in_unit(result.f1)
    for f in result.fields:
        assert _in_unit(f.score), f


def _run(actual, expected, metric, **options):
    """match_json within the bound: a result, or None when a documented error was raised.
    Anything else (KeyError, TypeError, RecursionError, ...) fails the property."""
    with within(GENEROUS, f"match_json under {metric}"):
        try:
            return match_json(actual, expected, metric=metric, **options)
        except DOCUMENTED:
            return None


@pytest.mark.parametrize("metric", METRICS)
@SETTINGS
@given(expected=TOP, actual=TOP, options=OPTIONS)
def test_arbitrary_pairs_raise_only_documented_errors_and_score_in_unit_interval(
    metric, expected, actual, options
):
    result = _run(actual, expected, metric, **_options(metric, options))
    if result is not None:
        _check(result)


@pytest.mark.parametrize("metric", METRICS)
@SETTINGS
@given(value=OBJECTS, options=st.sampled_from([{}, {"align": "hungarian"}]))
def test_an_object_against_itself_scores_one(metric, value, options):
    result = _run(copy.deepcopy(value), value, metric, **_options(metric, options))
    assert result is not None
    assert result.score == 1.0, [
        (f.path, f.status, f.score) for f in result.fields if f.status != "match"
    ]


@pytest.mark.parametrize("metric", ["structural_f1", "field_f1"])
@SETTINGS
@given(value=st.lists(JSON, max_size=4))
def test_a_top_level_array_against_itself_scores_one(metric, value):
    result = _run(copy.deepcopy(value), value, metric)
    assert result is not None and result.score == 1.0


@pytest.mark.parametrize("metric", METRICS)
@SETTINGS
@given(value=OBJECTS, prose=st.sampled_from(["", "Sure! Here it is:\n", "```json\n"]))
def test_an_object_against_its_own_json_text_scores_one(metric, value, prose):
    closing = "\n```" if prose.startswith("```") else ""
    text = prose + json.dumps(value) + closing
    result = _run(text, json.dumps(value), metric)
    assert result is not None and result.score == 1.0


@pytest.mark.parametrize("metric", METRICS)
@SETTINGS
@given(expected=TOP, actual=TOP, options=OPTIONS)
def test_inputs_are_not_mutated(metric, expected, actual, options):
    before_e, before_a = copy.deepcopy(expected), copy.deepcopy(actual)
    dump_e, dump_a = json.dumps(expected), json.dumps(actual)  # tells 1 from true and 1.0
    _run(actual, expected, metric, **_options(metric, options))
    assert expected == before_e and actual == before_a
    assert json.dumps(expected) == dump_e and json.dumps(actual) == dump_a


@pytest.mark.parametrize("metric", METRICS)
@SETTINGS
@given(text=st.text(max_size=200))
def test_arbitrary_text_as_actual_is_a_result_or_a_parse_error(metric, text):
    with within(GENEROUS):
        try:
            result = match_json(text, {"a": 1}, metric=metric)
        except ParseError as exc:  # no object, or an answer cut off inside its JSON value
            assert str(exc).startswith(("no JSON object found in actual: ", "actual was cut off: "))
        else:
            _check(result)


@pytest.mark.parametrize("metric", METRICS)
@SETTINGS
@given(data=st.binary(max_size=200))
def test_arbitrary_bytes_as_either_side_raise_only_parse_errors(metric, data):
    with within(GENEROUS):
        for actual, expected in ((data, {"a": 1}), ({"a": 1}, data)):
            try:
                _check(match_json(actual, expected, metric=metric))
            except ParseError:
                pass
