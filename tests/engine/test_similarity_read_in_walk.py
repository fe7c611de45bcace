"""``json_similarity`` takes the unread walk (engine/entry.py: ``Entry.unread``,
``Entry.unread_pair``; switches ``READ_IN_WALK`` and ``READ_PAIR_IN_WALK``): its ``target``
hands both sides back whole without a ``target_output_key`` (``Metric.targets``), its
arrays pair by index (``unread_sides.walks_unread``), and the keys and elements of the
answer that it does not count are checked all the same (``inline_leaves.extras_checked``,
``UnreadSides.unread_array``), for the door reads the whole answer. Its arrays are walked
by ``inline_leaves.index_array`` (switch ``INDEX_ARRAYS``) and their scalar elements scored
in ``plain_pairs``' own loop (switch ``SCALAR_ELEMENTS``, structural_f1's too).

What must hold: every pair and every run comes out as it does with both sides read by the
door first (the entry's switches off), and as the general walk makes it (the walk's
switches off), to the bit: the same result, or the same error, word for word.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pytest_jsonmatch import evaluate_records, match_json
from pytest_jsonmatch.engine import entry
from pytest_jsonmatch.engine.core.errors import JsonMatchError
from pytest_jsonmatch.engine.walking import inline_leaves
from pytest_jsonmatch.engine.walking.leaf_scoring import LeafScoring
from pytest_jsonmatch.engine.walking.unread_sides import UnreadSides
from tests.engine.test_gold_read_in_walk import door_reads
from tests.engine.test_pair_read_in_walk import ANSWERS, EXPECTED
from tests.helpers import fuzz_values as fv
from tests.helpers.run_records import DAMAGED, INVOICE
from tests.helpers.sweeps import sweep
from tests.helpers.switches import switched

SETTINGS = sweep(60)

# an answer with what json_similarity does not count (a key expected lacks, elements past
# the expected array's end), plain or not as the door reads it
EXTRAS = {
    "plain extras": {**INVOICE, "note": [1, {"a": None}], "items": [*INVOICE["items"], 3]},
    "NaN in an extra key": {**INVOICE, "note": float("nan")},
    "NaN deep in an extra key": {**INVOICE, "note": {"a": [1, float("-inf")]}},
    "a tuple in an extra key": {**INVOICE, "note": (1, 2)},
    "a key that is not a string": {**INVOICE, 5: "x"},
    "an extra key below": {**INVOICE, "vendor": {"name": "ACME", "x": float("nan")}},
    "NaN in an extra element": {**INVOICE, "items": [*INVOICE["items"], float("nan")]},
    "a set in an extra element": {**INVOICE, "items": [*INVOICE["items"], {1}]},
    "an extra key in an element": {
        **INVOICE,
        "items": [{"sku": "a", "qty": 1, "x": float("inf")}, INVOICE["items"][1]],
    },
    "scalars for objects": {**INVOICE, "items": ["a", 2.5]},
}
# expected sides with arrays of scalars, of objects and of both, nested and empty
ARRAYS = {
    "scalars": {"id": "A-1", "tags": ["x", "y", 3, 2.5, None, True]},
    "objects and arrays": {"rows": [{"a": 1}, [1, "b"], "c", {"a": {"b": [2]}}]},
    "empty": {"tags": [], "rows": [{}], "deep": [[], [[]]]},
}


@contextmanager
def read_by_the_door() -> Iterator[None]:
    """Both sides through the door first: both switches off, and the kept entries (whose
    routes were worked out with the switches on) made afresh, before and after."""
    clear = [entry._KEPT.clear, entry._RULED.clear, entry._PLAIN.clear]
    for each in clear:
        each()
    try:
        with switched(entry, "READ_IN_WALK", False), switched(entry, "READ_PAIR_IN_WALK", False):
            yield
    finally:
        for each in clear:
            each()


@contextmanager
def the_general_walk() -> Iterator[None]:
    """The arrays' and their scalar elements' fast paths off."""
    with ExitStack() as stack:
        stack.enter_context(switched(inline_leaves, "INDEX_ARRAYS", False))
        stack.enter_context(switched(inline_leaves, "SCALAR_ELEMENTS", False))
        yield


def outcome(actual: Any, expected: Any, metric: str = "json_similarity", **options: Any) -> str:
    """Everything match_json says of the pair, as exact text, or its error."""
    try:
        return fv.exact_repr(match_json(actual, expected, metric, **options))
    except JsonMatchError as exc:
        return f"{type(exc).__name__}: {exc}"


def run_outcome(expected: list[Any], actual: list[Any], **options: Any) -> str:
    try:
        return fv.exact_repr(evaluate_records(expected, actual, "json_similarity", **options))
    except JsonMatchError as exc:
        return f"{type(exc).__name__}: {exc}"


@pytest.mark.parametrize("what", list(EXPECTED))
def test_a_pair_comes_out_as_with_both_sides_read_by_the_door(what: str) -> None:
    expected = EXPECTED[what]
    answers = {**ANSWERS, **EXTRAS}
    pairs = [(given or expected, expected) for given in answers.values()]
    in_walk = [outcome(a, e) for a, e in pairs]
    with read_by_the_door():
        door = [outcome(a, e) for a, e in pairs]
    for answer, one, other in zip(answers, in_walk, door):
        assert one == other, answer


def test_what_is_not_counted_is_still_the_doors_to_refuse() -> None:
    """Not vacuous: the answer's extra key and extra element are never scored, and their
    values are the door's errors all the same; a plain one changes nothing."""
    assert "note: nan in actual is not a JSON number" in outcome(
        EXTRAS["NaN in an extra key"], INVOICE
    )
    assert "items[2]: nan in actual is not a JSON number" in outcome(
        EXTRAS["NaN in an extra element"], INVOICE
    )
    assert "key 5 in actual is not a string" in outcome(
        EXTRAS["a key that is not a string"], INVOICE
    )
    assert outcome(EXTRAS["plain extras"], INVOICE) == outcome(INVOICE, INVOICE)
    assert outcome(EXTRAS["a tuple in an extra key"], INVOICE) == outcome(INVOICE, INVOICE)


