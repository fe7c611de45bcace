"""Reliability of the engine: 5,000-element arrays under every metric (an answer or a clear
size error within bounds), mixed-type arrays, empty containers everywhere, unknown names
(the error lists the known ones), custom comparators that raise or return a value outside
[0, 1] (the error names the comparator and the field path), batch judges failing for some
fields.

tests/test_engine_options.py and tests/test_engine_registry.py check that unknown names are
ConfigErrors and that judges work; this module checks the exact words and the failure paths.
"""

from __future__ import annotations

import random
import re
import textwrap

import pytest

from pytest_jsonmatch import (REGISTRY, ComparatorError, ConfigError, JsonMatchError, SchemaError,
                              match_json)
from tests.helpers.timeout import GENEROUS, within

METRICS = ["field_match", "field_match_normalized", "json_similarity", "structural_f1", "field_f1"]
F1_METRICS = ["structural_f1", "field_f1"]
N = 5_000
BUILTIN_COMPARATORS = ("exact", "jaccard", "levenshtein", "normalized", "numeric", "oneof",
                       "relative", "threshold")
TRANSFORMS = "lowercase, normalize_whitespace, round_digits, sort_tokens, strip, strip_accents"
METRIC_LIST = "field_f1, field_match, field_match_normalized, json_similarity, structural_f1"


@pytest.fixture
def registered():
    """Register custom comparators for one test; unregister them afterwards."""
    names: list[str] = []

    def register(name, fn, **kwargs):
        REGISTRY.register_comparator(name, fn, overwrite=True, **kwargs)
        names.append(name)

    yield register
    for name in names:
        REGISTRY.unregister(name)


def score_within(actual, expected, metric, **options):
    """The score, or the JsonMatchError a too-large input is refused with, within the bound."""
    with within(GENEROUS, f"{metric} {options or ''}"):
        try:
            result = match_json(actual, expected, metric=metric, **options)
        except JsonMatchError as exc:
            # a size error is acceptable if it says what is too large
            assert re.search(r"\b5,?000\b|too (large|many|big)", str(exc)), str(exc)
            return exc
    assert 0.0 <= result.score <= 1.0
    return result


# -- 5,000 elements ------------------------------------------------------------------------------


def _records(seed: int = 1) -> tuple[dict, dict]:
    rnd = random.Random(seed)
    expected = [{"sku": f"S{i:05d}", "name": f"item number {i}", "price": i * 1.5, "qty": i % 7}
                for i in range(N)]
    actual = [dict(e) for e in expected]
    rnd.shuffle(actual)
    for element in actual[::10]:
        element["price"] += 1
    return {"items": actual}, {"items": expected}


@pytest.mark.parametrize(("metric", "options"), [
    ("field_match", {}),
    ("field_match_normalized", {}),
    ("json_similarity", {}),
    ("structural_f1", {}),
    ("field_f1", {"align": "hungarian"}),
], ids=["field_match", "field_match_normalized", "json_similarity", "structural_f1", "field_f1-hungarian"])
def test_5000_shuffled_objects_answer_within_bounds_under_every_metric(metric, options):
    actual, expected = _records()
    result = score_within(actual, expected, metric, **options)
    if metric in ("structural_f1", "field_f1") and not isinstance(result, JsonMatchError):
        # order-agnostic pairing finds every element: only the 500 changed prices cost points
        assert result.score == pytest.approx(1 - 500 / (4 * N), abs=0.02)


def test_5000_element_key_field_alignment_answers_within_bounds():
    actual, expected = _records()
    result = score_within(actual, expected, "field_f1", align={"match_by": "key_field", "key": "sku"})
    assert result.score == pytest.approx(1 - 500 / (4 * N))


def _mixed(seed: int, n: int) -> tuple[list, list]:
    kinds = [lambda i: i, lambda i: f"s{i}", lambda i: None, lambda i: i % 2 == 0,
             lambda i: {"k": i}, lambda i: [i]]
    expected = [kinds[i % len(kinds)](i) for i in range(n)]
    actual = list(expected)
    random.Random(seed).shuffle(actual)
    return actual, expected


