"""The ``fuzzy`` and ``iou`` comparators, every score worked by hand."""

from __future__ import annotations

import pytest

from pytest_jsonmatch import match_json
from pytest_jsonmatch.engine.comparing.comparators import (
    BUILTIN_COMPARATORS,
    bind_fuzzy,
    bind_iou,
)
from pytest_jsonmatch.engine.core.errors import ComparatorError, ConfigError

# -- fuzzy --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "expected, actual, score",
    [
        # RapidFuzz's documented examples: a repeated word and a subset of tokens score 100
        ("fuzzy was a bear", "fuzzy fuzzy was a bear", 1.0),
        ("new york mets", "new york mets vs atlanta braves", 1.0),
        ("mets new york", "new york mets", 1.0),  # token order does not count
        # common tokens "abc"; with the rest: "abc" vs "abc def" is Indel 1 - 4 / (3 + 7) = .6
        # (4 = the 3 letters of "def" and a space), likewise against "abc xyz"; "abc def" vs
        # "abc xyz" 1 - 6 / 14 = .5714; the largest is .6
        ("abc def", "abc xyz", 0.6),
        # no common token: "abc" vs "xyz" shares nothing, Indel 1 - 6 / 6 = 0
        ("abc", "xyz", 0.0),
        # case counts, as in RapidFuzz (no preprocessing): "Acme"/"ACME" and "Corp"/"corp" differ;
        # sorted tokens "ACME corp" vs "Acme Corp": Indel distance 8 of 18 -> 1 - 8 / 18 = .5556
        ("Acme Corp", "ACME corp", 10 / 18),
        ("", "", 1.0),  # equal strings score 1 (RapidFuzz's token_set_ratio gives two empty ones 0)
        ("a", "", 0.0),
    ],
)
def test_token_set(expected, actual, score):
    assert bind_fuzzy().score(expected, actual) == pytest.approx(score)
    assert bind_fuzzy({"method": "token_set"}).score(expected, actual) == pytest.approx(score)


@pytest.mark.parametrize(
    "expected, actual, score",
    [
        ("this is a test", "this is a test!", 1.0),  # RapidFuzz's documented example
        ("abc", "xxabcxx", 1.0),  # the shorter inside the longer
        # token order counts here: "ab" is best aligned against "ba"'s windows: "b" or "a"
        # against "ab" is Indel 1 - 1 / 3 = .6667
        ("ab", "ba", 2 / 3),
        ("abc", "xyz", 0.0),
    ],
)
def test_partial(expected, actual, score):
    assert bind_fuzzy({"method": "partial"}).score(expected, actual) == pytest.approx(score)


def test_fuzzy_other_values_compare_exactly():
    fuzzy = bind_fuzzy()
    assert fuzzy.score(1, 1) == 1.0 and fuzzy.score(1, "1") == 0.0 and fuzzy.score("1", 1) == 0.0
    assert fuzzy.score(None, None) == 1.0 and fuzzy.score(True, 1) == 0.0
    assert fuzzy.score(["a b"], ["b a"]) == 0.0  # arrays are equal or not: exact
    assert (
        fuzzy.equal_one is True
        and fuzzy.name == "fuzzy"
        and fuzzy.params == {"method": "token_set"}
    )


def test_fuzzy_matrix_agrees_with_its_score():
    fuzzy = bind_fuzzy({"method": "partial"})
    expected = ["abc", "", "this is a test", 5, "x y"]
    actual = ["xxabcxx", "", "this is a test!", "5", 5, "y x", "abc"]
    matrix = fuzzy.matrix(expected, actual)
    for i, e in enumerate(expected):
        for j, a in enumerate(actual):
            assert matrix[i, j] == pytest.approx(fuzzy.score(e, a)), (e, a)
    assert matrix[1, 1] == 1.0  # two empty strings, equal
    token_set = bind_fuzzy()
    matrix = token_set.matrix(expected, actual)
    assert matrix[4, 5] == 1.0 and matrix[1, 1] == 1.0


