"""A record's root walked where no schema is given (engine/walking/plain_root.py, switch
``PLAIN_ROOT``): two objects handed straight to the inline loop, without ``Walk.run``,
``from_root``, ``obj`` and ``_keys`` each deciding again what the one before had.

What must hold: every pair and every run comes out as it does with the switch off, to the
bit, under every metric and with rules, whatever the root is (objects, an empty one, a
scalar, an array, text), and a root the door copies or refuses is still the door's error.
"""

from __future__ import annotations

import collections
import sys
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pytest_jsonmatch import evaluate_records
from pytest_jsonmatch.engine.reading import intake
from pytest_jsonmatch.engine.walking import plain_root
from pytest_jsonmatch.engine.walking.walk import Walk
from tests.helpers import fuzz_values as fv
from tests.helpers.run_records import DAMAGED, INVOICE, Count
from tests.helpers.sweeps import sweep
from tests.helpers.switches import on_and_off, said, switched

SETTINGS = sweep(60)

METRICS = [
    "field_f1",
    "json_similarity",
    "structural_f1",
    "field_match",
    "field_match_normalized",
]
OPTIONS: list[dict[str, Any]] = [
    {},
    {"align": "hungarian"},
    {"ignore": ["id"]},
    {"fields": {"total": {"tolerance": 1}}},
    {"ignore": ["items[*].sku"]},
]
# roots of every kind, and the answers beside them
ROOTS: dict[str, Any] = {
    "an invoice": INVOICE,
    "an empty object": {},
    "a scalar": 3,
    "an array": [INVOICE, 1],
    "text": '{"id": "A-1", "total": 10.5}',
    "NaN at the root": {**INVOICE, "total": float("nan")},
    "a key that is not a string": {**INVOICE, 7: "x"},
    "an int enum at the root": {**INVOICE, "total": Count.ONE},
    "a mapping that is not a dict": collections.OrderedDict(INVOICE),
}
ANSWERS: list[Any] = [
    DAMAGED,
    INVOICE,
    {},
    {"other": 1},
    3,
    [INVOICE],
    '{"id": "A-2"}',
    {**DAMAGED, "note": float("nan")},  # (a key expected lacks: json_similarity counts none)
]


def both_ways(actual: Any, expected: Any, metric: str, **options: Any) -> tuple[str, str]:
    return on_and_off(plain_root, "PLAIN_ROOT", actual, expected, metric, **options)


@pytest.mark.parametrize("metric", METRICS)
@pytest.mark.parametrize("what", list(ROOTS))
def test_every_root_comes_out_as_run_makes_it(what: str, metric: str) -> None:
    expected = ROOTS[what]
    for options in OPTIONS:
        for answer in ANSWERS:
            on, off = both_ways(answer, expected, metric, **options)
            assert on == off, (answer, options)


def test_the_cases_reach_the_doors_errors() -> None:
    """Not vacuous: the root's NaN and its key that is not a string are the door's words,
    and so is an answer's NaN under a key json_similarity does not count."""
    text = said(DAMAGED, ROOTS["NaN at the root"], "json_similarity")
    assert "total: nan in expected is not a JSON number" in text
    text = said(DAMAGED, ROOTS["a key that is not a string"], "json_similarity")
    assert "key 7 in expected is not a string" in text
    text = said(ANSWERS[-1], INVOICE, "json_similarity")
    assert "note: nan in actual is not a JSON number" in text


def test_a_root_of_too_many_keys_is_the_doors_error(monkeypatch: pytest.MonkeyPatch) -> None:
    # (lowered where every route reads it: the door, and each walk module that checks it)
    for module in list(sys.modules.values()):
        if getattr(module, "__name__", "").startswith("pytest_jsonmatch.") and hasattr(
            module, "MAX_KEYS"
        ):
            monkeypatch.setattr(module, "MAX_KEYS", 3)
    assert intake.MAX_KEYS == plain_root.MAX_KEYS == 3
    wide = {"a": 1, "b": 2, "c": 3, "d": 4}
    for metric in METRICS:
        on, off = both_ways({"a": 1}, wide, metric)
        assert "more than the 3 one object may hold" in on
        assert on == off


def test_the_root_takes_no_call_of_runs_on(monkeypatch: pytest.MonkeyPatch) -> None:
    """Not vacuous: on, a plain pair's root never reaches ``Walk.from_root``; off, it
    does; an empty expected object goes run's way either way."""
    roots: list[object] = []
    real = Walk.from_root

    def counted(self: Walk, expected: Any, *rest: Any) -> None:
        roots.append(expected)
        real(self, expected, *rest)

    monkeypatch.setattr(Walk, "from_root", counted)
    on = said(DAMAGED, INVOICE, "json_similarity")
    assert roots == []
    on_empty = said(DAMAGED, {}, "json_similarity")
    assert roots == [{}]
    roots.clear()
    with switched(plain_root, "PLAIN_ROOT", False):
        assert said(DAMAGED, INVOICE, "json_similarity") == on
        assert said(DAMAGED, {}, "json_similarity") == on_empty
    assert roots == [INVOICE, {}]


def test_records_score_the_same_with_the_root_walked_by_run() -> None:
    expected = [INVOICE, {"id": "B", "tags": ["x", 1]}, INVOICE]
    actual = [DAMAGED, {"id": "B", "tags": ["y"]}, {}]
    for metric in METRICS:
        on = fv.exact_repr(evaluate_records(expected, actual, metric).records)
        with switched(plain_root, "PLAIN_ROOT", False):
            off = fv.exact_repr(evaluate_records(expected, actual, metric).records)
        assert on == off, metric


@SETTINGS
@given(pair=fv.PAIRS, metric=st.sampled_from(METRICS), options=st.sampled_from(OPTIONS))
def test_drawn_pairs_score_the_same_with_the_root_walked_by_run(
    pair: tuple[Any, Any], metric: str, options: dict[str, Any]
) -> None:
    actual, expected = pair
    on, off = both_ways(actual, expected, metric, **options)
    assert on == off
