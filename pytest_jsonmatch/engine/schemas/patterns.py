"""Schema regular expressions (``pattern``, ``patternProperties``, ``propertyNames``' own
``pattern``), searched with a time bound.

A schema comes from a file, and a file may come from anyone's pull request: a pattern such as
``^(a+)+$`` or ``^(a|aa)+$`` backtracks for longer than the universe lasts on a string of a
hundred characters. Patterns are therefore compiled by the ``regex`` package (its VERSION0
syntax: Python's ``re``, plus possessive quantifiers and atomic groups; lookaround and
backreferences are kept, which a backtracking-free engine such as RE2 would refuse) and each
search runs under a time budget. A search past its budget is a :class:`PatternTimeout`, a
SchemaError naming the schema node and the pattern: it ends the comparison it was part of
(a test errors, a dataset line is scored as unscorable), never the run.
"""

from __future__ import annotations

import regex

from ..core.errors import SchemaError

# Seconds one search may take: a base, and more for a long subject, so that an honest pattern
# over a long string is never cut short (a linear pattern reads well over 10 MB a second).
SEARCH_SECONDS = 0.1
SECONDS_PER_CHARACTER = 1e-7


class PatternTimeout(SchemaError):
    """A schema pattern's search ran past its time budget (catastrophic backtracking)."""


class BoundedPattern:
    """A compiled schema pattern whose :meth:`search` has a time bound; ``where`` is the
    schema node and keyword it came from (``#/properties/a/pattern``), for the error."""

    __slots__ = ("pattern", "where", "origin", "_compiled")

    def __init__(self, pattern: str, where: str, origin: str) -> None:
        self.pattern = pattern
        self.where = where
        self.origin = origin
        self._compiled = regex.compile(pattern, flags=regex.VERSION0)

    def search(self, text: str) -> regex.Match[str] | None:
        """The first match in ``text``, or None; a PatternTimeout past the budget."""
        try:
            return self._compiled.search(
                text, timeout=SEARCH_SECONDS + SECONDS_PER_CHARACTER * len(text)
            )
        except TimeoutError:
            raise PatternTimeout(
                f"{self.origin}: node {self.where}: the pattern {self.pattern!r} took more than "
                f"its time budget on a string of {len(text)} characters (it backtracks "
                f"catastrophically: rewrite it without nested repetition, e.g. '^a+$' for "
                f"'^(a+)+$'); this comparison is not scored"
            ) from None

    def __repr__(self) -> str:
        return f"BoundedPattern({self.pattern!r})"


def compile_pattern(pattern: str, where: str, origin: str) -> BoundedPattern:
    """``pattern`` compiled; a ``regex.error`` (a ValueError) where it does not read."""
    return BoundedPattern(pattern, where, origin)


PatternError = regex.error
