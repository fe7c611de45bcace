"""score_chunk counts the per-field tables from the engine's own field results (or, where
no one reads the fields, from its tallies): the same figures whether each comparison keeps
its recorded fields or not, and the same as evaluate_records' per-field aggregate."""

from __future__ import annotations

import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pytest_jsonmatch import evaluate_records
from pytest_jsonmatch.dataset import NO_PREDICTION, Pair, SchemaSketch, ScoreSettings, score_chunk
from pytest_jsonmatch.engine.core.errors import JsonMatchError
from tests.helpers import fuzz_values as fv

GOLD = [
    {"id": 1, "name": "Ann", "tags": ["a", "b"], "note": "x"},
    {"id": 2, "name": "Bob", "tags": [], "note": None},
    {"id": 3, "name": "Cy", "tags": ["c"], "note": "y"},
]
PRED = [
    {"id": 1, "name": "Anne", "tags": ["b", "a"], "extra": 1, "note": "x"},
    {"id": 2, "name": "Bob", "tags": [], "note": "z"},
    {"id": 3, "tags": ["c", "d"], "note": "y"},
]


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
    assert counted["note"] == {
        "mean_score": 1.0,
        "score_sum": 0.0,
        "scored": 0,
        "match": 0,
        "mismatch": 0,
        "omission": 0,
        "hallucination": 0,
    }  # ignored
    # the three scored pairs alone: what evaluate_records aggregates
    run = evaluate_records(GOLD, PRED, "field_f1", **options)
    for path, aggregate in run.per_field.items():
        mine = _tables(False, pairs[:3], options)[path]
        assert mine == aggregate.to_dict(), path
    # Anne for Ann, Bob, Cy left out; the two pairs that could not be scored have no fields
    assert {k: counted["name"][k] for k in ("scored", "match", "mismatch", "omission")} == {
        "scored": 3,
        "match": 1,
        "mismatch": 1,
        "omission": 1,
    }


def test_without_kept_fields_a_comparison_carries_none():
    settings = ScoreSettings(
        "field_f1", 1.0, {"schema": SchemaSketch.of(GOLD).schema()}, keep_fields=False
    )
    scored = score_chunk([Pair("0", GOLD[0], PRED[0])], settings)
    assert scored.comparisons[0].fields == ()
    assert scored.cases[0].case_id == "0" and 0.0 < scored.cases[0].mean < 1.0


def _counted_and_full(pairs: list[Pair], options: dict, group_by: str = "metric") -> tuple:
    settings = ScoreSettings("field_f1", 1.0, options, keep_fields=False, group_by=group_by)
    out = []
    for counted in (True, False):
        aggregates = score_chunk(pairs, settings, counted=counted).aggregates
        out.append(
            repr(
                (
                    [
                        (k, [(p, a.to_dict()) for p, a in g.items()])
                        for k, g in aggregates.groups.items()
                    ],
                    {
                        m: {
                            k: {n: x.units for n, x in v.items()} if k == "sums" else v
                            for k, v in zip(t._fields, t._values())
                        }
                        for m, t in aggregates.metrics.items()
                    },
                    aggregates.overall.value,
                )
            )
        )
    return tuple(out)


def test_tables_counted_from_tallies_are_those_of_the_fields():
    """A text run's chunk (no comparison written, no field kept) is tabled from the
    engine's tallies (count_records): the same tables, in the same order, as from each
    record's fields; a chunk with a record that cannot be scored, or with cases of several
    groups, is tabled from the fields."""
    options = {"schema": SchemaSketch.of(GOLD).schema()}
    pairs = [Pair(str(i), g, p, file="gold.jsonl") for i, (g, p) in enumerate(zip(GOLD, PRED))]
    pairs.append(Pair("9", GOLD[0], NO_PREDICTION, missing="no prediction", file="gold.jsonl"))
    counted, full = _counted_and_full(pairs, options)
    assert counted == full and "line" not in counted
    for align in ("hungarian", "ordered"):
        assert len(set(_counted_and_full(pairs, {**options, "align": align}))) == 1
    with_error = [*pairs, Pair("10", GOLD[1], "not json at all", file="gold.jsonl")]
    assert len(set(_counted_and_full(with_error, options))) == 1
    two_files = [pair._replace(file=f"part{i % 2}.jsonl") for i, pair in enumerate(pairs)]
    counted, full = _counted_and_full(two_files, options, group_by="file")
    assert counted == full and "part1.jsonl" in counted


@settings(
    max_examples=40,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(pairs=st.lists(fv.PAIRS, min_size=1, max_size=4))
def test_tables_counted_from_tallies_on_fuzz_values(pairs: list) -> None:
    gold = [e for _, e in pairs]
    try:
        options = {"schema": SchemaSketch.of(gold).schema()}
    except JsonMatchError:
        return
    chunk = [Pair(str(i), e, a) for i, (a, e) in enumerate(pairs)]
    settings_ = ScoreSettings("field_f1", 1.0, options, keep_fields=False)
    try:
        score_chunk(chunk, settings_)
    except JsonMatchError as exc:  # a gold record that cannot be read: the same refusal
        with pytest.raises(type(exc), match=re.escape(str(exc))):
            score_chunk(chunk, settings_, counted=True)
        return
    counted, full = _counted_and_full(chunk, options)
    assert counted == full