@pytest.mark.parametrize("metric", METRICS)
def test_small_mixed_type_arrays_self_compare_to_one(metric):
    _, expected = _mixed(5, 60)
    with within(GENEROUS):
        result = match_json({"v": expected}, {"v": expected}, metric=metric)
    assert result.score == 1.0


@pytest.mark.parametrize("metric", F1_METRICS)
def test_small_shuffled_mixed_type_arrays_pair_up(metric):
    actual, expected = _mixed(5, 60)
    options = {"align": "hungarian"} if metric == "field_f1" else {}
    with within(GENEROUS):
        result = match_json({"v": actual}, {"v": expected}, metric=metric, **options)
    assert result.score == 1.0


def test_5000_shuffled_mixed_type_elements_under_hungarian_answer_within_bounds():
    actual, expected = _mixed(6, N)
    result = score_within({"v": actual}, {"v": expected}, "field_f1", align="hungarian")
    if not isinstance(result, JsonMatchError):
        assert result.score == 1.0


def test_5000_shuffled_mixed_type_elements_under_structural_f1_answer_within_bounds():
    actual, expected = _mixed(6, N)
    score_within({"v": actual}, {"v": expected}, "structural_f1")


# -- empty containers ------------------------------------------------------------------------------

EMPTIES = [{}, {"a": []}, {"a": {}}, {"a": [[]]}, {"a": [{}]}, {"a": [{}, []]}, {"a": ""},
           {"": {"": []}}, {"a": {"b": {}}, "c": [[], {}]}]


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


@pytest.mark.parametrize("metric", METRICS)
def test_empty_text_actual_is_a_parse_error_not_a_crash(metric):
    with pytest.raises(JsonMatchError) as info:
        match_json("   ", {"a": 1}, metric=metric)
    assert str(info.value) == "no JSON object found in actual: '   '"


# -- unknown names ---------------------------------------------------------------------------------

OPTIONS_OF = {
    "field_match": "align, fields, ignore, schema",
    "field_match_normalized": "align, fields, ignore, schema",
    "json_similarity": "align, fields, ignore, schema, target_output_key",
    "structural_f1": "align, array_matching_threshold, beta, fields, ignore, numeric_threshold, "
                     "numeric_weighting, schema, string_evaluator",
    "field_f1": "align, fields, ignore, post_process, schema",
}


@pytest.mark.parametrize("metric", METRICS)
def test_an_unknown_option_lists_the_metric_s_known_options(metric):
    with pytest.raises(ConfigError) as info:
        match_json({"a": 1}, {"a": 1}, metric=metric, treshold=0.9)
    assert str(info.value) == (f"unknown option 'treshold' for metric {metric!r}; "
                               f"known options: {OPTIONS_OF[metric]}")


@pytest.mark.parametrize("name", ["f1", "Field_F1", "", None, 3])
def test_an_unknown_metric_lists_the_known_metrics(name):
    with pytest.raises(ConfigError) as info:
        match_json({"a": 1}, {"a": 1}, metric=name)
    assert str(info.value) == f"unknown metric {name!r}; known metrics: {METRIC_LIST}"


def _assert_lists_builtin_comparators(message: str) -> None:
    listed = message.split("known comparators: ", 1)[1].split(", ")
    assert set(BUILTIN_COMPARATORS) <= set(listed)


@pytest.mark.parametrize("spec", ["fuzzy", {"fuzzy": {"cutoff": 0.8}}])
def test_an_unknown_comparator_in_fields_names_the_field_and_lists_comparators(spec):
    with pytest.raises(ConfigError) as info:
        match_json({"a": 1}, {"a": 1}, metric="field_f1", fields={"items[*].name": {"comparator": spec}})
    message = str(info.value)
    assert message.startswith("fields['items[*].name']: unknown comparator 'fuzzy'; known comparators: ")
    _assert_lists_builtin_comparators(message)


def test_an_unknown_comparator_in_a_schema_names_the_schema_node():
    schema = {"type": "object", "properties": {"items": {"type": "array", "items": {
        "type": "object", "properties": {"name": {"type": "string", "x-eval-compare": "fuzzy"}}}}}}
    with pytest.raises(SchemaError) as info:
        match_json({"items": []}, {"items": []}, metric="field_f1", schema=schema)
    message = str(info.value)
    assert "unknown comparator 'fuzzy'; known comparators: " in message
    assert "name" in message.split("unknown comparator")[0]  # the node it sits on
    _assert_lists_builtin_comparators(message)


