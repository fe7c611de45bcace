"""The JSON report a dataset run writes is the same, byte for byte, whether the generated
scorers write its rows as they score (their row form, engine/walking/row_scorers.py) or every
row is made from the record's fields afterwards (``ROW_FORM = False``): varied records
(nested objects, arrays of other lengths, keys missing and extra, values of other types,
values a report cuts, float zeros of both signs, big integers), every ``--values``, the
Hungarian pairing, ``ignore`` and ``fields`` rules, one process and two. The run's time is
the one line that may differ."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest

from pytest_jsonmatch.engine.walking import generated_scorers, row_scorers, unpaired
from pytest_jsonmatch.reporting.run_model import row_writer

from .test_score import write_jsonl

WORDS = ["bolt", "lamp", "valve", "panel", "cable", "hinge", "washer"]
# leaves at the edges of what a row holds whole (a string of 33 characters is kept, 34 cut;
# an integer of 15 digits kept) or writes its own way (a zero's sign, text JSON escapes)
EDGES: list[Any] = [
    "x" * 33,
    "y" * 34,
    'q "quoted" \u2028 \u00e9',
    -0.0,
    0.0,
    10**15,
    10**15 - 1,
    True,
    None,
    [1, "a"],
]


def _record(rng: random.Random, i: int) -> dict[str, Any]:
    return {
        "id": f"INV-{i:05d}",
        "vendor": {
            "name": rng.choice(["Globex SA", "Initech", "ACME"]),
            "address": {"city": rng.choice(["Lyon", "Bilbao"]), "zip": rng.randint(1000, 9999)},
        },
        "total": round(rng.uniform(0, 500), 2),
        "paid": rng.random() < 0.5,
        "note": rng.choice(EDGES),
        "items": [
            {
                "sku": f"SKU-{rng.randint(100, 999)}",
                "description": " ".join(rng.sample(WORDS, 2)),
                "qty": rng.randint(1, 20),
                "price": round(rng.uniform(1, 300), 2),
            }
            for _ in range(rng.randint(1, 4))
        ],
    }


def _answer(rng: random.Random, record: dict[str, Any]) -> Any:
    answer = json.loads(json.dumps(record))
    change = rng.random()
    if change < 0.1:
        return "no JSON here"
    if change < 0.2:
        del answer["vendor"]["name"]  # a key missing
    elif change < 0.3:
        answer["extra"] = rng.choice(EDGES)  # a key the gold record lacks
    elif change < 0.4:
        answer["items"] = answer["items"][1:]  # elements omitted
    elif change < 0.5:
        answer["items"].append(dict(answer["items"][0], sku="SKU-000"))  # one too many
    elif change < 0.6:
        answer["total"] = str(answer["total"])  # another type
    elif change < 0.7:
        answer["items"].reverse()
    if rng.random() < 0.4:
        answer["note"] = rng.choice(EDGES)
    if rng.random() < 0.2:  # a boolean flipped, or given as the number it equals
        answer["paid"] = rng.choice([not record["paid"], int(record["paid"])])
    for item in answer.get("items", []):
        if rng.random() < 0.3:
            item["description"] = item["description"][::-1]
        if rng.random() < 0.2:
            item["qty"] += 1
    return answer


def _files(folder: Path, n: int, seed: int) -> tuple[Path, Path]:
    rng = random.Random(seed)
    gold = [_record(rng, i) for i in range(n)]
    pred = [_answer(rng, record) for record in gold]
    return write_jsonl(folder / "gold.jsonl", gold), write_jsonl(folder / "pred.jsonl", pred)


def _report(jsonmatch_main: Any, args: list[str], out: Path) -> list[str]:
    done = jsonmatch_main(*args, "--format", "json", "-o", str(out))
    assert done.returncode in (0, 1), done.stderr
    return [line for line in out.read_text(encoding="utf-8").splitlines() if '"time": ' not in line]


OPTIONS = {
    "plain": [],
    "hungarian": ["--option", "align=hungarian"],
    "ignore": ["--option", 'ignore=["vendor.address"]'],
    "fields": ["--option", 'fields={"items[].description": {"comparator": "levenshtein"}}'],
    "two-processes": ["-j", "2"],
}


@pytest.mark.parametrize("mode", ["short", "full", "none"])
@pytest.mark.parametrize("options", sorted(OPTIONS))
def test_the_row_form_writes_the_report_the_fields_write(
    tmp_path: Path, jsonmatch_main: Any, monkeypatch: pytest.MonkeyPatch, mode: str, options: str
) -> None:
    gold, pred = _files(tmp_path, 300, seed=len(options) * 7 + len(mode))
    args = ["score", str(gold), str(pred), "--values", mode, *OPTIONS[options]]
    out = tmp_path / "report.json"
    monkeypatch.setattr(row_scorers, "ROW_FORM", False)
    by_fields = _report(jsonmatch_main, args, out)
    monkeypatch.setattr(row_scorers, "ROW_FORM", True)
    by_rows = _report(jsonmatch_main, args, out)
    assert by_rows == by_fields
    # the records hold what the row form writes and what it leaves to the fields
    text = "\n".join(by_rows)
    assert '"mismatch"' in text and '"omission"' in text and '"hallucination"' in text


# values of a type other than the one the schema was inferred with (from the first
# records): a typed key's own test does not take them, row_scorers.other_scalar does
OTHER_TYPES: list[Any] = [3, 0, 7, True, False, None, "text", "z" * 250, 0.0, -0.0, 2.5, 10**17]


def _other_typed_files(folder: Path, seed: int) -> tuple[Path, Path]:
    rng = random.Random(seed)
    gold, pred = [], []
    for i in range(400):
        late = i >= 300  # (the schema is read from the records before these)
        total = rng.choice(OTHER_TYPES) if late else round(rng.uniform(1, 9), 2)
        code = rng.choice(OTHER_TYPES) if late else "A"
        record = {"id": i, "total": total, "code": code}
        answer = dict(record)
        if rng.random() < 0.5:
            answer["total"] = rng.choice([total, *OTHER_TYPES])
        if rng.random() < 0.5:
            answer["code"] = rng.choice([code, *OTHER_TYPES])
        gold.append(record)
        pred.append(answer)
    return write_jsonl(folder / "gold.jsonl", gold), write_jsonl(folder / "pred.jsonl", pred)


@pytest.mark.parametrize("mode", ["short", "full", "none"])
def test_values_of_another_type_than_the_schemas_write_the_report_the_fields_write(
    tmp_path: Path, jsonmatch_main: Any, monkeypatch: pytest.MonkeyPatch, mode: str
) -> None:
    """A typed key's values of another scalar type (equal, unequal, cut, float zeros of
    both signs) are written by the shared ``other_scalar``, as the fields write them."""
    gold, pred = _other_typed_files(tmp_path, seed=len(mode))
    args = ["score", str(gold), str(pred), "-j", "1", "--values", mode]
    out = tmp_path / "report.json"
    monkeypatch.setattr(row_scorers, "ROW_FORM", False)
    by_fields = _report(jsonmatch_main, args, out)
    calls: list[Any] = []
    original = row_scorers.other_scalar

    def counted(*args: Any) -> None:
        calls.append(args[4:6])
        original(*args)

    monkeypatch.setattr(row_scorers, "other_scalar", counted)
    monkeypatch.setattr(row_scorers, "ROW_FORM", True)
    by_rows = _report(jsonmatch_main, args, out)
    assert by_rows == by_fields
    # equal and unequal pairs of several types, a zero among them, went that way
    assert any(e == a for e, a in calls) and any(e != a for e, a in calls)
    assert {type(e) for e, _ in calls} >= {int, bool, type(None), str}
    assert any(type(e) is float and e == 0.0 for e, _ in calls)


def test_a_record_scored_from_tallies_writes_its_rows_with_the_row_form(
    tmp_path: Path, jsonmatch_main: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The differential test above holds something: the row form is taken (its scorers
    made and called) on these records."""
    made: list[Any] = []
    original = generated_scorers._make

    def make(node: Any, shape: tuple[Any, ...], align: Any) -> Any:
        made.append(shape[-1])
        return original(node, shape, align)

    monkeypatch.setattr(generated_scorers, "_make", make)
    gold, pred = _files(tmp_path, 200, seed=3)
    _report(jsonmatch_main, ["score", str(gold), str(pred)], tmp_path / "r.json")
    assert any(type(form) is row_scorers.RowForm and form.keep for form in made)


