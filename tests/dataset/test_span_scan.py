"""The scan that finds where every Nth record of a JSONL file starts (dataset/spans.py,
``_Scan.marks``): read in blocks, it gives exactly what reading the file line by line and
judging every line gives (the oracle below), for any block size, any span size and any mix
of records, blank lines, whitespace and separators, Unicode spaces, a byte-order mark,
CRLF endings, a last line without a newline, text that is not UTF-8 and lines too long:
the same marks, the same file size, lines and records after the scan, and the same
refusal (SpanError) at the same place, after the same marks."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from pytest_jsonmatch.dataset import spans as spans_module
from pytest_jsonmatch.dataset.spans import SpanError, _Scan, spans

BLOCKS = [1, 2, 7, 64, None]  # None: the module's own BLOCK
SIZES = [1, 2, 3, 256]

# Lines, each without its newline: what the generator picks from. The first group holds
# a record, whatever the line's first byte; the second is blank as str.strip sees it.
RECORDS = [
    b'{"a": 1}',
    b'{"name": "x", "n": [1, 2, 3]}',
    b"[]",
    b"0",
    b'"text"',
    b"\x00x",  # a control character that no strip removes
    b"\x7f{}",
    b' {"a": 2}',  # whitespace, then the record
    b'\t\x0b\x0c{"a": 3}',
    b"\r{}",  # a carriage return alone does not end a line
    b'\x1c{"a": 4}',  # a separator that str.strip removes, then the record
    '\u3000{"a": 5}'.encode(),  # an ideographic space, then the record
    "\u00a0x".encode(),
    'é{"a": 6}'.encode(),  # a line starting with a letter of two bytes
    "\ufeff{}".encode(),  # a byte-order mark that does not open the file: text
    b'{"a": "\xff"}',  # not UTF-8, after a plain first byte: a record, never decoded
]
BLANKS = [
    b"",
    b" ",
    b"  \t ",
    b"\x0b",
    b"\x0c",
    b"\r",
    b"\x1c",
    b"\t",
    b"\x1d\x1e\x1f",
    b"\x1e",
    b"\x1f \x1c",
    " \u3000".encode(),
    "\u00a0".encode(),
    "\u0085".encode(),  # NEL: whitespace to str.strip, two bytes in UTF-8
    "\u2028\u2029".encode(),
]
NOT_UTF8 = [
    b"\xff{}",
    b"\x80{}",
    b"  \xc3(",
    b"\x1c\x80",
]  # the line must be decoded, and cannot be


def _oracle(path: Path, size: int) -> tuple[list[tuple[int, int]], str | None, int, int, int]:
    """The scan line by line: the marks, the refusal (None: none) and the file's size,
    lines and records counted up to the end or up to the line refused."""
    longest = spans_module.LONGEST_LINE
    marks: list[tuple[int, int]] = []
    offset = lines = records = 0
    with open(path, "rb") as fh:
        while line := fh.readline(longest):
            if len(line) >= longest:  # (the newline counts)
                return marks, "a line too long for the fast path", offset, lines, records
            try:
                holds = _holds_record(line, offset == 0)
            except UnicodeDecodeError:
                return marks, "not UTF-8", offset, lines, records
            if holds:
                if records % size == 0:
                    marks.append((offset, lines))
                records += 1
            offset += len(line)
            lines += 1
    return marks, None, offset, lines, records


def _holds_record(line: bytes, first: bool) -> bool:
    """Whether anything but whitespace as str.strip sees it is left of the line. A line
    whose first byte past ASCII whitespace is plain ASCII (not \\x1c-\\x1f) holds a record
    whatever follows, and is never decoded; any other line is decoded, the file's first
    line without its byte-order mark."""
    rest = line.lstrip(b" \t\n\r\x0b\x0c")
    if rest and rest[0] < 0x80 and rest[0] not in b"\x1c\x1d\x1e\x1f":
        return True
    if first and line[:3] == b"\xef\xbb\xbf":
        line = line[3:]
    return line.decode("utf-8").strip() != ""


def _scanned(path: Path, size: int, block: int | None):
    """What the block scan gives, in the oracle's terms."""
    marks: list[tuple[int, int]] = []
    error = None
    with _Scan(str(path), size, block) as scan:
        try:
            for mark in scan.marks():
                marks.append(mark)
        except SpanError as exc:
            error = str(exc)
        return marks, error, scan.offset, scan.lines, scan.records