@pytest.mark.parametrize(
    "params, message",
    [
        (
            {"method": "ratio"},
            "comparator 'fuzzy': method must be one of token_set, partial, not 'ratio'",
        ),
        (
            {"method": None},
            "comparator 'fuzzy': method must be one of token_set, partial, not None",
        ),
        ({"cutoff": 80}, "comparator 'fuzzy' has no parameter 'cutoff'; known: method"),
    ],
)
def test_fuzzy_parameters_are_checked(params, message):
    with pytest.raises(ConfigError) as info:
        bind_fuzzy(params)
    assert str(info.value) == message


def test_fuzzy_in_fields_and_in_a_schema():
    # token_set: "Acme Corp" is a subset of "Acme Corp Ltd" -> 1.0
    result = match_json(
        {"name": "Acme Corp Ltd"},
        {"name": "Acme Corp"},
        metric="field_f1",
        fields={"name": {"comparator": "fuzzy"}},
    )
    assert result.score == 1.0
    # partial: "abc" in "xxabcxx" -> 1.0; "ab" against "ba" -> 2/3; mean (1 + 2/3) / 2 = 5/6
    schema = {
        "type": "object",
        "properties": {
            "a": {"type": "string", "x-eval-compare": {"fuzzy": {"method": "partial"}}},
            "b": {"type": "string", "x-eval-compare": {"fuzzy": {"method": "partial"}}},
        },
    }
    result = match_json(
        {"a": "xxabcxx", "b": "ba"}, {"a": "abc", "b": "ab"}, metric="field_f1", schema=schema
    )
    assert [f.score for f in result.fields] == pytest.approx([1.0, 2 / 3])
    # paired elements of an array: "Beta" with "Beta", "Acme Corp" with "Acme Corp Ltd"
    result = match_json(
        {"names": ["Acme Corp Ltd", "Beta"]},
        {"names": ["Beta", "Acme Corp"]},
        metric="field_f1",
        fields={"names": {"align": "hungarian"}, "names[*]": {"comparator": "fuzzy"}},
    )
    assert result.score == 1.0


def test_fuzzy_as_structural_f1_string_evaluator():
    # "abc def" vs "abc xyz": .6 (see test_token_set); one field -> F1 .6
    result = match_json(
        {"a": "abc xyz"}, {"a": "abc def"}, metric="structural_f1", string_evaluator="fuzzy"
    )
    assert result.fields[0].score == pytest.approx(0.6)


# -- iou ----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "expected, actual, score",
    [
        # overlap 1 x 1 = 1; areas 4 + 4; union 4 + 4 - 1 = 7
        ([0, 0, 2, 2], [1, 1, 3, 3], 1 / 7),
        # the same boxes as {x, y, width, height}, on either side or both
        ([0, 0, 2, 2], {"x": 1, "y": 1, "width": 2, "height": 2}, 1 / 7),
        ({"x": 0, "y": 0, "width": 2, "height": 2}, [1, 1, 3, 3], 1 / 7),
        (
            {"x": 0, "y": 0, "width": 2, "height": 2},
            {"x": 1, "y": 1, "width": 2, "height": 2},
            1 / 7,
        ),
        ([0, 0, 2, 2], {"x": 0, "y": 0, "width": 2, "height": 2}, 1.0),  # one box, two spellings
        ([0, 0, 4, 4], [1, 1, 3, 3], 4 / 16),  # contained: 4 of 16
        ([0, 0, 1, 1], [0.5, 0, 1.5, 1], 0.5 / 1.5),  # half overlap: .5 of 1 + 1 - .5
        ([0, 0, 1, 1], [1, 0, 2, 1], 0.0),  # touching edges: no area in common
        ([0, 0, 1, 1], [5, 5, 6, 6], 0.0),
        # zero-area union: 1 when both boxes are the same degenerate box, else 0
        ([1, 1, 1, 1], {"x": 1, "y": 1, "width": 0, "height": 0}, 1.0),
        ([1, 1, 1, 1], [2, 2, 2, 2], 0.0),
        ([0, 0, 0, 5], [0, 0, 0, 6], 0.0),  # two lines
        ([0, 0, 0, 0], [0, 0, 2, 2], 0.0),  # a point against a box: union 4, overlap 0
    ],
)
def test_iou(expected, actual, score):
    assert bind_iou().score(expected, actual) == pytest.approx(score)
    assert bind_iou().score(actual, expected) == pytest.approx(score)  # symmetric