def test_the_row_form_prints_as_readable_python() -> None:
    """The row form is generated code that can be printed and read (scorer_source): each
    plain key's match and mismatch rows written in place, its schema type tested first."""
    from pytest_jsonmatch.engine.metrics import REGISTRY
    from pytest_jsonmatch.engine.schemas.eval_schema import infer_node
    from pytest_jsonmatch.engine.walking.generated_scorers import scorer_source

    invoice = {"id": "A-1", "total": 10.5, "qty": 3, "paid": True}
    node = infer_node([invoice], REGISTRY)
    form = row_scorers.RowForm(True, 33, 10**15)
    source = scorer_source(node, tuple(invoice), tally=form)
    compile(source, "<row form>", "exec")
    assert "row form: a row and a tally per leaf" in source
    assert "if type(o) is str and type(v0) is str:" in source
    assert "append(f'{h}{enc(o)}]')" in source
    assert "append(f'{h}{v1!r}, {o!r}]')" in source  # a mismatch: both values
    # a boolean's JSON text, tested for first as the others are
    assert "if type(o) is bool and type(v3) is bool:" in source
    assert """append(f'{h}{"true" if v3 else "false"}, {"true" if o else "false"}]')""" in source
    # no values kept: the row is its head alone
    bare = scorer_source(node, tuple(invoice), tally=row_scorers.RowForm(False, 33, 10**15))
    assert "enc(" not in bare.split("def score")[1] and "append(h)" in bare


