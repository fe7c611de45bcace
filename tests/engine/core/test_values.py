"""JSON values (section 1 of metrics.md, engine/core/values.py): a boolean is never a number, numbers
compare by value, instance paths and field paths, path patterns; and what is not a JSON value
at all (NaN, Infinity, a Python object), found in document order, a cycle read once."""

from __future__ import annotations

import pytest

from pytest_jsonmatch import ConfigError, PathPattern, match_json
from pytest_jsonmatch.engine.core.paths import index_segment, key_segment, path_segments
from tests.helpers.timeout import GENEROUS, within

ALL_METRICS = [
    "field_match",
    "field_match_normalized",
    "json_similarity",
    "structural_f1",
    "field_f1",
]


# -- a boolean is never a number ------------------------------------------------------------


@pytest.mark.parametrize("metric", ALL_METRICS)
@pytest.mark.parametrize("expected, actual", [(1, True), (True, 1), (0, False), (False, 0)])
def test_boolean_is_never_a_number(metric, expected, actual):
    # Python says True == 1; JSON says a boolean and a number differ: the one field scores 0
    result = match_json({"a": actual}, {"a": expected}, metric=metric)
    assert result.score == 0.0
    assert [f.status for f in result.fields if f.status != "skipped"] != ["match"]


@pytest.mark.parametrize("metric", ALL_METRICS)
def test_numbers_compare_by_value(metric):
    # 42 and 42.0 are the same JSON number under every metric
    result = match_json({"a": 42.0}, {"a": 42}, metric=metric)
    assert result.score == 1.0
    assert [f.status for f in result.fields] == ["match"]


@pytest.mark.parametrize("metric", ALL_METRICS)
def test_negative_zero_equals_zero(metric):
    result = match_json({"a": -0.0}, {"a": 0}, metric=metric)
    assert result.score == 1.0


# -- instance paths ---------------------------------------------------------------------------


def _paths(actual, expected, metric="field_f1", **options):
    return [f.path for f in match_json(actual, expected, metric=metric, **options).fields]


def test_instance_paths_name_keys_nested_keys_and_indices():
    doc = {
        "name": "x",
        "dimensions": {"width": 2},
        "tags": ["a", "b", "c", "d"],
        "items": [{"sku": "s"}],
    }
    assert _paths(doc, doc) == [
        "name",
        "dimensions.width",
        "tags[0]",
        "tags[1]",
        "tags[2]",
        "tags[3]",
        "items[0].sku",
    ]


def test_key_that_is_not_an_identifier_is_quoted():
    doc = {"unit price": 3}
    assert _paths(doc, doc) == ['["unit price"]']


def test_dotted_key_is_quoted_below_its_parent():
    doc = {"meta": {"a.b": 1}}
    assert _paths(doc, doc) == ['meta["a.b"]']


def test_key_starting_with_a_digit_is_quoted():
    doc = {"1st": 1}
    assert _paths(doc, doc) == ['["1st"]']


def test_root_path_displays_as_dollar():
    # field_f1 with two empty top-level arrays reports one field for the root itself
    result = match_json([], [], metric="field_f1")
    assert len(result.fields) == 1
    root = result.fields[0]
    assert root.display_path == "$"
    assert result.to_dict()["fields"][0]["path"] == "$"


def test_field_paths_fold_array_indices():
    doc = {"items": [{"sku": "a"}, {"sku": "b"}], "tags": ["x"]}
    result = match_json(doc, doc, metric="field_f1")
    assert [f.field_path for f in result.fields] == ["items[].sku", "items[].sku", "tags[]"]


# -- path patterns --------------------------------------------------------------------------


@pytest.mark.parametrize(
    "pattern, path, expected",
    [
        ("items[*].sku", "items[0].sku", True),
        ("items[*].sku", "items[12].sku", True),
        ("items[*].sku", "items[0].name", False),
        ("items[*].sku", "items.sku", False),
        ("items[].sku", "items[3].sku", True),
        ("items[2].sku", "items[2].sku", True),
        ("items[2].sku", "items[1].sku", False),
    ],
)
def test_index_wildcard_matches_any_index(pattern, path, expected):
    assert PathPattern(pattern).matches(path) is expected


