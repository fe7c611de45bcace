"""field_f1 (struct-extract-eval): statuses, schema-driven walk, inferred schema, accounting."""

from __future__ import annotations

import pytest

from pytest_jsonmatch import match_json


def ff(actual, expected, **options):
    return match_json(actual, expected, metric="field_f1", **options)


def rows(result):
    return [(f.path, f.status, f.score) for f in result.fields]


def obj(**props):
    return {"type": "object", "properties": props}


INT = {"type": "integer"}
STR = {"type": "string"}


def test_reference_worked_example():
    # name match; temp 1.0 vs 1.5 mismatch (numeric, exact value); tags[0] match;
    # tags[1] omission; meta.a, meta.b omissions; extra (unknown to the schema) one hallucination
    # P = 2 / (2 + 1 + 1) = 0.5; R = 2 / (2 + 1 + 3) = 1/3; F1 = 2*0.5*(1/3)/(5/6) = 0.4
    expected = {"name": "A", "temp": 1.0, "tags": ["x", "y"], "meta": {"a": 1, "b": 2}}
    actual = {"name": "A", "temp": 1.5, "tags": ["x"], "extra": 5}
    result = ff(actual, expected)
    assert [(f.path, f.status) for f in result.fields] == [
        ("name", "match"),
        ("temp", "mismatch"),
        ("tags[0]", "match"),
        ("tags[1]", "omission"),
        ("meta.a", "omission"),
        ("meta.b", "omission"),
        ("extra", "hallucination"),
    ]
    assert result.precision == 0.5
    assert result.recall == pytest.approx(1 / 3)
    assert result.f1 == pytest.approx(0.4)
    assert result.score == pytest.approx(0.4)


def test_identical_records_score_one():
    doc = {"a": 1, "b": "x", "c": [True, False], "d": {"e": None, "f": 2.5}}
    result = ff(doc, doc)
    assert result.score == 1.0
    assert {f.status for f in result.fields} == {"match"}


def test_fields_are_in_document_order_of_expected():
    result = ff({"a": 2, "c": 3, "b": 1}, {"b": 1, "a": 2, "c": 3})
    assert [f.path for f in result.fields] == ["b", "a", "c"]


def test_mismatch_keeps_both_values():
    (field,) = ff({"a": "y"}, {"a": "x"}).fields
    assert (field.status, field.score, field.expected, field.actual) == ("mismatch", 0.0, "x", "y")
    assert field.comparator == "exact"


def test_omission_expands_to_every_leaf_it_holds():
    result = ff({}, {"o": {"a": 1, "b": {"c": 2, "d": [3, 4]}}})
    assert [(f.path, f.status) for f in result.fields] == [
        ("o.a", "omission"),
        ("o.b.c", "omission"),
        ("o.b.d[0]", "omission"),
        ("o.b.d[1]", "omission"),
    ]
    assert result.recall == 0.0


def test_hallucination_of_a_schema_field_expands_to_every_leaf():
    schema = obj(o=obj(a=INT, b=INT))
    result = ff({"o": {"a": 1, "b": 2}}, {}, schema=schema)
    assert [(f.path, f.status) for f in result.fields] == [
        ("o.a", "hallucination"),
        ("o.b", "hallucination"),
    ]
    assert result.precision == 0.0


def test_unknown_extracted_key_is_one_hallucination():
    # junk holds 5 leaves but the schema does not know it: one hallucination
    # P = 1/2, R = 1/1, F1 = 2/3
    result = ff({"a": 1, "junk": {"x": 1, "y": [1, 2, 3], "z": "q"}}, {"a": 1})
    assert [(f.path, f.status) for f in result.fields] == [
        ("a", "match"),
        ("junk", "hallucination"),
    ]
    assert result.f1 == pytest.approx(2 / 3)


def test_expected_key_unknown_to_an_explicit_schema_is_skipped():
    schema = obj(a=INT)
    result = ff({"a": 1, "b": 5}, {"a": 1, "b": 2}, schema=schema)
    assert [(f.path, f.status) for f in result.fields] == [("a", "match"), ("b", "skipped")]
    assert result.score == 1.0


def test_schema_field_absent_on_both_sides_is_nothing():
    schema = obj(a=INT, b=INT)
    result = ff({"a": 1}, {"a": 1}, schema=schema)
    assert [f.path for f in result.fields] == ["a"]


def test_x_eval_skip_field_is_skipped_and_counted_nowhere():
    schema = obj(a=INT, b={"type": "integer", "x-eval-skip": True})
    result = ff({"a": 1, "b": 999}, {"a": 1, "b": 2}, schema=schema)
    assert ("b", "skipped") in [(f.path, f.status) for f in result.fields]
    assert (result.precision, result.recall, result.f1) == (1.0, 1.0, 1.0)


def test_zero_denominators_give_one():
    result = ff({}, {})
    assert (result.precision, result.recall, result.f1) == (1.0, 1.0, 1.0)


def test_all_mismatches_give_f1_zero():
    result = ff({"a": 2, "b": "y"}, {"a": 1, "b": "x"})
    assert (result.precision, result.recall, result.f1) == (0.0, 0.0, 0.0)


def test_only_omissions_give_precision_one_recall_zero():
    result = ff({}, {"a": 1})
    assert (result.precision, result.recall, result.f1) == (1.0, 0.0, 0.0)


def test_only_hallucinations_give_precision_zero_recall_one():
    result = ff({"a": 1, "b": 2}, {}, schema=obj(a=INT, b=INT))
    assert (result.precision, result.recall, result.f1) == (0.0, 1.0, 0.0)


