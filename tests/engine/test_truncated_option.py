"""The ``truncated`` option: an answer cut off inside its JSON value scored closed, for
partial credit, and the result saying where it was cut (docs/metrics.md, section 2)."""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pytest_jsonmatch import (
    METRICS,
    ConfigError,
    TruncatedError,
    Truncation,
    evaluate_records,
    match_json,
)
from pytest_jsonmatch.engine.metrics import metric_named
from pytest_jsonmatch.engine.metrics.base import configure

# The example: 87 characters of the value, the text ends at column 88 (the counting is
# in tests/engine/reading/test_truncation.py).
CUT = '{"invoice": "INV-1", "total": 12.5, "items": [{"sku": "A", "qty": 1}, {"sku": "B", "qty'
GOLD = {
    "invoice": "INV-1",
    "total": 12.5,
    "items": [{"sku": "A", "qty": 1}, {"sku": "B", "qty": 2}],
}
# items[1] was being written when the answer was cut
WHERE = Truncation(
    start=0,
    opened_line=1,
    opened_column=1,
    line=1,
    column=88,
    chars=87,
    elements=("items[1]",),
    open_paths=("", "items", "items[1]"),  # the values still open at the cut, root first
)


def test_every_metric_takes_the_option():
    assert all("truncated" in metric.options for metric in METRICS.values())


def test_field_f1_scores_what_was_written_in_full():
    result = match_json(CUT, GOLD, metric="field_f1", truncated="close")
    # closed: {"invoice", "total", "items": [{"sku": "A", "qty": 1}, {"sku": "B"}]}
    # 6 expected leaves, 5 matched, items[1].qty omitted, nothing invented:
    # precision 5/5 = 1, recall 5/6, F1 = 2 * 1 * 5/6 / (1 + 5/6) = 10/11
    assert [(f.display_path, f.status) for f in result.fields if f.status != "match"] == [
        ("items[1].qty", "omission")
    ]
    assert (result.precision, result.recall, result.score) == (1.0, 5 / 6, pytest.approx(10 / 11))
    assert result.truncated == WHERE
    assert result.to_dict()["truncated"] == {"line": 1, "column": 88, "chars": 87}


def test_field_match_compares_the_cut_list_as_a_whole():
    # field_match compares each top-level field whole: invoice and total match, items (one
    # element short of qty) does not: 2 of 3
    result = match_json(CUT, GOLD, metric="field_match", truncated="close")
    assert result.score == pytest.approx(2 / 3)
    assert result.truncated == WHERE


def test_a_whole_answer_is_scored_as_without_the_option():
    whole = json.dumps(GOLD)
    closed = match_json(whole, GOLD, truncated="close")
    assert closed.truncated is None and "truncated" not in closed.to_dict()
    assert closed == match_json(whole, GOLD)


def test_without_the_option_a_cut_answer_is_an_error_not_a_score():
    with pytest.raises(TruncatedError):
        match_json(CUT, GOLD)
    with pytest.raises(TruncatedError):
        match_json(CUT, GOLD, truncated="error")


def test_evaluate_records_marks_each_record():
    run = evaluate_records([GOLD, GOLD], [CUT, json.dumps(GOLD)], truncated="close")
    assert [r.truncated for r in run.records] == [WHERE, None]
    assert [r.score for r in run.records] == [pytest.approx(10 / 11), 1.0]


@pytest.mark.parametrize("value", ["yes", True, None, "Close"])
def test_a_bad_value_is_a_config_error_naming_the_option(value):
    with pytest.raises(ConfigError, match="option truncated must be 'error' or 'close', not"):
        match_json(CUT, GOLD, truncated=value)
    # configure (what a golden file's options are checked with at collection) says the same
    with pytest.raises(ConfigError, match="option truncated must be 'error' or 'close', not"):
        configure(metric_named("field_f1"), {"truncated": value})


# -- any object, cut anywhere, scored closed against itself: nothing invented ----------------

LEAVES = st.one_of(st.none(), st.booleans(), st.integers(-1000, 1000), st.text(max_size=6))
VALUES = st.recursive(
    LEAVES,
    lambda inner: st.one_of(
        st.lists(inner, max_size=3), st.dictionaries(st.text("abc", max_size=3), inner, max_size=3)
    ),
    max_leaves=10,
)
OBJECTS = st.dictionaries(st.text("abcd", min_size=1, max_size=3), VALUES, min_size=1, max_size=4)


