"""Section 3 (result model, shared accounting) and section 5 (options every metric takes)."""

from __future__ import annotations

import pytest

from pytest_jsonmatch import ConfigError, JsonMatchError, SchemaError, match_json
from tests.helpers.spec_accounting import assert_follows_section3

ALL_METRICS = ["field_match", "field_match_normalized", "json_similarity", "structural_f1", "field_f1"]
STATUSES = {"match", "mismatch", "omission", "hallucination", "skipped"}




EXPECTED = {"name": "Anna", "age": 30, "tags": ["a", "b"], "addr": {"city": "Oslo", "zip": "0150"},
            "ok": True}
ACTUAL = {"name": "Ana", "age": 31, "tags": ["b"], "addr": {"city": "Oslo"}, "ok": True, "extra": 1}


# -- section 3 -------------------------------------------------------------------------------


@pytest.mark.parametrize("metric", ALL_METRICS)
def test_precision_recall_f1_follow_the_field_statuses(metric):
    result = match_json(ACTUAL, EXPECTED, metric=metric)
    assert_follows_section3(result)


@pytest.mark.parametrize("metric", ALL_METRICS)
def test_field_statuses_are_the_five_known_ones(metric):
    result = match_json(ACTUAL, EXPECTED, metric=metric, ignore=["ok"])
    assert {f.status for f in result.fields} <= STATUSES
    assert "skipped" in {f.status for f in result.fields}


@pytest.mark.parametrize("metric", ALL_METRICS)
def test_match_has_score_one_mismatch_below_one(metric):
    result = match_json(ACTUAL, EXPECTED, metric=metric)
    for f in result.fields:
        if f.status == "match":
            assert f.score == 1.0
        elif f.status == "mismatch":
            assert 0.0 <= f.score < 1.0
        else:
            assert f.score == 0.0


@pytest.mark.parametrize("metric", ALL_METRICS)
def test_field_results_carry_path_values_and_comparator(metric):
    result = match_json({"a": "x"}, {"a": "x"}, metric=metric)
    (field,) = result.fields
    assert (field.path, field.status, field.score, field.expected, field.actual) == ("a", "match", 1.0, "x", "x")
    assert isinstance(field.comparator, str) and field.comparator
    assert isinstance(field.reason, str)


@pytest.mark.parametrize("metric", ["field_match", "field_match_normalized", "json_similarity"])
def test_field_match_family_score_is_recall(metric):
    # these never produce hallucinations; their published score is matched over expected
    result = match_json(ACTUAL, EXPECTED, metric=metric)
    assert result.score == pytest.approx(result.recall)
    assert "hallucination" not in {f.status for f in result.fields}


@pytest.mark.parametrize("metric", ["structural_f1", "field_f1"])
def test_f1_metrics_score_is_f1(metric):
    result = match_json(ACTUAL, EXPECTED, metric=metric)
    assert result.score == pytest.approx(result.f1)


def test_field_match_score_on_the_shared_example():
    # 5 fields; name, age, tags, addr differ, ok matches -> 1 - 4/5
    assert match_json(ACTUAL, EXPECTED, metric="field_match").score == pytest.approx(0.2)


def test_json_similarity_score_on_the_shared_example():
    # name: lev(Anna, Ana) = 1 over 4 -> 0.75; age: 1 - 1/30; tags[0] a vs b 0, tags[1] missing 0;
    # addr.city 1, addr.zip missing 0; ok 1. 7 leaves
    total = 0.75 + (1 - 1 / 30) + 0 + 0 + 1 + 0 + 1
    assert match_json(ACTUAL, EXPECTED, metric="json_similarity").score == pytest.approx(total / 7)


def test_structural_f1_score_on_the_shared_example():
    # name: Jaccard {anna} vs {ana} 0; age: d = 1 > 0.001 -> 0; tags: b-b paired 1, a omitted;
    # city 1; zip omitted; ok 1; extra hallucinated.
    # TP = 3; expected leaves 7; actual leaves 6 (name, age, b, city, ok, extra)
    # P = 3/6, R = 3/7, F1 = 2*(1/2)(3/7)/(1/2 + 3/7) = (3/7)/(13/14) = 6/13
    result = match_json(ACTUAL, EXPECTED, metric="structural_f1")
    assert result.precision == pytest.approx(0.5)
    assert result.recall == pytest.approx(3 / 7)
    assert result.f1 == pytest.approx(6 / 13)


def test_field_f1_score_on_the_shared_example():
    # name mismatch, age mismatch, tags[0] a vs b mismatch, tags[1] omission, city match,
    # zip omission, ok match, extra hallucination (unknown to the schema)
    # TP 2; P = 2 / (2 + 3 + 1) = 1/3; R = 2 / (2 + 3 + 2) = 2/7; F1 = 2*(2/21)/(13/21) = 4/13
    result = match_json(ACTUAL, EXPECTED, metric="field_f1")
    assert result.precision == pytest.approx(1 / 3)
    assert result.recall == pytest.approx(2 / 7)
    assert result.f1 == pytest.approx(4 / 13)


