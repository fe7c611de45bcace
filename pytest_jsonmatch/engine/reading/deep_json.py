"""JSON text read whole at any depth the door takes (:data:`~.intake.MAX_DEPTH` levels).

The standard library's reader recurses once per level of nesting, so how deep it reads
depends on the Python version and on the stack of its caller: about 1,000 levels on
CPython 3.10 and 3.11 (less inside a deep call), fewer than 2,000 on 3.12, past 2,000 on
3.13. Where it runs out, :func:`read_whole` reads the text again without recursion, by the
same rules
(``LENIENT_JSON``'s: NaN and Infinity refused, a key given twice keeps its last value,
control characters refused in strings; strings read by the standard library's own string
reader), and refuses a container opened past MAX_DEPTH levels with the door's own error,
naming where. Text shallow enough for the standard reader never takes the slow path.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from json import decoder
from typing import Any, cast

from ..core.errors import ParseError
from ..core.paths import display_path, index_segment, key_segment
from ..core.values import JsonValue
from .intake import MAX_DEPTH
from .parse import LENIENT_JSON

_NOT_SPACE = re.compile(r"[^ \t\n\r]")  # the first character past JSON's whitespace
_NUMBER = re.compile(r"(-?(?:0|[1-9][0-9]*))(\.[0-9]+)?([eE][-+]?[0-9]+)?")
_LITERALS = {"true": True, "false": False, "null": None}
# the standard reader's own string reader (in C where it is built): escapes, surrogate
# pairs and control characters read exactly as it reads them
_scanstring: Callable[[str, int], tuple[str, int]] = decoder.scanstring  # type: ignore[attr-defined]


def read_whole(text: str, what: str) -> JsonValue:
    """``text`` read whole as one JSON value: the standard reader where it can, else the
    reader without recursion. ValueError where the text is not one JSON value; ParseError
    (the door's message, ``what`` its side) where it nests past MAX_DEPTH levels.

    Where the standard reader reads further than MAX_DEPTH (3.13, a raised recursion
    limit), a value it read that nests deeper is read again without recursion, which
    refuses it naming where."""
    try:
        value: JsonValue = LENIENT_JSON.decode(text)
    except RecursionError:
        return _Reader(text, what).value()
    if (
        text.count("{") + text.count("[") > MAX_DEPTH
        and _reads_past_the_door()
        and _deeper_than(value, MAX_DEPTH)
    ):
        _Reader(text, what).value()  # (raises, naming where)
    return value


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


def _deeper_than(value: JsonValue, levels: int) -> bool:
    """Whether plain JSON ``value`` nests more than ``levels`` levels: its containers
    walked without recursion (a decoded value holds no cycle), scalars never stacked."""
    stack: list[tuple[Any, int]] = [(value, 1)] if isinstance(value, (dict, list)) else []
    while stack:
        node, depth = stack.pop()
        if depth > levels:
            return True
        below = depth + 1
        for child in node.values() if type(node) is dict else node:
            kind = type(child)
            if kind is dict or kind is list:
                stack.append((child, below))
    return False


class _Reader:
    """One pass over the text with an explicit stack of the containers still open, each
    with the key its next value goes under; one value read at a time."""

    def __init__(self, text: str, what: str) -> None:
        self.text, self.what = text, what
        self.at = _skip(text, 0)
        self.open: list[list[Any]] = []  # [container, key of the value being read]

    def value(self) -> JsonValue:
        text = self.text
        while True:
            value = self.scalar_or_opened()
            if value is _OPENED:
                continue
            while True:  # the value read closes every container it ends
                if not self.open:
                    if _skip(text, self.at) != len(text):
                        raise ValueError(f"extra data after the value at {self.at}")
                    return cast(JsonValue, value)
                container, key = self.open[-1]
                if key is None:
                    container.append(value)
                else:
                    container[key] = value
                if self.next_in(container):
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
        if char == "{" or char == "[":
            if len(self.open) >= MAX_DEPTH:
                self.too_deep()
            self.at = _skip(text, at + 1)
            closer = "}" if char == "{" else "]"
            if text[self.at : self.at + 1] == closer:
                self.at += 1
                return {} if char == "{" else []
            self.open.append([{}, self.key()] if char == "{" else [[], None])
            return _OPENED
        return self.number_or_literal()

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
        raise ValueError(f"expecting a value at {at}")

    def key(self) -> str:
        """An object's key and its colon; the position after them."""
        text, at = self.text, self.at
        if text[at : at + 1] != '"':
            raise ValueError(f"expecting a key at {at}")
        key, at = _scanstring(text, at + 1)
        at = _skip(text, at)
        if text[at : at + 1] != ":":
            raise ValueError(f"expecting ':' at {at}")
        self.at = _skip(text, at + 1)
        return key

    def next_in(self, container: object) -> bool:
        """After a value in ``container``: True where a comma follows (the next key read),
        False where the container closes."""
        text = self.text
        at = _skip(text, self.at)
        char = text[at : at + 1]
        if char == ",":
            self.at = _skip(text, at + 1)
            if isinstance(container, dict):
                self.open[-1][1] = self.key()
            return True
        if char == ("}" if isinstance(container, dict) else "]"):
            self.at = at + 1
            return False
        raise ValueError(f"expecting ',' or a closing bracket at {at}")

    def too_deep(self) -> None:
        path = ""
        for container, key in self.open:
            path = index_segment(path, len(container)) if key is None else key_segment(path, key)
        raise ParseError(
            f"{self.what}: values nest too deeply (more than {MAX_DEPTH:,} levels, at "
            f"{display_path(path)[:60]}...)"
        )


def _skip(text: str, at: int) -> int:
    """The position of the first character from ``at`` on that is not JSON's whitespace."""
    found = _NOT_SPACE.search(text, at)
    return len(text) if found is None else found.start()


_OPENED = object()  # a container opened: its first value is read next
