"""An environment's state read as plain JSON, so that the engine can compare it field by field.

Three kinds of state are read: an object (its public attributes, recursively), the rows of a
database (``{table: [rows]}`` as given, or read from a ``sqlite3`` connection:
state_database.py), and the files under a directory (``{relative path: content}``). The
conversions are fixed and documented in docs/metrics.md ("End states"), so that the same
state always reads to the same JSON:

- an object's public attributes (names not starting with ``_``; its ``__dict__``, else its
  ``__slots__``), a dataclass's public fields, a pydantic model's ``model_dump()``;
- tuples as arrays; sets and frozensets as arrays sorted by each element's JSON text;
- ``datetime``, ``date`` and ``time`` as ISO 8601 text, a ``timedelta`` as its seconds, a
  ``Decimal`` as a number, an ``Enum`` member as its value, a ``UUID`` or a path as text,
  ``bytes`` as UTF-8 text;
- mapping keys that are numbers, booleans or null as JSON writes them (``1`` -> ``"1"``);
- an attribute that leads back to an object still being read (a parent link: a cycle) as the
  text ``"<ref PATH>"``, PATH being where that object was read;
- text that stands for data as that data (file_data.py reads it): a file named ``*.json``,
  ``*.yaml``, ``*.yml``, ``*.toml`` or ``*.csv`` as its format's data, and the value of a
  database column declared ``JSON`` (or checked by ``json_valid``) that is a JSON object or
  array as that object or array; text that does not read so stays text.

Two states about to be compared are read alike (:func:`as_data`): each side's text that
stands for data is read as data there too (a recording or an expected state that holds a
data file's content, or a JSON column's value, as text compares as data), and a file that
does not read is compared as text, a :class:`Note` saying so for its row.

Anything else (a function, a NaN, a key that is a tuple) is a ConfigError naming its path.

A state is read inside what it was given and within bounds, since an agent under test made
it: a directory without following any symbolic link under it (a link reads as the text
``"<link to TARGET>"``; a FIFO, a socket or a device is never opened), a database without
letting any one value reach Python past its size and within MAX_DATABASE_SECONDS of sqlite's
work, and every state within the limits below (values, text, files, depth), each past its
limit a ConfigError naming the side, the place and the limit, as is a file or folder that
cannot be read.
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
import stat
import uuid
from collections.abc import Mapping
from pathlib import PurePath
from typing import Any, NamedTuple

from ..core.errors import ConfigError
from ..core.paths import display_path, index_segment, key_segment
from ..core.values import JsonValue
from .file_data import NotData, cut, data_format, read_data, yaml_refused
from .state_database import Limits, mib, read_sqlite

# The limits of one state (one side of a comparison), each a ConfigError past it:
MAX_STATE_DEPTH = 200  # levels of nesting, or folders under a directory (a chain, not data)
MAX_STATE_VALUES = 250_000  # values read (an object met again by another path is read again)
MAX_STATE_BYTES = 64 * 2**20  # text read: files' bytes, database values' bytes, text's length
MAX_VALUE_BYTES = 16 * 2**20  # one file, or one database value
MAX_STATE_FILES = 100_000  # entries under a directory: files, folders, links
MAX_DATABASE_SECONDS = 5.0  # sqlite's work to read a database (a maximal state reads in 1 s)


def read_state(state: object, side: str = "state") -> JsonValue:
    """``state`` as plain JSON: a ``sqlite3.Connection`` as its tables' rows, a directory
    (an ``os.PathLike``) as its files' content, anything else by the rules above. ``side``
    names the value in error messages (``"actual state"``, ``"turn 2 expected state"``)."""
    if isinstance(state, sqlite3.Connection):
        return read_sqlite(state, side, _Reader(side), _limits())
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
            left.count(at)  # each member looked at is a value of both sides' budgets
            right.count(at)
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


class Data(NamedTuple):
    """Text read as data: its ``value`` (the text itself where it was not read), ``note``
    (why it was not: ``not JSON (...): compared as text``; "" where it was) and the
    ``values`` and characters of ``text`` the data holds, of one state's limits."""

    value: JsonValue
    note: str
    values: int
    text: int


