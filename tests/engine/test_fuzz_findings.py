"""Issue 29, item 4: the four kinds of foreign exception a fresh fuzzer found, each as the
reproducer it was found with. Every one now ends in the JsonMatchError family (or a score)."""

from __future__ import annotations

import pytest

from pytest_jsonmatch import (
    SchemaError,
    annotate_schema,
    assert_json_match,
    evaluate_records,
    match_json,
    validate_gold,
)
from pytest_jsonmatch.reporting.render.failure_message import SHOWN_DEPTH, format_value
from pytest_jsonmatch.session import channel as recording
from tests.helpers.fuzz_values import make_deep, make_deep_text

METRICS = ["field_match", "field_match_normalized", "json_similarity", "structural_f1", "field_f1"]


# -- (a) a schema whose properties has a key that is not a string -----------------------------


@pytest.mark.parametrize("metric", ["field_f1", "structural_f1", "json_similarity"])
@pytest.mark.parametrize("name", [1, None, 2.5])
def test_a_property_name_that_is_not_a_string_is_a_schema_error_naming_the_node(metric, name):
    schema = {
        "type": "object",
        "properties": {
            "outer": {
                "type": "object",
                "properties": {name: {"type": "string"}, "b": {"type": "string"}},
            }
        },
    }
    with pytest.raises(
        SchemaError, match=r"schema node outer: properties: the name .* is not a string"
    ):
        match_json({"outer": {"b": "x"}}, {"outer": {"b": "x"}}, metric=metric, schema=schema)
    with pytest.raises(SchemaError, match="schema node outer"):
        validate_gold({"outer": {"b": "x"}}, schema)


def test_a_property_name_that_is_not_a_string_at_the_root_names_the_root():
    with pytest.raises(SchemaError, match=r"schema node \$: properties: the name 1 "):
        match_json(
            {"a": 1}, {"a": 1}, schema={"type": "object", "properties": {1: {"type": "string"}}}
        )


def test_annotate_schema_leaves_such_a_name_as_it_is():
    # annotation writes the schema back without reading keys as paths: nothing to refuse
    assert annotate_schema({"type": "object", "properties": {1: {"type": "string"}}}) == {
        "type": "object",
        "properties": {1: {"type": "string", "x-eval-compare": "exact"}},
    }


# -- (b) deep array wildcards in ignore over deep arrays ---------------------------------------


@pytest.mark.parametrize("metric", METRICS)
@pytest.mark.parametrize("kind", ["list", "pair", "mixed"])
@pytest.mark.parametrize("ignore", ["a[*][*]", "**[*]", "a[0][*]"])
def test_deep_array_wildcards_in_ignore_over_deep_arrays(metric, kind, ignore):
    value = {"a": make_deep(1000, kind, 1)}
    assert match_json(value, value, metric=metric, ignore=ignore).score == 1.0


def test_without_skipped_keeps_array_elements_drops_keys_and_measures_depth():
    from pytest_jsonmatch.engine.comparing.registry import REGISTRY
    from pytest_jsonmatch.engine.configuring.walk_config import IGNORED_PLACE
    from pytest_jsonmatch.engine.metrics import metric_named
    from pytest_jsonmatch.engine.metrics.base import configure

    def config(*ignore: str):
        return configure(metric_named("field_match", REGISTRY), {"ignore": list(ignore)}, REGISTRY)

    cfg = config("a[*][*]", "**.x")
    value = [[[1]], {"x": 1, "y": [2]}]
    # an ignored element keeps its place, never its content (issue 72: key order)
    assert cfg.without_skipped_measured(value, "a") == ([[IGNORED_PLACE], {"y": [2]}], 3)
    cfg = config("**.x")
    deep = make_deep(1500, "list", 1)
    copied, depth = cfg.without_skipped_measured(deep, "a")
    assert copied is not deep and depth == 1500
    for _ in range(1500):  # (== would recurse)
        assert type(copied) is list and len(copied) == 1
        copied = copied[0]
    assert copied == 1


def test_an_ignored_field_holding_itself_inside_a_value_compared_whole_is_described():
    # the door writes an ignored value that is not JSON as a string that describes it, so
    # what the walk reads is JSON: here an array compared whole keeps its ignored element's
    # place (one element on each side: a match), never its content
    cyclic: list = [1]
    cyclic.append(cyclic)
    result = match_json({"a": [cyclic]}, {"a": [[1]]}, metric="field_match", ignore="a[*]")
    assert [(f.path, f.status) for f in result.fields] == [("a", "match")]
    assert result.fields[0].actual == ["<not JSON: [1, [1, [1, [...]]]]>"]  # three levels shown


