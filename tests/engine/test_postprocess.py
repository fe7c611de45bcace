"""Post-processing (engine/postprocess.py): reclassify_nulls, given as a function, by its
registered name, or applied to field results directly; an unknown post-processor is a
ConfigError listing the known ones."""

from __future__ import annotations

import pytest

from pytest_jsonmatch import ConfigError, match_json, reclassify_nulls


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


def test_an_unknown_post_processor_lists_the_known_ones():
    with pytest.raises(ConfigError) as info:
        match_json({"a": 1}, {"a": 1}, metric="field_f1", post_process=["reclassify_null"])
    assert str(info.value) == "unknown post-processor 'reclassify_null'; known: reclassify_nulls"
