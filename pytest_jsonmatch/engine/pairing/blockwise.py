"""Optimal pairing of large arrays, a block of pair scores at a time.

The dense method scores every (expected, actual) pair into one matrix and hands it to an
assignment solver: 8 bytes a pair, several times that with temporaries, so 10,000 elements
a side take gigabytes. Here the scores come a block of lines at a time (LineScores, lines
of the shorter side), and each line keeps its best score and its candidates: the cells that
score above 0 and within NEAR_BEST of that best. The best matching over the candidates
(scipy's sparse assignment solver) is returned only when it is provably the dense method's
answer, which prices from its residual graph show: no pairing that uses a cell outside the
candidates, and no other pairing over them, comes within ``margin`` of it
(docs/performance.md, "Why the pruning is exact"). Otherwise the whole matrix is solved as
for any array (built from the cells above 0 the same pass kept, when they are few): the
same answer at the dense method's cost. Nothing cheaper and different is ever returned.
"""

from __future__ import annotations

import math
from collections import deque

from ..comparing.all_pairs import blocks_of_one_array, np
from ..core.slotted import Slotted
from . import assignment
from .assignment import Floats, Indices
from .pair_scores import LineScores

# Cells of one block of scores (float64: 64 MB; what is prepared once per block, the other
# side's values among it, is then paid a dozen times for 10,000 x 10,000, not fifty).
BLOCK_CELLS = 8_000_000
# A line's candidates: the cells within this of its best score.
NEAR_BEST = 0.1
# Candidates per line, on average, beyond which the dense method is cheaper.
MOST_CANDIDATES = 32
_ABOVE_ZERO = math.ulp(0.0)  # the smallest float above 0: x >= it means x > 0


def assign_large(
    scores: LineScores, keep_above: float, minimize_distance: bool = False, tied: bool = False
) -> assignment.Assignment:
    """As :func:`assignment.assign` on the whole matrix, without building it when the optimum
    is clear line by line. ``tied``: the caller knows of equal alternatives (elements that
    occur twice), so the dense method is taken at once."""
    n, m = scores.shape
    with blocks_of_one_array():
        found = None if tied else _scan(scores)
        chosen = None if found is None else _shortcut(found, assignment.DOMINANCE_MARGIN)
        if chosen is None:  # the dense method, from the cells the scan kept when it could
            if found is not None and found.above_zero is not None:
                chosen = _solve_cells((n, m), *found.cells(), minimize_distance)
            else:
                chosen = _solve_whole(_whole(scores), minimize_distance)
    return assignment.kept_pairs(chosen, n, m, keep_above)


class _Scan(Slotted):
    """What one pass over the scores leaves: each line's best score, its candidates (three
    arrays: line, partner, score), and every cell above 0 (flat index in lines x partners,
    score) while they are few, else None."""

    __slots__ = ("shape", "by_rows", "best", "lines", "partners", "values", "above_zero")

    def __init__(
        self,
        shape: tuple[int, int],
        by_rows: bool,
        best: Floats,
        lines: Indices,
        partners: Indices,
        values: Floats,
        above_zero: tuple[Indices, Floats] | None,
    ) -> None:
        self.shape, self.by_rows, self.best = shape, by_rows, best
        self.lines, self.partners, self.values = lines, partners, values
        self.above_zero = above_zero

    def cells(self) -> tuple[Indices, Indices, Floats]:
        """The cells above 0 as (expected index, actual index, score): the same bits as the
        whole matrix holds there."""
        flat, values = self.above_zero  # type: ignore[misc]
        line, other = np().divmod(flat, self.shape[1] if self.by_rows else self.shape[0])
        return (line, other, values) if self.by_rows else (other, line, values)


def _shortcut(found: _Scan, margin: float) -> list[tuple[int, int, float]] | None:
    """The pairs (expected, actual, score) scoring above 0 in the dense problem's optimum,
    when those are the same in every optimum (and in every pairing within ``margin`` of
    it), and found among each line's candidates; else None."""
    chosen = _solve_candidates(found.best, found.lines, found.partners, found.values, margin)
    if chosen is None or found.by_rows:
        return chosen
    return sorted((i, j, score) for j, i, score in chosen)


