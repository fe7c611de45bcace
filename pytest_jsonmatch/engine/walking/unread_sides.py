"""The checks a walk makes of the sides the entry hands it without the door (engine/entry.py:
the unread walk's answer, ``evaluate_records``' gold records, ``match_json``'s expected
object): each value the walk takes must be what the door would pass as it is
(``intake.plain_within``), nested within the walk's room, or ``Unread`` is raised, for the
entry to read that side through the door and walk the record again."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, TypeVar

from ..comparing.field_spec import FieldSpec
from ..configuring.walk_config import WalkConfig
from ..core.depth import SHALLOW
from ..core.paths import Where, display_path
from ..core.values import MISSING, JsonArray, JsonObject, JsonValue
from ..pairing.array_pairs import unread_pairs
from ..pairing.flat_similarity import checked_shapes, forget_shapes
from ..reading.intake import MAX_KEYS, Unread, plain_within
from ..results.field_results import HALLUCINATION, OMISSION, Pairing, WalkOutput
from ..schemas.eval_schema import SchemaNode, checked_items
from ..schemas.flat_items import flat_items
from . import generated_scorers
from .unpaired import LoneLeaves, one_sided

_Value = TypeVar("_Value")  # a value of a side, handed back as it came
# the alignments whose pairing may take an array's answer elements unread (unread_array)
_UNREAD_ALIGNS = frozenset({"ordered", "hungarian"})
_new = tuple.__new__  # (a Pairing built as walk.py builds it)


def walks_unread(cfg: WalkConfig) -> bool:
    """Whether a walk under ``cfg`` may take an unread side: each of its ways checks what it
    takes of it. The generated scorers' configurations (``generated_scorers.compiles``),
    and those of arrays paired by similarity (structural_f1's) or by index
    (json_similarity's) under no schema-driven rule, rule or leaf depth: the inline loop
    checks the objects' keys and scalars (and the keys only the answer has, where they do
    not count: ``inline_leaves.extras_checked``), and every array paired by similarity,
    which the pair scores read, is read whole first (``key_array``)."""
    return generated_scorers.compiles(cfg) or (
        (cfg.array_mode == "similarity" or cfg.array_mode == "index")
        and not cfg.schema_driven
        and not cfg.rules
        and cfg.leaf_depth is None
    )


class UnreadSides:
    """A walk's checks of its unread sides: ``unread`` (the actual side) and
    ``unread_expected`` (the expected side, read so by a counted walk alone:
    walk.walk_counted)."""

    unread: bool
    unread_expected: bool
    # the answer array whose elements unread_array walks unread, where one does (an
    # element of it that ``Walk._walk_pairs`` hands to node() is read first: node_read)
    unread_of: object = None

    if TYPE_CHECKING:  # (the walk's, walk.Walk: its configuration, the general way of a key)
        cfg: WalkConfig
        out: WalkOutput
        lone: LoneLeaves | None

        def key_of_object(
            self,
            key: str,
            value: JsonValue,
            other: object,
            where: Where,
            props: dict[str, SchemaNode] | None,
            depth: int,
        ) -> None: ...

        def _extra_keys(
            self,
            expected: JsonObject,
            actual: JsonObject,
            where: Where,
            props: dict[str, SchemaNode] | None,
            depth: int,
        ) -> None: ...

        def array(
            self,
            expected: JsonArray,
            actual: JsonArray,
            where: Where,
            node: SchemaNode | None,
            spec: FieldSpec | None,
            depth: int,
        ) -> None: ...

        def node(
            self,
            expected: JsonValue,
            actual: JsonValue,
            where: Where,
            node: SchemaNode | None,
            depth: int,
        ) -> None: ...

        def _walk_pairs(
            self,
            scored: list[tuple[int, int, float]],
            walked: dict[tuple[int, int], WalkOutput],
            expected: JsonArray,
            actual: JsonArray,
            where: Where,
            items: SchemaNode | None,
            depth: int,
        ) -> None: ...

    def read(self, actual: _Value, depth: int) -> _Value:
        """``actual``, a value of the actual side the general walk takes at ``depth``, as
        it is when the door read that side; else it must be what the door passes as it is,
        nested within the walk's room (``SHALLOW``), or ``Unread`` is raised (see walk()).
        Depth 0 is the whole side: once it has passed, nothing of it is checked again."""
        if self.unread and actual is not MISSING and not plain_within(actual, SHALLOW - depth):
            raise Unread
        self.unread = self.unread and depth > 0  # (the whole side passed: all of it plain)
        return actual

    def read_whole(self, actual: _Value, depth: int) -> _Value:
        """``actual`` at ``depth``, of a side whose values are unread (whatever the walk's
        flag says now), checked as ``read`` checks it."""
        if actual is not MISSING and not plain_within(actual, SHALLOW - depth):
            raise Unread
        return actual

    def read_expected(self, expected: _Value, depth: int) -> _Value:
        """``expected``, a value of the expected side handed on at ``depth`` (to the general
        walk, a comparator, an omission), checked as ``read`` checks the actual side."""
        if (
            self.unread_expected
            and expected is not MISSING
            and not plain_within(expected, SHALLOW - depth)
        ):
            raise Unread
        self.unread_expected = self.unread_expected and depth > 0
        return expected

    def refuse(self) -> None:
        """A value of a side not read through the door that the door would not pass as it
        is (a float that is not finite, an object of too many keys): ``Unread``, so that the
        door reads it and names what is wrong (see walk())."""
        raise Unread

    # -- a whole value read, then walked as read ---------------------------------------------

    def key_read(
        self,
        key: str,
        value: JsonValue,
        other: object,
        where: Where,
        props: dict[str, SchemaNode] | None,
        depth: int,
    ) -> None:
        """``key_of_object`` of a value of an unread side (``self.unread``, or
        ``self.unread_expected``): each unread side's value read whole, then walked with
        both sides taken as read, so that nothing below it is read again (each level of
        nested arrays reading all below it would be quadratic)."""
        unread, unread_expected = self.unread, self.unread_expected
        other = self.read(other, depth + 1)
        value = self.read_expected(value, depth + 1)
        self.unread = self.unread_expected = False
        try:
            self.key_of_object(key, value, other, where, props, depth)
        finally:
            self.unread, self.unread_expected = unread, unread_expected

    def keys_read(
        self,
        expected: JsonObject,
        actual: JsonObject,
        where: Where,
        props: dict[str, SchemaNode] | None,
        depth: int,
    ) -> None:
        """Each key of ``expected`` its general way, then the keys only ``actual`` has: the
        general loop of ``Walk.obj``, which hands each value on as it is (each unread side
        read whole first, then walked as read)."""
        unread, unread_expected = self.unread, self.unread_expected
        actual = self.read(actual, depth)
        expected = self.read_expected(expected, depth)
        self.unread = self.unread_expected = False
        try:
            for key, value in expected.items():
                self.key_of_object(key, value, actual.get(key, MISSING), where, props, depth)
            if self.cfg.count_extras and not actual.keys() <= expected.keys():
                self._extra_keys(expected, actual, where, props, depth)
        finally:
            self.unread = unread and depth > 0
            self.unread_expected = unread_expected and depth > 0

    def extras_read(
        self,
        expected: JsonObject,
        actual: JsonObject,
        where: Where,
        props: dict[str, SchemaNode] | None,
        depth: int,
    ) -> None:
        """``_extra_keys`` after the inline loop has walked ``expected``'s keys, ``actual``
        checked first where its side is unread, then walked as read (see ``key_read``): its
        size and every key, as the door checks them, and the values of the keys only it
        has (the loop checked, or read, each value it took)."""
        unread = self.unread
        if unread:
            if len(actual) > MAX_KEYS:
                raise Unread
            levels = SHALLOW - depth - 1
            for key, value in actual.items():
                if type(key) is not str or (
                    key not in expected and not plain_within(value, levels)
                ):
                    raise Unread
            self.unread = False
        try:
            self._extra_keys(expected, actual, where, props, depth)
        finally:
            self.unread = unread and depth > 0

    def key_array(
        self, key: str, expected: JsonArray, actual: JsonArray, parent: Where, depth: int
    ) -> None:
        """Two arrays under ``key`` of the object at ``parent``, where no node or rule
        reaches them and they are not at the leaf depth: what ``Walk.node`` does with them
        (``Walk.array``, without a node or spec), their ``depth`` below. An unread expected
        side is read whole first; an unread actual side too, unless the elements pair by
        index or by counts of equal fields (which read them by type and equality alone):
        then each element is checked where the walk takes it (``unread_array``), and an
        unread expected side of a schema-driven walk is checked by the pass that infers its
        elements' node (``checked_items``: the pass over their skeleton, where one is read).
        Arrays paired by similarity whose elements are flat objects are checked by the pass
        that finds their shapes for the pair scores (``flat_arrays``)."""
        cfg = self.cfg
        if cfg.array_mode == "similarity" and self.flat_arrays(
            key, expected, actual, parent, depth
        ):
            return
        unread, unread_expected = self.unread, self.unread_expected
        # (paired by index or by counts of equal fields: unread_array reads the
        # elements the counts cannot pair)
        unread_elements = unread and (
            cfg.array_mode == "index"
            or (cfg.array_mode == "align" and cfg.default_align.mode in _UNREAD_ALIGNS)
        )
        if not unread_elements:
            actual = self.read(actual, depth)
        elif unread_expected and cfg.schema_driven and (expected or actual):
            self.elements_unread(key, expected, actual, parent, depth)  # (expected unread too)
            return
        expected = self.read_expected(expected, depth)
        self.unread, self.unread_expected = unread_elements, False
        try:
            if unread_elements and (expected or actual):
                self.elements_unread(key, expected, actual, parent, depth)
            else:
                self.array(expected, actual, parent.key(key), None, None, depth)
        finally:
            self.unread, self.unread_expected = unread, unread_expected

    def flat_arrays(
        self, key: str, expected: JsonArray, actual: JsonArray, parent: Where, depth: int
    ) -> bool:
        """``key_array`` of two arrays paired by similarity (structural_f1's) where a side
        is unread, when every element of both is an object of plain scalars: one pass over
        each side makes the door's check and the elements' shapes, which the pair scores
        then take (``flat_similarity.checked_shapes``), instead of the door's own pass and
        a second for the shapes; then walked as read. False, nothing walked, for any other
        arrays (key_array reads them whole). Apart from key_array, whose frame a deep
        array's walk stacks under all its levels, and which keeps its size."""
        unread, unread_expected = self.unread, self.unread_expected
        if not (unread or unread_expected) or not checked_shapes(expected, actual, SHALLOW - depth):
            return False
        self.unread = self.unread_expected = False
        try:
            self.array(expected, actual, parent.key(key), None, None, depth)
        finally:
            self.unread, self.unread_expected = unread, unread_expected
            forget_shapes()
        return True

    def elements_unread(
        self, key: str, expected: JsonArray, actual: JsonArray, parent: Where, depth: int
    ) -> None:
        """``key_array``'s two arrays whose answer elements are unread (``unread_array``),
        with their elements' node: where the expected side is unread too, the pass that
        infers it checks the expected elements (``checked_items``; for objects of plain
        scalars met first, ``flat_items``' one loop). Apart from key_array,
        whose frame the walk of a deep array stacks under all its levels and which keeps
        its size (see ``unread_array``)."""
        cfg = self.cfg
        if self.unread_expected:
            # (objects of plain scalars met first: checked and inferred in one pass)
            items = flat_items(expected, cfg.registry, SHALLOW - depth) or checked_items(
                expected, cfg.registry, SHALLOW - depth
            )
            self.unread_expected = False
            try:
                self.unread_array(expected, actual, parent.key(key), depth, items)
            finally:
                self.unread_expected = True
        else:
            self.unread_array(
                expected, actual, parent.key(key), depth, cfg.items_of(None, expected)
            )

    def unread_array(
        self,
        expected: JsonArray,
        actual: JsonArray,
        where: Where,
        depth: int,
        items: SchemaNode | None,
    ) -> None:
        """``Walk.array`` of two arrays, not both empty, without a node or spec, whose answer
        elements are unread (``key_array``, with ``self.unread`` set): paired by index or by
        counts of equal fields without reading them (``unread_pairs``); each element
        ``_walk_pairs`` hands to node() (``node_read``), and each lone one, read first (the
        element scorers and ``obj`` check what they take). Where they cannot be paired so,
        the answer is read whole, then walked as read. Apart from ``Walk.array``, and known
        to ``_walk_pairs`` by ``unread_of`` rather than an argument, so that the frames a
        deep value's recursion stacks are no larger for it. Its pairings and lone elements
        repeat ``Walk.array``'s last lines on purpose: both moved into shared functions
        changed ``Walk.array``'s frame, and arrays 200 deep took 15% longer (5.5 to 6.4 ms
        equal, 7.5 to 8.4 ms differing), by CPython's frame-stack chunks."""
        cfg = self.cfg
        lone_e: Sequence[int]
        lone_a: Sequence[int]
        if cfg.array_mode == "index" or cfg.default_align.mode == "ordered":
            # (unread_pairs' answer where the elements pair by index, made here: each pair's
            # indices are equal, so it shows no pairing)
            common = min(len(expected), len(actual))
            scored = [(i, i, 1.0) for i in range(common)]
            lone_e, lone_a = range(common, len(expected)), range(common, len(actual))
            by_score = False
        else:
            chosen = unread_pairs(cfg, expected, actual, where, items)
            if chosen is None:
                self.unread = False
                try:
                    self.array(expected, self.read_whole(actual, depth), where, None, None, depth)
                finally:
                    self.unread = True
                return
            scored, lone_e, lone_a = chosen
            by_score = cfg.array_mode == "align" and cfg.default_align.mode == "hungarian"
            if by_score or any(i != j for i, j, _ in scored):
                shown = display_path(where.path)
                self.out.pairings.extend(
                    _new(Pairing, (shown, i, j, score)) for i, j, score in scored
                )
        below = depth + 1
        outer, self.unread_of = self.unread_of, actual
        try:
            self._walk_pairs(scored, {}, expected, actual, where, items, depth)
        finally:
            self.unread_of = outer
        lone = self.lone
        keep = lone is not None and by_score
        for i in lone_e:
            left = expected[i], where.element(i)
            one_sided(self.out, cfg, *left, items, OMISSION, below, lone, keep)
        if cfg.count_extras:
            for j in lone_a:
                extra = self.read_whole(actual[j], below), where.element(j, where.actual_path)
                one_sided(self.out, cfg, *extra, items, HALLUCINATION, below, lone, keep)
        else:  # (not counted, still checked: the door reads the whole answer)
            for j in lone_a:
                self.read_whole(actual[j], below)

    def node_read(
        self,
        expected: JsonValue,
        actual: JsonValue,
        where: Where,
        items: SchemaNode | None,
        depth: int,
    ) -> None:
        """``Walk.node`` of an element of the array ``unread_array`` walks unread: read
        first, then walked as read (no array below it is that array: one that held itself
        would not pass the read)."""
        self.node(expected, self.read_whole(actual, depth), where, items, depth)
