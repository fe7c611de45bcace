"""``jsonmatch score`` infers field_f1's schema from every gold record, guessing it first from
the first chunk's and confirming it with every chunk scored: a dataset whose first chunk shows
its whole shape is read once; one that shows a field (or a field's type) only later is
sketched whole and scored again. Either way the scores are those of the schema all the gold
records give, which is what evaluate_records infers."""

from __future__ import annotations

import json
import random

import pytest

from pytest_jsonmatch import evaluate_records
from pytest_jsonmatch.cli import score_run as score_command

from .run import jsonmatch

pytestmark = pytest.mark.slow  # (CONTRIBUTING.md: the inner loop leaves it out)

N = 600  # three spans of 256 records (and the streaming reader's chunks of 64)


def _dataset(late: str | None) -> tuple[list[dict], list[dict]]:
    """Invoices; ``late``: ``"field"`` adds a field to record 530 alone, ``"type"`` gives a
    field null until record 530 (inferred a string) and an object from there on,
    ``"kinds"`` a field of several kinds (the first record's decides), ``"elements"`` a
    list empty until record 530."""
    rng = random.Random(4)
    gold, pred = [], []
    for i in range(N):
        record = {
            "id": f"r{i}",
            "total": rng.randint(1, 9),
            "po": None,
            "items": [{"sku": s, "qty": rng.randint(1, 3)} for s in rng.sample("ABCD", 2)],
        }
        if late == "type" and i >= 530:
            record["po"] = {"number": i}
        if late == "kinds":  # a string, then objects too, then arrays: a string decides
            record["po"] = {"number": i} if i % 2 else "PO"
            if i >= 530:
                record["po"] = [{"number": i}]
        if late == "elements":
            record["tags"] = [{"tag": "t", "at": i}] if i >= 530 else []
        if late == "field" and i == 530:
            record["note"] = {"text": "late", "pages": 2}
        answer = json.loads(json.dumps(record))
        if rng.random() < 0.4:
            answer["total"] += 1
        if rng.random() < 0.3:
            answer["items"].reverse()
        if "note" in answer:
            answer["note"]["pages"] = 3
        gold.append(record)
        pred.append(answer)
    return gold, pred


@pytest.fixture
def sketches(monkeypatch):
    """How many chunks the run sketches apart from scoring them."""
    calls = []
    original = score_command.sketch_part

    def counted(chunk, metric, options):
        calls.append(1)
        return original(chunk, metric, options)

    monkeypatch.setattr(score_command, "sketch_part", counted)
    return calls


def _write(tmp_path, gold, pred):
    g, p = tmp_path / "g.jsonl", tmp_path / "p.jsonl"
    g.write_text("".join(json.dumps(r) + "\n" for r in gold))
    p.write_text("".join(json.dumps(r) + "\n" for r in pred))
    return str(g), str(p)


@pytest.mark.parametrize(
    "late, sketched",
    [(None, 1), ("field", 1 + 3), ("type", 1 + 3), ("elements", 1 + 3), ("kinds", 1)],
)
@pytest.mark.parametrize("by_id", [False, True])
def test_the_scores_are_those_of_the_schema_of_every_gold_record(
    tmp_path, jsonmatch_main, sketches, late, sketched, by_id
):
    gold, pred = _dataset(late)
    pairing = ["--id-field", "id"] if by_id else []
    proc = jsonmatch_main("score", *_write(tmp_path, gold, pred), *pairing, "--format", "json")
    assert proc.returncode in (0, 1), proc.stderr
    report = json.loads(proc.stdout)
    run = evaluate_records(gold, pred, "field_f1")
    assert [c["score"] for c in report["comparisons"]] == [r.score for r in run.records]
    fields = report["groups"]["field_f1"]
    assert ("note.pages" in fields) == (late == "field")
    if late == "field":  # the one record holding it: its pages differ, its text does not
        assert (fields["note.pages"]["mismatch"], fields["note.text"]["match"]) == (1, 1)
    if late == "type":  # an object from record 530: 70 records compare its field, all equal
        assert fields["po.number"]["match"] == N - 530
    if late == "elements":  # the elements' fields, from record 530 on
        assert fields["tags[].at"]["match"] == N - 530
    if late == "kinds":  # a string decided "po": the objects and arrays after it change
        assert "po.number" not in fields  # nothing, and the guess holds (read once)
    # the guess from the first chunk, then (a later surprise) every chunk sketched
    # (the streaming reader's chunks: 64 records, 10 of them)
    assert len(sketches) == (sketched if sketched == 1 or not by_id else 1 + 10)


@pytest.mark.parametrize("late", [None, "field", "kinds", "elements"])
def test_workers_give_what_one_process_gives(tmp_path, late):
    gold, pred = _dataset(late)
    files = _write(tmp_path, gold, pred)
    reports = []
    for jobs in ("1", "2"):
        proc = jsonmatch("score", *files, "-j", jobs, "--format", "json")
        assert proc.returncode in (0, 1), proc.stderr
        report = json.loads(proc.stdout)
        report.pop("run")
        reports.append(report)
    assert reports[0] == reports[1]
    assert reports[0]["count"] == N
