"""Options every metric takes (section 5 of metrics.md): ignore patterns; per-field settings
(min_score, tolerance, comparator, transform) under every metric; a schema under the metrics
that do not need one. A wrong name (option, metric, comparator, transform, field setting,
alignment) is a ConfigError that says where it is and lists the known names."""

from __future__ import annotations

import pytest

from pytest_jsonmatch import ConfigError, JsonMatchError, SchemaError, match_json
from tests.helpers.known_names import (
    assert_lists_builtin_comparators as _assert_lists_builtin_comparators,
)

ALL_METRICS = [
    "field_match",
    "field_match_normalized",
    "json_similarity",
    "structural_f1",
    "field_f1",
]
METRICS = ALL_METRICS  # the same list, under the name some tests here were written with
TRANSFORMS = (
    "lowercase, normalize_whitespace, round_digits, sort_tokens, strip, strip_accents, type_convert"
)
METRIC_LIST = (
    "field_f1, field_match, field_match_normalized, json_similarity, structural_f1, tool_calls, "
    "trajectory"
)


# -- ignore -----------------------------------------------------------------------------------


@pytest.mark.parametrize("metric", ALL_METRICS)
def test_ignored_field_is_skipped_and_counted_nowhere(metric):
    result = match_json({"a": 1, "b": 3}, {"a": 1, "b": 2}, metric=metric, ignore=["b"])
    assert result.score == 1.0
    assert (result.precision, result.recall, result.f1) == (1.0, 1.0, 1.0)
    assert [f.status for f in result.fields if f.path == "b"] in (["skipped"], [])
    assert all(f.status == "skipped" for f in result.fields if f.path.startswith("b"))


@pytest.mark.parametrize("metric", ALL_METRICS)
def test_ignored_missing_field_is_not_an_omission(metric):
    result = match_json({"a": 1}, {"a": 1, "b": 2}, metric=metric, ignore=["b"])
    assert result.score == 1.0
    assert "omission" not in {f.status for f in result.fields}


@pytest.mark.parametrize("metric", ["structural_f1", "field_f1"])
def test_ignored_extra_field_is_not_a_hallucination(metric):
    result = match_json({"a": 1, "b": 2}, {"a": 1}, metric=metric, ignore=["b"])
    assert result.score == 1.0
    assert "hallucination" not in {f.status for f in result.fields}


@pytest.mark.parametrize("metric", ["json_similarity", "structural_f1", "field_f1"])
def test_ignore_double_star_pattern_reaches_any_depth(metric):
    expected = {
        "created_at": 1,
        "a": {"created_at": 2, "v": "x"},
        "l": [{"created_at": 3, "v": "y"}],
    }
    actual = {"created_at": 9, "a": {"created_at": 8, "v": "x"}, "l": [{"created_at": 7, "v": "y"}]}
    result = match_json(actual, expected, metric=metric, ignore=["**.created_at"])
    assert result.score == 1.0
    assert sum(1 for f in result.fields if f.status == "skipped") == 3


@pytest.mark.parametrize("metric", ["json_similarity", "structural_f1", "field_f1"])
def test_ignore_index_wildcard_pattern(metric):
    expected = {"items": [{"sku": "A", "n": 1}, {"sku": "B", "n": 2}]}
    actual = {"items": [{"sku": "X", "n": 1}, {"sku": "Y", "n": 2}]}
    result = match_json(actual, expected, metric=metric, ignore=["items[*].sku"])
    assert result.score == 1.0


def test_ignore_quoted_key_pattern():
    result = match_json(
        {"unit price": 5, "a": 1},
        {"unit price": 4, "a": 1},
        metric="field_f1",
        ignore=['["unit price"]'],
    )
    assert result.score == 1.0


# -- fields: per-field settings -----------------------------------------------------------


def _five(actual_price):
    expected = {"a": 1, "b": 2, "c": 3, "d": 4, "price": 10}
    actual = {"a": 1, "b": 2, "c": 3, "d": 4, "price": actual_price}
    return actual, expected


