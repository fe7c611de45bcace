"""An environment's state read as plain JSON, so that the engine can compare it field by field.

Three kinds of state are read: an object (its public attributes, recursively), the rows of a
database (``{table: [rows]}`` as given, or read from a ``sqlite3`` connection), and the files
under a directory (``{relative path: text}``). The conversions are fixed and documented in
docs/metrics.md ("End states"), so that the same state always reads to the same JSON:

- an object's public attributes (names not starting with ``_``; its ``__dict__``, else its
  ``__slots__``), a dataclass's public fields, a pydantic model's ``model_dump()``;
- tuples as arrays; sets and frozensets as arrays sorted by each element's JSON text;
- ``datetime``, ``date`` and ``time`` as ISO 8601 text, a ``timedelta`` as its seconds, a
  ``Decimal`` as a number, an ``Enum`` member as its value, a ``UUID`` or a path as text,
  ``bytes`` as UTF-8 text;
- mapping keys that are numbers, booleans or null as JSON writes them (``1`` -> ``"1"``);
- an attribute that leads back to an object still being read (a parent link: a cycle) as the
  text ``"<ref PATH>"``, PATH being where that object was read.

Anything else (a function, a NaN, a key that is a tuple) is a ConfigError naming its path.
"""

from __future__ import annotations

import dataclasses
import datetime
import decimal
import enum
import json
import math
import os
import sqlite3
import uuid
from collections.abc import Mapping
from pathlib import PurePath
from typing import Any

from ..core.errors import ConfigError
from ..core.paths import display_path, index_segment, key_segment
from ..core.values import JsonValue

# how deep a state may nest before it is refused (a chain of linked objects, not data)
MAX_STATE_DEPTH = 200


def read_state(state: object, side: str = "state") -> JsonValue:
    """``state`` as plain JSON: a ``sqlite3.Connection`` as its tables' rows, a directory
    (an ``os.PathLike``) as its files' text, anything else by the rules above. ``side``
    names the value in error messages (``"actual state"``, ``"turn 2 expected state"``)."""
    if isinstance(state, sqlite3.Connection):
        return read_sqlite(state)
    if isinstance(state, os.PathLike):
        return read_directory(state, side)
    return _Reader(side).read(state, "", 0)


def read_state_at(value: object, path: str, side: str = "state") -> JsonValue:
    """``value`` read as the part of a larger state found at ``path`` (a cycle's reference
    names its place in that state)."""
    return _Reader(side).read(value, path, 0)


def read_apart(
    model: object, truth: object, path: str, side: str = "state"
) -> tuple[JsonValue, JsonValue]:
    """Two values that differ (by ``==``) read to JSON where they differ: where both are
    mappings, or objects of one type, the members equal on both sides are left out of both
    and each member that differs is read apart the same way; anything else is read whole.
    Compared as JSON, the two give the fields the whole values would give, less the matches:
    a large state with a small change is read along the change only."""
    return _apart(_Reader(side), _Reader(side), model, truth, path, 0)


def _apart(
    left: _Reader, right: _Reader, model: object, truth: object, path: str, depth: int
) -> tuple[JsonValue, JsonValue]:
    ours, theirs = left.members(model, path), right.members(truth, path)
    if (
        ours is None
        or theirs is None
        or depth >= MAX_STATE_DEPTH
        or not (isinstance(model, Mapping) and isinstance(truth, Mapping))
        and type(model) is not type(truth)
    ):
        return left.read(model, path, depth), right.read(truth, path, depth)
    left.open[id(model)], right.open[id(truth)] = path, path
    try:
        out_model: dict[str, JsonValue] = {}
        out_truth: dict[str, JsonValue] = {}
        same: list[object] = []  # the members equal on both sides, left out
        for key in {**ours, **theirs}:
            text = left.key(key, path)
            at = key_segment(path, text)
            if key in ours and key in theirs:
                if ours[key] == theirs[key]:
                    same.append(key)
                    continue
                out_model[text], out_truth[text] = _apart(
                    left, right, ours[key], theirs[key], at, depth + 1
                )
            elif key in ours:
                out_model[text] = left.read(ours[key], at, depth + 1)
            else:
                out_truth[text] = right.read(theirs[key], at, depth + 1)
        if same and not (out_model and out_truth):
            # an object left empty would be compared as an empty value, not as the object
            # whose members differ: one equal member keeps it an object on both sides
            text = left.key(same[0], path)
            at = key_segment(path, text)
            out_model[text] = left.read(ours[same[0]], at, depth + 1)
            out_truth[text] = right.read(theirs[same[0]], at, depth + 1)
        return out_model, out_truth
    finally:
        del left.open[id(model)], right.open[id(truth)]


