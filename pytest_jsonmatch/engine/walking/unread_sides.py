"""The checks a walk makes of the sides the entry hands it without the door (engine/entry.py:
the unread walk's answer, ``evaluate_records``' gold records, ``match_json``'s expected
object): each value the walk takes must be what the door would pass as it is
(``intake.plain_within``), nested within the walk's room, or ``Unread`` is raised, for the
entry to read that side through the door and walk the record again."""

from __future__ import annotations

from typing import TYPE_CHECKING, TypeVar

from ..comparing.field_spec import FieldSpec
from ..configuring.walk_config import WalkConfig
from ..core.depth import SHALLOW
from ..core.paths import Where
from ..core.values import MISSING, JsonArray, JsonObject, JsonValue
from ..reading.intake import Unread, plain_within
from ..schemas.eval_schema import SchemaNode

_Value = TypeVar("_Value")  # a value of a side, handed back as it came
# the alignments whose pairing may take an array's answer elements unread (Walk.array)
_UNREAD_ALIGNS = frozenset({"ordered", "hungarian"})


class UnreadSides:
    """A walk's checks of its unread sides: ``unread`` (the actual side) and
    ``unread_expected`` (the expected side, read so by a counted walk alone:
    walk.walk_counted)."""

    unread: bool
    unread_expected: bool

    if TYPE_CHECKING:  # (the walk's, walk.Walk: its configuration, the general way of a key)
        cfg: WalkConfig

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
            unread: bool = False,
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
        """``_extra_keys``, ``actual`` read first where its side is unread (all of it: its
        keys are what the door checks), then walked as read (see ``key_read``)."""
        unread = self.unread
        if unread:
            actual = self.read(actual, depth)
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
        then each element is checked where the walk takes it (``Walk.array``)."""
        cfg = self.cfg
        unread, unread_expected = self.unread, self.unread_expected
        # (paired by index or by counts of equal fields: Walk.array reads the elements the
        # counts cannot pair)
        unread_elements = unread and (
            cfg.array_mode == "index"
            or (cfg.array_mode == "align" and cfg.default_align.mode in _UNREAD_ALIGNS)
        )
        if not unread_elements:
            actual = self.read(actual, depth)
        expected = self.read_expected(expected, depth)
        self.unread, self.unread_expected = unread_elements, False
        try:
            self.array(expected, actual, parent.key(key), None, None, depth, unread_elements)
        finally:
            self.unread, self.unread_expected = unread, unread_expected
