"""The report's fields as it stores them (reporting/run_model/field_rows.py): every field comes back
from its row exactly, values held once only where both sides are one JSON value, paths and
statuses written once per table; a dataset's chunks each with their own table, kept once
when equal (spool.ComparisonSpool)."""

from __future__ import annotations

import io
import json
from typing import Any

import pytest

from pytest_jsonmatch.reporting.run_model.field_rows import Heads, StoredFields, stored_comparison
from pytest_jsonmatch.reporting.run_model.spool import (
    ComparisonSpool,
    bare,
    dump_report,
    json_line,
)
from pytest_jsonmatch.reporting.run_model.validation import ReportError, check_report


def _field(path: str, status: str, score: float, **values: Any) -> dict[str, Any]:
    return {"path": path, "field_path": path, "status": status, "score": score, **values}


FIELDS = [
    _field("a", "match", 1.0, expected="x", actual="x"),
    _field("b", "mismatch", 0.0, expected="x", actual="y"),
    _field("c", "match", 0.75, expected="colour", actual="color"),
    _field("d", "omission", 0.0, expected=3),
    _field("e", "hallucination", 0.0, actual=[1, 2]),
    _field("f", "skipped", 0.0),
    _field("g", "mismatch", 0.0, expected="q" * 10, actual='"qqq...', actual_cut=True),
    _field("h", "mismatch", 0.0, expected='"qqq...', expected_cut=True, actual=1),
    _field(
        "i", "mismatch", 0.0, expected='"a...', expected_cut=True, actual='"a...', actual_cut=True
    ),
    # one JSON value each side, though Python's == says equal: never held once
    _field("j", "mismatch", 0.0, expected=1, actual=True),
    _field("k", "mismatch", 0.0, expected=1, actual=1.0),
    _field("l", "match", 1.0, expected=0.0, actual=-0.0),
    _field("m", "match", 1.0, expected=[1], actual=[1]),
    _field("n", "match", 1.0, expected=None, actual=None),
    _field("o", "mismatch", -0.0, expected=-0.0, actual=-0.0),
]


def _comparison(case_id: str, fields: list[dict[str, Any]]) -> dict[str, Any]:
    return {"case_id": case_id, "nodeid": case_id, "fields": fields}


def test_every_field_comes_back_from_its_row_exactly() -> None:
    heads = Heads()
    stored = stored_comparison(_comparison("1", FIELDS), heads, 0)
    rows = json.loads(json_line(stored))["fields"]
    back = StoredFields([heads.heads], "r.json", ReportError).comparison(
        json.loads(json_line(stored)), 0
    )
    assert back["fields"] == FIELDS
    # each value's own type and sign, not only ==
    assert [repr(f.get("expected")) + repr(f.get("actual")) for f in back["fields"]] == [
        repr(f.get("expected")) + repr(f.get("actual")) for f in FIELDS
    ]
    sides = [heads.heads[row[0]][3] for row in rows]
    assert sides == ["=", "ea", "ea", "e", "a", "", "ea!", "e!a", "e!a!"] + ["ea"] * 4 + ["=", "="]
    # a match and a miss at 1.0 and 0.0 in their heads; 0.75 and -0.0 in their rows
    assert [len(row) for row in rows[:3]] == [2, 3, 4] and rows[2][1] == 0.75
    assert rows[-1] == [len(heads) - 1, -0.0, -0.0] and heads.heads[-1][4] is None
    assert rows[-2] == [13, None] and heads.heads[13] == ["n", "n", "match", "=", 1.0]


def test_a_fields_weight_and_floor_come_back_from_its_head() -> None:
    fields = [
        _field("a", "match", 1.0, expected="x", actual="x"),
        _field("b", "mismatch", 0.0, expected="x", actual="y", weight=3.0),
        _field("c", "omission", 0.0, expected=1, min_score=0.5),
        _field("d", "mismatch", 0.25, expected=1, actual=2, weight=0.0, min_score=0.5),
    ]
    heads = Heads()
    stored = json.loads(json_line(stored_comparison(_comparison("1", fields), heads, 0)))
    back = StoredFields([heads.heads], "r.json", ReportError).comparison(stored, 0)
    assert back["fields"] == fields
    # five members without a weight or floor; then the weight; then the weight (1 when
    # none) and the floor
    assert heads.heads == [
        ["a", "a", "match", "=", 1.0],
        ["b", "b", "mismatch", "ea", 0.0, 3.0],
        ["c", "c", "omission", "e", 0.0, 1.0, 0.5],
        ["d", "d", "mismatch", "ea", None, 0.0, 0.5],
    ]


