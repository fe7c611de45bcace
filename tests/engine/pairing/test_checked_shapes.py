"""structural_f1's arrays of flat objects on the unread walk: one pass over each side makes
the door's check and the elements' shapes, handed to the pair scores
(``flat_similarity.checked_shapes``, from ``UnreadSides.flat_arrays``), and an array of
fewer than ``MIN_PAIRS`` element pairs is scored by a plan kept with its code written.

What must hold: every pair comes out as it does with both sides read by the door first, to
the bit (the same result, or the same error word for word), whatever either side's elements
hold; the shapes handed are those ``_shapes`` finds; a small array never lays out a plan,
counts a sighting or writes code, and scores as the general path does.
"""

from __future__ import annotations

from typing import Any

import pytest

from pytest_jsonmatch.engine.metrics.base import configure
from pytest_jsonmatch.engine.metrics.structural_f1 import STRUCTURAL_F1
from pytest_jsonmatch.engine.pairing import flat_similarity, pair_scores, plan_rows
from pytest_jsonmatch.engine.reading import intake
from pytest_jsonmatch.engine.walking import unread_sides as sides
from tests.engine.test_gold_read_in_walk import door_reads
from tests.engine.test_structural_read_in_walk import outcome, read_by_the_door
from tests.helpers.run_records import Count, Tag
from tests.helpers.switches import switched

# elements of one shape, as a dataset's answers give them: a text, a one-token text, numbers
ITEMS = [{"a": f"s{i}", "b": f"part {i} blue", "n": i, "p": i * 1.5} for i in range(4)]


class Text(str):
    """A text of a str subclass: the door copies it to a plain str."""


class Real(float):
    """A number of a float subclass."""


# one element the door copies or refuses, put in an array of plain ones
HOSTILE: dict[str, dict[Any, Any]] = {
    "NaN": {**ITEMS[1], "p": float("nan")},
    "an infinity": {**ITEMS[1], "p": float("inf")},
    "a negative infinity": {**ITEMS[1], "n": float("-inf")},
    "a key of a str subclass equal to a plain one": {Tag.A: "s1", "b": "x", "n": 1, "p": 1.5},
    "a key that is not a string": {**ITEMS[1], 7: "x"},
    "a value of a str subclass": {**ITEMS[1], "a": Text("s1")},
    "a value of a float subclass": {**ITEMS[1], "p": Real(1.5)},
    "an int enum": {**ITEMS[1], "n": Count.ONE},
    "a nested array": {**ITEMS[1], "n": [1, 2]},
    "a nested object": {**ITEMS[1], "n": {"x": 1}},
    "a tuple": {**ITEMS[1], "n": (1, 2)},
    "a null and a boolean": {**ITEMS[1], "n": None, "p": True},  # (plain: scored)
}


def arrays(hostile: dict[Any, Any], small: bool) -> tuple[list[Any], list[Any]]:
    """A plain array and one holding ``hostile`` (3 x 3 elements, or 1 x 1 where small)."""
    if small:
        return [ITEMS[0]], [hostile]
    return ITEMS[:3], [ITEMS[2], hostile, ITEMS[0]]