def text_data(fmt: str, text: str, path: str, depth: int) -> Data:
    """``text`` read as ``fmt`` (file_data.py's FORMATS) and then to JSON by the rules above,
    as the value at ``path``, ``depth`` levels down a state. Text that is not its format's
    data, or whose data alone passes a limit of a state (nesting past it, more values than
    it holds), is kept as it is, its note saying why."""
    try:
        data = read_data(fmt, text, MAX_STATE_VALUES)
    except NotData as why:
        return Data(text, why.note, 0, 0)
    reader = _Reader("its data")
    try:
        value = reader.read(data, path, depth)
    except ConfigError as error:
        return Data(text, f"read as {fmt}, {cut(str(error))}: compared as text", 0, 0)
    return Data(value, "", reader.values, reader.text)


class Note(NamedTuple):
    """A value of a state compared as text where it stands for data: ``side`` (``actual``,
    ``expected``), its ``path`` in that state and ``text``, why it is not read as data."""

    side: str
    path: str
    text: str


def as_data(
    actual: dict[str, JsonValue], expected: dict[str, JsonValue]
) -> tuple[dict[str, JsonValue], dict[str, JsonValue], tuple[Note, ...]]:
    """Two states just read (by :func:`read_state`, so each its own: changed in place),
    each text in them that stands for data read as that data, alike on both sides:

    - a top-level member named as a data file (``aisle-B.json``) that holds text: a
      directory's file, as a recording made before files were read as data or an expected
      state written by hand holds it;
    - text that opens a JSON object or array, where the other side holds an object or an
      array at the same field (``orders[].items``): a JSON column's value, or any value
      one side gives as JSON text and the other as data.

    Where that text does not read, it is compared as text and a :class:`Note` says why.
    Each side is held again to one state's limits, with the data read in place of its text."""
    notes: list[Note] = []
    for state, side in ((actual, "actual"), (expected, "expected")):
        _files_as_data(state, side, notes)
    ours, theirs = _JsonTexts(actual, "actual"), _JsonTexts(expected, "expected")
    if ours.found or theirs.found:  # (else no path is made: most states hold no such text)
        ours.walk()
        theirs.walk()
        ours.read(theirs.containers, notes)
        theirs.read(ours.containers, notes)
    ours.check("")
    theirs.check("")
    return actual, expected, tuple(notes)


def _files_as_data(state: dict[str, JsonValue], side: str, notes: list[Note]) -> None:
    """Each top-level member of ``state`` named as a data file that holds text, read as its
    data (in place; its limits are held by the count that follows, :class:`_JsonTexts`);
    YAML only where the side's YAML texts are within what is read (file_data.py's
    :func:`~.file_data.yaml_refused`)."""
    files = [
        (name, fmt, value)
        for name, value in state.items()
        if type(value) is str and (fmt := data_format(name)) is not None
    ]
    if not files:
        return
    yaml = yaml_refused(sum(len(text) for _, fmt, text in files if fmt == "YAML"))
    for name, fmt, text in files:
        path = key_segment("", name)
        data = Data(text, yaml, 0, 0) if fmt == "YAML" and yaml else text_data(fmt, text, path, 1)
        if data.note:
            notes.append(Note(side, path, data.note))
        else:
            state[name] = data.value


_Container = dict[str, JsonValue] | list[JsonValue]


