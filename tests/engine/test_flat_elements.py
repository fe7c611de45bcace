"""structural_f1's chosen pairs of flat objects, each pair's fields made by code written per
expected element shape (engine/walking/flat_elements.py): the same MatchResult as the inline
loop's walk of each pair (switch ``FLAT_ELEMENTS`` off), to the bit, with keys the answer
lacks, keys it adds, values of another type, nulls and signed zeros, under structeval's
options; and the path is taken where it should be."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pytest_jsonmatch import match_json
from pytest_jsonmatch.engine.pairing import flat_similarity
from pytest_jsonmatch.engine.walking import flat_elements
from tests.helpers import fuzz_values as fv
from tests.helpers.sweeps import sweep
from tests.helpers.switches import switched

SETTINGS = sweep(120)


@pytest.fixture(autouse=True)
def written_at_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every shape's code written the first time it is met, and arrays of any number of
    pairs checked for their shapes (not only 9 or more), so that each drawn array whose
    expected elements share one shape takes the written code."""
    monkeypatch.setattr(flat_elements, "WRITE_AT", 1)
    monkeypatch.setattr(flat_similarity, "WRITE_AT", 1)
    monkeypatch.setattr(flat_similarity, "MIN_PAIRS", 1)


TEXTS = st.sampled_from(["acme", "ACME", "acme widget", "widget acme", "", "blue", "b1"])
NUMBERS = st.sampled_from([1, 1.0, 1.0005, 1.002, 2, -3, 0, 0.0, -0.0, 2**60])
VALUES = st.one_of(TEXTS, NUMBERS, st.booleans(), st.none())
KEYS = ("sku", "name", "qty", "price", "ok", "note")


@st.composite
def arrays(draw: Any) -> tuple[list[Any], list[Any]]:
    """An expected array of one element shape (its keys in order, each key's type the same
    throughout) and an answer drawn from copies of it: values changed (to another value of
    the type, or of another type), keys dropped, keys added."""
    keys = draw(st.lists(st.sampled_from(KEYS), min_size=1, max_size=5, unique=True))
    kinds = {key: draw(st.sampled_from(["text", "int", "float", "bool", "null"])) for key in keys}
    by_kind = {
        "text": TEXTS,
        "int": st.sampled_from([1, 2, -3, 0, 2**60]),
        "float": st.sampled_from([1.0, 1.0005, 1.002, 0.0, -0.0]),
        "bool": st.booleans(),
        "null": st.none(),
    }
    size = draw(st.integers(1, 5))
    expected = [{key: draw(by_kind[kinds[key]]) for key in keys} for _ in range(size)]
    actual = []
    for _ in range(draw(st.integers(0, 6))):
        element = dict(draw(st.sampled_from(expected)))
        for key in list(element):
            change = draw(st.sampled_from(["keep", "keep", "same kind", "any", "drop"]))
            if change == "same kind":
                element[key] = draw(by_kind[kinds[key]])
            elif change == "any":
                element[key] = draw(VALUES)
            elif change == "drop":
                del element[key]
        if draw(st.booleans()):
            element[draw(st.sampled_from(["extra", "sku", "more"]))] = draw(VALUES)
        actual.append(element)
    return expected, actual


OPTIONS = st.sampled_from(
    [
        {},
        {"array_matching_threshold": 0.0},
        {"string_evaluation_type": {"evaluation_type": "binary"}},
        {
            "integer_evaluation_type": {"evaluation_type": "binary"},
            "float_evaluation_type": {
                "evaluation_type": "threshold",
                "evaluation_params": {"threshold": 0.5, "difference_penalty_weighting": 2},
            },
        },
        {"numeric_threshold": 1.5, "numeric_weighting": 0},
        {"string_evaluator": "levenshtein"},
    ]
)


def both_ways(expected: list[Any], actual: list[Any], options: dict[str, Any]) -> tuple[str, str]:
    """match_json's result as exact text, with the written code and without it."""
    gold, answer = {"id": "r", "items": expected}, {"id": "r", "items": actual}
    fast = match_json(answer, gold, metric="structural_f1", **options)
    with switched(flat_elements, "FLAT_ELEMENTS", False):
        general = match_json(answer, gold, metric="structural_f1", **options)
    return fv.exact_repr(_parts(fast)), fv.exact_repr(_parts(general))


def _parts(result: Any) -> tuple[Any, ...]:
    return (result.score, result.precision, result.recall, result.fields, result.pairings)


@SETTINGS
@given(drawn=arrays(), options=OPTIONS)
def test_match_json_says_the_same_with_the_switch_on_or_off(
    drawn: tuple[list[Any], list[Any]], options: dict[str, Any]
) -> None:
    fast, general = both_ways(*drawn, options)
    assert fast == general


