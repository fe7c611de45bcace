"""Reports of runs too large to hold: the cases and comparisons of a run kept on disk as
they are made, one JSON line each, and the report written from there.

A :class:`Spool` is an append-only list of JSON objects in a temporary file; it can be read
back any number of times (each read streams the file), so a renderer that iterates over a
report's ``cases`` reads a spooled report as it reads one in memory. A streamed report
(:func:`write_streamed_report`) has the same keys and values as one :func:`build_report`
makes; its ``cases`` and ``comparisons`` keep the order they were made in.
"""

from __future__ import annotations

import functools
import io
import json
import os
import re
from collections.abc import Iterable, Iterator, Mapping
from typing import IO, TYPE_CHECKING, Any, Generic, TypeAlias, TypeVar, cast

from .field_rows import Heads, StoredFields, stored_comparison

if TYPE_CHECKING:
    from .field_rows import Head
    from .report_types import CaseDict, ComparisonDict, JSONValue

    # (for type checkers only: typing compiles a bound written as a string)
    _File = TypeVar("_File", bound="TemporaryFile")

_COPIED = 1 << 18  # characters of a spool copied into a report at a time
HELD = 1 << 18  # characters a spool holds in memory before it moves to a file
_LINES_WRITTEN = 256  # lines of a list held in memory joined into one write
_Item = TypeVar("_Item", bound=Mapping[str, object])


class TemporaryFile:
    """Text written, then read back: held in memory until it passes ``HELD`` characters,
    then moved to a file in a temporary folder (``directory``; None: the system's), so a
    small run makes no file and a large one holds no more than that. :meth:`close` (or
    leaving a ``with`` block) drops it and removes the file."""

    def __init__(self, directory: str | None, suffix: str) -> None:
        self._directory, self._suffix = directory, suffix
        self._held: list[str] | None = []  # None: moved to the file
        self._size = 0
        self._out: IO[str] | None = None  # the file, open for writing until closed
        self._closed = False
        self.path: str | None = None  # the file's, once there is one

    @property
    def where(self) -> str:
        """What an error names: the file, or that the text is held in memory."""
        return self.path or "(a spool held in memory)"

    def write(self, text: str) -> None:
        assert not self._closed, "write to a closed spool"
        held = self._held
        if held is None:
            assert self._out is not None
            self._out.write(text)
            return
        held.append(text)
        self._size += len(text)
        if self._size > HELD:
            self._move_to_file(held)

    def _move_to_file(self, held: list[str]) -> None:
        import tempfile  # (only a run too large to hold: most runs make no file)

        fd, self.path = tempfile.mkstemp(
            prefix="jsonmatch-", suffix=self._suffix, dir=self._directory
        )
        self._out = os.fdopen(fd, "w", encoding="utf-8")
        self._out.write("".join(held))
        self._held = None

    def reader(self, binary: bool = False) -> IO[Any]:
        """What was written, from its start: a file to read (close it), in text or bytes."""
        assert not self._closed, "read a closed spool"
        if self._held is not None:
            text = "".join(self._held)
            return io.BytesIO(text.encode("utf-8")) if binary else io.StringIO(text)
        assert self._out is not None and self.path is not None
        self._out.flush()
        return open(self.path, "rb") if binary else open(self.path, encoding="utf-8")

    def close(self) -> None:
        self._closed, self._held = True, None
        if self._out is not None:
            self._out.close()
            self._out = None
        if self.path is not None:
            try:
                os.unlink(self.path)
            except OSError:
                pass

    def __enter__(self: _File) -> _File:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def json_line(value: Mapping[str, object]) -> str:
    """An object as a spool keeps it: JSON text on one line, as ``json.dumps(value,
    ensure_ascii=False, allow_nan=False)`` writes it (one encoder for every line: dumps
    makes one per call, about half the time of a case's line)."""
    return encode_json(value)


_encode = json.JSONEncoder(ensure_ascii=False, allow_nan=False).encode


@functools.cache
def _surrogate() -> re.Pattern[str]:
    """A lone surrogate: compiled when a text beyond ASCII is first written (the compiler
    makes a table of the 2,048 of them, about 1 ms)."""
    return re.compile("[\ud800-\udfff]")


def _renumbered(text: str, found: list[int]) -> str:
    """Lines ``{"heads": k, ...`` (one a line, JSON text holding no newline of its own),
    each ``k`` made ``found[k]``: each line's start looked up, not searched for (a pattern
    substituted line by line cost a chunk of 256 comparisons about 1 ms)."""
    starts = {f'{{"heads": {k}, ': f'{{"heads": {to}, ' for k, to in enumerate(found) if k != to}
    lines = text.split("\n")
    for at, line in enumerate(lines):
        cut = line.find(", ") + 2
        new = starts.get(line[:cut])
        if new is not None:
            lines[at] = new + line[cut:]
    return "\n".join(lines)


