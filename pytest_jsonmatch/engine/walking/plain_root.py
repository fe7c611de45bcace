"""A record's root walked where no schema is given: a pair of objects handed straight to the
inline loop, the steps ``Walk.run``, ``Walk.from_root``, ``Walk.obj`` and ``Walk._keys``
take for it worked out in one frame.

An assertion's pair (``match_json``'s two objects, most often without a schema) went
through four calls before its first key was read, each deciding again what the one before
had: that the root is a pair of non-empty objects with no node, so no generated scorer and
no check for two empty objects; that no rule reaches a key (``object_root``), so the
inline plan is the configuration's for objects without a node. Here those steps are taken
once (switch ``PLAIN_ROOT``); any other root (a rule, a leaf depth of 0, a side that is not
an object, an empty expected object, no inline plan) goes ``Walk.from_root``'s way as
before. The fields, their order and every check of an unread side are the same.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..configuring.walk_config import WalkConfig
from ..core.paths import ROOT, Where
from ..core.values import JsonObject, JsonValue
from ..reading.intake import MAX_KEYS, Unread
from ..schemas.eval_schema import SchemaNode
from . import inline_leaves
from .inline_leaves import answer_extras, inline_keys

# The switch of this fast path (docs/architecture.md, "Fast paths"): False walks every root
# by ``Walk.run`` (``from_root``, ``obj``, ``_keys``).
PLAIN_ROOT = True


class PlainRoot:
    """``plain_root``, a part of the walk (walk.Walk builds on it)."""

    cfg: WalkConfig
    unread: bool
    unread_expected: bool

    if TYPE_CHECKING:  # (the walk's, walk.Walk and its parts)

        def run(self, expected: JsonValue, actual: object, schema: SchemaNode | None) -> None: ...

        def keys_read(
            self,
            expected: JsonObject,
            actual: JsonObject,
            where: Where,
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

    def plain_root(self, expected: Any, actual: Any) -> None:
        """``Walk.run(expected, actual, None)``: two objects, expected not empty, walked by
        the inline loop where no rule and no leaf depth of 0 stands in the way and the
        configuration plans the loop (the root's object past the door's bound on keys read
        by the door, where its side is unread), then the keys only ``actual`` has; any
        other root by ``run``."""
        cfg = self.cfg
        if not (
            PLAIN_ROOT
            and type(expected) is dict
            and type(actual) is dict
            and expected
            and not cfg.rules
            and cfg.leaf_depth != 0
            and inline_leaves.INLINE_LEAVES
        ):
            self.run(expected, actual, None)
            return
        if self.unread_expected and len(expected) > MAX_KEYS:
            raise Unread  # (the door reads it, and names it)
        plan = cfg.root_plan  # (cfg.inline_plan(None, cfg.leaf_depth == 1, ""), kept)
        if plan is None:
            self.keys_read(expected, actual, ROOT, None, 0)
            return
        inline_keys(self, expected, actual, ROOT, None, 0, plan)  # type: ignore[arg-type]
        if not actual.keys() <= expected.keys():
            answer_extras(self, expected, actual, ROOT, None, 0)  # type: ignore[arg-type]
