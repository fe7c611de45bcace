"""structural_f1's pair scores of flat object elements, a whole pair at a time in generated code
(engine/pairing/flat_similarity.py): the same rows and scale as the column scores of
pair_scores.py to the bit, and the same comparisons through match_json, with ties, values at
the threshold's edge, absent and null fields, keys on one side only; anything the
generated code does not read takes the general path."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pytest_jsonmatch import match_json
from pytest_jsonmatch.engine.comparing.registry import REGISTRY
from pytest_jsonmatch.engine.metrics.base import configure
from pytest_jsonmatch.engine.metrics.structural_f1 import STRUCTURAL_F1
from pytest_jsonmatch.engine.pairing import flat_similarity, pair_scores, plan_rows
from tests.helpers import fuzz_values as fv
from tests.helpers.sweeps import sweep

SETTINGS = sweep(150)


@pytest.fixture(autouse=True)
def written_at_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every plan's code written the first time it is met (not its 16th), and arrays of any
    number of pairs taken (not 9 or more), so that each drawn array takes the generated
    code."""
    monkeypatch.setattr(flat_similarity, "WRITE_AT", 1)
    monkeypatch.setattr(flat_similarity, "MIN_PAIRS", 1)


@contextlib.contextmanager
def general_path() -> Iterator[None]:
    flat_similarity.SPECIALISE = False
    try:
        yield
    finally:
        flat_similarity.SPECIALISE = True


def never_walked(i: int, j: int) -> float:
    raise AssertionError("columns serve these elements: no pair is walked")


def both_ways(expected: list[Any], actual: list[Any], options: dict[str, Any]) -> tuple[Any, Any]:
    """(the generated code's rows and scale or None, the general path's)."""
    cfg = configure(STRUCTURAL_F1, options)
    fast = flat_similarity.similarity_rows(cfg, None, expected, actual)
    with general_path():
        general = pair_scores.pair_scores(
            cfg, "items", None, expected, actual, "similarity", never_walked
        )
    return fast, general


# Values chosen to meet every case: texts sharing tokens, differing in case, without tokens,
# of one token; numbers equal, within the threshold (0.001), at its edge, beyond it, ints and
# floats alike; booleans; null (absent).
TEXTS = st.sampled_from(
    ["acme", "ACME", "acme widget", "widget acme", "blue  steel", "", " ", "blue", "b1", "ä ß"]
)
NUMBERS = st.sampled_from([1, 1.0, 1.0005, 1.001, 1.002, 2, -3, 0, 0.0, 2**60, 1e-300])
VALUES = st.one_of(TEXTS, NUMBERS, st.booleans(), st.none())
KEYS = st.sampled_from(["sku", "name", "qty", "price", "ok", "note"])
ELEMENTS = st.dictionaries(KEYS, VALUES, max_size=5)
# a key's type the same in every element, most of the time: the generated code's case
TYPED = st.fixed_dictionaries(
    {"sku": TEXTS, "qty": NUMBERS},
    optional={"name": TEXTS, "price": NUMBERS, "ok": st.booleans(), "note": st.none()},
)
ARRAYS = st.one_of(
    st.lists(TYPED, min_size=1, max_size=6),
    st.lists(st.one_of(TYPED, ELEMENTS), min_size=1, max_size=6),
    st.lists(st.one_of(TEXTS, st.none()), min_size=1, max_size=6),
    st.lists(st.one_of(NUMBERS, st.none()), min_size=1, max_size=6),
    st.lists(st.one_of(VALUES, TYPED), min_size=1, max_size=6),
)
OPTIONS = st.sampled_from(
    [
        {},
        {"numeric_threshold": 1.5},
        {"numeric_threshold": 1.5, "numeric_weighting": 0},
        {"string_evaluator": "binary"},
        {"string_evaluator": "exact", "numeric_threshold": 0.01},
        {"number_evaluation_type": {"evaluation_type": "binary"}},
        {"array_matching_threshold": 0.0},
        {"string_evaluator": "levenshtein"},  # no all-pairs form: called per pair
        # structeval's configuration keys: booleans and numbers scored by their kind, a
        # comparator without an all-pairs form, called per pair
        {"string_evaluation_type": {"evaluation_type": "binary"}},
        {
            "number_evaluation_type": {
                "evaluation_type": "threshold",
                "evaluation_params": {"threshold": 1.5},
            }
        },
        {
            "integer_evaluation_type": {"evaluation_type": "binary"},
            "float_evaluation_type": {
                "evaluation_type": "threshold",
                "evaluation_params": {"threshold": 0.5, "difference_penalty_weighting": 2},
            },
        },
    ]
)


