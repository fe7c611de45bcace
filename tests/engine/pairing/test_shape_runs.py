"""The elements that repeat a shape, checked by code written per shape
(``shape_runs.py``, ``flat_similarity._checked_side``'s fast path).

What must hold: with the runs on, ``checked_shapes`` hands over the very shapes and sizes it
hands with them off (``SHAPE_RUNS = False``), or refuses the same arrays, whatever the
elements after a run's first hold (a non-finite float, a key of a str subclass, keys in
another order, a value of another type, a dict subclass); a run stops at the first element
that is not of its shape and the general loop reads it; a match comes out the same either
way, to the bit; and the runs are taken (not vacuous).
"""

from __future__ import annotations

from typing import Any

import pytest

from pytest_jsonmatch.engine.pairing import flat_similarity, shape_runs
from tests.engine.test_structural_read_in_walk import outcome
from tests.helpers.run_records import Tag
from tests.helpers.switches import switched

ITEM = {"a": "s1", "b": "part blue", "n": 3, "p": 1.5}


def item(i: int, **changed: Any) -> dict[Any, Any]:
    """An element of ITEM's shape (new values), with ``changed`` laid over it."""
    return {**ITEM, "a": f"s{i}", "n": i, "p": i * 0.5, **changed}


class Loose(dict):  # type: ignore[type-arg]
    """An object of a dict subclass."""


def _reordered(i: int) -> dict[str, Any]:
    one = item(i)
    return {"b": one["b"], "a": one["a"], "n": one["n"], "p": one["p"]}


# an element put after a run of ITEM's shape, and what it holds
AFTER: dict[str, Any] = {
    "the same shape": item(9),
    "NaN": item(9, p=float("nan")),
    "an infinity": item(9, p=float("inf")),
    "a key of a str subclass equal to a plain one": {Tag.A: "s1", "b": "x", "n": 1, "p": 1.5},
    "a key that is not a string": {**item(9), 7: "x"},
    "keys in another order": _reordered(9),
    "a key missing": {"a": "s9", "b": "x", "n": 9},
    "a key more": item(9, q=1),
    "a boolean for a number": item(9, n=True),
    "an int for a float": item(9, p=2),
    "a null": item(9, b=None),
    "a nested value": item(9, n=[1]),
    "an object of a dict subclass": Loose(item(9)),
    "a scalar element": "s9",
}


def handed(expected: list[Any], actual: list[Any]) -> object:
    """What checked_shapes hands over for two arrays (False where it refuses them)."""
    if not flat_similarity.checked_shapes(expected, actual, 2):
        return False
    try:
        return flat_similarity._handed
    finally:
        flat_similarity.forget_shapes()


@pytest.fixture(autouse=True)
def _written_at_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every shape's code written on its first sighting, from empty tables."""
    monkeypatch.setattr(shape_runs, "WRITE_AT", 1)
    monkeypatch.setattr(shape_runs, "_KEPT", {})
    monkeypatch.setattr(shape_runs, "last", None)


@pytest.mark.parametrize("at", [1, 3], ids=["second", "fourth"])
@pytest.mark.parametrize("what", list(AFTER))
def test_a_run_hands_over_what_the_general_loop_does(what: str, at: int) -> None:
    run = [item(i) for i in range(5)]
    run[at] = AFTER[what]
    arrays = [run, [item(2), item(0), *run]], [[item(1)], run]
    for expected, actual in arrays:
        with switched(shape_runs, "SHAPE_RUNS", False):
            general = handed(expected, actual)
        for _ in range(2):  # (the second time the last shape's run is tried first)
            assert handed(expected, actual) == general
    pair = {"items": run}, {"items": run[::-1]}  # (the result, or the door's error)
    with switched(shape_runs, "SHAPE_RUNS", False):
        general_outcome = outcome(*pair)
    assert outcome(*pair) == general_outcome


def test_the_runs_are_taken() -> None:
    """Not vacuous: a shape's run is written, stops at the first element not of its shape,
    and the last shape's run takes a side's first elements."""
    expected = [item(i) for i in range(4)]
    actual = [item(5), item(6), {"a": "x", "n": 1}, item(7)]
    assert handed(expected, actual)
    run = shape_runs._KEPT[tuple(ITEM), tuple(map(type, ITEM.values()))]
    assert callable(run)
    assert run(actual, 0) == 2 and run(actual, 1) == 2 and run(actual, 3) == 4
    assert run([item(1), item(2, p=float("nan"))], 0) == 1
    assert shape_runs.last is not None and shape_runs.last[0] is run
    calls: list[int] = []

    def counted(elements: Any, i: int) -> int:
        calls.append(i)
        return run(elements, i)

    shape_runs.last = (counted, *shape_runs.last[1:])
    shape_runs._KEPT[tuple(ITEM), tuple(map(type, ITEM.values()))] = counted
    assert handed(expected, actual) == handed(expected, actual)
    assert calls[:2] == [0, 0]  # (each side's first element tried by the last shape's run)


def test_a_shape_is_written_on_its_write_at_th_sighting(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(shape_runs, "WRITE_AT", 3)
    keys, types = tuple(ITEM), tuple(map(type, ITEM.values()))
    assert shape_runs.run_of(keys, types, 4, ["p"]) is None
    assert shape_runs.run_of(keys, types, 4, ["p"]) is None
    assert shape_runs.last is None
    made = shape_runs.run_of(keys, types, 4, ["p"])
    assert callable(made) and shape_runs.run_of(keys, types, 4, ["p"]) is made
    assert shape_runs.last == (made, (keys, types), 4, ("p",))
    assert shape_runs.run_of((), (), 0, []) is None  # (an empty object: no run)
    with switched(shape_runs, "SHAPE_RUNS", False):
        assert shape_runs.run_of(keys, types, 4, ["p"]) is None


def test_the_bound_on_keys_is_read_for_the_last_shape(monkeypatch: pytest.MonkeyPatch) -> None:
    """A run written under one bound on keys is not taken past a lower one."""
    expected = [item(i) for i in range(4)]
    assert handed(expected, expected)
    monkeypatch.setattr(flat_similarity.intake, "MAX_KEYS", 3)
    assert handed(expected, expected) is False


def test_the_source_is_printable() -> None:
    text = shape_runs.run_source(2, (1,))
    assert "def run(elements, i):" in text and "v1 - v1 != 0.0" in text
    assert "!= 0.0" not in shape_runs.run_source(2, ())


def test_a_shape_is_asked_for_where_a_side_repeats_it_with_elements_left() -> None:
    """A side too short for a run to take anything never counts a sighting (nor writes)."""
    assert handed([item(0), item(1)], [item(2)])
    assert shape_runs._KEPT == {} and shape_runs.last is None
    assert handed([item(0), item(1), item(2)], [item(3)])
    assert len(shape_runs._KEPT) == 1 and shape_runs.last is not None
