"""Two plain arrays paired by index walked with an unread expected array checked by the
elements' own loop (engine/walking/index_elements.py, switch ``FOLDED_CHECK``), instead of
the door's pass over the whole array first (``inline_leaves.index_array``).

What must hold: every pair comes out as it does with the switch off, and as it does with
both sides read by the door first, to the bit: the same result, or the same error, word for
word, wherever in the array the door meets a value it copies or refuses (a scalar element,
a key or a value of an object element, an object or array below one, an element the plan
does not score, an element past the answer's end).
"""

from __future__ import annotations

import collections
import enum
import random
from typing import Any

import numpy as np
import pytest
from hypothesis import given

from pytest_jsonmatch import match_json
from pytest_jsonmatch.engine.core.depth import SHALLOW
from pytest_jsonmatch.engine.core.errors import JsonMatchError
from pytest_jsonmatch.engine.reading import intake
from pytest_jsonmatch.engine.walking import index_elements, inline_leaves
from tests.engine.test_gold_read_in_walk import door_reads
from tests.engine.test_similarity_read_in_walk import read_by_the_door
from tests.helpers import fuzz_values as fv
from tests.helpers.run_records import Count, Tag, nested
from tests.helpers.sweeps import sweep
from tests.helpers.switches import switched

SETTINGS = sweep(60)


class _Key(str):
    """A key of a str subclass: the door makes it a plain string."""


class _Float(float):
    """A float subclass: the door makes it a plain float."""


class _Colour(enum.Enum):
    RED = 1


def _holding_itself() -> list[Any]:
    value: list[Any] = [1, "a"]
    value.append(value)
    return value


def _element_holding_its_array() -> list[Any]:
    value: list[Any] = [{"a": 1}]
    value.append({"a": 2, "rows": value})
    return value


def _objects_nested(levels: int) -> Any:
    value: Any = {"leaf": 1}
    for _ in range(levels):
        value = {"down": value}
    return value


PLAIN_ROWS: list[Any] = [{"a": 1, "b": "x"}, {"a": 2, "b": "y"}]
# expected arrays, each with what the door copies or refuses where the loop meets it
HOSTILE: dict[str, list[Any]] = {
    "NaN for a scalar element": [1.5, float("nan"), 2.5],
    "an infinity for a scalar element": [1.5, float("-inf")],
    "a str enum for a scalar element": ["a", Tag.A],
    "an int enum for a scalar element": [1, Count.ONE],
    "a float subclass for a scalar element": [1.5, _Float(2.5)],
    "a numpy float for a scalar element": [1.5, np.float64(2.5)],
    "a tuple for an element": [[1, 2], (3, 4)],
    "a set for an element": ["a", {1}],
    "bytes for an element": ["a", b"b"],
    "an enum of no JSON type": ["a", _Colour.RED],
    "NaN in an object element": [{"a": 1, "b": "x"}, {"a": float("nan"), "b": "y"}],
    "an infinity below an object element": [{"a": 1, "b": {"c": float("inf")}}],
    "a key that is not a string": [{"a": 1, "b": "x"}, {"a": 2, 3: "y"}],
    "a key of a str subclass": [{"a": 1, "b": "x"}, {_Key("a"): 2, "b": "y"}],
    "a str enum in an object element": [{"a": 1, "b": Tag.A}],
    "an int enum in an object element": [{"a": Count.ONE, "b": "x"}],
    "a tuple in an object element": [{"a": (1, 2), "b": "x"}],
    "a mapping that is not a dict": [
        {"a": 1, "b": "x"},
        collections.OrderedDict(a=2, b="y"),
    ],
    "an ordered mapping below an element": [{"a": collections.OrderedDict(c=1), "b": "x"}],
    "NaN in an array below an element": [{"a": [1, float("nan")], "b": "x"}],
    "an array nested beyond the walk's room": [1, nested(70)],
    "an array nested deeper than the stack holds": [1, nested(3_000)],
    "objects nested beyond the walk's room": [{"a": _objects_nested(70), "b": "x"}],
    "an array that holds itself": _holding_itself(),
    "an element that holds its array": _element_holding_its_array(),
    "NaN past the answer's end": [*PLAIN_ROWS, {"a": float("nan")}],
    "a tuple past the answer's end": [*PLAIN_ROWS, (1, 2)],
}
# answers beside each: the array itself (equal elements: the loop's matches), damaged
# elements, a shorter one (the rest are omissions), scalars for everything (no element the
# inline loop or the plan takes), an empty one, a longer one
ANSWERS: dict[str, Any] = {
    "itself": None,
    "damaged": [{"a": 9, "b": "z"}, 7.5, "q", [0], {"c": 1}],
    "shorter": [{"a": 1, "b": "x"}],
    "scalars": ["s", "t", "u", "v"],
    "empty": [],
    "longer": [*PLAIN_ROWS, 1, 2, 3, 4, 5, 6],
}


