"""``match_json`` hands a pair of objects to the walk with neither side through the door
(engine/entry.py, ``Entry.unread_pair``; switch ``READ_PAIR_IN_WALK``): the inline loop
checks each expected key and value it takes, reads whole what it hands on, and an array
whose elements pair by index has its answer's elements checked where they are taken
(``Walk.key_array``).

What must hold: every pair comes out as it does with the expected side read by the door
first (the switch off), to the bit: the same result, or the same error, word for word,
whichever side holds the value the door copies or refuses, and wherever it lies.
"""

from __future__ import annotations

from contextlib import AbstractContextManager
from typing import Any

import pytest

from pytest_jsonmatch import match_json
from pytest_jsonmatch.engine import entry
from pytest_jsonmatch.engine.core.errors import JsonMatchError
from pytest_jsonmatch.engine.reading.intake import MAX_KEYS
from tests.engine.test_gold_read_in_walk import HOSTILE_GOLD, door_reads
from tests.helpers import fuzz_values as fv
from tests.helpers.run_records import DAMAGED, INVOICE, NOT_PLAIN_JSON, Count, Tag
from tests.helpers.switches import switched

# answers that meet a hostile expected value on each path of the inline loop: equal to it
# (the loop's match), different (its comparator), lacking it (an omission), or hostile
# themselves (each answer NOT_PLAIN_JSON holds, and equal infinities)
ANSWERS: dict[str, dict[str, Any]] = {
    "damaged": DAMAGED,
    "the expected record itself": {},
    "lacking every field": {"other": 1},
    "infinities and enums": {
        **INVOICE,
        "total": float("inf"),
        "id": Tag.A,
        "items": [{"sku": "a", "qty": float("inf")}, {"sku": "b", "qty": Count.ONE}],
    },
    **NOT_PLAIN_JSON,
}

EXPECTED: dict[str, dict[str, Any]] = {
    "plain": INVOICE,
    **HOSTILE_GOLD,
    "an infinity where the answer has it": {**INVOICE, "total": float("inf")},
    "an int enum at the top": {**INVOICE, "total": Count.ONE},
    "a key that is not a string at the top": {**INVOICE, 7: "x"},
    "a key of a str subclass in an element": {
        **INVOICE,
        "items": [{"sku": "a", "qty": 1}, {Tag.A: "b", "qty": 2}],
    },
}

ALIGNS = [{}, {"align": "hungarian"}, {"align": {"match_by": "key_field", "key": "sku"}}]


def expected_read_by_the_door() -> AbstractContextManager[None]:
    return switched(entry, "READ_PAIR_IN_WALK", False)


def outcome(actual: Any, expected: Any, **options: Any) -> str:
    """Everything match_json says of the pair, as exact text, or its error."""
    try:
        return fv.exact_repr(match_json(actual, expected, "field_f1", **options))
    except JsonMatchError as exc:
        return f"{type(exc).__name__}: {exc}"


def both_ways(actual: Any, expected: Any, **options: Any) -> tuple[str, str]:
    in_walk = outcome(actual, expected, **options)
    with expected_read_by_the_door():
        door = outcome(actual, expected, **options)
    return in_walk, door


@pytest.mark.parametrize("align", range(len(ALIGNS)))
@pytest.mark.parametrize("what", list(EXPECTED))
def test_a_pair_comes_out_as_with_its_expected_side_read_by_the_door(what: str, align: int) -> None:
    expected = EXPECTED[what]
    for answer, given in ANSWERS.items():
        in_walk, door = both_ways(given or expected, expected, **ALIGNS[align])
        assert in_walk == door, answer


def test_the_cases_reach_the_doors_errors_on_either_side() -> None:
    """Not vacuous: the door refuses the expected side's NaN and the answer's, each named
    on its side; the answer's infinity against the expected one is the expected side's."""
    assert "total: nan in expected is not a JSON number" in outcome(
        DAMAGED, EXPECTED["NaN where a number is expected"]
    )
    assert "total: nan in actual is not a JSON number" in outcome(
        ANSWERS["NaN where a number is expected"], INVOICE
    )
    both_inf = {**INVOICE, "total": float("inf")}
    assert "total: inf in expected is not a JSON number" in outcome(both_inf, both_inf)
    assert "key 7 in expected is not a string" in outcome(
        DAMAGED, EXPECTED["a key that is not a string at the top"]
    )


