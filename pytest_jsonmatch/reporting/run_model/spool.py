"""Reports of runs too large to hold: the cases and comparisons of a run kept on disk as
they are made, as the report's lists will hold them, and the report written from there.

A :class:`Spool` is an append-only list of JSON objects in a temporary file; it can be read
back any number of times (each read streams the file), so a renderer that iterates over a
report's ``cases`` reads a spooled report as it reads one in memory. A streamed report
(:func:`write_streamed_report`) has the same keys and values as one :func:`build_report`
makes; its ``cases`` and ``comparisons`` keep the order they were made in.

A spool keeps each object's JSON text (one line: JSON text holds no raw newline) after
``ITEM``, ``,\n    ``, UTF-8 encoded: the items of a report's list but for the first comma,
so that writing the list into a report file is a copy of the file's bytes made by the
system (``os.sendfile``), not a read, an edit and a write of them.
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

_COPIED = 1 << 18  # bytes or characters of a spool copied into a report at a time
HELD = 1 << 18  # bytes a spool holds in memory before it moves to a file
_LINES_WRITTEN = 256  # lines of a list held in memory joined into one write
ITEM = ",\n    "  # what a spool keeps before each object's line (the report's separator)
# a comparison line of a chunk's own table of heads starts so; a part keeps its lines
# without it (bare), and the spool writes each table's index in the report there
LINE_START = '{"heads": 0, '
_HEAD_TEXTS_KEPT = 16_384  # heads whose JSON text table_text remembers (a few MB at most)
_Item = TypeVar("_Item", bound=Mapping[str, object])


class TemporaryFile:
    """Bytes written, then read back: held in memory until they pass ``HELD``, then moved
    to a file in a temporary folder (``directory``; None: the system's), so a small run
    makes no file and a large one holds no more than that. :meth:`close` (or leaving a
    ``with`` block) drops them and removes the file."""

    def __init__(self, directory: str | None, suffix: str) -> None:
        self._directory, self._suffix = directory, suffix
        self._held: list[bytes] | None = []  # None: moved to the file
        self._size = 0  # bytes written, held or in the file
        self._out: IO[bytes] | None = None  # the file, open for writing until closed
        self._closed = False
        self.path: str | None = None  # the file's, once there is one

    @property
    def where(self) -> str:
        """What an error names: the file, or that the text is held in memory."""
        return self.path or "(a spool held in memory)"

    def write(self, data: bytes) -> None:
        assert not self._closed, "write to a closed spool"
        self._size += len(data)
        held = self._held
        if held is None:
            assert self._out is not None
            self._out.write(data)
            return
        held.append(data)
        if self._size > HELD:
            self._move_to_file(held)

    def _move_to_file(self, held: list[bytes]) -> None:
        import tempfile  # (only a run too large to hold: most runs make no file)

        fd, self.path = tempfile.mkstemp(
            prefix="jsonmatch-", suffix=self._suffix, dir=self._directory
        )
        self._out = os.fdopen(fd, "wb")
        self._out.write(b"".join(held))
        self._held = None

    def reader(self) -> IO[str]:
        """What was written, from its start, as UTF-8 text: a file to read (close it), whose
        lines end at a newline only."""
        assert not self._closed, "read a closed spool"
        if self._held is not None:
            return io.StringIO(b"".join(self._held).decode("utf-8"))
        assert self._out is not None and self.path is not None
        self._out.flush()
        return open(self.path, encoding="utf-8", newline="\n")

    def copy_to(self, out: IO[bytes], start: int) -> None:
        """The bytes written from the ``start``-th on appended to ``out`` (a binary file,
        nothing left in its buffer): by the system where it can (``os.sendfile``: a file
        to a file or a pipe, no byte through this process), else a block at a time."""
        if self._held is not None:
            out.write(memoryview(b"".join(self._held))[start:])
            return
        assert self._out is not None and self.path is not None
        self._out.flush()
        at, size = start, self._size
        send = getattr(os, "sendfile", None)
        if send is not None:
            try:
                target, source = out.fileno(), self._out.fileno()
                while at < size:
                    sent = send(target, source, at, size - at)
                    if not sent:
                        break  # (the file shorter than what was written to it: read below)
                    at += sent
            except OSError:  # no descriptor (io.UnsupportedOperation), or one it cannot write
                pass
        with open(self.path, "rb") as raw:
            raw.seek(at)
            while block := raw.read(_COPIED):
                out.write(block)

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


def _utf8(text: str) -> bytes:
    """JSON text as a spool keeps it: UTF-8, each lone surrogate (which UTF-8 cannot encode)
    written as its escape first (:func:`escaped`, searched for only in a text that holds
    one)."""
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError:
        return escaped(text).encode("utf-8")


class Spool(TemporaryFile, Generic[_Item]):
    """JSON objects kept in a temporary file (removed by :meth:`close`): of one kind, the
    report's cases or its comparisons (``Spool[CaseDict]``), read back as they were kept.
    Each is kept as its :func:`json_line` after ``ITEM`` (module docstring)."""

    def __init__(self, directory: str | None = None) -> None:
        super().__init__(directory, ".jsonl")
        self._count = 0

    def append(self, value: _Item) -> None:
        self.append_line(json_line(value))

    def append_line(self, line: str) -> None:
        """Keep an object already written as :func:`json_line` text."""
        self.write(_utf8(ITEM + line))
        self._count += 1

    def append_lines(self, text: str, count: int) -> None:
        """Keep ``count`` objects written as :func:`json_line` text, in one text that holds
        each line after ``ITEM`` (a worker's chunk: :func:`items_text`)."""
        self.write(_utf8(text))
        self._count += count

    def __len__(self) -> int:
        return self._count

    def __iter__(self) -> Iterator[_Item]:
        for line in self.lines():
            yield json.loads(line)

    def write_items(self, fh: IO[str]) -> None:
        """The kept objects written to ``fh`` as the items of a report's list, one an
        indented line (``\n    {...},\n    {...}\n  ``): the spool's bytes but its first
        comma. A UTF-8 file whose newlines are written as they are gets them copied
        (:meth:`TemporaryFile.copy_to`); any other file, decoded, a block at a time."""
        binary = _utf8_buffer(fh)
        if binary is not None:
            fh.flush()
            self.copy_to(binary, 1)
        else:
            with self.reader() as text:
                text.read(1)
                while block := text.read(_COPIED):
                    fh.write(block)
        fh.write("\n  ")

    def lines(self) -> Iterator[str]:
        """The kept objects as JSON text, one a line (without ``ITEM``)."""
        with self.reader() as fh:
            if fh.read(2) != ITEM[:2]:
                return  # none kept
            for line in fh:  # "    {...},\n", the last "    {...}"
                yield line[4:-2] if line.endswith("\n") else line[4:]


def items_text(lines: list[str]) -> str:
    """:func:`json_line` texts as :meth:`Spool.append_lines` takes them, each after ``ITEM``
    (``lines`` is changed)."""
    if not lines:
        return ""
    lines.insert(0, "")
    return ITEM.join(lines)


def bare(line: str) -> str:
    """A comparison line of a chunk's table (``{"heads": 0, ...``) as a part keeps it,
    without ``LINE_START`` (:meth:`ComparisonSpool.append_part`)."""
    assert line.startswith(LINE_START), "a comparison line of another table"
    return line[len(LINE_START) :]


def _utf8_buffer(fh: IO[str]) -> IO[bytes] | None:
    """The binary file under a UTF-8 text file that writes newlines as they are; None for
    any other (a text buffer, another encoding, newlines written as CRLF)."""
    buffer = getattr(fh, "buffer", None)
    encoding = (getattr(fh, "encoding", None) or "").lower().replace("-", "").replace("_", "")
    if buffer is None or encoding != "utf8" or os.linesep != "\n":
        return None
    return buffer  # type: ignore[no-any-return]


# heads' JSON texts by the head (its five members: its score is table_score's 1.0, 0.0 or
# None, so that heads equal as tuples have one text), for the tables of every chunk
_head_texts: dict[tuple[object, ...], str] = {}


def table_text(heads: list[Head]) -> str:
    """A table of heads as :func:`encode_json` writes it (``[`` and the heads' texts joined
    by ``, ``: its default separators), each head's text made once per process: most
    chunks' tables repeat most heads."""
    known = _head_texts
    texts = []
    for head in heads:
        key = tuple(head)
        text = known.get(key)
        if text is None:
            text = encode_json(head)
            if len(key) == 5 and len(known) < _HEAD_TEXTS_KEPT:
                known[key] = text
        texts.append(text)
    return "[" + ", ".join(texts) + "]"


if TYPE_CHECKING:
    _Comparisons: TypeAlias = Spool[ComparisonDict]
else:  # the same class: typing compiles a type argument written as a string
    _Comparisons = Spool


class ComparisonSpool(_Comparisons):
    """A report's comparisons kept as the report stores them (field_rows.py): each line
    refers to a table of heads by ``"heads"``, its first key. The tables are kept on disk
    too, one a line (a table equal to one kept before is kept once, known by its digest),
    and written after the comparisons (:meth:`write_tables`): a long run's many chunks each
    bring one. Read back, each comparison is as it is held (its fields made from its
    rows)."""

    def __init__(self, directory: str | None = None) -> None:
        super().__init__(directory)
        self._tables: Spool[Any] = Spool(directory)
        self._known: dict[bytes, int] = {}

    def close(self) -> None:
        self._tables.close()
        super().close()

    def append_part(self, lines: list[list[str]], count: int, tables: list[list[Head]]) -> None:
        """Keep ``count`` comparisons of a worker's chunk: ``lines`` holds each of
        ``tables``' comparison lines, bare (:func:`bare`). Each table is kept (or found
        kept), and its lines written after ``ITEM`` and ``{"heads": k, ``, ``k`` its index
        in the report: one join and one encoding a table, no line looked at in Python."""
        assert len(lines) == len(tables), "a part's lines and tables differ in number"
        for table, written in zip(tables, lines):
            index = self._table_index(table)
            if written:
                start = f'{ITEM}{{"heads": {index}, '
                self.write(_utf8(start.join(["", *written])))
        self._count += count

    def _table_index(self, heads: list[Head]) -> int:
        try:  # CPython's own BLAKE2b, which hashlib gives: hashlib loads OpenSSL too (2.5 ms)
            from _blake2 import blake2b
        except ImportError:  # (a Python without it)
            from hashlib import blake2b

        line = table_text(heads)
        key = blake2b(line.encode("utf-8", "surrogatepass"), digest_size=16).digest()
        at = self._known.get(key)
        if at is None:
            at = self._known[key] = len(self._tables)
            self._tables.append_line(line)
        return at

    def write_tables(self, fh: IO[str]) -> None:
        """The report's ``field_heads`` written to ``fh`` as :meth:`Spool.write_items`
        writes a list's items ("" where there are none)."""
        if len(self._tables):
            self._tables.write_items(fh)

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
    fh.write(',\n  "cases": [')
    _items(fh, cases)
    fh.write('],\n  "comparisons": [')
    if isinstance(comparisons, ComparisonSpool):
        _items(fh, comparisons)
        fh.write('],\n  "field_heads": [')
        comparisons.write_tables(fh)
    else:
        tables = ""
        if comparisons is not None:
            heads = Heads()
            _items(fh, (stored_comparison(c, heads, 0) for c in comparisons))
            tables = "\n    " + encode_json(heads.heads) + "\n  "
        fh.write('],\n  "field_heads": [' + tables)
    fh.write("]")
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
