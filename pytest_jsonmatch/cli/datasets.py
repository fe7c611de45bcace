"""Records of a dataset, read one at a time: a JSONL file (one JSON value a line), a file
holding one JSON array (its elements read one by one, never the whole array at once), or a
folder of files (one record per file, keyed by its path without the extension).

Gold records are read strictly (no duplicate keys, no NaN). Predictions are the model's:
in a folder each file is kept as text and read leniently when scored (fences, prose); in a
JSONL file or an array each value is taken as it is (a string value is model text, read
leniently). A line or element that is not JSON at all is an error naming the file and line.
The lines of a JSONL file can also be left undecoded, to be decoded where they are scored
(``-j N``: :mod:`pytest_jsonmatch.dataset.undecoded`).
"""

from __future__ import annotations

import json
import os
import stat
from collections.abc import Iterator
from pathlib import Path
from typing import IO, NamedTuple, TypeAlias

from ..dataset.undecoded import Undecoded, decode_line
from ..engine.core.values import JsonValue
from ..engine.reading.parse import LENIENT_JSON, STRICT_JSON
from .input_error import InputError

_BLOCK = 1 << 16  # characters read at a time (a few blocks are held at once: memory
# that does not grow with the file, and small beside the interpreter)
MAX_RECORD_BYTES = 256 * 1024 * 1024


# A record's value: JSON, a JSONL line left undecoded, or a prediction file's bytes (read
# leniently where it is scored)
RecordValue: TypeAlias = JsonValue | Undecoded | bytes


class Record(NamedTuple):
    """One record: its value, where it is (``gold.jsonl line 3``), its file and line, and
    for a folder its key (relative path without the extension)."""

    value: RecordValue
    where: str
    file: str
    line: int | None
    key: str | None = None


def is_folder(path: str) -> bool:
    return os.path.isdir(path)


def read_records(path: str, gold: bool, undecoded: bool = False) -> Iterator[Record]:
    """The records of ``path`` in order (see the module docstring); with ``undecoded``, the
    lines of a JSONL file as :class:`Undecoded` text."""
    if os.path.isdir(path):
        yield from _folder(path, gold)
        return
    try:
        fh = open(
            path,
            encoding="utf-8-sig",
            newline="",
            opener=lambda p, flags: os.open(p, flags | os.O_NONBLOCK),
        )
    except OSError as exc:
        raise InputError(f"{path}: cannot read: {exc.strerror or exc}") from None
    with fh:
        if not stat.S_ISREG(os.fstat(fh.fileno()).st_mode):
            raise InputError(f"{path}: not a regular file or a folder")
        try:
            head = fh.read(_BLOCK)
            stripped = head.lstrip()
            if stripped.startswith("["):
                yield from _array(fh, head, path, STRICT_JSON if gold else LENIENT_JSON)
            else:
                yield from _jsonl(fh, head, path, gold, undecoded)
        except UnicodeDecodeError as exc:
            raise InputError(f"{path}: not UTF-8 text (byte {exc.start} of a block)") from None


def count_records(path: str) -> int | None:
    """How many records ``path`` holds, when that is cheap to tell (a folder, a JSONL
    file: its non-blank lines); None for an array file."""
    if os.path.isdir(path):
        return sum(1 for _ in folder_files(path))
    try:
        with open(path, "rb") as fh:
            first = fh.read(_BLOCK)
            if first.lstrip().startswith(b"["):
                return None
            count, previous, block = 0, b"\n", first
            while block:
                count += block.count(b"\n") - block.count(b"\n\n")
                if previous.endswith(b"\n") and block.startswith(b"\n"):
                    count -= 1
                previous, block = block, fh.read(_BLOCK)
            return count + (0 if previous.endswith(b"\n") else 1)
    except OSError:
        return None


def _jsonl(fh: IO[str], head: str, path: str, strict: bool, undecoded: bool) -> Iterator[Record]:
    for line_no, line in enumerate(_lines(fh, head, path), start=1):
        if line.strip():
            where = f"{path} line {line_no}"
            value = (
                Undecoded(line, where, strict) if undecoded else decode_line(line, where, strict)
            )
            yield Record(value, where, path, line_no)


def _lines(fh: IO[str], head: str, path: str) -> Iterator[str]:
    """The lines of a text file (without their newlines), ``head`` being its first block.
    Each block is scanned once; a line that spans blocks is kept as its pieces and joined
    once, when its end is read, so a long line costs time in proportion to its length. A
    line past MAX_RECORD_BYTES is refused as soon as that much of it is held."""
    pieces: list[str] = []  # the line being read, as it came in blocks
    held, lines, block = 0, 0, head
    while block:
        start = 0
        newline = block.find("\n")
        while newline >= 0:
            lines += 1
            if pieces:
                pieces.append(block[start:newline])
                yield "".join(pieces)
                pieces, held = [], 0
            else:
                yield block[start:newline]
            start = newline + 1
            newline = block.find("\n", start)
        if start < len(block):
            pieces.append(block[start:])
            held += len(block) - start
            if held > MAX_RECORD_BYTES:
                raise InputError(
                    f"{path} line {lines + 1}: a line longer than {MAX_RECORD_BYTES // 2**20} MB"
                )
        block = fh.read(_BLOCK)
    if pieces:
        yield "".join(pieces)


