"""The optimal pairing of a few elements with a few, in plain Python: the very pairs SciPy's
``linear_sum_assignment`` returns, ties included.

``assignment.assign`` hands a table of pair scores to a solver when no element has a clear
best partner (``dominant_pairs``): ties are common among a few short values (booleans,
repeated words, counts of equal fields). Through NumPy and SciPy a small table costs about
60 thousand instructions (the table made an array, the distances ``1 - score`` another, the
solver's checks of its input, its answer read back), and the first such table of a
process imports NumPy and ``scipy.optimize`` (about 0.4 s): a test session whose assertions
meet one tie pays that. The solver's own steps on a few rows cost less than the set-up.

Here are those steps in Python: a port of SciPy's solver (``rectangular_lsap.cpp``, the same
file from SciPy 1.10 to 1.17: Crouse's shortest augmenting path method, "On implementing 2D
rectangular assignment algorithms", 2016). It takes the rows in order; each row's search
reaches the columns still open in the order of a list filled high column first, from which a
column reached is removed by moving the last one into its place; among columns tied for the
lowest path cost it prefers a free one met later to the one it holds (else keeps the one met
first); and it adds the same floating-point terms in the same order, ``min + cost - u - v``.
A table of more rows than columns is solved transposed and its pairs read back in row order.
So the pairs are the same, to the element, for every table of finite scores
(``tests/engine/pairing/test_small_assignment.py`` holds both to SciPy's on drawn tables full
of ties). The only liberty taken: a term known to be zero (a dual of 0, a path begun at 0) is
left out, which can change only the sign of a zero result, and no comparison or sum the
solver makes tells the two zeros apart (a sum is zero with either, and equal otherwise).

``two_by_two`` is the same steps unrolled for two rows and two columns, the commonest table;
``solved`` is any other. ``PURE_PYTHON = False`` sends every table to SciPy.
"""

from __future__ import annotations

from collections.abc import Sequence

PURE_PYTHON = True  # False: every table goes to SciPy's solver

_LOW = float("-inf")


def solved(
    rows: list[list[float]], scale: float, minimize_distance: bool
) -> list[tuple[int, int, float]]:
    """SciPy's optimal pairs of a table of pair scores of any shape, given as rows of the
    scores times ``scale``, each pair with its score divided by ``scale`` (the cell read as
    a float first, as NumPy reads it), in row order: what ``assign`` takes from SciPy, to
    which it hands ``1 - score`` (``minimize_distance``) or the scores to maximise (which
    the solver negates into its costs)."""
    # the solver's costs, negated: the gains, ``score - 1`` or the score, the table itself
    # where nothing is divided (a whole number below 2 ** 53, a count, is the same float)
    gains: list[list[float]]
    if scale != 1.0:
        if minimize_distance:
            gains = [[s / scale - 1.0 for s in row] for row in rows]
        else:
            gains = [[s / scale for s in row] for row in rows]
    elif minimize_distance:
        gains = [[s - 1.0 for s in row] for row in rows]
    else:
        gains = rows
    n, m = len(rows), len(rows[0])
    if n <= m:
        cols = _columns(gains, n, m)
        if scale != 1.0:
            return [(i, j, float(rows[i][j]) / scale) for i, j in enumerate(cols)]
        return [(i, j, float(rows[i][j])) for i, j in enumerate(cols)]
    # the solver's transpose: its rows are the columns, its pairs read back by row
    pairs = sorted(zip(_columns(list(zip(*gains)), m, n), range(m)))
    if scale != 1.0:
        return [(i, j, float(rows[i][j]) / scale) for i, j in pairs]
    return [(i, j, float(rows[i][j])) for i, j in pairs]


def _columns(gain: Sequence[Sequence[float]], nr: int, nc: int) -> list[int]:
    """Each row's column (``col4row``) in SciPy's optimal assignment of ``nr`` rows to ``nc``
    columns (``nr <= nc``) whose costs are ``-gain``.

    While every column's dual is 0, a row's search begins (its own dual 0, the path's cost
    0) with each column's path cost its cost, and ends at once if a free column has the
    lowest: the columns are met high first, the first of the lowest is held and a free one
    tied with it met later replaces it, so the sink is the first free column of the lowest
    cost, and only the row's dual moves (to that cost). Rows are taken so while they can
    be; from the first whose lowest columns are all held, ``_searched`` goes on."""
    col4row: list[int] = []
    u: list[float] = []  # (the rows' duals, negated)
    for row in gain:
        high = max(row)
        j = row.index(high)
        if j in col4row:
            for k in range(j + 1, nc):
                if row[k] == high and k not in col4row:
                    j = k
                    break
            else:
                return _searched(gain, nr, nc, col4row, u)
        col4row.append(j)
        u.append(high)
    return col4row


def _searched(
    gain: Sequence[Sequence[float]], nr: int, nc: int, col4row: list[int], u: list[float]
) -> list[int]:
    """``_columns``' answer from its rows so far (``col4row``, ``u``) on: SciPy's solver's
    steps (``augmenting_path`` and ``solve``, names as there), every quantity negated (a
    path's cost, a dual, the lowest cost: its gain, ``-u``, ``-v``, the highest gain), so
    that each sum is the solver's sum negated, exactly, and each ``<`` a ``>``."""
    row4col = [-1] * nc
    for i, j in enumerate(col4row):
        row4col[j] = i
    start = len(col4row)
    col4row += [-1] * (nr - start)
    u += [0.0] * (nr - start)
    v = [0.0] * nc
    path = [-1] * nc
    for cur in range(start, nr):
        best = [_LOW] * nc  # (shortestPathCosts)
        j, max_val, reached = _path(gain, cur, u, v, row4col, path, best)
        # the duals: the row's own, and each column taken with the row that holds it (the
        # sink's moves by max_val - max_val = 0: left as it is)
        u[cur] += max_val
        for k in reached:
            change = max_val - best[k]
            u[row4col[k]] += change
            v[k] -= change
        # the path flipped: each column on it goes to the row that reached it
        while True:
            i = path[j]
            row4col[j] = i
            col4row[i], j = j, col4row[i]
            if i == cur:
                break
    return col4row


def _path(
    gain: Sequence[Sequence[float]],
    i: int,
    u: list[float],
    v: list[float],
    row4col: list[int],
    path: list[int],
    best: list[float],
) -> tuple[int, float, list[int]]:
    """SciPy's ``augmenting_path`` from row ``i``, negated as ``_searched`` says: the sink
    column, the highest gain (``-minVal``) and the columns taken before the sink (``SC``
    less the sink, each held by a row of ``SR``); ``path`` and ``best`` filled in."""
    remaining = list(range(len(v) - 1, -1, -1))
    reached: list[int] = []
    max_val = 0.0
    while True:
        row, ui = gain[i], u[i]
        highest, j = _LOW, -1
        for k in remaining:
            r = max_val + row[k] - ui - v[k]
            if r > best[k]:
                path[k] = i
                best[k] = r
            else:
                r = best[k]
            if r > highest or (r == highest and row4col[k] == -1):
                highest, j = r, k
        if j < 0:
            raise ValueError("cost matrix is infeasible")  # (SciPy's words)
        max_val = highest
        last = remaining.pop()  # (the last one moved into the place of the one taken)
        if last != j:
            remaining[remaining.index(j)] = last
        i = row4col[j]
        if i == -1:
            return j, max_val, reached
        reached.append(j)


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
