"""Small tables' optimal pairs in plain Python (engine/pairing/small_assignment.py): two by
two (``two_by_two``) and any shape up to the cap (``solved``, a port of SciPy's solver): the
very pairs SciPy's linear_sum_assignment returns, ties included, on drawn tables of scores
from a few values (most tables tie somewhere), both the distance form structural_f1 solves
and the maximised scores of field_f1's Hungarian alignment; ``assign`` the same with the
switch on or off; and match_json the same either way."""

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


def test_assign_takes_them_only_for_small_tables_without_a_dominant_pairing() -> None:
    calls: list[Any] = []

    def counted(name: str, real: Any) -> Any:
        def call(*args: Any) -> Any:
            calls.append(name)
            return real(*args)

        return call

    big = [[1.0] * 9 for _ in range(8)]  # (72 cells: past the cap, SciPy's)
    with (
        switched(small_assignment, "two_by_two", counted("2", small_assignment.two_by_two)),
        switched(small_assignment, "solved", counted("n", small_assignment.solved)),
    ):
        assignment.assign([[1.0, 0.0], [0.0, 1.0]], 0.3, True)  # dominant: no solver
        assignment.assign([[1.0, 1.0, 0.0], [1.0, 1.0, 0.0]], 0.3, True)  # 2 x 3
        kept, lone_e, lone_a = assignment.assign([[2.0, 2.0], [2.0, 0.0]], 0.3, True, 2.0)
        assignment.assign(big, 0.3, True)
        with switched(small_assignment, "PURE_PYTHON", False):
            assignment.assign([[1.0, 1.0, 0.0], [1.0, 1.0, 0.0]], 0.3, True)
            assignment.assign([[1.0, 1.0], [1.0, 0.0]], 0.3, True)
    assert calls == ["n", "2"]
    # sums with scale 2: 1, 1 / 1, 0; row 1 needs column 0, so row 0 takes column 1
    assert (kept, lone_e, lone_a) == ([(0, 1, 1.0), (1, 0, 1.0)], [], [])


# every shape up to the cap: a side of one, square, wide and tall
@st.composite
def any_tables(draw: st.DrawFn) -> list[list[float]]:
    n = draw(st.integers(1, 12))
    m = draw(st.integers(1, min(12, assignment.PLAIN_CELLS // n)))
    if draw(st.booleans()):  # (a side of one: 1 x k or k x 1, up to 64)
        n, m = (1, draw(st.integers(1, 64))) if n <= 6 else (draw(st.integers(1, 64)), 1)
    values = draw(st.lists(FEW, min_size=1, max_size=4, unique_by=repr))
    return [[draw(st.sampled_from(values)) for _ in range(m)] for _ in range(n)]


# few values a table, some equal but for the sign of their zero, some whose distances tie
FEW = st.sampled_from([0.0, -0.0, 1.0, 0.5, 1 / 3, 2 / 3, 0.25, 0.9999999999999999, 1e-17, 2.0])


@settings(SETTINGS, max_examples=600)
@given(table=any_tables(), scale=st.sampled_from([1.0, 2.0, 3.0, 7.0]), minimize=st.booleans())
def test_any_small_table_s_pairs_are_scipys_to_the_bit(
    table: list[list[float]], scale: float, minimize: bool
) -> None:
    rows = [[s * scale for s in row] for row in table]
    want = scipy_pairs(rows, scale, minimize)
    found = small_assignment.solved(rows, scale, minimize)
    assert [(i, j, s.hex()) for i, j, s in found] == want
    keep = 0.4 if minimize else -1.0
    on = repr(assignment.assign([list(row) for row in rows], keep, minimize, scale))
    with switched(small_assignment, "PURE_PYTHON", False):
        off = repr(assignment.assign([list(row) for row in rows], keep, minimize, scale))
    assert on == off


def test_counts_read_as_numpy_reads_them() -> None:
    # whole numbers (counts of equal fields) come back as floats, divided by the scale
    assert small_assignment.solved([[2, 2, 0], [2, 2, 0], [0, 1, 1]], 2.0, False) == [
        (0, 0, 1.0),
        (1, 1, 1.0),
        (2, 2, 0.5),
    ]
    assert small_assignment.solved([[1, 1, 0]], 1.0, False) == [(0, 0, 1.0)]


def test_hand_worked_tables() -> None:
    # maximise [[1, 0, 0], [1, 0, 0], [0, 0, 1]]. Row 0: column 0 (its highest, free). Row
    # 1: its highest, column 0, is held and no free column ties it, so the search runs:
    # step 1 from row 1, path gains 1, 0, 0, column 0 taken (gain 1), on to row 0; step 2
    # from row 0 (its dual 1): columns 2 and 1 both reach 1 + 0 - 1 - 0 = 0, not above their
    # gains from row 1 (0), so their path stays row 1's; the tie of 0 goes to column 1 (free,
    # met after column 2): the sink. Flipped: column 1 to row 1 (its path), row 1's turn
    # ends there; row 0 keeps column 0. Column 0's dual moved (to 1), so row 2's gains are
    # -1, 0, 1: column 2, free.
    found = small_assignment.solved([[1.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 0.0, 1.0]], 1.0, False)
    assert found == [(0, 0, 1.0), (1, 1, 0.0), (2, 2, 1.0)]
    # a tall table, 3 x 2, solved transposed: its rows are the columns (0, 1, 1) and (1, 0,
    # 1). Column 0 takes row 1 (the first of its highest), column 1 takes row 0 (the first
    # of its highest, free); read back by row: (0, 1), (1, 0), row 2 left over
    found = small_assignment.solved([[0.0, 1.0], [1.0, 0.0], [1.0, 1.0]], 1.0, False)
    assert found == [(0, 1, 1.0), (1, 0, 1.0)]
    # one row: maximised, 1e-17 is the highest; as distances every cell is 1 - 1e-17 = 1.0 or
    # 1 - 0 = 1.0, a tie of three, and the first column wins
    assert small_assignment.solved([[0.0, 1e-17, 0.0]], 1.0, False) == [(0, 1, 1e-17)]
    assert small_assignment.solved([[0.0, 1e-17, 0.0]], 1.0, True) == [(0, 0, 0.0)]


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


def test_a_zero_of_the_other_sign_reads_its_own_score() -> None:
    # the two tables are equal cell by cell (-0.0 == 0.0), ties in every line (no partner
    # dominates): the solver pairs (0, 0), (1, 1) and (2, 2), each pair's score read from
    # the table at hand, its zero's sign kept, whichever solves it
    plus = [[0.0] * 3 for _ in range(3)]
    minus = [[-0.0] * 3 for _ in range(3)]
    for pure in (False, True):
        with switched(small_assignment, "PURE_PYTHON", pure):
            assert repr(assignment.assign(plus, -1.0)) == (
                "([(0, 0, 0.0), (1, 1, 0.0), (2, 2, 0.0)], [], [])"
            )
            assert repr(assignment.assign(minus, -1.0)) == (
                "([(0, 0, -0.0), (1, 1, -0.0), (2, 2, -0.0)], [], [])"
            )
