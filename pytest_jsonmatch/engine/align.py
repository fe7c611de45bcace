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


def assign(scores: Any, keep_above: float, minimize_distance: bool = False
           ) -> tuple[list[tuple[int, int, float]], list[int], list[int]]:
    """Optimal one-to-one pairing maximising the total score; pairs scoring ``keep_above``
    or less are dropped. ``minimize_distance`` solves on ``1 - score`` (structeval's form,
    which breaks ties the same way it does)."""
    n, m = scores.shape
    if n == 0 or m == 0:
        return [], list(range(n)), list(range(m))
    from scipy.optimize import linear_sum_assignment

    if minimize_distance:
        rows, cols = linear_sum_assignment(1.0 - scores)
    else:
        rows, cols = linear_sum_assignment(scores, maximize=True)
    kept = [(int(i), int(j), float(scores[i, j])) for i, j in zip(rows, cols) if scores[i, j] > keep_above]
    kept.sort()
    paired_e = {i for i, _, _ in kept}
    paired_a = {j for _, j, _ in kept}
    return kept, [i for i in range(n) if i not in paired_e], [j for j in range(m) if j not in paired_a]


def _columns(flat: Sequence[dict[str, Any]]) -> dict[str, tuple[list[int], list[Any]]]:
    cols: dict[str, tuple[list[int], list[Any]]] = {}
    for i, element in enumerate(flat):
        for path, value in element.items():
            col = cols.get(path)
            if col is None:
                col = cols[path] = ([], [])
            col[0].append(i)
            col[1].append(value)
    return cols


def _pair_value(tp: float, both: int, n_e: int, n_a: int, mode: str) -> float:
    if mode == "similarity":
        union = n_e + n_a - both
        return tp / union if union else 1.0
    precision = tp / n_a if n_a else 1.0
    recall = tp / n_e if n_e else 1.0
    total = precision + recall
    return 2 * precision * recall / total if total > 0 else 0.0


ColumnAdd = Callable[[str, list[int], list[Any], list[int], list[Any], list[list[float]]], None]


def pair_matrix_small(expected_flat: Sequence[dict[str, Any]], actual_flat: Sequence[dict[str, Any]],
                      column_add: ColumnAdd, mode: str) -> Any:
    """``pair_matrix`` for a few elements, in plain Python (same numbers): column by column,
    ``column_add(field, rows, values, cols, values, tp)`` adding the field's pair scores
    into ``tp``."""
    import numpy as np

    n, m = len(expected_flat), len(actual_flat)
    tp = [[0.0] * m for _ in range(n)]
    both = [[0] * m for _ in range(n)]
    a_cols = _columns(actual_flat)
    for rel, (ie, ve) in _columns(expected_flat).items():
        a_col = a_cols.get(rel)
        if a_col is None:
            continue
        ia, va = a_col
        for i in ie:
            both_row = both[i]
            for j in ia:
                both_row[j] += 1
        column_add(rel, ie, ve, ia, va, tp)
    rows = [[_pair_value(tp[i][j], both[i][j], len(fe), len(fa), mode)
             for j, fa in enumerate(actual_flat)] for i, fe in enumerate(expected_flat)]
    return np.array(rows, dtype=float).reshape(n, m)


def pair_matrix(expected_flat: Sequence[dict[str, Any]], actual_flat: Sequence[dict[str, Any]],
                leaf_matrix: LeafMatrix, mode: str) -> Any:
    """Score every (expected, actual) element pair from their flattened fields.

    ``mode="similarity"``: the mean leaf score over the union of the pair's field paths
    (0 where one side lacks a path; 1 for two elements without fields).
    ``mode="f1"``: the F1 of the pair, with precision over the actual element's fields and
    recall over the expected element's (1 for two elements without fields).
    """
    import numpy as np

    n, m = len(expected_flat), len(actual_flat)
    e_cols, a_cols = _columns(expected_flat), _columns(actual_flat)
    tp: Any = None
    full = True  # every element on both sides has every column: the arithmetic simplifies
    partial_both = None
    for path, (ie, ve) in e_cols.items():
        a_col = a_cols.get(path)
        if a_col is None:
            full = False
            continue
        ia, va = a_col
        block = np.asarray(leaf_matrix(path, ve, va), dtype=float)
        if len(ie) == n and len(ia) == m:
            if tp is None:
                tp = block.copy() if block.base is not None or not block.flags.writeable else block
            else:
                tp += block
            continue
        full = False
        if tp is None:
            tp = np.zeros((n, m))
        if partial_both is None:
            partial_both = np.zeros((n, m))
        idx = np.ix_(np.asarray(ie), np.asarray(ia))  # arrays: ix_ on lists is 10x slower
        tp[idx] += block
        partial_both[idx] += 1.0
    if tp is None:
        tp = np.zeros((n, m))
    columns = len(e_cols)
    if full and len(a_cols) == columns and columns:
        # same k fields on every element: similarity and F1 are both tp / k
        tp /= columns
        return tp
    full_columns = sum(1 for p, (ie, _) in e_cols.items()
                       if len(ie) == n and p in a_cols and len(a_cols[p][0]) == m)
    both = partial_both if partial_both is not None else np.zeros((n, m))
    if full_columns:
        both += full_columns
    e_count = np.array([len(d) for d in expected_flat], dtype=float)[:, None]
    a_count = np.array([len(d) for d in actual_flat], dtype=float)[None, :]
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