def _escape_surrogate(match: re.Match[str]) -> str:
    return f"\\u{ord(match.group()):04x}"


def escaped(text: str) -> str:
    """JSON text with each lone surrogate written as its escape (see :func:`encode_json`);
    an ASCII text (most lines) holds none and is not searched."""
    if text.isascii():
        return text
    found = _surrogate()
    return text if found.search(text) is None else found.sub(_escape_surrogate, text)


def encode_json(value: object) -> str:
    """Any JSON value as json_line writes it (comparison_lines.py pieces lines together with
    it): a lone surrogate (which a model's text may hold, and UTF-8 cannot encode) written as
    its JSON escape, ``\\ud800``, as ``ensure_ascii=True`` would write it; the text reads
    back as the same value."""
    return escaped(_encode(value))


def dumps(value: object, indent: int | None = None) -> str:
    """``json.dumps(value, indent=indent, ensure_ascii=False, allow_nan=False)``, its lone
    surrogates escaped as :func:`encode_json` escapes them."""
    return escaped(json.dumps(value, indent=indent, ensure_ascii=False, allow_nan=False))


class Spool(TemporaryFile, Generic[_Item]):
    """JSON objects kept in a temporary file (removed by :meth:`close`): of one kind, the
    report's cases or its comparisons (``Spool[CaseDict]``), read back as they were kept."""

    def __init__(self, directory: str | None = None) -> None:
        super().__init__(directory, ".jsonl")
        self._count = 0

    def append(self, value: _Item) -> None:
        self.append_line(json_line(value))

    def append_line(self, line: str) -> None:
        """Keep an object already written as :func:`json_line` text."""
        self.write(escaped(line) + "\n")
        self._count += 1

    def append_lines(self, text: str, count: int) -> None:
        """Keep ``count`` objects written as :func:`json_line` text, each line ending in a
        newline, in one text (a worker's chunk)."""
        self.write(escaped(text))
        self._count += count

    def __len__(self) -> int:
        return self._count

    def __iter__(self) -> Iterator[_Item]:
        with self.reader() as fh:
            for line in fh:
                yield json.loads(line)

    def write_items(self, fh: IO[str]) -> None:
        """The kept objects written to ``fh`` as the items of a report's list, one an
        indented line (``\n    {...},\n    {...}\n  ``), copied a block at a time: the
        lines are JSON text without a newline, so each newline but the last becomes ``,``
        and a newline and the indent. A UTF-8 file whose newlines are written as they are
        gets the spool's bytes (no text decoded and encoded again)."""
        binary = _utf8_buffer(fh)
        if binary is not None and self._held is None:
            fh.flush()
            with self.reader(binary=True) as raw:
                _copy_items(raw, binary, b"\n", b",\n    ")
        else:
            with self.reader() as text:
                _copy_items(text, fh, "\n", ",\n    ")

    def lines(self) -> Iterator[str]:
        """The kept objects as JSON text, one a line (newline removed)."""
        with self.reader() as fh:
            for line in fh:
                yield line.rstrip("\n")


def _copy_items(src: IO[Any], fh: IO[Any], newline: Any, between: Any) -> None:
    """``src``'s lines written to ``fh`` as a report list's items (Spool.write_items), in
    text or in bytes."""
    fh.write(between[1:])  # the first item's newline and indent
    pending = False  # the block before ended with a line's newline
    while block := src.read(_COPIED):
        if pending:
            fh.write(between)
        pending = block.endswith(newline)
        fh.write((block[:-1] if pending else block).replace(newline, between))
    fh.write(between[1:-2])  # a newline and the list's indent


def _utf8_buffer(fh: IO[str]) -> IO[bytes] | None:
    """The binary file under a UTF-8 text file that writes newlines as they are; None for
    any other (a text buffer, another encoding, newlines written as CRLF)."""
    buffer = getattr(fh, "buffer", None)
    encoding = (getattr(fh, "encoding", None) or "").lower().replace("-", "").replace("_", "")
    if buffer is None or encoding != "utf8" or os.linesep != "\n":
        return None
    return buffer  # type: ignore[no-any-return]


if TYPE_CHECKING:
    _Comparisons: TypeAlias = Spool[ComparisonDict]
else:  # the same class: typing compiles a type argument written as a string
    _Comparisons = Spool