@pytest.mark.parametrize(
    "actual",
    [
        [2, 2, 0, 0],  # x1 < x0
        [0, 0, 2],
        [0, 0, 2, 2, 4],
        ["0", 0, 2, 2],
        [True, 0, 2, 2],  # a boolean is not a number
        {"x": 0, "y": 0, "width": -1, "height": 2},
        {"x": 0, "y": 0, "width": 2},
        {"x": 0, "y": 0, "width": 2, "height": 2, "label": "cat"},
        [0, 0, 10**400, 2],  # beyond float range
        None,
        "0,0,2,2",
        7,
    ],
)
def test_a_malformed_actual_box_scores_zero(actual):
    assert bind_iou().score([0, 0, 2, 2], actual) == 0.0


@pytest.mark.parametrize(
    "expected, shown",
    [
        ([2, 2, 0, 0], "[2, 2, 0, 0]"),
        ("0,0,2,2", "'0,0,2,2'"),
        ({"x": 0, "y": 0}, "{'x': 0, 'y': 0}"),
    ],
)
def test_a_malformed_expected_box_is_a_comparator_error_naming_it(expected, shown):
    with pytest.raises(ComparatorError) as info:
        bind_iou().score(expected, [0, 0, 2, 2])
    assert str(info.value) == (
        f"comparator 'iou': the expected value {shown} is not a box "
        "([x0, y0, x1, y1] or {x, y, width, height})"
    )


def test_iou_equal_values_score_one():
    iou = bind_iou()
    assert iou.equal_one is True
    assert iou.score([0, 0, 2, 2], [0, 0, 2, 2]) == 1.0
    assert iou.score([0.0, 0, 2, 2], [0, 0, 2, 2]) == 1.0
    # equal values score 1 even when they are no box (as the walk scores equal scalars unasked)
    assert iou.score("n/a", "n/a") == 1.0


def test_iou_parameters_are_checked():
    with pytest.raises(ConfigError) as info:
        bind_iou({"threshold": 0.5})
    assert str(info.value) == "comparator 'iou' has no parameter 'threshold'; known: (none)"


def test_iou_in_fields_and_in_a_schema():
    result = match_json(
        {"box": {"x": 1, "y": 1, "width": 2, "height": 2}},
        {"box": [0, 0, 2, 2]},
        metric="field_f1",
        fields={"box": {"comparator": "iou"}},
    )
    assert [(f.path, f.score) for f in result.fields] == [("box", pytest.approx(1 / 7))]
    schema = {"type": "object", "properties": {"box": {"type": "array", "x-eval-compare": "iou"}}}
    result = match_json(
        {"box": [0, 0, 4, 4]}, {"box": [1, 1, 3, 3]}, metric="field_f1", schema=schema
    )
    assert result.fields[0].score == pytest.approx(0.25)
    # a malformed expected box names the comparator, the value and the field
    with pytest.raises(ComparatorError) as info:
        match_json(
            {"box": [0, 0, 2, 2]},
            {"box": [0, 0, 2]},
            metric="field_f1",
            fields={"box": {"comparator": "iou"}},
        )
    assert str(info.value) == (
        "comparator 'iou': the expected value [0, 0, 2] is not a box "
        "([x0, y0, x1, y1] or {x, y, width, height}) at box"
    )


def test_iou_pairs_boxes_of_an_array():
    # hungarian: [0,0,2,2] finds its twin (1.0); [11,11,13,13] takes [10,10,12,12]: overlap
    # 1 x 1, union 4 + 4 - 1 = 7 -> 1/7; mean (1 + 1/7) / 2 = 4/7
    result = match_json(
        {"boxes": [[10, 10, 12, 12], [0, 0, 2, 2]]},
        {"boxes": [[0, 0, 2, 2], [11, 11, 13, 13]]},
        metric="field_f1",
        fields={"boxes": {"align": "hungarian"}, "boxes[*]": {"comparator": "iou"}},
    )
    assert result.score == pytest.approx(4 / 7)


def test_both_are_registered():
    from pytest_jsonmatch.engine.comparing.registry import Registry

    assert BUILTIN_COMPARATORS["fuzzy"] is bind_fuzzy and BUILTIN_COMPARATORS["iou"] is bind_iou
    assert {"fuzzy", "iou"} <= set(Registry().comparator_names)
