"""Pair scores for array pairing: how well each expected element goes with each actual one.

The elements are taken apart into columns (columns.py) and each column is scored for every
pair in one call of its comparator's all-pairs form: a numpy matrix for large arrays, plain
Python rows (``add_scores``) for a few elements. A pair's score is then the mean leaf score
over the union of the two elements' fields (``similarity``, structeval's) or the pair's F1
(``f1``, Hungarian alignment). Elements that do not flatten into columns (nested arrays
with their own alignment, fields a batch judge scores) are scored by walking each pair, with
the function the walk passes in.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TypeAlias, cast

from ..comparing import all_pairs
from ..comparing.comparators import BoundComparator, score_at
from ..comparing.transforms import TransformFn, transformed
from ..configuring.walk_config import WalkConfig
from ..core.paths import index_segment, path_tokens
from ..core.slotted import HashedSlotted
from ..core.values import SCALAR_TYPES, TYPE_OF, JsonValue, json_type
from ..schemas.eval_schema import SchemaNode
from . import flat_similarity
from .assignment import Floats
from .columns import (
    Cell,
    Column,
    Columns,
    Kinds,
    Unknown,
    columns_between,
    f1_columns,
    similarity_columns,
)
from .pair_budget import TABLE_CELLS

# Up to this many element pairs, pair scores are computed in plain Python: for a handful of
# elements, numpy's cost per call is more than the arithmetic.
SMALL_PAIRS = 400

# Above this many element pairs (the table cap every pairing shares: pairing/__init__.py), pair
# scores are computed a block of lines at a time (LineScores)
LARGE_PAIRS = TABLE_CELLS
BLOCKWISE = True  # False: every array's pair scores are one matrix (the dense method's)

# A column's comparator and transform (None: the metric's per-type policy; no transform).
_Spec: TypeAlias = tuple[BoundComparator | None, TransformFn | None]
# Scores of one pair of elements: given their indices, the score of that pair.
WalkPair = Callable[[int, int], float]
# A pair-score matrix (numpy), for small arrays a list of rows, for large ones LineScores;
# and the scale the scores are multiplied by (see pair_matrix_small).
Scores: TypeAlias = "tuple[list[list[float]] | Floats | LineScores, float]"


def pair_scores(
    cfg: WalkConfig,
    path: str,
    items: SchemaNode | None,
    expected: Sequence[JsonValue],
    actual: Sequence[JsonValue],
    mode: str,
    walk_pair: WalkPair,
) -> Scores:
    """The len(expected) x len(actual) pair scores (``similarity`` or ``f1``), with their
    scale; ``walk_pair(i, j)`` scores one pair where columns cannot."""
    small = len(expected) * len(actual) <= SMALL_PAIRS
    if small and mode == "similarity" and expected and actual:
        flat = flat_similarity.similarity_rows(cfg, items, expected, actual)
        if flat is not None:  # objects of plain scalars: a whole pair at a time
            return flat
    scorer = ColumnScorer(cfg, path, items)
    found = scorer.columns(expected, actual)
    if found is not None:  # (its two columns not named: a frame of a deep value's recursion)
        if small:
            return pair_matrix_small(found[0], found[1], scorer.add, mode)
        if BLOCKWISE and len(expected) * len(actual) > LARGE_PAIRS:
            return LineScores(found[0], found[1], scorer.matrix, mode), 1.0
        return pair_matrix(found[0], found[1], scorer.matrix, mode), 1.0
    rows = [[walk_pair(i, j) for j in range(len(actual))] for i in range(len(expected))]
    if small:
        return rows, 1.0  # a list of rows: the solver is tried last (see align.assign)
    return all_pairs.np().array(rows, dtype=float), 1.0


class ColumnScorer:
    """Scores the columns of the elements of the array at ``path`` (schema ``items``)."""

    def __init__(self, cfg: WalkConfig, path: str, items: SchemaNode | None) -> None:
        self.cfg, self.path, self.items = cfg, path, items
        self.kinds: dict[str, Kinds] = {"expected": {}, "actual": {}}
        self.specs: dict[str, tuple[BoundComparator | None, TransformFn | None]] = {}
        self._sides: dict[tuple[str, int], tuple[list[Cell], _Side | None]] = {}
        self._skips: dict[str, bool] = {}  # per field of the elements: ignored or not

    def columns(
        self, expected: Sequence[JsonValue], actual: Sequence[JsonValue]
    ) -> tuple[Columns, Columns] | None:
        """Both sides' columns, each shared column's comparator resolved; None when the
        elements need a walk per pair (a rule naming one index, a batch comparator)."""
        cfg = self.cfg
        if any(
            rule.pattern.names_an_index() and rule.pattern.may_match_below(self.path)
            for rule in cfg.rules
        ):
            return None  # a rule for one index of these elements cannot be resolved per column
        if cfg.batch_policy:
            return None  # a judge scores a whole type of values: it must see them all at once
        skip = self._skipped if cfg.skip_patterns else None
        if skip is not None and skip(""):
            return None  # the elements themselves are ignored: each pair is walked, as they are
        if cfg.schema_driven:
            cols_e = f1_columns(expected, self.items, "expected", skip)
            cols_a = f1_columns(actual, self.items, "actual", skip) if cols_e is not None else None
            if cols_e is None or cols_a is None:
                return None
        else:
            cols_e = similarity_columns(expected, self.kinds["expected"], skip)
            cols_a = similarity_columns(actual, self.kinds["actual"], skip)
        if self.items is not None or cfg.rules:
            for rel in cols_e[0].keys() & cols_a[0].keys():
                comparator, transform = self.specs[rel] = self._spec(rel)
                if comparator is not None and comparator.batch:
                    return None  # a judge scores these fields: it must see them all at once
        return cols_e, cols_a

    def _spec(self, rel: str) -> _Spec:
        """The comparator and transform set for field ``rel`` of the elements (None: the
        metric's per-type policy)."""
        cfg, items = self.cfg, self.items
        if not cfg.rules and items is not None:  # the node's own, the same at every path
            key = ("spec", rel, cfg.schema_driven)
            # (kept under this key by this method alone)
            found = cast("_Spec | None", items.plans.get(key))
            if found is None:
                found = items.plans[key] = self._spec_of(rel)
            return found
        return self._spec_of(rel)

    def _spec_of(self, rel: str) -> tuple[BoundComparator | None, TransformFn | None]:
        cfg, items = self.cfg, self.items
        full = (
            self.path + "[0]" + ("" if rel == "" else (rel if rel.startswith("[") else "." + rel))
        )
        node = items
        if cfg.schema_driven and items is not None and items.properties is not None and rel:
            node = _property(items, rel)
        spec = cfg.spec_at(full, node)
        comparator = spec.comparator if spec is not None else None
        if comparator is None and cfg.schema_driven and node is not None:
            comparator = node.default_comparator
        return comparator, (spec.transform if spec is not None else None)

    def _skipped(self, rel: str) -> bool:
        """Whether an ``ignore`` (or ``skip``) rule names field ``rel`` of the elements: the
        same for every element, since a rule naming one index takes the walk instead."""
        found = self._skips.get(rel)
        if found is None:
            found = self._skips[rel] = self.cfg.is_skipped(self._element_path(0, rel))
        return found

    def _element_path(self, i: int, rel: str) -> str:
        return index_segment(self.path, i) + ("" if not rel or rel.startswith("[") else ".") + rel

    # -- small arrays: rows of plain floats ---------------------------------------------

    def add(self, rel: str, col_e: Column, col_a: Column, tp: list[list[float]]) -> None:
        """Add the pair scores of field ``rel`` (its column on each side: the elements'
        indices and values) into ``tp``: through the comparator's ``add_scores`` where it
        has one, else a call per pair."""
        comparator, transform = self.specs.get(rel, (None, None))
        if transform is not None:
            self._add_each(rel, col_e, col_a, tp)
            return
        (index_e, values_e), (index_a, values_a) = col_e, col_a
        one_e, one_a = _one_type(values_e), _one_type(values_a)  # (None: mixed)
        if comparator is not None and not self._policy_serves(comparator, one_e, one_a):
            self._add_each(rel, col_e, col_a, tp)
            return
        kind_e, kind_a = self.kinds["expected"].get(rel), self.kinds["actual"].get(rel)
        tag = TYPE_OF.get(kind_e) if kind_e is not None else None
        if tag is not None and kind_a is not None and TYPE_OF.get(kind_a) == tag:
            add_scores = self.cfg.type_policy[tag].add_scores
            if add_scores is not None:  # one type on both sides, the usual case
                add_scores(values_e, values_a, index_e, index_a, tp)
                return
        groups_a = _by_type(index_a, values_a, one_a)
        for tag, group_e in _by_type(index_e, values_e, one_e).items():
            group_a = groups_a.get(tag)
            if group_a is None:
                continue  # values of different types score 0
            add_scores = self.cfg.type_policy[tag].add_scores
            if add_scores is None:
                self._add_each(rel, group_e, group_a, tp)
            else:
                add_scores(group_e[1], group_a[1], group_e[0], group_a[0], tp)

    def _policy_serves(
        self, comparator: BoundComparator, tag_e: str | None, tag_a: str | None
    ) -> bool:
        """Whether a field's own comparator is the one the metric's type policy gives the
        column's values, all of one JSON type on both sides (field_f1's inferred schema sets
        exactly that comparator on every field): the policy's all-pairs form then scores
        the column, as it does fields without a comparator of their own."""
        if not comparator.trusted or comparator.add_scores is None:
            return False
        return (
            tag_e is not None and tag_e == tag_a and self.cfg.type_policy.get(tag_e) is comparator
        )

    def _add_each(self, rel: str, col_e: Column, col_a: Column, tp: list[list[float]]) -> None:
        score = self._pair_score(rel)
        index_a, values_a = col_a
        for i, x in zip(*col_e):
            row, where = tp[i], self._element_path(i, rel)
            for j, y in zip(index_a, values_a):
                row[j] += score(x, y, where)

    def _pair_score(self, rel: str) -> Callable[[Cell, Cell, str], float]:
        """The function scoring two values of field ``rel`` at a field path. Comparators that
        declare ``equal_one`` give equal values 1, so equal pairs, most of them, skip the call."""
        comparator, transform = self.specs.get(rel, (None, None))
        shortcut = (
            bool(comparator.equal_one)
            if comparator is not None
            else self.cfg.every_type_scores_equal_one
        )

        def score(x: Cell, y: Cell, where: str) -> float:
            if type(x) is Unknown or type(y) is Unknown:
                return 0.0
            if transform is not None:  # (neither side Unknown: checked above)
                x = transformed(transform, cast("JsonValue", x), where)
                y = transformed(transform, cast("JsonValue", y), where)
            if shortcut and type(x) is type(y) and type(x) in SCALAR_TYPES and x == y:
                return 1.0
            chosen = comparator
            if chosen is None:
                tag = json_type(x)
                if tag != json_type(y):
                    return 0.0
                chosen = self.cfg.type_policy[tag]
            return chosen.score(x, y) if chosen.trusted else score_at(chosen, x, y, where)

        return score

    # -- large arrays: numpy matrices ---------------------------------------------------

    def matrix(
        self, rel: str, index_e: list[int], values_e: list[Cell], values_a: list[Cell]
    ) -> Floats:
        """The len(values_e) x len(values_a) scores of field ``rel``."""
        np = all_pairs.np()
        side_e, side_a = self._side(rel, values_e, index_e), self._side(rel, values_a, None)
        if side_e is None or side_a is None:
            zeros: Floats = np.zeros((len(values_e), len(values_a)))
            return zeros
        values_e, values_a = side_e.values, side_a.values
        comparator, _ = self.specs.get(rel, (None, None))
        if comparator is not None:
            return self._comparator_matrix(comparator, rel, index_e, values_e, values_a)
        out: Floats = np.zeros((len(values_e), len(values_a)))
        groups_a = side_a.by_type()
        for tag, (rows, xs) in side_e.by_type().items():
            other = groups_a.get(tag)
            if other is None:
                continue
            block = self._comparator_matrix(
                self.cfg.type_policy[tag], rel, [index_e[r] for r in rows], xs, other[1]
            )
            if len(rows) == len(values_e) and len(other[0]) == len(values_a):
                out = block
            else:
                out[np.ix_(rows, other[0])] = block
        return out

    def _side(self, rel: str, values: list[Cell], index_e: list[int] | None) -> _Side | None:
        """One side's values of column ``rel`` as its comparator takes them (transformed;
        None when one is Unknown: every pair scores 0). A large array is scored a block of
        lines at a time against the same whole column of the other side: that column's
        side is worked out once, kept with the list it came from while this scorer lives."""
        kept = self._sides.get((rel, id(values)))
        if kept is not None and kept[0] is values:
            return kept[1]
        side = None
        if not any(type(v) is Unknown for v in values):
            known = cast("list[JsonValue]", values)  # (none Unknown: checked above)
            _, transform = self.specs.get(rel, (None, None))
            if transform is not None and index_e is not None:
                side = _Side(
                    [
                        transformed(transform, v, self._element_path(i, rel))
                        for i, v in zip(index_e, known)
                    ]
                )
            elif transform is not None:
                side = _Side([transformed(transform, v, self.path) for v in known])
            else:
                side = _Side(values)
        self._sides[rel, id(values)] = (values, side)
        return side

    def _comparator_matrix(
        self,
        comparator: BoundComparator,
        rel: str,
        index_e: list[int],
        values_e: list[Cell],
        values_a: list[Cell],
    ) -> Floats:
        if comparator.matrix is not None:
            scores: Floats = comparator.matrix(values_e, values_a)
            return scores
        np = all_pairs.np()
        out: Floats = np.empty((len(values_e), len(values_a)))
        for row, (i, x) in enumerate(zip(index_e, values_e)):
            where = self._element_path(i, rel)
            for j, y in enumerate(values_a):
                out[row, j] = score_at(comparator, x, y, where)
        return out


def _property(items: SchemaNode, rel: str) -> SchemaNode | None:
    """The schema node of the element field ``rel`` (its first key)."""
    tokens = path_tokens(rel, allow_globs=False)
    key = tokens[0][1] if tokens else ""
    return (items.properties or {}).get(key)


class _Side:
    """One side's values of a column, ready for a matrix, and grouped by JSON type."""

    def __init__(self, values: list[Cell]) -> None:
        self.values = values
        self._groups: dict[str, tuple[list[int], list[Cell]]] | None = None

    def by_type(self) -> dict[str, tuple[list[int], list[Cell]]]:
        if self._groups is None:
            self._groups = _by_type(list(range(len(self.values))), self.values)
        return self._groups


_INT_FLOAT = {int, float}


def _one_type(values: list[Cell]) -> str | None:
    """The JSON type of every value, when they have one (None: mixed, none, or a stand-in)."""
    kinds = set(map(type, values))
    if len(kinds) == 1 or kinds == _INT_FLOAT:
        return TYPE_OF.get(next(iter(kinds)))
    return None


def _by_type(
    index: list[int], values: list[Cell], tag: str | None | bool = False
) -> dict[str, tuple[list[int], list[Cell]]]:
    """The values grouped by JSON type, with their indices (``tag``: their
    ``_one_type``, when already known)."""
    if tag is False:
        tag = _one_type(values)
    if isinstance(tag, str):  # a column of one type, the usual case
        return {tag: (index, values)}
    groups: dict[str, tuple[list[int], list[Cell]]] = {}
    for i, v in zip(index, values):
        group = groups.setdefault(json_type(v), ([], []))
        group[0].append(i)
        group[1].append(v)
    return groups


# -- from columns to pair scores ---------------------------------------------------------------

ColumnAdd = Callable[[str, Column, Column, list[list[float]]], None]
ColumnMatrix: TypeAlias = "Callable[[str, list[int], list[Cell], list[Cell]], Floats]"


def _uniform(sizes: list[int], k: int) -> bool:
    return sizes.count(k) == len(sizes)


def pair_value(tp: float, both: int, n_e: int, n_a: int, mode: str) -> float:
    """A pair's score from its summed leaf scores ``tp``, the fields it has in common and
    each element's number of fields (``f1`` reads no ``both``)."""
    if mode == "similarity":
        union = n_e + n_a - both
        return tp / union if union else 1.0
    precision = tp / n_a if n_a else 1.0
    recall = tp / n_e if n_e else 1.0
    total = precision + recall
    return 2 * precision * recall / total if total > 0 else 0.0


def pair_matrix_small(
    expected: Columns, actual: Columns, column_add: ColumnAdd, mode: str
) -> Scores:
    """The pair scores of a few elements, in plain Python: ``(rows, scale)``, the scores
    times ``scale`` as a list of rows. Column by column, ``column_add`` adds the field's pair
    scores into ``tp``. When every element has the same k fields, every score is its sum over
    k: the sums are returned with scale k, and only the pairs chosen are divided."""
    (e_cols, e_sizes), (a_cols, a_sizes) = expected, actual
    n, m = len(e_sizes), len(a_sizes)
    tp = [[0.0] * m for _ in range(n)]
    shared = 0  # fields every element on both sides has
    partial: list[tuple[list[int], list[int]]] = []
    for rel, e_col in e_cols.items():
        a_col = a_cols.get(rel)
        if a_col is None:
            continue
        index_e, index_a = e_col[0], a_col[0]
        if len(index_e) == n and len(index_a) == m:
            shared += 1
        else:
            partial.append((index_e, index_a))
        column_add(rel, e_col, a_col, tp)
    if not partial and shared:
        if _uniform(e_sizes, shared) and _uniform(a_sizes, shared):
            return tp, float(shared)  # similarity and F1 are both tp / k
        if mode == "similarity":  # every pair has the same fields in common: the union is
            # size_e + size_a - shared, and never 0
            return [
                [t / (extra + size_a) for t, size_a in zip(tp_row, a_sizes)]
                for tp_row, extra in zip(tp, [size - shared for size in e_sizes])
            ], 1.0
    both = [[shared] * m for _ in range(n)]  # fields the pair has in common
    for index_e, index_a in partial:
        for i in index_e:
            row = both[i]
            for j in index_a:
                row[j] += 1
    if mode == "similarity":  # the mean over the union, written out: a call per pair adds up
        return [
            [
                t / union if (union := size_e + size_a - b) else 1.0
                for t, b, size_a in zip(tp_row, both_row, a_sizes)
            ]
            for tp_row, both_row, size_e in zip(tp, both, e_sizes)
        ], 1.0
    return [
        [pair_value(t, b, size_e, size_a, mode) for t, b, size_a in zip(tp_row, both_row, a_sizes)]
        for tp_row, both_row, size_e in zip(tp, both, e_sizes)
    ], 1.0


class Layout(HashedSlotted):
    """How the fields of two arrays' elements overlap: the fields every element on both
    sides has (``full``), and k when every element has exactly those k fields (else 0)."""

    __slots__ = ("full", "uniform")

    def __init__(
        self,
        full: frozenset[str],
        uniform: int,
    ) -> None:
        self.full = full
        self.uniform = uniform


def column_layout(expected: Columns, actual: Columns) -> Layout:
    (e_cols, e_sizes), (a_cols, a_sizes) = expected, actual
    n, m = len(e_sizes), len(a_sizes)
    shared = e_cols.keys() & a_cols.keys()
    full = frozenset(rel for rel in shared if len(e_cols[rel][0]) == n and len(a_cols[rel][0]) == m)
    k = len(full)
    uniform = k if k and k == len(shared) and _uniform(e_sizes, k) and _uniform(a_sizes, k) else 0
    return Layout(full, uniform)


def pair_matrix(
    expected: Columns,
    actual: Columns,
    column_matrix: ColumnMatrix,
    mode: str,
    layout: Layout | None = None,
    first: tuple[int, int] = (0, 0),
) -> Floats:
    """Score every (expected, actual) element pair from their columns, with numpy.

    ``mode="similarity"``: the mean leaf score over the union of the pair's field paths
    (0 where one side lacks a path; 1 for two elements without fields).
    ``mode="f1"``: the F1 of the pair, with precision over the actual element's fields and
    recall over the expected element's (1 for two elements without fields).

    A block of a larger matrix is scored the same way, cell for cell: ``expected`` and
    ``actual`` are then the columns of some elements only (see columns_between), ``first``
    the indices of the first of each, and ``layout`` that of the whole arrays.
    """
    np = all_pairs.np()
    (e_cols, e_sizes), (a_cols, a_sizes) = expected, actual
    n, m = len(e_sizes), len(a_sizes)
    if layout is None:
        layout = column_layout(expected, actual)
    tp: Floats | None = None
    partial_both: Floats | None = None
    for rel, (index_e, values_e) in e_cols.items():
        a_col = a_cols.get(rel)
        if a_col is None:
            continue
        index_a, values_a = a_col
        block = np.asarray(column_matrix(rel, index_e, values_e, values_a), dtype=float)
        if rel in layout.full:
            if tp is None:
                tp = block.copy() if block.base is not None or not block.flags.writeable else block
            else:
                tp += block
            continue
        if tp is None:
            tp = np.zeros((n, m))
        if partial_both is None:
            partial_both = np.zeros((n, m))
        # arrays: ix_ on lists is 10x slower
        idx = np.ix_(np.asarray(index_e) - first[0], np.asarray(index_a) - first[1])
        tp[idx] += block
        partial_both[idx] += 1.0
    if tp is None:
        tp = np.zeros((n, m))
    if layout.uniform:
        tp /= layout.uniform  # same k fields on every element: similarity and F1 are both tp / k
        return tp
    both = partial_both if partial_both is not None else np.zeros((n, m))
    if layout.full:
        both += len(layout.full)
    return _from_sums(tp, both, e_sizes, a_sizes, mode)


class LineScores:
    """The pair scores of a large array, a block of lines (rows or columns) at a time, each
    cell equal to the whole matrix's: its memory is a block's, never the whole matrix's."""

    def __init__(
        self, expected: Columns, actual: Columns, column_matrix: ColumnMatrix, mode: str
    ) -> None:
        self.expected, self.actual = expected, actual
        self.column_matrix, self.mode = column_matrix, mode
        self.layout = column_layout(expected, actual)
        self.shape = (len(expected[1]), len(actual[1]))

    def rows(self, start: int, stop: int) -> Floats:
        """Rows ``start`` to ``stop`` (expected elements) against every actual element."""
        return pair_matrix(
            columns_between(self.expected, start, stop),
            self.actual,
            self.column_matrix,
            self.mode,
            self.layout,
            (start, 0),
        )

    def columns(self, start: int, stop: int) -> Floats:
        """Every expected element against actual elements ``start`` to ``stop``."""
        return pair_matrix(
            self.expected,
            columns_between(self.actual, start, stop),
            self.column_matrix,
            self.mode,
            self.layout,
            (0, start),
        )


def _from_sums(
    tp: Floats, both: Floats, e_sizes: list[int], a_sizes: list[int], mode: str
) -> Floats:
    """Pair scores from the summed leaf scores ``tp`` and the fields each pair shares (in
    place, few temporaries: these matrices can hold tens of millions of pairs)."""
    np = all_pairs.np()
    n, m = tp.shape
    e_count = np.array(e_sizes, dtype=float)[:, None]
    a_count = np.array(a_sizes, dtype=float)[None, :]
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
    scores: Floats = np.divide(precision, total, out=np.zeros((n, m)), where=total > 0)
    return scores
