"""A spool keeps each object as a report's list holds it (reporting/run_model/spool.py:
``ITEM`` before each JSON line), so that the list goes into a report file as a copy of the
spool's bytes: a chunk's comparisons get the report's table indices at the start of each
table's bare lines, whatever their values hold; a table's text is the encoder's; and the
bytes are the same whichever way they are copied (by the system, a block at a time, as
text), to whatever they are written."""

from __future__ import annotations

import errno
import io
import json
import os
from pathlib import Path
from typing import Any

import pytest

from pytest_jsonmatch.cli import main
from pytest_jsonmatch.reporting.run_model import spool as spool_module
from pytest_jsonmatch.reporting.run_model.field_rows import Heads, stored_comparison
from pytest_jsonmatch.reporting.run_model.spool import (
    ComparisonSpool,
    Spool,
    bare,
    encode_json,
    json_line,
    table_text,
)

# values a line's text must carry through untouched: the start of a line where no line
# starts, a carriage return and newlines (escaped in JSON text), a line separator (raw in
# it), a lone surrogate (escaped by the spool: UTF-8 cannot hold it)
HOSTILE = [
    {"heads": 0, "x": '{"heads": 0, '},
    '\n    {"heads": 0, ',
    "a\r\nb\rc",
    "\u2028é\ud800",
]


def _field(path: str, status: str, score: float, **values: Any) -> dict[str, Any]:
    return {"path": path, "field_path": path, "status": status, "score": score, **values}


def _comparison(case: str, fields: list[dict[str, Any]]) -> dict[str, Any]:
    return {"case_id": case, "status": "failed", "score": 0.5, "fields": fields}


def _group(first: str, values: list[Any]) -> list[list[dict[str, Any]]]:
    """A group's comparisons: each a match of ``first`` and a mismatch of "v" on a value."""
    return [
        [
            _field(first, "match", 1.0, expected=value, actual=value),
            _field("v", "mismatch", 0.0, expected=value, actual=[value]),
        ]
        for value in values
    ]


def _part(
    groups: list[list[list[dict[str, Any]]]], case: list[int]
) -> tuple[list[list[str]], int, list]:
    """A worker's part: each group with its own table, its lines bare
    (dataset/chunk_work.py)."""
    lines: list[list[str]] = []
    tables = []
    for group in groups:
        heads = Heads()
        written = []
        for fields in group:
            case[0] += 1
            comparison = _comparison(str(case[0]), fields)
            written.append(bare(json_line(stored_comparison(comparison, heads, 0))))
        lines.append(written)
        tables.append(heads.heads)
    return lines, sum(len(g) for g in groups), tables


