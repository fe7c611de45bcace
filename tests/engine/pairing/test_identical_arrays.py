"""An in-order copy of a small array is paired at once (array_pairs._identical): two arrays
``==`` finds equal are JSON-equal by their types alone where every pair of elements agrees
in type, keys' order and values' types (``_typed_alike``); anything else is left to
``json_equal``, so a boolean never stands in for a number."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from pytest_jsonmatch import match_json
from pytest_jsonmatch.engine.core.values import json_equal
from pytest_jsonmatch.engine.pairing.array_pairs import _shallow, _typed_alike

SCALARS = st.sampled_from([0, 1, 1.0, 0.0, -0.0, True, False, None, "a", "1", 2**60])
ELEMENTS = st.one_of(
    SCALARS,
    st.lists(SCALARS, max_size=3),
    st.dictionaries(st.sampled_from(["a", "b", "c"]), SCALARS, max_size=3),
)


@settings(max_examples=400, deadline=None, derandomize=True, database=None)
@given(expected=st.lists(ELEMENTS, max_size=4), actual=st.lists(ELEMENTS, max_size=4))
def test_arrays_typed_alike_are_json_equal(expected: list[Any], actual: list[Any]) -> None:
    if expected == actual and _shallow(expected) and _typed_alike(expected, actual):
        assert json_equal(expected, actual)


def test_what_typed_alike_leaves_to_json_equal() -> None:
    assert _typed_alike([{"a": 1, "b": "x"}, [1, None], "s"], [{"a": 1, "b": "x"}, [1, None], "s"])
    # == takes each pair as equal; the types differ, so json_equal decides
    assert not _typed_alike([1], [True]) and not json_equal([1], [True])
    assert not _typed_alike([{"a": 1}], [{"a": 1.0}]) and json_equal([{"a": 1}], [{"a": 1.0}])
    assert not _typed_alike([{"a": 1, "b": 2}], [{"b": 2, "a": 1}])
    assert json_equal([{"a": 1, "b": 2}], [{"b": 2, "a": 1}])
    assert not _typed_alike([[0, 1]], [[False, True]]) and not json_equal([[0, 1]], [[False, True]])


def test_a_boolean_never_pairs_as_a_copy_of_a_number() -> None:
    """structural_f1: an in-order copy scores 1; a boolean where the number was does not."""
    copy = match_json({"items": [{"n": 1, "t": "a b"}]}, {"items": [{"n": 1, "t": "a b"}]})
    assert copy.score == 1.0
    said = match_json(
        {"items": [{"n": True, "t": "a b"}]}, {"items": [{"n": 1, "t": "a b"}]}, "structural_f1"
    )
    # n: a boolean against a number scores 0; t: equal, 1: the pair's mean 1/2, above the
    # threshold (0.3), so it pairs, and its two fields are one match, one mismatch
    assert said.pairings[0].score == 0.5
    assert said.score == 0.5