def outcome(actual: Any, expected: Any, **options: Any) -> str:
    """Everything match_json says of the pair, as exact text, or its error."""
    try:
        return fv.exact_repr(match_json(actual, expected, "json_similarity", **options))
    except JsonMatchError as exc:
        return f"{type(exc).__name__}: {exc}"


def three_ways(actual: Any, expected: Any) -> tuple[str, str, str]:
    """The pair's outcome with the folded check, with the door's check of the array first
    (the switch off), and with both sides read by the door."""
    folded = outcome(actual, expected)
    with switched(index_elements, "FOLDED_CHECK", False):
        whole = outcome(actual, expected)
    with read_by_the_door():
        door = outcome(actual, expected)
    return folded, whole, door


@pytest.mark.parametrize("what", list(HOSTILE))
def test_what_the_door_copies_or_refuses_in_an_expected_array_comes_out_as_it_makes_it(
    what: str,
) -> None:
    rows = HOSTILE[what]
    for answer, other in ANSWERS.items():
        # (at the root's key, and one object further down: the array's depth is its path's)
        for expected, actual in (
            ({"id": "A", "rows": rows}, {"id": "A", "rows": rows if other is None else other}),
            (
                {"v": {"rows": rows}, "n": 1},
                {"v": {"rows": rows if other is None else other}, "n": 2},
            ),
        ):
            folded, whole, door = three_ways(actual, expected)
            assert folded == whole == door, (answer, expected)


def test_the_cases_reach_the_doors_errors_and_copies() -> None:
    """Not vacuous: the door's own words for the values the loop meets, named at their
    place; a value the door copies is scored as its copy, with no error."""
    plain = {"id": "A", "rows": PLAIN_ROWS}
    cases = {
        "NaN for a scalar element": "rows[1]: nan in expected is not a JSON number",
        "NaN in an object element": "rows[1].a: nan in expected is not a JSON number",
        "a key that is not a string": "rows[1]: key 3 in expected is not a string",
        "NaN past the answer's end": "rows[2].a: nan in expected is not a JSON number",
        "a set for an element": "rows[1]: set in expected is not a JSON value",
        "an array that holds itself": "rows[2]: the value in expected contains itself",
    }
    for what, error in cases.items():
        said = outcome(plain, {"id": "A", "rows": HOSTILE[what]})
        assert said.startswith("ParseError") and error in said, (what, said)
    copied = outcome(plain, {"id": "A", "rows": HOSTILE["a str enum for a scalar element"]})
    assert copied == outcome(plain, {"id": "A", "rows": ["a", "a"]})
    tupled = outcome(plain, {"id": "A", "rows": HOSTILE["a tuple for an element"]})
    assert tupled == outcome(plain, {"id": "A", "rows": [[1, 2], [3, 4]]})


def test_an_element_of_too_many_keys_is_the_doors_error(monkeypatch: pytest.MonkeyPatch) -> None:
    """The door's bound on an object's keys, lowered for the test where the door and the
    loops read it, met by an element object and by an object below one."""
    for module in (intake, index_elements, inline_leaves):
        monkeypatch.setattr(module, "MAX_KEYS", 3)
    wide = {"a": 1, "b": 2, "c": 3, "d": 4}
    for rows in ([{"a": 1}, wide], [{"a": {"x": 1}}, {"a": wide}]):
        actual = {"rows": [{"a": 1, "b": 2}, {"a": {"x": 2}}]}
        folded, whole, door = three_ways(actual, {"rows": rows})
        assert "more than the 3 one object may hold" in door
        assert folded == whole == door