def read_sqlite(connection: sqlite3.Connection) -> dict[str, JsonValue]:
    """Every table of ``connection`` (not sqlite's own) as ``{table: [rows]}``, each row an
    object of its columns. Rows are sorted by their columns in order, since a table's rows
    have no order of their own; BLOBs are read as UTF-8 text."""
    tables = connection.execute(
        "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' "
        "ORDER BY name"
    ).fetchall()
    reader = _Reader("database")
    out: dict[str, JsonValue] = {}
    for (table,) in tables:
        quoted = '"' + str(table).replace('"', '""') + '"'
        cursor = connection.execute(f"SELECT * FROM {quoted}")
        columns = [column[0] for column in cursor.description]
        rows = list(cursor.fetchall())
        rows.sort(key=_row_order)
        path = key_segment("", str(table))
        out[str(table)] = [
            {
                column: reader.read(value, key_segment(index_segment(path, index), column), 2)
                for column, value in zip(columns, row)
            }
            for index, row in enumerate(rows)
        ]
    return out


def _row_order(row: tuple[Any, ...]) -> tuple[tuple[int, str], ...]:
    """A sort key for a row whatever its cells hold (null first, then by JSON text)."""
    return tuple((0, "") if cell is None else (1, repr(cell)) for cell in row)


def read_directory(directory: os.PathLike[str], side: str = "state") -> dict[str, JsonValue]:
    """Every regular file under ``directory`` as ``{relative path: text}`` (paths with
    ``/``, sorted; symbolic links to directories are not followed). A file that is not
    UTF-8 text is a ConfigError naming it."""
    root = os.fspath(directory)
    if not os.path.isdir(root):
        raise ConfigError(f"{side}: {root!r} is not a directory")
    files: dict[str, JsonValue] = {}
    for folder, subfolders, names in os.walk(root):
        subfolders.sort()
        for name in sorted(names):
            full = os.path.join(folder, name)
            if not os.path.isfile(full):
                continue
            relative = os.path.relpath(full, root).replace(os.sep, "/")
            try:
                with open(full, encoding="utf-8") as handle:
                    files[relative] = handle.read()
            except UnicodeDecodeError as error:
                raise ConfigError(
                    f"{side}: file {relative!r} is not UTF-8 text ({error.reason})"
                ) from None
    return dict(sorted(files.items()))


