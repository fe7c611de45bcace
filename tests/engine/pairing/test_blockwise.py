"""Pairing large arrays a block of scores at a time (engine/pairing/blockwise.py) returns exactly
what the dense method (the whole matrix, scipy's linear_sum_assignment) returns: on random
score matrices, with ties and without, and through match_json under both pairing metrics
on random arrays of up to a few hundred elements. See docs/performance.md, "Why the
pruning is exact"."""

from __future__ import annotations

import copy
import random

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.optimize import linear_sum_assignment

from pytest_jsonmatch import match_json
from pytest_jsonmatch.engine.pairing import assignment as align
from pytest_jsonmatch.engine.pairing import blockwise, pair_scores

pytestmark = pytest.mark.slow  # (CONTRIBUTING.md: the inner loop leaves it out)


class _Matrix:
    """A score matrix served a block of lines at a time, as LineScores serves one."""

    def __init__(self, scores):
        self.scores = np.asarray(scores, dtype=float)
        self.shape = self.scores.shape

    def rows(self, start, stop):
        return self.scores[start:stop].copy()

    def columns(self, start, stop):
        return self.scores[:, start:stop].copy()

    def whole(self):
        return self.scores.copy()


def _unique_optimum(scores, margin=1e-9):
    """The shortcut's answer for a score matrix (None: the dense method is needed)."""
    found = blockwise._scan(_Matrix(scores))
    return None if found is None else blockwise._shortcut(found, margin)


def _dense(scores, keep_above):
    return align.assign(np.asarray(scores, dtype=float), keep_above, minimize_distance=True)


@pytest.fixture
def small_blocks(monkeypatch):
    monkeypatch.setattr(blockwise, "BLOCK_CELLS", 7)  # several blocks even for tiny inputs


def test_a_clear_best_partner_per_line_is_taken_without_the_solver(small_blocks):
    scores = [[0.0, 0.9, 0.1], [0.8, 0.0, 0.0], [0.0, 0.0, 0.0]]
    # rows 0 and 1 have one candidate each (0.1 is more than NEAR_BEST below 0.9); row 2
    # scores 0 everywhere and pairs with nothing. 0.9 + 0.8 = the sum of the bests.
    assert _unique_optimum(scores) == [(0, 1, 0.9), (1, 0, 0.8)]


def test_cells_at_or_below_the_threshold_still_count(small_blocks):
    # the dense solver pairs (0, 1) and (1, 0), 0.29 + 0.29 = 0.58 > 0.5, and keeps neither
    # (0.29 <= 0.3); pruning the 0.29 cells would pair (0, 0) instead
    scores = [[0.5, 0.29], [0.29, 0.0]]
    assert _unique_optimum(scores) is None  # no shortcut here
    assert (
        blockwise.assign_large(_Matrix(scores), 0.3, True)
        == _dense(scores, 0.3)
        == ([], [0, 1], [0, 1])
    )


def test_a_tie_between_two_pairings_is_left_to_the_dense_method(small_blocks):
    scores = [[0.7, 0.7], [0.7, 0.7]]
    assert _unique_optimum(scores) is None


def test_two_lines_wanting_one_partner_are_settled_exactly(small_blocks):
    # both rows prefer column 0; the best matching gives it to row 0 (0.9 + 0.85 = 1.75
    # against 0.8 + 0.8 = 1.6), and the 0.8 and 0.85 cells are within NEAR_BEST of the bests
    scores = [[0.9, 0.8, 0.0], [0.88, 0.0, 0.85]]
    assert _unique_optimum(scores) == [(0, 0, 0.9), (1, 2, 0.85)]


def test_prices_of_two_lines_wanting_one_partner_are_the_assignments_dual():
    # The matrix above. Candidates: row 0 -> columns 0 (0.9) and 1 (0.8); row 1 -> columns
    # 0 (0.88) and 2 (0.85); chosen: (0, 0) and (1, 2). Shortest distances from the free
    # node: columns 0, 1, 2 start at 0; line 1 = col 2 + 0.85 = 0.85; column 0 = line 1 -
    # 0.88 = -0.03; line 0 = column 0 + 0.9 = 0.87 (column 1 stays 0: 0.87 - 0.8 > 0).
    # As a dual: u = (0.87, 0.85), v = (0.03, 0, 0), total 1.75 = 0.9 + 0.85, the best.
    lines, partners = np.array([0, 0, 1, 1]), np.array([0, 1, 0, 2])
    values = np.array([0.9, 0.8, 0.88, 0.85])
    partner_of = blockwise._best_matching(lines, partners, values, 2, 3)
    assert partner_of.tolist() == [0, 2]
    graph = blockwise._Residual(lines, partners, values, partner_of, 3)
    prices = graph.prices()
    assert prices.tolist() == pytest.approx([0.87, 0.85, -0.03, 0.0, 0.0, 0.0])
    # every other matching over the candidates loses at least 1.75 - (0.8 + 0.88) = 0.07
    assert graph.unique(prices, 1e-9) and not graph.unique(prices, 0.08)


