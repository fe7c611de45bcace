"""Pair scores for array alignment: how well each expected element goes with each actual one.

Elements are gathered into columns (each flattened field's values); each column is then
scored for every pair in one vectorised comparator call (align.pair_matrix), or, for a few
elements, in plain Python through the comparator's ``add_scores``. structural_f1's default
case, a few flat objects, goes to the compiled kernel when it is built (_pair_kernel.c: the
same floats, see kernel_args). Elements that do not flatten to the fields the walk would score
(nested arrays with their own alignment, batch comparators) are scored by walking each pair.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from . import align as _align
from .comparators import BoundComparator
from .errors import ParseError
from .results import f_beta, precision_recall
from .schema import SchemaNode
from .transforms import TransformFn
from .values import (_TYPE_OF, ARRAY, NULL, OBJECT, _tokens as _path_tokens, check_finite,
                     error_at, index_segment, json_type, key_segment)

if TYPE_CHECKING:
    from .walk import Walk, WalkConfig

_SCALARS = frozenset({str, int, float, bool, type(None)})
_INT_FLOAT = {int, float}
_NO_SETTINGS = (None, None)

# Up to this many element pairs, pair scores are computed in plain Python: for a handful of
# elements, numpy's per-call overhead costs more than the arithmetic.
SMALL_PAIRS = 400


class NeedWalk(Exception):
    """Column-wise pair scoring met a batch comparator: score the pairs by walking them."""


class NeedJudgeFirst(Exception):
    """Raised inside a walk when pairing needs batch scores nobody has asked for yet."""


class Unknown:
    """A field the schema does not know, standing in a flattened element (one hallucination)."""

    __slots__ = ("value",)

    def __init__(self, value: Any) -> None:
        self.value = value



class PairScores:
    """Pair scores for the elements of the array at ``path`` (schema ``items``)."""

    def __init__(self, walk: Walk, path: str, items: SchemaNode | None) -> None:
        self.walk, self.cfg, self.path, self.items = walk, walk.cfg, path, items
        # per side, each column's one Python type (None: mixed), noted while collecting, so
        # that scoring need not sort the values by type again
        self.kinds: dict[str, dict[str, type | None]] = {"expected": {}, "actual": {}}
        # whether a column may have a comparator or transform of its own (_comparator_for)
        self._settings_apply = items is not None or bool(self.cfg.rules)

    def matrix(self, e: list[Any], a: list[Any], mode: str) -> tuple[Any, float]:
        """The len(e) x len(a) pair scores (``similarity`` or ``f1``) times a scale: a
        matrix (scale 1), or for a few elements a list of rows (see pair_matrix_small)."""
        if mode == "similarity" and self.items is None and len(e) * len(a) <= SMALL_PAIRS:
            args, kernel = self.cfg.kernel_args, _align.pair_kernel
            if args is not None and kernel is not None:
                found = kernel.similarity_rows(e, a, *args)
                if found is not None:  # else a shape only the Python path reads (or reports)
                    return found
        cols_e = self._columns_of(e, "expected")
        cols_a = self._columns_of(a, "actual") if cols_e is not None else None
        if cols_e is not None and cols_a is not None:
            try:
                if len(e) * len(a) <= SMALL_PAIRS:
                    return _align.pair_matrix_small(cols_e, cols_a, self._column_add, mode)
                return _align.pair_matrix(cols_e, cols_a, self._leaf_matrix_for(), mode), 1.0
            except NeedWalk:
                pass  # a judge scores these fields: it must see them all in one call
            except Exception:  # noqa: BLE001 - find the field, then report it by name
                self._locate_failure(cols_e[0], cols_a[0])
                raise
        return self._by_walk(e, a), 1.0

    def _locate_failure(self, cols_e: dict[str, _align.Column], cols_a: dict[str, _align.Column]
                        ) -> None:
        """Column-wise scoring failed somewhere: score pair by pair to raise the error at the
        field it happened in (``items[3].price``), as the walk would."""
        for rel, (ie, ve) in cols_e.items():
            other = cols_a.get(rel)
            if other is None:
                continue
            for i, x in zip(ie, ve):
                where = index_segment(self.path, i) + ("" if not rel or rel.startswith("[") else ".") + rel
                score = self._column_score(rel, where)
                for y in other[1]:
                    score(x, y)

    def _by_walk(self, e: list[Any], a: list[Any]) -> Any:
        """The general case (nested arrays with their own alignment, batch comparators):
        score each pair with a walk of its own and take its F1."""
        import numpy as np

        path, items = self.path, self.items
        out = np.zeros((len(e), len(a)))
        for i, ev in enumerate(e):
            for j, av in enumerate(a):
                sub = self.walk.sub_walk()
                sub.node(ev, av, index_segment(path, i), "", index_segment(path, j), items, 1)
                if sub.pending:
                    raise NeedJudgeFirst
                out[i, j] = f_beta(*precision_recall(sub.out))
        return out

    def _columns_of(self, elements: list[Any], side: str) -> _align.Columns | None:
        """The elements' fields as columns, or None when the elements cannot be scored
        column by column and need a walk per pair."""
        cfg, path, items = self.cfg, self.path, self.items
        if cfg.rules and any(_names_an_index(r.pattern.text) for r in cfg.rules):
            return None  # a rule for one index cannot be resolved per column
        if not cfg.schema_driven:
            return self._similarity_columns(elements, side)
        flat_all = []
        for i, element in enumerate(elements):
            flat: dict[str, Any] = {}
            try:
                if not self._flatten_f1(element, "", items, flat, side):
                    return None
            except ParseError as exc:
                raise error_at(index_segment(path, i), exc) from None
            flat_all.append(flat)
        return _align.columns(flat_all)

    def _flatten_f1(self, value: Any, rel: str, items: SchemaNode | None, out: dict[str, Any],
                    side: str) -> bool:
        """field_f1 pairs by F1: scalars, and objects whose fields are scalars, flatten to
        exactly the fields the walk would score; anything deeper takes the walk."""
        if items is not None and items.is_leaf:  # the walk compares each element whole
            if items.comparator is not None and items.comparator.batch:
                return False
            if type(value) is float:
                check_finite(value, "", side)
            out[""] = value
            return True
        tag = json_type(value)
        if tag == ARRAY:
            return False
        if tag != OBJECT:
            if items is not None and not items.is_leaf:
                return False  # a scalar where the schema has a container: shape rules apply
            out[""] = value
            return True
        if items is None or items.properties is None:
            return False
        props = items.properties
        for key, child in value.items():
            cs = props.get(key)
            if cs is None:
                if side == "expected":
                    return False  # skipped here, and it hides the same key on the other side
                out[key_segment(rel, key)] = Unknown(child)
                continue
            if cs.skip:
                continue
            if not cs.is_leaf or (cs.comparator is not None and cs.comparator.batch):
                return False
            if cs.comparator is None and json_type(child) in (OBJECT, ARRAY):
                return False
            if type(child) is float:
                check_finite(child, key_segment(rel, key), side)
            out[key_segment(rel, key)] = child
        return True

    def _similarity_columns(self, elements: list[Any], side: str) -> _align.Columns:
        """structural_f1's columns (see _collect_similarity). The scalar fields of object
        elements, most fields of most arrays, are gathered here by key, in one loop: a key
        names the same field in every element, and its path is made once per column."""
        cols: dict[str, _align.Column] = {}
        kinds = self.kinds[side]
        by_key: dict[str, list[Any]] = {}  # key -> [indices, values, type or None if mixed]
        sizes = []
        collect = self._collect_similarity
        i = 0
        try:
            for i, element in enumerate(elements):
                if type(element) is not dict:
                    sizes.append(collect(element, "", i, cols, kinds, side))
                    continue
                count = 0
                for key, child in element.items():
                    kind = type(child)
                    if kind is str or kind is int or kind is bool or (
                            kind is float and child - child == 0.0):
                        slot = by_key.get(key)
                        if slot is None:
                            by_key[key] = [[i], [child], kind]
                        else:
                            slot[0].append(i)
                            slot[1].append(child)
                            if slot[2] is not kind:
                                slot[2] = None
                        count += 1
                    elif child is not None:  # nested fields, and a NaN to report
                        count += collect(child, key_segment("", key), i, cols, kinds, side)
                sizes.append(count)
        except ParseError as exc:
            raise error_at(index_segment(self.path, i), exc) from None
        # a top-level key's path ('sku', '["unit price"]') is never a nested field's path
        # ('dims.w') nor a whole element's ('', '[0]'): the two sets of columns are disjoint
        for key, (index, values, kind) in by_key.items():
            rel = key_segment("", key)
            cols[rel] = (index, values)
            kinds[rel] = kind
        return cols, sizes

    def _collect_similarity(self, value: Any, rel: str, i: int, cols: dict[str, _align.Column],
                            kinds: dict[str, type | None], side: str) -> int:
        """structural_f1: add element ``i``'s fields to ``cols``; returns how many it has.
        Nested objects flatten; nested arrays are compared after pairing and take no part
        in the similarity; a null counts as absent."""
        tag = json_type(value)
        if tag == OBJECT:
            return sum(self._collect_similarity(child, key_segment(rel, key), i, cols, kinds, side)
                       for key, child in value.items())
        if tag == ARRAY:
            if rel:
                return 0
            # an element that is itself an array: its items, by index, are its fields
            return sum(self._collect_similarity(child, f"[{k}]", i, cols, kinds, side)
                       for k, child in enumerate(value))
        if tag == NULL:
            return 0
        if type(value) is float:
            check_finite(value, rel, side)
        col = cols.get(rel)
        if col is None:
            cols[rel] = ([i], [value])
            kinds[rel] = type(value)
        else:
            col[0].append(i)
            col[1].append(value)
            if kinds[rel] is not type(value):
                kinds[rel] = None
        return 1

    def _comparator_for(self, rel: str) -> tuple[BoundComparator | None, TransformFn | None]:
        """The comparator and transform set for field ``rel`` of the elements of the array at
        ``path`` (resolved once per column; None: the metric's per-type policy)."""
        cfg, path, items = self.cfg, self.path, self.items
        if items is None and not cfg.rules:
            return None, None  # nothing but the metric's per-type comparators
        full = path + "[0]" + ("" if rel == "" else (rel if rel.startswith("[") else "." + rel))
        snode = items
        if cfg.schema_driven and items is not None and items.properties is not None and rel:
            snode = items.properties.get(_first_key(rel))
        s = self.walk.settings(full, snode)
        comp = s.comparator if s is not None else None
        if comp is None and cfg.schema_driven and snode is not None and snode.default_comparator is not None:
            comp = snode.default_comparator
        if comp is not None and comp.batch:
            raise NeedWalk
        return comp, (s.transform if s is not None else None)

    def _column_add(self, rel: str, ie: list[int], ve: list[Any], ia: list[int], va: list[Any],
                    tp: list[list[float]]) -> None:
        """Add the pair scores of field ``rel`` into ``tp`` (small arrays, a list of rows):
        through the comparator's ``add_scores`` where it has one, else a call per pair
        (``_column_score``)."""
        comp, transform = self._comparator_for(rel) if self._settings_apply else _NO_SETTINGS
        if comp is None and transform is None:
            kind_e, kind_a = self.kinds["expected"].get(rel), self.kinds["actual"].get(rel)
            tag = _TYPE_OF.get(kind_e) if kind_e is not None else None  # type: ignore[arg-type]
            if tag is not None and kind_a is not None and _TYPE_OF.get(kind_a) == tag:
                add_scores = self.cfg.type_policy[tag].add_scores
                if add_scores is not None:  # one type on both sides, the usual case
                    add_scores(ve, va, ie, ia, tp)
                    return
            groups_e, groups_a = _by_type(ie, ve), _by_type(ia, va)
            policy = self.cfg.type_policy
            for tag, (rows, xs) in groups_e.items():
                other = groups_a.get(tag)
                if other is None:
                    continue  # values of different types score 0
                add_scores = policy[tag].add_scores
                if add_scores is None:
                    self._generic_add(rel, rows, xs, other[0], other[1], tp)
                else:
                    add_scores(xs, other[1], rows, other[0], tp)
            return
        self._generic_add(rel, ie, ve, ia, va, tp)

    def _generic_add(self, rel: str, ie: list[int], ve: list[Any], ia: list[int], va: list[Any],
                     tp: list[list[float]]) -> None:
        score = self._column_score(rel)
        for i, x in zip(ie, ve):
            row = tp[i]
            for j, y in zip(ia, va):
                row[j] += score(x, y)

    def _column_score(self, rel: str, where: str = "") -> Callable[[Any, Any], float]:
        """The function scoring two values of field ``rel``. Built-in comparators give equal
        values 1, so equal pairs, most of them, skip the call. Other comparators' errors are
        reported at ``where`` (a field path), else at the array."""
        comp, transform = self._comparator_for(rel)
        policy = self.cfg.type_policy
        shortcut = (comp.trusted and comp.name != "oneof") if comp is not None else all(
            c.trusted for c in policy.values())
        score_leaf, at = self.walk.score_leaf, where or self.path

        def score(x: Any, y: Any) -> float:
            if type(x) is Unknown or type(y) is Unknown:
                return 0.0
            if transform is not None:
                x, y = transform(x), transform(y)
            if shortcut and type(x) is type(y) and type(x) in _SCALARS and x == y:
                return 1.0
            c = comp
            if c is None:
                tx = _TYPE_OF.get(type(x)) or json_type(x)
                if tx != (_TYPE_OF.get(type(y)) or json_type(y)):
                    return 0.0
                c = policy[tx]
            return c.score(x, y) if c.trusted and not where else score_leaf(c, x, y, at)

        return score

    def _leaf_matrix_for(self) -> _align.LeafMatrix:
        import numpy as np

        def leaf_matrix(rel: str, ve: list[Any], va: list[Any]) -> Any:
            if any(type(v) is Unknown for v in ve) or any(type(v) is Unknown for v in va):
                return np.zeros((len(ve), len(va)))
            comp, transform = self._comparator_for(rel)
            if transform is not None:
                ve = [transform(v) for v in ve]
                va = [transform(v) for v in va]
            if comp is not None:
                return _matrix(comp, ve, va, rel)
            return self._typed_matrix(ve, va, rel)

        return leaf_matrix

    def _typed_matrix(self, ve: list[Any], va: list[Any], rel: str) -> Any:
        """Scores by the metric's per-type comparators; values of different types score 0."""
        import numpy as np

        out = np.zeros((len(ve), len(va)))
        groups_a = _by_type(list(range(len(va))), va)
        for tag, (ie, xs) in _by_type(list(range(len(ve))), ve).items():
            other = groups_a.get(tag)
            if other is None:
                continue
            ia, ys = other
            block = _matrix(self.cfg.type_policy[tag], xs, ys, rel)
            if len(ie) == len(ve) and len(ia) == len(va):
                out = block
            else:
                out[np.ix_(ie, ia)] = block
        return out


def _names_an_index(pattern: str) -> bool:
    return re.search(r"\[\d+\]", pattern) is not None


def _first_key(rel: str) -> str:
    tokens = _path_tokens(rel, allow_globs=False)
    return tokens[0][1] if tokens else ""


def _matrix(comp: BoundComparator, ve: list[Any], va: list[Any], rel: str) -> Any:
    import numpy as np

    if comp.matrix is not None:
        return comp.matrix(ve, va)
    out = np.empty((len(ve), len(va)))
    score = comp.score
    for i, x in enumerate(ve):
        for j, y in enumerate(va):
            out[i, j] = score(x, y)
    return out


def _by_type(index: list[int], values: list[Any]) -> dict[str, tuple[list[int], list[Any]]]:
    kinds = set(map(type, values))
    if len(kinds) == 1 or kinds == _INT_FLOAT:  # a column of one type, the usual case
        tag = _TYPE_OF.get(next(iter(kinds)))
        if tag is not None:
            return {tag: (index, values)}
    groups: dict[str, tuple[list[int], list[Any]]] = {}
    for i, v in zip(index, values):
        tag = _TYPE_OF.get(type(v)) or json_type(v)
        group = groups.get(tag)
        if group is None:
            group = groups[tag] = ([], [])
        group[0].append(i)
        group[1].append(v)
    return groups


def kernel_args(cfg: WalkConfig) -> tuple[float, float] | None:
    """The threshold comparator's ``(t, w)`` when the compiled kernel computes exactly this
    configuration's pair similarities: no rule or schema sets a field's comparator, strings
    score by the built-in Jaccard, numbers by the built-in threshold (``t > 0``, ``w >= 0``)
    and booleans by the built-in exact comparator (structural_f1's defaults)."""
    if cfg.array_mode != "similarity" or cfg.rules or cfg.schema is not None or cfg.schema_driven:
        return None
    policy = cfg.type_policy
    string, number, boolean = policy.get("string"), policy.get("number"), policy.get("boolean")
    if string is None or number is None or boolean is None:
        return None
    if not (string.trusted and string.name == "jaccard" and number.trusted
            and number.name == "threshold" and boolean.trusted and boolean.name == "exact"):
        return None
    params = number.params or {}
    t, w = float(params["threshold"]), float(params["weighting"])
    # bind_threshold already refuses others; the kernel's pow() would differ from Python's
    # ** for a negative w, so the precondition stays stated where the kernel is chosen
    return (t, w) if t > 0 and w >= 0 else None