@SETTINGS
@given(expected=ARRAYS, actual=ARRAYS, options=OPTIONS)
def test_the_generated_rows_are_the_column_scores_to_the_bit(
    expected: list[Any], actual: list[Any], options: dict[str, Any]
) -> None:
    fast, general = both_ways(expected, actual, options)
    if fast is not None:
        rows, scale = fast
        assert scale == general[1]
        assert [[s.hex() for s in row] for row in rows] == [
            [float(s).hex() for s in row] for row in general[0]
        ]


@SETTINGS
@given(expected=ARRAYS, actual=ARRAYS, options=OPTIONS)
def test_match_json_says_the_same_with_the_switch_on_or_off(
    expected: list[Any], actual: list[Any], options: dict[str, Any]
) -> None:
    def said() -> str:
        found = match_json({"items": actual}, {"items": expected}, "structural_f1", **options)
        return fv.exact_repr(found)

    with general_path():
        general = said()
    assert said() == general


def test_most_drawn_arrays_take_the_generated_code() -> None:
    """Not vacuous: the typed elements above are what the generated code reads."""
    cfg = configure(STRUCTURAL_F1, {})
    typed = [{"sku": "a b", "qty": 1, "price": 2.5, "ok": True}, {"sku": "c", "qty": 2}]
    assert flat_similarity.similarity_rows(cfg, None, typed, typed[::-1]) is not None


def test_a_hand_worked_array() -> None:
    cfg = configure(STRUCTURAL_F1, {"numeric_threshold": 0.5})  # (weighting 0.1: power 10)
    expected = [{"name": "acme widget", "qty": 2}, {"name": "blue", "qty": 5, "ok": True}]
    actual = [{"name": "Widget", "qty": 2.25}, {"name": "blue", "qty": 5, "extra": "x"}]
    rows, scale = flat_similarity.similarity_rows(cfg, None, expected, actual)
    # name and qty every element has: 2 shared fields; ok and extra on one side only, so the
    # sizes differ (2, 3 expected; 2, 3 actual) and each sum is divided by its union,
    # size_e + size_a - 2.
    # (0, 0): Jaccard {acme, widget} / {widget} = 1/2; |2 - 2.25| = 0.25 <= 0.5, so
    #   1 - (0.25 / 0.5) ** 10 = 1 - 1/1024 = 1023/1024; union 2 + 2 - 2 = 2
    # (0, 1): names share nothing, 2 vs 5 beyond the threshold: 0; union 2 + 3 - 2 = 3
    # (1, 0): nothing shared: 0 / (3 + 2 - 2)
    # (1, 1): blue = blue, 5 = 5: 2 / (3 + 3 - 2) = 1/2
    assert scale == 1.0
    assert rows == [[(0.5 + 1023 / 1024) / 2, 0.0], [0.0, 0.5]]


def test_scalar_elements_are_each_one_field() -> None:
    cfg = configure(STRUCTURAL_F1, {})
    rows, scale = flat_similarity.similarity_rows(cfg, None, ["a b", None], ["B", "a b c"])
    # each element one field, a null none: (0, 0) {a, b} / {b} = 1/2 over the union 1 + 1 - 1;
    # (0, 1) {a, b} / {a, b, c} = 2/3; the null shares nothing, its union the other's 1 field
    assert scale == 1.0
    assert rows == [[0.5, 2 / 3], [0.0, 0.0]]


def test_elements_of_one_shape_give_sums_and_their_scale() -> None:
    cfg = configure(STRUCTURAL_F1, {})
    expected = [{"sku": "A1", "qty": 3}, {"sku": "B2", "qty": 4}]
    actual = [{"sku": "b2", "qty": 4}, {"sku": "A1", "qty": 9}]
    rows, scale = flat_similarity.similarity_rows(cfg, None, expected, actual)
    # every element has sku and qty: the sums, with scale 2. One-token Jaccard is equality
    # of the lower-cased text (b2 = B2); 3 vs 9 and 4 vs 3 are beyond the threshold
    assert scale == 2.0
    assert rows == [[0.0, 1.0], [2.0, 0.0]]


