"""infer_schema, annotate_schema, validate_gold, reclassify_nulls, evaluate_records / per_field."""

from __future__ import annotations

import copy

import pytest

from pytest_jsonmatch import (ConfigError, SchemaError, annotate_schema, evaluate_records,
                              infer_schema, match_json, reclassify_nulls, validate_gold)

# -- infer_schema ---------------------------------------------------------------------------


def test_infer_schema_types_of_scalars():
    schema = infer_schema([{"s": "x", "b": True, "f": 1.5, "i": 3}])
    props = schema["properties"]
    assert schema["type"] == "object"
    assert props["s"]["type"] == "string"
    assert props["b"]["type"] == "boolean"
    assert props["f"]["type"] == "number"
    assert props["i"]["type"] in ("integer", "number")


def test_infer_schema_boolean_is_not_integer():
    assert infer_schema([{"b": False}])["properties"]["b"]["type"] == "boolean"


def test_infer_schema_takes_the_first_non_null_value():
    schema = infer_schema([{"a": None}, {"a": "x"}, {"a": 5}])
    assert schema["properties"]["a"]["type"] == "string"


def test_infer_schema_unions_keys_across_instances():
    schema = infer_schema([{"a": 1}, {"b": "x"}])
    assert set(schema["properties"]) == {"a", "b"}


def test_infer_schema_pools_array_elements():
    schema = infer_schema([{"t": []}, {"t": [{"x": 1}]}, {"t": [{"y": "z"}]}])
    items = schema["properties"]["t"]["items"]
    assert schema["properties"]["t"]["type"] == "array"
    assert items["type"] == "object"
    assert set(items["properties"]) == {"x", "y"}


def test_infer_schema_nested_objects():
    schema = infer_schema([{"o": {"p": {"q": "r"}}}])
    assert schema["properties"]["o"]["properties"]["p"]["properties"]["q"]["type"] == "string"


def test_infer_schema_has_no_eval_keys():
    schema = infer_schema([{"a": 1, "t": ["x"]}])
    assert "x-eval-compare" not in str(schema)


def test_infer_schema_does_not_mutate_instances():
    instances = [{"a": [1, {"b": None}]}]
    before = copy.deepcopy(instances)
    infer_schema(instances)
    assert instances == before


# -- annotate_schema --------------------------------------------------------------------------


def test_annotate_schema_adds_default_comparators_to_leaves():
    schema = {"type": "object", "properties": {
        "s": {"type": "string"}, "b": {"type": "boolean"}, "n": {"type": "number"},
        "i": {"type": "integer"}, "t": {"type": "array", "items": {"type": "string"}},
        "o": {"type": "object", "properties": {"x": {"type": "number"}}}}}
    out = annotate_schema(schema)
    props = out["properties"]
    assert props["s"]["x-eval-compare"] == "exact"
    assert props["b"]["x-eval-compare"] == "exact"
    assert props["n"]["x-eval-compare"] == "numeric"
    assert props["i"]["x-eval-compare"] == "numeric"
    assert props["t"]["items"]["x-eval-compare"] == "exact"
    assert props["o"]["properties"]["x"]["x-eval-compare"] == "numeric"


def test_annotate_schema_leaves_containers_without_comparator():
    out = annotate_schema({"type": "object", "properties": {
        "t": {"type": "array", "items": {"type": "string"}},
        "o": {"type": "object", "properties": {"x": {"type": "string"}}}}})
    assert "x-eval-compare" not in out
    assert "x-eval-compare" not in out["properties"]["t"]
    assert "x-eval-compare" not in out["properties"]["o"]


def test_annotate_schema_keeps_an_explicit_comparator():
    schema = {"type": "object", "properties": {
        "n": {"type": "number", "x-eval-compare": {"numeric": {"abs": 1}}}}}
    out = annotate_schema(schema)
    assert out["properties"]["n"]["x-eval-compare"] == {"numeric": {"abs": 1}}


def test_annotate_schema_leaves_skipped_fields_alone():
    schema = {"type": "object", "properties": {"n": {"type": "number", "x-eval-skip": True}}}
    out = annotate_schema(schema)
    assert "x-eval-compare" not in out["properties"]["n"]


