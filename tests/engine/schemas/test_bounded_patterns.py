"""Nothing in a schema or an option can hang a comparison (issue 55): schema patterns are
searched under a time budget (engine/schemas/patterns.py), a pattern past it is a SchemaError
naming the node and the pattern for that comparison alone; the validator's own entry points
take any depth the door reads; round_digits' digits have a range."""

from __future__ import annotations

import pytest

from pytest_jsonmatch import ConfigError, SchemaError, evaluate_records, match_json
from pytest_jsonmatch.engine.reading.intake import MAX_DEPTH
from pytest_jsonmatch.engine.schemas.conformance import validator_for
from pytest_jsonmatch.engine.schemas.patterns import PatternTimeout
from tests.helpers.timeout import GENEROUS, within

NESTED_PLUS = "^(a+)+$"
WORDS = r"^(\w+\s?)*$"
ALTERNATION = "^(a|aa)+$"  # backtracks exponentially in the regex package too
A34 = "a" * 34 + "!"


def string_pattern(pattern: str) -> dict:
    return {"type": "object", "properties": {"a": {"type": "string", "pattern": pattern}}}


def key_pattern(pattern: str) -> dict:
    return {"type": "object", "patternProperties": {pattern: {"type": "integer"}}}


def name_pattern(pattern: str) -> dict:
    return {"type": "object", "propertyNames": {"pattern": pattern}}


# The issue's reproducers: each used to run for longer than 10 s (the first two without end).
@pytest.mark.parametrize("generated", [False, True])
@pytest.mark.parametrize(
    ("schema", "answer", "keywords"),
    [
        (string_pattern(NESTED_PLUS), {"a": A34}, ["pattern"]),
        (string_pattern(WORDS), {"a": A34}, ["pattern"]),
        (key_pattern(NESTED_PLUS), {A34: "x"}, []),  # no key matches: the schema is not applied
        (key_pattern(NESTED_PLUS), {"aaaa": "x"}, ["type"]),
        (name_pattern(ALTERNATION), {"a" * 34: 1}, []),
    ],
)
def test_the_issues_catastrophic_patterns_give_their_verdict(schema, answer, keywords, generated):
    with within(GENEROUS):
        validator = validator_for(schema, generated=generated)
        if generated:
            assert validator.source is not None  # the written code, not the closures
        found = [v.keyword for v in validator.check(answer).violations]
    assert found == keywords


@pytest.mark.parametrize("generated", [False, True])
@pytest.mark.parametrize(
    ("schema", "answer", "node"),
    [
        (name_pattern(ALTERNATION), {"a" * 100 + "!": 1}, "#/propertyNames/pattern"),
        (string_pattern(ALTERNATION), {"a": "a" * 100 + "!"}, "#/properties/a/pattern"),
        (key_pattern(ALTERNATION), {"a" * 100 + "!": 1}, "#/patternProperties"),
    ],
)
def test_a_pattern_past_its_budget_is_a_schema_error_naming_node_and_pattern(
    schema, answer, node, generated
):
    validator = validator_for(schema, generated=generated)
    if generated:
        assert validator.source is not None
    with within(GENEROUS), pytest.raises(PatternTimeout) as info:
        validator.check(answer)
    assert isinstance(info.value, SchemaError)
    assert node in str(info.value)
    assert repr(ALTERNATION) in str(info.value)


def test_match_json_with_a_catastrophic_pattern_raises_the_projects_error():
    with within(GENEROUS), pytest.raises(SchemaError, match=r"\^\(a\|aa\)\+\$"):
        match_json({"a": "a" * 100 + "!"}, {"a": "x"}, schema=string_pattern(ALTERNATION))


def test_evaluate_records_with_a_catastrophic_pattern_raises_the_projects_error():
    # (jsonmatch score scores the other lines: tests/cli/test_bounded_inputs.py)
    expected = [{"a": "aa"}, {"a": "aa"}]
    actual = [{"a": "aa"}, {"a": "a" * 100 + "!"}]
    with within(GENEROUS), pytest.raises(PatternTimeout):
        evaluate_records(expected, actual, schema=string_pattern(ALTERNATION))


def test_a_pattern_python_cannot_read_is_still_refused_when_compiled():
    with pytest.raises(SchemaError, match="is not a regular expression"):
        validator_for(string_pattern("(unclosed"))


def test_lookaround_and_backreferences_are_read():
    schema = string_pattern(r"^(?=.*\d)(\w)\1")
    validator = validator_for(schema, generated=False)
    assert validator.check({"a": "aa1"}).valid
    assert [v.keyword for v in validator.check({"a": "ab1"}).violations] == ["pattern"]
    assert [v.keyword for v in validator.check({"a": "aab"}).violations] == ["pattern"]


@pytest.mark.parametrize("generated", [False, True])
def test_the_validator_takes_an_answer_as_deep_as_the_door_reads(generated):
    schema = {"type": "object", "properties": {"a": {"$ref": "#"}}}
    answer: object = "leaf"
    for _ in range(MAX_DEPTH):
        answer = {"a": answer}
    validator = validator_for(schema, generated=generated)
    if generated:
        assert validator.source is not None
    with within(GENEROUS):
        conformance = validator.check(answer)
    # the innermost value, a string, breaks ``type: object``
    assert [v.keyword for v in conformance.violations] == ["type"]
    assert conformance.violations[0].path == ".".join(["a"] * MAX_DEPTH)


@pytest.mark.parametrize("digits", [10**4 + 1, -(10**4) - 1, -(10**30), 10**30])
def test_round_digits_outside_its_range_is_a_config_error_naming_the_range(digits):
    fields = {"a": {"transform": {"round_digits": {"digits": digits}}}}
    with within(GENEROUS), pytest.raises(ConfigError) as info:
        match_json({"a": 5}, {"a": 5}, fields=fields)
    assert "digits must be an integer from -10,000 to 10,000" in str(info.value)
    assert "fields['a']" in str(info.value)