@pytest.mark.parametrize(
    ("head", "why"),
    [
        (["b", "b", "match", "", 1.0, -1], "weight -1 is not a number >= 0"),
        (["b", "b", "match", "", 1.0, "2"], "weight a str is not a number >= 0"),
        (["b", "b", "match", "", 1.0, True], "weight True is not a number >= 0"),
        (["b", "b", "match", "", 1.0, 1.0, 2], "min_score 2 is not a number in [0, 1]"),
        (["b", "b", "match", "", 1.0, 1.0, None], "min_score None is not a number in [0, 1]"),
        (["b", "b", "match", "", 1.0, 1.0, 0.5, 0], "not a head of five to seven items"),
    ],
)
def test_a_head_whose_weight_or_floor_is_not_a_reports_is_refused(head, why) -> None:
    entry = {"case_id": "1", "heads": 0, "fields": [[0]]}
    with pytest.raises(ReportError) as info:
        StoredFields([[head]], "r.json", ReportError).comparison(entry, 0)
    assert str(info.value) == f"r.json: $.field_heads[0][0]: {why}"


def test_a_dataset_of_like_records_writes_each_path_once() -> None:
    heads = Heads()
    lines = [
        json_line(
            stored_comparison(
                _comparison(
                    str(i),
                    [
                        _field("invoice_id", "match", 1.0, expected=f"INV-{i}", actual=f"INV-{i}"),
                        _field("total", "mismatch", 0.0, expected=i + 0.5, actual=i),
                    ],
                ),
                heads,
                0,
            )
        )
        for i in range(1000)
    ]
    assert len(heads) == 2  # two heads for 2,000 fields
    assert lines[7].endswith('"fields": [[0, "INV-7"], [1, 7.5, 7]]}')
    assert sum(line.count("invoice_id") for line in lines) == 0


def _spooled(tmp_path, parts: list[tuple[list[dict[str, Any]], ...]]) -> ComparisonSpool:
    spool = ComparisonSpool(str(tmp_path))
    case = 0
    for part in parts:
        heads = Heads()  # a chunk's own, as a worker makes it
        lines = []
        for fields in part:
            case += 1
            lines.append(json_line(stored_comparison(_comparison(str(case), fields), heads, 0)))
        spool.append_part([[bare(line) for line in lines]], len(lines), [heads.heads])
    return spool


def test_each_chunk_refers_to_its_own_table_and_equal_tables_are_kept_once(tmp_path) -> None:
    first = [_field("a", "match", 1.0, expected=1, actual=1)]
    other = [_field("b", "mismatch", 0.0, expected="x", actual="y"), *first]
    parts = [(first, first), (other, first), (first,), ([],)]
    with _spooled(tmp_path, parts) as spool:
        # the first and third chunks' tables are equal: kept once
        assert spool.tables() == [
            [["a", "a", "match", "=", 1.0]],
            [["b", "b", "mismatch", "ea", 0.0], ["a", "a", "match", "=", 1.0]],
            [],
        ]
        assert [json.loads(line)["heads"] for line in spool.lines()] == [0, 0, 1, 1, 0, 2]
        assert [c["fields"] for c in spool] == [first, first, other, first, first, []]
        text = io.StringIO()
        dump_report(text, {"version": 4, "gates": {}}, [], spool)
    written = json.loads(text.getvalue())
    assert written["field_heads"] == [
        [["a", "a", "match", "=", 1.0]],
        [["b", "b", "mismatch", "ea", 0.0], ["a", "a", "match", "=", 1.0]],
        [],
    ]
    assert [c["case_id"] for c in written["comparisons"]] == ["1", "2", "3", "4", "5", "6"]


def test_a_held_report_is_written_with_one_table_and_read_back_whole(tmp_path) -> None:
    text = io.StringIO()
    comparisons = [_comparison("1", FIELDS), _comparison("2", FIELDS[:3]), _comparison("3", [])]
    dump_report(text, {"version": 4, "gates": {}}, [], comparisons)
    written = json.loads(text.getvalue())
    assert len(written["field_heads"]) == 1 and len(written["field_heads"][0]) == len(FIELDS)
    assert [c["heads"] for c in written["comparisons"]] == [0, 0, 0]
    reader = StoredFields(written["field_heads"], "r.json", ReportError)
    back = [reader.comparison(c, i) for i, c in enumerate(written["comparisons"])]
    assert back == comparisons


@pytest.mark.parametrize(
    ("row", "why"),
    [
        ([0], "holds 0 values, not what its head says"),
        ([0, "x", "y"], "holds 2 values, not what its head says"),
        ([5, "x"], "head 5 is not one of the 2 heads"),
        (["0", "x"], "head a str is not one of the 2 heads"),
        ([1], "score None is not a number in [0, 1]"),
        ([1, 1.5], "score 1.5 is not a number in [0, 1]"),
        ([1, False], "score False is not a number in [0, 1]"),
    ],
)
def test_a_row_that_does_not_fit_its_head_is_refused_naming_it(row, why) -> None:
    table = [["a", "a", "match", "=", 1.0], ["b", "b", "match", "", None]]
    entry = {"case_id": "1", "heads": 0, "fields": [[0, "x"], row]}
    with pytest.raises(ReportError) as info:
        StoredFields([table], "r.json", ReportError).comparison(entry, 3)
    assert str(info.value) == f"r.json: $.comparisons[3].fields[1]: {why}"