@pytest.mark.parametrize(
    "pattern, path, expected",
    [
        ("*.id", "a.id", True),
        ("*.id", "b.id", True),
        ("*.id", "a.b.id", False),
        ("*.id", "id", False),
        ("*", "name", True),
        ("*", "a.b", False),
    ],
)
def test_star_matches_exactly_one_key(pattern, path, expected):
    assert PathPattern(pattern).matches(path) is expected


@pytest.mark.parametrize(
    "pattern, path, expected",
    [
        ("**.created_at", "created_at", True),
        ("**.created_at", "a.created_at", True),
        ("**.created_at", "a[0].b.created_at", True),
        ("**.created_at", "created_at_x", False),
        ("**.created_at", "created_at.x", False),
        ("**", "anything[3].at.all", True),
    ],
)
def test_double_star_matches_any_run_of_segments(pattern, path, expected):
    assert PathPattern(pattern).matches(path) is expected


def test_quoted_key_pattern_matches_quoted_path():
    assert PathPattern('["unit price"]').matches('["unit price"]')
    assert PathPattern('items[*]["unit price"]').matches('items[4]["unit price"]')
    assert not PathPattern('["unit price"]').matches("unit")


@pytest.mark.parametrize("key", ["[", '["', "\\", '\\"]', 'a"]["b'])
def test_a_key_holding_brackets_quotes_or_backslashes_is_one_segment(key):
    # the walk writes these keys quoted ('["["]'); reading the path back must find the
    # quote that opens the key, not a '["' inside it
    path = key_segment(key_segment("", "a"), key)
    assert path_segments(path) == ("ka", "k" + key)
    assert PathPattern("a.*").matches(path)
    result = match_json(
        {"a": {key: 1, "b": 2}}, {"a": {key: 1, "b": 3}}, metric="field_match", ignore=["a.b"]
    )
    assert result.score == 1.0  # the key's field matches; a.b is ignored


def test_dollar_pattern_matches_the_root():
    assert PathPattern("$").matches("")
    assert not PathPattern("$").matches("a")


def test_malformed_pattern_is_a_config_error():
    with pytest.raises(ConfigError):
        PathPattern("items[")


def test_a_glob_pattern_read_path_by_path_agrees_with_reading_each_path_whole():
    # matches() advances the pattern from the parent path's positions (one segment a path);
    # matches_segments() reads the whole path: the same answer on every path of a tree,
    # whichever order the paths come in
    import random

    rng = random.Random(7)
    keys = ["a", "items", "x y", "["]
    paths = [""]
    for _ in range(400):
        parent = rng.choice(paths)
        paths.append(
            index_segment(parent, rng.randrange(3))
            if rng.random() < 0.4
            else key_segment(parent, rng.choice(keys))
        )
    for text in ["**.a", "**[].items[0]", "items[*].**", "**", "a.**.a[*]", '**["x y"]', "*.**[1]"]:
        incremental = PathPattern(text)
        for path in rng.sample(paths, len(paths)):
            assert incremental.matches(path) == PathPattern(text).matches_segments(
                path_segments(path)
            ), (text, path)


def test_a_glob_pattern_over_a_value_nested_700_deep_takes_one_step_a_path(monkeypatch):
    # reading each path whole took segments x paths steps (about 500,000 here, 4 s)
    value: list = [1]
    for i in range(700):
        value = [value, i]
    steps = []
    advance = PathPattern._advance
    monkeypatch.setattr(
        PathPattern,
        "_advance",
        lambda self, states, segment: (steps.append(segment), advance(self, states, segment))[1],
    )
    with within(GENEROUS):
        result = match_json(
            {"deep": value}, {"deep": value}, metric="json_similarity", ignore="**[].items[0]"
        )
    assert result.score == 1.0
    # 1,402 instance paths below "deep" on each side, each read once from its parent
    assert 0 < len(steps) <= 1_403
