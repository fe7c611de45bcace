"""Where a model's answer was cut off inside its JSON value (reading/truncation.py finds it).

It lives in core because two stages hold it: reading, which finds the cut, and results,
where a score made from a closed answer (``truncated="close"``) carries it so that a report
can mark the case as truncated.

A cut answer ends at its last character that is not a line break (:func:`answer_end`): a
model stopped by its token limit writes none after the cut, but a text written down as a
YAML block scalar (``|``, as docs/golden-cases.md advises) gets a final newline, which would
fall inside the string the model was writing, where JSON allows none.
"""

from __future__ import annotations

from .errors import TruncatedError
from .paths import parent_path
from .slotted import HashedSlotted
from .values import JsonObject


class Truncation(HashedSlotted):
    """Where a text was cut off inside its JSON value: the value opens at offset ``start``
    (``opened_line``, ``opened_column``), the text ends at ``line``, ``column`` (1-based; the
    column after the last character, as a JSON error gives the end of its input), and the
    value had ``chars`` characters when it was cut. ``elements``: once the value is closed
    (``truncated="close"``), the instance paths of the array elements the model was still
    writing (``items[1]``): a metric that pairs elements may leave such a half-written one
    without a partner, and its fields are then not counted as invented."""

    __slots__ = (
        "start",
        "opened_line",
        "opened_column",
        "line",
        "column",
        "chars",
        "elements",
        "open_paths",
        "cut_leaf",
    )

    start: int
    opened_line: int
    opened_column: int
    line: int
    column: int
    chars: int
    elements: tuple[str, ...]
    # once closed: the instance paths of the values still open at the cut, from the root
    # down (``""``, ``items``, ``items[1]``), and the leaf cut partway (a string closed where
    # it stopped), if one was: what the cut made incomplete, not the model
    open_paths: tuple[str, ...]
    cut_leaf: str | None

    def __init__(
        self,
        start: int,
        opened_line: int,
        opened_column: int,
        line: int,
        column: int,
        chars: int,
        elements: tuple[str, ...] = (),
        open_paths: tuple[str, ...] = (),
        cut_leaf: str | None = None,
    ) -> None:
        self.start, self.opened_line, self.opened_column = start, opened_line, opened_column
        self.line, self.column, self.chars = line, column, chars
        self.elements, self.open_paths, self.cut_leaf = elements, open_paths, cut_leaf

    @classmethod
    def of(cls, text: str, start: int) -> Truncation:
        end = answer_end(text)
        return cls(start, *_line_column(text, start), *_line_column(text, end), end - start)

    def made_by_cut(self, path: str, keyword: str) -> bool:
        """Whether a schema violation at ``path`` (``keyword``) is one the cut made: the leaf
        cut partway breaks any keyword (``"pall"`` for an enum of ``"pallet"``), and a value
        still open when the text ended lacks what would have come after (``required``,
        ``minItems``, ``minProperties``, ``contains``)."""
        if self.cut_leaf is not None and path == self.cut_leaf:
            return True
        if keyword == "required":  # named at the missing key's path: its holder was open
            return bool(path) and parent_path(path) in self.open_paths
        return keyword in _UNFINISHED and path in self.open_paths

    def error(self, text: str, what: str) -> TruncatedError:
        """The TruncatedError that says so, naming ``what`` (``actual``) and showing how the
        text ends."""
        text = text[: self.start + self.chars]  # (the line breaks after the cut left out)
        tail = text[-30:]
        ending = ("..." if len(text) > len(tail) else "") + repr(tail)
        message = (
            f"{what} was cut off: its JSON value opened at line {self.opened_line}, "
            f"column {self.opened_column} is not closed when the text ends at "
            f"{self.where()} (the answer was truncated, e.g. by max_tokens): {ending}"
        )
        return TruncatedError(
            message, self.line, self.column, self.chars, self.opened_line, self.opened_column
        )

    def where(self) -> str:
        """``line 3, column 88, after 87 characters``: where the text ends, for messages."""
        plural = "" if self.chars == 1 else "s"
        return f"line {self.line}, column {self.column}, after {self.chars:,} character{plural}"

    def to_dict(self) -> JsonObject:
        """The JSON a report keeps: where the text ends and how much of the value was written."""
        return {"line": self.line, "column": self.column, "chars": self.chars}


# what a value still open at the cut lacks because it was cut, not because the model left it out
_UNFINISHED = frozenset(("minItems", "minProperties", "contains", "minContains"))


def answer_end(text: str) -> int:
    """Where a text cut off ends: before the line breaks it ends with (see the module's
    docstring). A text with none ends where it ends."""
    if text[-1:] not in ("\n", "\r"):
        return len(text)
    return len(text.rstrip("\r\n"))


def _line_column(text: str, at: int) -> tuple[int, int]:
    return text.count("\n", 0, at) + 1, at - text.rfind("\n", 0, at)
