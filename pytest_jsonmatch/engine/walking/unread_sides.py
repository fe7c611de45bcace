"""The checks a walk makes of the sides the entry hands it without the door (engine/entry.py,
the unread walk): each value the walk takes must be what the door would pass as it is
(``intake.plain_within``), nested within the walk's room, or ``Unread`` is raised, for the
entry to read that side through the door and walk the record again."""

from __future__ import annotations

from typing import TypeVar

from ..core.depth import SHALLOW
from ..core.values import MISSING
from ..reading.intake import Unread, plain_within

_Value = TypeVar("_Value")  # a value of a side, handed back as it came


class UnreadSides:
    """A walk's checks of its unread sides: ``unread`` (the actual side) and
    ``unread_expected`` (the expected side, read so by a counted walk alone:
    walk.walk_counted)."""

    unread: bool
    unread_expected: bool

    def read(self, actual: _Value, depth: int) -> _Value:
        """``actual``, a value of the actual side the general walk takes at ``depth``, as
        it is when the door read that side; else it must be what the door passes as it is,
        nested within the walk's room (``SHALLOW``), or ``Unread`` is raised (see walk()).
        Depth 0 is the whole side: once it has passed, nothing of it is checked again."""
        if self.unread and actual is not MISSING and not plain_within(actual, SHALLOW - depth):
            raise Unread
        self.unread = self.unread and depth > 0  # (the whole side passed: all of it plain)
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
        """A value of a side not read through the door that the door refuses (a float that
        is not finite): ``Unread``, so that the door names it (see walk())."""
        raise Unread