# Lacking elements and keys: the walk writes their plain leaves' rows itself
# (unpaired.ONE_SIDED_ROWS), as the writer would have written their FieldResults' rows.
LEAVES: list[Any] = [*EDGES, -(10**18), 2**64, "z" * 300, None, {}, []]


def _lacking_record(rng: random.Random, i: int) -> dict[str, Any]:
    return {
        "id": i,
        "owner": {"name": rng.choice(WORDS), "seat": {"row": rng.randint(1, 9), "tag": None}},
        "items": [
            {
                "sku": f"S{rng.randint(10, 99)}",
                "qty": rng.choice([1, 2, 10**15, -0.0, 0.0]),
                "note": rng.choice(LEAVES),
                "dims": {"w": rng.choice(LEAVES), "h": 2.5},
                "tags": rng.sample(WORDS, rng.randint(0, 2)),
            }
            for _ in range(rng.randint(1, 4))
        ],
        "codes": rng.sample(LEAVES[:10], rng.randint(0, 3)),
    }


def _lacking_answer(rng: random.Random, record: dict[str, Any]) -> Any:
    answer = json.loads(json.dumps(record))
    for _ in range(rng.randint(1, 3)):
        change = rng.randrange(7)
        if change == 0:
            answer["items"] = answer["items"][rng.randint(1, 3) :]  # elements omitted
        elif change == 1:  # elements hallucinated, their values of every kind
            more = dict(record["items"][0], note=rng.choice(LEAVES))
            answer["items"] += [more] * rng.randint(1, 2)
        elif change == 2:
            answer[rng.choice(["po", "extra"])] = rng.choice(LEAVES)  # a key gold lacks
        elif change == 3:
            answer["owner"]["nick"] = rng.choice(LEAVES)  # ... in a nested object
        elif change == 4:
            answer["owner"].pop(rng.choice(["name", "seat"]), None)  # a key the answer lacks
        elif change == 5 and answer["items"]:
            answer["items"][0].pop(rng.choice(["sku", "note", "dims"]), None)
        else:
            answer["codes"] = answer["codes"][1:] + rng.sample(LEAVES[:10], 1)
    return answer


