"""json_similarity (UiPath JSON Similarity), metrics.md section 4."""

from __future__ import annotations

import pytest

from pytest_jsonmatch import JsonMatchError, match_json


def js(actual, expected, **options):
    return match_json(actual, expected, metric="json_similarity", **options)


# -- the document's examples ------------------------------------------------------------------


def test_doc_example_identical_scores_one():
    doc = {"name": "John Doe", "age": 30, "city": "New York"}
    assert js(dict(doc), doc).score == 1.0


def test_doc_example_numeric_20_3_vs_20_5_follows_the_formula():
    # temperature: 1 - |20.3 - 20.5| / 20.3 = 1 - 0.2/20.3 = 0.990147...; humidity 65 = 65 -> 1
    # score = (0.990147... + 1) / 2 = 0.9950738...
    result = js({"temperature": 20.5, "humidity": 65}, {"temperature": 20.3, "humidity": 65})
    assert result.score == pytest.approx((1 - 0.2 / 20.3 + 1) / 2)
    assert result.score == pytest.approx(0.99507, abs=1e-5)


def test_doc_example_typo_scores_levenshtein_similarity():
    # "completed sucessfully" (21) vs "completed successfully" (22): one insertion
    # 1 - 1/22 = 0.954545...
    result = js({"status": "completed successfully"}, {"status": "completed sucessfully"})
    assert result.score == pytest.approx(1 - 1 / 22)
    assert result.score == pytest.approx(0.9545, abs=1e-4)


def test_doc_example_nested_identical_scores_one():
    doc = {
        "user": {"name": "Alice", "profile": {"age": 25, "location": "Paris"}},
        "status": "active",
    }
    assert js(doc, doc).score == 1.0


def test_doc_example_array_scores_by_formula_not_two_thirds():
    # apple 1, banana 1, grape vs orange: levenshtein 3 (g->o, p->n, insert g), max len 6
    # -> 1 - 3/6 = 0.5; score = (1 + 1 + 0.5) / 3 = 0.8333...
    result = js({"items": ["apple", "banana", "orange"]}, {"items": ["apple", "banana", "grape"]})
    assert result.score == pytest.approx(2.5 / 3)


def test_doc_example_extra_keys_are_ignored():
    assert (
        js({"name": "Bob", "age": 30, "extra_field": "ignored"}, {"name": "Bob", "age": 30}).score
        == 1.0
    )


def test_mixed_worked_example():
    # name: lev(John, Jon) = 1, max 4 -> 0.75; age: 1 - 3/30 = 0.9;
    # tags: a = a -> 1, b vs x -> 0, c missing -> 0; addr.city 1; addr.zip (null) missing -> 0
    # matched = 0.75 + 0.9 + 1 + 0 + 0 + 1 + 0 = 3.65 over 7 leaves
    expected = {
        "name": "John",
        "age": 30,
        "tags": ["a", "b", "c"],
        "addr": {"city": "Paris", "zip": None},
    }
    actual = {"name": "Jon", "age": 27, "tags": ["a", "x"], "addr": {"city": "Paris"}, "extra": 1}
    assert js(actual, expected).score == pytest.approx(3.65 / 7)


# -- strings ----------------------------------------------------------------------------------


def test_string_similarity_is_one_minus_distance_over_longer_length():
    # kitten -> sitting: 3 edits, longer length 7
    assert js({"s": "sitting"}, {"s": "kitten"}).score == pytest.approx(1 - 3 / 7)


def test_string_similarity_is_case_sensitive():
    assert js({"s": "paris"}, {"s": "Paris"}).score == pytest.approx(0.8)


def test_string_similarity_counts_code_points():
    # one substitution over 4 code points (5 UTF-8 bytes) -> 0.75
    assert js({"s": "cafe"}, {"s": "café"}).score == pytest.approx(0.75)
    # one substitution over 2 code points (astral characters are one code point each)
    assert js({"s": "\U0001f601a"}, {"s": "\U0001f600a"}).score == pytest.approx(0.5)


def test_two_empty_strings_score_one():
    assert js({"s": ""}, {"s": ""}).score == 1.0


def test_empty_against_non_empty_string_scores_zero():
    assert js({"s": "abc"}, {"s": ""}).score == 0.0


def test_transposition_counts_two_edits():
    # levenshtein has no transpositions: "ab" -> "ba" is 2 edits over length 2
    assert js({"s": "ba"}, {"s": "ab"}).score == 0.0


# -- numbers ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "expected, actual, score",
    [
        (100, 90, 0.9),
        (100, 110, 0.9),
        (100, 50, 0.5),
        (50, 100, 0.0),  # 1 - 50/50: relative to expected, asymmetric
        (100, 250, 0.0),  # 1 - 1.5 floored at 0
        (-10, 10, 0.0),  # 1 - 20/10 floored
        (10, 0, 0.0),
        (-4, -3, 0.75),
    ],
)
def test_number_similarity_is_relative_to_expected(expected, actual, score):
    assert js({"n": actual}, {"n": expected}).score == pytest.approx(score)


@pytest.mark.parametrize(
    "expected, actual, score",
    [
        (0, 0, 1.0),
        (0, 1e-13, 1.0),
        (0, -1e-12, 1.0),
        (0, 0.001, 0.0),
        (1e-13, 5, 0.0),
        (1e-13, 0, 1.0),
    ],
)
def test_expected_near_zero_is_binary(expected, actual, score):
    assert js({"n": actual}, {"n": expected}).score == score