@pytest.mark.parametrize(
    "metric, options",
    [("structural_f1", {}), ("field_f1", {}), ("field_f1", {"align": "hungarian"})],
)
def test_an_ignored_actual_element_that_is_not_json_paired_at_another_index(metric, options):
    # found by the 100,000-example fuzz run (seed 90577121, a fatal stack overflow): an actual
    # element ignored at its own index (a[0]) was kept as it was, and pairing put it beside
    # expected a[1], whose path is not ignored: the walk read a value that holds itself
    # and never ended. It reads the door's description now.
    cyclic: list = [1]
    cyclic.append(cyclic)
    result = match_json(
        {"a": [cyclic, 1]}, {"a": [2, 1]}, metric=metric, ignore=["a[0]"], **options
    )
    assert 0.0 <= result.score <= 1.0
    assert {f.path: f.status for f in result.fields}["a[1]"] == "match"


def _toy_embedder(texts):
    return [[float(len(t)), 1.0] for t in texts]


@pytest.mark.parametrize("metric", METRICS)
def test_an_ignored_field_holding_itself_is_not_gathered_for_embedding(metric):
    # found by the 100,000-example fuzz run (seed 48213977): the strings a ``cosine``
    # comparator is handed before the walk were gathered from ignored fields too, and an
    # ignored field may hold itself: gathering never ended. Ignored fields are never
    # compared, so nothing in them is gathered.
    cyclic: dict = {"v": None}
    cyclic["self"] = cyclic
    result = match_json(
        {},
        cyclic,
        metric=metric,
        fields={"*": {"skip": True, "comparator": {"cosine": {"embedder": _toy_embedder}}}},
    )
    assert {f.path: f.status for f in result.fields} == {"v": "skipped", "self": "skipped"}
    assert 0.0 <= result.score <= 1.0


def test_an_ignored_element_that_is_not_json_does_not_reach_pair_scores():
    # found by the 100,000-example fuzz run (seed 90577121): the columns pair scores are
    # built from read ignored values too, and an ignored value may hold a key that is not a
    # string (TypeError in key_forms). Ignored fields are now left out of pair scores.
    cyclic: list = [None]
    cyclic.append(cyclic)
    run = evaluate_records(
        ([{"a": None, "b": {0: None}}],),
        ([None, cyclic],),
        metric="structural_f1",
        fields={"[*]": {"skip": True, "min_score": 0.0}},
    )
    assert run.records[0].score == 1.0  # every element ignored: nothing counts
    assert all(f.status == "skipped" for f in run.records[0].fields)


EXPECTED_ITEMS = {"items": [{"sku": "a", "note": "x1"}, {"sku": "b", "note": "x2"}]}
ACTUAL_ITEMS = {"items": [{"sku": "b", "note": "x1"}, {"sku": "a", "note": "x2"}]}


@pytest.mark.parametrize(
    "metric, options", [("structural_f1", {}), ("field_f1", {"align": "hungarian"})]
)
def test_an_ignored_field_does_not_steer_pairing(metric, options):
    # by note the elements pair 0-0 and 1-1 (sku wrong in both: 0.5 each); with note ignored
    # only sku counts, and they pair 0-1 and 1-0, both right
    def pairs(result):
        return [(p.expected_index, p.actual_index) for p in result.pairings]

    plain = match_json(ACTUAL_ITEMS, EXPECTED_ITEMS, metric=metric, **options)
    assert pairs(plain) == [(0, 0), (1, 1)] and plain.score == 0.5
    ignored = match_json(
        ACTUAL_ITEMS, EXPECTED_ITEMS, metric=metric, ignore=["items[*].note"], **options
    )
    assert pairs(ignored) == [(0, 1), (1, 0)] and ignored.score == 1.0
    # the same as when every pair is walked (a rule naming one index takes that path)
    walked = match_json(
        ACTUAL_ITEMS,
        EXPECTED_ITEMS,
        metric=metric,
        fields={"items[*].note": {"skip": True}, "items[7].x": {"weight": 2}},
        **options,
    )
    assert pairs(walked) == pairs(ignored) and walked.score == ignored.score


def test_type_convert_to_str_does_not_depend_on_key_order():
    # found by the 100,000-example fuzz run (seed 48213977): str() of an object follows its
    # key order, so reversing the actual side's keys scored 0.5 instead of 1.0
    expected = {"a": None, "id": {"a": None, "b": [{"x": 1, "y": 2}]}}
    actual = {"a": None, "id": {"b": [{"y": 2, "x": 1}], "a": None}}
    fields = {"id": {"transform": {"type_convert": {"to": "str"}}}}
    result = match_json(actual, expected, metric="field_match", fields=fields)
    assert result.score == 1.0
    assert result.fields[-1].compared == ("{'a': None, 'b': [{'x': 1, 'y': 2}]}",) * 2


