"""field_match and field_match_normalized (Galtea), metrics.md section 4."""

from __future__ import annotations

import unicodedata

import pytest

from pytest_jsonmatch import match_json


def fm(actual, expected, **options):
    return match_json(actual, expected, metric="field_match", **options)


def fmn(actual, expected, **options):
    return match_json(actual, expected, metric="field_match_normalized", **options)


# -- field_match ------------------------------------------------------------------------------


def test_worked_example_missing_key_halves_the_score():
    # expected {"a":1,"b":"x"}, actual {"a":1}: 1 - 1/2
    assert fm({"a": 1}, {"a": 1, "b": "x"}).score == 0.5


def test_worked_example_string_thirty_does_not_match_number_thirty():
    assert fm({"a": "30"}, {"a": 30}).score == 0.0


def test_empty_expected_scores_one():
    assert fm({"x": 1, "y": [2]}, {}).score == 1.0


def test_score_is_one_minus_non_matching_over_total():
    # 4 expected fields; d missing, c wrong -> 1 - 2/4
    result = fm({"a": 1, "b": 2, "c": 0}, {"a": 1, "b": 2, "c": 3, "d": 4})
    assert result.score == 0.5


def test_extra_actual_keys_are_ignored():
    result = fm({"a": 1, "z": 99, "w": {"q": 1}}, {"a": 1})
    assert result.score == 1.0
    assert result.precision == 1.0
    assert [f.path for f in result.fields] == ["a"]


def test_fields_are_the_top_level_keys_of_expected():
    result = fm({"a": {"x": 1, "y": 2}, "b": [1, 2]}, {"a": {"x": 1, "y": 2}, "b": [1, 2]})
    assert [f.path for f in result.fields] == ["a", "b"]


def test_nested_object_needs_the_same_key_set():
    assert fm({"o": {"x": 1, "y": 2, "z": 3}}, {"o": {"x": 1, "y": 2}}).score == 0.0


def test_nested_object_key_order_does_not_matter():
    assert fm({"o": {"y": 2, "x": 1}}, {"o": {"x": 1, "y": 2}}).score == 1.0


def test_arrays_compare_in_order():
    assert fm({"t": [2, 1]}, {"t": [1, 2]}).score == 0.0


def test_arrays_must_have_the_same_length():
    assert fm({"t": [1, 2, 3]}, {"t": [1, 2]}).score == 0.0


def test_strings_compare_case_sensitively():
    assert fm({"c": "paris"}, {"c": "Paris"}).score == 0.0


def test_null_matches_only_null():
    assert fm({"a": None}, {"a": None}).score == 1.0
    assert fm({"a": "None"}, {"a": None}).score == 0.0
    assert fm({"a": None}, {"a": 0}).score == 0.0


def test_null_value_and_missing_key_differ():
    assert fm({}, {"a": None}).score == 0.0


def test_boolean_inside_array_is_not_a_number():
    assert fm({"t": [1, 0]}, {"t": [True, False]}).score == 0.0


def test_number_inside_nested_object_compares_by_value():
    assert fm({"o": {"n": [1.0, 2.50]}}, {"o": {"n": [1, 2.5]}}).score == 1.0


def test_missing_key_is_an_omission_wrong_value_a_mismatch():
    result = fm({"a": 1, "b": 0}, {"a": 1, "b": 2, "c": 3})
    assert [(f.path, f.status, f.score) for f in result.fields] == [
        ("a", "match", 1.0),
        ("b", "mismatch", 0.0),
        ("c", "omission", 0.0),
    ]


def test_field_match_accounting_with_an_omission():
    # a match, b omission: TP 1; P = 1/1; R = 1/2; F1 = 2*1*0.5/1.5 = 2/3
    result = fm({"a": 1}, {"a": 1, "b": "x"})
    assert result.precision == 1.0
    assert result.recall == 0.5
    assert result.f1 == pytest.approx(2 / 3)


def test_field_match_accounting_with_a_mismatch():
    # a match, b mismatch: TP 1; P = 1/2; R = 1/2; F1 = 0.5
    result = fm({"a": 1, "b": 3}, {"a": 1, "b": 2})
    assert (result.precision, result.recall, result.f1) == (0.5, 0.5, 0.5)


def test_actual_text_is_parsed_leniently():
    assert fm('The result:\n```json\n{"a": 1, "b": "x"}\n```', {"a": 1, "b": "x"}).score == 1.0


def test_expected_text_is_parsed_strictly():
    assert fm({"a": 1}, '{"a": 1}').score == 1.0


def test_passed_compares_score_with_threshold():
    result = fm({"a": 1, "b": 2, "c": 3}, {"a": 1, "b": 2, "c": 3, "d": 4})  # 0.75
    assert result.score == 0.75
    assert result.passed(0.75)
    assert not result.passed(0.8)


# -- field_match_normalized ---------------------------------------------------------------------


def test_normalized_folds_case():
    assert fmn({"a": "si"}, {"a": "SI"}).score == 1.0


def test_normalized_drops_accents():
    assert fmn({"a": "SI"}, {"a": "Sí"}).score == 1.0
    assert fmn({"a": "Jose"}, {"a": "José"}).score == 1.0


def test_normalized_casefold_sharp_s_matches_double_s():
    assert fmn({"a": "STRASSE"}, {"a": "Straße"}).score == 1.0


def test_normalized_nfc_and_nfd_forms_match():
    nfc = unicodedata.normalize("NFC", "Crème brûlée")
    nfd = unicodedata.normalize("NFD", "Crème brûlée")
    assert nfc != nfd
    assert fmn({"a": nfd}, {"a": nfc}).score == 1.0


def test_plain_field_match_does_not_fold():
    assert fm({"a": "jose"}, {"a": "José"}).score == 0.0


def test_normalized_keeps_array_order():
    assert fmn({"roles": ["user", "admin"]}, {"roles": ["ADMIN", "USER"]}).score == 0.0


def test_normalized_folds_strings_inside_arrays_in_order():
    assert fmn({"roles": ["admin", "user"]}, {"roles": ["ADMIN", "USER"]}).score == 1.0


def test_normalized_recurses_into_nested_objects():
    assert (
        fmn({"o": {"city": "zurich", "t": ["ÉTÉ"]}}, {"o": {"city": "Zürich", "t": ["été"]}}).score
        == 1.0
    )


def test_normalized_keeps_whitespace():
    assert fmn({"a": "newyork"}, {"a": "New York"}).score == 0.0
    assert fmn({"a": "new  york"}, {"a": "New York"}).score == 0.0
    assert fmn({"a": " new york"}, {"a": "New York"}).score == 0.0


def test_normalized_does_not_fold_keys():
    assert fmn({"o": {"name": "x"}}, {"o": {"Name": "x"}}).score == 0.0
    assert fmn({"name": "x"}, {"Name": "x"}).score == 0.0


def test_normalized_compares_non_strings_strictly():
    assert fmn({"a": "30"}, {"a": 30}).score == 0.0
    assert fmn({"a": True}, {"a": 1}).score == 0.0
    assert fmn({"a": "true"}, {"a": True}).score == 0.0


def test_normalized_worked_halves():
    # b normalizes equal, c differs: 1 - 1/2
    assert fmn({"b": "cafe", "c": "tea"}, {"b": "Café", "c": "Coffee"}).score == 0.5
