"""evaluate_records (engine/metrics/__init__.py) over many records: one schema inferred from all the
expected records, run-level means, and the per-field aggregation (engine/results/field_results.py), keyed
by field path, under every metric."""

from __future__ import annotations

import pytest

from pytest_jsonmatch import ConfigError, evaluate_records


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
    run = evaluate_records(
        [{"items": [{"sku": "A"}]}], [{"items": [{"sku": "A"}, {"sku": "B"}]}], metric="field_f1"
    )
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


@pytest.mark.parametrize(
    "expected, actual, named",
    [
        (None, [], "expected_list is a NoneType"),
        ([{"a": 1}], {"a": 1}, "actual_list is a dict"),
        ("[]", [], "expected_list is a str"),
    ],
)
def test_evaluate_records_takes_two_lists_of_records(expected, actual, named):
    with pytest.raises(ConfigError, match=f"evaluate_records takes two lists of records; {named}"):
        evaluate_records(expected, actual, metric="field_f1")


@pytest.mark.parametrize(
    "metric, second",
    [
        ("field_match", 0.0),
        ("json_similarity", 0.5),  # 1 - |2 - 3| / 2
        ("structural_f1", 0.0),  # d = 1 > 0.001
        ("field_f1", 0.0),
    ],
)
def test_evaluate_records_mean_score_for_every_metric(metric, second):
    # record 1 perfect; record 2 expected a=2, actual a=3
    run = evaluate_records([{"a": 1}, {"a": 2}], [{"a": 1}, {"a": 3}], metric=metric)
    assert [r.score for r in run.records] == [1.0, second]
    assert run.mean_score == pytest.approx((1.0 + second) / 2)


def test_per_field_summary_of_structural_f1_is_keyed_by_field_path():
    from pytest_jsonmatch import evaluate_records

    # t: y paired with y (match), x unpaired (omission) -> t[]: mean 1/2
    run = evaluate_records([{"t": ["x", "y"]}], [{"t": ["y"]}], metric="structural_f1")
    agg = run.per_field["t[]"]
    assert (agg.matches, agg.omissions) == (1, 1)
    assert agg.mean_score == 0.5


def test_records_given_as_pydantic_models_with_the_model_as_schema():

    from pydantic import BaseModel

    class Sample(BaseModel):
        method: str
        temperature: int | None = None

    gold = [Sample(method="sputtering", temperature=300), Sample(method="evaporation")]
    extracted = [Sample(method="sputtering", temperature=301), Sample(method="evaporation")]
    run = evaluate_records(gold, extracted, schema=Sample)
    # record 0: method right, temperature wrong (1/2); record 1: method right, null = null (2/2)
    assert [r.score for r in run.records] == [0.5, 1.0]
    assert run.per_field["temperature"].mismatch == 1 and run.total_batch_errors == 0


def test_a_cut_answer_is_an_error_record_as_jsonmatch_score_scores_it():
    # before: the whole dataset stopped at the cut answer with a TruncatedError
    from pytest_jsonmatch.dataset.scoring import score_pairs

    gold = [{"a": 1, "b": "x"}] * 3
    answers = ['{"a": 1, "b": "x', '{"a": 1, "b": "x"}', "no json here"]
    run = evaluate_records(gold, answers, metric="field_match")
    assert [r.score for r in run.records] == [0.0, 1.0, 0.0]
    assert run.records[0].error.startswith("actual[0] was cut off: its JSON value opened at")
    assert run.records[2].error == "no JSON object found in actual[2]: 'no json here'"
    assert run.records[0].fields == () and run.records[0].to_dict()["error"]
    assert run.records[1].error == "" and "error" not in run.records[1].to_dict()
    # the command line's scoring: the same cases unscored, the same mean (0 + 1 + 0) / 3
    summary = score_pairs(list(zip(gold, answers)), metric="field_match").summary()
    assert (summary.errors, summary.overall) == (2, run.mean_score) == (2, 1 / 3)