def test_min_score_failure_fails_the_match_whatever_the_score():
    # F1 = 4/5 = 0.8 passes 0.5, but price scored 0 < its floor 1.0
    actual, expected = _five(11)
    result = match_json(actual, expected, metric="field_f1", fields={"price": {"min_score": 1.0}})
    assert result.score == pytest.approx(0.8)
    assert not result.passed(0.5)
    assert [(f.path, f.min_score, f.score) for f in result.floor_failures] == [("price", 1.0, 0.0)]


def test_min_score_met_does_not_fail():
    actual, expected = _five(10)
    result = match_json(actual, expected, metric="field_f1", fields={"price": {"min_score": 1.0}})
    assert result.floor_failures == ()
    assert result.passed(0.5)


def test_without_min_score_the_same_result_passes():
    actual, expected = _five(11)
    assert match_json(actual, expected, metric="field_f1").passed(0.5)


def test_min_score_on_an_omitted_field_fails():
    result = match_json(
        {"a": 1, "b": 2, "c": 3, "d": 4},
        {"a": 1, "b": 2, "c": 3, "d": 4, "price": 10},
        metric="field_f1",
        fields={"price": {"min_score": 0.5}},
    )
    assert not result.passed(0.5)
    assert [f.path for f in result.floor_failures] == ["price"]


def test_min_score_with_partial_credit_under_json_similarity():
    # name "abcd" vs "abce": 0.75 < 0.8; overall (0.75 + 1)/2 = 0.875
    result = match_json(
        {"name": "abce", "x": 1},
        {"name": "abcd", "x": 1},
        metric="json_similarity",
        fields={"name": {"min_score": 0.8}},
    )
    assert result.score == pytest.approx(0.875)
    assert not result.passed(0.5)
    assert result.floor_failures[0].score == pytest.approx(0.75)


def test_min_score_under_field_match():
    result = match_json(
        {"a": 1, "b": 2, "c": 0},
        {"a": 1, "b": 2, "c": 3},
        metric="field_match",
        fields={"c": {"min_score": 1.0}},
    )
    assert not result.passed(0.5)


def test_tolerance_under_structural_f1_and_json_similarity():
    # tolerance turns the numeric leaf into a binary within-tolerance comparison
    for metric in ("structural_f1", "json_similarity", "field_f1"):
        result = match_json(
            {"t": 20.5}, {"t": 20.3}, metric=metric, fields={"t": {"tolerance": {"abs": 0.25}}}
        )
        assert result.score == 1.0, metric


def test_comparator_under_json_similarity():
    result = match_json(
        {"s": "paris"},
        {"s": "Paris"},
        metric="json_similarity",
        fields={"s": {"comparator": "exact"}},
    )
    assert result.score == 0.0


def test_transform_under_structural_f1():
    result = match_json(
        {"s": "a-b"},
        {"s": "A-B"},
        metric="structural_f1",
        fields={"s": {"transform": ["lowercase"], "comparator": "exact"}},
    )
    assert result.score == 1.0


# -- unknown names ----------------------------------------------------------------------------


def test_unknown_option_is_a_config_error_listing_known_options():
    with pytest.raises(ConfigError) as info:
        match_json({"a": 1}, {"a": 1}, metric="field_f1", ignroe=["a"])
    message = str(info.value)
    assert "ignroe" in message
    for name in ("ignore", "fields", "align", "schema"):
        assert name in message


def test_option_of_another_metric_is_unknown():
    with pytest.raises(ConfigError, match="target_output_key"):
        match_json({"a": 1}, {"a": 1}, metric="field_match", target_output_key="a")


def test_unknown_metric_is_a_config_error_listing_known_metrics():
    with pytest.raises(ConfigError) as info:
        match_json({"a": 1}, {"a": 1}, metric="fuzzy_match")
    message = str(info.value)
    for name in ALL_METRICS:
        assert name in message