def _generated(rng: random.Random) -> bytes:
    """A file of a random mix of lines: mostly plain records (in runs, as real files
    have them), blank lines of every kind, records behind whitespace, now and then a
    line that is not UTF-8; LF or CRLF endings, a byte-order mark, a last newline or not."""
    lines = []
    for _ in range(rng.choice([0, 1, 3, 10, 40])):
        pick = rng.random()
        if pick < 0.5:
            line = RECORDS[rng.randrange(3)] * rng.randint(1, 3)  # a plain record
        elif pick < 0.75:
            line = rng.choice(RECORDS)
        elif pick < 0.98:
            line = rng.choice(BLANKS)
        else:
            line = rng.choice(NOT_UTF8)
        lines.append(line + rng.choice([b"\n", b"\n", b"\r\n"]))
    data = b"".join(lines)
    if rng.random() < 0.3:
        data = b"\xef\xbb\xbf" + data
    if data.endswith(b"\n") and rng.random() < 0.3:
        data = data.rstrip(b"\r\n")
    return data


FIXED = [
    b"",
    b"\n",
    b"\n\n \r\n\t\n",  # only blank lines
    " \u3000\n\x1c\n".encode(),
    b"\xef\xbb\xbf",  # a byte-order mark alone
    b'\xef\xbb\xbf{"a": 1}\n',
    b'\xef\xbb\xbf\n{"a": 1}\n',
    '\ufeff\u3000\n{"a": 1}'.encode(),
    b'{"a": 1}',  # one record, no newline
    b'{"a": 1}\n{"a": 2}\n',
    b'{"a": 1}\r\n\r\n{"a": 2}\r\n',
    b'\n\n{"a": 1}\n\n\n{"a": 2}\n \n',
    b"\xff\n",  # not UTF-8 as the first line
    b'{"a": 1}\n\xc3\n{"a": 2}\n',  # not UTF-8 after a record
]


@pytest.mark.parametrize("block", BLOCKS)
def test_the_block_scan_finds_what_the_line_scan_finds(tmp_path, block):
    rng = random.Random(6502)
    path = tmp_path / "f.jsonl"
    cases = FIXED + [_generated(rng) for _ in range(120)]
    for data in cases:
        path.write_bytes(data)
        for size in SIZES:
            assert _scanned(path, size, block) == _oracle(path, size), (data, size)


def test_the_generated_files_hold_what_the_test_means_them_to(tmp_path):
    # (the differential test above is only as good as its mix: records and blank lines
    # in runs, a refusal now and then, marks at every size)
    rng = random.Random(6502)
    path = tmp_path / "f.jsonl"
    seen = {"records": 0, "blank": 0, "refused": 0, "bom": 0, "no last newline": 0}
    for _ in range(120):
        data = _generated(rng)
        path.write_bytes(data)
        marks, error, _, lines, records = _oracle(path, 1)
        seen["records"] += records
        seen["blank"] += lines - records
        seen["refused"] += error is not None
        seen["bom"] += data.startswith(b"\xef\xbb\xbf")
        seen["no last newline"] += bool(data) and not data.endswith(b"\n")
    assert all(count >= 5 for count in seen.values()), seen


def test_a_worked_example(tmp_path):
    # Lines (offset: bytes): 0: BOM + "\n" (4, blank), 4: '{"a":1}\n' (8), 12: " \n" (2,
    # blank), 14: "\x1c{}\n" (4, a record), 18: "\u3000\n" (4, blank), 22: "[]\r\n" (4),
    # 26: "é" (2, a record, no newline). Records at offsets 4, 14, 22, 26 (lines 1, 3, 5,
    # 6 before them); with spans of 2: records 0 and 2, at (4, 1) and (22, 5).
    path = tmp_path / "f.jsonl"
    path.write_bytes(b'\xef\xbb\xbf\n{"a":1}\n \n\x1c{}\n' + "\u3000\n[]\r\né".encode())
    for block in BLOCKS:
        assert _scanned(path, 2, block) == ([(4, 1), (22, 5)], None, 28, 7, 4)
        assert _scanned(path, 1, block)[0] == [(4, 1), (14, 3), (22, 5), (26, 6)]