# -- ignore ----------------------------------------------------------------------------------


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
    expected = {"created_at": 1, "a": {"created_at": 2, "v": "x"}, "l": [{"created_at": 3, "v": "y"}]}
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
    result = match_json({"unit price": 5, "a": 1}, {"unit price": 4, "a": 1}, metric="field_f1",
                        ignore=['["unit price"]'])
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
    result = match_json({"a": 1, "b": 2, "c": 3, "d": 4}, {"a": 1, "b": 2, "c": 3, "d": 4, "price": 10},
                        metric="field_f1", fields={"price": {"min_score": 0.5}})
    assert not result.passed(0.5)
    assert [f.path for f in result.floor_failures] == ["price"]


def test_min_score_with_partial_credit_under_json_similarity():
    # name "abcd" vs "abce": 0.75 < 0.8; overall (0.75 + 1)/2 = 0.875
    result = match_json({"name": "abce", "x": 1}, {"name": "abcd", "x": 1}, metric="json_similarity",
                        fields={"name": {"min_score": 0.8}})
    assert result.score == pytest.approx(0.875)
    assert not result.passed(0.5)
    assert result.floor_failures[0].score == pytest.approx(0.75)


def test_min_score_under_field_match():
    result = match_json({"a": 1, "b": 2, "c": 0}, {"a": 1, "b": 2, "c": 3}, metric="field_match",
                        fields={"c": {"min_score": 1.0}})
    assert not result.passed(0.5)


def test_tolerance_under_structural_f1_and_json_similarity():
    # tolerance turns the numeric leaf into a binary within-tolerance comparison
    for metric in ("structural_f1", "json_similarity", "field_f1"):
        result = match_json({"t": 20.5}, {"t": 20.3}, metric=metric, fields={"t": {"tolerance": {"abs": 0.25}}})
        assert result.score == 1.0, metric


def test_comparator_under_json_similarity():
    result = match_json({"s": "paris"}, {"s": "Paris"}, metric="json_similarity",
                        fields={"s": {"comparator": "exact"}})
    assert result.score == 0.0


def test_transform_under_structural_f1():
    result = match_json({"s": "a-b"}, {"s": "A-B"}, metric="structural_f1",
                        fields={"s": {"transform": ["lowercase"], "comparator": "exact"}})
    assert result.score == 1.0


# -- unknown names -------------------------------------------------------------------------


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
        match_json({"a": 1}, {"a": 1}, metric="field_f1", fields={"a": {"comparator": "fuzzy"}})
    message = str(info.value)
    assert "fuzzy" in message
    for name in ("exact", "numeric", "oneof"):
        assert name in message


def test_unknown_comparator_in_schema_is_a_config_error_listing_known_comparators():
    schema = {"type": "object", "properties": {"a": {"type": "integer", "x-eval-compare": "fuzzy"}}}
    with pytest.raises(ConfigError) as info:
        match_json({"a": 1}, {"a": 1}, metric="field_f1", schema=schema)
    for name in ("exact", "numeric", "oneof"):
        assert name in str(info.value)


def test_unknown_transform_is_a_config_error_listing_known_transforms():
    with pytest.raises(ConfigError) as info:
        match_json({"a": "x"}, {"a": "x"}, metric="field_f1", fields={"a": {"transform": ["uppercase"]}})
    message = str(info.value)
    assert "uppercase" in message
    for name in ("lowercase", "strip", "normalize_whitespace", "sort_tokens", "round_digits", "strip_accents"):
        assert name in message


def test_unknown_transform_in_schema_is_a_config_error():
    schema = {"type": "object", "properties": {"a": {"type": "string", "x-eval-transform": ["uppercase"]}}}
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


# -- schema for the other metrics, strict expected at the entry point ------------------------


def test_schema_skip_applies_to_json_similarity():
    schema = {"type": "object", "properties": {"a": {"type": "integer"},
                                               "b": {"type": "integer", "x-eval-skip": True}}}
    result = match_json({"a": 1, "b": 3}, {"a": 1, "b": 2}, metric="json_similarity", schema=schema)
    assert result.score == 1.0
    assert [(f.path, f.status) for f in result.fields] == [("a", "match"), ("b", "skipped")]


def test_schema_comparator_applies_to_json_similarity():
    schema = {"type": "object", "properties": {"s": {"type": "string", "x-eval-compare": "exact"}}}
    assert match_json({"s": "paris"}, {"s": "Paris"}, metric="json_similarity", schema=schema).score == 0.0


def test_match_json_parses_expected_strictly():
    from pytest_jsonmatch import ParseError

    with pytest.raises(ParseError):
        match_json({"a": 1}, 'Here: {"a": 1}', metric="field_match")


def test_per_field_summary_of_structural_f1_is_keyed_by_field_path():
    from pytest_jsonmatch import evaluate_records

    # t: y paired with y (match), x unpaired (omission) -> t[]: mean 1/2
    run = evaluate_records([{"t": ["x", "y"]}], [{"t": ["y"]}], metric="structural_f1")
    agg = run.per_field["t[]"]
    assert (agg.matches, agg.omissions) == (1, 1)
    assert agg.mean_score == 0.5