def test_a_long_chain_of_lines_wanting_their_neighbours_partner_is_settled_exactly(small_blocks):
    # line i scores 0.9 with column i and 0.85 with column i + 1 (a candidate: within
    # NEAR_BEST), so all 300 lines form one linked group; the diagonal is the unique optimum:
    # any shift onto a neighbour's column loses 0.05 a line, and the last line's second
    # column does not exist
    n = 300
    scores = np.zeros((n, n))
    for i in range(n):
        scores[i, i] = 0.9
        if i + 1 < n:
            scores[i, i + 1] = 0.85
    found = _unique_optimum(scores)
    assert found == [(i, i, 0.9) for i in range(n)]
    assert blockwise.assign_large(_Matrix(scores), 0.3, True) == _dense(scores, 0.3)


@pytest.mark.parametrize("minimize_distance", [True, False])
@pytest.mark.parametrize("seed", range(6))
def test_the_whole_matrix_solved_in_place_pairs_as_align_assign(seed, minimize_distance):
    # few cells above 0 (at most 3 a row of 60), many of them tied: the whole matrix is
    # turned into what the solver takes in place, and the pairs with their scores must be
    # align.assign's, bit for bit
    rng = random.Random(seed)
    n, m = rng.randint(40, 60), rng.randint(40, 60)
    scores = np.zeros((n, m))
    for i in range(n):
        for j in rng.sample(range(m), 3):
            scores[i, j] = rng.choice([1 / 3, 0.5, 0.5, 2 / 3, rng.random()])
    assert np.count_nonzero(scores) <= blockwise._SPARSE_SHARE * scores.size
    expected = align.assign(scores.copy(), -1.0, minimize_distance)[0]
    assert blockwise._solve_whole(scores.copy(), minimize_distance) == expected