class _JsonTexts:
    """One side's values and text counted (of one state's limits), and whether it holds a
    text that opens a JSON object or array (``{`` or ``[``) where it is no data file's
    content (``found``). Walked again with paths (:meth:`walk`, only where a side holds
    one): its field paths holding an object or an array (``containers``) and each such
    text, with its field path, its path, the container holding it, its key there and its
    depth."""

    def __init__(self, state: dict[str, JsonValue], side: str) -> None:
        self.state, self.side = state, side
        self.values = 1  # the state itself
        self.text = 0
        self.found = False
        self.containers: set[str] = {""}
        self.texts: list[tuple[str, str, Any, str | int, int]] = []
        stack: list[_Container] = []
        for key, item in state.items():
            self.count(item, stack)
            self.found = self.found or _json_text(item, key, 0)
        while stack:
            value = stack.pop()
            for item in value.values() if isinstance(value, dict) else value:
                self.count(item, stack)
                if not self.found and type(item) is str:
                    self.found = item.lstrip(" \t\n\r")[:1] in ("{", "[")

    def count(self, item: JsonValue, stack: list[_Container]) -> None:
        self.values += 1
        if isinstance(item, (dict, list)):
            stack.append(item)
        elif type(item) is str:
            self.text += len(item)

    def walk(self) -> None:
        stack: list[tuple[_Container, str, str, int]] = [(self.state, "", "", 0)]
        while stack:
            value, path, field, depth = stack.pop()
            keyed = isinstance(value, dict)
            members: Any = value.items() if isinstance(value, dict) else enumerate(value)
            for key, item in members:
                if isinstance(item, (dict, list)):
                    at, field_at = _paths(path, field, key, keyed)
                    self.containers.add(field_at)
                    stack.append((item, at, field_at, depth + 1))
                elif _json_text(item, key, depth):
                    at, field_at = _paths(path, field, key, keyed)
                    self.texts.append((field_at, at, value, key, depth + 1))

    def read(self, theirs: set[str], notes: list[Note]) -> None:
        """Each text at a field where the other side (``theirs``) holds an object or an
        array read as JSON (in place), the state held to its limits with it."""
        for field, path, holder, key, depth in self.texts:
            if field not in theirs:
                continue
            text = holder[key]
            data = text_data("JSON", text, path, depth)
            if data.note:
                notes.append(Note(self.side, path, data.note))
                continue
            holder[key] = data.value
            self.values += data.values - 1
            self.text += data.text - len(text)
            self.check(path)

    def check(self, path: str) -> None:
        where = f"{self.side} state at {display_path(path)}"
        if self.values > MAX_STATE_VALUES:
            raise ConfigError(f"{where}: {_too_many_values()}")
        if self.text > MAX_STATE_BYTES:
            raise ConfigError(f"{where}: {_too_much_text()}")


def _json_text(item: object, key: object, depth: int) -> bool:
    """Whether ``item`` (under ``key``, ``depth`` levels down) is a text that opens a JSON
    object or array, and no data file's content (a top-level member named as one)."""
    return (
        type(item) is str
        and item.lstrip(" \t\n\r")[:1] in ("{", "[")
        and not (depth == 0 and isinstance(key, str) and data_format(key) is not None)
    )


def _paths(path: str, field: str, key: str | int, keyed: bool) -> tuple[str, str]:
    """A member's path and field path below its container's."""
    if keyed:
        assert isinstance(key, str)
        return key_segment(path, key), key_segment(field, key)
    assert isinstance(key, int)
    return index_segment(path, key), index_segment(field, None)


def read_directory(directory: os.PathLike[str], side: str = "state") -> dict[str, JsonValue]:
    """Every file under ``directory`` as ``{relative path: content}`` (paths with ``/``,
    sorted), a file's content its text, or the data it holds where its name says a format
    (:meth:`_Tree.content`). Nothing under it is followed: a symbolic link, to a file or a
    folder, inside or outside, reads as ``"<link to TARGET>"`` (its target as written,
    nothing read there); a
    FIFO, a socket or a device is never opened and reads as ``"<FIFO>"`` (``"<socket>"``,
    ...). A file that is not UTF-8 text, or cannot be read, a folder that cannot be listed,
    and a tree past the limits are ConfigErrors naming the file or folder."""
    root = os.fspath(directory)
    if not os.path.isdir(root):
        raise ConfigError(f"{side}: {root!r} is not a directory")
    return _Tree(root, side).read()


# A folder being read: held open (its descriptor, so that what is under it is opened from
# it and never through a link in its path) where the system allows, else its path.
_Folder = int | str
_HELD = {os.open, os.readlink} <= os.supports_dir_fd and os.scandir in os.supports_fd
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_NONBLOCK = getattr(os, "O_NONBLOCK", 0)  # (a FIFO put in a file's place never blocks)
_DIRECTORY = getattr(os, "O_DIRECTORY", 0)
_SPECIAL = (
    (stat.S_ISFIFO, "<FIFO>"),
    (stat.S_ISSOCK, "<socket>"),
    (stat.S_ISCHR, "<character device>"),
    (stat.S_ISBLK, "<block device>"),
)