@pytest.mark.parametrize(
    "options, reaches",
    [
        ({"ignore": ["a"]}, False),
        ({"fields": {"[0]": {"min_score": 0.5}}}, False),
        ({"ignore": ["xs[*].note"]}, True),
        ({"fields": {"**.note": {"skip": True}}}, True),
        ({"fields": {"xs[3]": {"weight": 2}}}, True),
        ({}, False),
    ],
)
def test_identical_elements_pair_at_once_unless_a_rule_may_reach_them(options, reaches):
    # found by the fuzz runs (both seeds): any rule at all, even one no element can reach,
    # sent a large array compared with itself (repeated values, hence ties) to the dense
    # method: over 5 s at 5,000 numbers, minutes at 50,000. Only a rule that may reach the
    # elements can make two equal elements score below 1.
    from pytest_jsonmatch.engine.metrics import metric_named
    from pytest_jsonmatch.engine.metrics.base import configure

    cfg = configure(metric_named("structural_f1"), dict(options))
    assert cfg.identical_elements_score_one(None, "xs") is not reaches
    if reaches:
        return  # the elements are paired by their scores (the slow, exact way)
    value = {"xs": [(i * 37 + 1) % 1001 for i in range(1100)]}  # 99 values twice
    result = match_json(value, value, metric="structural_f1", **options)
    assert result.score == 1.0 and all(
        p.expected_index == p.actual_index
        or value["xs"][p.expected_index] == value["xs"][p.actual_index]
        for p in result.pairings
    )


def test_only_shallow_elements_take_the_in_order_copy_shortcut():
    # found by the fuzz runs (seed 90577121, a fatal abort past the harness's grace): the
    # in-order copy check compared the whole remainder at every array level, quadratic in
    # depth (8.7 s for arrays 1,900 deep against themselves under structural_f1)
    from pytest_jsonmatch.engine.pairing.array_pairs import _shallow

    assert _shallow([1, "a", None, {"a": 1, "b": "x"}, [1, 2]])
    assert not _shallow([1, {"a": [1]}]) and not _shallow([[[1]]])
    for metric, options in (("structural_f1", {}), ("field_f1", {"align": "hungarian"})):
        value = {"x": make_deep(300, "list", 1)}
        result = match_json(value, value, metric=metric, **options)
        assert (result.score, result.precision, result.recall) == (1.0, 1.0, 1.0)


# -- (c) a lenient parse of a deep array in a fence, with an ignore pattern --------------------


@pytest.mark.parametrize("metric", METRICS)
@pytest.mark.parametrize("ignore", ["a[*]", "a[*][*]", "**[*]", "a[0][0]"])
def test_a_deep_array_in_a_fence_with_ignore(metric, ignore):
    text = make_deep_text(900, "list")
    fenced = "Here it is:\n```json\n" + text + "\n```\nDone."
    expected = {"a": make_deep(900, "list", 1)}
    assert match_json(fenced, expected, metric=metric, ignore=ignore).score == 1.0
    run = evaluate_records([expected], [fenced], metric=metric, ignore=ignore)  # infers a schema
    assert run.records[0].score == 1.0


def test_schema_inference_of_a_deep_value_needs_no_stack():
    from pytest_jsonmatch.engine.comparing.registry import REGISTRY
    from pytest_jsonmatch.engine.schemas.eval_schema import infer_node

    node = infer_node([{"a": make_deep(5000, "mixed", 1)}], REGISTRY)  # far past the stack
    depth = 0
    while node.type in ("object", "array"):
        node = node.properties["a"] if node.type == "object" else node.items
        depth += 1
    assert depth == 5001 and node.type == "integer"


# -- (d) a failure message for a value nested 1,000 deep ---------------------------------------


@pytest.mark.parametrize("kind", ["list", "dict", "mixed"])
def test_a_failure_message_for_a_value_nested_1000_deep(kind):
    expected, actual = {"x": make_deep(1000, kind, 1)}, {"x": make_deep(1000, kind, 2)}
    outcomes: list = []
    previous = recording.activate(outcomes.append)  # the message alone, not the session's report
    try:
        with pytest.raises(AssertionError, match=r"\.\.\."):
            assert_json_match(actual, expected, metric="field_match")
    finally:
        recording.activate(previous)
    assert len(outcomes) == 1


def test_format_value_shows_dots_past_its_depth():
    deep = make_deep(1000, "list", 1)
    assert format_value(deep, None) == "[" * SHOWN_DEPTH + "..." + "]" * SHOWN_DEPTH
    shallow = make_deep(SHOWN_DEPTH, "dict", 1)
    assert format_value(shallow, None).count("{") == SHOWN_DEPTH  # up to the bound: whole
    assert format_value(make_deep(1000, "dict", 1)) == ('{"a": ' * 10)[:57] + "..."
    assert format_value({"a": [1, 2, {1, 2}]}) == '{"a": [1, 2, "{1, 2}"]}'  # unchanged
