"""Arrays whose elements are a plain leaf (field_f1's arrays of scalars): the pairs of such
elements scored in one loop (walking/leaf_scoring.py, ``LeafScoring.leaf_pairs``, switch
``LEAF_ELEMENTS``), and under Hungarian alignment paired from counts of equal values
(pairing/equal_fields.py, ``counted_pairs`` of a leaf node, switch ``SPECIALISE``), held
to the general path (each pair through ``Walk.node``, pair scores from columns) to the
bit: every result's exact text the same with the switches on and off, through
``match_json`` (whose sides the walk reads itself) and ``evaluate_records`` (read by the
door first)."""

from __future__ import annotations

import contextlib
import math
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pytest_jsonmatch import evaluate_records, match_json
from pytest_jsonmatch.engine.core.errors import JsonMatchError
from pytest_jsonmatch.engine.pairing import equal_fields, pair_scores
from pytest_jsonmatch.engine.walking import leaf_scoring
from tests.helpers import fuzz_values as fv
from tests.helpers.sweeps import sweep
from tests.helpers.switches import switched

pytestmark = pytest.mark.slow  # (CONTRIBUTING.md: the inner loop leaves it out)

SETTINGS = sweep(120)

# values Python's == and JSON equality tell apart, or that hash alike across types
SCALARS = st.sampled_from(
    [None, True, False, 0, 1, -1, 1.0, 0.0, -0.0, 2.5, 10**20, 1e20, 2**53 + 1]
    + [float(2**53), "", "a", "A", "1", "true", "acme blue"]
)
# now and then an element that is no plain scalar (compared whole, or read by the door)
ODD = st.sampled_from([[1], {"z": 1}, {}, [], math.nan, math.inf, (1, 2)])
ELEMENTS = st.one_of(SCALARS, SCALARS, SCALARS, SCALARS, ODD)
ARRAYS = st.lists(ELEMENTS, min_size=0, max_size=6)
# the elements' own schema, where one is given: compared by equality, or otherwise
ITEM_SCHEMAS = st.sampled_from(
    [
        {"type": "string"},
        {"type": "number"},
        {"type": "boolean"},
        {"type": "string", "x-eval-compare": "levenshtein"},
        {"type": "number", "x-eval-compare": {"numeric": {"abs": 0.5}}},
        {"type": "string", "x-eval-transform": "lower"},
        {"type": "string", "x-eval-skip": True},
    ]
)


@st.composite
def pairs(draw: Any) -> tuple[dict[str, Any], dict[str, Any]]:
    """(expected, actual): an array of scalars beside a scalar, the actual array a near
    copy (shuffled, an element changed or dropped) or another array."""
    items = draw(ARRAYS)
    if draw(st.booleans()):
        other = draw(ARRAYS)
    else:
        other = list(items)
        order = draw(st.permutations(range(len(other))))
        other = [other[k] for k in order]
        if other and draw(st.booleans()):
            other[draw(st.integers(0, len(other) - 1))] = draw(ELEMENTS)
        if other and draw(st.booleans()):
            other.pop()
    return {"id": "x", "tags": items}, {"id": "x", "tags": other}


@st.composite
def options(draw: Any) -> dict[str, Any]:
    found: dict[str, Any] = {}
    if draw(st.booleans()):
        found["align"] = "hungarian"
    if draw(st.integers(0, 3)) == 0:
        found["schema"] = {
            "type": "object",
            "properties": {
                "id": {"type": "string"},
                "tags": {"type": "array", "items": draw(ITEM_SCHEMAS)},
            },
        }
    return found


@contextlib.contextmanager
def general() -> Iterator[None]:
    with switched(leaf_scoring, "LEAF_ELEMENTS", False):
        with switched(equal_fields, "SPECIALISE", False):
            yield


def one_text(expected: Any, actual: Any, options: dict[str, Any]) -> str:
    try:
        result = match_json(actual, expected, metric="field_f1", **options)
    except JsonMatchError as exc:
        return f"{type(exc).__name__}: {exc}"
    return fv.exact_repr((result, result.fields, result.pairings, result.counts))


