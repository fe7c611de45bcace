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

from pytest_jsonmatch.engine.walking import generated_scorers, row_scorers

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
    # no values kept: the row is its head alone
    bare = scorer_source(node, tuple(invoice), tally=row_scorers.RowForm(False, 33, 10**15))
    assert "enc(" not in bare.split("def score")[1] and "append(h)" in bare
