"""``structural_f1`` takes the unread walk as ``field_f1`` does (engine/entry.py: ``Entry.unread``,
``Entry.unread_pair``; switches ``READ_IN_WALK`` and ``READ_PAIR_IN_WALK``): without a
schema its ``prepare`` step hands both sides back as they are (``Metric.prepares``), and its
walk checks what it takes of an unread side (``unread_sides.walks_unread``: the inline loop
checks the objects' keys and scalars, every array is read whole before its elements are
paired by similarity).

What must hold: every pair and every run comes out as it does with both sides read by the
door first (both switches off), to the bit: the same result, or the same error, word for
word, whichever side holds the value the door copies or refuses.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings

from pytest_jsonmatch import evaluate_records, match_json
from pytest_jsonmatch.engine import entry
from pytest_jsonmatch.engine.core.errors import JsonMatchError
from tests.engine.test_gold_read_in_walk import door_reads
from tests.engine.test_pair_read_in_walk import ANSWERS, EXPECTED
from tests.helpers import fuzz_values as fv
from tests.helpers.run_records import DAMAGED, INVOICE
from tests.helpers.switches import switched

# structeval's options a pair may take: none, its configuration keys, ours
OPTIONS: list[dict[str, Any]] = [
    {},
    {"array_matching_threshold": 0.6},
    {"string_evaluation_type": {"evaluation_type": "binary"}},
    {
        "number_evaluation_type": {
            "evaluation_type": "threshold",
            "evaluation_params": {"threshold": 0.2},
        }
    },
    {"string_evaluator": "levenshtein", "beta": 2},
]

# objects whose arrays hold flat objects often enough for their pair scores' generated code
# (pairing/flat_similarity.py: written the 16th time a plan is met), plain on both sides
ITEMS = [{"sku": f"s{i}", "name": f"part {i} blue", "qty": i, "price": i * 1.5} for i in range(6)]
ARRAY_PAIR = (
    {"id": "A-1", "items": [ITEMS[4], ITEMS[0], {**ITEMS[2], "qty": 7}, ITEMS[1], {"x": None}]},
    {"id": "A-1", "items": ITEMS, "note": None},
)


@contextmanager
def read_by_the_door() -> Iterator[None]:
    """Both sides through the door first: both switches off, and the kept entries (whose
    routes were worked out with the switches on) made afresh, before and after."""
    entry._KEPT.clear()
    entry._RULED.clear()
    try:
        with switched(entry, "READ_IN_WALK", False), switched(entry, "READ_PAIR_IN_WALK", False):
            yield
    finally:
        entry._KEPT.clear()
        entry._RULED.clear()


def outcome(actual: Any, expected: Any, **options: Any) -> str:
    """Everything match_json says of the pair, as exact text, or its error."""
    try:
        return fv.exact_repr(match_json(actual, expected, "structural_f1", **options))
    except JsonMatchError as exc:
        return f"{type(exc).__name__}: {exc}"


def run_outcome(expected: list[Any], actual: list[Any], **options: Any) -> str:
    try:
        return fv.exact_repr(evaluate_records(expected, actual, "structural_f1", **options))
    except JsonMatchError as exc:
        return f"{type(exc).__name__}: {exc}"


@pytest.mark.parametrize("what", list(EXPECTED))
def test_a_pair_comes_out_as_with_both_sides_read_by_the_door(what: str) -> None:
    expected = EXPECTED[what]
    pairs = [(given or expected, expected) for given in ANSWERS.values()]
    in_walk = [outcome(a, e) for a, e in pairs]
    with read_by_the_door():
        door = [outcome(a, e) for a, e in pairs]
    for answer, one, other in zip(ANSWERS, in_walk, door):
        assert one == other, answer


def test_the_cases_reach_the_doors_errors_on_either_side() -> None:
    """Not vacuous: the door's errors, each named on its side, come out of the walk."""
    assert "total: nan in expected is not a JSON number" in outcome(
        DAMAGED, EXPECTED["NaN where a number is expected"]
    )
    assert "total: nan in actual is not a JSON number" in outcome(
        ANSWERS["NaN where a number is expected"], INVOICE
    )
    assert "key 7 in expected is not a string" in outcome(
        DAMAGED, EXPECTED["a key that is not a string at the top"]
    )