def test_an_unknown_string_evaluator_lists_the_comparators():
    with pytest.raises(ConfigError) as info:
        match_json({"a": "x"}, {"a": "x"}, metric="structural_f1", string_evaluator="cosine")
    message = str(info.value)
    # names the option, then the comparator and what is known
    assert message.startswith("string_evaluator: unknown comparator 'cosine'; known comparators: ")
    _assert_lists_builtin_comparators(message)


@pytest.mark.parametrize("spec", [["uppercase"], "uppercase", [{"uppercase": {}}]])
def test_an_unknown_transform_lists_the_known_transforms(spec):
    with pytest.raises(ConfigError) as info:
        match_json({"a": "x"}, {"a": "x"}, metric="field_f1", fields={"a": {"transform": spec}})
    assert str(info.value) == f"fields['a']: unknown transform 'uppercase'; known transforms: {TRANSFORMS}"


def test_an_unknown_comparator_parameter_lists_the_known_ones():
    with pytest.raises(ConfigError) as info:
        match_json({"a": 1}, {"a": 1}, metric="field_f1",
                   fields={"a": {"comparator": {"numeric": {"absolute": 0.1}}}})
    assert str(info.value) == ("fields['a']: comparator 'numeric' has no parameter 'absolute'; "
                               "known: abs, coerce, rel, tolerance")


def test_an_unknown_post_processor_lists_the_known_ones():
    with pytest.raises(ConfigError) as info:
        match_json({"a": 1}, {"a": 1}, metric="field_f1", post_process=["reclassify_null"])
    assert str(info.value) == "unknown post-processor 'reclassify_null'; known: reclassify_nulls"


def test_an_unknown_schema_annotation_lists_the_known_ones():
    schema = {"type": "object", "properties": {"a": {"type": "number", "x-eval-comapre": "exact"}}}
    with pytest.raises(SchemaError) as info:
        match_json({"a": 1}, {"a": 1}, metric="field_f1", schema=schema)
    assert str(info.value) == ("schema node a: unknown keys ['x-eval-comapre']; known: x-eval-compare, "
                               "x-eval-transform, x-eval-align, x-eval-skip")


def test_an_unknown_alignment_says_what_is_accepted():
    with pytest.raises(ConfigError) as info:
        match_json({"a": [1]}, {"a": [1]}, metric="field_f1", align="by_magic")
    assert str(info.value) == ("align: 'by_magic' is not an alignment; use 'ordered', 'hungarian' or "
                               "{'match_by': 'key_field', 'key': NAME}")


# -- custom comparators that fail ------------------------------------------------------------------


def _priced(n: int = 5, changed: int = 3) -> tuple[dict, dict]:
    expected = {"items": [{"sku": f"s{i}", "price": float(i + 1)} for i in range(n)]}
    actual = {"items": [dict(e) for e in expected["items"]]}
    actual["items"][changed]["price"] += 10
    return actual, expected


def _fx_rate(e, a, params):
    if e != a:
        raise KeyError("no rate for EUR")
    return 1.0


PRICE_FIELD = {"items[*].price": {"comparator": "test_rel_fx"}}
SCHEMA_FX = {"type": "object", "properties": {"items": {"type": "array", "items": {
    "type": "object", "properties": {"sku": {"type": "string"},
                                     "price": {"type": "number", "x-eval-compare": "test_rel_fx"}}}}}}


@pytest.mark.parametrize(("metric", "options"), [
    ("json_similarity", {"fields": PRICE_FIELD}),
    ("field_f1", {"fields": PRICE_FIELD}),
    ("field_f1", {"schema": SCHEMA_FX}),
], ids=["json_similarity", "field_f1-fields", "field_f1-schema"])
def test_a_raising_comparator_is_named_with_the_field_path(registered, metric, options):
    registered("test_rel_fx", _fx_rate)
    actual, expected = _priced()
    with pytest.raises(ComparatorError) as info:
        match_json(actual, expected, metric=metric, **options)
    assert str(info.value) == "comparator 'test_rel_fx' raised KeyError: 'no rate for EUR' at items[3].price"