def test_the_doors_pass_over_the_array_is_not_made(monkeypatch: pytest.MonkeyPatch) -> None:
    """Not vacuous: on, nothing checks the plain expected array whole (the loop checks
    each element where it takes it); off, ``index_array`` does, first; the same result."""
    checked: list[int] = []
    real = inline_leaves.plain_within

    def counted(value: Any, levels: int) -> bool:
        checked.append(id(value))
        return real(value, levels)

    monkeypatch.setattr(inline_leaves, "plain_within", counted)
    rows: list[Any] = [{"a": 1, "b": "x"}, 2.5, [1, 2], {"a": {"c": [3]}}, "tail"]
    expected = {"id": "A", "rows": rows}
    actual = {"id": "A", "rows": [{"a": 1, "b": "y"}, 2.0, [1], {"a": {"c": [4]}}]}
    folded = outcome(actual, expected)
    assert id(rows) not in checked
    with switched(index_elements, "FOLDED_CHECK", False):
        whole = outcome(actual, expected)
    assert id(rows) in checked
    assert folded == whole


def _varied(rng: random.Random, tag: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """An expected record with arrays of scalars, of objects and of both (nested arrays and
    objects among them), and an answer damaged from it: elements changed, dropped, added,
    of another type."""

    def scalar() -> Any:
        return rng.choice(["ab", "cd ef", 3, 4.25, True, None, -0.0, 10**30])

    def element(level: int) -> Any:
        pick = rng.random()
        if level < 2 and pick < 0.3:
            return {f"{tag}k{j}": element(level + 1) for j in range(rng.randint(0, 3))}
        if level < 2 and pick < 0.4:
            return [element(level + 1) for _ in range(rng.randint(0, 3))]
        return scalar()

    def damaged(value: Any) -> Any:
        if rng.random() < 0.15:
            return element(1)
        if type(value) is dict:
            out = {k: damaged(v) for k, v in value.items() if rng.random() > 0.1}
            if rng.random() < 0.2:
                out[f"{tag}x"] = scalar()
            return out
        if type(value) is list:
            items = [damaged(v) for v in value if rng.random() > 0.1]
            return items + [element(1) for _ in range(rng.randint(0, 1))]
        return value if rng.random() < 0.7 else scalar()

    expected = {f"{tag}r{j}": [element(0) for _ in range(rng.randint(0, 4))] for j in range(3)}
    expected[f"{tag}id"] = scalar()
    return expected, damaged(expected)


def test_varied_arrays_score_as_the_door_and_the_whole_check_make_them() -> None:
    rng = random.Random(99)
    for n in range(300):
        expected, actual = _varied(rng, f"t{n}")
        folded, whole, door = three_ways(actual, expected)
        assert folded == whole == door, (expected, actual)


@SETTINGS
@given(pair=fv.PAIRS)
def test_drawn_pairs_score_the_same_with_the_check_folded_or_whole(pair: tuple[Any, Any]) -> None:
    actual, expected = pair
    folded = outcome(actual, expected)
    with switched(index_elements, "FOLDED_CHECK", False):
        whole = outcome(actual, expected)
    assert folded == whole


def test_an_array_past_the_walks_room_is_read_by_the_door(monkeypatch: pytest.MonkeyPatch) -> None:
    """An array under objects nested to the walk's room (SHALLOW, 60): the loop takes no
    element of it, and the door reads the pair (as ``index_array``'s whole check has it)."""
    seen = door_reads(monkeypatch)

    def under(levels: int, rows: list[Any]) -> dict[str, Any]:
        value: dict[str, Any] = {"rows": rows}
        for _ in range(levels):
            value = {"down": value, "n": 1}
        return value

    for levels, read in ((SHALLOW - 1, ["expected", "actual"]), (SHALLOW - 3, [])):
        expected, actual = under(levels, [1, "x"]), under(levels, [2, "y"])
        seen.clear()
        folded = outcome(actual, expected)
        assert seen == read, levels
        with switched(index_elements, "FOLDED_CHECK", False):
            assert outcome(actual, expected) == folded