@pytest.mark.parametrize(
    ("expected", "actual", "options"),
    [
        ([{"a": {"b": 1}}], [{"a": {"b": 1}}], {}),  # a nested object
        ([{"a": [1]}], [{"a": [1]}], {}),  # a nested array
        ([{"a": "x"}, {"a": 1}], [{"a": "x"}], {}),  # a key of two types
        ([{"a": "x"}], [{"a": 1}], {}),  # a key of one type a side, not the same
        (["x", {"a": "x"}], ["x"], {}),  # scalars and an object
        ([{"a": "x"}], ["x"], {}),  # an object against a scalar
        (["x", ["x"]], ["x"], {}),  # a nested array among scalars
        ([{"a": 10**400}], [{"a": 10**400}], {}),  # a number no float holds
        ([{"a": "x"}], [{"a": "x"}], {"ignore": ["items[].a"]}),  # a rule
    ],
)
def test_what_the_generated_code_does_not_read_takes_the_general_path(
    expected: list[Any], actual: list[Any], options: dict[str, Any]
) -> None:
    cfg = configure(STRUCTURAL_F1, options)
    assert flat_similarity.similarity_rows(cfg, None, expected, actual) is None
    found = match_json({"items": actual}, {"items": expected}, "structural_f1", **options)
    with general_path():
        general = match_json({"items": actual}, {"items": expected}, "structural_f1", **options)
    assert fv.exact_repr(found) == fv.exact_repr(general)


def test_a_comparator_of_the_users_takes_the_general_path() -> None:
    name = "test_flat_similarity_half"
    REGISTRY.register_comparator(name, lambda e, a, params: 0.5)  # not trusted
    try:
        cfg = configure(STRUCTURAL_F1, {"string_evaluator": name})
        elements = [{"a": "x", "n": 1}, {"a": "y", "n": 2}]
        assert flat_similarity.similarity_rows(cfg, None, elements, elements[::-1]) is None
        found = match_json(
            {"items": elements[::-1]}, {"items": elements}, "structural_f1", string_evaluator=name
        )
    finally:
        REGISTRY.unregister(name)
    # each pair's a scores 1/2 (the comparator), n 1 where equal: the crossed pairs
    # (1/2 + 1) / 2 = 3/4 beat the straight ones' (1/2 + 0) / 2 = 1/4 on both lines
    assert [(p.expected_index, p.actual_index, p.score) for p in found.pairings] == [
        (0, 1, 0.75),
        (1, 0, 0.75),
    ]


