"""An unread expected array checked in the pass that reads its skeleton, and what else the
walk checks of an unread side without reading it whole.

``match_json``'s expected side reaches the walk without the door (``Entry.unread_pair``).
An array of it that no node or rule reaches, whose elements pair by index or by counts of
equal fields, is checked by the pass that finds its elements' skeleton, where its node is
kept by one (``eval_schema.checked_items``, ``intake.plain_shapes``), instead of a read of
the whole array first; an answer object with keys the expected one lacks has only those
keys' values checked after the inline loop (``UnreadSides.extras_read``); the generated
element scorers hand a mismatch's plain answer value to its comparator without a read.

What must hold: every pair comes out as with the expected side read by the door first
(``READ_PAIR_IN_WALK`` off), the same result or the same error, word for word.
"""

from __future__ import annotations

from typing import Any

import pytest

from pytest_jsonmatch import match_json
from pytest_jsonmatch.engine import entry
from pytest_jsonmatch.engine.reading import intake
from pytest_jsonmatch.engine.schemas import eval_schema
from pytest_jsonmatch.engine.walking import generated_scorers as compiled
from tests.engine.test_pair_read_in_walk import both_ways, outcome
from tests.helpers.run_records import Count
from tests.helpers.switches import switched


class Key(str):
    """A key of a str subclass: equal to the plain key, which the door copies."""


NAN, INF = float("nan"), float("inf")
PLAIN = [{"sku": "a", "qty": 1.5}, {"sku": "b", "qty": 2.5}, {"sku": "c", "qty": 3.5}]


def _cycle() -> dict[str, Any]:
    element: dict[str, Any] = {"sku": "c", "qty": 3.5}
    element["self"] = [element]
    return element


# the expected arrays: the first element plain (its keys sighted, so that the skeleton's
# pass checks them), a later one what the door copies or refuses, on each of its checks
HOSTILE_ARRAYS: dict[str, list[Any]] = {
    "a NaN in an element of the first one's shape": [PLAIN[0], {"sku": "b", "qty": NAN}],
    "an infinity in the third element": [*PLAIN[:2], {"sku": "c", "qty": -INF}],
    "a str subclass key equal to the first one's": [PLAIN[0], {Key("sku"): "b", "qty": 2.5}],
    "a key that is not a string": [PLAIN[0], {"sku": "b", 7: 2.5}],
    "an int enum value": [PLAIN[0], {"sku": "b", "qty": Count.ONE}],
    "a set value": [PLAIN[0], {"sku": "b", "qty": {1}}],
    "a tuple value": [PLAIN[0], {"sku": "b", "qty": (1, 2)}],
    "an element that holds itself": [PLAIN[0], _cycle()],
    "a NaN as a scalar element": [PLAIN[0], "x", NAN],
    "a bytes element": [PLAIN[0], b"x"],
    "a tuple element": [PLAIN[0], ("x",)],
    "a NaN past the kept elements' bound": [*PLAIN * 22, {"sku": "z", "qty": NAN}],
    "an object below an element (plain)": [PLAIN[0], {"sku": "b", "qty": {"n": 1}}],
    "elements of two shapes (plain)": [PLAIN[0], {"sku": "b", "qty": 2, "note": None}],
}
# what of them the door copies (a str subclass, an enum, a tuple) or passes as it is
SCORED = {
    "a str subclass key equal to the first one's",
    "an int enum value",
    "a tuple value",
    "a tuple element",
    "an object below an element (plain)",
    "elements of two shapes (plain)",
}
ANSWERS: dict[str, dict[str, Any]] = {
    "the same items": {"id": 1, "items": PLAIN},
    "fewer, damaged items": {"id": 1, "items": [{"sku": "a", "qty": 1.0}]},
    "more items": {"id": 1, "items": [*PLAIN, {"sku": "d", "qty": 4.5}]},
}
ALIGNS = [{}, {"align": "hungarian"}]