def _scan(scores: LineScores) -> _Scan | None:
    """One pass over the scores, a block of lines (of the shorter side) at a time: each
    line's best score and its candidates (every cell above 0 and within NEAR_BEST of that
    best), and every cell above 0 while they are few. None when the candidates are too
    many to be worth it."""
    n, m = scores.shape
    by_rows = n <= m
    lines, across = (n, m) if by_rows else (m, n)
    best = np().empty(lines)
    found: list[tuple[Indices, Indices, Floats]] = []
    kept: list[tuple[Indices, Floats]] | None = []
    count = kept_count = 0
    step = max(1, BLOCK_CELLS // max(across, 1))
    for start in range(0, lines, step):
        stop = min(lines, start + step)
        block = scores.rows(start, stop) if by_rows else scores.columns(start, stop).T
        top = block.max(axis=1)
        best[start:stop] = top
        # above 0 and within NEAR_BEST of the best: at least the smallest float above 0 and
        # top - NEAR_BEST, one comparison; flat indices, which NumPy finds many times
        # faster than (row, column) pairs
        floor = np().maximum(top - NEAR_BEST, _ABOVE_ZERO)[:, None]
        rows, cols = np().divmod(np().flatnonzero(block >= floor), block.shape[1])
        count += rows.size
        if count > MOST_CANDIDATES * lines:
            return None
        found.append((rows + start, cols, block[rows, cols]))
        if kept is not None:  # every cell above 0, while they are few: the dense
            positive = block > 0.0  # method's matrix, should it be needed (a boolean
            kept_count += np().count_nonzero(positive)  # mask: NumPy counts and finds
            if kept_count > _SPARSE_SHARE * stop * across:  # those far faster)
                kept = None
            else:
                flat = np().flatnonzero(positive)
                kept.append((flat + start * across, block.ravel()[flat]))
    above_zero = None
    if kept is not None:
        above_zero = (
            np().concatenate([flat for flat, _ in kept]),
            np().concatenate([values for _, values in kept]),
        )
    return _Scan(
        (n, m),  # type: ignore[call-arg]
        by_rows,
        best,
        *(np().concatenate(part) for part in zip(*found)),
        above_zero,
    )


# Above this share of cells scoring above 0, the scan stops keeping them, and the dense
# method, if needed, scores the whole matrix again and solves it as assignment.assign does.
_SPARSE_SHARE = 0.1


def _whole(scores: LineScores) -> Floats:
    """The whole matrix, filled a block of rows at a time (each cell the same bits as the
    matrix scored at once, with a block's temporaries instead of the matrix's)."""
    n, m = scores.shape
    matrix: Floats = np().empty((n, m))
    step = max(1, BLOCK_CELLS // max(m, 1))
    for start in range(0, n, step):
        matrix[start : start + step] = scores.rows(start, min(n, start + step))
    return matrix


def _solve_whole(matrix: Floats, minimize_distance: bool) -> list[tuple[int, int, float]]:
    """The dense method on the whole matrix: assignment.assign's pairs (every pair with its
    score, sorted); through _solve_cells when few cells score above 0. To maximise, the
    matrix is negated in place, which is what the solver's maximize does to a copy, and
    negating back is exact: one matrix, not two."""
    from scipy.optimize import linear_sum_assignment

    if np().count_nonzero(matrix) > _SPARSE_SHARE * matrix.size:
        if minimize_distance:
            return assignment.assign(matrix, -1.0, minimize_distance)[0]
        np().negative(matrix, out=matrix)
        rows, cols = linear_sum_assignment(matrix)
        return sorted(zip(rows.tolist(), cols.tolist(), (-matrix[rows, cols]).tolist()))
    rows, cols = np().nonzero(matrix)
    values, shape = matrix[rows, cols], matrix.shape
    del matrix  # the caller keeps no reference: one matrix at a time
    return _solve_cells(shape, rows, cols, values, minimize_distance)


def _solve_cells(
    shape: tuple[int, int],
    rows: Indices,
    cols: Indices,
    values: Floats,
    minimize_distance: bool,
) -> list[tuple[int, int, float]]:
    """assignment.assign's pairs for a matrix that scores above 0 only at these cells. The
    solver's own matrix is built directly, the same bits assignment.assign hands it (1 - score,
    1.0 elsewhere; or, to maximise, the scores negated, -0.0 elsewhere, as the solver's
    maximize negates them), and the chosen pairs' scores are read from the cells."""
    from scipy.optimize import linear_sum_assignment

    n, m = shape
    cost = np().full((n, m), 1.0 if minimize_distance else -0.0)
    cost[rows, cols] = 1.0 - values if minimize_distance else -values
    chosen_rows, chosen_cols = linear_sum_assignment(cost)
    del cost
    keys = rows * m + cols
    order = np().argsort(keys)
    keys, values = keys[order], values[order]
    wanted = chosen_rows * m + chosen_cols
    scores = np().zeros(wanted.size)  # a pair not among the cells scores 0
    if keys.size:
        at = np().minimum(np().searchsorted(keys, wanted), keys.size - 1)
        hit = keys[at] == wanted
        scores[hit] = values[at[hit]]
    return sorted(zip(chosen_rows.tolist(), chosen_cols.tolist(), scores.tolist()))


def _solve_candidates(
    best: Floats, lines: Indices, partners: Indices, values: Floats, margin: float
) -> list[tuple[int, int, float]] | None:
    """The best matching over the candidate cells (lines may stay unpaired), when it is the
    dense optimum's part above 0 and no other matching comes within ``margin`` of it."""
    if lines.size == 0:
        return []
    line_ids, line_at = np().unique(lines, return_inverse=True)
    partner_ids, partner_at = np().unique(partners, return_inverse=True)
    partner_of = _best_matching(line_at, partner_at, values, line_ids.size, partner_ids.size)
    graph = _Residual(line_at, partner_at, values, partner_of, partner_ids.size)
    prices = graph.prices()
    if prices is None:
        return None
    line_price = prices[: line_ids.size]
    # fact 3: a cell outside the candidates scores below its line's best - NEAR_BEST, so
    # when the line's price reaches that, using the cell costs more than the margin
    if np().any(line_price < best[line_ids] - NEAR_BEST + margin):
        return None
    if not graph.unique(prices, margin):  # fact 4
        return None
    chosen = np().flatnonzero(partner_of[line_at] == partner_at)
    return sorted(
        (int(line_ids[line_at[c]]), int(partner_ids[partner_at[c]]), float(values[c]))
        for c in chosen.tolist()
    )


def _best_matching(
    line_at: Indices, partner_at: Indices, values: Floats, n_lines: int, n_partners: int
) -> Indices:
    """Each line's partner in a best matching over the candidates (-1: unpaired), by
    scipy's sparse assignment solver, which wants a square problem every node of which is
    paired. The problem is doubled: the candidates, a mirror copy of them (partners as
    rows, lines as columns), and an edge from each node to its own copy, taken when it
    stays unpaired. Every perfect matching of the double is a matching and a mirrored one;
    the best is a best matching twice. Each of its L + P edges costs 2 less its score (2
    on an edge to a copy): all above 0, as the solver wants, and the least total is the
    largest score."""
    from scipy.sparse import coo_matrix
    from scipy.sparse.csgraph import min_weight_full_bipartite_matching

    size = n_lines + n_partners
    every_line, every_partner = np().arange(n_lines), np().arange(n_partners)
    rows = np().concatenate([line_at, n_lines + partner_at, every_line, n_lines + every_partner])
    cols = np().concatenate(
        [partner_at, n_partners + line_at, n_partners + every_line, every_partner]
    )
    costs = np().concatenate([2.0 - values, 2.0 - values, np().full(size, 2.0)])
    _, cols_of_rows = min_weight_full_bipartite_matching(
        coo_matrix((costs, (rows, cols)), shape=(size, size)).tocsr()
    )
    partner_of: Indices = cols_of_rows[:n_lines].astype(np().int64)
    partner_of[partner_of >= n_partners] = -1
    return partner_of


# A price is lowered only when a path improves it by more than this: rounding in the sums
# cannot then keep lowering prices around a cycle of cost 0, and the prices stay within
# this much per step of the exact ones, far below the margin.
_PRICE_TOLERANCE = 1e-14
# Arc scans allowed for the prices, per arc: beyond it, the dense method answers instead.
_PRICE_WORK = 40


class _Residual:
    """The residual graph of a matching over the candidates, in which every cycle is a
    way to change the matching, and its cost what the change loses.

    Nodes: the lines (0..L-1), the partners (L..L+P-1) and one more node, ``free``. Arcs:
    line -> partner for a cell not chosen (cost -score: taking it), partner -> line for a
    chosen cell (+score: giving it up); free -> an unpaired line and a paired line -> free
    (a line may start or stop being paired at no cost); free -> a paired partner and an
    unpaired partner -> free (the same for partners). Each line's and partner's price is
    its shortest distance from ``free``; with them every arc's reduced cost (cost + price
    of its tail - price of its head) is at least 0, and the line prices and the partners'
    negated prices are a solution of the assignment's dual: the largest line prices any
    solution has.
    """

    def __init__(
        self,
        line_at: Indices,
        partner_at: Indices,
        values: Floats,
        partner_of: Indices,
        n_partners: int,
    ) -> None:
        n_lines = partner_of.size
        self.free = free = n_lines + n_partners
        chosen = partner_of[line_at] == partner_at
        lines, partners = line_at, n_lines + partner_at
        paired = partner_of >= 0
        partner_taken = np().zeros(n_partners, dtype=bool)
        partner_taken[partner_of[paired]] = True
        every_line, every_partner = np().arange(n_lines), n_lines + np().arange(n_partners)
        # the arcs of the residual graph ...
        self.tails = np().concatenate(
            [
                np().where(chosen, partners, lines),
                np().where(paired, every_line, free),
                np().where(partner_taken, free, every_partner),
            ]
        )
        self.heads = np().concatenate(
            [
                np().where(chosen, lines, partners),
                np().where(paired, free, every_line),
                np().where(partner_taken, every_partner, free),
            ]
        )
        self.costs = np().concatenate(
            [np().where(chosen, values, -values), np().zeros(n_lines + n_partners)]
        )
        # ... and, for the prices only, the arcs that keep them a dual solution (prices of
        # lines at least 0, of partners at most 0): each unpaired line -> free, free -> each
        # unpaired partner. Each closes only a cycle of cost 0 that changes nothing.
        lone_lines, lone_partners = every_line[~paired], every_partner[~partner_taken]
        self.price_tails = np().concatenate(
            [self.tails, lone_lines, np().full(lone_partners.size, free)]
        )
        self.price_heads = np().concatenate(
            [self.heads, np().full(lone_lines.size, free), lone_partners]
        )
        self.price_costs = np().concatenate(
            [self.costs, np().zeros(lone_lines.size + lone_partners.size)]
        )

    def prices(self) -> Floats | None:
        """Every node's shortest distance from ``free`` (queue-based Bellman-Ford); None
        when the work runs past its allowance (a negative cycle: the matching was not
        optimal, or a tie that rounding makes one)."""
        nodes = self.free + 1
        order = np().argsort(self.price_tails, kind="stable")
        first = np().searchsorted(self.price_tails[order], np().arange(nodes + 1)).tolist()
        heads = self.price_heads[order].tolist()
        costs = self.price_costs[order].tolist()
        price = [float("inf")] * nodes
        price[self.free] = 0.0
        waiting = [False] * nodes
        queue = deque([self.free])
        allowance = _PRICE_WORK * len(heads) + nodes
        while queue:
            tail = queue.popleft()
            waiting[tail] = False
            base = price[tail]
            allowance -= first[tail + 1] - first[tail] + 1
            if allowance < 0:
                return None
            for arc in range(first[tail], first[tail + 1]):
                head = heads[arc]
                through = base + costs[arc]
                if through < price[head] - _PRICE_TOLERANCE:
                    price[head] = through
                    if not waiting[head]:
                        waiting[head] = True
                        queue.append(head)
        prices: Floats = np().array(price)
        return prices

    def unique(self, prices: Floats, margin: float) -> bool:
        """Whether every cycle of the residual graph costs more than ``margin``: no other
        matching over the candidates comes that close. A cycle's cost is the sum of its
        arcs' reduced costs, so a cycle within the margin runs over arcs of reduced cost
        within it only; none of those forming a cycle settles it."""
        from scipy.sparse import coo_matrix
        from scipy.sparse.csgraph import connected_components

        reduced = self.costs + prices[self.tails] - prices[self.heads]
        near = reduced <= margin
        nodes = self.free + 1
        graph = coo_matrix(
            (np().ones(int(near.sum())), (self.tails[near], self.heads[near])), shape=(nodes, nodes)
        )
        count, _ = connected_components(graph, directed=True, connection="strong")
        return bool(count == nodes)