def test_a_plans_code_is_written_the_write_at_th_time_it_is_met(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(flat_similarity, "WRITE_AT", 3)
    monkeypatch.setattr(plan_rows, "INTERPRET", False)  # (else the loop reads it until then)
    monkeypatch.setattr(flat_similarity, "_FUNCTIONS", {})
    monkeypatch.setattr(flat_similarity, "_SIGHTINGS", {})
    cfg = configure(STRUCTURAL_F1, {})
    expected, actual = [{"a": "x y", "n": 1}], [{"a": "y", "n": 1}, {"a": "x", "n": 2}]
    met = [flat_similarity.similarity_rows(cfg, None, expected, actual) for _ in range(4)]
    assert met[:2] == [None, None]  # the general path, twice
    # the third time, and after: {x, y} / {y} = 1/2 with 1 = 1; {x, y} / {x} = 1/2 alone
    assert met[2] == met[3] == ([[1.5, 0.5]], 2.0)
    assert len(flat_similarity._FUNCTIONS) == 1 and not flat_similarity._SIGHTINGS


def test_arrays_of_fewer_pairs_than_min_pairs_take_the_general_path(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(flat_similarity, "MIN_PAIRS", 9)
    monkeypatch.setattr(plan_rows, "INTERPRET", False)  # (else the loop reads them)
    cfg = configure(STRUCTURAL_F1, {})
    two, three = [{"a": "x"}, {"a": "y"}], [{"a": "x"}, {"a": "y"}, {"a": "z"}]
    assert flat_similarity.similarity_rows(cfg, None, two, three) is None  # 6 pairs
    assert flat_similarity.similarity_rows(cfg, None, three, three) is not None  # 9


def test_the_generated_text_can_be_printed() -> None:
    plan = ((("jaccard", True), ("within", False), ("equal", True), ("score_equal", True)), False)
    text = flat_similarity.plan_source(plan)
    assert "t += score3(x3, y3)" in text
    assert text.startswith("def read(elements, keys, constants, masks, bits):")
    assert "def scores(rows_e, rows_a, sizes_e, sizes_a, constants):" in text
    assert "if x1 is not None and y1 is not None:" in text  # the partial column's guard
    compile(text, "<plan>", "exec")


def test_a_plan_laid_out_once_serves_arrays_of_the_same_shapes(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Arrays whose elements have the shapes (keys in order, values' types) of arrays met
    before take the plan laid out then (``_KEPT``), and score as the general path does;
    a shape that differs in a key's place, a missing key, a null or a number's type, or a
    configuration of other comparators, lays one out again."""
    monkeypatch.setattr(flat_similarity, "_KEPT", {})
    laid: list[int] = []
    real = flat_similarity._laid_out

    def counted(*args: Any) -> Any:
        laid.append(1)
        return real(*args)

    monkeypatch.setattr(flat_similarity, "_laid_out", counted)
    first = [{"sku": "a b", "qty": 1}, {"sku": "c", "qty": 2}]
    answer = [{"sku": "a", "qty": 1}, {"sku": "c d", "qty": 3}, {"sku": "b", "qty": 2}]
    met = [
        (first, answer, {}, 1),
        ([{"sku": "x", "qty": 7}, {"sku": "a b", "qty": 2}], answer[::-1], {}, 1),  # (kept)
        (first, [*answer[:2], {"sku": "b"}], {}, 2),  # a key left out
        (first, [*answer[:2], {"qty": 2, "sku": "b"}], {}, 3),  # the keys in another order
        (first, [*answer[:2], {"sku": "b", "qty": None}], {}, 4),  # a null
        (first, [*answer[:2], {"sku": "b", "qty": 2.0}], {}, 5),  # a float for an int
        (first, answer, {"string_evaluator": "binary"}, 6),  # other comparators
        (first, answer, {}, 7),  # (one configuration's plan kept for a pair of shapes)
    ]
    for expected, actual, options, count in met:
        fast, general = both_ways(expected, actual, options)
        assert fast is not None
        rows, scale = fast
        assert scale == general[1]
        assert [[s.hex() for s in row] for row in rows] == [
            [float(s).hex() for s in row] for row in general[0]
        ]
        assert len(laid) == count, (actual, options)
    # five pairs of shapes met: each kept once
    assert len(flat_similarity._KEPT) == 5


def test_arrays_of_many_keys_or_many_shapes_are_scored_and_not_kept(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """What ``_KEPT`` holds stays small whatever an answer holds: an array whose elements
    have more keys than a kept key holds, or more shapes, is laid out each time it is met
    (and scores as the general path does), never kept; one within both bounds is kept."""
    monkeypatch.setattr(flat_similarity, "_KEPT", {})
    many_keys = flat_similarity._KEPT_KEYS + 1
    wide = [{f"k{i}": f"v{i} {j}" for i in range(many_keys)} for j in range(3)]
    # each element its own shape: one key more than the element before
    shapes = flat_similarity._KEPT_SHAPES + 1
    varied = [{f"k{i}": "a b" for i in range(j + 1)} for j in range(shapes)]
    small = [{"k0": "a b", "k1": 1}, {"k0": "c", "k1": 2}, {"k0": "a", "k1": 3}]
    for expected, actual in ((wide, wide[::-1]), (varied, varied[:3]), (varied[:3], varied)):
        for _ in range(2):  # (met again: still laid out, not found)
            fast, general = both_ways(expected, actual, {})
            if fast is not None:
                assert [[s.hex() for s in row] for row in fast[0]] == [
                    [float(s).hex() for s in row] for row in general[0]
                ]
        assert flat_similarity._KEPT == {}
    both_ways(small, small[::-1], {})
    assert len(flat_similarity._KEPT) == 1  # (the bounds do not turn every array away)
