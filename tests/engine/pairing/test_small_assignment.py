"""A two-by-two table's optimal pairs in plain Python (engine/pairing/small_assignment.py): the
very pairs SciPy's linear_sum_assignment returns, ties included, on drawn tables of scores
from a few values (most tables tie somewhere), both the distance form structural_f1 solves
and the maximised scores of field_f1's Hungarian alignment; and match_json the same with the
switch on or off."""

from __future__ import annotations

from typing import Any

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from scipy.optimize import linear_sum_assignment

from pytest_jsonmatch import match_json
from pytest_jsonmatch.engine.pairing import assignment, small_assignment
from tests.helpers import fuzz_values as fv
from tests.helpers.switches import switched

SETTINGS = settings(
    max_examples=400,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.too_slow],
)

# few values, so that most tables tie; 1 - 1e-17 rounds to 1.0, a tie the distances make
# where the scores have none
SCORES = st.sampled_from([0.0, 1.0, 0.5, 1 / 3, 2 / 3, 0.25, 0.9999999999999999, 1e-17, 5e-324])
TABLES = st.lists(st.lists(SCORES, min_size=2, max_size=2), min_size=2, max_size=2)


def scipy_pairs(rows: list[list[float]], scale: float, minimize: bool) -> list[tuple[Any, ...]]:
    """What assign took from SciPy: the table divided by ``scale``, solved, read back."""
    matrix = np.array(rows, dtype=float)
    if scale != 1.0:
        matrix /= scale
    if minimize:
        found = linear_sum_assignment(1.0 - matrix)
    else:
        found = linear_sum_assignment(matrix, maximize=True)
    return sorted((int(i), int(j), float(matrix[i, j]).hex()) for i, j in zip(*found))


@SETTINGS
@given(table=TABLES, scale=st.sampled_from([1.0, 2.0, 3.0, 7.0]), minimize=st.booleans())
def test_the_pairs_are_scipys_to_the_bit(
    table: list[list[float]], scale: float, minimize: bool
) -> None:
    rows = [[s * scale for s in row] for row in table]  # (sums with their scale, as given)
    found = small_assignment.two_by_two(rows, scale, minimize)
    assert [(i, j, s.hex()) for i, j, s in found] == scipy_pairs(rows, scale, minimize)


def test_a_hand_worked_tie() -> None:
    # every pair scores 1: distances all 0. Row 0 takes column 0 (met last, free); row 1
    # finds column 0 lowest too (0 = 0, but held), keeps column 1, which is free: the straight
    # pairing, as SciPy's identity answer for a constant table
    assert small_assignment.two_by_two([[1.0, 1.0], [1.0, 1.0]], 1.0, True) == [
        (0, 0, 1.0),
        (1, 1, 1.0),
    ]
    # row 0 ties (1 and 1), row 1 prefers column 0 (1 against 0): row 0 goes the other way
    assert small_assignment.two_by_two([[1.0, 1.0], [1.0, 0.0]], 1.0, True) == [
        (0, 1, 1.0),
        (1, 0, 1.0),
    ]


def test_assign_takes_it_only_for_two_by_two_tables_without_a_dominant_pairing() -> None:
    calls: list[Any] = []

    def counted(*args: Any) -> Any:
        calls.append(args)
        return two_by_two(*args)

    two_by_two = small_assignment.two_by_two
    with switched(small_assignment, "two_by_two", counted):
        assignment.assign([[1.0, 0.0], [0.0, 1.0]], 0.3, True)  # dominant: no solver
        assignment.assign([[1.0, 1.0, 0.0], [1.0, 1.0, 0.0]], 0.3, True)  # 2 x 3: SciPy
        kept, lone_e, lone_a = assignment.assign([[2.0, 2.0], [2.0, 0.0]], 0.3, True, 2.0)
    assert len(calls) == 1
    # sums with scale 2: 1, 1 / 1, 0; row 1 needs column 0, so row 0 takes column 1
    assert (kept, lone_e, lone_a) == ([(0, 1, 1.0), (1, 0, 1.0)], [], [])


# scalar arrays of two: booleans and repeated words tie
PAIRS = st.lists(
    st.one_of(st.booleans(), st.sampled_from(["a", "a b", "b"])), min_size=2, max_size=2
)


@SETTINGS
@given(expected=PAIRS, actual=PAIRS, hungarian=st.booleans())
def test_match_json_says_the_same_with_the_switch_on_or_off(
    expected: list[Any], actual: list[Any], hungarian: bool
) -> None:
    def said() -> str:
        if hungarian:
            found = match_json({"k": actual}, {"k": expected}, "field_f1", align="hungarian")
        else:
            found = match_json({"k": actual}, {"k": expected}, "structural_f1")
        return fv.exact_repr(found)

    with switched(small_assignment, "PURE_PYTHON", False):
        general = said()
    assert said() == general