LACKING_OPTIONS = {
    "plain": [],
    "two-processes": ["-j", "2"],
    "structural": ["--metric", "structural_f1"],  # nulls one side lacks count as absent
    "rules": [
        "--option",
        'fields={"items[].qty": {"min_score": 0.5}, "items[].dims": {"skip": true}, '
        '"po": {"skip": true}}',
    ],
}


@pytest.mark.parametrize("mode", ["short", "full", "none"])
@pytest.mark.parametrize("options", sorted(LACKING_OPTIONS))
def test_lacking_elements_and_keys_write_the_report_the_fields_write(
    tmp_path: Path, jsonmatch_main: Any, monkeypatch: pytest.MonkeyPatch, mode: str, options: str
) -> None:
    """The report of records whose answers lack elements and keys or have more of them
    (flat and nested; nulls, big integers, long strings, float zeros of both signs, empty
    containers among their values) is the same with every way of writing it: every row from
    the fields; the row form with one-sided leaves left as FieldResults; and the walk
    writing those leaves' rows."""
    rng = random.Random(len(options) * 11 + len(mode))
    gold = [_lacking_record(rng, i) for i in range(120)]
    pred = [_lacking_answer(rng, record) for record in gold]
    files = write_jsonl(tmp_path / "g.jsonl", gold), write_jsonl(tmp_path / "p.jsonl", pred)
    args = ["score", *map(str, files), "--values", mode, *LACKING_OPTIONS[options]]
    out = tmp_path / "report.json"
    monkeypatch.setattr(row_scorers, "ROW_FORM", False)
    by_fields = _report(jsonmatch_main, args, out)
    monkeypatch.setattr(row_scorers, "ROW_FORM", True)
    monkeypatch.setattr(unpaired, "ONE_SIDED_ROWS", False)
    by_writer = _report(jsonmatch_main, args, out)
    monkeypatch.setattr(unpaired, "ONE_SIDED_ROWS", True)
    by_walk = _report(jsonmatch_main, args, out)
    assert by_walk == by_fields
    assert by_writer == by_fields
    text = "\n".join(by_walk)
    assert '"omission"' in text and '"hallucination"' in text