def test_drawn_arrays_take_the_written_code(monkeypatch: pytest.MonkeyPatch) -> None:
    """Not vacuous: arrays as drawn above (every expected element of one shape) are walked
    by the written code: pair_fields hands out a function for them."""
    calls = []
    made = flat_elements.pair_fields

    def counted(*args: Any) -> Any:
        found = made(*args)
        calls.append(found is not None)
        return found

    monkeypatch.setattr(flat_elements, "pair_fields", counted)
    expected = [{"sku": "a b", "qty": 1}, {"sku": "c", "qty": 2}]
    actual = [{"sku": "c", "qty": 2.0}, {"sku": "a", "more": None}]
    match_json({"items": actual}, {"items": expected}, metric="structural_f1")
    assert calls == [True]


def test_a_hand_worked_pair_of_arrays() -> None:
    """Two expected elements of one shape; the answer has them in the other order, the first
    with a text of one shared token in two, the second lacking ``qty`` and adding ``note``.
    structeval's Jaccard: 'acme widget' against 'acme' shares 1 token of 2 = 0.5; the other
    fields are equal (1.0); the missing qty an omission (0.0), the added note a
    hallucination (0.0)."""
    gold = {"items": [{"sku": "acme widget", "qty": 1}, {"sku": "blue", "qty": 2}]}
    answer = {"items": [{"sku": "blue", "note": "x"}, {"sku": "acme", "qty": 1}]}
    for _ in range(2):  # (the second time, the shape's code is written: WRITE_AT is 1)
        result = match_json(answer, gold, metric="structural_f1")
    by_path = {f.path: (f.status, f.score, f.actual_path) for f in result.fields}
    assert by_path == {
        "items[0].sku": ("mismatch", 0.5, "items[1].sku"),
        "items[0].qty": ("match", 1.0, "items[1].qty"),
        "items[1].sku": ("match", 1.0, "items[0].sku"),
        "items[1].qty": ("omission", 0.0, None),
        "items[0].note": ("hallucination", 0.0, None),  # (its path is the answer's)
    }
    # precision: (0.5 + 1 + 1) / 4 predicted fields = 0.625; recall: 2.5 / 4 expected = 0.625
    assert result.precision == 0.625
    assert result.recall == 0.625


def test_a_value_of_another_type_takes_the_inline_loop_on_its_key_alone() -> None:
    """qty written for ints meets a float and a text: each is that key's field as the
    inline loop makes it (structeval's threshold on 2 against 2.0; an int against a
    text: its comparator's score, 0), the other keys by the written code."""
    gold = {"items": [{"sku": "a", "qty": 2}, {"sku": "b", "qty": 3}]}
    answer = {"items": [{"sku": "a", "qty": 2.0}, {"sku": "b", "qty": "3"}]}
    fast, general = both_ways(gold["items"], answer["items"], {})
    assert fast == general
    result = match_json(answer, gold, metric="structural_f1")
    scores = {f.path: f.score for f in result.fields}
    assert scores == {
        "items[0].sku": 1.0,
        "items[0].qty": 1.0,
        "items[1].sku": 1.0,
        "items[1].qty": 0.0,
    }


def test_the_written_code_holds_no_value_of_the_data() -> None:
    """The text is made from the structure alone: the keys are its constants."""
    text = flat_elements.pair_source(((True, True, True), (False, True, False)))
    compile(text, "<test>", "exec")
    assert "def pair(" in text
    assert "sku" not in text
    assert text.count("general(") == 2  # (each key: a value of another type)


def test_a_shapes_code_is_written_the_write_at_th_time_it_is_met(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(flat_elements, "WRITE_AT", 3)
    flat_elements._KEPT.clear()
    gold = {"items": [{"kw_a": "x", "kw_b": 1}, {"kw_a": "y", "kw_b": 2}]}
    answer = {"items": [{"kw_a": "y", "kw_b": 2}, {"kw_a": "x", "kw_b": 1}]}
    shape = (("kw_a", "kw_b"), (str, int))
    seen = []
    for _ in range(3):
        match_json(answer, gold, metric="structural_f1")
        seen.append(flat_elements._KEPT[shape][2])
    assert seen[:2] == [1, 2]
    assert callable(seen[2])


def test_expected_elements_of_several_shapes_take_the_inline_loop() -> None:
    """Only one shape is written per array: two shapes on the expected side (here a null
    where the other has a text) leave every pair to the inline loop."""
    flat_elements._KEPT.clear()
    gold = {"items": [{"kw_c": "x"}, {"kw_c": None}]}
    answer = {"items": [{"kw_c": "x"}, {"kw_c": "z"}]}
    fast, general = both_ways(gold["items"], answer["items"], {})
    assert fast == general
    assert not any(key[0] == ("kw_c",) for key in flat_elements._KEPT)


def test_field_paths_are_made_once_per_shape_and_array() -> None:
    """The field paths of a shape's keys below an array are those each key's forms give
    (a key that is not a name quoted), made once and then handed back as they are."""
    keys = ("kw_a", "kw b", "kw_c")
    first = flat_elements.field_paths(keys, "items[]")
    assert first == ("items[].kw_a", 'items[]["kw b"]', "items[].kw_c")
    assert flat_elements.field_paths(keys, "items[]") is first
    assert flat_elements.field_paths(keys, "rows[]")[0] == "rows[].kw_a"