def _at(folder: _Folder, name: str) -> tuple[str, int | None]:
    """``name`` in ``folder`` as a path and the descriptor it is relative to."""
    return (name, folder) if isinstance(folder, int) else (os.path.join(folder, name), None)


def _same(a: os.stat_result, b: os.stat_result) -> bool:
    return (a.st_dev, a.st_ino) == (b.st_dev, b.st_ino)


class _Tree:
    """One directory read, depth first, without recursion: the folders on the way down held
    open, each entry opened from its folder without following a link, and the budget
    (entries, bytes) counted as it goes."""

    def __init__(self, root: str, side: str) -> None:
        self.root, self.side = root, side
        self.files: dict[str, JsonValue] = {}
        self.entries = 0
        self.bytes = 0
        self.values = 0  # values the data files' data holds, of MAX_STATE_VALUES
        self.text = 0  # characters of text in it (an alias repeats one), of MAX_STATE_BYTES
        self.yaml: list[str] = []  # the YAML files, read as data once all are read

    def read(self) -> dict[str, JsonValue]:
        stack: list[tuple[_Folder, str, list[tuple[str, os.stat_result]]]] = []
        try:
            # a folder is put on the stack before it is listed: closed if its listing fails
            stack.append((self.open_root(), "", []))
            stack[-1][2].extend(self.listing(stack[-1][0], ""))
            while stack:
                folder, at, pending = stack[-1]
                if not pending:
                    stack.pop()
                    _close(folder)
                    continue
                name, status = pending.pop()
                relative = f"{at}/{name}" if at else name
                if stat.S_ISDIR(status.st_mode):
                    if relative.count("/") + 1 > MAX_STATE_DEPTH:
                        raise self.fail(
                            f"folder {_shown(relative)} is more than {MAX_STATE_DEPTH} folders "
                            f"deep (the limit for one state)"
                        )
                    stack.append((self.open_folder(folder, name, relative, status), relative, []))
                    stack[-1][2].extend(self.listing(stack[-1][0], relative))
                else:
                    self.files[relative] = self.entry(folder, name, relative, status)
        finally:
            for folder, _, _ in stack:
                _close(folder)
        yaml = [(relative, self.files[relative]) for relative in sorted(self.yaml)]
        if not yaml_refused(sum(len(text) for _, text in yaml if isinstance(text, str))):
            for relative, text in yaml:
                assert isinstance(text, str)
                self.files[relative] = self.data(relative, "YAML", text)
        return dict(sorted(self.files.items()))

    def fail(self, what: str) -> ConfigError:
        return ConfigError(f"{self.side}: {what}")

    def cannot(self, what: str, relative: str, error: OSError) -> ConfigError:
        shown = _shown(relative) if relative else repr(self.root)
        return self.fail(f"cannot {what} {shown} ({error.strerror or error})")

    def open_root(self) -> _Folder:
        if not _HELD:
            return self.root
        try:  # (the directory named is opened as named, a link naming it followed)
            return os.open(self.root, os.O_RDONLY | _DIRECTORY | _NONBLOCK)
        except OSError as error:
            raise self.cannot("list folder", "", error) from None

    def open_folder(
        self, folder: _Folder, name: str, relative: str, status: os.stat_result
    ) -> _Folder:
        path, dir_fd = _at(folder, name)
        if dir_fd is None:
            if not _same(os.lstat(path), status):
                raise self.fail(f"folder {_shown(relative)} changed while it was read")
            return path
        try:
            inner = os.open(path, os.O_RDONLY | _DIRECTORY | _NOFOLLOW | _NONBLOCK, dir_fd=dir_fd)
        except OSError as error:
            raise self.cannot("list folder", relative, error) from None
        if not _same(os.fstat(inner), status):
            os.close(inner)
            raise self.fail(f"folder {_shown(relative)} changed while it was read")
        return inner

    def listing(self, folder: _Folder, relative: str) -> list[tuple[str, os.stat_result]]:
        """A folder's entries with their own status (a link's, not its target's), last name
        first (taken from the end); each counted against MAX_STATE_FILES."""
        entries: list[tuple[str, os.stat_result]] = []
        try:
            with os.scandir(folder) as found:
                for entry in found:
                    self.entries += 1
                    if self.entries > MAX_STATE_FILES:
                        raise self.fail(
                            f"more than {MAX_STATE_FILES:,} files and folders under "
                            f"{self.root!r} (the limit for one state), past it in "
                            f"{_shown(relative) if relative else 'the directory itself'}"
                        )
                    _utf8_name(self.side, entry.name, relative)
                    entries.append((entry.name, self.status(entry, relative)))
        except OSError as error:
            raise self.cannot("list folder", relative, error) from None
        entries.sort(reverse=True)
        return entries

    def status(self, entry: os.DirEntry[str], relative: str) -> os.stat_result:
        """An entry's own status (a link's, not its target's)."""
        try:
            return entry.stat(follow_symlinks=False)
        except OSError as error:
            at = f"{relative}/{entry.name}" if relative else entry.name
            raise self.cannot("read", at, error) from None

    def entry(self, folder: _Folder, name: str, relative: str, status: os.stat_result) -> JsonValue:
        """What one entry that is no folder reads to: a regular file its text, a link or a
        special file a text saying what it is (never opened)."""
        mode = status.st_mode
        if stat.S_ISREG(mode):
            return self.content(relative, self.file_text(folder, name, relative, status))
        if stat.S_ISLNK(mode):
            path, dir_fd = _at(folder, name)
            try:
                target = os.readlink(path, dir_fd=dir_fd)
            except OSError as error:
                raise self.cannot("read link", relative, error) from None
            _utf8_name(self.side, target, relative)
            self.add_bytes(len(target), relative)
            return f"<link to {target}>"
        return next((text for test, text in _SPECIAL if test(mode)), "<special file>")

    def content(self, relative: str, text: str) -> JsonValue:
        """A file's content: the data its text holds where its name says a format and the
        text reads as one (file_data.py), else its text. Data that is itself text (a JSON
        file holding a string) reads as the file's text, which reads to the same data when
        compared (:func:`as_data`). A YAML file is read once the tree is (:meth:`read`),
        where the state's YAML files are within what is read as data together."""
        fmt = data_format(relative)
        if fmt is None:
            return text
        if fmt == "YAML":
            self.yaml.append(relative)
            return text
        return self.data(relative, fmt, text)

    def data(self, relative: str, fmt: str, text: str) -> JsonValue:
        path = key_segment("", relative)
        data = text_data(fmt, text, path, 1)
        if data.note or type(data.value) is str:
            return text
        self.values += data.values
        self.text += data.text
        if self.values > MAX_STATE_VALUES:
            raise ConfigError(f"{self.side} at {display_path(path)}: {_too_many_values()}")
        if self.text > MAX_STATE_BYTES:
            raise ConfigError(f"{self.side} at {display_path(path)}: {_too_much_text()}")
        return data.value

    def add_bytes(self, size: int, relative: str) -> None:
        self.check_bytes(size, relative)
        self.bytes += size

    def check_bytes(self, size: int, relative: str) -> None:
        if size > MAX_VALUE_BYTES:
            raise self.fail(
                f"file {_shown(relative)} is {size:,} bytes, past the limit of "
                f"{mib(MAX_VALUE_BYTES)} for one file"
            )
        if self.bytes + size > MAX_STATE_BYTES:
            raise self.fail(
                f"the files under {self.root!r} are more than {mib(MAX_STATE_BYTES)} "
                f"together (the limit for one state), past it at file {_shown(relative)}"
            )

    def file_text(self, folder: _Folder, name: str, relative: str, status: os.stat_result) -> str:
        self.check_bytes(status.st_size, relative)  # refused by its size before it is opened
        path, dir_fd = _at(folder, name)
        try:
            fd = os.open(path, os.O_RDONLY | _NOFOLLOW | _NONBLOCK, dir_fd=dir_fd)
        except OSError as error:
            raise self.cannot("read file", relative, error) from None
        with os.fdopen(fd, "rb") as handle:
            opened = os.fstat(fd)
            if not (stat.S_ISREG(opened.st_mode) and _same(opened, status)):
                raise self.fail(f"file {_shown(relative)} changed while it was read")
            self.check_bytes(opened.st_size, relative)
            allowed = min(MAX_VALUE_BYTES, MAX_STATE_BYTES - self.bytes)
            try:
                # a read sized by the file (one sized by the limit would allocate all of it
                # first), then the rest of a file that grew since, to one byte past the limit
                data = handle.read(min(opened.st_size, allowed) + 1)
                if opened.st_size < len(data) <= allowed:
                    data += handle.read(allowed + 1 - len(data))
            except OSError as error:
                raise self.cannot("read file", relative, error) from None
        self.add_bytes(len(data), relative)
        return _file_text(self.side, data, relative)


