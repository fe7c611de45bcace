"""The result model and the accounting every metric shares (section 3 of metrics.md,
engine/results/field_results.py): field statuses and scores, precision, recall and F1 from the statuses,
each metric's headline score on one shared example; empty containers anywhere score in [0, 1],
and 1 against themselves."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pytest_jsonmatch import match_json
from tests.helpers.spec_accounting import assert_follows_section3
from tests.helpers.timeout import GENEROUS, within

ALL_METRICS = [
    "field_match",
    "field_match_normalized",
    "json_similarity",
    "structural_f1",
    "field_f1",
]
METRICS = ALL_METRICS  # the same list, under the name some tests here were written with
F1_METRICS = ["structural_f1", "field_f1"]
STATUSES = {"match", "mismatch", "omission", "hallucination", "skipped"}
EXPECTED = {
    "name": "Anna",
    "age": 30,
    "tags": ["a", "b"],
    "addr": {"city": "Oslo", "zip": "0150"},
    "ok": True,
}
ACTUAL = {"name": "Ana", "age": 31, "tags": ["b"], "addr": {"city": "Oslo"}, "ok": True, "extra": 1}


# -- section 3 --------------------------------------------------------------------------------


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
    assert (field.path, field.status, field.score, field.expected, field.actual) == (
        "a",
        "match",
        1.0,
        "x",
        "x",
    )
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


# -- empty containers -------------------------------------------------------------------------

EMPTIES = [
    {},
    {"a": []},
    {"a": {}},
    {"a": [[]]},
    {"a": [{}]},
    {"a": [{}, []]},
    {"a": ""},
    {"": {"": []}},
    {"a": {"b": {}}, "c": [[], {}]},
]


@pytest.mark.parametrize("metric", METRICS)
def test_empty_containers_everywhere_score_in_unit_interval_and_one_against_themselves(metric):
    options = {"align": "hungarian"} if metric == "field_f1" else {}
    with within(GENEROUS):
        for expected in EMPTIES:
            for actual in EMPTIES:
                result = match_json(actual, expected, metric=metric, **options)
                assert 0.0 <= result.score <= 1.0, (expected, actual)
                if actual == expected:
                    assert result.score == 1.0, expected


@pytest.mark.parametrize("metric", F1_METRICS)
@pytest.mark.parametrize("value", [[], [[]], [{}], [{}, []]], ids=["[]", "[[]]", "[{}]", "[{},[]]"])
def test_empty_top_level_arrays_score_one_against_themselves(metric, value):
    with within(GENEROUS):
        assert match_json(value, value, metric=metric).score == 1.0


# -- field weights ---------------------------------------------------------------------------------


def test_a_field_weight_counts_the_field_that_many_times():
    expected = {"vendor": "A", "total": 10, "date": "d"}
    actual = {"vendor": "A", "total": 11, "date": "d", "x": 1}
    result = match_json(actual, expected, fields={"total": {"weight": 3}})
    assert [(f.path, f.weight) for f in result.fields] == [
        ("vendor", 1.0),
        ("total", 3.0),
        ("date", 1.0),
        ("x", 1.0),
    ]
    # TP = 1 + 3*0 + 1 = 2; precision over 1 + 3 + 1 + 1 (x) = 6, recall over 1 + 3 + 1 = 5
    assert result.precision == pytest.approx(2 / 6)
    assert result.recall == pytest.approx(2 / 5)
    assert result.score == pytest.approx(4 / 11)  # 2 * (1/3) * (2/5) / (1/3 + 2/5)


def test_a_weight_gives_partial_credit_its_weight_under_json_similarity():
    result = match_json(
        {"a": "abcx", "b": 100},
        {"a": "abcd", "b": 100},
        metric="json_similarity",
        fields={"a": {"weight": 2}},
    )
    # a: 1 - 1/4 = 0.75 counted twice; b: 1 once: recall (1.5 + 1) / 3
    assert result.score == pytest.approx(2.5 / 3)


def test_x_eval_weight_applies_to_the_field_and_every_field_below_it():
    schema = {
        "type": "object",
        "properties": {
            "vendor": {
                "type": "object",
                "x-eval-weight": 2,
                "properties": {
                    "name": {"type": "string"},
                    "vat": {"type": "string", "x-eval-weight": 5},
                },
            },
            "note": {"type": "string"},
        },
    }
    result = match_json(
        {"vendor": {"name": "B", "vat": "V"}, "note": "n"},
        {"vendor": {"name": "A", "vat": "V"}, "note": "n"},
        schema=schema,
    )
    assert [(f.path, f.status, f.weight) for f in result.fields] == [
        ("vendor.name", "mismatch", 2.0),
        ("vendor.vat", "match", 5.0),
        ("note", "match", 1.0),
    ]
    assert result.score == pytest.approx(6 / 8)  # TP 5 + 1 over 2 + 5 + 1 on both sides


def test_fields_weight_wins_over_x_eval_weight_and_reaches_array_elements():
    schema = {
        "type": "object",
        "properties": {
            "items": {
                "type": "array",
                "items": {
                    "type": "object",
                    "properties": {"sku": {"type": "string", "x-eval-weight": 4}},
                },
            }
        },
    }
    result = match_json(
        {"items": [{"sku": "a"}, {"sku": "x"}]},
        {"items": [{"sku": "a"}, {"sku": "b"}]},
        schema=schema,
        fields={"items[1].sku": {"weight": 0}},
    )
    assert [(f.path, f.weight) for f in result.fields] == [
        ("items[0].sku", 4.0),
        ("items[1].sku", 0.0),
    ]
    assert result.score == 1.0  # the wrong sku weighs nothing: TP 4 over 4


@pytest.mark.parametrize("bad", [-1, "3", True, float("inf")])
def test_a_weight_must_be_a_number_at_least_zero(bad):
    from pytest_jsonmatch import ConfigError, SchemaError

    with pytest.raises(ConfigError) as info:
        match_json({"a": 1}, {"a": 1}, fields={"a": {"weight": bad}})
    assert str(info.value) == f"fields['a']: weight must be a number >= 0, not {bad!r}"
    schema = {"type": "object", "properties": {"a": {"type": "integer", "x-eval-weight": bad}}}
    with pytest.raises(SchemaError) as info:
        match_json({"a": 1}, {"a": 1}, schema=schema)
    assert str(info.value) == f"schema node a: x-eval-weight must be a number >= 0, not {bad!r}"


@pytest.mark.parametrize("metric", ALL_METRICS)
def test_without_weights_every_field_weighs_one(metric):
    result = match_json(ACTUAL, EXPECTED, metric=metric)
    assert {f.weight for f in result.fields} == {1.0}


def test_weights_near_the_float_limit_give_the_score_of_equal_weights():
    # two fields of weight 1e308, one matching: the sums would overflow to inf (inf / inf is
    # NaN); divided by the largest weight first, they count as 1 and 1: P = R = 1/2
    from pytest_jsonmatch import match_json

    result = match_json({"a": 1, "b": 2}, {"a": 1, "b": 3}, fields={"*": {"weight": 1e308}})
    assert (result.precision, result.recall, result.score) == (0.5, 0.5, 0.5)


# -- per-field tables counted by (path, status, score) ------------------------------------------

_TALLY_FIELDS = st.lists(
    st.tuples(
        st.sampled_from(["", "a", "items[].sku", "$"]),
        st.sampled_from(
            ["match", "mismatch", "omission", "hallucination", "skipped", "batch_error"]
        ),
        st.one_of(
            st.sampled_from([0.0, -0.0, 1.0, 0.5, 1, 0, True]),
            st.floats(0.0, 1.0),
            st.floats(5e-324, 1e-300),
        ),
    ),
    max_size=40,
)


def _one_at_a_time(fields, skipped_too):
    """The per-field tables as counted before: one ``add`` per field."""
    from pytest_jsonmatch.engine.results.field_results import FieldAggregate

    out = {}
    for fr in fields:
        if fr.status == "skipped" and not skipped_too:
            continue
        agg = out.get(fr.field_path or "$")
        if agg is None:
            agg = out[fr.field_path or "$"] = FieldAggregate()
        agg.add(fr)
    return out


@settings(max_examples=200, deadline=None, derandomize=True, database=None)
@given(rows=_TALLY_FIELDS, skipped_too=st.booleans())
def test_counting_by_path_status_and_score_is_counting_each_field(rows, skipped_too):
    """The same aggregates, in the same order, with the same exact sums (units), as one
    ``FieldAggregate.add`` per field: repeated scores, 0.0 and -0.0, 1 and 1.0 and True,
    subnormal scores, skipped fields and batch errors."""
    from pytest_jsonmatch.engine.results.field_results import FieldResult, count_fields

    fields = [
        FieldResult(f"p{k}", status, score, 1, 1, "exact", "", path)
        for k, (path, status, score) in enumerate(rows)
    ]
    counted = {}
    count_fields(counted, fields, skipped_too=skipped_too)
    expected = _one_at_a_time(fields, skipped_too)
    assert list(counted) == list(expected)
    assert [(repr(a), a.total.units) for a in counted.values()] == [
        (repr(a), a.total.units) for a in expected.values()
    ]


def test_aggregate_fields_counts_by_position_what_it_counted_by_name():
    """evaluate_records' table, worked by hand: items[].sku matched once (1), mismatched
    once (0.25); a skipped field is not listed; the root's "" is "$"."""
    from pytest_jsonmatch.engine.results.field_results import (
        FieldResult,
        MatchResult,
        aggregate_fields,
    )

    fields = (
        FieldResult("items[0].sku", "match", 1.0, "a", "a", "exact", "", "items[].sku"),
        FieldResult("items[1].sku", "mismatch", 0.25, "b", "c", "exact", "", "items[].sku"),
        FieldResult("note", "skipped", 0.0, "n", "m", "", "ignored", "note"),
        FieldResult("", "omission", 0.0, 1, None, "", "", ""),
    )
    table = aggregate_fields([MatchResult("field_f1", 0.5, 0.5, 0.5, 0.5, fields)])
    assert list(table) == ["items[].sku", "$"]
    assert table["items[].sku"].to_dict() == {
        "mean_score": 0.625,
        "score_sum": 1.25,
        "scored": 2,
        "match": 1,
        "mismatch": 1,
        "omission": 0,
        "hallucination": 0,
    }  # (1 + 0.25) / 2
    assert table["$"].omission == 1 and table["$"].score_sum == 0.0
