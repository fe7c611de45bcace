"""``evaluate_records`` hands its gold records to the walk unread where it infers their
schema (engine/entry.py, ``Entry.reads_gold``; switch ``READ_GOLD_IN_WALK``).

What must hold: every run comes out as it does with every gold record read through the
door first (the switch off), to the bit: the same records, fields, tables and means, or
the same error, word for word, and the first one the door meets. Gold the door would copy
or refuse starts the run again (``Reread``), wherever it lies: in a field the generated
scorers read, one they hand to the general walk, an element, a key, or below what the
inferred schema describes; and a gold value that holds itself, or nests without end,
neither hangs inference nor reaches past the walk's room.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest

from pytest_jsonmatch.engine import entry
from tests.helpers.run_records import DAMAGED, INVOICE, NOT_PLAIN_JSON, Count, Tag, run_text


class _Key(str):
    """A key of a str subclass: the door makes it a plain string."""


def _object_nested(levels: int) -> Any:
    value: Any = {"leaf": 1}
    for _ in range(levels):
        value = {"down": value}
    return value


def _dict_holding_itself() -> dict[str, Any]:
    value: dict[str, Any] = {"name": "ACME"}
    value["vendor"] = value
    return value


def _list_holding_itself() -> list[Any]:
    value: list[Any] = [1]
    value.append(value)
    return value


# Gold records the door copies or refuses, each where the walk meets it (or inference
# does, before it); the answer beside each is the damaged one, or the one named.
HOSTILE_GOLD: dict[str, dict[str, Any]] = {
    **NOT_PLAIN_JSON,
    "a key of a str subclass": {**INVOICE, "vendor": {_Key("name"): "ACME", "city": "Lyon"}},
    "a str enum for a string": {**INVOICE, "items": [{"sku": Tag.A, "qty": 1}]},
    "an int enum for an integer": {**INVOICE, "items": [{"sku": "a", "qty": Count.ONE}]},
    "bytes": {**INVOICE, "id": b"A-1"},
    "an object that holds itself": {**INVOICE, "vendor": _dict_holding_itself()},
    "an array that holds itself": {**INVOICE, "extra": _list_holding_itself()},
    "objects nested beyond the walk's room": {**INVOICE, "extra": _object_nested(70)},
}

# answers that meet a hostile gold value where each path of the tally scorer takes it
ANSWERS: dict[str, dict[str, Any]] = {
    "damaged": DAMAGED,
    # (equal infinities and equal int enums: the tally scorer's hit on a float must refuse
    # the one, its check of a scalar's type the other)
    "infinities and an int enum": {
        **INVOICE,
        "total": float("inf"),
        "items": [{"sku": "a", "qty": float("inf")}, {"sku": "b", "qty": Count.ONE}],
    },
    "lacking every field": {"other": 1},
    "the gold record itself": {},  # (equal on every field: the hits alone must refuse)
}


@contextlib.contextmanager
def gold_read_by_the_door() -> Iterator[None]:
    before = entry.READ_GOLD_IN_WALK
    entry.READ_GOLD_IN_WALK = False
    try:
        yield
    finally:
        entry.READ_GOLD_IN_WALK = before


def outcome(expected: list[Any], actual: list[Any], **options: Any) -> str:
    return run_text(expected, actual, options)


def both_ways(expected: list[Any], actual: list[Any], **options: Any) -> tuple[str, str]:
    read_in_walk = outcome(expected, actual, **options)
    with gold_read_by_the_door():
        door = outcome(expected, actual, **options)
    return read_in_walk, door


@pytest.mark.parametrize("answer", list(ANSWERS))
@pytest.mark.parametrize("what", list(HOSTILE_GOLD))
@pytest.mark.parametrize("at", ["first", "last", "every"])
def test_gold_the_door_copies_or_refuses_comes_out_as_the_door_makes_it(
    what: str, answer: str, at: str
) -> None:
    """Four records, the hostile one first, last (by then its shapes' scorers are
    compiled: the tests compile one at its second meeting), or every one (its own shapes
    meet often enough to be compiled)."""
    expected: list[Any] = [INVOICE, INVOICE, INVOICE, INVOICE]
    actual: list[Any] = [DAMAGED, INVOICE, DAMAGED, INVOICE]
    hostile = HOSTILE_GOLD[what]
    answered = ANSWERS[answer] or hostile
    places = {"first": [0], "last": [3], "every": [0, 1, 2, 3]}[at]
    for place in places:
        expected[place], actual[place] = hostile, answered
    read_in_walk, door = both_ways(expected, actual)
    assert read_in_walk == door


def door_reads(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The sides the door reads from here on, by name (``expected[3]``, ``actual[0]``)."""
    seen: list[str] = []
    real = entry._read

    def counted(value: object, side: str, cfg: Any) -> Any:
        seen.append(side)
        return real(value, side, cfg)

    monkeypatch.setattr(entry, "_read", counted)
    return seen


