"""The error family of pytest-jsonmatch.

Every error the project raises on purpose derives from :class:`JsonMatchError`, so a
caller can catch them all in one place; the subclasses say which kind of mistake it was.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any


class JsonMatchError(Exception):
    """Root of every error pytest-jsonmatch raises on purpose.

    Its text is safe to print wherever it is printed (pytest shows it in the failure, the
    short summary and ``--tb=line`` or ``native`` tracebacks, a log keeps it): whatever the
    message holds (a tool name a model chose, a setting's value), :func:`safe_text` escapes
    its control characters and keeps each line from starting a CI workflow command. It is
    applied where the text is read, so a subclass with an ``__init__`` of its own is covered
    too. An error pickles whole (its message and attributes, its ``__init__`` not called
    again), whatever that ``__init__`` takes: a worker process's error reaches its parent."""

    def __str__(self) -> str:
        return safe_text(super().__str__())

    def __reduce__(self) -> tuple[Any, ...]:
        return _rebuilt, (type(self), self.args), self.__dict__ or None


class ParseError(JsonMatchError, ValueError):
    """A value could not be read as JSON (strictly for expected, leniently for actual).
    ``side`` is ``"actual"`` when it was the answer that could not be read (match_json sets
    it): such an answer counts as invalid against its schema."""

    side: str = ""


class TruncatedError(ParseError):
    """A model's answer cut off inside its JSON value (stopped by ``max_tokens``, usually):
    the value opens and the text ends before it closes. ``line`` and ``column`` (1-based) are
    where the text ends, as a JSON error position gives the end of its input; ``chars`` is
    how many characters of the value were written; ``opened_line`` and ``opened_column`` are
    where it opens."""

    def __init__(
        self,
        message: str,
        line: int = 0,
        column: int = 0,
        chars: int = 0,
        opened_line: int = 0,
        opened_column: int = 0,
    ) -> None:
        super().__init__(message)
        self.line, self.column, self.chars = line, column, chars
        self.opened_line, self.opened_column = opened_line, opened_column


class ConfigError(JsonMatchError, ValueError):
    """An unknown metric, option, comparator or transform, or a malformed setting."""


class SchemaError(ConfigError):
    """An eval schema or a gold record that does not fit its schema."""


class ComparatorError(JsonMatchError):
    """A comparator raised, or returned a score outside [0, 1]."""


class CaseFileError(JsonMatchError):
    """A golden YAML case file that cannot be used (names the file and line)."""


class JsonMatchWarning(UserWarning):
    """Root of the warnings pytest-jsonmatch issues: something it was given is not used the
    way its author may expect, and a score may differ for it. Its text is as safe to print
    as an error's (pytest's warnings summary prints it, indented)."""

    def __str__(self) -> str:
        return safe_text(super().__str__())


def _rebuilt(kind: type[BaseException], args: tuple[object, ...]) -> BaseException:
    """An error of type ``kind`` with ``args``, made without calling its ``__init__`` (which
    may take more than the message); pickle restores its attributes after."""
    error = kind.__new__(kind, *args)
    error.args = args
    return error


class SchemaWarning(JsonMatchWarning):
    """A schema key that is not read (an unknown ``x-eval-`` key, a JSON Schema keyword the
    scorer does not honour), named with its schema path."""


def known_names(names: object) -> str:
    """Format a collection of names for an error message, sorted for stable output."""
    return ", ".join(sorted(str(n) for n in names))  # type: ignore[attr-defined]


def did_you_mean(name: object, known: object) -> str:
    """`` (did you mean 'x'?)`` when ``name`` is close to one of the ``known`` names (a typo),
    else an empty string: what an "unknown name" message adds after the name."""
    if not isinstance(name, str):
        return ""
    import difflib  # (here: a run without a typo never imports it)

    candidates = sorted(str(n) for n in known)  # type: ignore[attr-defined]
    close = difflib.get_close_matches(name, candidates, n=2, cutoff=0.75)
    if not close:
        folded = {c.casefold(): c for c in candidates}
        close = [folded[name.casefold()]] if name.casefold() in folded else []
    return f" (did you mean {' or '.join(map(repr, close))}?)" if close else ""


def shown(value: object, limit: int = 60) -> str:
    """A value's repr for an error message, cut to ``limit`` characters. An integer of more
    than about 60 digits is described by its length (its digits would be cut anyway, and
    ``repr`` fails past 4,300 of them); a value whose ``repr`` fails, by its type."""
    if isinstance(value, int) and value.bit_length() > 200:
        digits = int(value.bit_length() * 0.30103) + 1  # log10(2): within one digit
        return f"{'a negative' if value < 0 else 'an'} integer of about {digits:,} digits"
    try:
        text = repr(value)
    except Exception:  # noqa: BLE001 - a message must not fail; the type says enough
        return f"a {type(value).__name__} value"
    return text if len(text) <= limit else text[: limit - 3] + "..."


def value_kind(value: object) -> str:
    """A value as a message about a file names it: a short scalar as it is, anything else
    by its type (a file's long text is never echoed)."""
    if isinstance(value, (int, float, type(None))) or (isinstance(value, str) and len(value) < 40):
        return repr(value)
    return f"a {type(value).__name__}"


def printable(text: str, keep: str = "\n") -> str:
    """``text`` safe to print on a terminal: control and format characters (escape
    sequences, bidirectional overrides) written as escapes (``\x1b``, ``\u202e``), except
    those in ``keep`` (newlines, by default). Text from data (a case's description, a
    model's output in a message) goes through here before it is shown."""
    if text.isprintable() or all(c.isprintable() or c in keep for c in text):
        return text
    return "".join(c if c.isprintable() or c in keep else _escaped(c) for c in text)


def _escaped(char: str) -> str:
    code = ord(char)
    return (
        f"\\x{code:02x}"
        if code < 0x100
        else (f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}")
    )


# What keeps a line from being read as a GitHub Actions workflow command: put between the
# two characters that would start one. A zero-width space: the line reads the same, and
# neither the runner's trimming (.NET's white space) nor Python's strips it.
_BREAK = "\u200b"


def workflow_safe(line: str) -> str:
    """``line`` as a CI runner cannot read it as a workflow command. GitHub's runner takes a
    line whose text, after leading white space, starts with ``::`` for one
    (``::add-mask::``, ``::stop-commands::``, ``::warning::``), and a line holding ``##[``
    anywhere for one of the older form (``##[add-mask]``); data that would make either has a
    zero-width space put between the two characters."""
    if "##[" in line:
        line = line.replace("##[", "#" + _BREAK + "#[")
    stripped = line.lstrip()
    if stripped.startswith("::"):
        start = len(line) - len(stripped)
        return line[:start] + ":" + _BREAK + line[start + 1 :]
    return line


def safe_writer(write: Callable[..., None]) -> Callable[..., None]:
    """``write`` (a function that writes a line, with keyword options: a terminal's
    ``write_line``) with what it is given made :func:`safe_text` first."""

    def safe(line: str, **options: Any) -> None:
        write(safe_text(line), **options)

    return safe


def safe_text(text: str) -> str:
    """``text`` safe to show on a terminal, in a log or in CI's output: its control and
    format characters escaped (:func:`printable`; its newlines kept, and the guard's own
    zero-width spaces, so that applying it twice changes nothing more) and no line able to
    start a workflow command (:func:`workflow_safe`). What every error and warning of the
    project says goes through here."""
    shown = printable(text, keep="\n" + _BREAK)
    if "::" not in shown and "##[" not in shown:
        return shown
    return "\n".join(workflow_safe(line) for line in shown.split("\n"))
