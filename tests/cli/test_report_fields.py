"""Every field verdict of every comparison of ``jsonmatch score --format json`` is in its
report: read back by the project's reader (``load_report``), each comparison's fields are
the engine's field results of that pair, scored in memory (``evaluate_records`` with the
schema of every gold record), each value kept as the report keeps it (``kept_value`` of
the run's ``--values``); in one process and with workers, records aligned in order and
by the Hungarian method (whose pairings take the comparison's own way of being written)."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

from pytest_jsonmatch import evaluate_records
from pytest_jsonmatch.dataset.sketch import SchemaSketch
from pytest_jsonmatch.engine.core.values import MISSING
from pytest_jsonmatch.reporting.run_model.comparisons import kept_value
from pytest_jsonmatch.reporting.verdicts.report import load_report

from .test_score import dataset, write_jsonl

# values at the edges of what a row holds once, whole or cut
EDGES: list[Any] = [
    "x" * 33,
    "y" * 34,
    "z" * 250,
    'q "quoted" \u2028 \u00e9',
    -0.0,
    0.0,
    2.5,
    10**15,
    10**15 - 1,
    True,
    None,
    [1, "a"],
    {"k": "v" * 300},
]


def _records(n: int, seed: int) -> tuple[list[dict[str, Any]], list[Any]]:
    gold, pred = dataset(n, seed)
    rng = random.Random(seed)
    for record, answer in zip(gold, pred):
        record["note"] = rng.choice(EDGES)
        if isinstance(answer, dict):
            answer["note"] = record["note"] if rng.random() < 0.5 else rng.choice(EDGES)
            if rng.random() < 0.2:
                answer["extra"] = rng.choice(EDGES)  # a field the gold record lacks
    return gold, pred


def _kept(field: Any, mode: str) -> dict[str, Any]:
    """A FieldResult as the report keeps it (docs/ci.md, "How the fields are stored")."""
    out: dict[str, Any] = {
        "path": field.path or "$",
        "field_path": field.field_path or "$",
        "status": field.status,
        "score": float(field.score),
    }
    for side, value in (("expected", field.expected), ("actual", field.actual)):
        if mode != "none" and value is not MISSING:
            out[side], cut = kept_value(value, mode)
            if cut:
                out[f"{side}_cut"] = True
    return out


def _same(a: Any, b: Any) -> bool:
    """Equal as JSON values, each number's type and sign its own."""
    return json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True) and repr(a) == repr(b)


@pytest.mark.parametrize("mode", ["short", "full", "none"])
@pytest.mark.parametrize(
    "extra", [[], ["-j", "2"], ["--option", "align=hungarian"]], ids=["j1", "j2", "hungarian"]
)
def test_every_field_verdict_reads_back_as_scored_in_memory(tmp_path, jsonmatch_main, mode, extra):
    gold, pred = _records(150, seed=len(mode) + len(extra))
    out = tmp_path / "report.json"
    proc = jsonmatch_main(
        "score",
        str(write_jsonl(tmp_path / "g.jsonl", gold)),
        str(write_jsonl(tmp_path / "p.jsonl", pred)),
        "--format",
        "json",
        "--values",
        mode,
        "-o",
        str(out),
        *extra,
    )
    assert proc.returncode in (0, 1), proc.stderr
    report = load_report(out)
    comparisons = {c["case_id"]: c for c in report["comparisons"]}
    assert len(comparisons) == len(gold)
    scorable = [i for i, p in enumerate(pred) if not (isinstance(p, str) and p.startswith("Sorry"))]
    options = {"align": "hungarian"} if extra[-1:] == ["align=hungarian"] else {}
    run = evaluate_records(
        [gold[i] for i in scorable],
        [pred[i] for i in scorable],
        "field_f1",
        schema=SchemaSketch.of(gold).schema(),
        **options,
    )
    fields = 0
    for i, record in zip(scorable, run.records):
        back = comparisons[str(i + 1)]
        want = [_kept(f, mode) for f in record.fields]
        assert back["fields"] == want, i
        assert all(
            _same(b.get(side), w.get(side))
            for b, w in zip(back["fields"], want)
            for side in ("expected", "actual")
        )
        assert back["score"] == record.score
        fields += len(want)
    for i in set(range(len(gold))) - set(scorable):
        assert comparisons[str(i + 1)]["fields"] == []
        assert comparisons[str(i + 1)]["status"] == "error"
    assert fields > 900
    if options:
        assert any(c["pairings"] for c in report["comparisons"])


@pytest.mark.parametrize("extra", [[], ["-j", "2"]], ids=["j1", "j2"])
def test_a_fields_weight_and_floor_read_back_as_scored_in_memory(tmp_path, jsonmatch_main, extra):
    """A dataset whose total counts for 3 and has a floor of 1/2: each field's weight where
    not 1, and the floor of each field below it, come back from its row's head."""
    gold = [{"vendor": f"V{i}", "total": i} for i in range(80)]
    # every third answer's total is wrong, every fifth's vendor
    pred = [{"vendor": f"V{i}" if i % 5 else "?", "total": i if i % 3 else -1} for i in range(80)]
    rules = {"total": {"weight": 3, "min_score": 0.5}}
    out = tmp_path / "report.json"
    proc = jsonmatch_main(
        "score",
        str(write_jsonl(tmp_path / "g.jsonl", gold)),
        str(write_jsonl(tmp_path / "p.jsonl", pred)),
        "--format",
        "json",
        "--metric",
        "field_match",
        "--option",
        f"fields={json.dumps(rules)}",
        "-o",
        str(out),
        *extra,
    )
    assert proc.returncode in (0, 1), proc.stderr
    comparisons = {c["case_id"]: c for c in load_report(out)["comparisons"]}
    run = evaluate_records(gold, pred, "field_match", fields=rules)
    floors = 0
    for i, record in enumerate(run.records):
        back = comparisons[str(i + 1)]
        failed = {f.path: f.min_score for f in record.floor_failures}
        want = []
        for f in record.fields:
            kept = _kept(f, "short")
            if f.weight != 1.0 or f.path in failed:
                kept["weight"] = float(f.weight)
            if f.path in failed:
                kept["min_score"] = failed[f.path]
                floors += 1
            want.append(kept)
        assert back["fields"] == want, i
        assert back["score"] == record.score
    # the totals of answers 0, 3, ..., 78 are wrong: 27 floors failed
    assert floors == 27
    # answer 3: vendor matches, total (weight 3) does not: 1 / (1 + 3)
    assert comparisons["4"]["score"] == 0.25
