"""score_chunk counts the per-field tables from the engine's own field results: the same
figures whether each comparison keeps its recorded fields or not, and the same as
evaluate_records' per-field aggregate."""

from __future__ import annotations

from pytest_jsonmatch import evaluate_records
from pytest_jsonmatch.dataset import NO_PREDICTION, Pair, SchemaSketch, ScoreSettings, score_chunk

GOLD = [{"id": 1, "name": "Ann", "tags": ["a", "b"], "note": "x"},
        {"id": 2, "name": "Bob", "tags": [], "note": None},
        {"id": 3, "name": "Cy", "tags": ["c"], "note": "y"}]
PRED = [{"id": 1, "name": "Anne", "tags": ["b", "a"], "extra": 1, "note": "x"},
        {"id": 2, "name": "Bob", "tags": [], "note": "z"},
        {"id": 3, "tags": ["c", "d"], "note": "y"}]


def _tables(keep_fields: bool, pairs: list[Pair], options: dict) -> dict:
    settings = ScoreSettings("field_f1", 1.0, options, keep_fields=keep_fields)
    summary = score_chunk(pairs, settings).aggregates.summary()
    return {path: agg.to_dict() for path, agg in summary.fields.items()}


def test_the_tables_are_the_same_with_or_without_the_recorded_fields():
    options = {"schema": SchemaSketch.of(GOLD).schema(), "ignore": ["note"]}
    pairs = [Pair(str(i), g, p) for i, (g, p) in enumerate(zip(GOLD, PRED))]
    pairs.append(Pair("9", GOLD[0], NO_PREDICTION, missing="no prediction"))  # counts 0
    pairs.append(Pair("10", GOLD[1], "not json at all"))  # an error: counts 0, no fields
    kept, counted = _tables(True, pairs, options), _tables(False, pairs, options)
    assert kept == counted
    assert counted["note"] == {"mean_score": 1.0, "score_sum": 0.0, "scored": 0, "match": 0,
                               "mismatch": 0, "omission": 0, "hallucination": 0}  # ignored
    # the three scored pairs alone: what evaluate_records aggregates
    run = evaluate_records(GOLD, PRED, "field_f1", **options)
    for path, aggregate in run.per_field.items():
        mine = _tables(False, pairs[:3], options)[path]
        assert mine == aggregate.to_dict(), path
    # Anne for Ann, Bob, Cy left out; the two pairs that could not be scored have no fields
    assert {k: counted["name"][k] for k in ("scored", "match", "mismatch", "omission")} == {
        "scored": 3, "match": 1, "mismatch": 1, "omission": 1}


def test_without_kept_fields_a_comparison_carries_none():
    settings = ScoreSettings("field_f1", 1.0, {"schema": SchemaSketch.of(GOLD).schema()},
                             keep_fields=False)
    scored = score_chunk([Pair("0", GOLD[0], PRED[0])], settings)
    assert scored.comparisons[0].fields == ()
    assert scored.cases[0].case_id == "0" and 0.0 < scored.cases[0].mean < 1.0