class ComparisonSpool(_Comparisons):
    """A report's comparisons kept as the report stores them (field_rows.py): each line
    refers to a table of heads by ``"heads"``, its first key. The tables are kept on disk
    too, one a line (a table equal to one kept before is kept once, known by its digest),
    and written after the comparisons (:meth:`table_lines`): a long run's many chunks each
    bring one. Read back, each comparison is as it is held (its fields made from its
    rows)."""

    def __init__(self, directory: str | None = None) -> None:
        super().__init__(directory)
        self._tables: Spool[Any] = Spool(directory)
        self._known: dict[bytes, int] = {}

    def close(self) -> None:
        self._tables.close()
        super().close()

    def append_part(self, text: str, count: int, tables: list[list[Head]]) -> None:
        """Keep ``count`` comparisons written as :func:`json_line` text in one text (a
        worker's chunk), each line ``{"heads": k, ...`` with its rows referring to the k-th
        of ``tables``: each table is kept (or found kept), and each line's ``k`` becomes
        its index in the report. A line's start is the only place ``{"heads": `` follows
        a newline (JSON text holds no raw newline)."""
        found = [self._table_index(table) for table in tables]
        if text and found != list(range(len(found))):
            text = _renumbered(text, found)
        self.append_lines(text, count)

    def _table_index(self, heads: list[Head]) -> int:
        import hashlib  # (only a JSON run's comparisons: it loads OpenSSL)

        line = encode_json(heads)
        key = hashlib.blake2b(line.encode("utf-8", "surrogatepass"), digest_size=16).digest()
        at = self._known.get(key)
        if at is None:
            at = self._known[key] = len(self._tables)
            self._tables.append_line(line)
        return at

    def table_lines(self) -> Iterator[str]:
        """The report's ``field_heads``, a table's JSON text at a time."""
        return self._tables.lines()

    def tables(self) -> list[list[Head]]:
        """The report's ``field_heads``, read back."""
        return list(self._tables)

    def __iter__(self) -> Iterator[ComparisonDict]:
        reader = StoredFields(self.tables(), self.where, ValueError)
        for at, entry in enumerate(super().__iter__()):
            yield reader.comparison(cast("dict[str, JSONValue]", entry), at)


def dump_report(
    fh: IO[str],
    head: Mapping[str, object],
    cases: Spool[CaseDict] | Iterable[CaseDict],
    comparisons: ComparisonSpool | Iterable[ComparisonDict] | None,
) -> None:
    """Write a report as it is stored: ``head`` (report.report_head) indented, then the
    cases and comparisons one a line (spooled, or held: written here), the comparisons'
    fields as rows, and the tables of heads they refer to (field_rows.py); none kept: empty
    lists."""
    body = dict(head)
    gates, baseline = body.pop("gates"), body.pop("baseline", None)
    text = dumps(body, indent=2)
    fh.write(text[:-2])  # the object left open: '\n}' removed
    tables: Iterable[str] = ()
    fh.write(',\n  "cases": [')
    _items(fh, cases)
    fh.write('],\n  "comparisons": [')
    if isinstance(comparisons, ComparisonSpool):
        _items(fh, comparisons)
        tables = comparisons.table_lines()
    elif comparisons is not None:
        heads = Heads()
        _items(fh, (stored_comparison(c, heads, 0) for c in comparisons))
        tables = [encode_json(heads.heads)]
    fh.write('],\n  "field_heads": [')
    written = False
    for table in tables:
        fh.write((",\n    " if written else "\n    ") + table)
        written = True
    fh.write("\n  ]" if written else "]")
    fh.write(',\n  "gates": ' + dumps(gates))
    if baseline is not None:
        fh.write(',\n  "baseline": ' + dumps(baseline))
    fh.write("\n}\n")


def _items(fh: IO[str], items: Spool[Any] | Iterable[Mapping[str, object]]) -> None:
    """A report list's items, one an indented line (see Spool.write_items)."""
    if isinstance(items, Spool):
        if len(items):
            items.write_items(fh)
        return
    line = json_line
    lines: list[str] = []
    written = False
    for item in items:
        lines.append(line(item))
        if len(lines) == _LINES_WRITTEN:  # a block at a time: few writes, bounded memory
            fh.write((",\n    " if written else "\n    ") + ",\n    ".join(lines))
            written, lines = True, []
    if lines:
        fh.write((",\n    " if written else "\n    ") + ",\n    ".join(lines))
        written = True
    if written:
        fh.write("\n  ")


def write_streamed_report(
    path: str | os.PathLike[str],
    head: Mapping[str, object],
    cases: Spool[CaseDict] | Iterable[CaseDict],
    comparisons: ComparisonSpool | Iterable[ComparisonDict] | None,
) -> None:
    """:func:`dump_report` to ``path``, atomically (see atomic.py)."""
    from .atomic import write_atomic  # (only a report file)

    write_atomic(path, lambda fh: dump_report(fh, head, cases, comparisons))
