"""Plain-text tables that fit a terminal: columns sized to their content, the first column cut
(from the left, keeping the end of a path) when the table would be wider than the terminal,
and any line longer than the width cut rather than wrapped."""

from __future__ import annotations

import re
import textwrap
from collections.abc import Sequence

ELLIPSIS = "…"
_MIN_FIRST = 12  # the first column is never cut shorter than this


def cut_left(text: str, width: int) -> str:
    """``text`` in at most ``width`` characters, its beginning replaced by an ellipsis."""
    if len(text) <= width:
        return text
    return ELLIPSIS + text[len(text) - width + 1 :] if width > 1 else text[:width]


def cut_right(text: str, width: int) -> str:
    """``text`` in at most ``width`` characters, its end replaced by an ellipsis."""
    if len(text) <= width:
        return text
    return text[: width - 1] + ELLIPSIS if width > 1 else text[:width]


def table(rows: Sequence[Sequence[str]], width: int, indent: str = "") -> list[str]:
    """The rows (the first is the header) as aligned lines within ``width`` characters: the
    first column left-aligned, the others right-aligned, two spaces between columns.

    Only the first column (names: field paths, case ids) is ever shortened, and so that
    names that differ still differ (:func:`shorten_apart`); a number or a header is never
    cut: a table that cannot fit with its first column at its least is printed wider than
    ``width`` rather than with a figure missing."""
    if not rows:
        return []
    columns = len(rows[0])
    widths = [max(len(row[i]) for row in rows) for i in range(columns)]
    others = sum(widths[1:]) + 2 * (columns - 1) + len(indent)
    firsts = [row[0] for row in rows]
    if others + widths[0] > width:
        widths[0] = max(_MIN_FIRST, width - others)
        firsts = shorten_apart(firsts, widths[0])
    lines = []
    for row, first in zip(rows, firsts):
        cells = [first.ljust(widths[0])]
        cells += [cell.rjust(w) for cell, w in zip(row[1:], widths[1:])]
        lines.append((indent + "  ".join(cells)).rstrip())
    return lines


def shorten_apart(names: Sequence[str], width: int) -> list[str]:
    """Each name in at most ``width`` characters, distinct names kept distinct: cut from the
    left (the end of a path names its field), and where two would then read the same
    (``…s_weight_kg`` for ``containers[].gross_weight_kg`` and ``total_gross_weight_kg``),
    with as much of their beginnings as tells them apart (``con…weight_kg``,
    ``tot…weight_kg``)."""
    out = [cut_left(name, width) for name in names]
    seen: dict[str, set[str]] = {}
    for name, short in zip(names, out):
        seen.setdefault(short, set()).add(name)
    for short, originals in seen.items():
        if len(originals) < 2:
            continue
        apart = _apart(sorted(originals), width)
        out = [apart.get(name, s) if s == short else s for name, s in zip(names, out)]
    return out


def _apart(names: Sequence[str], width: int) -> dict[str, str]:
    """Names that cut alike, each as its head, an ellipsis and its tail, the head as long as
    it must be for all to differ (the tail as long as the rest of ``width`` allows)."""
    for head in range(1, width - 1):
        cut = {
            name: name[:head] + ELLIPSIS + name[len(name) - (width - head - 1) :] for name in names
        }
        if len(set(cut.values())) == len(names):
            return cut
    return {name: name for name in names}  # no cut tells them apart: whole, however wide


def fit(line: str, width: int) -> str:
    """A line cut to the terminal's width (a table row, a heading)."""
    return cut_right(line, width)


def wrap(line: str, width: int) -> list[str]:
    """A prose line (a reason, a warning) wrapped to the terminal's width; continuation lines
    are indented two more spaces than the first."""
    if len(line) <= width:
        return [line]
    indent = " " * (len(line) - len(line.lstrip(" ")))
    return textwrap.wrap(
        line,
        width,
        initial_indent="",
        subsequent_indent=indent + "  ",
        break_long_words=True,
        break_on_hyphens=False,
    ) or [line]


def escape_controls(text: str) -> str:
    """``text`` with control characters (a terminal escape sequence, a newline) shown as
    escapes, so that data can never drive the terminal or break a line."""
    if text.isprintable():
        return text
    return "".join(
        ch if ch.isprintable() else ch.encode("unicode_escape").decode("ascii") for ch in text
    )


_SURROGATE = re.compile("[\ud800-\udfff]")


def without_surrogates(text: str) -> str:
    """``text`` with each lone surrogate (half of a UTF-16 pair, which a model's text can
    hold but UTF-8 cannot encode) written as its escape, ``\\ud800``: a report file holding
    one can always be written, and shows where it was."""
    return _SURROGATE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


def guard(line: str) -> str:
    """A line of standard output that cannot be a GitHub Actions workflow command: the
    runner reads a line whose text (after leading white space) starts with ``::`` as one
    (``::add-mask::``, ``::stop-commands::``), so data that would start a line so, after
    any wrapping, has a zero-width space put between its two colons."""
    stripped = line.lstrip()
    if stripped.startswith("::"):
        start = len(line) - len(stripped)
        return line[:start] + ":\u200b" + line[start + 1 :]
    return line


def guarded(lines: list[str]) -> list[str]:
    return [guard(line) for line in lines]
