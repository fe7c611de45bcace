"""Small assignment tables kept once solved (pairing/assignment.py, ``KEEP_SOLVED``): a
table met again is answered from the pairs kept for it, the same pairs with the same
scores, to the bit, as the solver gives afresh (the switch off), whatever was kept before:
tables with ties, zeros of either sign, counts read at a scale, both ways of solving."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pytest_jsonmatch.engine.pairing import assignment, small_assignment
from tests.helpers.switches import switched

SETTINGS = settings(
    max_examples=200,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.too_slow],
)

# cells that tie often (counts of equal fields: whole numbers), and a few that do not
CELLS = st.sampled_from([0.0, -0.0, 1.0, 2.0, 3.0, 0.5, 0.25, 1 / 3, 2 / 3, 0.1])


@st.composite
def tables(draw: st.DrawFn) -> list[list[float]]:
    n, m = draw(st.integers(1, 5)), draw(st.integers(1, 5))
    return [[draw(CELLS) for _ in range(m)] for _ in range(n)]


def solved(table: list[list[float]], keep: float, minimize: bool, scale: float) -> str:
    return repr(assignment.assign([list(row) for row in table], keep, minimize, scale))


@SETTINGS
@given(
    table=tables(),
    keep=st.sampled_from([0.0, -1.0, 0.4]),
    minimize=st.booleans(),
    scale=st.sampled_from([1.0, 2.0, 3.0]),
)
def test_a_kept_table_is_solved_as_the_solver_solves_it(
    table: list[list[float]], keep: float, minimize: bool, scale: float
) -> None:
    with switched(small_assignment, "PURE_PYTHON", False):  # (SciPy's tables, kept)
        with switched(assignment, "KEEP_SOLVED", False):
            fresh = solved(table, keep, minimize, scale)
        assert solved(table, keep, minimize, scale) == fresh  # (solved now, or kept before)
        assert solved(table, keep, minimize, scale) == fresh  # (kept)


def test_a_zero_of_the_other_sign_reads_its_own_score() -> None:
    # the two tables are equal cell by cell (-0.0 == 0.0): one kept entry serves both, and
    # each pair's score is read from the table at hand, its zero's sign kept. No partner
    # dominates (ties in every line); the solver pairs (0, 0), (1, 1) and (2, 2).
    plus = [[0.0] * 3 for _ in range(3)]
    minus = [[-0.0] * 3 for _ in range(3)]
    for pure in (False, True):  # (kept SciPy answers; the plain solver's, never kept)
        with switched(small_assignment, "PURE_PYTHON", pure):
            assert repr(assignment.assign(plus, -1.0)) == (
                "([(0, 0, 0.0), (1, 1, 0.0), (2, 2, 0.0)], [], [])"
            )
            assert repr(assignment.assign(minus, -1.0)) == (
                "([(0, 0, -0.0), (1, 1, -0.0), (2, 2, -0.0)], [], [])"
            )


def test_the_solver_is_called_once_for_a_table_met_twice(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import scipy.optimize

    calls: list[int] = []
    real = scipy.optimize.linear_sum_assignment

    def counted(*args: object, **kwargs: object) -> object:
        calls.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(scipy.optimize, "linear_sum_assignment", counted)
    monkeypatch.setattr(assignment, "_SOLVED", {})
    monkeypatch.setattr(small_assignment, "PURE_PYTHON", False)  # (SciPy's, kept)
    table = [[1.0, 1.0, 0.0], [1.0, 1.0, 0.0], [0.0, 0.0, 0.0]]  # (ties: no dominance)
    first = assignment.assign(table, 0.0)
    assert assignment.assign(table, 0.0) == first
    assert calls == [1]
    with switched(assignment, "KEEP_SOLVED", False):
        assert assignment.assign(table, 0.0) == first
    assert calls == [1, 1]