def test_unknown_comparator_in_fields_is_a_config_error_listing_known_comparators():
    with pytest.raises(ConfigError) as info:
        match_json({"a": 1}, {"a": 1}, metric="field_f1", fields={"a": {"comparator": "soundex"}})
    message = str(info.value)
    assert "soundex" in message
    for name in ("exact", "numeric", "oneof"):
        assert name in message


def test_unknown_comparator_in_schema_is_a_config_error_listing_known_comparators():
    schema = {
        "type": "object",
        "properties": {"a": {"type": "integer", "x-eval-compare": "soundex"}},
    }
    with pytest.raises(ConfigError) as info:
        match_json({"a": 1}, {"a": 1}, metric="field_f1", schema=schema)
    for name in ("exact", "numeric", "oneof"):
        assert name in str(info.value)


def test_unknown_transform_is_a_config_error_listing_known_transforms():
    with pytest.raises(ConfigError) as info:
        match_json(
            {"a": "x"}, {"a": "x"}, metric="field_f1", fields={"a": {"transform": ["uppercase"]}}
        )
    message = str(info.value)
    assert "uppercase" in message
    for name in (
        "lowercase",
        "strip",
        "normalize_whitespace",
        "sort_tokens",
        "round_digits",
        "strip_accents",
    ):
        assert name in message


def test_unknown_transform_in_schema_is_a_config_error():
    schema = {
        "type": "object",
        "properties": {"a": {"type": "string", "x-eval-transform": ["uppercase"]}},
    }
    with pytest.raises(ConfigError, match="lowercase"):
        match_json({"a": "x"}, {"a": "x"}, metric="field_f1", schema=schema)


def test_unknown_field_setting_is_a_config_error():
    with pytest.raises(ConfigError, match="min_score"):
        match_json({"a": 1}, {"a": 1}, metric="field_f1", fields={"a": {"minscore": 1}})


def test_unknown_alignment_is_a_config_error():
    with pytest.raises(ConfigError):
        match_json({"t": [1]}, {"t": [1]}, metric="field_f1", align="by_magic")


def test_config_and_schema_errors_are_jsonmatch_errors():
    assert issubclass(ConfigError, JsonMatchError)
    assert issubclass(SchemaError, JsonMatchError)


# -- unknown names: the exact words, on every path --------------------------------------------

OPTIONS_OF = {
    "field_match": "align, conformance, embedder, fields, ignore, schema, truncated",
    "field_match_normalized": "align, conformance, embedder, fields, ignore, schema, truncated",
    "json_similarity": "align, conformance, embedder, fields, ignore, schema, target_output_key, truncated",
    "structural_f1": "align, array_matching_threshold, beta, boolean_evaluation_type, conformance, embedder, fields, "
    "float_evaluation_type, ignore, integer_evaluation_type, number_evaluation_type, "
    "numeric_threshold, numeric_weighting, schema, string_evaluation_type, string_evaluator, "
    "truncated",
    "field_f1": "align, conformance, embedder, fields, ignore, post_process, schema, truncated",
}


@pytest.mark.parametrize("metric", METRICS)
def test_an_unknown_option_lists_the_metric_s_known_options(metric):
    with pytest.raises(ConfigError) as info:
        match_json({"a": 1}, {"a": 1}, metric=metric, treshold=0.9)
    assert str(info.value) == (
        f"unknown option 'treshold' for metric {metric!r}; known options: {OPTIONS_OF[metric]}"
    )


@pytest.mark.parametrize(
    "name, hint",
    [
        ("f1", ""),
        ("Field_F1", " (did you mean 'field_f1'?)"),
        ("fieldf1", " (did you mean 'field_f1'?)"),
        ("", ""),
        (None, ""),
        (3, ""),
    ],
)
def test_an_unknown_metric_lists_the_known_metrics_and_suggests_the_one_meant(name, hint):
    # a name close to a known one (a typo, another case) is suggested; others only listed
    with pytest.raises(ConfigError) as info:
        match_json({"a": 1}, {"a": 1}, metric=name)
    assert str(info.value) == f"unknown metric {name!r}{hint}; known metrics: {METRIC_LIST}"