@pytest.mark.parametrize("what", list(ARRAYS))
def test_arrays_score_as_the_general_walk_makes_them(what: str) -> None:
    expected = ARRAYS[what]
    answers = [expected, {}, *({k: v[::-1] for k, v in expected.items()},)]
    answers += [{k: [*v, 1.5, [float("nan")]] for k, v in expected.items()}]
    answers += [{k: [str(x) for x in v] for k, v in expected.items()}]
    for metric in ("json_similarity", "structural_f1"):
        for answer in answers:
            fast = outcome(answer, expected, metric), outcome(expected, answer, metric)
            with the_general_walk():
                general = outcome(answer, expected, metric), outcome(expected, answer, metric)
            assert fast == general, (metric, answer)


def test_a_plain_pair_never_meets_the_door(monkeypatch: pytest.MonkeyPatch) -> None:
    """On, the door reads neither side of a plain pair; off, it reads both; with a target
    other than "*" (a part of each side taken), it reads both whatever the switches."""
    seen = door_reads(monkeypatch)
    in_walk = outcome(DAMAGED, INVOICE)
    star = outcome(DAMAGED, INVOICE, target_output_key="*")
    assert seen == []
    with read_by_the_door():
        door = outcome(DAMAGED, INVOICE)
    assert seen == ["expected", "actual"]
    assert in_walk == door == star
    seen.clear()
    part = outcome(DAMAGED, INVOICE, target_output_key="vendor")
    assert seen == ["expected", "actual"]
    assert "'vendor.name'" not in part and "'name'" in part  # (the part alone, at its root)


def test_scalar_elements_are_scored_in_the_loop(monkeypatch: pytest.MonkeyPatch) -> None:
    """Not vacuous: with the switches on, no scalar element reaches Walk.leaf and no array
    Walk.key_array; off, every one does, and the results are the same."""
    leaves: list[str] = []
    arrays: list[str] = []
    leaf, key_array = LeafScoring.leaf, UnreadSides.key_array

    def counted_leaf(self: Any, *args: Any) -> None:
        leaves.append(args[2].path)
        leaf(self, *args)

    def counted_array(self: Any, key: str, *args: Any) -> None:
        arrays.append(key)
        key_array(self, key, *args)

    monkeypatch.setattr(LeafScoring, "leaf", counted_leaf)
    monkeypatch.setattr(UnreadSides, "key_array", counted_array)
    expected = ARRAYS["scalars"]
    answer = {"id": "A-2", "tags": ["x", "z", 3.0, 2.5]}
    on = outcome(answer, expected)
    assert (leaves, arrays) == ([], [])
    with the_general_walk():
        off = outcome(answer, expected)
    assert arrays == ["tags"]
    assert leaves == [f"tags[{i}]" for i in range(4)]
    assert on == off


def test_records_score_as_with_their_answers_read_by_the_door(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """evaluate_records' answers walked unread (``Entry.scored``): the same run, and a plain
    answer never through the door; a hostile one is the door's error, named by its record."""
    expected = [INVOICE, ARRAYS["scalars"]] * 3
    actual = [DAMAGED, ARRAYS["scalars"], INVOICE, EXTRAS["plain extras"], {}, INVOICE]
    seen = door_reads(monkeypatch)
    in_walk = run_outcome(expected, actual)
    assert [side for side in seen if side.startswith("actual")] == []
    with read_by_the_door():
        door = run_outcome(expected, actual)
    assert in_walk == door
    actual[4] = EXTRAS["NaN in an extra key"]
    in_walk = run_outcome(expected, actual)
    with read_by_the_door():
        door = run_outcome(expected, actual)
    assert in_walk == door
    assert "note: nan in actual[4] is not a JSON number" in in_walk


@SETTINGS
@given(pair=fv.PAIRS, metric=st.sampled_from(["json_similarity", "structural_f1"]))
def test_drawn_pairs_score_as_the_door_and_the_general_walk_make_them(
    pair: tuple[Any, Any], metric: str
) -> None:
    actual, expected = pair
    fast = outcome(actual, expected, metric)
    with the_general_walk():
        general = outcome(actual, expected, metric)
    assert fast == general
    if metric == "json_similarity":
        with read_by_the_door():
            door = outcome(actual, expected, metric)
        assert fast == door