def test_match_mismatch_omission_accounting():
    # a match, b mismatch, c omission -> P = 1/2, R = 1/3, F1 = 2*(1/6)/(5/6) = 0.4
    result = ff({"a": 1, "b": 0}, {"a": 1, "b": 2, "c": 3})
    assert result.precision == 0.5
    assert result.recall == pytest.approx(1 / 3)
    assert result.f1 == pytest.approx(0.4)


# -- inferred schema defaults ---------------------------------------------------------------


def test_inferred_strings_compare_exactly():
    assert ff({"s": "abc "}, {"s": "abc"}).score == 0.0
    assert ff({"s": "ABC"}, {"s": "abc"}).score == 0.0


def test_inferred_numbers_compare_by_exact_value():
    assert ff({"n": 3.0}, {"n": 3}).score == 1.0
    assert ff({"n": 3.0000001}, {"n": 3}).score == 0.0


def test_inferred_booleans_compare_exactly():
    assert ff({"b": False}, {"b": True}).score == 0.0
    assert ff({"b": True}, {"b": True}).score == 1.0


def test_inferred_type_is_that_of_the_first_non_null_value():
    # items pool [null, 5]: items are numbers, so 5.0 matches 5 (numeric, by value)
    result = ff({"t": [None, 5.0]}, {"t": [None, 5]})
    assert result.score == 1.0


def test_numeric_string_is_not_a_number():
    result = ff({"a": "30"}, {"a": 30})
    assert [(f.status, f.score) for f in result.fields] == [("mismatch", 0.0)]


def test_true_is_not_one_under_numeric():
    assert ff({"a": True}, {"a": 1}).score == 0.0


def test_numeric_coerce_accepts_a_numeric_string():
    options = {"fields": {"a": {"comparator": {"numeric": {"coerce": True}}}}}
    assert ff({"a": "30"}, {"a": 30}, **options).score == 1.0
    assert ff({"a": " 30.0 "}, {"a": 30}, **options).score == 1.0


def test_numeric_coerce_in_the_schema():
    schema = obj(a={"type": "number", "x-eval-compare": {"numeric": {"coerce": True}}})
    assert ff({"a": "2.5"}, {"a": 2.5}, schema=schema).score == 1.0


def test_numeric_coerce_still_rejects_a_non_numeric_string():
    options = {"fields": {"a": {"comparator": {"numeric": {"coerce": True}}}}}
    assert ff({"a": "thirty"}, {"a": 30}, **options).score == 0.0


# -- containers ---------------------------------------------------------------------------


def test_both_empty_arrays_match():
    result = ff({"t": []}, {"t": []})
    assert result.score == 1.0


def test_container_against_scalar_is_one_mismatch():
    result = ff({"o": 5}, {"o": {"a": 1, "b": 2}})
    assert [f.status for f in result.fields] == ["mismatch"]
    assert result.f1 == 0.0


def test_one_sided_null_object_holds_no_fields():
    # expected o is null, actual holds the object the schema describes: its two leaves are
    # hallucinations (inferred from expected alone, o would be a string, so the schema is given)
    schema = obj(o=obj(a=INT, b=INT))
    result = ff({"o": {"a": 1, "b": 2}}, {"o": None}, schema=schema)
    assert [(f.path, f.status) for f in result.fields] == [
        ("o.a", "hallucination"),
        ("o.b", "hallucination"),
    ]


def test_comparator_on_a_container_compares_it_whole():
    schema = obj(
        o={"type": "object", "properties": {"a": INT, "b": INT}, "x-eval-compare": "exact"}
    )
    result = ff({"o": {"a": 1, "b": 3}}, {"o": {"a": 1, "b": 2}}, schema=schema)
    assert rows(result) == [("o", "mismatch", 0.0)]


def test_schema_given_as_a_json_file(tmp_path):
    import json

    path = tmp_path / "schema.json"
    path.write_text(json.dumps(obj(a=INT, b={"type": "string", "x-eval-skip": True})))
    result = ff({"a": 1, "b": "no"}, {"a": 1, "b": "yes"}, schema=str(path))
    assert [(f.path, f.status) for f in result.fields] == [("a", "match"), ("b", "skipped")]


def test_schema_given_as_a_yaml_file(tmp_path):
    path = tmp_path / "schema.yaml"
    path.write_text(
        "type: object\nproperties:\n  a:\n    type: string\n    x-eval-transform: [lowercase]\n"
    )
    assert ff({"a": "ABC"}, {"a": "abc"}, schema=path).score == 1.0


def test_empty_expected_object_is_compared_whole():
    # As in struct-extract-eval: an object node with no properties has no children, so it
    # is a leaf compared with `exact`. {} vs {"a": 1} is one mismatch at the root.
    # P = 0/1, R = 0/1, F1 = 0
    result = ff({"a": 1}, {})
    assert [(f.path, f.status) for f in result.fields] == [("", "mismatch")]
    assert (result.precision, result.recall, result.f1) == (0.0, 0.0, 0.0)


def test_empty_expected_nested_object_is_one_field():
    # o: {} vs {"a": 1} -> one mismatch at `o`; b matches. P = R = 1/2, F1 = 1/2
    result = ff({"o": {"a": 1}, "b": 2}, {"o": {}, "b": 2})
    assert [(f.path, f.status) for f in result.fields] == [("o", "mismatch"), ("b", "match")]
    assert result.f1 == pytest.approx(0.5)