def test_annotated_inferred_schema_scores_like_the_inferred_default():
    expected = {"a": 1, "s": "x", "t": [1, 2]}
    actual = {"a": 1.0, "s": "y", "t": [1, 3]}
    schema = annotate_schema(infer_schema([expected]))
    with_schema = match_json(actual, expected, metric="field_f1", schema=schema)
    without = match_json(actual, expected, metric="field_f1")
    # a match, s mismatch, t[0] match, t[1] mismatch -> 0.5 both ways
    assert with_schema.f1 == without.f1 == 0.5


# -- validate_gold -------------------------------------------------------------------------

SCHEMA = {"type": "object", "properties": {
    "name": {"type": "string"}, "age": {"type": "integer"},
    "tags": {"type": "array", "items": {"type": "string"}}}}


def test_validate_gold_accepts_fitting_gold():
    assert validate_gold([{"name": "a", "age": 3, "tags": ["x"]}], SCHEMA) == []


def test_validate_gold_type_error_is_an_error():
    with pytest.raises(SchemaError, match="age"):
        validate_gold([{"name": "a", "age": "three", "tags": []}], SCHEMA)


def test_validate_gold_type_error_inside_an_array_is_an_error():
    with pytest.raises(SchemaError, match="tags"):
        validate_gold([{"name": "a", "age": 3, "tags": ["x", 5]}], SCHEMA)


def test_validate_gold_unknown_field_is_an_error():
    with pytest.raises(SchemaError, match="nickname"):
        validate_gold([{"name": "a", "age": 3, "tags": [], "nickname": "b"}], SCHEMA)


def test_validate_gold_missing_field_is_a_warning():
    warnings = validate_gold([{"name": "a", "tags": []}], SCHEMA)
    assert len(warnings) == 1
    assert "age" in warnings[0]


def test_validate_gold_schema_error_is_a_config_error():
    assert issubclass(SchemaError, ConfigError)


# -- reclassify_nulls -------------------------------------------------------------------------


def test_reclassify_nulls_turns_null_against_value_into_omission_or_hallucination():
    expected = {"a": "x", "b": None, "c": None, "d": "z"}
    actual = {"a": None, "b": "y", "c": None, "d": "z"}
    plain = match_json(actual, expected, metric="field_f1")
    assert [f.status for f in plain.fields] == ["mismatch", "mismatch", "match", "match"]
    result = match_json(actual, expected, metric="field_f1", post_process=reclassify_nulls)
    assert [(f.path, f.status, f.score) for f in result.fields] == [
        ("a", "omission", 0.0), ("b", "hallucination", 0.0), ("c", "skipped", 0.0), ("d", "match", 1.0)]
    # d match, a omission, b hallucination: P = 1/2, R = 1/2
    assert (result.precision, result.recall) == (0.5, 0.5)


def test_reclassify_nulls_by_registered_name():
    result = match_json({"a": None}, {"a": "x"}, metric="field_f1", post_process="reclassify_nulls")
    assert [f.status for f in result.fields] == ["omission"]
    assert (result.precision, result.recall) == (1.0, 0.0)


def test_reclassify_nulls_on_field_results_directly():
    fields = match_json({"a": None, "b": 1}, {"a": 2, "b": 1}, metric="field_f1").fields
    out = reclassify_nulls(fields)
    assert [f.status for f in out] == ["omission", "match"]


def test_reclassify_nulls_both_absent_as_match():
    fields = match_json({"a": None}, {"a": None}, metric="field_f1").fields
    out = reclassify_nulls(fields, both_absent_skip=False)
    assert [(f.status, f.score) for f in out] == [("match", 1.0)]


def test_reclassify_nulls_keeps_a_container_type_mismatch():
    # a container against a scalar is no null: it stays a mismatch
    schema = {"type": "object", "properties": {"o": {"type": "object", "properties": {"a": {"type": "integer"}}}}}
    fields = match_json({"o": 5}, {"o": {"a": 1}}, metric="field_f1", schema=schema).fields
    assert [f.status for f in reclassify_nulls(fields)] == ["mismatch"]


