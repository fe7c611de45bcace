"""Array alignment: which expected element goes with which actual element.

Three strategies: by index (``ordered``), by a key field, and by optimal assignment over
pair scores (pair_scores.py builds them). An assignment has no size cap; before a solver
runs, two exact shortcuts are tried: every element of the shorter side has an identical
partner, or a partner that clearly dominates all its other candidates.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import TYPE_CHECKING, TypeAlias, cast

from ..core.values import JsonValue, canonical_key
from . import small_assignment as small

if TYPE_CHECKING:
    import numpy
    from numpy.typing import NDArray

# A matrix of pair scores (or a line of them), and an array of element indices (numpy).
Floats: TypeAlias = "NDArray[numpy.float64]"
Indices: TypeAlias = "NDArray[numpy.intp]"

Pairs = list[tuple[int, int]]
# pairs with their scores, and the elements of each side left unpaired
Assignment = tuple[list[tuple[int, int, float]], list[int], list[int]]


def ordered_pairs(n_expected: int, n_actual: int) -> tuple[Pairs, list[int], list[int]]:
    """Pairs by index; surplus elements on either side stay unpaired."""
    common = min(n_expected, n_actual)
    return (
        [(i, i) for i in range(common)],
        list(range(common, n_expected)),
        list(range(common, n_actual)),
    )


def _key_value(element: JsonValue, key: str) -> object:
    """The element's key as a hashable value, or None when it has no usable key (not an
    object, no such field, or a value that is not a string or a number)."""
    if not isinstance(element, dict) or key not in element:
        return None
    value = element[key]
    if isinstance(value, bool) or not isinstance(value, (str, int, float)):
        return None
    return canonical_key(value)


def key_field_pairs(
    expected: Sequence[JsonValue], actual: Sequence[JsonValue], key: str
) -> tuple[Pairs, list[int], list[int]]:
    """Pair elements whose ``key`` fields are equal; the first element with a given key wins
    and later duplicates stay unpaired."""
    by_key: dict[object, int] = {}
    unkeyed_actual: list[int] = []
    for j, element in enumerate(actual):
        kv = _key_value(element, key)
        if kv is None or kv in by_key:
            unkeyed_actual.append(j)
        else:
            by_key[kv] = j
    pairs: Pairs = []
    lone_expected: list[int] = []
    seen: set[object] = set()
    used: set[int] = set()
    for i, element in enumerate(expected):
        kv = _key_value(element, key)
        partner: int | None = None if kv is None or kv in seen else by_key.get(kv)
        if kv is not None:
            seen.add(kv)
        if partner is None:
            lone_expected.append(i)
        else:
            pairs.append((i, partner))
            used.add(partner)
    lone_actual = [j for j in by_key.values() if j not in used] + unkeyed_actual
    return pairs, lone_expected, lone_actual


def identical_pairs(
    expected: Sequence[JsonValue], actual: Sequence[JsonValue]
) -> Assignment | None:
    """Pairs of identical elements, when every element of the shorter array has an identical
    partner (first unused one, in order); None otherwise.

    When a pair scores at most 1 and identical elements score exactly 1, such a pairing
    reaches the largest total an assignment can: it is optimal, and no matrix is needed.
    """
    if len(expected) > len(actual):
        flipped = identical_pairs(actual, expected)
        if flipped is None:
            return None
        kept, lone_a, lone_e = flipped
        return sorted((i, j, score) for j, i, score in kept), lone_e, lone_a
    for element in expected[:4]:  # a cheap necessary condition first, kept O(n): an
        if element not in actual:  # equal (==) partner for the first few elements
            return None
    waiting: dict[Hashable, list[int]] = {}
    for j in range(len(actual) - 1, -1, -1):  # reversed, so that pop() gives the first
        waiting.setdefault(canonical_key(actual[j]), []).append(j)
    kept = []
    for i, element in enumerate(expected):
        partners = waiting.get(canonical_key(element))
        if not partners:
            return None
        kept.append((i, partners.pop(), 1.0))
    used = {j for _, j, _ in kept}
    return kept, [], [j for j in range(len(actual)) if j not in used]


# How far a pair must stand above every rival for the pairing to be taken without a solver:
# far beyond the rounding a solver's sums can carry, so that it could not choose otherwise.
DOMINANCE_MARGIN = 1e-9


def dominant_pairs(
    rows: list[list[float]], margin: float = DOMINANCE_MARGIN
) -> list[tuple[int, int, float]] | None:
    """The optimal pairing, when every element of the shorter side has one partner that
    scores strictly above all its other candidates (by more than ``margin``) and no two
    share that partner; else None.

    No pairing can total more than the sum of those maxima, and this one reaches it while
    every other pairing loses something: it is the unique optimum, the one any exact
    assignment solver returns. A few elements, each with a clear match, is the common case.
    """
    n = len(rows)
    m = len(rows[0]) if n else 0
    lines = rows if n <= m else [list(column) for column in zip(*rows)]
    chosen: list[tuple[int, int, float]] = []
    taken: set[int] = set()
    for k, line in enumerate(lines):
        if len(line) > 1:  # (the best and the runner-up from one sort)
            ordered = sorted(line)
            best = ordered[-1]
            if ordered[-2] > best - margin:
                return None  # (a tie, or a rival within the margin: the unique best is max's)
        else:
            best = line[0]
        at = line.index(best)
        if at in taken:
            return None
        taken.add(at)
        chosen.append((k, at, best) if n <= m else (at, k, best))
    if n > m:
        chosen.sort()
    return chosen


# The largest table (cells) solved in plain Python (small_assignment.solved, SciPy's pairs):
# a larger one goes to SciPy, whose set-up then costs little beside its search
PLAIN_CELLS = 64


def assign(
    scores: list[list[float]] | Floats,
    keep_above: float,
    minimize_distance: bool = False,
    scale: float = 1.0,
) -> Assignment:
    """Optimal one-to-one pairing maximising the total score; pairs scoring ``keep_above``
    or less are dropped. ``scores`` is a matrix, or a list of rows (small arrays) holding
    the scores times ``scale`` (see pair_matrix_small), which are first tried with
    ``dominant_pairs``; a table of up to ``PLAIN_CELLS`` cells is then solved in plain
    Python, SciPy's pairs (small_assignment.py), a larger one by SciPy.
    ``minimize_distance`` solves on ``1 - score`` (structeval's form, which breaks ties
    the same way it does)."""
    chosen = None
    if isinstance(scores, list):
        chosen = dominant_pairs(scores, DOMINANCE_MARGIN * scale)
        n = len(scores)
        m = len(scores[0]) if n else 0
        if chosen is not None and scale != 1.0:
            chosen = [(i, j, total / scale) for i, j, total in chosen]
        if chosen is None and n == m == 2 and small.PURE_PYTHON:
            chosen = small.two_by_two(scores, scale, minimize_distance)  # (SciPy's pairs)
        elif chosen is None and n and m:
            if small.PURE_PYTHON and n * m <= PLAIN_CELLS:  # (SciPy's pairs, in plain Python)
                return kept_pairs(small.solved(scores, scale, minimize_distance), n, m, keep_above)
            import numpy as np

            scores = np.array(scores, dtype=float)
            if scale != 1.0:
                scores /= scale
    else:
        n, m = scores.shape
    if n == 0 or m == 0:
        return [], list(range(n)), list(range(m))
    if chosen is None:  # (a list of rows was made a matrix above)
        chosen = _solver_pairs(cast("Floats", scores), minimize_distance)
    return kept_pairs(chosen, n, m, keep_above)


def _solver_pairs(matrix: Floats, minimize_distance: bool) -> list[tuple[int, int, float]]:
    """SciPy's optimal pairs of a matrix of scores, each with its score, in row order."""
    from scipy.optimize import linear_sum_assignment

    if minimize_distance:
        rows, cols = linear_sum_assignment(1.0 - matrix)
    else:
        rows, cols = linear_sum_assignment(matrix, maximize=True)
    return sorted((int(i), int(j), float(matrix[i, j])) for i, j in zip(rows, cols))


def kept_pairs(
    chosen: list[tuple[int, int, float]], n: int, m: int, keep_above: float
) -> Assignment:
    """The chosen pairs scoring above ``keep_above``, and the elements of each side (``n``
    expected, ``m`` actual) left without one."""
    for pair in chosen:  # (the common case, every pair kept, without a new list)
        if pair[2] <= keep_above:
            kept = [pair for pair in chosen if pair[2] > keep_above]
            break
    else:
        kept = chosen
    if len(kept) == n == m:
        return kept, [], []  # every element paired: none left on either side
    paired_e = {i for i, _, _ in kept}
    paired_a = {j for _, j, _ in kept}
    return (
        kept,
        [i for i in range(n) if i not in paired_e],
        [j for j in range(m) if j not in paired_a],
    )
