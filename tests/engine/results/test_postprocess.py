"""Post-processing (engine/results/post_processors.py): reclassify_nulls, given as a function, by its
registered name, or applied to field results directly; an unknown post-processor is a
ConfigError listing the known ones."""

from __future__ import annotations

import pytest

from pytest_jsonmatch import ComparatorError, ConfigError, match_json, reclassify_nulls


def test_reclassify_nulls_turns_null_against_value_into_omission_or_hallucination():
    expected = {"a": "x", "b": None, "c": None, "d": "z"}
    actual = {"a": None, "b": "y", "c": None, "d": "z"}
    plain = match_json(actual, expected, metric="field_f1")
    assert [f.status for f in plain.fields] == ["mismatch", "mismatch", "match", "match"]
    result = match_json(actual, expected, metric="field_f1", post_process=reclassify_nulls)
    assert [(f.path, f.status, f.score) for f in result.fields] == [
        ("a", "omission", 0.0),
        ("b", "hallucination", 0.0),
        ("c", "skipped", 0.0),
        ("d", "match", 1.0),
    ]
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
    schema = {
        "type": "object",
        "properties": {"o": {"type": "object", "properties": {"a": {"type": "integer"}}}},
    }
    fields = match_json({"o": 5}, {"o": {"a": 1}}, metric="field_f1", schema=schema).fields
    assert [f.status for f in reclassify_nulls(fields)] == ["mismatch"]


def test_unknown_post_processor_is_a_config_error():
    with pytest.raises(ConfigError, match="reclassify_nulls"):
        match_json({"a": 1}, {"a": 1}, metric="field_f1", post_process="no_such_post_processor")


def test_an_unknown_post_processor_lists_the_known_ones():
    with pytest.raises(ConfigError) as info:
        match_json({"a": 1}, {"a": 1}, metric="field_f1", post_process=["reclassify_null"])
    assert str(info.value) == (
        "unknown post-processor 'reclassify_null' (did you mean "
        "'reclassify_nulls'?); known: propagate_batch_errors, reclassify_nulls"
    )


# -- reclassify_nulls reads the values after the field's transforms (as extract-eval does) ------


def test_reclassify_nulls_reads_values_after_the_field_s_transforms():
    import functools

    schema = {
        "type": "object",
        "properties": {
            "a": {"type": "string", "x-eval-transform": ["strip"]},
            "b": {"type": "string"},
        },
    }
    empty_is_absent = functools.partial(reclassify_nulls, absent_values=(None, ""))
    result = match_json(
        {"a": "   ", "b": "   "},
        {"a": "x", "b": "x"},
        schema=schema,
        post_process=[empty_is_absent],
    )
    # a: "   " stripped is "", which is absent: an omission. b (no transform) stays "   ": a mismatch
    assert [(f.path, f.status) for f in result.fields] == [("a", "omission"), ("b", "mismatch")]
    assert result.fields[0].compared == ("x", "") and result.fields[0].actual == "   "
    assert result.fields[1].compared is None


def test_reclassify_nulls_leaves_batch_errors_alone():
    from pytest_jsonmatch import FieldResult

    failed = FieldResult("a", "batch_error", 0.0, "x", None, "judge", "gave no answer", "a")
    assert reclassify_nulls([failed]) == [failed]


# -- propagate_batch_errors ----------------------------------------------------------------------


def test_propagate_batch_errors_taints_only_the_failing_comparator_and_keeps_structural_statuses():
    from pytest_jsonmatch import FieldResult, propagate_batch_errors

    fields = [
        FieldResult("a", "batch_error", 0.0, "x", "y", "judge", "gave no answer", "a"),
        FieldResult("b", "match", 1.0, "x", "x", "judge", "", "b"),
        FieldResult("c", "omission", 0.0, "x", None, "judge", "", "c"),
        FieldResult("d", "mismatch", 0.5, "x", "y", "other", "", "d"),
    ]
    out = propagate_batch_errors(fields)
    assert [(f.path, f.status) for f in out] == [
        ("a", "batch_error"),
        ("b", "batch_error"),
        ("c", "omission"),
        ("d", "mismatch"),
    ]
    assert (
        out[1].reason == "batch tainted: comparator 'judge' failed for other fields of this record"
    )
    assert propagate_batch_errors(fields[1:]) == fields[1:]  # no failure, nothing changes


def _returns_none(fields):
    return None


def _raises(fields):
    raise KeyError("oops")


def _scores_two(fields):
    return [f._replace(score=2.0) for f in fields]


def _invents_a_status(fields):
    return [f._replace(status="great") for f in fields]


@pytest.mark.parametrize(
    "post, message",
    [
        (
            _returns_none,
            "post-processor '_returns_none' returned a NoneType, not a list of FieldResults",
        ),
        (_raises, "post-processor '_raises' raised KeyError: 'oops'"),
        (lambda fields: ["a"], "post-processor '<lambda>' returned a str, not a FieldResult"),
        (_scores_two, "post-processor '_scores_two' returned a with status 'match' and score 2.0"),
        (_invents_a_status, "post-processor '_invents_a_status' returned a with status 'great'"),
    ],
)
def test_a_post_processor_that_returns_no_field_results_is_a_comparator_error_naming_it(
    post, message
):
    # a user's function: its mistakes are named, never a TypeError from inside or a score
    # outside [0, 1]
    with pytest.raises(ComparatorError) as info:
        match_json({"a": 1}, {"a": 1}, metric="field_f1", post_process=post)
    assert str(info.value).startswith(message)