def test_unknown_post_processor_is_a_config_error():
    with pytest.raises(ConfigError, match="reclassify_nulls"):
        match_json({"a": 1}, {"a": 1}, metric="field_f1", post_process="no_such_post_processor")


# -- evaluate_records: run level and per field ---------------------------------------------


def test_per_field_aggregation_is_keyed_by_field_path():
    # record 1: items[0].sku match, items[1].sku mismatch; record 2: items[0].sku omission
    expected = [{"items": [{"sku": "A"}, {"sku": "B"}]}, {"items": [{"sku": "C"}]}]
    actual = [{"items": [{"sku": "A"}, {"sku": "X"}]}, {"items": []}]
    run = evaluate_records(expected, actual, metric="field_f1")
    assert set(run.per_field) == {"items[].sku"}
    agg = run.per_field["items[].sku"]
    assert (agg.matches, agg.mismatches, agg.omissions, agg.hallucinations) == (1, 1, 1, 0)
    assert agg.mean_score == pytest.approx(1 / 3)


def test_run_level_metrics_are_means_over_records():
    # record 1: P = R = F1 = 1/2; record 2: one omission: P = 1 (0/0), R = 0, F1 = 0
    expected = [{"items": [{"sku": "A"}, {"sku": "B"}]}, {"items": [{"sku": "C"}]}]
    actual = [{"items": [{"sku": "A"}, {"sku": "X"}]}, {"items": []}]
    run = evaluate_records(expected, actual, metric="field_f1")
    assert run.mean_precision == pytest.approx(0.75)
    assert run.mean_recall == pytest.approx(0.25)
    assert run.mean_f1 == pytest.approx(0.25)
    assert run.total_records == 2


def test_per_field_hallucinations_count_with_zero_score():
    # items[].sku: match (1), hallucination of the surplus element (0) -> mean 1/2
    run = evaluate_records([{"items": [{"sku": "A"}]}], [{"items": [{"sku": "A"}, {"sku": "B"}]}],
                           metric="field_f1")
    agg = run.per_field["items[].sku"]
    assert (agg.matches, agg.hallucinations) == (1, 1)
    assert agg.mean_score == 0.5
    assert run.total_hallucinations == 1


def test_per_field_mean_score_over_records():
    expected = [{"a": 1}, {"a": 1}]
    actual = [{"a": 1}, {"a": 2}]
    run = evaluate_records(expected, actual, metric="field_f1")
    agg = run.per_field["a"]
    assert (agg.matches, agg.mismatches) == (1, 1)
    assert agg.mean_score == 0.5


def test_per_field_leaves_out_skipped_fields():
    run = evaluate_records([{"a": 1, "b": 2}], [{"a": 1, "b": 3}], metric="field_f1", ignore=["b"])
    assert "b" not in run.per_field


def test_evaluate_records_infers_one_schema_from_all_expected_records():
    # record 1 alone would not know "b"; with both records "b" is a schema field and an
    # extracted b in record 1 is a hallucination of a known field (still one hallucination)
    expected = [{"a": 1}, {"a": 1, "b": {"x": 1, "y": 2}}]
    actual = [{"a": 1, "b": {"x": 1, "y": 2}}, {"a": 1, "b": {"x": 1, "y": 2}}]
    run = evaluate_records(expected, actual, metric="field_f1")
    first = run.records[0]
    assert sorted(f.path for f in first.fields if f.status == "hallucination") == ["b.x", "b.y"]


def test_evaluate_records_needs_equal_lengths():
    with pytest.raises(ConfigError):
        evaluate_records([{"a": 1}], [], metric="field_f1")


@pytest.mark.parametrize("metric, second", [
    ("field_match", 0.0),
    ("json_similarity", 0.5),    # 1 - |2 - 3| / 2
    ("structural_f1", 0.0),      # d = 1 > 0.001
    ("field_f1", 0.0),
])
def test_evaluate_records_mean_score_for_every_metric(metric, second):
    # record 1 perfect; record 2 expected a=2, actual a=3
    run = evaluate_records([{"a": 1}, {"a": 2}], [{"a": 1}, {"a": 3}], metric=metric)
    assert [r.score for r in run.records] == [1.0, second]
    assert run.mean_score == pytest.approx((1.0 + second) / 2)
