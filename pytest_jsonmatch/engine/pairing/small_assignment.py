"""The optimal pairing of two elements with two, in plain Python: the very pairs SciPy's
``linear_sum_assignment`` returns, ties included.

``assignment.assign`` hands a table of pair scores to a solver when no element has a clear
best partner (``dominant_pairs``): ties are common among a few short values (booleans,
repeated words), and a table of two by two is the commonest such table among a test suite's
small arrays. Through NumPy and SciPy it costs about 55 thousand instructions (the table
made an array, the distances ``1 - score`` another, the solver's checks of its input, its
answer read back), where the solver's own steps on two rows are a few comparisons.

Here are those steps, written out for two rows and two columns: SciPy's solver (Crouse's
shortest augmenting path method, "On implementing 2D rectangular assignment algorithms",
2016) takes the rows in order, reaches the columns in reverse order, among columns tied for
the lowest reduced cost prefers a free one (else keeps the one met last), and adds the same
floating-point terms in the same order; each branch below is where its loop would go. So
the pairs are the same, to the element, for every table of finite scores
(``tests/engine/pairing/test_small_assignment.py`` holds it to SciPy's on drawn tables full
of ties). ``PURE_PYTHON = False`` sends every table to SciPy.
"""

from __future__ import annotations

PURE_PYTHON = True  # False: every table goes to SciPy's solver


def two_by_two(
    rows: list[list[float]], scale: float, minimize_distance: bool
) -> list[tuple[int, int, float]]:
    """The optimal pairs of a two-by-two table of pair scores given as rows of the scores
    times ``scale`` (``pair_scores``' small form), each with its score divided by
    ``scale``, in row order: what ``assign`` takes from SciPy, to which it would hand
    ``1 - score`` (``minimize_distance``, structeval's form) or the scores to maximise
    (which the solver negates)."""
    (s00, s01), (s10, s11) = rows
    if scale != 1.0:
        s00, s01, s10, s11 = s00 / scale, s01 / scale, s10 / scale, s11 / scale
    if minimize_distance:
        c00, c01, c10, c11 = 1.0 - s00, 1.0 - s01, 1.0 - s10, 1.0 - s11
    else:
        c00, c01, c10, c11 = -s00, -s01, -s10, -s11
    # row 0, from nothing: each column's reduced cost is its cost (0 + c - 0 - 0); column 1
    # is met first, column 0 taken on a tie (it is free)
    r00, r01 = 0.0 + c00 - 0.0 - 0.0, 0.0 + c01 - 0.0 - 0.0
    first = 0 if r00 <= r01 else 1
    u0 = 0.0 + (r00 if first == 0 else r01)  # (the row's dual; every column's stays 0)
    # row 1: column 1 met first, column 0 taken where lower, or tied and free
    r10, r11 = 0.0 + c10 - 0.0 - 0.0, 0.0 + c11 - 0.0 - 0.0
    second = 0 if r10 < r11 or (r10 == r11 and first != 0) else 1
    other = 1 - first
    if second != first:  # a free column: the path ends there
        cols = (first, second)
    else:
        # the column row 0 holds: the path goes on through row 0 to the other column,
        # whose cost through it is compared with its cost from row 1
        via = (r10 if first == 0 else r11) + (c00 if other == 0 else c01) - u0 - 0.0
        cols = (other, first) if via < (r10 if other == 0 else r11) else (first, other)
    scores = ((s00, s01), (s10, s11))
    return [(0, cols[0], scores[0][cols[0]]), (1, cols[1], scores[1][cols[1]])]