def test_a_report_read_back_checks_its_rows_after_its_schema(tmp_path) -> None:
    text = io.StringIO()
    head = {
        "version": 4,
        "run": {},
        "overall": None,
        "count": 0,
        "errors": 0,
        "xfailed": 0,
        "xpassed": 0,
        "group_by": "metric",
        "metrics": {},
        "fields": {},
        "groups": {},
        "gates": {"passed": True, "failures": [], "warnings": [], "checked": []},
    }
    comparison = {
        "case_id": "1",
        "nodeid": "1",
        "seq": 0,
        "repeat": 0,
        "metric": "field_f1",
        "status": "passed",
        "score": 1.0,
        "threshold": 1.0,
        "precision": 1.0,
        "recall": 1.0,
        "f1": 1.0,
        "error": "",
        "file": "",
        "line": None,
        "fields": FIELDS[:2],
        "pairings": [],
        "floor_failures": [],
        "source": "case",
        "recording": "",
    }
    dump_report(text, head, [], [comparison])
    assert check_report(json.loads(text.getvalue()), "r.json")["comparisons"] == [comparison]
    forged = json.loads(text.getvalue())
    forged["comparisons"][0]["fields"].append([0, "x", "y", "z", "w"])  # five items
    with pytest.raises(ReportError, match=r"^r\.json: \$\.comparisons\[0\]\.fields\[2\]: "):
        check_report(forged, "r.json")


def test_a_dataset_report_is_a_third_of_the_objects_it_stands_for(tmp_path, capsys) -> None:
    """The stored report of a dataset of like records (a nested vendor, scalars, line items;
    a third damaged) against the same report with each field an object and each case and
    comparison a line (version 3's layout): at most a third of its size, every field back."""
    from pytest_jsonmatch.cli import main
    from pytest_jsonmatch.reporting.verdicts.report import load_report

    gold, pred = tmp_path / "gold.jsonl", tmp_path / "pred.jsonl"
    with open(gold, "w") as g, open(pred, "w") as p:
        for i in range(400):
            record = {
                "invoice_id": f"INV-{i:06d}",
                "vendor": {"name": ["ACME Corp", "Globex SA"][i % 2], "country": "DE"},
                "total": i + 0.25,
                "paid": i % 2 == 0,
                "date": f"2025-{i % 12 + 1:02d}-{i % 28 + 1:02d}",
                "currency": "EUR",
                "items": [
                    {
                        "sku": f"SKU-{i % 7}{k}",
                        "description": ["bolt washer", "cable panel"][k % 2],
                        "qty": k + 1,
                        "unit_price": k + 0.5,
                    }
                    for k in range(4)
                ],
            }
            g.write(json.dumps(record) + "\n")
            if i % 3 == 0:
                record = {**record, "total": i, "vendor": {"name": "Initech"}}
            p.write(json.dumps(record) + "\n")
    out = tmp_path / "r.json"
    assert main(["score", str(gold), str(pred), "--format", "json", "-o", str(out)]) in (0, 1)
    held = load_report(out)
    # every field of every comparison back: as many as the per-field tables counted
    counted = sum(
        row[s] for row in held["fields"].values() for s in ("match", "mismatch", "omission")
    ) + sum(row["hallucination"] for row in held["fields"].values())
    assert sum(len(c["fields"]) for c in held["comparisons"]) == counted >= 400 * 22
    head = {k: v for k, v in held.items() if k not in ("cases", "comparisons")}
    objects = json.dumps(head, indent=2)[:-2]
    for key in ("cases", "comparisons"):
        lines = ",\n    ".join(json.dumps(item, ensure_ascii=False) for item in held[key])
        objects += f',\n  "{key}": [\n    {lines}\n  ]'
    objects += "\n}\n"
    assert out.stat().st_size * 3 <= len(objects.encode())


def test_heads_taken_back_are_forgotten_and_made_again_in_order() -> None:
    """A record's rows given up take back the heads it made (row_writer.py): the table and
    every lookup that remembers them as if they were never made."""
    from pytest_jsonmatch.reporting.run_model.field_rows import Heads

    heads = Heads()
    assert heads.found("a", "a", "match", "=", 1.0) == (0, False)
    mark = len(heads)
    assert heads.found("b", "b", "mismatch", "ea", 0.0) == (1, False)
    assert heads.found("c", "c", "mismatch", "ea", 0.25) == (2, True)
    heads.matched["b"] = ("b", 1)
    heads.take_back(mark)
    assert heads.heads == [["a", "a", "match", "=", 1.0]]
    assert heads.matched == {} and all(at < mark for at, _ in heads.known.values())
    # made again in the order they are now asked for
    assert heads.found("c", "c", "mismatch", "ea", 0.25) == (1, True)
    assert heads.found("b", "b", "mismatch", "ea", 0.0) == (2, False)
    assert heads.found("a", "a", "match", "=", 1.0) == (0, False)