# -- other leaves ---------------------------------------------------------------------------


def test_booleans_compare_exactly():
    assert js({"b": True}, {"b": True}).score == 1.0
    assert js({"b": False}, {"b": True}).score == 0.0


def test_null_equals_only_null():
    assert js({"z": None}, {"z": None}).score == 1.0
    assert js({"z": "x"}, {"z": None}).score == 0.0
    assert js({"z": None}, {"z": "x"}).score == 0.0
    assert js({"z": 0}, {"z": None}).score == 0.0


def test_null_counts_as_a_leaf():
    # expected null missing from actual: 1 of 2 leaves
    assert js({"a": 1}, {"a": 1, "z": None}).score == 0.5


def test_type_difference_scores_zero_for_every_leaf_below():
    # o holds 2 leaves, actual has a number there: 1 matched of 3
    assert js({"a": 1, "o": 5}, {"a": 1, "o": {"x": 1, "y": 2}}).score == pytest.approx(1 / 3)
    assert js({"a": 1, "o": [1, 2]}, {"a": 1, "o": {"x": 1, "y": 2}}).score == pytest.approx(1 / 3)


def test_number_string_against_number_is_a_type_difference():
    assert js({"n": "30"}, {"n": 30}).score == 0.0


# -- structure ----------------------------------------------------------------------------


def test_empty_containers_have_no_leaves():
    # e and l contribute nothing, whatever actual holds there
    assert js({"a": 1, "e": 5, "l": "x"}, {"a": 1, "e": {}, "l": []}).score == 1.0


def test_expected_without_leaves_scores_one():
    assert js({"x": 1}, {}).score == 1.0
    assert js({}, {"a": []}).score == 1.0


def test_missing_key_scores_zero_for_all_its_leaves():
    assert js({"a": 1}, {"a": 1, "o": {"x": 1, "y": 2}}).score == pytest.approx(1 / 3)


def test_arrays_compare_by_index_surplus_expected_scores_zero():
    assert js({"t": ["a", "b"]}, {"t": ["a", "b", "c"]}).score == pytest.approx(2 / 3)


def test_arrays_compare_by_index_surplus_actual_is_ignored():
    assert js({"t": ["a", "b", "c", "d"]}, {"t": ["a", "b", "c"]}).score == 1.0


def test_arrays_compare_by_index_even_with_align_hungarian():
    # a vs b and b vs a: each 1 - 1/1 = 0
    assert js({"t": ["b", "a"]}, {"t": ["a", "b"]}, align="hungarian").score == 0.0


def test_nested_arrays_of_objects_by_index():
    # t[0].n "ab" vs "ab" 1; t[1].n "cd" vs "ce" 0.5; t[1].v 4 vs 5: 1 - 1/4 = 0.75
    expected = {"t": [{"n": "ab"}, {"n": "cd", "v": 4}]}
    actual = {"t": [{"n": "ab"}, {"n": "ce", "v": 5}]}
    assert js(actual, expected).score == pytest.approx((1 + 0.5 + 0.75) / 3)


# -- accounting -------------------------------------------------------------------------------


def test_json_similarity_accounting_partial_credit_and_omission():
    # a: "abc" vs "abd" -> 2/3 (mismatch); b omitted
    # TP = 2/3; P = (2/3)/1; R = (2/3)/2 = 1/3; F1 = 2*(2/3)*(1/3)/(2/3+1/3) = 4/9
    result = js({"a": "abd"}, {"a": "abc", "b": 1})
    assert result.score == pytest.approx(1 / 3)
    assert result.precision == pytest.approx(2 / 3)
    assert result.recall == pytest.approx(1 / 3)
    assert result.f1 == pytest.approx(4 / 9)
    assert [(f.path, f.status) for f in result.fields] == [("a", "mismatch"), ("b", "omission")]


def test_partial_credit_stays_in_the_field_score():
    result = js({"n": 90}, {"n": 100})
    (field,) = result.fields
    assert field.status == "mismatch"
    assert field.score == pytest.approx(0.9)


# -- target_output_key ------------------------------------------------------------------------


def test_target_output_key_compares_only_that_key():
    # result.a 1 = 1; result.b: 1 - |2 - 3|/2 = 0.5; "other" is not looked at
    expected = {"result": {"a": 1, "b": 2}, "other": 5}
    actual = {"result": {"a": 1, "b": 3}, "other": 999}
    assert js(actual, expected, target_output_key="result").score == pytest.approx(0.75)


def test_target_output_key_star_compares_everything():
    # whole output: a 1, b 0.5, other 1 - 994/5 floored to 0 -> 1.5/3
    expected = {"result": {"a": 1, "b": 2}, "other": 5}
    actual = {"result": {"a": 1, "b": 3}, "other": 999}
    assert js(actual, expected, target_output_key="*").score == pytest.approx(0.5)


def test_target_output_key_missing_from_actual_is_an_error():
    with pytest.raises(JsonMatchError):
        js({"other": 1}, {"result": 1}, target_output_key="result")


def test_target_output_key_missing_from_expected_is_an_error():
    with pytest.raises(JsonMatchError):
        js({"result": 1}, {"other": 1}, target_output_key="result")
