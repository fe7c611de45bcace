"""Plain-text tables that fit a terminal: columns sized to their content; when a table would be
wider than the terminal, the first column (names: field paths, case ids) shortened in the
middle, keeping a path's last part whole, and a name that cannot be shortened so put on a line
of its own above its figures (or, in a table that says where it may be split, the columns
past that point moved to a second table, so that every name stays whole on the line of its
figures); any other line longer than the width cut rather than wrapped."""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence

from ...engine.core.errors import printable, workflow_safe

ELLIPSIS = "…"
_MIN_FIRST = 20  # the first column is never made narrower than this (or its longest name)
_MIN_HEAD = 3  # a name shortened in the middle keeps at least this much of its beginning


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


def table(
    rows: Sequence[Sequence[str]], width: int, indent: str = "", split_at: int = 0
) -> list[str]:
    """The rows (the first is the header) as aligned lines within ``width`` characters: the
    first column left-aligned, the others right-aligned, two spaces between columns.

    With ``split_at`` (a column index past the first), a table whose names do not all fit
    whole is printed as two tables one under the other, each starting with the names: the
    columns before ``split_at``, then the others (a path or a metric's name is read whole,
    on the line of its figures, rather than shortened or on a line of its own).

    Only the first column (names: field paths, case ids) is ever shortened: in the middle,
    a path's last part kept whole and names that differ still different (:func:`shorten_apart`);
    a name that cannot keep its last part and the start of its beginning in the column, or any
    name that does not fit where the figures leave fewer than :data:`_MIN_FIRST` characters,
    is written on a line of its own, its figures on the next. A number or a header is never
    cut: a table whose figures alone are wider than ``width`` is printed wider rather than
    with a figure missing."""
    if not rows:
        return []
    if 1 < split_at < len(rows[0]) and not _names_fit(rows, width, indent):
        before = [row[:split_at] for row in rows]
        after = [[row[0], *row[split_at:]] for row in rows]
        return table(before, width, indent) + table(after, width, indent)
    columns = len(rows[0])
    widths = [max(len(row[i]) for row in rows) for i in range(columns)]
    others = sum(widths[1:]) + 2 * (columns - 1) + len(indent)
    firsts = [row[0] for row in rows]
    alone: set[int] = set()  # the rows whose name has a line of its own
    room = width - others
    if widths[0] > room >= _MIN_FIRST:
        widths[0] = room
        firsts = shorten_apart(firsts, room)
    elif widths[0] > room:  # the figures leave too little: names that do not fit stand alone
        widths[0] = max(room, len(firsts[0]))
        firsts = [first if len(first) <= widths[0] else _WHOLE for first in firsts]
    alone = {i for i, first in enumerate(firsts) if first is _WHOLE}
    lines = []
    for i, (row, first) in enumerate(zip(rows, firsts)):
        if i in alone:
            lines.append(indent + cut_middle(row[0], width - len(indent)))
            first = ""
        cells = [first.ljust(widths[0])]
        cells += [cell.rjust(w) for cell, w in zip(row[1:], widths[1:])]
        lines.append((indent + "  ".join(cells)).rstrip())
    return lines


def _names_fit(rows: Sequence[Sequence[str]], width: int, indent: str) -> bool:
    """Whether the rows fit ``width`` with every name (the first column) whole."""
    columns = len(rows[0])
    widths = [max(len(row[i]) for row in rows) for i in range(columns)]
    return sum(widths) + 2 * (columns - 1) + len(indent) <= width


# what shorten_apart gives for a name that keeps no readable form in the width: the table
# writes it on a line of its own
_WHOLE = "\x00whole"


def cut_middle(name: str, width: int) -> str:
    """``name`` in at most ``width`` characters: its beginning, an ellipsis and its end, the
    end its last part (``rebook_flight.flight_no`` in 16: ``rebook…flight_no``), or as much
    of it as fits after the first :data:`_MIN_HEAD` characters."""
    if len(name) <= width:
        return name
    if width < 2 + _MIN_HEAD:
        return cut_left(name, width)
    head = max(_MIN_HEAD, width - 1 - len(_last_part(name)))
    return name[:head] + ELLIPSIS + name[len(name) - (width - 1 - head) :]


@functools.cache
def _last_part_pattern() -> re.Pattern[str]:
    """A path's last key, with its index (compiled when a long name is first shortened)."""
    return re.compile(r"[^.\[\]]+(?:\[\d*\])?$")


def _last_part(name: str) -> str:
    found = _last_part_pattern().search(name)
    return found.group() if found is not None else name


def _readable(name: str, width: int) -> bool:
    """Whether ``name`` shortened in the middle to ``width`` keeps its last part whole and at
    least the first :data:`_MIN_HEAD` characters of its beginning."""
    return len(name) <= width or len(_last_part(name)) + 1 + _MIN_HEAD <= width


def shorten_apart(names: Sequence[str], width: int) -> list[str]:
    """Each name in at most ``width`` characters, distinct names kept distinct: shortened in
    the middle (its last part names the field; its beginning says where it is), and where two
    would then read the same (``con…weight_kg`` for ``containers[].gross_weight_kg`` and
    ``con…weight_kg`` for ``containers_total.gross_weight_kg``), with as much of their
    beginnings as tells them apart. A name that cannot keep its last part whole in ``width``
    is given as :data:`_WHOLE`."""
    out = [cut_middle(name, width) if _readable(name, width) else _WHOLE for name in names]
    seen: dict[str, set[str]] = {}
    for name, short in zip(names, out):
        seen.setdefault(short, set()).add(name)
    for short, originals in seen.items():
        if len(originals) < 2 or short is _WHOLE:
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
    import textwrap  # (here: a run whose lines all fit never imports it)

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


def page_text(text: str, keep: str = "\n\t") -> str:
    """``text`` from the data as a page (the Markdown report and step summary, the HTML page)
    shows it: each control and format character (an escape sequence; a bidirectional control
    such as U+202E, which would show the text around it reversed; a zero-width joiner; a lone
    surrogate, which UTF-8 cannot encode) written as its escape, ``\\u202e``, by the one rule
    the terminal and every message keep (engine/core/errors.py ``printable``), but those in
    ``keep``: a line's end and a tab, which a page lays out as white space."""
    return printable(text, keep)


def guard(line: str) -> str:
    """A line of standard output that cannot be a GitHub Actions workflow command (after
    any wrapping): the rule every error's text keeps too (engine/core/errors.py)."""
    return workflow_safe(line)


def guarded(lines: list[str]) -> list[str]:
    return [guard(line) for line in lines]