def test_the_walk_writes_lacking_elements_and_keys_as_rows(
    tmp_path: Path, jsonmatch_main: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The differential test above holds something: with the switch on, records whose
    answers lack plain line items, a plain key or have a key more reach the writer as rows
    and tallies alone (no FieldResult to write back), and with it off they do not."""
    rng = random.Random(5)
    gold = [_record(rng, i) for i in range(60)]
    for record in gold:
        record["note"] = "n"
    pred = []
    for i, record in enumerate(gold):
        answer = json.loads(json.dumps(record))
        if i % 3 == 0:
            answer["items"] = answer["items"][:0]  # every line item omitted
        elif i % 3 == 1:
            answer["po"] = f"PO-{i}"  # a key gold lacks
            del answer["vendor"]["address"]["city"]  # a key the answer lacks
        else:
            answer["items"].append(dict(answer["items"][0], qty=2**40))  # an element more
        pred.append(answer)
    files = write_jsonl(tmp_path / "g.jsonl", gold), write_jsonl(tmp_path / "p.jsonl", pred)
    merged: list[int] = []
    original = row_writer.RowWriter._merged

    def counted(self: Any, fields: list[Any]) -> Any:
        merged.append(len(fields))
        return original(self, fields)

    monkeypatch.setattr(row_writer.RowWriter, "_merged", counted)
    args = ["score", *map(str, files)]
    monkeypatch.setattr(unpaired, "ONE_SIDED_ROWS", False)
    _report(jsonmatch_main, args, tmp_path / "r.json")
    # (the first records take the general walk, before their shape's scorer is made)
    assert len(merged) > 30
    merged.clear()
    monkeypatch.setattr(unpaired, "ONE_SIDED_ROWS", True)
    _report(jsonmatch_main, args, tmp_path / "r.json")
    assert len(merged) < 5


# RowWriter.took trusts the order its writers keep: each row followed by its tally, and no
# other string among the fields (its docstring). These hold that order and what took does
# with fields out of it.
@pytest.mark.parametrize("records", ["invoices", "invoices hungarian", "lacking members"])
def test_every_row_the_walk_writes_is_followed_by_its_tally(
    tmp_path: Path, jsonmatch_main: Any, monkeypatch: pytest.MonkeyPatch, records: str
) -> None:
    seen: list[list[Any]] = []
    original = row_writer.RowWriter.took

    def took(self: Any, fields: list[Any]) -> Any:
        seen.append(list(fields))
        return original(self, fields)

    monkeypatch.setattr(row_writer.RowWriter, "took", took)
    rng = random.Random(17)
    if records.startswith("invoices"):
        gold = [_record(rng, i) for i in range(160)]
        pred = [_answer(rng, record) for record in gold]
    else:  # (elements and keys one side lacks: unpaired.py writes their rows)
        gold = [_lacking_record(rng, i) for i in range(160)]
        pred = [_lacking_answer(rng, record) for record in gold]
    files = write_jsonl(tmp_path / "g.jsonl", gold), write_jsonl(tmp_path / "p.jsonl", pred)
    extra = OPTIONS["hungarian"] if records.endswith("hungarian") else []
    _report(jsonmatch_main, ["score", *map(str, files), *extra], tmp_path / "r.json")
    rows = 0
    for fields in seen:
        for at, item in enumerate(fields):
            if type(item) is str:
                rows += 1
                assert at + 1 < len(fields), fields
                after = fields[at + 1]
                assert type(after) is tuple and len(after) == 3, (item, after)
    assert len(seen) > 100 and rows > 1000  # (the row form wrote most fields)


def _writer() -> row_writer.RowWriter:
    from pytest_jsonmatch.reporting.run_model.field_rows import Heads

    return row_writer.RowWriter(Heads(), "short")


def test_took_keeps_rows_that_alternate_with_their_tallies() -> None:
    from pytest_jsonmatch.engine.results.field_results import tally

    writer = _writer()
    writer.begin()
    first, second = tally("a", "match", 1.0), tally("b", "mismatch", 0.0)
    assert writer.took(["[0, 1]", first, "[1, 2, 3]", second]) == [first, second]
    assert writer.text == "[0, 1], [1, 2, 3]"


def test_took_hands_fields_out_of_that_order_to_merged(monkeypatch: pytest.MonkeyPatch) -> None:
    """A FieldResult or a tally whose row no one wrote, wherever it falls, and a row with no
    tally after it: none is taken as a (row, tally) pair."""
    from pytest_jsonmatch.engine.core.values import MISSING
    from pytest_jsonmatch.engine.results.field_results import FieldResult, tally

    hit = tally("a", "match", 1.0)
    lone = FieldResult("b", "omission", 0.0, 5, MISSING, "", "", "b", None, 1.0, None)
    merged: list[list[Any]] = []
    original = row_writer.RowWriter._merged

    def counted(self: Any, fields: list[Any]) -> Any:
        merged.append(fields)
        return original(self, fields)

    monkeypatch.setattr(row_writer.RowWriter, "_merged", counted)
    for fields in (
        ["[0, 1]", hit, lone],  # a FieldResult last
        ["[0, 1]", hit, lone, "[0, 1]", hit],  # ... between rows
        ["[0, 1]", hit, lone, lone, "[0, 1]", hit],  # two: the parity comes back
        [hit, "[0, 1]", hit],  # a tally with no row
        ["[0, 1]", hit, "[0, 1]"],  # a row with no tally
    ):
        writer = _writer()
        writer.begin()
        writer.took(list(fields))
        assert merged and merged[-1] == fields
        merged.clear()