@pytest.mark.parametrize("minimize_distance", [True, False])
@pytest.mark.parametrize("n, m", [(45, 60), (60, 45)])
def test_ties_are_solved_from_the_cells_the_scan_kept(small_blocks, n, m, minimize_distance):
    # every row scores 1/3 with the same three columns as two other rows (exact ties: no
    # shortcut), nothing else: the scan keeps the cells above 0 (few), and the dense
    # method's answer is built from them, whichever side is the shorter
    scores = np.zeros((n, m))
    for i in range(n):
        group = (i // 3) % (m // 3)
        for j in range(3 * group, 3 * group + 3):
            scores[i, j] = 1 / 3
    found = blockwise._scan(_Matrix(scores))
    assert found is not None and found.above_zero is not None
    assert blockwise._shortcut(found, 1e-9) is None
    expected = align.assign(scores.copy(), 0.3, minimize_distance)
    assert blockwise.assign_large(_Matrix(scores), 0.3, minimize_distance) == expected


def test_a_line_that_loses_its_best_by_more_than_near_best_goes_to_the_dense_method(small_blocks):
    # column 0 is row 0's only candidate (1.0) and row 1's (0.95); row 1's 0.5 is more than
    # NEAR_BEST below its best, so not a candidate. The best over the candidates leaves
    # row 1 unpaired (its price 0 < 0.95 - 0.1), while the true optimum pairs it at 0.5
    # (1.0 + 0.5): the check must refuse, and the answer then comes from the dense method.
    scores = [[1.0, 0.0], [0.95, 0.5]]
    assert _unique_optimum(scores) is None
    assert (
        blockwise.assign_large(_Matrix(scores), 0.3, True)
        == _dense(scores, 0.3)
        == ([(0, 0, 1.0), (1, 1, 0.5)], [], [])
    )


def _random_scores(rng, n, m, tied):
    scores = np.zeros((n, m))
    levels = [0.2, 0.4, 0.6, 1.0] if tied else None
    for i in range(n):
        for j in rng.sample(range(m), min(m, rng.randint(0, 4))):
            scores[i, j] = rng.choice(levels) if tied else rng.random() * 0.6
    for i, j in zip(range(n), rng.sample(range(m), min(n, m))):
        if rng.random() < 0.8:
            scores[i, j] = rng.choice(levels) if tied else 0.7 + rng.random() * 0.3
    return scores


@pytest.mark.parametrize("tied", [False, True])
@pytest.mark.parametrize("seed", range(40))
def test_random_matrices_pair_as_the_dense_method_does(small_blocks, seed, tied):
    rng = random.Random(seed)
    n, m = rng.randint(1, 40), rng.randint(1, 40)
    scores = _random_scores(rng, n, m, tied)
    for keep_above in (0.0, 0.3):
        assert blockwise.assign_large(_Matrix(scores), keep_above, True) == _dense(
            scores, keep_above
        )
    found = _unique_optimum(scores)
    if found is not None:  # whenever it answers, it is the solver's choice above 0
        rows, cols = linear_sum_assignment(1.0 - scores)
        assert found == sorted((i, j, scores[i, j]) for i, j in zip(rows, cols) if scores[i, j] > 0)


def test_the_shortcut_answers_when_each_line_has_a_clear_partner(small_blocks):
    # not a vacuous property: every row has a partner scoring 0.7 or more and noise of at
    # most 0.5 elsewhere, so its only candidate is its partner and no solver runs
    for seed in range(20):
        rng = random.Random(seed)
        n, m = rng.randint(1, 40), rng.randint(40, 50)
        scores = np.zeros((n, m))
        for i in range(n):
            for j in rng.sample(range(m), 5):
                scores[i, j] = rng.random() * 0.5
        partners = rng.sample(range(m), n)
        for i, j in enumerate(partners):
            scores[i, j] = 0.7 + rng.random() * 0.3
        found = _unique_optimum(scores)
        assert found == [(i, j, scores[i, j]) for i, j in enumerate(partners)]


# -- through match_json: blockwise against the dense matrix -----------------------------------

_WORDS = ["red", "blue", "green", "box", "big", "small", "steel", "paper"]


def _element(rng, i, tied):
    if tied:  # few distinct values: duplicates and ties everywhere
        return {"k": rng.choice(_WORDS), "n": rng.randint(0, 2), "b": rng.random() < 0.5}
    return {
        "id": f"ID-{i}",
        "name": " ".join(rng.sample(_WORDS, rng.randint(1, 3))),
        "n": round(rng.uniform(0, 100), 2),
        "b": rng.random() < 0.5,
    }


def _damaged(rng, element):
    out = copy.deepcopy(element)
    for key in list(out):
        roll = rng.random()
        if roll < 0.15:
            del out[key]
        elif roll < 0.35 and isinstance(out[key], str):
            out[key] = out[key] + " " + rng.choice(_WORDS)
        elif roll < 0.5 and isinstance(out[key], float):
            out[key] = round(out[key] * 1.01, 2)
    return out


def _arrays(seed, tied, complete=False):
    """Random arrays: ``tied``, of few distinct values; ``complete``, every element with
    a copy on the other side (a third of them with a word added to the name) and nothing
    else; otherwise damaged copies, some elements and keys dropped, some elements added."""
    rng = random.Random(seed)
    n = rng.randint(20, 300)
    expected = [_element(rng, i, tied) for i in range(n)]
    if complete:  # one field changed at most: the copy stays its original's clear partner
        actual = [
            {**x, "name": x["name"] + " box"} if rng.random() < 0.3 else dict(x) for x in expected
        ]
    else:
        actual = [_damaged(rng, x) for x in expected if rng.random() < 0.9]
    if not complete:
        actual += [_element(rng, n + k, tied) for k in range(rng.randint(0, 10))]
    rng.shuffle(actual)
    return {"items": actual}, {"items": expected}


def _compare(monkeypatch, actual, expected, **options):
    monkeypatch.setattr(pair_scores, "LARGE_PAIRS", 10**12)
    dense = match_json(actual, expected, **options)
    monkeypatch.setattr(pair_scores, "LARGE_PAIRS", 0)
    monkeypatch.setattr(blockwise, "BLOCK_CELLS", 997)  # many blocks
    found = match_json(actual, expected, **options)
    return dense, found


PAIRING_METRICS = [("structural_f1", {}), ("field_f1", {"align": "hungarian"})]


@pytest.mark.parametrize("tied", [False, True])
@pytest.mark.parametrize("seed", range(8))
@pytest.mark.parametrize("metric, options", PAIRING_METRICS)
def test_match_json_gives_the_dense_result_on_random_arrays(
    monkeypatch, seed, tied, metric, options
):
    actual, expected = _arrays(seed, tied)
    dense, found = _compare(monkeypatch, actual, expected, metric=metric, **options)
    assert found.pairings == dense.pairings
    assert found.fields == dense.fields
    assert found.score == dense.score


@pytest.mark.parametrize("metric, options", PAIRING_METRICS)
def test_match_json_takes_the_shortcut_when_every_element_has_its_copy(
    monkeypatch, metric, options
):
    answers = []
    shortcut = blockwise._shortcut
    monkeypatch.setattr(
        blockwise, "_shortcut", lambda *args: answers.append(shortcut(*args)) or answers[-1]
    )
    for seed in range(6):
        actual, expected = _arrays(seed, False, complete=True)
        dense, found = _compare(monkeypatch, actual, expected, metric=metric, **options)
        assert (found.fields, found.pairings, found.score) == (
            dense.fields,
            dense.pairings,
            dense.score,
        )
    assert sum(answer is not None for answer in answers) >= 4  # the shortcut, not the fallback


@pytest.mark.parametrize("metric, options", PAIRING_METRICS)
def test_an_element_that_occurs_twice_takes_the_dense_method_at_once(monkeypatch, metric, options):
    # two equal expected elements score alike against every partner: pairings that swap
    # them tie, so no pass looks for a shortcut, and the answer is the dense method's
    scans = []
    scan = blockwise._scan
    monkeypatch.setattr(blockwise, "_scan", lambda *args: scans.append(1) or scan(*args))
    actual, expected = _arrays(5, False)
    expected["items"].append(copy.deepcopy(expected["items"][0]))
    dense, found = _compare(monkeypatch, actual, expected, metric=metric, **options)
    assert (found.fields, found.pairings, found.score) == (
        dense.fields,
        dense.pairings,
        dense.score,
    )
    assert scans == []
    # without the copy, the same arrays are scanned
    expected["items"].pop()
    _compare(monkeypatch, actual, expected, metric=metric, **options)
    assert scans == [1]


def test_repeated_elements_are_found_by_a_quick_test():
    from pytest_jsonmatch.engine.pairing import array_pairs as pairing

    assert pairing._repeats(["x", "y", "x"])
    assert pairing._repeats([{"a": [1], "b": 2}, {"a": [1], "b": 2}])  # nested: the JSON key
    assert pairing._repeats([[1, {"c": 2}], [1, {"c": 2}]])
    assert not pairing._repeats([{"a": 1}, {"a": 2}, [1], [2], "a"])
    # a copy with its keys in another order is missed here and found as a tie later:
    # the answer is the dense method's either way
    assert not pairing._repeats([{"a": 1, "b": 2}, {"b": 2, "a": 1}])


def test_many_more_actual_than_expected_elements_pair_along_the_columns(monkeypatch):
    # n > m: the actual side is the one every full pairing covers
    actual, expected = _arrays(3, False)
    expected["items"] = expected["items"] + expected["items"][:40]
    dense, found = _compare(monkeypatch, expected, actual, metric="structural_f1")
    assert (found.fields, found.pairings) == (dense.fields, dense.pairings)


# -- any small matrix: whichever way assign_large answers, it is align.assign's answer ---------

_LEVELS = [0.0, 0.0, 0.0, 1 / 3, 0.5, 2 / 3, 0.95, 1.0]  # few values: ties everywhere


@st.composite
def _matrices(draw):
    """Dense matrices, or sparse ones (at most a tenth of the cells above 0: the dense
    method then runs from kept cells)."""
    n, m = draw(st.integers(1, 20)), draw(st.integers(1, 20))
    cells = st.sampled_from(_LEVELS) | st.floats(0.0, 1.0)
    if draw(st.booleans()):
        return np.array(
            draw(st.lists(st.lists(cells, min_size=m, max_size=m), min_size=n, max_size=n))
        )
    scores = np.zeros((n, m))
    for i, j, value in draw(
        st.lists(
            st.tuples(st.integers(0, n - 1), st.integers(0, m - 1), cells), max_size=n * m // 10
        )
    ):
        scores[i, j] = value
    return scores


@settings(max_examples=300, deadline=None, derandomize=True)
@given(scores=_matrices(), keep_above=st.sampled_from([0.0, 0.3]), minimize=st.booleans())
def test_any_small_matrix_pairs_as_align_assign(scores, keep_above, minimize):
    # blocks of one line (the smallest), so every path is taken somewhere: the shortcut,
    # the dense method from kept cells, and from the whole matrix
    blockwise_cells = blockwise.BLOCK_CELLS
    blockwise.BLOCK_CELLS = 1
    try:
        found = blockwise.assign_large(_Matrix(scores), keep_above, minimize)
    finally:
        blockwise.BLOCK_CELLS = blockwise_cells
    assert found == align.assign(scores.copy(), keep_above, minimize)