@pytest.mark.parametrize("small", [False, True], ids=["3x3", "1x1"])
@pytest.mark.parametrize("side", ["actual", "expected"])
@pytest.mark.parametrize("what", list(HOSTILE))
def test_hostile_elements_come_out_as_read_by_the_door(
    what: str, side: str, small: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(flat_similarity, "WRITE_AT", 1)  # (every plan's code written)
    plain, other = arrays(HOSTILE[what], small)
    expected, actual = (plain, other) if side == "actual" else (other, plain)
    pair = {"id": 1, "items": actual}, {"id": 1, "items": expected}
    in_walk = [outcome(*pair) for _ in range(2)]
    with read_by_the_door():
        door = outcome(*pair)
    assert in_walk == [door, door]


def test_the_hostile_cases_reach_the_doors_errors() -> None:
    """Not vacuous: the door's errors, each named on its side and element, come out."""
    expected, actual = arrays(HOSTILE["NaN"], False)
    said = outcome({"items": actual}, {"items": expected})
    assert "items[1].p: nan in actual is not a JSON number" in said
    said = outcome({"items": expected}, {"items": actual})
    assert "items[1].p: nan in expected is not a JSON number" in said
    said = outcome({"items": expected}, {"items": arrays(HOSTILE["an infinity"], False)[1]})
    assert "items[1].p: inf in expected is not a JSON number" in said
    # a copied value is scored: the door's copy, as a plain str
    said = outcome(
        {"items": arrays(HOSTILE["a value of a str subclass"], False)[1]}, {"items": expected}
    )
    assert "MatchResult" in said


def test_more_keys_than_the_door_allows_come_out_as_read_by_the_door(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(intake, "MAX_KEYS", 3)  # (the elements hold 4 keys)
    pair = {"items": ITEMS[1:]}, {"items": ITEMS[:3]}
    in_walk = outcome(*pair)
    with read_by_the_door():
        door = outcome(*pair)
    assert in_walk == door
    assert "more than the 3 one object may hold" in in_walk


def test_the_shapes_handed_are_those_the_pair_scores_find() -> None:
    expected = [ITEMS[0], {"a": "x", "n": None}, ITEMS[1]]
    actual = [{"b": "y", "a": "z"}, ITEMS[2]]
    assert flat_similarity.checked_shapes(expected, actual, 2)
    try:
        assert flat_similarity._handed == (
            expected,
            actual,
            flat_similarity._shapes(expected, actual),
        )
        # sizes leave nulls out: 4, 1 (a null n), 4; 2, 4
        assert flat_similarity._handed[2][1:] == ([4, 1, 4], [2, 4])
    finally:
        flat_similarity.forget_shapes()
    assert flat_similarity._handed is None
    # what is not handed: too few levels of room, a scalar element, a nested value
    assert not flat_similarity.checked_shapes(expected, actual, 1)
    assert not flat_similarity.checked_shapes(expected, [*actual, "s"], 2)
    assert not flat_similarity.checked_shapes([{"a": [1]}], actual, 2)
    assert flat_similarity._handed is None
    with switched(flat_similarity, "SPECIALISE", False):
        assert not flat_similarity.checked_shapes(expected, actual, 2)


def test_a_small_array_is_scored_by_a_kept_plan_only(monkeypatch: pytest.MonkeyPatch) -> None:
    """An array of fewer than MIN_PAIRS pairs, its shapes handed over, takes the plan of
    its shapes where one is kept with its code written, and gives the general path's rows
    to the bit; else it takes the general path without laying out a plan, counting a
    sighting or writing code."""
    for table in ("_KEPT", "_SIGHTINGS", "_FUNCTIONS"):
        monkeypatch.setattr(flat_similarity, table, {})
    monkeypatch.setattr(flat_similarity, "WRITE_AT", 2)
    # (the plans' written code alone: with the loop, a plan without its code is read by it)
    monkeypatch.setattr(plan_rows, "INTERPRET", False)
    cfg = configure(STRUCTURAL_F1, {})
    small_e, small_a = ITEMS[:2], [ITEMS[3], {**ITEMS[0], "b": "part blue"}]  # 4 pairs

    def handed_rows(expected: list[Any], actual: list[Any]) -> Any:
        assert flat_similarity.checked_shapes(expected, actual, 2)
        try:
            return flat_similarity.similarity_rows(cfg, None, expected, actual)
        finally:
            flat_similarity.forget_shapes()

    assert handed_rows(small_e, small_a) is None  # nothing kept: the general path
    assert flat_similarity._KEPT == flat_similarity._SIGHTINGS == {}
    # a larger array of the same shapes, met twice: its plan laid out, then its code written
    large_e, large_a = [*small_e, ITEMS[1], ITEMS[0]], [*small_a, ITEMS[2], ITEMS[3]]
    assert handed_rows(large_e, large_a) is None  # (its first sighting)
    assert handed_rows(small_e, small_a) is None  # (a plan kept, its code not written)
    assert list(flat_similarity._SIGHTINGS.values()) == [1]  # (the small one not counted)
    assert handed_rows(large_e, large_a) is not None
    assert len(flat_similarity._FUNCTIONS) == 1
    rows, scale = handed_rows(small_e, small_a)
    with switched(flat_similarity, "SPECIALISE", False):
        general, general_scale = pair_scores.pair_scores(
            cfg, "items", None, small_e, small_a, "similarity", lambda i, j: 0.0
        )
    assert scale == general_scale == 4.0  # every element has the same 4 fields
    assert [[s.hex() for s in row] for row in rows] == [
        [float(s).hex() for s in row] for row in general
    ]
    # worked by hand (sums over the 4 fields): s0 against s3 and s0; "part 0 blue" against
    # "part 3 blue" (2 of 4 tokens: 0.5) and "part blue" (2 of 3); n 0 and 3 apart, equal;
    # p 0.0 and 4.5 apart, equal
    assert rows[0] == [0.5, 1.0 + 2 / 3 + 1.0 + 1.0]
    # without handed shapes (the sides read by the door), a small array is not taken here
    assert flat_similarity.similarity_rows(cfg, None, small_e, small_a) is None


def test_plain_arrays_are_checked_by_the_shapes_pass_not_the_door(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Not vacuous: plain arrays of flat objects take the shapes pass (and no door), a
    hostile one the door after it."""
    seen = door_reads(monkeypatch)
    checked: list[bool] = []
    real = flat_similarity.checked_shapes

    def counted(*args: Any) -> bool:
        checked.append(real(*args))
        return checked[-1]

    monkeypatch.setattr(sides, "checked_shapes", counted)
    outcome({"id": 1, "items": ITEMS[1:]}, {"id": 1, "items": ITEMS})
    assert checked == [True] and seen == []
    outcome({"id": 1, "items": [HOSTILE["NaN"]]}, {"id": 1, "items": ITEMS})
    # (each unread walk the entry tries turns the array to the door; then the door's error)
    assert checked[0] and checked[1:] and not any(checked[1:])
    assert seen == ["expected", "actual"]


def test_shapes_handed_for_other_arrays_are_never_taken(monkeypatch: pytest.MonkeyPatch) -> None:
    """The slot names its arrays: another pair of arrays (another thread's walk, say) is
    scored from its own shapes, or for a small one by the general path, whatever is
    handed."""
    monkeypatch.setattr(flat_similarity, "WRITE_AT", 1)
    monkeypatch.setattr(plan_rows, "INTERPRET", False)  # (else the loop reads a small one)
    cfg = configure(STRUCTURAL_F1, {})
    large_e, large_a = ITEMS, ITEMS[::-1]
    assert flat_similarity.similarity_rows(cfg, None, large_e, large_a) is not None  # (kept)
    own = flat_similarity.similarity_rows(cfg, None, large_e, large_a)
    other = [{"a": "x", "b": 1}] * 3  # (other shapes: had they been taken, other rows)
    assert flat_similarity.checked_shapes(other, other, 2)
    try:
        assert flat_similarity.similarity_rows(cfg, None, large_e, large_a) == own
        assert flat_similarity.similarity_rows(cfg, None, ITEMS[:1], ITEMS[1:2]) is None
        # the same contents in other lists are other arrays too
        assert flat_similarity.similarity_rows(cfg, None, list(other), list(other)) is not None
    finally:
        flat_similarity.forget_shapes()