class _Reader:
    """Reads one value, keeping the ids of the objects still open (for the cycle rule)."""

    def __init__(self, side: str) -> None:
        self.side = side
        self.open: dict[int, str] = {}

    def fail(self, path: str, what: str) -> ConfigError:
        return ConfigError(f"{self.side} at {display_path(path)}: {what}")

    def read(self, value: object, path: str, depth: int) -> JsonValue:
        if value is None or type(value) in (str, bool, int):
            return value  # type: ignore[return-value]
        if isinstance(value, float):
            if not math.isfinite(value):
                raise self.fail(path, f"{value!r} is not a JSON number")
            return float(value)
        simple = _simple(value)
        if simple is not _NOT_SIMPLE:
            return self.read(simple, path, depth)
        if depth >= MAX_STATE_DEPTH:
            raise self.fail(path, f"the state nests more than {MAX_STATE_DEPTH} levels deep")
        ref = self.open.get(id(value))
        if ref is not None:
            return f"<ref {display_path(ref)}>"
        self.open[id(value)] = path
        try:
            return self.container(value, path, depth)
        finally:
            del self.open[id(value)]

    def container(self, value: object, path: str, depth: int) -> JsonValue:
        if isinstance(value, Mapping):
            return self.mapping(value, path, depth)
        if isinstance(value, (list, tuple)):
            return [
                self.read(item, index_segment(path, i), depth + 1) for i, item in enumerate(value)
            ]
        if isinstance(value, (set, frozenset)):
            items = [self.read(item, index_segment(path, None), depth + 1) for item in value]
            return sorted(items, key=lambda item: json.dumps(item, sort_keys=True))
        return self.mapping(self.attributes(value, path), path, depth)

    def members(self, value: object, path: str) -> Mapping[Any, object] | None:
        """The members a value is read from when it is read as an object: a mapping's items
        or an object's public attributes; None for anything read otherwise (a leaf, a known
        type, an array, a set, an object already open: a reference)."""
        if value is None or isinstance(value, (str, bool, int, float, list, tuple, set, frozenset)):
            return None
        if _simple(value) is not _NOT_SIMPLE or id(value) in self.open:
            return None
        if isinstance(value, Mapping):
            return value
        try:
            return self.attributes(value, path)
        except ConfigError:
            return None  # (read whole, where the refusal is raised with its path)

    def mapping(self, value: Mapping[Any, object], path: str, depth: int) -> JsonValue:
        out: dict[str, JsonValue] = {}
        for key, item in value.items():
            text = self.key(key, path)
            if text in out:
                raise self.fail(path, f"two keys read as {text!r}")
            out[text] = self.read(item, key_segment(path, text), depth + 1)
        return out

    def key(self, key: object, path: str) -> str:
        if isinstance(key, str):
            return str(key)
        if (
            key is None
            or isinstance(key, (bool, int))
            or (isinstance(key, float) and math.isfinite(key))
        ):
            return json.dumps(key)
        raise self.fail(path, f"key {key!r:.60} is not text, a number, a boolean or null")

    def attributes(self, value: object, path: str) -> dict[str, object]:
        """An object's public attributes: a dataclass's fields, a model's dump, its
        ``__dict__`` or its ``__slots__``."""
        if callable(value) or isinstance(value, type):
            raise self.fail(path, f"{type(value).__name__} is not state ({value!r:.60})")
        dump = getattr(value, "model_dump", None)
        if callable(dump) and hasattr(type(value), "model_fields"):
            return dict(dump())
        if dataclasses.is_dataclass(value):
            names = [field.name for field in dataclasses.fields(value)]
        elif hasattr(value, "__dict__"):
            names = list(vars(value))
        else:
            names = [
                name
                for klass in type(value).__mro__
                for name in getattr(klass, "__slots__", ())
                if hasattr(value, name)
            ]
            if not names:
                raise self.fail(path, f"{type(value).__name__} is not state ({value!r:.60})")
        return {name: getattr(value, name) for name in names if not name.startswith("_")}


_NOT_SIMPLE = object()


def _simple(value: object) -> object:
    """The JSON a value of a known non-JSON type stands for, or _NOT_SIMPLE."""
    if isinstance(value, enum.Enum):
        return value.value
    if isinstance(value, (datetime.datetime, datetime.date, datetime.time)):
        return value.isoformat()
    if isinstance(value, datetime.timedelta):
        return value.total_seconds()
    if isinstance(value, decimal.Decimal):
        if value.is_finite() and value == value.to_integral_value():
            return int(value)
        return float(value)  # (not finite: refused as a float is)
    if isinstance(value, (uuid.UUID, PurePath)):
        return str(value) if isinstance(value, uuid.UUID) else value.as_posix()
    if isinstance(value, (bytes, bytearray)):
        try:
            return bytes(value).decode("utf-8")
        except UnicodeDecodeError:
            return _NOT_SIMPLE
    return _NOT_SIMPLE
