"""Deep values (engine/core/depth.py, and the walk's pairing of nested arrays): every metric
reads objects and arrays nested as deeply as ``json.loads`` reads them, gives the same
answer at depth 10 and 900, and pairs nested arrays under Hungarian alignment without
walking a chosen pair twice (which made the time double with every level); text nested
beyond what the parser reads is a ParseError."""

from __future__ import annotations

import json

import pytest

from pytest_jsonmatch import ParseError, match_json
from tests.helpers.timeout import GENEROUS, within

METRICS = ["field_match", "field_match_normalized", "json_similarity", "structural_f1", "field_f1"]
# field_match and its normalized form compare the top-level value whole: one field, wrong.
# The others score two leaves, 1 against 1 (right) and "p" against "q" (wrong, and 0 under
# every string comparator: no shared token, one edit in one character): recall 1/2, and
# for the F1 metrics precision 1/2 too (under structural_f1 and Hungarian the wrong pair
# scores 0, so "p" is an omission and "q" a hallucination: TP 1, 2 fields each side).
SCORE = {
    "field_match": 0.0,
    "field_match_normalized": 0.0,
    "json_similarity": 0.5,
    "structural_f1": 0.5,
    "field_f1": 0.5,
}


def _objects(depth: int, last: str) -> str:
    return '{"a": ' * depth + f'{{"x": 1, "y": "{last}"}}' + "}" * depth


def _arrays(depth: int, last: str) -> str:
    return '{"r": ' + "[" * depth + f'1, "{last}"' + "]" * depth + "}"


@pytest.mark.parametrize("metric", METRICS)
@pytest.mark.parametrize("build", [_objects, _arrays])
def test_the_same_answer_at_depth_10_and_900(metric, build):
    options = {"align": "hungarian"} if metric == "field_f1" else {}
    scores = []
    for depth in (10, 900):
        expected, actual = build(depth, "p"), build(depth, "q")
        json.loads(expected)  # what the parser reads, every metric reads
        scores.append(match_json(actual, expected, metric=metric, **options).score)
    assert scores == [SCORE[metric], SCORE[metric]]


@pytest.mark.parametrize("align", ["ordered", "hungarian"])
def test_field_f1_on_arrays_900_deep_of_two_elements_each(align):
    # [[...[[1, 2], 3]..., 3], 3] against the same with 5 for 2: at every level the nested
    # array pairs with the nested array and 3 with 3. Under Hungarian each level scores its
    # candidate pairs by walking them, and a chosen pair's walk is taken as it is: walking it
    # again would double the work at every level (2 ** 900).
    depth = 900
    expected: list = [1, 2]
    actual: list = [1, 5]
    for _ in range(depth):
        expected, actual = [expected, 3], [actual, 3]
    with within(GENEROUS, f"field_f1 align={align} on arrays {depth} deep"):
        result = match_json({"r": actual}, {"r": expected}, align=align)
    # 900 threes and 1 right, 2 against 5 wrong. Ordered: one mismatch, TP 901 of 902 on
    # both sides. Hungarian: 2 and 5 score 0 and stay unpaired (an omission and a
    # hallucination), TP 901, 902 fields each side. Either way F1 = 901 / 902.
    assert result.score == pytest.approx(901 / 902, abs=1e-12)
    assert sum(f.status == "match" for f in result.fields) == 901


def test_a_chosen_pair_walked_for_its_score_gives_the_same_fields_as_a_second_walk():
    # the elements need a walk per pair (nested arrays under Hungarian); the pairing and the
    # fields must be what walking each chosen pair afresh gives: paths on both sides included
    expected = {"g": [[["a", "b"], ["c"]], [["d"]], [["e", "f"], ["g"]]]}
    actual = {"g": [[["e", "f"], ["x"]], [["a", "b"], ["c"]], [["d"]]]}
    result = match_json(actual, expected, align="hungarian")
    assert [
        (p.path, p.expected_index, p.actual_index) for p in result.pairings if p.path == "g"
    ] == [("g", 0, 1), ("g", 1, 2), ("g", 2, 0)]
    assert [(f.path, f.status, f.actual_path) for f in result.fields] == [
        ("g[0][0][0]", "match", "g[1][0][0]"),
        ("g[0][0][1]", "match", "g[1][0][1]"),
        ("g[0][1][0]", "match", "g[1][1][0]"),
        ("g[1][0][0]", "match", "g[2][0][0]"),
        ("g[2][0][0]", "match", "g[0][0][0]"),
        ("g[2][0][1]", "match", "g[0][0][1]"),
        # ["g"] against ["x"] scores F1 0 and stays unpaired: an omission, a hallucination
        ("g[2][1][0]", "omission", None),
        ("g[0][1][0]", "hallucination", None),
    ]
    # 6 matches, 1 omission, 1 hallucination: precision = recall = 6 / 7, F1 = 6 / 7
    assert result.score == pytest.approx(6 / 7)


@pytest.mark.parametrize("metric", METRICS)
def test_text_nested_beyond_the_parser_is_a_parse_error(metric):
    deep = '{"a": ' * 100_000 + "1" + "}" * 100_000
    with pytest.raises(ParseError):  # lenient actual: no readable object in the text
        match_json(deep, {"a": 1}, metric=metric)
    with pytest.raises(ParseError, match="nests too deeply"):
        match_json({"a": 1}, deep, metric=metric)