def _file_text(side: str, data: bytes, relative: str) -> str:
    """A file's bytes as its text (UTF-8; line ends as text mode reads them: ``\\n``)."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise ConfigError(
            f"{side}: file {_shown(relative)} is not UTF-8 text ({error.reason})"
        ) from None
    return text.replace("\r\n", "\n").replace("\r", "\n") if "\r" in text else text


def _utf8_name(side: str, name: str, relative: str) -> None:
    """A file's name (or a link's target) is a key (or a text) of the state: UTF-8 only."""
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        where = f" in folder {_shown(relative)}" if relative else ""
        raise ConfigError(f"{side}: the name {name!r}{where} is not UTF-8 text") from None


def _close(folder: _Folder) -> None:
    if isinstance(folder, int):
        os.close(folder)


def _shown(relative: str) -> str:
    """A relative path quoted for a message, its middle cut where it is long (a deep tree)."""
    return repr(relative if len(relative) <= 160 else f"{relative[:80]}...{relative[-60:]}")


def _limits() -> Limits:
    """The limits a database's read is held to (state_database.py): this module's, as they
    are when the read starts."""
    return Limits(
        MAX_STATE_VALUES,
        MAX_STATE_BYTES,
        MAX_VALUE_BYTES,
        MAX_DATABASE_SECONDS,
        _too_many_values(),
        _too_much_text(),
    )


def _too_many_values() -> str:
    return (
        f"the state holds more than {MAX_STATE_VALUES:,} values (the limit for one state; an "
        f"object met again by another path is read again)"
    )


def _too_much_text() -> str:
    return f"the state holds more than {mib(MAX_STATE_BYTES)} of text (the limit for one state)"


class _Reader:
    """Reads one value, keeping the ids of the objects still open (for the cycle rule)."""

    def __init__(self, side: str) -> None:
        self.side = side
        self.open: dict[int, str] = {}
        self.values = 0  # values read, of MAX_STATE_VALUES
        self.text = 0  # characters of text read, of MAX_STATE_BYTES

    def fail(self, path: str, what: str) -> ConfigError:
        return ConfigError(f"{self.side} at {display_path(path)}: {what}")

    def count(self, path: str) -> None:
        """One more value read: past MAX_STATE_VALUES, the state is refused (an object
        shared by many paths, a DAG, is read along each: 2**32 paths for 32 shared levels)."""
        self.values += 1
        if self.values > MAX_STATE_VALUES:
            raise self.fail(path, _too_many_values())

    def cell(self, value: object, path: str, holds_json: bool) -> JsonValue:
        """A database value (two levels down: a table's row's column); in a column that
        holds JSON, a text that reads as a JSON object or array is read as it (any other
        value, or one that does not read, as it is stored)."""
        if holds_json and type(value) is str and value.lstrip(" \t\n\r")[:1] in ("{", "["):
            data = text_data("JSON", value, path, 2)
            if not data.note:
                self.values += data.values
                self.text += data.text
                if self.values > MAX_STATE_VALUES:
                    raise self.fail(path, _too_many_values())
                if self.text > MAX_STATE_BYTES:
                    raise self.fail(path, _too_much_text())
                return data.value
        return self.read(value, path, 2)

    def read(self, value: object, path: str, depth: int) -> JsonValue:
        self.count(path)
        if value is None or type(value) in (bool, int):
            return value  # type: ignore[return-value]
        if type(value) is str:
            self.text += len(value)
            if self.text > MAX_STATE_BYTES:
                raise self.fail(path, _too_much_text())
            return value
        if isinstance(value, float):
            if not math.isfinite(value):
                raise self.fail(path, f"{value!r} is not a JSON number")
            return float(value)
        simple = _simple(value)
        if simple is not _NOT_SIMPLE:
            self.values -= 1  # (counted once: as the value it stands for)
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