@pytest.mark.parametrize(("metric", "options"), [
    ("structural_f1", {"fields": PRICE_FIELD}),
    ("field_f1", {"fields": PRICE_FIELD, "align": "hungarian"}),
], ids=["structural_f1", "field_f1-hungarian"])
def test_a_raising_comparator_inside_paired_arrays_still_names_the_field(registered, metric, options):
    registered("test_rel_fx", _fx_rate)
    actual, expected = _priced()
    with pytest.raises(ComparatorError) as info:
        match_json(actual, expected, metric=metric, **options)
    message = str(info.value)
    assert message.startswith("comparator 'test_rel_fx' raised KeyError: 'no rate for EUR' at ")
    assert re.search(r"items\[\d*\]\.price$", message), f"the field is not named: {message!r}"


@pytest.mark.parametrize(("value", "words"), [
    (1.5, "returned 1.5, outside [0, 1]"),
    (-0.1, "returned -0.1, outside [0, 1]"),
    (float("nan"), "returned nan, outside [0, 1]"),
    (None, "returned None, not a number"),
    ("high", "returned 'high', not a number"),
    ([1.0], "returned [1.0], not a number"),
])
def test_a_comparator_returning_no_usable_score_is_named_with_the_field(registered, value, words):
    registered("test_rel_bad", lambda e, a, p: value)
    actual, expected = _priced()
    with pytest.raises(ComparatorError) as info:
        match_json(actual, expected, metric="field_f1", fields={"items[*].price": {"comparator": "test_rel_bad"}})
    assert str(info.value) == f"comparator 'test_rel_bad' {words} at items[0].price"


@pytest.mark.parametrize("metric", ["structural_f1", "field_f1"])
def test_an_out_of_range_score_inside_paired_arrays_still_names_the_field(registered, metric):
    registered("test_rel_bad", lambda e, a, p: 1.5)
    actual, expected = _priced()
    options = {"align": "hungarian"} if metric == "field_f1" else {}
    with pytest.raises(ComparatorError) as info:
        match_json(actual, expected, metric=metric, fields={"items[*].price": {"comparator": "test_rel_bad"}},
                   **options)
    message = str(info.value)
    assert message.startswith("comparator 'test_rel_bad' returned 1.5, outside [0, 1] at ")
    assert re.search(r"items\[\d*\]\.price$", message), f"the field is not named: {message!r}"


def test_a_comparator_error_in_a_golden_case_names_file_case_and_path(pytester):
    pytester.makeconftest("""
        def pytest_jsonmatch_register(registry):
            def fx(e, a, params):
                if e != a:
                    raise KeyError("no rate for EUR")
                return 1.0
            registry.register_comparator("fx", fx, overwrite=True)
    """)
    pytester.path.joinpath("c.jsonmatch.yaml").write_text(textwrap.dedent("""\
        metric: field_f1
        options:
          fields: {"items[*].price": {comparator: fx}}
        cases:
          - id: eur-invoice
            expected: {items: [{price: 1}, {price: 2}]}
            actual: {items: [{price: 1}, {price: 3}]}
        """))
    with within(GENEROUS):
        result = pytester.runpytest_inprocess("-p", "no:cacheprovider", "-p", "no:hypothesispytest",
                                              "-p", "no:benchmark")
    result.assert_outcomes(failed=1)
    out = result.stdout.str()
    assert "Traceback" not in out
    result.stdout.fnmatch_lines(["c.jsonmatch.yaml:5: case 'eur-invoice': comparator 'fx' raised "
                                 "KeyError: 'no rate for EUR' at items[1].price"])


# -- batch comparators (an LLM judge) that fail for some fields -------------------------------------


def _flaky_judge(items):
    out = []
    for item in items:
        if item.path == "items[1].price":
            out.append(RuntimeError("rate limited"))
        elif item.path == "items[3].price":
            out.append(None)
        else:
            out.append(1.0)
    return out


