"""Two JSONL files paired by position, cut into spans that any process can read on its own.

The reading process only finds where every Nth record starts in each file (:func:`spans`: one
pass over the bytes, no decoding); a span names a byte range of each file, the number of
the line it starts at and its first case number, so that the process handling it (the
reading process with one job, a worker with ``-j N``) reads, decodes and pairs its records
itself (:func:`span_pairs`), or, to sketch the schema, reads only its gold records
(:func:`span_gold`). The records, case ids and places are those the command's streaming
reader (cli/datasets.py, cli/record_pairs.py) gives for the same files.

This is the fast path of the plain case. Anything else, a line that is not JSON, files of
different lengths, text that is not UTF-8, a record without the field scored, a line too
long, raises here, and the run then starts again on the streaming reader, which reports it
exactly as it always has (file, line, message): the order in which errors are met is that
reader's alone.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from itertools import zip_longest
from typing import Any

from ..engine.core.slotted import HashedSlotted
from ..engine.reading.intake import depth_from_text
from ..engine.reading.parse import LENIENT_JSON, STRICT_JSON
from .scoring import Pair
from .undecoded import decode_line

# A line longer than this many bytes is left to the streaming reader, which refuses lines
# over 256 MB of text (counted in characters, which a byte count cannot tell here).
LONGEST_LINE = 1 << 27
_BOM = b"\xef\xbb\xbf"
# How many bytes of a file the scan reads at a time (a block small enough to stay in the
# CPU cache while its lines are stepped through after the read).
BLOCK = 1 << 17
# 1 for a byte that, starting a line, leaves open whether the line holds a record: one
# that bytes.strip removes (a blank line, or whitespace before the text), a separator
# \x1c-\x1f (str.strip removes those), or a byte of a multibyte character (a Unicode
# space, a byte-order mark). A line starting with any other byte holds a record.
_ODD_LEAD = bytes(b in b" \t\n\r\x0b\x0c\x1c\x1d\x1e\x1f" or b >= 0x80 for b in range(256))


class SpanError(Exception):
    """What the fast path cannot take: the run starts again on the streaming reader."""


class FileRange(HashedSlotted):
    """Bytes ``start`` to ``end`` of a file, the line at ``start`` being line ``lines + 1``."""

    __slots__ = ("path", "start", "end", "lines")

    def __init__(
        self,
        path: str,
        start: int,
        end: int,
        lines: int,
    ) -> None:
        self.path, self.start, self.end, self.lines = path, start, end, lines


class Span(HashedSlotted):
    """``records`` records of each file paired by position, the first of them case
    ``first``; the field scored of each side (None: the whole record)."""

    __slots__ = ("gold", "pred", "first", "records", "gold_field", "pred_field")

    def __init__(
        self,
        gold: FileRange,
        pred: FileRange,
        first: int,
        records: int,
        gold_field: str | None = None,
        pred_field: str | None = None,
    ) -> None:
        self.gold, self.pred = gold, pred
        self.first, self.records = first, records
        self.gold_field, self.pred_field = gold_field, pred_field


def is_jsonl(path: str) -> bool:
    """Whether ``path`` is a regular file the streaming reader takes as JSONL (it does not
    start with ``[``, which makes it a file holding one array)."""
    try:
        if not stat.S_ISREG(os.stat(path).st_mode):  # before opening: a FIFO would block
            return False
        with open(path, "rb") as fh:
            head = fh.read(1 << 16)
    except OSError:
        return False
    if head.startswith(_BOM):
        head = head[3:]
    try:
        text = head.decode("utf-8")
    except UnicodeDecodeError as exc:  # a character cut at the block's end, or not UTF-8
        text = head[: exc.start].decode("utf-8")
    stripped = text.lstrip()  # all whitespace, or an array: the streaming reader's
    return bool(stripped) and not stripped.startswith("[")


def spans(
    gold: str, pred: str, size: int, gold_field: str | None = None, pred_field: str | None = None
) -> Iterator[Span]:
    """Spans of ``size`` records (the last one shorter) over two JSONL files, as the scan
    finds them; SpanError at the end when the files hold different numbers of records."""
    g_scan, p_scan = _Scan(gold, size), _Scan(pred, size)
    with g_scan, p_scan:
        previous: tuple[tuple[int, int], tuple[int, int]] | None = None
        first = 1
        for marks in zip_longest(g_scan.marks(), p_scan.marks()):
            if marks[0] is None or marks[1] is None:
                raise SpanError("the files hold different numbers of records")
            if previous is not None:
                yield _span(gold, pred, previous, marks, first, size, gold_field, pred_field)
                first += size
            previous = marks
        if g_scan.records != p_scan.records:
            raise SpanError("the files hold different numbers of records")
        if previous is not None:
            ends = ((g_scan.offset, g_scan.lines), (p_scan.offset, p_scan.lines))
            yield _span(
                gold,
                pred,
                previous,
                ends,
                first,
                g_scan.records - first + 1,
                gold_field,
                pred_field,
            )


def _span(
    gold: str,
    pred: str,
    start: tuple[tuple[int, int], tuple[int, int]],
    end: tuple[tuple[int, int], tuple[int, int]],
    first: int,
    count: int,
    gold_field: str | None,
    pred_field: str | None,
) -> Span:
    return Span(
        FileRange(gold, start[0][0], end[0][0], start[0][1]),
        FileRange(pred, start[1][0], end[1][0], start[1][1]),
        first,
        count,
        gold_field,
        pred_field,
    )


class _Scan:
    """Where every ``size``-th record of a JSONL file starts (:meth:`marks`); after the
    scan, the file's size, lines and records.

    The file is read ``block`` bytes at a time (:data:`BLOCK` when not given). A line
    that starts with a byte that is plainly text holds a record: runs of such lines are
    only stepped through from newline to newline (``bytes.find``), with no copy of a
    line and no test of its text. A line starting with anything else (whitespace, a
    separator, a byte of a multibyte character, a newline) is judged alone by
    :func:`_filled`. A line is only judged whole: what runs past a block's end waits for
    the next block, and is refused as soon as it reaches LONGEST_LINE bytes."""

    def __init__(self, path: str, size: int, block: int | None = None) -> None:
        self.fh = open(path, "rb")
        self.size = size
        self.block = BLOCK if block is None else block
        self.offset = self.lines = self.records = 0

    def __enter__(self) -> _Scan:
        return self

    def __exit__(self, *exc: object) -> None:
        self.fh.close()

    def marks(self) -> Iterator[tuple[int, int]]:
        """(byte offset, lines before it) of records 0, size, 2 size, ..."""
        read, block = self.fh.read, self.block
        pending: list[bytes] = []  # the start of a line that runs past the blocks read
        held = 0  # its length
        while data := read(block):
            cut = data.rfind(b"\n") + 1
            if not cut:
                pending.append(data)
                held += len(data)
            else:
                start = 0
                if pending:  # the line that ends in this block, judged alone
                    start = data.find(b"\n") + 1
                    pending.append(data[:start])
                    if mark := self._line(b"".join(pending)):
                        yield mark
                yield from self._run(data, start, cut)
                held = len(data) - cut
                pending = [data[cut:]] if held else []
            if held >= LONGEST_LINE:  # (before the rest of it is read)
                raise SpanError("a line too long for the fast path")
        if pending and (mark := self._line(b"".join(pending))):  # the last, no newline
            yield mark

    def _run(self, data: bytes, pos: int, end: int) -> Iterator[tuple[int, int]]:
        """The marks of the whole lines ``data[pos:end]``, each ending in a newline."""
        find, size, odd = data.find, self.size, _ODD_LEAD
        base = self.offset - pos
        while pos < end:
            if odd[data[pos]]:
                stop = find(b"\n", pos) + 1
                if mark := self._line(data[pos:stop]):
                    yield mark
                pos = stop
                continue
            # A plain line, and the plain lines after it up to the next span's first record:
            # each holds a record, so only their newlines are looked for.
            start, records = pos, self.records
            todo = size - records % size
            done = todo
            for i in range(1, todo + 1):
                pos = find(b"\n", pos) + 1
                if pos == end or odd[data[pos]]:
                    done = i
                    break
            if pos - start >= LONGEST_LINE:  # one of them may be too long: the first alone
                pos = find(b"\n", start) + 1
                if mark := self._line(data[start:pos]):
                    yield mark
                continue
            if records % size == 0:
                self.offset = base + start
                yield self.offset, self.lines
            self.offset = base + pos
            self.lines += done
            self.records += done

    def _line(self, line: bytes) -> tuple[int, int] | None:
        """One whole line counted, judged by :func:`_filled`: its mark, if it has one."""
        if len(line) >= LONGEST_LINE:
            raise SpanError("a line too long for the fast path")
        mark = None
        if _filled(line, self.offset == 0):
            if self.records % self.size == 0:
                mark = self.offset, self.lines
            self.records += 1
        self.offset += len(line)
        self.lines += 1
        return mark


def _filled(line: bytes, first: bool) -> bool:
    """Whether a line holds a record: text other than whitespace, as ``str.strip`` sees
    it (which also strips the separators \\x1c-\\x1f and Unicode spaces)."""
    stripped = line.strip()
    if not stripped:
        return False
    lead = stripped[0]
    if lead < 0x80 and not 0x1C <= lead <= 0x1F:
        return True
    if first and line.startswith(_BOM):
        line = line[3:]
    try:
        return bool(line.decode("utf-8").strip())
    except UnicodeDecodeError:
        raise SpanError("not UTF-8") from None


def _lines(part: FileRange) -> list[tuple[int, str]]:
    """(line number, text) of the records in a file's range."""
    with open(part.path, "rb") as fh:
        fh.seek(part.start)
        data = fh.read(part.end - part.start)
    try:
        text = data.decode("utf-8-sig" if part.start == 0 else "utf-8")
    except UnicodeDecodeError:
        raise SpanError("not UTF-8") from None
    # (a line is blank when str.strip leaves nothing of it: empty, or whitespace alone)
    return [
        (number, line)
        for number, line in enumerate(text.split("\n"), part.lines + 1)
        if line and not line.isspace()
    ]


_new = tuple.__new__


def span_pairs(span: Span) -> list[Pair]:
    """The span's pairs, decoded as the streaming reader decodes them (gold strictly)."""
    gold, pred = _lines(span.gold), _lines(span.pred)
    if len(gold) != span.records or len(pred) != span.records:
        raise SpanError("a file changed while it was read")
    gold_path = span.gold.path
    gold_field, pred_field = span.gold_field, span.pred_field
    # (the decoders' scanners: set by JSONDecoder.__init__, which typeshed does not list)
    strict = STRICT_JSON.scan_once  # type: ignore[attr-defined]
    lenient = LENIENT_JSON.scan_once  # type: ignore[attr-defined]
    out = []
    case = span.first
    for (g_line, g_text), (_, p_text) in zip(gold, pred):
        where = f"{gold_path} line {g_line}"
        expected = _line_value(strict, g_text, where, True)
        actual = _line_value(lenient, p_text, "", False)
        # (the whole line's bound is a bound on the field scored too)
        read_depth = depth_from_text(g_text)
        if gold_field is not None:
            expected = _field(expected, gold_field)
        if pred_field is not None:
            actual = _field(actual, pred_field)
        out.append(
            _new(Pair, (str(case), expected, actual, where, gold_path, g_line, "", read_depth))
        )
        case += 1
    return out


def _line_value(scan: Any, text: str, where: str, strict: bool) -> Any:
    """``decode_line(text, where, strict)``: by the decoder's scanner alone where the line
    is one JSON value and nothing else (the usual one), without decode_line's stripped copy
    of the line and its frames; any other line through decode_line."""
    try:
        value, end = scan(text, 0)
        if end == len(text):
            return value
    except (StopIteration, ValueError, RecursionError):
        pass
    return decode_line(text, where, strict)


def _field(record: Any, key: str) -> Any:
    if type(record) is not dict or key not in record:
        raise SpanError("a record without the field scored")
    return record[key]


def span_gold(span: Span) -> Iterator[tuple[Any, int]]:
    """The span's gold records (the field scored, when one is), each with a bound on how
    deeply it nests (its count of ``{`` and ``[``), decoded leniently: a key given twice
    is refused when the span is scored."""
    gold = _lines(span.gold)
    if len(gold) != span.records:
        raise SpanError("a file changed while it was read")
    decode = LENIENT_JSON.decode
    for _, text in gold:
        try:
            value = decode(text)
        except ValueError:  # NaN, a line that is not JSON: left to the streaming reader
            raise SpanError("not JSON") from None
        if span.gold_field is not None:
            value = _field(value, span.gold_field)
        yield value, text.count("{") + text.count("[")