def test_a_parts_lines_get_the_reports_table_indices_whatever_their_values_hold(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(spool_module, "HELD", 0)  # (in a file from the first byte)
    a, b, c = _group("a", HOSTILE), _group("b", HOSTILE[:2]), _group("c", HOSTILE[2:])
    case = [0]
    parts = [_part([a, b], case), _part([b, a, c], case), _part([c], case), _part([], case)]
    # tables by first sight: a 0, b 1, c 2; the second part's b, a, c are 1, 0, 2
    indices = [0] * 4 + [1] * 2 + [1] * 2 + [0] * 4 + [2] * 2 + [2] * 2
    with ComparisonSpool(str(tmp_path)) as spool:
        for lines, count, tables in parts:
            spool.append_part(lines, count, tables)
        # a 4 comparisons, b 2, c 2: (4 + 2) + (2 + 4 + 2) + 2 + 0
        assert spool.path is not None and len(spool) == 16
        # each comparison as the report holds it: its table's index in the report first
        groups = [a, b, b, a, c, c]
        expected = []
        for group, index in zip(groups, [0, 1, 1, 0, 2, 2]):
            heads = Heads()
            for fields in group:
                comparison = _comparison(str(len(expected) + 1), fields)
                expected.append(json_line(stored_comparison(comparison, heads, index)))
        lines = list(spool.lines())
        assert lines == expected
        assert [json.loads(line)["heads"] for line in lines] == indices
        assert "\\ud800" in lines[3] and "\u2028" in lines[3]  # (escaped; kept raw)
        # (an object matched is held on both sides: "ea"; a string once: "=")
        mismatch = ["v", "v", "mismatch", "ea", 0.0]
        assert spool.tables() == [
            [["a", "a", "match", "ea", 1.0], mismatch, ["a", "a", "match", "=", 1.0]],
            [["b", "b", "match", "ea", 1.0], mismatch, ["b", "b", "match", "=", 1.0]],
            [["c", "c", "match", "=", 1.0], mismatch],
        ]
        # read back, every field as it was scored (the lone surrogate too)
        fields = [comparison["fields"] for comparison in spool]
    assert fields == [*a, *b, *b, *a, *c, *c]


def test_a_tables_text_is_the_encoders(monkeypatch: pytest.MonkeyPatch) -> None:
    """Heads' texts are remembered across tables: each table's text is still what the
    encoder writes for it, heads in its own order, weights and floors (never remembered:
    -0.0 and 0.0 are two texts) and a lone surrogate (escaped) included."""
    monkeypatch.setattr(spool_module, "_head_texts", {})
    plain = [["a", "a", "match", "=", 1.0], ["\ud800", "$", "mismatch", "e!a", None]]
    weighted = [["w", "w", "match", "=", 1.0, 0.0], ["f", "f", "mismatch", "", 0.0, 1.0, 0.5]]
    tables = [
        plain,
        plain[::-1],
        [*weighted, *plain],
        [["w", "w", "match", "=", 1.0, -0.0], *weighted[1:]],
        [],
    ]
    for table in tables * 2:  # (the second time, from the texts remembered)
        assert table_text(table) == encode_json(table)
    assert table_text(tables[3]) != table_text(weighted)
    assert sorted(spool_module._head_texts) == sorted(map(tuple, plain))


def test_heads_texts_remembered_are_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(spool_module, "_head_texts", {})
    monkeypatch.setattr(spool_module, "_HEAD_TEXTS_KEPT", 3)
    table = [[f"k{i}", f"k{i}", "match", "=", 1.0] for i in range(5)]
    assert table_text(table) == table_text(table) == encode_json(table)
    assert list(spool_module._head_texts) == [tuple(head) for head in table[:3]]


@pytest.mark.parametrize("held", [True, False], ids=["held", "in-a-file"])
@pytest.mark.parametrize(
    "target", ["file", "appended-file", "utf-16-file", "text-buffer", "sent-in-pieces"]
)
def test_a_spools_items_reach_any_target_as_the_reports_list(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, target: str, held: bool
) -> None:
    """The items written after what a file holds already: copied by the system into a
    UTF-8 file; a block at a time into one opened to append (which sendfile refuses) or
    where the system stops part way; decoded into a file of another encoding or a text
    buffer."""
    if not held:
        monkeypatch.setattr(spool_module, "HELD", 0)
    if target == "sent-in-pieces":
        sendfile = os.sendfile

        def some_then_refuse(out: int, source: int, at: int, count: int) -> int:
            if at > 100:
                raise OSError(errno.EINVAL, "refused part way")
            return sendfile(out, source, at, min(count, 7))

        monkeypatch.setattr(os, "sendfile", some_then_refuse)
    items = [{"n": i, "v": HOSTILE[i % 4]} for i in range(40)]
    lines = [json_line(item) for item in items]
    expected = "[\n    " + ",\n    ".join(lines) + "\n  ]"
    path = tmp_path / "out.json"
    encoding = "utf-16" if target == "utf-16-file" else "utf-8"
    if target == "appended-file":
        path.write_text("[", encoding="utf-8")
    with Spool[Any](str(tmp_path)) as kept:
        for item in items:
            kept.append(item)
        assert (kept.path is None) == held
        if target == "text-buffer":
            out = io.StringIO()
            out.write("[")
            kept.write_items(out)
            out.write("]")
            assert out.getvalue() == expected
            return
        with open(path, "a" if target == "appended-file" else "w", encoding=encoding) as fh:
            if target != "appended-file":
                fh.write("[")
            kept.write_items(fh)
            fh.write("]")
    assert path.read_text(encoding=encoding) == expected


def _score(tmp_path: Path, *args: str) -> list[str]:
    gold, pred = tmp_path / "gold.jsonl", tmp_path / "pred.jsonl"
    records = [{"id": f"r{i}", "v": HOSTILE[i % 4], "n": i} for i in range(300)]
    answers = [{**r, "v": r["v"] if i % 3 else [r["v"]]} for i, r in enumerate(records)]
    gold.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    pred.write_text("".join(json.dumps(r) + "\n" for r in answers), encoding="utf-8")
    assert main(["score", str(gold), str(pred), "--format", "json", *args]) in (0, 1)
    return [str(gold), str(pred)]


def test_a_report_is_the_same_from_memory_a_file_or_blocks_and_on_standard_output(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capfd: pytest.CaptureFixture[str]
) -> None:
    """300 records (five groups of 64 scored together, five tables) with the hostile
    values: the report written from spools held in memory, from spools in files (copied by
    the system), a block at a time (no sendfile), and to standard output, is one text, and
    reads back with every value as the records hold it."""
    out = tmp_path / "report.json"
    reports = []
    for how in ("held", "in-files", "in-blocks"):
        if how != "held":
            monkeypatch.setattr(spool_module, "HELD", 0)
        if how == "in-blocks":
            monkeypatch.delattr(os, "sendfile")
        _score(tmp_path, "-o", str(out))
        reports.append(out.read_text(encoding="utf-8"))
    _score(tmp_path)  # standard output: a file under capfd, sendfile refused
    reports.append(capfd.readouterr().out)
    # (the run's time and command left out)
    texts = [text[text.index('\n  "overall"') :] for text in reports]
    assert texts[1:] == texts[:1] * 3
    report = json.loads(reports[0])
    # five groups (0, 64, 128, 192, 256), each table in the order its first records show
    # their heads: a record i whose i % 3 is 0 mismatches "v" (its answer holds [v]), one
    # whose i % 4 is 0 matches the object; groups 3 and 4 start as 0 and 1 do (192 and 0 are
    # both 0 mod 3 and mod 4; 256 and 64 both 1 mod 3 and 0 mod 4): three tables
    assert len(report["field_heads"]) == 3 and len(report["comparisons"]) == 300
    assert [c["heads"] for c in report["comparisons"]][::64] == [0, 1, 2, 0, 1]
    fields = [c["fields"] for c in report["comparisons"][:4]]
    assert fields[0][1] == [1, HOSTILE[0], [HOSTILE[0]]]  # (head 1: "v" mismatch, "ea")
    assert fields[1][1] == [3, HOSTILE[1]]  # (head 3: "v" match, "=": the value once)
    assert fields[2][1] == [3, HOSTILE[2]]
    assert fields[3][1] == [1, HOSTILE[3], [HOSTILE[3]]]
