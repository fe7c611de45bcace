"""A value compared whole: its comparator, its transforms, the LLM judge's placeholders.

:class:`LeafScoring` is the part of a walk (``walk.Walk`` builds on it) that scores one leaf
and, for a comparator that a batch judge answers, keeps a placeholder until the judge has
answered every field of the record (:meth:`LeafScoring.finish` puts the scores in place).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from ..comparing.comparators import BoundComparator, score_at
from ..comparing.field_spec import FieldSpec
from ..comparing.registry import BatchItem
from ..comparing.transforms import transformed
from ..configuring.walk_config import WalkConfig
from ..core.depth import SHALLOW, call_with_depth
from ..core.paths import Where
from ..core.values import SCALAR_TYPES, JsonValue, json_type
from ..judge import BatchScores, Failed
from ..results.field_results import (
    BATCH_ERROR,
    MATCH,
    MISMATCH,
    FieldResult,
    FloorFailure,
    WalkOutput,
)
from ..schemas.eval_schema import SchemaNode
from .ordered_elements import INDEX_SUFFIXES

# The switch of leaf_pairs (docs/architecture.md, "Fast paths"): False sends each pair of
# elements of a plain leaf node through Walk.node and Walk.leaf.
LEAF_ELEMENTS = True

# The scalar types the door passes as they are whatever their value (a float must also be
# finite); FieldResults built with tuple.__new__, as the walk builds them (walk.py)
_PLAIN_EXACT = frozenset({str, int, bool, type(None)})
_new = tuple.__new__
_SUFFIXES = len(INDEX_SUFFIXES)
# what a walk's ``deferred`` starts as: one empty list for all, never appended to (the
# first placeholder puts a list of the walk's own there), a list less made for every walk
NO_DEFERRED: list[tuple[int, BoundComparator, float | None]] = []


class LeafScoring:
    """Leaves scored into ``out``; the judge's pending ones listed in ``deferred``."""

    cfg: WalkConfig
    judge: BatchScores
    out: WalkOutput
    # placeholders for batch scores: (index in out.fields, comparator, min_score)
    deferred: list[tuple[int, BoundComparator, float | None]]
    unread_of: object  # (UnreadSides': the answer array whose elements are unread)

    if TYPE_CHECKING:  # (the walk's, walk.Walk: the general way of one pair of elements)

        def node(
            self,
            expected: JsonValue,
            actual: JsonValue,
            where: Where,
            node: SchemaNode | None,
            depth: int,
        ) -> None: ...

        def node_read(
            self,
            expected: JsonValue,
            actual: JsonValue,
            where: Where,
            items: SchemaNode | None,
            depth: int,
        ) -> None: ...

    def leaf_pairs(
        self,
        scored: Iterable[tuple[int, int, float]],
        walked: dict[tuple[int, int], WalkOutput],
        expected: list[JsonValue],
        actual: list[JsonValue],
        where: Where,
        depth: int,
        items: SchemaNode,
    ) -> None:
        """``Walk._walk_pairs`` of an array whose elements are a plain leaf of a schema-driven
        walk without rules or leaf depth (``items.plain``: field_f1's node of scalars), where
        ``Walk.node`` hands each pair to :meth:`leaf` with the node's spec: a pair of a
        scalar and a plain scalar (an answer's element checked as ``Walk.read`` checks it:
        of a plain type, a float finite) scored here, the FieldResult ``leaf`` makes of it
        (switch ``LEAF_ELEMENTS``); any other pair, and every pair of a node with a floor,
        as ``_walk_pairs`` walks it. Apart from ``_walk_pairs``, whose frame a deep array's
        walk stacks at every level, and a method, so that its call there takes no more of
        that frame's stack than the calls it has."""
        comparator = items.plain if items.spec.min_score is None else None
        fields, out = self.out.fields, self.out
        path, field, moved = where
        side, field = path if moved is None else moved, field + "[]"
        n_e, n_a = len(expected), len(actual)
        longest = n_e if n_e > n_a else n_a  # (the first indices' text made once)
        index = INDEX_SUFFIXES if longest <= _SUFFIXES else [f"[{k}]" for k in range(longest)]
        below = depth + 1
        for i, j, _ in scored:
            found = walked.get((i, j)) if walked else None
            if found is not None:  # its walk is the one node() would do: take it as it is
                fields.extend(found.fields)
                out.pairings.extend(found.pairings)
                out.floors.extend(found.floors)
                continue
            e, a = expected[i], actual[j]
            # (the element's place as a plain tuple: a Where only where a call takes it)
            at = (path + index[i], field, side + index[j] if moved is not None or i != j else None)
            if (
                comparator is not None
                and type(e) in SCALAR_TYPES
                and (type(a) in _PLAIN_EXACT or (type(a) is float and a - a == 0.0))
            ):
                # (leaf()'s score: the node's comparator, no transform; equal values of one
                # type score 1 where it says so)
                if type(e) is type(a) and e == a and comparator.equal_one:
                    status, score = MATCH, 1.0
                else:
                    score = score_at(comparator, e, a, at[0])
                    status = MATCH if score >= 1.0 else MISMATCH
                fields.append(
                    _new(
                        FieldResult,
                        (at[0], status, score, e, a, comparator.name, "", at[1], at[2], 1.0, None),
                    )
                )
            elif actual is self.unread_of:  # (unread elements: UnreadSides.unread_array)
                self.node_read(e, a, _new(Where, at), items, below)
            else:
                self.node(e, a, _new(Where, at), items, below)

    def leaf(
        self,
        expected: JsonValue,
        actual: JsonValue,
        where: Where,
        spec: FieldSpec | None,
        node: SchemaNode | None,
    ) -> None:
        """Score a value compared whole, with the field's comparator (else the schema node's
        default, else the metric's for the expected value's type), after the field's
        transforms."""
        cfg = self.cfg
        # (_comparator's and _compared's answers where nothing changes the values, read
        # here: a call less each for every leaf that takes the general way)
        if spec is not None and spec.comparator is not None:
            comparator = spec.comparator
        elif not cfg.schema_driven or node is None or node.default_comparator is None:
            comparator = cfg.type_policy[json_type(expected)]
        else:
            comparator = node.default_comparator
        if (spec is None or spec.transform is None) and not (
            cfg.skip_patterns and cfg.leaf_depth is not None
        ):
            compared_e, compared_a, room = expected, actual, 0
        else:
            compared_e, compared_a, room = self._compared(expected, actual, where, spec)
        min_score = spec.min_score if spec is not None else None
        # the values the comparator saw, kept when a transform changed them
        compared = (
            (compared_e, compared_a) if spec is not None and spec.transform is not None else None
        )
        if comparator.batch:
            item = BatchItem(
                where.path, expected, actual, compared_e, compared_a, comparator.params or {}
            )
            self._judged(item, where, comparator, min_score, compared)
            return
        if room > SHALLOW:
            # an ignored element's value, compared whole, nests as deep as it likes: the
            # stack the door measured for the walk may not hold its comparison
            score = call_with_depth(
                room, lambda: score_at(comparator, compared_e, compared_a, where.path)
            )
        else:
            score = score_at(comparator, compared_e, compared_a, where.path)
        self._scored(expected, actual, where, comparator, score, min_score, compared)

    def _compared(
        self, expected: JsonValue, actual: JsonValue, where: Where, spec: FieldSpec | None
    ) -> tuple[JsonValue, JsonValue, int]:
        """The two values as the comparator sees them (ignored parts left out, the field's
        transform applied), and how deeply they nest when the door did not measure it (0)."""
        cfg = self.cfg
        compared_e, compared_a = expected, actual
        room = 0
        if cfg.skip_patterns and cfg.leaf_depth is not None:
            # a whole value still honours ignore patterns that reach inside it
            compared_e, depth_e = cfg.without_skipped_measured(expected, where.path)
            compared_a, depth_a = cfg.without_skipped_measured(actual, where.path)
            room = max(depth_e, depth_a)
        if spec is not None and spec.transform is not None:
            compared_e = transformed(spec.transform, compared_e, where.path)
            compared_a = transformed(spec.transform, compared_a, where.path)
        return compared_e, compared_a, room

    def _judged(
        self,
        item: BatchItem,
        where: Where,
        comparator: BoundComparator,
        min_score: float | None,
        compared: tuple[JsonValue, JsonValue] | None,
    ) -> None:
        """A leaf a batch judge scores: its score when the judge has it, else a placeholder
        (``pending``) that :meth:`finish` replaces; a judge's failure is the field's error."""
        expected, actual = item.expected, item.actual
        score = self.judge.ask(comparator, item, where.actual_path)
        if score is None or isinstance(score, Failed):
            if score is None:
                if not self.deferred:  # (NO_DEFERRED, shared: the walk's own list)
                    self.deferred = []
                self.deferred.append((len(self.out.fields), comparator, min_score))
            self.out.fields.append(
                FieldResult(
                    where.path,
                    MISMATCH if score is None else BATCH_ERROR,
                    0.0,
                    expected,
                    actual,
                    comparator.name,
                    "pending" if score is None else str(score),
                    where.field,
                    where.actual,
                    1.0,
                    compared,
                )
            )
            return
        self._scored(expected, actual, where, comparator, score, min_score, compared)

    def _scored(
        self,
        expected: JsonValue,
        actual: JsonValue,
        where: Where,
        comparator: BoundComparator,
        score: float,
        min_score: float | None,
        compared: tuple[JsonValue, JsonValue] | None = None,
    ) -> None:
        found = (
            where.path,
            MATCH if score >= 1.0 else MISMATCH,
            score,
            expected,
            actual,
            comparator.name,
            "",
            where.field,
            where.actual,
            1.0,
            compared,
        )
        self.out.fields.append(_new(FieldResult, found))  # (every field given: see _new)
        if min_score is not None and score < min_score:
            self.out.floors.append(FloorFailure(where.path, min_score, score))

    def finish(self) -> WalkOutput:
        """The walk's output, the judge's scores put in place of its placeholders."""
        if not self.deferred:
            return self.out
        fields = self.out.fields
        for index, comparator, min_score in self.deferred:
            placeholder = fields[index]
            score = self.judge.score_of(
                comparator, placeholder.path, placeholder.actual_path or placeholder.path
            )
            if isinstance(score, Failed):
                fields[index] = placeholder._replace(status=BATCH_ERROR, reason=str(score))
                continue
            fields[index] = placeholder._replace(
                status=MATCH if score >= 1.0 else MISMATCH, score=score, reason=""
            )
            if min_score is not None and score < min_score:
                self.out.floors.append(FloorFailure(placeholder.path, min_score, score))
        self.deferred = []
        return self.out