def test_plain_gold_never_meets_the_door_and_scores_as_it_does_there(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Not vacuous: on, the door reads the first gold record alone (before inference);
    off, it reads every one."""
    expected = [INVOICE] * 6
    actual = [DAMAGED, INVOICE] * 3
    seen = door_reads(monkeypatch)
    read_in_walk = outcome(expected, actual)
    assert [side for side in seen if side.startswith("expected")] == ["expected[0]"]
    seen.clear()
    with gold_read_by_the_door():
        door = outcome(expected, actual)
    assert [side for side in seen if side.startswith("expected")] == [
        f"expected[{i}]" for i in range(6)
    ]
    assert read_in_walk == door


def test_one_copied_gold_record_reads_them_all_first(monkeypatch: pytest.MonkeyPatch) -> None:
    """A tuple in the fifth record: the run starts again, every gold record read by the
    door, so that the schema is inferred from what the door makes of them."""
    expected: list[Any] = [INVOICE] * 6
    expected[4] = {**INVOICE, "items": tuple(INVOICE["items"])}
    seen = door_reads(monkeypatch)
    read_in_walk = outcome(expected, [DAMAGED] * 6)
    assert [side for side in seen if side.startswith("expected")][-6:] == [
        f"expected[{i}]" for i in range(6)
    ]
    with gold_read_by_the_door():
        assert read_in_walk == outcome(expected, [DAMAGED] * 6)


def test_the_first_error_is_the_one_the_door_meets_first() -> None:
    """Read by the door first, a refused gold record is the run's error even where an
    earlier answer holds an error of its own (NaN): the walk meets the answer first."""
    expected: list[Any] = [INVOICE] * 6
    expected[5] = {**INVOICE, "id": {"a set"}}
    actual: list[Any] = [DAMAGED] * 6
    actual[1] = {**INVOICE, "total": float("nan")}
    read_in_walk, door = both_ways(expected, actual)
    assert "id: set in expected[5] is not a JSON value" in door
    assert read_in_walk == door
    # and an answer that cannot be read at all is an unscored record, its gold read all the
    # same: the error is the gold's
    actual[1] = "no JSON here"
    read_in_walk, door = both_ways(expected, actual)
    assert "id: set in expected[5] is not a JSON value" in door
    assert read_in_walk == door


def test_an_answer_error_with_plain_gold_is_raised_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """Where every gold record passes the door as it is, an answer's error is the run's,
    raised as it was met (the records are not scored again)."""
    actual: list[Any] = [DAMAGED] * 4
    actual[2] = {**INVOICE, "total": float("nan")}
    seen = door_reads(monkeypatch)
    read_in_walk = outcome([INVOICE] * 4, actual)
    assert seen.count("actual[2]") == 1
    with gold_read_by_the_door():
        assert read_in_walk == outcome([INVOICE] * 4, actual)
    assert "NaN and Infinity are not JSON" in read_in_walk


def test_gold_that_holds_itself_is_refused_without_hanging() -> None:
    """Inference over gold the door has not read stops at the walk's room (``bound``): a
    value that holds itself is the door's error, not an endless schema."""
    looped = _dict_holding_itself()
    read_in_walk, door = both_ways([INVOICE, looped], [INVOICE, INVOICE])
    assert "contains itself" in door
    assert read_in_walk == door


@pytest.mark.parametrize(
    "options",
    [
        {"schema": {"type": "object", "properties": {"id": {"type": "string"}}}},
        {"align": "hungarian"},
    ],
)
def test_only_an_inferred_schema_reads_gold_in_the_walk(
    options: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A schema given may nest without end (a recursive ``$ref``), so its gold is read by
    the door; records aligned otherwise than in order read theirs in the walk too."""
    seen = door_reads(monkeypatch)
    read_in_walk = outcome([INVOICE] * 4, [DAMAGED] * 4, **options)
    gold_reads = [side for side in seen if side.startswith("expected")]
    assert gold_reads == (
        [f"expected[{i}]" for i in range(4)] if "schema" in options else ["expected[0]"]
    )
    with gold_read_by_the_door():
        assert read_in_walk == outcome([INVOICE] * 4, [DAMAGED] * 4, **options)


def test_no_scorer_is_made_for_keys_that_are_not_strings() -> None:
    """A scorer found by a record's keys vouches that they are strings (the walk reads
    gold it has not checked by it): a shape with another key, however often met, takes
    the general walk, which reads that object whole."""
    from pytest_jsonmatch.engine.metrics import REGISTRY
    from pytest_jsonmatch.engine.schemas.eval_schema import infer_node
    from pytest_jsonmatch.engine.walking import generated_scorers as compiled

    vendor = {"name": "ACME", 3: "x"}
    node = infer_node([vendor], REGISTRY)
    cfg = entry.entry_for("field_f1", {}).cfg
    made = [compiled.scorer_for(node, vendor, ("vendor", "vendor", None), cfg, True)]
    made += [compiled.scorer_for(node, vendor, ("vendor", "vendor", None), cfg, True)]
    made += [compiled.scorer_for(node, {"name": "ACME", "3": "x"}, ("v", "v", None), cfg, True)]
    assert made[:2] == [None, None]
    assert made[2] is None  # (its first meeting: counted, not yet compiled)
    assert compiled.scorer_for(node, {"name": "ACME", "3": "x"}, ("v", "v", None), cfg, True)


def test_a_first_record_the_door_copies_is_read_before_any_inference(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Gold whose numbers a dataframe made (numpy floats in every record): the first
    record, read by the door before inference, sends the run to the door at once, and the
    schema is inferred once, from what the door made."""
    from pytest_jsonmatch.engine import match

    inferred: list[int | None] = []
    real = match.infer_node

    def counted(values: Any, registry: Any, warn_mixed: bool = False, bound: Any = None) -> Any:
        inferred.append(bound)
        return real(values, registry, warn_mixed, bound)

    monkeypatch.setattr(match, "infer_node", counted)
    expected = [{**INVOICE, "total": np.float64(10.5)} for _ in range(4)]
    read_in_walk = outcome(expected, [DAMAGED] * 4)
    assert inferred == [None]
    with gold_read_by_the_door():
        assert read_in_walk == outcome(expected, [DAMAGED] * 4)
