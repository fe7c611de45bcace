"""Two plain arrays paired by index (json_similarity's, as ``inline_leaves._node_less`` hands
them on), walked in one loop that is also the door's check of an unread expected array.

``inline_leaves.index_array`` checks an unread expected array whole (``plain_within``: a
pass over every element and every key below), then walks its elements, which reads each of
them again. Here the walk's own reading stands for that pass: each element is checked where
the loop takes it, as the door would check it, and anything else is read whole first, so
that every value the door refuses or copies (NaN and the infinities, a tuple, a subclass of
``str``, ``int`` or ``float``, a mapping that is not a ``dict``, a key that is not a string,
an object past the door's bound on keys, nesting past the walk's room, a value that holds
itself) still raises ``Unread`` before anything is counted, and the entry reads the pair
through the door (engine/entry.py, ``Entry.unread_pair``):

- an object element (against an object): its size and depth here, its keys and scalars by
  the inline loop (``inline_keys`` with the expected side unread: each key a string, each
  float finite, each value it hands on read whole), objects and arrays below it by the
  loop's own ways, which check them so too;
- a scalar element the plan scores: its type is one of the plan's (exact types: a subclass
  finds none), a float finite;
- any other element, and each element past the answer's end: read whole first
  (``Walk.read_expected``), then walked as read.

The pairs, the fields and their order are ``index_array``'s and ``plain_pairs``' to the bit
(switch ``FOLDED_CHECK``; tests/engine/test_index_elements.py holds both ways equal and the
door's refusals).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..comparing.comparators import score_at
from ..configuring.walk_config import WalkConfig
from ..core.depth import SHALLOW
from ..core.paths import KEY_FORMS, Where, new_key_forms
from ..core.values import JsonArray, JsonObject, JsonValue
from ..reading.intake import MAX_KEYS, Unread
from ..results.field_results import (
    HALLUCINATION,
    MATCH,
    MISMATCH,
    OMISSION,
    FieldResult,
    WalkOutput,
)
from ..schemas.eval_schema import SchemaNode
from . import inline_leaves
from .inline_leaves import Loop, answer_extras, inline_keys
from .ordered_elements import INDEX_SUFFIXES
from .unpaired import LoneLeaves, one_sided

# The switch of this fast path (docs/architecture.md, "Fast paths"): False walks two plain
# arrays paired by index by ``inline_leaves.index_array`` (the expected array checked whole
# first, then its elements walked by ``plain_pairs``).
FOLDED_CHECK = True

_new = tuple.__new__  # (Where and FieldResult built as the walk builds them)
_known_forms = KEY_FORMS.get
_SUFFIXES = len(INDEX_SUFFIXES)
# the scalar types the door passes as they are whatever their value (a float only finite)
_PLAIN_EXACT = frozenset({str, int, bool, type(None)})
_NO_COMPARATORS: dict[type, Any] = {}
# what an element's loop holds past its parent's plan, append, null rule and ``unread``: the
# expected side unread or not, keys taken as ``direct``, objects below walked with its plan
_UNREAD_ELEMENTS = (True, True, True)
_READ_ELEMENTS = (False, True, True)


class IndexElements:
    """``index_array``, a part of the walk (walk.Walk builds on it)."""

    cfg: WalkConfig
    out: WalkOutput
    unread: bool
    unread_expected: bool
    lone: LoneLeaves | None

    if TYPE_CHECKING:  # (the walk's, walk.Walk and its parts)

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

        def read_expected(self, expected: Any, depth: int) -> Any: ...

        def read_whole(self, actual: Any, depth: int) -> Any: ...

        def extras_read(
            self,
            expected: JsonObject,
            actual: JsonObject,
            where: Where,
            props: dict[str, SchemaNode] | None,
            depth: int,
        ) -> None: ...

    def index_array(
        self,
        key: str,
        expected: JsonArray,
        actual: JsonArray,
        parent: Where,
        depth: int,
        loop: Loop,
    ) -> None:
        """``inline_leaves.index_array`` of key ``key``'s two arrays at ``depth`` below the
        object at ``parent`` (``loop``: that object's), with an unread expected array
        checked by the elements' own loop (see the module's docstring)."""
        if not FOLDED_CHECK:
            inline_leaves.index_array(self, key, expected, actual, parent, depth, loop)  # type: ignore[arg-type]
            return
        unread_e = self.unread_expected
        if unread_e and depth >= SHALLOW:
            raise Unread  # (no room for the array: the door reads it, and names it)
        path, field, actual_path = parent
        forms = _known_forms(key) or new_key_forms(key)
        path = path + forms[1 if path else 0]
        field = path if field == parent[0] else field + forms[1 if field else 0]
        moved = None if actual_path is None else actual_path + forms[1]
        common = len(expected) if len(expected) < len(actual) else len(actual)
        below = depth + 1
        if common:
            plan = loop[0]
            element_loop = loop[:4] + (_UNREAD_ELEMENTS if unread_e else _READ_ELEMENTS)
            by_type = plan[0] if inline_leaves.SCALAR_ELEMENTS else _NO_COMPARATORS
            fields = self.out.fields
            element_field = field + "[]"
            index = INDEX_SUFFIXES if common <= _SUFFIXES else [f"[{k}]" for k in range(common)]
            e: Any  # (read by their types, which mypy cannot follow)
            a: Any
            for i in range(common):
                e, a = expected[i], actual[i]
                kind = type(e)
                if kind is dict and type(a) is dict:
                    if unread_e and (len(e) > MAX_KEYS or below >= SHALLOW):
                        raise Unread  # (past the door's bound on keys, or the walk's room)
                    at = _new(
                        Where,
                        (
                            path + index[i],
                            element_field,
                            None if moved is None else moved + index[i],
                        ),
                    )
                    inline_keys(self, e, a, at, None, below, plan, element_loop)  # type: ignore[arg-type]
                    if not a.keys() <= e.keys():
                        answer_extras(self, e, a, at, None, below)  # type: ignore[arg-type]
                    continue
                comparator = by_type.get(kind)
                if comparator is not None and (
                    type(a) in _PLAIN_EXACT or (type(a) is float and a - a == 0.0)
                ):
                    if kind is float and e - e != 0.0:
                        raise Unread  # (NaN or an infinity: only an unread side holds one)
                    at_path = path + index[i]
                    # (Walk.leaf's score, as plain_pairs makes it)
                    if kind is type(a) and e == a and comparator.equal_one:
                        status, score = MATCH, 1.0
                    else:
                        score = score_at(comparator, e, a, at_path)
                        status = MATCH if score >= 1.0 else MISMATCH
                    fields.append(
                        _new(
                            FieldResult,
                            (
                                at_path,
                                status,
                                score,
                                e,
                                a,
                                comparator.name,
                                "",
                                element_field,
                                None if moved is None else moved + index[i],
                                1.0,
                                None,
                            ),
                        )
                    )
                    continue
                at = _new(
                    Where,
                    (path + index[i], element_field, None if moved is None else moved + index[i]),
                )
                self._element(e, a, at, below, unread_e)
        if len(expected) > common or len(actual) > common:
            self._past_the_end(expected, actual, _new(Where, (path, field, moved)), common, below)

    def _past_the_end(
        self, expected: JsonArray, actual: JsonArray, where: Where, common: int, below: int
    ) -> None:
        """The elements of one array past the other's end (``index_array``'s last steps):
        expected's omitted, each read first where its side is unread; the answer's checked
        where unread, and hallucinated where extras count."""
        cfg = self.cfg
        for i in range(common, len(expected)):
            left = self.read_expected(expected[i], below)  # (checked where still unread)
            one_sided(self.out, cfg, left, where.element(i), None, OMISSION, below, self.lone)
        for j in range(common, len(actual)):
            extra = self.read_whole(actual[j], below) if self.unread else actual[j]
            if cfg.count_extras:
                at = where.element(j, where.actual_path)
                one_sided(self.out, cfg, extra, at, None, HALLUCINATION, below, self.lone)

    def _element(
        self, expected: JsonValue, actual: JsonValue, at: Where, below: int, unread_e: bool
    ) -> None:
        """A pair of elements neither the inline loop nor the plan's comparators take, as
        ``plain_pairs`` walks it (an unread answer's element read first: ``node_read``), an
        unread expected element read whole first, then walked as read."""
        if not unread_e:
            (self.node_read if self.unread else self.node)(expected, actual, at, None, below)
            return
        expected = self.read_expected(expected, below)
        self.unread_expected = False
        try:
            (self.node_read if self.unread else self.node)(expected, actual, at, None, below)
        finally:
            self.unread_expected = True
