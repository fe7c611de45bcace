"""The pairs of an array whose elements are objects of one schema node (field_f1's arrays of
objects), walked with their set-up worked out once for the array.

``Walk._walk_pairs`` hands each pair of object elements to the node's generated scorer for
the element's shape, where one is made, else to ``Walk._keys``, which works out for every
element again the inline loop's plan and set-up (``WalkConfig.inline_plan``,
``inline_leaves.loop_of``): the same for every element of the array (one node, one
depth, no rule: the generated scorers' configurations have none). Here they are worked
out once, and each element goes straight to ``inline_leaves.inline_keys``, then its extra
keys as ``Walk._keys`` takes them; the scorers are found and counted as ``_walk_pairs``
finds them, and every other pair walked as it walks it.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from ..configuring.walk_config import WalkConfig
from ..core.paths import Where
from ..core.values import JsonArray, JsonObject, JsonValue
from ..results.field_results import WalkOutput
from ..schemas.eval_schema import SchemaNode
from . import generated_scorers as compiled
from . import inline_leaves
from .ordered_elements import INDEX_SUFFIXES

# The switch of this fast path (docs/architecture.md, "Fast paths"): False walks each pair
# of object elements by ``Walk._walk_pairs``' own loop, through ``Walk._keys``.
OBJECT_ELEMENTS = True

_new = tuple.__new__  # (a Where built as walk.py builds it)
_SUFFIXES = len(INDEX_SUFFIXES)


class ObjectElements:
    """``object_pairs``, a part of the walk (walk.Walk builds on it)."""

    cfg: WalkConfig
    out: WalkOutput
    tally: Any
    unread: bool
    unread_of: object

    if TYPE_CHECKING:  # (the walk's, walk.Walk and its parts)
        unread_expected: bool

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

        def _keys(
            self,
            expected: JsonObject,
            actual: JsonObject,
            where: Where,
            node: SchemaNode | None,
            props: dict[str, SchemaNode] | None,
            depth: int,
        ) -> None: ...

        def extras_read(
            self,
            expected: JsonObject,
            actual: JsonObject,
            where: Where,
            props: dict[str, SchemaNode] | None,
            depth: int,
        ) -> None: ...

    def object_pairs(
        self,
        scored: Iterable[tuple[int, int, float]],
        walked: dict[tuple[int, int], WalkOutput],
        expected: JsonArray,
        actual: JsonArray,
        where: Where,
        depth: int,
        objects: SchemaNode,
    ) -> None:
        """``Walk._walk_pairs`` of an array whose elements are objects of the schema node
        ``objects`` (``generated_scorers.child_kind`` says so, under a configuration the
        scorers serve): each pair of objects by its shape's scorer where one is found,
        else by the inline loop with the plan and set-up worked out once here (switch
        ``OBJECT_ELEMENTS``); any other pair as ``_walk_pairs`` walks it. A method, so that
        its call in ``_walk_pairs`` takes no more of that frame's stack than its calls."""
        cfg, tally, below = self.cfg, self.tally, depth + 1
        props = objects.properties
        # (Walk._keys' plan and loop, the same for every element: no rule under a
        # configuration the scorers serve, so the element's path does not enter the plan)
        plan = (
            cfg.inline_plan(objects, below + 1 == cfg.leaf_depth)
            if inline_leaves.INLINE_LEAVES
            else None
        )
        loop = None if plan is None else inline_leaves.loop_of(self, props, below, plan)  # type: ignore[arg-type]
        fields, out = self.out.fields, self.out
        path, field, moved = where
        side, field = path if moved is None else moved, field + "[]"
        n_e, n_a = len(expected), len(actual)
        longest = n_e if n_e > n_a else n_a  # (the first indices' text made once)
        index = INDEX_SUFFIXES if longest <= _SUFFIXES else [f"[{k}]" for k in range(longest)]
        found_scorers: dict[tuple[object, ...], compiled.Scorer] = {}  # (by the element's keys)
        e: Any
        a: Any  # (read by their type)
        for i, j, _ in scored:
            found = walked.get((i, j)) if walked else None
            if found is not None:  # its walk is the one node() would do: take it as it is
                fields.extend(found.fields)
                out.pairings.extend(found.pairings)
                out.floors.extend(found.floors)
                continue
            e, a = expected[i], actual[j]
            at = (path + index[i], field, side + index[j] if moved is not None or i != j else None)
            if type(e) is dict and type(a) is dict and e:
                shape = (*e, at[2] is None)  # (what of the element scorer_for's shape reads)
                scorer = found_scorers.get(shape)
                if scorer is None and (scorer := compiled.scorer_for(objects, e, at, cfg, tally)):
                    found_scorers[shape] = scorer  # (kept for the array's other elements)
                if scorer is not None:  # (obj()'s first step, taken here)
                    scorer(self, e, a, at, below)
                elif loop is None:
                    self._keys(e, a, _new(Where, at), objects, props, below)
                else:  # (Walk._keys with its plan and loop)
                    element = _new(Where, at)
                    inline_leaves.inline_keys(self, e, a, element, props, below, plan, loop)  # type: ignore[arg-type]
                    if not a.keys() <= e.keys():
                        inline_leaves.answer_extras(self, e, a, element, props, below)  # type: ignore[arg-type]
            elif actual is self.unread_of:  # (unread elements: UnreadSides.unread_array)
                self.node_read(e, a, _new(Where, at), objects, below)
            else:
                self.node(e, a, _new(Where, at), objects, below)
