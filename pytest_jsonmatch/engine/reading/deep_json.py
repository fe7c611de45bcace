"""JSON text read at any depth the door takes (:data:`~.intake.MAX_DEPTH` levels), with the
same verdict wherever it is read from.

The standard library's reader recurses once per level of nesting, so how deep it reads
depends on the Python version and on the stack of its caller: about 1,000 levels on
CPython 3.10 and 3.11 (less inside a deep call), fewer than 1,500 on 3.12, past 2,000 on
3.13. Where the caller's stack runs out, the text is read again by the standard reader in a
thread with room for more than the door's depth (core/depth.py), so its reach no longer
depends on where it is called from: about 25,000 levels on 3.10 and 3.11, 10,000 on 3.13,
1,500 on 3.12 (whose reader stops there whatever the room). A value it read that nests past
MAX_DEPTH is refused with the door's own error, naming where. A text it cannot read even so
is read without recursion, by the same rules (``LENIENT_JSON``'s: NaN and Infinity refused,
a key given twice keeps its last value, control characters refused in strings; strings read
by the standard library's own string reader) and with the same verdicts: the same value, or
the same ``JSONDecodeError`` (its message and position) or ``ValueError``; a container it
opens past MAX_DEPTH before the text breaks is the door's error at once. So a text reads
alike at the top of a program and 200 calls deep, and the lenient search for an answer in
prose (parse.py), which resumes where an attempt broke, takes the same steps from either
place. Text shallow enough for the caller's stack never takes the slower paths.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable
from json import JSONDecodeError, JSONDecoder, decoder
from typing import Any, NoReturn, cast

from ..core.depth import call_with_depth
from ..core.errors import ParseError
from ..core.paths import display_path, index_segment, key_segment
from ..core.values import JsonValue
from .intake import MAX_DEPTH


def _reject_constant(name: str) -> NoReturn:
    raise ValueError(f"{name} is not a JSON number")


# JSON as the standard has it, for what a model returned: NaN and Infinity refused, a key
# given twice keeps its last value (parse.py's STRICT_JSON also refuses that)
LENIENT_JSON = JSONDecoder(parse_constant=_reject_constant)

_NOT_SPACE = re.compile(r"[^ \t\n\r]")  # the first character past JSON's whitespace
_NUMBER = re.compile(r"(-?(?:0|[1-9][0-9]*))(\.[0-9]+)?([eE][-+]?[0-9]+)?")
_LITERALS = {"true": True, "false": False, "null": None}
_CONSTANTS = ("NaN", "Infinity", "-Infinity")
# the standard reader's own string reader (in C where it is built): escapes, surrogate
# pairs and control characters read exactly as it reads them
_scanstring: Callable[[str, int], tuple[str, int]] = decoder.scanstring  # type: ignore[attr-defined]
# from 3.13 the standard reader names a comma before a closing bracket, at the comma
_TRAILING_COMMA = sys.version_info >= (3, 13)


def read_whole(text: str, what: str) -> JsonValue:
    """``text`` read whole as one JSON value (``LENIENT_JSON.decode``), at any depth the
    door takes: the value; ValueError where the text is not one JSON value (the standard
    reader's ``JSONDecodeError``, its message and position, or its plain ValueError for
    NaN or an integer past Python's digit limit); the door's ParseError (``what`` its side)
    where it is JSON nested past MAX_DEPTH levels, or, past the standard reader's reach
    even with room, opens a container there before it breaks."""
    value, end = _read(text, _skip(text, 0), what)
    return _whole(text, value, end)


def read_value(text: str, start: int, what: str) -> tuple[JsonValue, int]:
    """The JSON value at ``start`` and where it ends (``LENIENT_JSON.raw_decode``), read
    and refused as :func:`read_whole` reads and refuses; the text after it is not read."""
    return _read(text, start, what)


def _whole(text: str, value: JsonValue, end: int) -> JsonValue:
    """A value read from ``text``, which must hold nothing after it (json's "Extra data")."""
    end = _skip(text, end)
    if end != len(text):
        raise JSONDecodeError("Extra data", text, end)
    return value


def _read(text: str, start: int, what: str) -> tuple[JsonValue, int]:
    """The value at ``start`` and where it ends, or what the standard reader raises: its
    reading, given room where the caller's stack is too shallow (so that it reads as deep
    from anywhere), and refused past the door's depth; where it cannot read the text even
    with room (it nests thousands of levels, or 1,500 on 3.12), the reader without
    recursion's, which reads by the same rules and gives the door's error past its depth."""
    try:
        value, end, roomy = _decode(text, start)
    except RecursionError:
        return _Reader(text, what, start).read()
    if _many_opens(text, start, end) and (roomy or _reads_past_the_door()):
        path = _first_past_the_door(value)
        if path is not None:
            raise door_error(what, path)
    return value, end


# Levels the standard reader is given room for where the caller's stack runs out: past the
# door, so that its reach is the same wherever it is called from (core/depth.py sizes the
# thread's stack and recursion limit; 3.12's reader stops near 1,500 levels whatever the room)
_ROOM = MAX_DEPTH + 10


def _decode(text: str, start: int) -> tuple[JsonValue, int, bool]:
    """``LENIENT_JSON.raw_decode`` at ``start``, and whether it was read in a thread with
    room for _ROOM levels (where the caller's stack was too shallow)."""
    try:
        value, end = LENIENT_JSON.raw_decode(text, start)
    except RecursionError:
        value, end = call_with_depth(_ROOM, LENIENT_JSON.raw_decode, text, start)
        return value, end, True
    return value, end, False


def _many_opens(text: str, start: int, end: int) -> bool:
    """Whether ``text[start:end]`` opens enough containers to nest past MAX_DEPTH."""
    return (
        end - start > MAX_DEPTH
        and text.count("{", start, end) + text.count("[", start, end) > MAX_DEPTH
    )


# Nesting a little short of the door's: where the standard reader cannot read this, here and
# now, it cannot have read a value nested past the door either (a frame deeper than the
# reader's call, and a margin)
_PROBE = "[" * (MAX_DEPTH - 10) + "]" * (MAX_DEPTH - 10)


def _reads_past_the_door() -> bool:
    """Whether the standard reader may read past MAX_DEPTH where it is called from: on a
    Python whose reader recurses in C past it (3.13), or in a thread with the recursion
    limit raised (core/depth.py); elsewhere the value it read needs no walk."""
    try:
        LENIENT_JSON.decode(_PROBE)
    except RecursionError:
        return False
    return True


def _first_past_the_door(value: JsonValue) -> str | None:
    """The path of the first container (in the text's order) that ``value`` nests past
    MAX_DEPTH levels, or None. Level by level, without recursion: each level's containers
    are gathered in one pass over the level above, in the text's order, so the first one
    found past the door is the first the text opens there; the path is written out only
    for a value refused."""
    level: list[Any] = [value] if isinstance(value, (dict, list)) else []
    for _ in range(MAX_DEPTH):
        level = [
            child
            for node in level
            for child in (node.values() if type(node) is dict else node)
            if type(child) is dict or type(child) is list
        ]
        if not level:
            return None
    return _path_to_the_first(value)


def _path_to_the_first(value: JsonValue) -> str:
    """The path of the first container at MAX_DEPTH + 1 levels in ``value`` (one is there):
    the levels gathered again, each container with its parent's place in the level above
    and its own key or index, and the chain followed back from the first."""
    level: list[tuple[Any, int, str | int]] = [(value, -1, "")]
    levels = []
    for _ in range(MAX_DEPTH):
        levels.append(level)
        below: list[tuple[Any, int, str | int]] = []
        for at, (node, _, _) in enumerate(level):
            members = node.items() if type(node) is dict else enumerate(node)
            for place, child in members:
                if type(child) is dict or type(child) is list:
                    below.append((child, at, place))
        level = below
    places: list[str | int] = []
    at = 0
    for above in reversed(levels):
        _, parent, place = level[at]
        places.append(place)
        level, at = above, parent
    path = ""
    for place in reversed(places):
        path = index_segment(path, place) if isinstance(place, int) else key_segment(path, place)
    return path


def door_error(what: str, path: str) -> ParseError:
    """The door's error for a container opened past MAX_DEPTH at ``path``."""
    return ParseError(
        f"{what}: values nest too deeply (more than {MAX_DEPTH:,} levels, at "
        f"{display_path(path)[:60]}...)"
    )


class _Reader:
    """One pass over the text with an explicit stack of the containers still open, each
    with the key its next value goes under; one value read at a time. A container opened
    past MAX_DEPTH is the door's error at once, as the standard reader with all the stack
    it needs would reach it there."""

    def __init__(self, text: str, what: str, start: int = 0) -> None:
        self.text, self.what = text, what
        self.at = start
        self.open: list[list[Any]] = []  # [container, key of the value being read]

    def value(self) -> JsonValue:
        """The whole text as one value, as :func:`read_whole` reads it."""
        self.at = _skip(self.text, self.at)
        value, end = self.read()
        return _whole(self.text, value, end)

    def read(self) -> tuple[JsonValue, int]:
        """The value at the position, and where it ends."""
        while True:
            value = self.scalar_or_opened()
            if value is _OPENED:
                continue
            while True:  # the value read closes every container it ends
                if not self.open:
                    return cast(JsonValue, value), self.at
                entry = self.open[-1]
                container, key = entry
                if key is None:
                    container.append(value)
                else:
                    container[key] = value
                if self.next_in("]" if key is None else "}"):
                    if key is not None:
                        entry[1] = self.key()
                    break
                value = self.open.pop()[0]

    def scalar_or_opened(self) -> object:
        """The scalar at the position, an empty container, or _OPENED where a container
        with something in it opened (its first key read)."""
        text, at = self.text, self.at
        char = text[at : at + 1]
        if char == '"':
            string, self.at = _scanstring(text, at + 1)
            return string
        if char != "{" and char != "[":
            return self.number_or_literal()
        if len(self.open) >= MAX_DEPTH:
            raise self.door_error()
        self.at = _skip(text, at + 1)
        if text.startswith("}" if char == "{" else "]", self.at):
            self.at += 1
            return {} if char == "{" else []
        self.open.append([{}, self.key()] if char == "{" else [[], None])
        return _OPENED

    def number_or_literal(self) -> object:
        text, at = self.text, self.at
        number = _NUMBER.match(text, at)
        if number is not None:
            self.at = number.end()
            whole, fraction, exponent = number.groups()
            if fraction or exponent:
                return float(whole + (fraction or "") + (exponent or ""))
            return int(whole)  # (ValueError past Python's digit limit, as json's reader)
        for word, literal in _LITERALS.items():
            if text.startswith(word, at):
                self.at = at + len(word)
                return literal
        for name in _CONSTANTS:
            if text.startswith(name, at):
                _reject_constant(name)  # (as LENIENT_JSON's parse_constant)
        raise JSONDecodeError("Expecting value", text, at)

    def key(self) -> str:
        """An object's key and its colon; the position after them."""
        text, at = self.text, self.at
        if text[at : at + 1] != '"':
            raise JSONDecodeError("Expecting property name enclosed in double quotes", text, at)
        key, at = _scanstring(text, at + 1)
        at = _skip(text, at)
        if text[at : at + 1] != ":":
            raise JSONDecodeError("Expecting ':' delimiter", text, at)
        self.at = _skip(text, at + 1)
        return key

    def next_in(self, closer: str) -> bool:
        """After a value in a container closed by ``closer``: True where a comma follows
        (the position after it and its white space), False where the container closes."""
        text = self.text
        at = _skip(text, self.at)
        char = text[at : at + 1]
        if char == ",":
            self.at = _skip(text, at + 1)
            if _TRAILING_COMMA and text.startswith(closer, self.at):
                kind = "object" if closer == "}" else "array"
                raise JSONDecodeError(f"Illegal trailing comma before end of {kind}", text, at)
            return True
        if char == closer:
            self.at = at + 1
            return False
        raise JSONDecodeError("Expecting ',' delimiter", text, at)

    def door_error(self) -> ParseError:
        """The door's error for a container opened past MAX_DEPTH here, naming where."""
        path = ""
        for container, key in self.open:
            path = index_segment(path, len(container)) if key is None else key_segment(path, key)
        return door_error(self.what, path)


def _skip(text: str, at: int) -> int:
    """The position of the first character from ``at`` on that is not JSON's whitespace."""
    found = _NOT_SPACE.search(text, at)
    return len(text) if found is None else found.start()


_OPENED = object()  # a container opened: its first value is read next