def test_a_plain_pair_never_meets_the_door(monkeypatch: pytest.MonkeyPatch) -> None:
    """On, the door reads neither side of a plain pair; off, it reads the expected one (the
    answer is the unread walk's either way); the results are the same."""
    seen = door_reads(monkeypatch)
    in_walk = outcome(DAMAGED, INVOICE)
    assert seen == []
    with expected_read_by_the_door():
        door = outcome(DAMAGED, INVOICE)
    assert seen == ["expected"]
    assert in_walk == door


def test_an_object_of_too_many_keys_is_the_doors_error() -> None:
    wide = {f"k{i}": i for i in range(MAX_KEYS + 1)}
    for expected in (wide, {**INVOICE, "vendor": wide}):
        in_walk, door = both_ways(DAMAGED, expected)
        assert f"more than the {MAX_KEYS:,} one object may hold" in door
        assert in_walk == door


def test_expected_objects_nested_past_the_walks_room_are_read_by_the_door() -> None:
    """Objects inside objects, 70 deep on both sides (past SHALLOW, 60): the loop stops
    before its room ends, and the door reads the pair (a copy past its fast depth)."""
    deep: Any = {"leaf": 1}
    for _ in range(70):
        deep = {"down": deep, "n": 1}
    other: Any = {"leaf": 2}
    for _ in range(70):
        other = {"down": other, "n": 1}
    in_walk, door = both_ways(other, deep)
    assert "MatchResult" in door
    assert in_walk == door


@pytest.mark.parametrize("align", range(len(ALIGNS)))
def test_answer_elements_paired_by_index_are_checked_where_taken(align: int) -> None:
    """A hostile answer element on every path of an array paired by index: a scorer's
    element, an element past expected's end, a scalar element, a nested array; the door
    refuses some (an error) and copies the others (a str enum, a tuple: scored as read)."""
    expected = {"items": [{"sku": "a", "qty": 1}, {"sku": "b", "qty": 2}], "tags": ["x", [1]]}
    refused: list[dict[str, Any]] = [
        {"items": [{"sku": "a", "qty": float("nan")}]},
        {"items": [{"sku": "a", "qty": 1}, {"sku": "b", "qty": 2}, {"sku": {1}}]},
        {"items": [{"sku": "a", "qty": 1}, {"sku": "b", "qty": 2, 5: "x"}]},
        {"tags": ["x", [float("inf")]]},
        {"tags": ["x", [1], b"y"]},
    ]
    copied: list[dict[str, Any]] = [{"tags": [Tag.A, [1]]}, {"tags": ["x", (1,)]}]
    for answer in refused + copied:
        in_walk, door = both_ways(answer, expected, **ALIGNS[align])
        assert in_walk == door
        assert ("Error" in door) == (answer in refused), answer


def test_an_answer_array_is_read_whole_only_where_its_pairing_needs_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Not vacuous: paired by index or by counts of equal fields (flat elements), the
    answer's array is never read whole, only values the walk takes (a mismatch, an
    element's extra key); paired by a key field, it is read whole before it is paired."""
    from pytest_jsonmatch.engine.walking import unread_sides

    whole: list[object] = []
    real = unread_sides.plain_within

    def seen(value: object, levels: int) -> bool:
        if type(value) is list:
            whole.append(value)
        return real(value, levels)

    monkeypatch.setattr(unread_sides, "plain_within", seen)
    answer = {**INVOICE, "items": [{"sku": "b", "qty": 2}, {"sku": "a", "qty": 3, "x": 1}]}
    for align, read in [(ALIGNS[0], False), (ALIGNS[1], False), (ALIGNS[2], True)]:
        whole.clear()
        in_walk, door = both_ways(answer, INVOICE, **align)
        assert in_walk == door
        assert any(value is answer["items"] for value in whole) == read, align
