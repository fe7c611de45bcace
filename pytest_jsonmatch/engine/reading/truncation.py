"""Answers cut off inside their JSON value: which value was cut, and closing it.

A model stopped by ``max_tokens`` leaves a JSON value that opens and never closes. Read
leniently, such a text must not pass for one of the complete objects inside it (an item of
a list taken for the answer, its keys scored as invented at the root): the lenient parser
asks this module whether the text ends inside a value, and where that value opens.

The rule (docs/metrics.md, section 2): a ``{`` or ``[`` opens a *cut value* when the text
from it to the end is the beginning of one JSON value, valid as far as it goes (every token,
every nesting, a last token written partway), that is still open when the text ends. A
bracket with nothing but whitespace after it counts only where a value must begin (the
text's first character, a code fence's body). The text is read to its last character that
is not a line break (core/cut_off.py's ``answer_end``): an answer pasted as a YAML block
scalar (``|``) ends with a newline that YAML added, inside the string the model was writing,
and reads as the same answer without it (``|-``). A line break anywhere before stays what
it is, in a string a character JSON refuses.

The text is read by token_scan.py (NumPy, imported on the first text that needs it), from
its end: a cut value runs to the end, so a window of the last characters that holds
something no JSON value may hold settles where one can open.
"""

from __future__ import annotations

import re
from collections.abc import Collection
from typing import TYPE_CHECKING

from ..core.cut_off import answer_end
from ..core.errors import ParseError

if TYPE_CHECKING:  # token_scan (NumPy) is imported on the first text that needs it
    from .token_scan import Closing


_WINDOW = 1 << 16  # characters read first, from the end of the text
_DELIMITER = re.compile(r"[ \t\n\r{}\[\],:]")


def first_cut(text: str, lo: int, hi: int, lone: Collection[int] = ()) -> int | None:
    """The offset of the first ``{`` or ``[`` in ``[lo, hi)`` that opens a cut value (a value
    the text ends inside), or None. ``lone`` lists the offsets where a bracket with nothing
    after it still counts.

    A cut value runs to the end of the text, so the end is read first: when a window at the
    end holds, for either reading of its quotes, something no JSON value may hold, no value
    opened before the window runs through it, and the window's answer is the text's. Else
    the window grows, up to the whole text (a long answer cut off is read whole)."""
    end = answer_end(text)
    if end < len(text):
        text = text[:end]  # (offsets before the end are the same)
    if lo >= hi or lo >= end:
        return None
    from .token_scan import Scan

    size, reach = len(text), _WINDOW
    while True:
        start = lo
        if size - reach > lo:  # a window that starts after whitespace or punctuation reads
            found = _DELIMITER.search(text, size - reach)  # as the whole text does from there
            start = found.end() if found else lo
        scan = Scan(text[start:])
        readings = [scan.reading(parity) for parity in (0, 1)]
        # a reading of the window in which a string opened before it runs through it is
        # possible only when a quote stands before the window
        possible = readings if text.find('"', lo, start) != -1 else readings[:1]
        if start == lo or all(r.violation >= 0 for r in possible):
            cuts = [
                c + start
                for r in readings
                if (c := r.first_cut({x - start for x in lone})) is not None
            ]
            first = min(cuts, default=None)
            return first if first is not None and first < hi else None
        reach *= 16


def close_truncated(text: str) -> str:
    """The JSON value that ``text`` begins, closed: ``text`` cut off inside one JSON object or
    array (after any whitespace) becomes a complete one that keeps everything written in
    full. An unterminated string value is closed (a half-written escape dropped); a key with
    no value yet (``"b"``, ``"b":``), a trailing comma and a scalar written partway (``tr``,
    ``-``, ``1.``) are dropped; then every array and object still open is closed, innermost
    first. A value that is already complete is returned as it is. ParseError when ``text``
    does not begin a JSON object or array, or holds something that JSON cannot continue."""
    return closing(text).text


def closing(text: str) -> Closing:
    """``close_truncated``, with what was still open at the cut (see :class:`Closing`); a
    complete value has nothing open. A cut value is read to its text's last character that
    is not a line break (``answer_end``)."""
    lead = len(text) - len(text.lstrip(" \t\n\r"))
    if text[lead : lead + 1] not in ("{", "["):
        raise ParseError(f"cannot close {_preview(text)}: it does not begin a JSON object or array")
    from .token_scan import Closing, Scan

    value = text[lead:]
    reading = Scan(value).reading(0)
    if reading.first_cut({0}) != 0 and reading.closes_whole():
        return Closing(text, 0, False)
    end = answer_end(value)
    if end < len(value):  # not complete, and ending in line breaks: read without them
        value = value[:end]
        reading = Scan(value).reading(0)
    if reading.first_cut({0}) != 0:
        raise ParseError(
            f"cannot close {_preview(text)}: it is not the beginning of one JSON value"
        )
    closed = reading.closed(value)
    return closed._replace(text=text[:lead] + closed.text)


def _preview(text: str) -> str:
    return repr(text[:60]) + ("..." if len(text) > 60 else "")