def run_text(expected: list[Any], actual: list[Any], options: dict[str, Any]) -> str:
    try:
        run = evaluate_records(expected, actual, "field_f1", **options)
    except JsonMatchError as exc:
        return f"{type(exc).__name__}: {exc}"
    return fv.exact_repr((run.records, run.per_field, run.mean_score, run.mean_f1))


@SETTINGS
@given(pair=pairs(), options=options())
def test_match_json_scores_the_same_either_way(
    pair: tuple[dict[str, Any], dict[str, Any]], options: dict[str, Any]
) -> None:
    expected, actual = pair
    fast = one_text(expected, actual, options)
    with general():
        assert one_text(expected, actual, options) == fast


@SETTINGS
@given(found=st.lists(pairs(), min_size=1, max_size=3), options=options())
def test_evaluate_records_scores_the_same_either_way(
    found: list[tuple[dict[str, Any], dict[str, Any]]], options: dict[str, Any]
) -> None:
    expected, actual = [e for e, _ in found], [a for _, a in found]
    fast = run_text(expected, actual, options)
    with general():
        assert run_text(expected, actual, options) == fast


@pytest.mark.parametrize("switch", ["LEAF_ELEMENTS", "SPECIALISE"])
def test_each_switch_alone_scores_the_same(switch: str) -> None:
    expected = {"tags": ["a", "b", "c", True, 1, None], "n": [1, 2.5, 3]}
    actual = {"tags": [1.0, "c", "x", "a", False, None, "b"], "n": [3, 1, 2.5]}
    module = leaf_scoring if switch == "LEAF_ELEMENTS" else equal_fields
    for align in (None, "hungarian"):
        options = {"align": align} if align else {}
        fast = one_text(expected, actual, options)
        with switched(module, switch, False):
            assert one_text(expected, actual, options) == fast


def test_a_hungarian_pairing_worked_out_by_hand() -> None:
    # a-a and c-c pair (1.0 each); b and x score 0 (exact), so neither pairs: b is an
    # omission, x a hallucination. Fields: 2 matches, 1 omission, 1 hallucination:
    # precision 2/3, recall 2/3, F1 2/3.
    result = match_json(
        {"tags": ["c", "x", "a"]}, {"tags": ["a", "b", "c"]}, metric="field_f1", align="hungarian"
    )
    assert [(p.expected_index, p.actual_index, p.score) for p in result.pairings] == [
        (0, 2, 1.0),
        (2, 0, 1.0),
    ]
    assert [(f.path, f.status, f.score) for f in result.fields] == [
        ("tags[0]", "match", 1.0),
        ("tags[2]", "match", 1.0),
        ("tags[1]", "omission", 0.0),
        ("tags[1]", "hallucination", 0.0),
    ]
    assert result.score == pytest.approx(2 / 3, abs=1e-15)


def test_the_fast_paths_are_taken(monkeypatch: pytest.MonkeyPatch) -> None:
    """Not vacuous: with the switches on, an array of scalars is paired without column
    pair scores and its pairs are not walked one by one; off, both are."""
    walked: list[str] = []
    scored: list[int] = []
    real_node = leaf_scoring.LeafScoring.leaf
    real_scores = pair_scores.pair_scores

    def leaf(self: Any, expected: Any, actual: Any, where: Any, *rest: Any) -> None:
        walked.append(where.path)
        real_node(self, expected, actual, where, *rest)

    def counted(*args: Any) -> Any:
        scored.append(1)
        return real_scores(*args)

    monkeypatch.setattr(leaf_scoring.LeafScoring, "leaf", leaf)
    monkeypatch.setattr("pytest_jsonmatch.engine.pairing.array_pairs.pair_scores", counted)
    expected, actual = {"tags": ["a", "b", "c"]}, {"tags": ["b", "a", "d"]}
    fast = one_text(expected, actual, {"align": "hungarian"})
    assert walked == [] and scored == []
    with general():
        assert one_text(expected, actual, {"align": "hungarian"}) == fast
    # (a-a and b-b pair; c and d score 0, so they are left alone: no pair walk)
    assert walked == ["tags[0]", "tags[1]"] and scored == [1]