@pytest.fixture
def skeleton_passes(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The first elements' keys sighted afresh (the skeleton's pass is taken), and the
    number of elements of each array that pass checks, from here on."""
    monkeypatch.setattr(eval_schema, "_SIGHTED", {("sku", "qty"): None})
    passes: list[int] = []
    real = intake.plain_shapes

    def counted(elements: Any) -> tuple[object, ...] | None:
        passes.append(len(elements))
        return real(elements)

    monkeypatch.setattr(eval_schema, "plain_shapes", counted)
    return passes


@pytest.mark.parametrize("align", range(len(ALIGNS)))
@pytest.mark.parametrize("what", list(HOSTILE_ARRAYS))
def test_an_expected_array_checked_with_its_skeleton_comes_out_as_read_by_the_door(
    what: str, align: int, skeleton_passes: list[int]
) -> None:
    expected = {"id": 1, "items": HOSTILE_ARRAYS[what]}
    for answer, given in ANSWERS.items():
        in_walk, door = both_ways(given, expected, **ALIGNS[align])
        assert in_walk == door, answer
        assert (what in SCORED) == ("MatchResult" in door), answer
    # not vacuous: the skeleton's pass met every array but the one past its bound, whose
    # first elements' keys were sighted
    assert bool(skeleton_passes) == ("bound" not in what)


def test_the_cases_reach_the_doors_errors(skeleton_passes: list[int]) -> None:
    """Not vacuous: the door names each hostile element where it lies."""
    answer = ANSWERS["the same items"]
    said = {
        what: outcome(answer, {"id": 1, "items": array}) for what, array in HOSTILE_ARRAYS.items()
    }
    assert (
        "items[1].qty: nan in expected is not a JSON number"
        in said["a NaN in an element of the first one's shape"]
    )
    assert (
        "items[2].qty: -inf in expected is not a JSON number"
        in said["an infinity in the third element"]
    )
    assert "items[66].qty: nan in expected" in said["a NaN past the kept elements' bound"]
    assert "key 7 in expected is not a string" in said["a key that is not a string"]
    assert "MatchResult" in said["a str subclass key equal to the first one's"]  # (copied)
    assert "MatchResult" in said["a tuple value"]  # (copied: a list)


def test_a_plain_array_of_sighted_keys_is_checked_once(
    monkeypatch: pytest.MonkeyPatch, skeleton_passes: list[int]
) -> None:
    """A plain expected array whose skeleton is read: one pass over its elements (the
    skeleton's), no read of it whole, and the result the door's."""
    reads: list[int] = []
    real = intake._plain_depth

    def counted(container: Any, budget: int) -> int:
        if container is PLAIN:
            reads.append(budget)
        return real(container, budget)

    monkeypatch.setattr(intake, "_plain_depth", counted)
    expected = {"id": 1, "items": PLAIN}
    in_walk = outcome(ANSWERS["fewer, damaged items"], expected)
    assert skeleton_passes == [3]
    assert reads == []
    with switched(entry, "READ_PAIR_IN_WALK", False):
        assert outcome(ANSWERS["fewer, damaged items"], expected) == in_walk


def test_plain_shapes_is_the_skeleton_of_plain_elements() -> None:
    # a scalar's type; an object's keys in order and its values' types
    elements: list[Any] = [*PLAIN, {"qty": 1, "sku": None}, "x", 2, True, None, 0.5]
    assert intake.plain_shapes(elements) == eval_schema._skeleton(elements)
    assert intake.plain_shapes(elements) == (
        *[(("sku", "qty"), (str, float))] * 3,
        (("qty", "sku"), (int, type(None))),
        str,
        int,
        bool,
        type(None),
        float,
    )
    assert intake.plain_shapes([]) == ()


@pytest.mark.parametrize(
    "elements",
    [
        [PLAIN[0], {"sku": "b", "qty": NAN}],
        [PLAIN[0], {"sku": "b", "qty": INF}],
        [PLAIN[0], {Key("sku"): "b", "qty": 2.5}],
        [PLAIN[0], {"sku": "b", 7: 2.5}],
        [PLAIN[0], {"sku": "b", "qty": Count.ONE}],
        [PLAIN[0], {"sku": "b", "qty": [1]}],
        [PLAIN[0], {"sku": "b", "qty": {}}],
        [PLAIN[0], [1]],
        [PLAIN[0], -INF],
        [PLAIN[0], Key("x")],
        [PLAIN[0], ("x",)],
    ],
    ids=lambda elements: repr(elements[-1]),
)
def test_plain_shapes_refuses_what_the_door_would_not_pass_as_it_is(elements: list[Any]) -> None:
    assert intake.plain_shapes(elements) is None


def test_plain_shapes_holds_an_object_to_the_doors_bound_on_keys(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(intake, "MAX_KEYS", 2)
    assert intake.plain_shapes([PLAIN[0], {"a": 1, "b": 2}]) is not None
    assert intake.plain_shapes([PLAIN[0], {"a": 1, "b": 2, "c": 3}]) is None
    assert not intake.plain_within([PLAIN[0], {"a": 1, "b": 2, "c": 3}], 2)


# answers with keys the expected object lacks, at the root and in a nested object, the
# extra value or key what the door copies or refuses (or a shared key of a str subclass)
EXPECTED_RECORD = {"id": "A-1", "vendor": {"name": "ACME"}, "total": 10.5}
HOSTILE_EXTRAS: dict[str, dict[str, Any]] = {
    "a NaN below an extra key": {**EXPECTED_RECORD, "extra": {"n": NAN}},
    "an extra key that is not a string": {**EXPECTED_RECORD, 5: "x"},
    "a nested extra key that is not a string": {
        **EXPECTED_RECORD,
        "vendor": {"name": "ACME", 5: "x"},
    },
    "a shared key of a str subclass, and an extra one": {
        "id": "A-1",
        Key("total"): 10.5,
        "vendor": {"name": "ACME"},
        "extra": 1,
    },
    "a tuple below an extra key": {**EXPECTED_RECORD, "extra": (1, 2)},
    "an extra key holding itself": {**EXPECTED_RECORD, "extra": _cycle()},
    "plain extra keys": {**EXPECTED_RECORD, "extra": {"n": [1, 2.5]}, "more": None},
}


@pytest.mark.parametrize("what", list(HOSTILE_EXTRAS))
def test_an_answers_extra_keys_come_out_as_read_by_the_door(what: str) -> None:
    in_walk, door = both_ways(HOSTILE_EXTRAS[what], EXPECTED_RECORD)
    assert in_walk == door
    refused = ("NaN" in what) or ("not a string" in what) or ("itself" in what)
    assert ("Error" in door) == refused


def test_an_extra_key_past_the_doors_bound_on_keys_is_its_error() -> None:
    wide = {**EXPECTED_RECORD, **{f"k{i}": i for i in range(intake.MAX_KEYS)}}
    in_walk, door = both_ways(wide, EXPECTED_RECORD)
    assert f"more than the {intake.MAX_KEYS:,} one object may hold" in door
    assert in_walk == door


@pytest.mark.parametrize("align", range(len(ALIGNS)))
def test_compiled_element_scorers_take_a_mismatchs_answer_as_the_door_would(align: int) -> None:
    """Elements scored by their generated scorer (the shape met often enough to compile):
    a finite float, an int, a string and a null that differ are compared as they are; an
    infinity and an enum are the door's (refused, copied)."""
    expected = {"items": [{"sku": "a", "qty": 1.5, "n": 1, "note": "x"}] * 3}
    answers = [
        {"items": [{"sku": "b", "qty": 2.5, "n": 2, "note": None}] * 3},
        {"items": [{"sku": "a", "qty": INF, "n": 1, "note": "x"}] * 3},
        {"items": [{"sku": "a", "qty": 1.5, "n": Count.ONE, "note": "x"}] * 3},
        {"items": [{"sku": "a", "qty": NAN, "n": 1, "note": "x"}] * 3},
    ]
    for _ in range(compiled.sightings(4) + 1):  # (the shape's scorer compiled)
        match_json(answers[0], expected, "field_f1", **ALIGNS[align])
    for answer in answers:
        in_walk, door = both_ways(answer, expected, **ALIGNS[align])
        assert in_walk == door
        with switched(compiled, "SPECIALISE", False):
            assert outcome(answer, expected, **ALIGNS[align]) == in_walk
    # worked out by hand, the first answer: in each of the 3 elements, "a" against "b"
    # (exact: 0), 1.5 against 2.5 and 1 against 2 (numeric, no tolerance: 0), "x" against
    # null (exact: 0). In order: 12 mismatches of score 0, TP 0, precision = recall = 0 / 12.
    # Hungarian: every pair scores 0, none is kept (only above 0), so each element's 4
    # fields are omitted and the answer's 4 invented: 12 of each, TP 0, 0 / 12 both ways.
    found = match_json(answers[0], expected, "field_f1", **ALIGNS[align])
    statuses = [(f.status, f.score) for f in found.fields]
    assert statuses == (
        [("omission", 0.0)] * 12 + [("hallucination", 0.0)] * 12
        if align
        else [("mismatch", 0.0)] * 12
    )
    assert (found.precision, found.recall, found.score) == (0.0, 0.0, 0.0)
