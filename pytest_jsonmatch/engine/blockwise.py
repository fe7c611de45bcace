"""Optimal pairing of large arrays, a block of pair scores at a time.

The dense method scores every (expected, actual) pair into one matrix and hands it to an
assignment solver: 8 bytes a pair, several times that with temporaries, so 10,000 elements
a side take gigabytes. Here the scores come a block of lines at a time (LineScores, lines
of the shorter side), and each line keeps its best score and its candidates: the cells that
score above 0 and within NEAR_BEST of that best. The best matching over the candidates is
found group by group (lines linked by shared candidates), and it is returned only when it
is provably the dense method's answer: no pairing that leaves the candidates can come
within NEAR_BEST of it, and within each group no other matching comes within ``margin``
(docs/performance.md, "Why the pruning is exact"). Otherwise the whole matrix is built and
solved as for any array: the same answer at the dense method's cost. Nothing cheaper and
different is ever returned.
"""

from __future__ import annotations

from typing import Any

from . import align
from .all_pairs import np
from .pair_scores import LineScores

# Cells of one block of scores (float64: 64 MB; what is prepared once per block, the other
# side's values among it, is then paid a dozen times for 10,000 x 10,000, not fifty).
BLOCK_CELLS = 8_000_000
# A line's candidates: the cells within this of its best score.
NEAR_BEST = 0.1
# Candidates per line, on average, beyond which the dense method is cheaper.
MOST_CANDIDATES = 32
# Lines in one connected group of candidates, beyond which the dense method is used (a
# group's uniqueness check solves it once per line).
MOST_IN_GROUP = 60


def assign_large(scores: LineScores, keep_above: float, minimize_distance: bool = False
                 ) -> align.Assignment:
    """As :func:`align.assign` on ``scores.whole()``, without building it when the optimum
    is clear line by line."""
    n, m = scores.shape
    chosen = unique_optimum(scores, align.DOMINANCE_MARGIN)
    if chosen is None:
        return align.assign(scores.whole(), keep_above, minimize_distance)
    kept = [pair for pair in chosen if pair[2] > keep_above]
    paired_e = {i for i, _, _ in kept}
    paired_a = {j for _, j, _ in kept}
    return kept, [i for i in range(n) if i not in paired_e], [j for j in range(m) if j not in paired_a]


def unique_optimum(scores: LineScores, margin: float) -> list[tuple[int, int, float]] | None:
    """The pairs (expected, actual, score) scoring above 0 in the dense problem's optimum,
    when those are the same in every optimum (and in every pairing within ``margin`` of
    it), and found among each line's candidates; else None."""
    n, m = scores.shape
    by_rows = n <= m
    near = _near_best(scores, by_rows)
    if near is None:
        return None
    best, lines, partners, values = near
    chosen = _solve_candidates(best, lines, partners, values, margin)
    if chosen is None:
        return None
    if by_rows:
        return chosen
    return sorted((i, j, score) for j, i, score in chosen)


def _near_best(scores: LineScores, by_rows: bool) -> tuple[Any, Any, Any, Any] | None:
    """Each line's best score, and its candidates as three arrays (line, partner, score):
    every cell above 0 and within NEAR_BEST of its line's best. None when the candidates
    are too many to be worth it."""
    n, m = scores.shape
    lines, across = (n, m) if by_rows else (m, n)
    best = np().empty(lines)
    found: list[tuple[Any, Any, Any]] = []
    count = 0
    step = max(1, BLOCK_CELLS // max(across, 1))
    for start in range(0, lines, step):
        stop = min(lines, start + step)
        block = scores.rows(start, stop) if by_rows else scores.columns(start, stop).T
        top = block.max(axis=1)
        best[start:stop] = top
        rows, cols = np().nonzero((block >= (top - NEAR_BEST)[:, None]) & (block > 0.0))
        count += rows.size
        if count > MOST_CANDIDATES * lines:
            return None
        found.append((rows + start, cols, block[rows, cols]))
    return (best, *(np().concatenate(part) for part in zip(*found)))


def _solve_candidates(best: Any, lines: Any, partners: Any, values: Any, margin: float
                      ) -> list[tuple[int, int, float]] | None:
    """The best matching over the candidate cells (lines may stay unpaired), when it is the
    dense optimum's part above 0 and no other matching comes within ``margin`` of it."""
    from scipy.sparse import coo_matrix
    from scipy.sparse.csgraph import connected_components

    if lines.size == 0:
        return []
    # lines and partners as the nodes of one graph: line k is node k, partner j node L + j
    size = best.size + int(partners.max()) + 1
    graph = coo_matrix((np().ones(lines.size), (lines, best.size + partners)), shape=(size, size))
    _, label = connected_components(graph, directed=False)
    chosen: list[tuple[int, int, float]] = []
    order = np().argsort(label[lines], kind="stable")
    groups = np().split(order, np().flatnonzero(np().diff(label[lines][order])) + 1)
    total = 0.0
    for group in groups:
        found = _component_optimum(lines[group], partners[group], values[group], margin)
        if found is None:
            return None
        chosen.extend(found)
        total += sum(score for _, _, score in found)
    # a matching that uses a cell outside the candidates loses more than NEAR_BEST on that
    # line against the sum of every line's best: it must fall short of ours by ``margin``
    if best[best > 0].sum() - total + margin >= NEAR_BEST:
        return None
    return sorted(chosen)


def _component_optimum(lines: Any, partners: Any, values: Any, margin: float
                       ) -> list[tuple[int, int, float]] | None:
    """The best matching of one connected group of candidates (a line may stay unpaired),
    when unique by more than ``margin``."""
    if lines.size == 1:  # one line, one partner: the usual case
        if values[0] <= margin:
            return None
        return [(int(lines[0]), int(partners[0]), float(values[0]))]
    row_of = {line: k for k, line in enumerate(np().unique(lines).tolist())}
    col_of = {partner: k for k, partner in enumerate(np().unique(partners).tolist())}
    if len(row_of) > MOST_IN_GROUP:
        return None
    # one column per partner, then one per line meaning "unpaired" (cost 0, open to every
    # line); a cell that is not a candidate is not allowed (inf)
    cost = np().full((len(row_of), len(col_of) + len(row_of)), np().inf)
    cost[:, len(col_of):] = 0.0
    cost[[row_of[x] for x in lines.tolist()], [col_of[y] for y in partners.tolist()]] = -values
    rows, cols, value = _solve(cost)
    chosen = [(r, c) for r, c in zip(rows.tolist(), cols.tolist()) if c < len(col_of)]
    for r, c in chosen:  # unique: without any one chosen cell, every matching is worse
        saved, cost[r, c] = cost[r, c], np().inf
        other = _solve(cost)[2]
        cost[r, c] = saved
        if other - value <= margin:
            return None
    lines_of, partners_of = list(row_of), list(col_of)
    return [(lines_of[r], partners_of[c], -float(cost[r, c])) for r, c in chosen]


def _solve(cost: Any) -> tuple[Any, Any, float]:
    """linear_sum_assignment on ``cost`` (inf: not allowed; every row has a finite cell),
    with its total."""
    from scipy.optimize import linear_sum_assignment

    rows, cols = linear_sum_assignment(cost)
    return rows, cols, float(cost[rows, cols].sum())
