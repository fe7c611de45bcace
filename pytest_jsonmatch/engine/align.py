"""Array alignment: which expected element goes with which actual element.

Three strategies: by index (``ordered``), by a key field, and by optimal assignment over a
pair-score matrix. The matrix is built one flattened field (column) at a time, each column
scored for every pair in one vectorised comparator call, then a single
``linear_sum_assignment`` picks the pairs; there is no size cap.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from .values import canonical_key

try:  # compiled where the machine could build it (setup.py): the same answers, sooner
    from . import _pair_kernel as pair_kernel
except ImportError:  # pragma: no cover - a machine without a C compiler
    pair_kernel = None  # type: ignore[assignment]

Pairs = list[tuple[int, int]]
LeafMatrix = Callable[[str, list[Any], list[Any]], Any]


def ordered_pairs(n_expected: int, n_actual: int) -> tuple[Pairs, list[int], list[int]]:
    """Pairs by index; surplus elements on either side stay unpaired."""
    common = min(n_expected, n_actual)
    return ([(i, i) for i in range(common)], list(range(common, n_expected)),
            list(range(common, n_actual)))


def _key_value(element: Any, key: str) -> Any:
    """The element's key as a hashable value, or None when it has no usable key (not an
    object, no such field, or a value that is not a string or a number)."""
    if not isinstance(element, dict) or key not in element:
        return None
    value = element[key]
    if isinstance(value, bool) or not isinstance(value, (str, int, float)):
        return None
    return canonical_key(value)


def key_field_pairs(expected: Sequence[Any], actual: Sequence[Any], key: str
                    ) -> tuple[Pairs, list[int], list[int]]:
    """Pair elements whose ``key`` fields are equal; the first element with a given key wins
    and later duplicates stay unpaired."""
    by_key: dict[Any, int] = {}
    unkeyed_actual: list[int] = []
    for j, element in enumerate(actual):
        kv = _key_value(element, key)
        if kv is None or kv in by_key:
            unkeyed_actual.append(j)
        else:
            by_key[kv] = j
    pairs: Pairs = []
    lone_expected: list[int] = []
    seen: set[Any] = set()
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


def identical_pairs(expected: Sequence[Any], actual: Sequence[Any]
                    ) -> tuple[list[tuple[int, int, float]], list[int], list[int]] | None:
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
    waiting: dict[Any, list[int]] = {}
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


def dominant_pairs(rows: list[list[float]], margin: float = DOMINANCE_MARGIN
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
        best = max(line)
        at = line.index(best)
        if at in taken or (len(line) > 1 and sorted(line)[-2] > best - margin):
            return None
        taken.add(at)
        chosen.append((k, at, best) if n <= m else (at, k, best))
    if n > m:
        chosen.sort()
    return chosen


def assign(scores: Any, keep_above: float, minimize_distance: bool = False, scale: float = 1.0
           ) -> tuple[list[tuple[int, int, float]], list[int], list[int]]:
    """Optimal one-to-one pairing maximising the total score; pairs scoring ``keep_above``
    or less are dropped. ``scores`` is a matrix, or a list of rows (small arrays) holding
    the scores times ``scale`` (see pair_matrix_small), which are first tried with
    ``dominant_pairs``. ``minimize_distance`` solves on ``1 - score`` (structeval's form,
    which breaks ties the same way it does)."""
    chosen = None
    if isinstance(scores, list):
        find = pair_kernel.dominant_pairs if pair_kernel is not None else dominant_pairs
        chosen = find(scores, DOMINANCE_MARGIN * scale)
        n = len(scores)
        m = len(scores[0]) if n else 0
        if chosen is not None and scale != 1.0:
            chosen = [(i, j, total / scale) for i, j, total in chosen]
        if chosen is None and n and m:
            import numpy as np

            scores = np.array(scores, dtype=float)
            if scale != 1.0:
                scores /= scale
    else:
        n, m = scores.shape
    if n == 0 or m == 0:
        return [], list(range(n)), list(range(m))
    if chosen is None:
        from scipy.optimize import linear_sum_assignment

        if minimize_distance:
            rows, cols = linear_sum_assignment(1.0 - scores)
        else:
            rows, cols = linear_sum_assignment(scores, maximize=True)
        chosen = [(int(i), int(j), float(scores[i, j])) for i, j in zip(rows, cols)]
        chosen.sort()
    kept = [pair for pair in chosen if pair[2] > keep_above]
    paired_e = {i for i, _, _ in kept}
    paired_a = {j for _, j, _ in kept}
    return kept, [i for i in range(n) if i not in paired_e], [j for j in range(m) if j not in paired_a]


# Elements as columns: each field's (element indices, values), and each element's count of
# fields.
Column = tuple[list[int], list[Any]]
Columns = tuple[dict[str, Column], list[int]]


def columns(flat: Sequence[dict[str, Any]]) -> Columns:
    """Flattened elements ({field: value} each) as columns. Elements with the same fields
    in the same order, the usual case, transpose in one step."""
    sizes = [len(element) for element in flat]
    if flat:
        keys = list(flat[0])
        for element in flat:
            if len(element) != len(keys) or list(element) != keys:
                break
        else:
            index = list(range(len(flat)))  # shared by the columns: read, never changed
            return {key: (index, list(values))
                    for key, values in zip(keys, zip(*[element.values() for element in flat]))}, sizes
    cols: dict[str, Column] = {}
    for i, element in enumerate(flat):
        for path, value in element.items():
            col = cols.get(path)
            if col is None:
                col = cols[path] = ([], [])
            col[0].append(i)
            col[1].append(value)
    return cols, sizes


def _uniform(sizes: list[int], k: int) -> bool:
    return sizes.count(k) == len(sizes)


def _pair_value(tp: float, both: int, n_e: int, n_a: int, mode: str) -> float:
    if mode == "similarity":
        union = n_e + n_a - both
        return tp / union if union else 1.0
    precision = tp / n_a if n_a else 1.0
    recall = tp / n_e if n_e else 1.0
    total = precision + recall
    return 2 * precision * recall / total if total > 0 else 0.0


ColumnAdd = Callable[[str, list[int], list[Any], list[int], list[Any], list[list[float]]], None]


def pair_matrix_small(expected: Columns, actual: Columns, column_add: ColumnAdd, mode: str
                      ) -> tuple[list[list[float]], float]:
    """``pair_matrix`` for a few elements, in plain Python: ``(rows, scale)``, the pair
    scores times ``scale`` as a list of rows. Column by column,
    ``column_add(field, rows, values, cols, values, tp)`` adds the field's pair scores into
    ``tp``. When every element has the same k fields, every score is its sum over k: the
    sums are returned with scale k, and only the pairs chosen are divided (same numbers)."""
    (e_cols, e_sizes), (a_cols, a_sizes) = expected, actual
    n, m = len(e_sizes), len(a_sizes)
    tp = [[0.0] * m for _ in range(n)]
    shared = 0  # fields every element on both sides has
    partial: list[tuple[list[int], list[int]]] = []
    for rel, (ie, ve) in e_cols.items():
        a_col = a_cols.get(rel)
        if a_col is None:
            continue
        ia, va = a_col
        if len(ie) == n and len(ia) == m:
            shared += 1
        else:
            partial.append((ie, ia))
        column_add(rel, ie, ve, ia, va, tp)
    if not partial and shared:
        if _uniform(e_sizes, shared) and _uniform(a_sizes, shared):
            return tp, float(shared)  # similarity and F1 are both tp / k
        if mode == "similarity":  # every pair has the same fields in common: the union is
            # size_e + size_a - shared, and never 0
            return [[t / (extra + size_a) for t, size_a in zip(tp_row, a_sizes)]
                    for tp_row, extra in zip(tp, [size - shared for size in e_sizes])], 1.0
    both = [[shared] * m for _ in range(n)]  # fields the pair has in common
    for ie, ia in partial:
        for i in ie:
            row = both[i]
            for j in ia:
                row[j] += 1
    if mode == "similarity":  # the mean over the union, written out: a call per pair adds up
        return [[t / union if (union := size_e + size_a - b) else 1.0
                 for t, b, size_a in zip(tp_row, both_row, a_sizes)]
                for tp_row, both_row, size_e in zip(tp, both, e_sizes)], 1.0
    return [[_pair_value(t, b, size_e, size_a, mode) for t, b, size_a in zip(tp_row, both_row, a_sizes)]
            for tp_row, both_row, size_e in zip(tp, both, e_sizes)], 1.0


def pair_matrix(expected: Columns, actual: Columns, leaf_matrix: LeafMatrix, mode: str) -> Any:
    """Score every (expected, actual) element pair from their flattened fields.

    ``mode="similarity"``: the mean leaf score over the union of the pair's field paths
    (0 where one side lacks a path; 1 for two elements without fields).
    ``mode="f1"``: the F1 of the pair, with precision over the actual element's fields and
    recall over the expected element's (1 for two elements without fields).
    """
    import numpy as np

    (e_cols, e_sizes), (a_cols, a_sizes) = expected, actual
    n, m = len(e_sizes), len(a_sizes)
    tp: Any = None
    shared = 0
    partial_both = None
    for path, (ie, ve) in e_cols.items():
        a_col = a_cols.get(path)
        if a_col is None:
            continue
        ia, va = a_col
        block = np.asarray(leaf_matrix(path, ve, va), dtype=float)
        if len(ie) == n and len(ia) == m:
            shared += 1
            if tp is None:
                tp = block.copy() if block.base is not None or not block.flags.writeable else block
            else:
                tp += block
            continue
        if tp is None:
            tp = np.zeros((n, m))
        if partial_both is None:
            partial_both = np.zeros((n, m))
        idx = np.ix_(np.asarray(ie), np.asarray(ia))  # arrays: ix_ on lists is 10x slower
        tp[idx] += block
        partial_both[idx] += 1.0
    if tp is None:
        tp = np.zeros((n, m))
    if partial_both is None and shared and _uniform(e_sizes, shared) and _uniform(a_sizes, shared):
        # same k fields on every element: similarity and F1 are both tp / k
        tp /= shared
        return tp
    both = partial_both if partial_both is not None else np.zeros((n, m))
    if shared:
        both += shared
    e_count = np.array(e_sizes, dtype=float)[:, None]
    a_count = np.array(a_sizes, dtype=float)[None, :]
    # in place, few temporaries: these matrices can hold tens of millions of pairs
    if mode == "similarity":
        union = both
        np.subtract(e_count + a_count, both, out=union)
        empty = union == 0
        np.divide(tp, union, out=tp, where=~empty)
        tp[empty] = 1.0
        return tp
    precision = np.divide(tp, a_count, out=np.ones((n, m)), where=a_count > 0)
    recall = np.divide(tp, e_count, out=np.ones((n, m)), where=e_count > 0)
    total = precision + recall
    np.multiply(precision, recall, out=precision)
    precision *= 2
    return np.divide(precision, total, out=np.zeros((n, m)), where=total > 0)