def _array(fh: IO[str], head: str, path: str, decoder: json.JSONDecoder) -> Iterator[Record]:
    """The elements of a top-level JSON array, decoded one at a time from a sliding buffer."""
    reader = _ArrayReader(fh, head, path, decoder)
    reader.skip_space()
    reader.pos += 1  # the '['
    reader.skip_space()
    if reader.at("]"):
        reader.pos += 1
    else:
        while True:
            yield reader.element()
            reader.index += 1
            reader.skip_space()
            if reader.pos >= len(reader.buf):
                raise reader.fail("the array is not closed (']' missing)")
            if reader.at("]"):
                reader.pos += 1
                break
            if not reader.at(","):
                raise reader.fail(
                    f"expected ',' or ']' after an element, found {reader.buf[reader.pos]!r}"
                )
            reader.pos += 1
            reader.skip_space()
    reader.skip_space()
    if reader.pos < len(reader.buf):
        raise InputError(f"{path} line {reader.line}: more after the array's closing ']'")


class _ArrayReader:
    """A window on a file holding one JSON array: the text read so far (``buf``), the
    position in it, the line there, and the index of the element being read."""

    def __init__(self, fh: IO[str], head: str, path: str, decoder: json.JSONDecoder) -> None:
        self.fh, self.path, self.decoder = fh, path, decoder
        self.buf, self.pos, self.eof = head, 0, False
        self.line = 1  # the line at ``pos``
        self.index = 0

    def at(self, char: str) -> bool:
        return self.pos < len(self.buf) and self.buf[self.pos] == char

    def fill(self) -> bool:
        """Read the next block (dropping what lies behind); False at the end of the file."""
        if self.eof:
            return False
        more = self.fh.read(max(_BLOCK, len(self.buf) - self.pos))
        if not more:
            self.eof = True
            return False
        if self.pos > _BLOCK:
            self.buf, self.pos = self.buf[self.pos :], 0
        self.buf += more
        return True

    def skip_space(self) -> None:
        while True:
            start = self.pos
            while self.pos < len(self.buf) and self.buf[self.pos] in " \t\r\n":
                self.pos += 1
            self.line += self.buf.count("\n", start, self.pos)
            if self.pos < len(self.buf) or not self.fill():
                return

    def fail(self, message: str) -> InputError:
        return InputError(f"{self.path} line {self.line} (element {self.index}): {message}")

    def element(self) -> Record:
        """The element at ``pos``, decoded (reading more of the file while it is cut short)."""
        while True:
            try:
                value, end = self.decoder.raw_decode(self.buf, self.pos)
            except json.JSONDecodeError as exc:
                cut_short = exc.pos >= len(self.buf) - 1 or exc.msg.startswith("Unterminated")
                if cut_short and self.fill():
                    continue
                line = exc.lineno + self.line - self.buf.count("\n", 0, self.pos) - 1
                raise InputError(
                    f"{self.path} line {line} (element {self.index}): not valid JSON: {exc.msg}"
                ) from None
            except ValueError as exc:
                raise self.fail(f"not valid JSON: {exc}") from None
            except RecursionError:
                raise self.fail("nests too deeply to read") from None
            # A number at the end of the buffer may go on in the next block.
            if end >= len(self.buf) and not self.eof and self.fill():
                continue
            break
        if end - self.pos > MAX_RECORD_BYTES:
            raise self.fail(f"an element larger than {MAX_RECORD_BYTES // 2**20} MB")
        record = Record(
            value, f"{self.path} element {self.index} (line {self.line})", self.path, self.line
        )
        self.line += self.buf.count("\n", self.pos, end)
        self.pos = end
        return record


def folder_files(root: str) -> Iterator[tuple[str, Path]]:
    """(key, path) of the regular files under ``root`` (hidden ones left out), sorted."""
    base = Path(root)
    found = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if not d.startswith("."))
        for name in filenames:
            if name.startswith("."):
                continue
            path = Path(dirpath) / name
            if path.is_file():
                relative = path.relative_to(base)
                found.append((relative.with_suffix("").as_posix(), path))
    found.sort()
    yield from found


def _folder(root: str, gold: bool) -> Iterator[Record]:
    from .inputs import decode_json, read_bytes

    previous: tuple[str, Path] | None = None
    for key, path in folder_files(root):
        if previous is not None and previous[0] == key:
            raise InputError(f"{root}: two files for record {key!r}: {previous[1]} and {path}")
        previous = (key, path)
        data = read_bytes(str(path))
        if gold:
            try:
                text = data.decode("utf-8-sig")
            except UnicodeDecodeError as exc:
                raise InputError(f"{path}: not UTF-8 text (byte {exc.start})") from None
            yield Record(decode_json(text, str(path)), str(path), str(path), None, key)
        else:
            yield Record(data, str(path), str(path), None, key)