@settings(
    max_examples=150,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.too_slow],
)
# (tool_calls and trajectory are left out: the objects here are no tool calls nor runs; their
# own cut answers are in tests/engine/tool_calls/test_tool_calls.py and
# tests/engine/trajectories/test_trajectory_metric.py)
@given(
    value=OBJECTS,
    where=st.floats(0, 1),
    metric=st.sampled_from(sorted(m for m in METRICS if m not in ("tool_calls", "trajectory"))),
)
def test_a_cut_answer_scored_closed_never_has_a_hallucinated_field(value, where, metric):
    dumped = json.dumps(value)
    cut = dumped[: 1 + int(where * (len(dumped) - 2))]  # strictly inside the value
    result = match_json(cut, value, metric=metric, truncated="close")
    assert result.truncated is not None and result.truncated.chars == len(cut)
    assert [f.display_path for f in result.fields if f.status == "hallucination"] == []
    assert 0.0 <= result.score <= 1.0


def test_an_element_cut_too_short_to_pair_is_not_invented():
    # structural_f1 pairs array elements above a similarity of 0.3: "00" (cut from "00000")
    # finds no partner, so "00000" is omitted and "00", which the model was still writing,
    # is skipped rather than hallucinated: recall 0/1, precision 0/0 = 1 by the shared rule
    result = match_json('{"a": ["00', {"a": ["00000"]}, metric="structural_f1", truncated="close")
    assert [(f.display_path, f.status) for f in result.fields] == [
        ("a[0]", "omission"),
        ("a[0]", "skipped"),
    ]
    assert result.fields[1].reason == "written when the answer was cut off: not counted as invented"
    assert (result.precision, result.recall) == (1.0, 0.0)


def test_a_complete_element_before_the_cut_is_still_judged():
    # "x" was written in full before the cut: unpaired, it is a hallucination as ever;
    # only the element being written, "00", is spared
    result = match_json(
        '{"a": ["x", "00', {"a": ["00000"]}, metric="structural_f1", truncated="close"
    )
    statuses = sorted((f.actual_path or f.path, f.status) for f in result.fields)
    assert ("a[0]", "hallucination") in statuses and ("a[1]", "skipped") in statuses


@pytest.mark.parametrize(
    ("text", "elements"),
    [
        ('{"a": [1, {"b": "xy', ("a[1]",)),  # an object element, its string cut
        ("[12", ("[0]",)),  # a number the text ends in may be cut
        ("[12 ", ()),  # ... not one followed by a space
        ('{"a": [1, 2, ', ()),  # elements written in full
        ('[{"a": 1}, {', ("[1]",)),  # an element just begun
        ('{"a": {"b c": [[1, 2], [3', ('a["b c"][1]', 'a["b c"][1][0]')),  # nested, a quoted key
    ],
)
def test_the_elements_being_written_are_named_by_their_paths(text, elements):
    from pytest_jsonmatch.engine.reading.parse import parse_actual_checked

    _, cut = parse_actual_checked(text, allow_array=True, truncated="close")
    assert cut.elements == elements


# A manifest cut inside "pallet": "pall" is in no enum, containers[1] lacks its required qty
# and the root its required total, all because of the cut; "X-1" breaks the id's pattern
# before the cut, which is the model's own.
MANIFEST_SCHEMA = {
    "type": "object",
    "required": ["id", "containers", "total"],
    "properties": {
        "id": {"type": "string", "pattern": "^M-"},
        "containers": {
            "type": "array",
            "minItems": 3,
            "items": {
                "type": "object",
                "required": ["type", "qty"],
                "properties": {"type": {"enum": ["pallet", "box"]}, "qty": {"type": "integer"}},
            },
        },
        "total": {"type": "number"},
    },
}
MANIFEST_CUT = '{"id": "X-1", "containers": [{"type": "box", "qty": 2}, {"type": "pall'
MANIFEST = {"id": "M-1", "containers": [{"type": "box", "qty": 2}], "total": 2}


def test_violations_the_cut_made_are_not_the_models():
    result = match_json(MANIFEST_CUT, MANIFEST, schema=MANIFEST_SCHEMA, truncated="close")
    assert result.truncated.open_paths == ("", "containers", "containers[1]")
    assert result.truncated.cut_leaf == "containers[1].type"
    # left out: containers[1].type enum (the leaf cut partway), containers[1].qty and total
    # required, containers minItems (open when cut); kept: id pattern, before the cut
    assert [(v.path, v.keyword) for v in result.conformance.violations] == [("id", "pattern")]
    assert result.conformance.total == 1
    # the same values written whole and closed by the model break all five
    whole = match_json(
        '{"id": "X-1", "containers": [{"type": "box", "qty": 2}, {"type": "pall"}]}',
        MANIFEST,
        schema=MANIFEST_SCHEMA,
    )
    assert sorted((v.path, v.keyword) for v in whole.conformance.violations) == [
        ("containers", "minItems"),
        ("containers[1].qty", "required"),
        ("containers[1].type", "enum"),
        ("id", "pattern"),
        ("total", "required"),
    ]
