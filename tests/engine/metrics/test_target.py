"""UiPath's target_output_key (engine/metrics/target_output_key.py): "*", a key, a dotted path with [i] indices, or a
list of paths, resolved on both sides as UiPath resolves them; a path missing on either side is
a ParseError naming the path and the side."""

from __future__ import annotations

import pytest

from pytest_jsonmatch import ConfigError, ParseError, match_json

EXPECTED = {
    "result": {"items": [{"name": "Widget", "qty": 2}, {"name": "Bolt", "qty": 5}], "total": 10},
    "meta": {"id": 1},
}
ACTUAL = {
    "result": {"items": [{"name": "Widgit", "qty": 2}, {"name": "Bolt", "qty": 4}], "total": 12},
    "meta": {"id": 99},
}


def js(target):
    return match_json(ACTUAL, EXPECTED, metric="json_similarity", target_output_key=target)


def test_a_dotted_path_with_an_index_compares_the_value_there():
    result = js("result.items[0].name")
    # "Widget" / "Widgit": one substitution over 6 characters
    assert [(f.path, round(f.score, 4)) for f in result.fields] == [("", 0.8333)]
    assert result.score == pytest.approx(5 / 6)


def test_a_path_to_an_array_or_object_compares_what_is_below_it():
    result = js("result.items")
    # names 5/6 and 1; quantities 1 and 1 - 1/5
    assert [(f.path, round(f.score, 4)) for f in result.fields] == [
        ("[0].name", 0.8333),
        ("[0].qty", 1.0),
        ("[1].name", 1.0),
        ("[1].qty", 0.8),
    ]
    assert result.score == pytest.approx((5 / 6 + 1 + 1 + 0.8) / 4)


def test_a_list_of_paths_compares_path_to_value_mappings():
    result = js(["result.total", "result.items[1].qty"])
    # total: 1 - 2/10 = 0.8; items[1].qty: 1 - 1/5 = 0.8; meta is not looked at
    assert [(f.path, f.score) for f in result.fields] == [
        ('["result.total"]', 0.8),
        ('["result.items[1].qty"]', 0.8),
    ]


def test_star_and_a_plain_key_keep_their_meaning():
    assert js("*").score == match_json(ACTUAL, EXPECTED, metric="json_similarity").score
    assert js("meta").score == 0.0  # 1 - 98/1, floored at 0


@pytest.mark.parametrize(
    "target, message",
    [
        (
            "result.items[2].name",
            "target_output_key 'result.items[2].name' is not found in expected: "
            "result.items has 2 element(s), no [2]",
        ),
        (
            "result.count",
            "target_output_key 'result.count' is not found in expected: no key 'count' at result "
            "(keys: items, total)",
        ),
        (
            "result.total.x",
            "target_output_key 'result.total.x' is not found in expected: result.total is not an object",
        ),
        ("meta[0]", "target_output_key 'meta[0]' is not found in expected: meta is not an array"),
        (
            ["meta.id", "nothing"],
            "target_output_key 'nothing' is not found in expected: no key 'nothing' "
            "(keys: meta, result)",
        ),
    ],
)
def test_a_path_missing_from_expected_names_the_path_and_the_side(target, message):
    with pytest.raises(ParseError) as info:
        js(target)
    assert str(info.value) == message


def test_a_path_missing_from_actual_names_actual():
    with pytest.raises(ParseError) as info:
        match_json(
            {"result": {}},
            {"result": {"total": 1}},
            metric="json_similarity",
            target_output_key="result.total",
        )
    assert (
        str(info.value)
        == "target_output_key 'result.total' is not found in actual: no key 'total' at result (keys: )"
    )


@pytest.mark.parametrize("target", [5, [], ["a", 1], "..."])
def test_a_target_that_names_nothing_is_a_config_error(target):
    with pytest.raises(ConfigError, match="target_output_key"):
        js(target)