def test_an_unknown_option_suggests_the_option_meant():
    with pytest.raises(ConfigError) as info:
        match_json({"a": 1}, {"a": 1}, metric="field_f1", ignroe=["a"])
    assert str(info.value) == (
        "unknown option 'ignroe' for metric 'field_f1' (did you mean "
        "'ignore'?); known options: align, conformance, embedder, fields, ignore, "
        "post_process, schema, truncated"
    )


def test_an_unknown_comparator_and_field_setting_suggest_the_name_meant():
    with pytest.raises(ConfigError) as info:
        match_json({"a": 1}, {"a": 1}, fields={"a": {"comparater": "exact"}})
    assert str(info.value).startswith(
        "fields['a']: unknown setting 'comparater' (did you mean 'comparator'?); known: "
    )
    with pytest.raises(ConfigError) as info:
        match_json({"a": 1}, {"a": 1}, fields={"a": {"comparator": "levenstein"}})
    assert str(info.value).startswith(
        "fields['a']: unknown comparator 'levenstein' (did you "
        "mean 'levenshtein'?); known comparators: "
    )


@pytest.mark.parametrize("spec", ["soundex", {"soundex": {"cutoff": 0.8}}])
def test_an_unknown_comparator_in_fields_names_the_field_and_lists_comparators(spec):
    with pytest.raises(ConfigError) as info:
        match_json(
            {"a": 1}, {"a": 1}, metric="field_f1", fields={"items[*].name": {"comparator": spec}}
        )
    message = str(info.value)
    assert message.startswith(
        "fields['items[*].name']: unknown comparator 'soundex'; known comparators: "
    )
    _assert_lists_builtin_comparators(message)


def test_an_unknown_comparator_in_a_schema_names_the_schema_node():
    schema = {
        "type": "object",
        "properties": {
            "items": {
                "type": "array",
                "items": {
                    "type": "object",
                    "properties": {"name": {"type": "string", "x-eval-compare": "soundex"}},
                },
            }
        },
    }
    with pytest.raises(SchemaError) as info:
        match_json({"items": []}, {"items": []}, metric="field_f1", schema=schema)
    message = str(info.value)
    assert "unknown comparator 'soundex'; known comparators: " in message
    assert "name" in message.split("unknown comparator")[0]  # the node it sits on
    _assert_lists_builtin_comparators(message)


@pytest.mark.parametrize("spec", [["uppercase"], "uppercase", [{"uppercase": {}}]])
def test_an_unknown_transform_lists_the_known_transforms(spec):
    with pytest.raises(ConfigError) as info:
        match_json({"a": "x"}, {"a": "x"}, metric="field_f1", fields={"a": {"transform": spec}})
    assert (
        str(info.value)
        == f"fields['a']: unknown transform 'uppercase'; known transforms: {TRANSFORMS}"
    )


def test_an_unknown_alignment_says_what_is_accepted():
    with pytest.raises(ConfigError) as info:
        match_json({"a": [1]}, {"a": [1]}, metric="field_f1", align="by_magic")
    assert str(info.value) == (
        "align: 'by_magic' is not an alignment; use 'ordered', 'hungarian' or "
        "{'match_by': 'key_field', 'key': NAME}"
    )


# -- schema for the other metrics -------------------------------------------------------------


def test_schema_skip_applies_to_json_similarity():
    schema = {
        "type": "object",
        "properties": {"a": {"type": "integer"}, "b": {"type": "integer", "x-eval-skip": True}},
    }
    result = match_json({"a": 1, "b": 3}, {"a": 1, "b": 2}, metric="json_similarity", schema=schema)
    assert result.score == 1.0
    assert [(f.path, f.status) for f in result.fields] == [("a", "match"), ("b", "skipped")]


def test_schema_comparator_applies_to_json_similarity():
    schema = {"type": "object", "properties": {"s": {"type": "string", "x-eval-compare": "exact"}}}
    assert (
        match_json({"s": "paris"}, {"s": "Paris"}, metric="json_similarity", schema=schema).score
        == 0.0
    )
