"""The chunks ``jsonmatch score`` hands out over two JSONL files (cli/parallel.py,
``sized_spans``): spans of 64 records joined into chunks of 256, smaller near the end when
several processes score, each starting where a group of 64 starts, and a joined span read
as the spans it joins (dataset/chunk_work.py, ``joined``)."""

from __future__ import annotations

import json

import pytest

from pytest_jsonmatch.cli.parallel import CHUNK, WORKER_CHUNK, sized_spans
from pytest_jsonmatch.dataset.chunk_work import SCORED_TOGETHER, joined
from pytest_jsonmatch.dataset.spans import span_pairs, spans


def _files(tmp_path, count: int, blank_every: int = 0) -> tuple[str, str, int]:
    """Two JSONL files of ``count`` records, every gold line the same length (so that the
    bytes read tell the records left exactly); a blank line after every ``blank_every``th
    record (0: none). The gold file's size."""
    gold, pred = [], []
    for i in range(count):
        gold.append(json.dumps({"id": f"{i:06d}", "total": i % 7}) + "\n")
        pred.append(json.dumps({"id": f"{i:06d}", "total": i % 5}) + "\n")
        if blank_every and i % blank_every == blank_every - 1:
            gold.append("\n")
    (tmp_path / "g.jsonl").write_text("".join(gold))
    (tmp_path / "p.jsonl").write_text("".join(pred))
    return str(tmp_path / "g.jsonl"), str(tmp_path / "p.jsonl"), len("".join(gold))


def test_one_process_gets_chunks_of_256_records(tmp_path):
    gold, pred, size = _files(tmp_path, 1000)
    chunks = list(sized_spans(spans(gold, pred, SCORED_TOGETHER), size, 1))
    # 1000 = 3 * 256 + 232
    assert [c.records for c in chunks] == [256, 256, 256, 232]
    assert WORKER_CHUNK == 256


def test_two_processes_get_smaller_chunks_near_the_end(tmp_path):
    gold, pred, size = _files(tmp_path, 2000)
    chunks = list(sized_spans(spans(gold, pred, SCORED_TOGETHER), size, 2))
    # groups of 64 a chunk: min(4, records left // (2 hands * 2 * 64)), at least 1; the
    # first always 4. Left before each chunk: 2000 -> 256; 1744, 1488, 1232 -> 4 (256);
    # 976, 784 -> 3 (192); 592 -> 2 (128); 464, 400, 336, 272, 208, 144, 80 -> 1 (64);
    # then the last span, 16 records
    assert [c.records for c in chunks] == [256] * 4 + [192] * 2 + [128] + [64] * 7 + [16]
    # each chunk where a group of -j 1's starts, one after another
    starts = [c.first for c in chunks]
    assert all((first - 1) % SCORED_TOGETHER == 0 for first in starts)
    assert starts == [1 + sum(c.records for c in chunks[:k]) for k in range(len(chunks))]


@pytest.mark.parametrize("hands", [1, 2, 3])
def test_the_chunks_pair_every_record_once_as_one_span_reads_them(tmp_path, hands):
    gold, pred, size = _files(tmp_path, 1500, blank_every=7)
    whole = [p for s in spans(gold, pred, 1 << 20) for p in span_pairs(s)]
    chunked = [
        p
        for c in sized_spans(spans(gold, pred, SCORED_TOGETHER), size, hands)
        for p in span_pairs(c)
    ]
    assert chunked == whole and len(whole) == 1500
    # (line numbers count the blank lines: record 1500 is on line 1500 + 1500 // 7)
    assert whole[-1].line == 1500 + 214


def test_a_joined_span_reads_as_the_spans_it_joins(tmp_path):
    gold, pred, _ = _files(tmp_path, 200, blank_every=3)
    parts = list(spans(gold, pred, SCORED_TOGETHER))
    assert [s.records for s in parts] == [64, 64, 64, 8]
    one = joined(parts[1:3])
    assert (one.first, one.records) == (65, 128)
    assert span_pairs(one) == span_pairs(parts[1]) + span_pairs(parts[2])
    assert joined(parts[:1]) is parts[0]


def test_the_command_line_sizes_its_chunks_by_the_groups_scored_together():
    """cli/parallel.py names the group's size without importing dataset/chunk_work.py (the
    parser imports it before the fork): the two must agree."""
    assert CHUNK == SCORED_TOGETHER == 64 and WORKER_CHUNK == 4 * SCORED_TOGETHER
