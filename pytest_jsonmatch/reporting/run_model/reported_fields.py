"""One field of a recorded comparison, as a report keeps it: a ``NamedTuple``, made per
field of every comparison a report reads back (comparisons.py makes them).

This module's annotations are evaluated (it has no ``from __future__ import
annotations``): typing reads a ``NamedTuple``'s field types when the class is made, and
compiles each one written as a string; on a command of one record, those compiles were the
only ones it ran (docs/performance.md).
"""

from typing import NamedTuple

from ...engine.core.values import JsonValue


class ReportedField(NamedTuple):
    """One field of a recorded comparison. ``expected``/``actual`` hold the values as the
    report keeps them (see ``comparisons.kept_value``); ``present`` says which sides have
    one."""

    path: str
    field_path: str
    status: str
    score: float
    expected: JsonValue = None
    actual: JsonValue = None
    present: str = ""  # "e" and/or "a"; "!" after a side's letter: its value was cut