@pytest.mark.parametrize("options", range(len(OPTIONS)))
def test_pairs_with_arrays_score_as_with_both_sides_read_by_the_door(options: int) -> None:
    """Arrays of flat objects met often enough for their plan's generated pair scores, an
    answer with an array the door copies (a tuple) or refuses (an infinity in an element)."""
    answers = [
        ARRAY_PAIR[0],
        {**ARRAY_PAIR[0], "items": tuple(ARRAY_PAIR[0]["items"])},
        {**ARRAY_PAIR[0], "items": [{"sku": "s1", "qty": float("inf")}]},
        {**ARRAY_PAIR[0], "items": [[1, 2], {"sku": "s1"}, "s2"]},
    ]
    pairs = [(a, ARRAY_PAIR[1]) for a in answers for _ in range(20)]
    in_walk = [outcome(a, e, **OPTIONS[options]) for a, e in pairs]
    with read_by_the_door():
        door = [outcome(a, e, **OPTIONS[options]) for a, e in pairs]
    assert in_walk == door
    assert "items[0].qty: inf in actual is not a JSON number" in in_walk[40]
    assert "MatchResult" in in_walk[20]  # (the tuple, copied by the door, scored)


def test_a_plain_pair_never_meets_the_door(monkeypatch: pytest.MonkeyPatch) -> None:
    """On, the door reads neither side of a plain pair; off, it reads both; with a schema
    (whose fields ``prepare`` keeps), it reads both whatever the switches."""
    seen = door_reads(monkeypatch)
    in_walk = outcome(*ARRAY_PAIR)
    assert seen == []
    with read_by_the_door():
        door = outcome(*ARRAY_PAIR)
    assert seen == ["expected", "actual"]
    assert in_walk == door
    seen.clear()
    schema = {"type": "object", "properties": {"id": {"type": "string"}}}
    kept = outcome(*ARRAY_PAIR, schema=schema)
    assert seen == ["expected", "actual"]
    assert '"items"' not in kept and "'items" not in kept  # (dropped: not in the schema)


def test_records_score_as_with_their_answers_read_by_the_door(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """evaluate_records' answers walked unread (``Entry.scored``): the same run, and a plain
    answer never through the door; a hostile one is the door's error, named by its record."""
    expected = [INVOICE, ARRAY_PAIR[1]] * 3
    actual = [DAMAGED, ARRAY_PAIR[0], INVOICE, {**ARRAY_PAIR[0], "id": 3}, {}, INVOICE]
    seen = door_reads(monkeypatch)
    in_walk = run_outcome(expected, actual)
    assert [side for side in seen if side.startswith("actual")] == []
    with read_by_the_door():
        door = run_outcome(expected, actual)
    assert [side for side in seen if side.startswith("actual")] == [
        f"actual[{i}]" for i in range(6)
    ]
    assert in_walk == door
    actual[4] = ANSWERS["NaN where a number is expected"]
    in_walk = run_outcome(expected, actual)
    with read_by_the_door():
        door = run_outcome(expected, actual)
    assert in_walk == door
    assert "total: nan in actual[4] is not a JSON number" in in_walk


@settings(
    max_examples=60,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(pair=fv.PAIRS)
def test_drawn_pairs_score_as_with_both_sides_read_by_the_door(pair: tuple[Any, Any]) -> None:
    actual, expected = pair
    in_walk = outcome(actual, expected)
    with read_by_the_door():
        door = outcome(actual, expected)
    assert in_walk == door