def test_a_judge_failing_for_some_fields_names_each_field_and_why(registered):
    registered("test_rel_judge", _flaky_judge, batch=True)
    actual, expected = _priced()
    with pytest.raises(ComparatorError) as info:
        match_json(actual, expected, metric="field_f1", fields={"items[*].price": {"comparator": "test_rel_judge"}})
    assert str(info.value) == ("batch comparator 'test_rel_judge' gave no usable score for: "
                               "items[1].price (RuntimeError('rate limited')); items[3].price (no answer)")


def test_a_judge_raising_names_every_field_it_was_asked_about(registered):
    def down(items):
        raise TimeoutError("LLM API timed out")

    registered("test_rel_judge", down, batch=True)
    actual, expected = _priced(n=3, changed=1)
    with pytest.raises(ComparatorError) as info:
        match_json(actual, expected, metric="json_similarity", fields={"items[*].price": {"comparator": "test_rel_judge"}})
    assert str(info.value) == ("batch comparator 'test_rel_judge' failed for 3 field(s) (items[0].price, "
                               "items[1].price, items[2].price): TimeoutError: LLM API timed out")


def test_a_judge_answering_too_few_fields_names_the_unanswered_ones(registered):
    registered("test_rel_judge", lambda items: [1.0, 1.0], batch=True)
    actual, expected = _priced(n=3, changed=1)
    with pytest.raises(ComparatorError) as info:
        match_json(actual, expected, metric="field_f1", fields={"items[*].price": {"comparator": "test_rel_judge"}})
    assert str(info.value) == "batch comparator 'test_rel_judge' gave no usable score for: items[2].price (no answer)"


def test_a_judge_answering_out_of_range_names_the_field_and_value(registered):
    registered("test_rel_judge", lambda items: [7.0 if i.path == "items[2].price" else 1.0 for i in items],
               batch=True)
    actual, expected = _priced(n=3, changed=1)
    with pytest.raises(ComparatorError) as info:
        match_json(actual, expected, metric="field_f1", fields={"items[*].price": {"comparator": "test_rel_judge"}})
    assert str(info.value) == ("batch comparator 'test_rel_judge' gave no usable score for: items[2].price "
                               "(comparator 'test_rel_judge' returned 7.0, outside [0, 1])")


@pytest.mark.parametrize(("metric", "options"), [("structural_f1", {}), ("field_f1", {"align": "hungarian"})],
                         ids=["structural_f1", "field_f1-hungarian"])
def test_a_working_judge_given_through_fields_scores_paired_arrays(registered, metric, options):
    registered("test_rel_judge", lambda items: [1.0] * len(items), batch=True)
    actual, expected = _priced(n=3, changed=1)
    with within(GENEROUS):
        result = match_json(actual, expected, metric=metric,
                            fields={"items[*].price": {"comparator": "test_rel_judge"}}, **options)
    assert result.score == 1.0


@pytest.mark.parametrize(("metric", "options"), [("structural_f1", {}), ("field_f1", {"align": "hungarian"})],
                         ids=["structural_f1", "field_f1-hungarian"])
def test_a_judge_failing_inside_paired_arrays_names_the_fields(registered, metric, options):
    registered("test_rel_judge", _flaky_judge, batch=True)
    actual, expected = _priced()
    with pytest.raises(ComparatorError) as info:
        match_json(actual, expected, metric=metric,
                   fields={"items[*].price": {"comparator": "test_rel_judge"}}, **options)
    message = str(info.value)
    assert message.startswith("batch comparator 'test_rel_judge' ")
    assert "rate limited" in message and re.search(r"items\[\d*\]\.price", message), message


@pytest.mark.parametrize(("expected", "actual"), [
    ([[1], [2]], [[2], [1]]),
    ([["a"], ["b"], ["c"]], [["c"], ["a"], ["b"]]),
], ids=["numbers", "strings"])
def test_shuffled_arrays_of_arrays_pair_up_under_structural_f1(expected, actual):
    # element order does not matter for structural_f1, at any depth
    with within(GENEROUS):
        result = match_json({"v": actual}, {"v": expected}, metric="structural_f1")
    assert result.score == 1.0, [(f.path, f.status) for f in result.fields]