@pytest.mark.parametrize("block", [1, 7, 64, None])
def test_lines_too_long_are_refused_where_the_line_scan_refuses_them(tmp_path, monkeypatch, block):
    # (the scan reads LONGEST_LINE from the module when it runs: a small one here)
    monkeypatch.setattr(spans_module, "LONGEST_LINE", 24)
    path = tmp_path / "f.jsonl"
    record = b'{"a": 1}\n'  # 9 bytes
    for long in [
        b"x" * 22 + b"\n",  # 23 bytes: the longest taken
        b"x" * 23 + b"\n",  # 24 bytes: refused
        b"x" * 23,  # 23 bytes, the last line, no newline: taken
        b"x" * 24,  # refused
        b" " * 30 + b"\n",  # a blank line too long: refused as well
        b"\xff" * 30 + b"\n",  # too long before it is found not UTF-8
        b"x" * 500,  # over many blocks
    ]:
        for before in [0, 1, 5]:  # records before it: marks yielded before the refusal
            data = record * before + long + record * 3
            if not long.endswith(b"\n"):
                data = record * before + long
            path.write_bytes(data)
            for size in [1, 2, 256]:
                assert _scanned(path, size, block) == _oracle(path, size), (data, size)
    path.write_bytes(record * 3 + b"x" * 23 + b"\n")
    assert _scanned(path, 1, block)[:2] == (
        [(0, 0), (9, 1), (18, 2)],
        "a line too long for the fast path",
    )


def test_runs_of_records_longer_than_the_longest_line_are_taken(tmp_path, monkeypatch):
    # 300 records of 9 bytes, a newline each: no line is too long, though every run of
    # records between two marks is longer than LONGEST_LINE. Marks at records 0 and 256
    # (offset 256 * 9 = 2304), the file 300 * 9 = 2700 bytes.
    monkeypatch.setattr(spans_module, "LONGEST_LINE", 24)
    path = tmp_path / "f.jsonl"
    path.write_bytes(b'{"a": 1}\n' * 300)
    marks, error, offset, lines, records = _scanned(path, 256, None)
    assert (marks, error, offset, lines, records) == ([(0, 0), (2304, 256)], None, 2700, 300, 300)


def test_a_line_too_long_is_refused_before_the_rest_of_it_is_read(tmp_path, monkeypatch):
    # A record (9 bytes), then 100,000 bytes with no newline, read 7 at a time: refused
    # once 24 of those are held (5 reads: 35 bytes, the record's and 26 more), not at the
    # end of the line.
    monkeypatch.setattr(spans_module, "LONGEST_LINE", 24)
    path = tmp_path / "f.jsonl"
    path.write_bytes(b'{"a": 1}\n' + b"x" * 100_000)
    with _Scan(str(path), 1, 7) as scan:
        found = scan.marks()
        assert next(found) == (0, 0)
        with pytest.raises(SpanError, match="too long"):
            next(found)
        assert scan.fh.tell() == 35
        assert (scan.offset, scan.lines, scan.records) == (9, 1, 1)


def test_the_spans_are_the_same_whatever_the_block(tmp_path, monkeypatch):
    rng = random.Random(1971)
    gold, pred = tmp_path / "g.jsonl", tmp_path / "p.jsonl"
    for _ in range(20):
        lines = [rng.choice(RECORDS[:5] + BLANKS) for _ in range(30)]
        gold.write_bytes(b"\n".join(lines))
        rng.shuffle(lines)
        pred.write_bytes(b"\r\n".join(lines) + b"\n")
        for size in [1, 3, 256]:
            expected = list(spans(str(gold), str(pred), size))
            monkeypatch.setattr(spans_module, "BLOCK", 5)
            assert list(spans(str(gold), str(pred), size)) == expected
            monkeypatch.undo()
            assert expected  # (each file holds records)
