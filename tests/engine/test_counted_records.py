"""``evaluate_records`` scores a record from what its fields count for, and makes the
record's fields when they are first read (engine/match.py, the tally form of
engine/walking/generated_scorers.py).

What must hold: the records, their fields (made later), the per-field tables and the means
are those of scoring each record in full (``score_records``, which always does); fields
are made only when read, and a record changed in place before they are made is refused,
never silently rescored; configurations whose fields something rewrites (a judge, weights,
``post_process``, an answer cut off) keep their fields from the start.
"""

from __future__ import annotations

import copy
import pickle
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pytest_jsonmatch import evaluate_records, infer_schema
from pytest_jsonmatch.engine.core.errors import JsonMatchError
from pytest_jsonmatch.engine.match import score_records
from pytest_jsonmatch.engine.metrics import REGISTRY
from pytest_jsonmatch.engine.results.field_results import aggregate_fields
from pytest_jsonmatch.engine.schemas.eval_schema import infer_node
from pytest_jsonmatch.engine.walking import generated_scorers as compiled
from tests.helpers import fuzz_values as fv
from tests.helpers.run_records import DAMAGED, INVOICE, NOT_PLAIN_JSON, Count, Tag
from tests.helpers.sweeps import sweep

SETTINGS = sweep(60)


def made(record: Any) -> bool:
    """Whether a record's fields exist yet (they are an instance attribute once made)."""
    return "fields" in vars(record)


def full_outcome(expected: list[Any], actual: list[Any], options: dict[str, Any]) -> str:
    """What scoring every record in full gives, as exact text (``repr`` of floats is exact)."""
    name, records = score_records(expected, actual, "field_f1", **dict(options))
    tables = aggregate_fields(records)
    return fv.exact_repr((records, {path: agg.to_dict() for path, agg in tables.items()}))


def counted_outcome(expected: list[Any], actual: list[Any], options: dict[str, Any]) -> str:
    run = evaluate_records(expected, actual, "field_f1", **dict(options))
    return fv.exact_repr(
        (run.records, {path: agg.to_dict() for path, agg in run.per_field.items()})
    )


@SETTINGS
@given(
    pairs=st.lists(fv.PAIRS, min_size=1, max_size=4),
    options=st.one_of(st.just({}), st.builds(lambda a: {"align": a}, fv.ALIGN_VALID)),
)
def test_counted_records_are_the_full_records_on_fuzz_values(
    pairs: list[Any], options: dict[str, Any]
) -> None:
    expected, actual = [e for _, e in pairs], [a for a, _ in pairs]
    try:
        want = full_outcome(expected, actual, options)
    except JsonMatchError as exc:
        with pytest.raises(type(exc)):
            evaluate_records(expected, actual, "field_f1", **options)
        return
    assert counted_outcome(expected, actual, options) == want


@pytest.mark.parametrize(
    "options", [{}, {"align": "hungarian"}, {"align": {"match_by": "key_field", "key": "sku"}}]
)
def test_fields_are_made_when_first_read_and_equal_the_full_walk(options: dict[str, Any]) -> None:
    run = evaluate_records([INVOICE, INVOICE], [DAMAGED, INVOICE], "field_f1", **options)
    assert not any(made(record) for record in run.records)
    # scores, pairings and the tables are there without the fields
    assert run.records[1].score == 1.0 and run.records[0].score < 1.0
    assert run.per_field["vendor.name"].mismatch == 1 and run.per_field["items[].qty"].scored == 4
    assert not any(made(record) for record in run.records)
    _, full = score_records([INVOICE, INVOICE], [DAMAGED, INVOICE], "field_f1", **options)
    assert run.records[0].fields == full[0].fields
    assert made(run.records[0]) and not made(run.records[1])
    assert run.records == full  # every field made, all equal


def test_a_counted_record_is_compared_pickled_and_copied_with_its_fields() -> None:
    run = evaluate_records([INVOICE], [DAMAGED], "field_f1")
    _, full = score_records([INVOICE], [DAMAGED], "field_f1")
    record = run.records[0]
    again = pickle.loads(pickle.dumps(record))
    assert made(again) and again == full[0]
    assert "_make_fields" not in vars(again)  # the way to make them is never pickled
    assert copy.deepcopy(evaluate_records([INVOICE], [DAMAGED]).records[0]) == full[0]
    assert record.to_dict() == full[0].to_dict()
    assert record.counts == full[0].counts and record.batch_errors == 0
    assert run.total_fields == sum(1 for f in full[0].fields if f.status != "skipped")


def test_a_results_fields_are_its_own_or_made_once_and_its_other_reads_are_plain() -> None:
    """``fields`` is a descriptor that gives way to the instance's own: no ``__getattr__``
    on the class (which would send every read of a result's figures down the slow lookup),
    and a result made without fields or a way to make them has none."""
    from pytest_jsonmatch import MatchResult

    assert "__getattr__" not in vars(MatchResult)
    record = evaluate_records([INVOICE], [DAMAGED], "field_f1").records[0]
    assert "fields" not in vars(record) and made(record) is False
    first = record.fields
    assert vars(record)["fields"] is first and record.fields is first  # (made once)
    assert "_make_fields" not in vars(record)
    bare = object.__new__(MatchResult)
    with pytest.raises(AttributeError, match="'MatchResult' object has no attribute 'fields'"):
        bare.fields  # noqa: B018
    with pytest.raises(AttributeError):
        record.no_such_figure  # type: ignore[attr-defined]  # noqa: B018


def test_a_record_changed_before_its_fields_are_read_is_refused() -> None:
    expected = [copy.deepcopy(INVOICE)]
    actual = [copy.deepcopy(DAMAGED)]
    run = evaluate_records(expected, actual, "field_f1")
    actual[0]["vendor"]["name"] = "ACME"  # now it would match: the score would differ
    with pytest.raises(JsonMatchError, match=r"record 0 changed after evaluate_records scored it"):
        run.records[0].fields  # noqa: B018
    # read before the change, the fields are those of the records as scored
    actual = [copy.deepcopy(DAMAGED)]
    run = evaluate_records(expected, actual, "field_f1")
    fields = run.records[0].fields
    actual[0]["vendor"]["name"] = "ACME"
    assert run.records[0].fields is fields
    assert [f.status for f in fields if f.path == "vendor.name"] == ["mismatch"]


def _judge(items: list[Any]) -> list[float]:
    return [1.0 if item.expected == item.actual else 0.25 for item in items]


JUDGED = {"type": "object", "properties": {"id": {"type": "string", "x-eval-compare": "judge"}}}


@pytest.mark.parametrize(
    "options",
    [
        {"post_process": ["reclassify_nulls"]},  # finish rewrites the fields
        {"fields": {"total": {"weight": 3}}},  # each field counts for its weight
        {"schema": JUDGED},  # a judge answers once, never twice
        {},  # a judge for every string (the registry's type default, below)
    ],
)
def test_fields_something_rewrites_are_made_with_the_score(options: dict[str, Any]) -> None:
    state = REGISTRY.state()
    try:
        REGISTRY.register_comparator("judge", _judge, batch=True)
        if not options:
            REGISTRY.set_type_default("string", "judge")
        run = evaluate_records([INVOICE, INVOICE], [DAMAGED, INVOICE], "field_f1", **options)
        assert all(made(record) for record in run.records)
        _, full = score_records([INVOICE, INVOICE], [DAMAGED, INVOICE], "field_f1", **options)
    finally:
        REGISTRY.restore(state)
    assert run.records == full


def test_an_answer_cut_off_and_scored_closed_keeps_its_fields() -> None:
    cut = '{"id": "A-1", "vendor": {"name": "AC'
    run = evaluate_records([INVOICE, INVOICE], [INVOICE, cut], "field_f1", truncated="close")
    assert not made(run.records[0]) and made(run.records[1])
    assert run.records[1].truncated is not None
    _, full = score_records([INVOICE, INVOICE], [INVOICE, cut], "field_f1", truncated="close")
    assert run.records == full


def test_the_tally_scorer_can_be_printed_and_holds_its_field_paths() -> None:
    node = infer_node([INVOICE], REGISTRY)
    source = compiled.scorer_source(node, tuple(INVOICE), tally=True)
    compile(source, "<scorer>", "exec")
    assert "tally form" in source
    # a match, or a mismatch between values of one type under a comparator that scores by
    # equality alone (exact), appends a tuple made once
    assert "append(hit0)" in source and "append(miss0)" in source
    assert "FieldResult(" not in source.split("def score")[1]  # no result made per field


def test_a_given_schema_is_counted_too() -> None:
    schema = infer_schema([INVOICE])
    run = evaluate_records([INVOICE], [DAMAGED], "field_f1", schema=schema)
    assert not made(run.records[0])
    _, full = score_records([INVOICE], [DAMAGED], "field_f1", schema=schema)
    assert run.records == full


def test_threads_reading_the_fields_at_once_all_get_the_same_fields() -> None:
    import threading

    run = evaluate_records([INVOICE] * 50, [DAMAGED] * 50, "field_f1")
    seen: list[Any] = []
    barrier = threading.Barrier(4)

    def read() -> None:
        barrier.wait()
        seen.append([record.fields for record in run.records])

    threads = [threading.Thread(target=read) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(seen) == 4
    assert all(a is b for fields in seen[1:] for a, b in zip(seen[0], fields))


def test_a_deep_record_is_counted_and_checked_against_its_schema_with_room() -> None:
    """A record nested past the caller's stack (the door measures it) is walked, checked
    against its schema and made into fields within the room its depth needs."""
    deep: Any = "leaf"
    for _ in range(1500):
        deep = {"d": deep}
    expected = [{"id": "A", "deep": deep}]
    actual = [{"id": "B", "deep": deep}]
    schema = infer_schema(expected)
    run = evaluate_records(expected, actual, "field_f1", schema=schema)
    assert not made(run.records[0])
    assert run.records[0].conformance is not None and run.records[0].conformance.valid
    _, full = score_records(expected, actual, "field_f1", schema=schema)
    assert run.records == full
    assert run.per_field["id"].mismatch == 1


def test_only_a_comparator_that_scores_by_equality_skips_unequal_values() -> None:
    """``exact`` declares that unequal values of one type score 0, so the tally scorer does
    not ask it; ``normalized`` (a built-in too) gives unequal strings 1 when they differ
    only in case, and a registered comparator gives what it gives: both are asked."""
    schema = {
        "type": "object",
        "properties": {
            "id": {"type": "string", "x-eval-compare": "exact"},
            "name": {"type": "string", "x-eval-compare": "normalized"},
            "city": {"type": "string", "x-eval-compare": "quarter"},
        },
    }
    expected = {"id": "A-1", "name": "ACME", "city": "Lyon"}
    actual = {"id": "a-1", "name": "acme", "city": "Lyons"}
    state = REGISTRY.state()
    try:
        REGISTRY.register_comparator("quarter", lambda e, a, _: 1.0 if e == a else 0.25)
        run = evaluate_records([expected], [actual], "field_f1", schema=schema)
        assert not made(run.records[0])
        tables = run.per_field
        _, full = score_records([expected], [actual], "field_f1", schema=schema)
    finally:
        REGISTRY.restore(state)
    assert {path: t.mean_score for path, t in tables.items()} == {
        "id": 0.0,
        "name": 1.0,
        "city": 0.25,
    }
    assert run.records == full


def _holding_itself() -> dict[str, Any]:
    value: dict[str, Any] = {}
    value["again"] = value
    return value


# Actual records the door reads or refuses, each where the walk meets it: read without the
# door, a record must come out as the door makes it (the same scores, fields and tables, or
# the same error, word for word). NOT_PLAIN_JSON holds those the gold side meets too.
HOSTILE = {
    **NOT_PLAIN_JSON,
    "NaN in an object expected lacks": {**INVOICE, "extra": {"deep": {"x": float("-inf")}}},
    "a key that is not a string, in place of a known one": {
        **INVOICE,
        "vendor": {"name": "ACME", 7: "Lyon"},
    },
    "a str enum for a string": {
        **INVOICE,
        "items": [{"sku": Tag.A, "qty": 1}, INVOICE["items"][1]],
    },
    "an int enum for an integer": {
        **INVOICE,
        "items": [{"sku": "a", "qty": Count.ONE}, INVOICE["items"][1]],
    },
    "a value that holds itself, where expected has nothing": {
        **INVOICE,
        "extra": _holding_itself(),
    },
}


def _outcome_or_error(make: Callable[[], str]) -> str:
    try:
        return make()
    except JsonMatchError as exc:
        return f"{type(exc).__name__}: {exc}"


# a schema given: the records scored by it and each answer checked against it (an extra
# key breaks additionalProperties, a wrong type breaks type)
INVOICE_SCHEMA = {
    "type": "object",
    "additionalProperties": False,
    "required": ["id", "total", "items"],
    "properties": {
        "id": {"type": "string"},
        "total": {"type": "number"},
        "vendor": {
            "type": "object",
            "required": ["name"],
            "properties": {"name": {"type": "string"}, "city": {"type": "string"}},
        },
        "items": {
            "type": "array",
            "items": {
                "type": "object",
                "required": ["sku", "qty"],
                "properties": {"sku": {"type": "string"}, "qty": {"type": "integer"}},
            },
        },
    },
}


@pytest.mark.parametrize("what", list(HOSTILE))
@pytest.mark.parametrize(
    "options",
    [{}, {"align": "hungarian"}, {"fields": {"total": {"weight": 3}}}, {"schema": INVOICE_SCHEMA}],
)
def test_an_actual_record_read_by_the_walk_comes_out_as_the_door_makes_it(
    what: str, options: dict[str, Any]
) -> None:
    """Counted (evaluate_records) and in full (score_records), the generated scorers read
    the actual side themselves; without them (the general walk) the door reads it first.
    With a schema given, each answer is checked against it after the walk read it."""
    expected, actual = [INVOICE, INVOICE], [DAMAGED, HOSTILE[what]]
    counted = _outcome_or_error(lambda: counted_outcome(expected, actual, options))
    full = _outcome_or_error(lambda: full_outcome(expected, actual, options))
    before = compiled.SPECIALISE
    compiled.SPECIALISE = False
    try:
        door = _outcome_or_error(lambda: full_outcome(expected, actual, options))
    finally:
        compiled.SPECIALISE = before
    assert counted == full == door


def test_a_metric_that_leaves_extra_fields_uncounted_reads_them_through_the_door() -> None:
    """The walk reads the actual side itself only where it reads all of it: a metric whose
    extra fields count for nothing never looks at them, so the door must, and refuses NaN
    there as it always has."""
    from pytest_jsonmatch.engine.metrics.field_f1 import FIELD_F1, _configure

    quiet = FIELD_F1.replace(
        name="f1_without_extras",
        configure=lambda opts, reg: _configure(opts, reg).replace(count_extras=False),
    )
    state = REGISTRY.state()
    try:
        REGISTRY.register_metric("f1_without_extras", quiet)
        actual = {**INVOICE, "extra": [float("nan")]}
        for score in (evaluate_records, score_records):
            with pytest.raises(JsonMatchError, match="NaN and Infinity are not JSON"):
                score([INVOICE], [actual], "f1_without_extras")
        run = evaluate_records([INVOICE], [{**INVOICE, "extra": 1}], "f1_without_extras")
    finally:
        REGISTRY.restore(state)
    assert run.records[0].score == 1.0  # the extra field counts for nothing


def test_root_scorers_kept_by_keys_score_each_record_as_a_full_walk() -> None:
    # records of several root shapes, each met often enough to be compiled and then kept
    # by its keys (walk.walk_counted): the first keys in another order, a key missing, a
    # key added; every record scored as score_records scores it in full
    shapes = [
        {"id": "A", "total": 1.5, "paid": True},
        {"total": 1.5, "id": "A", "paid": True},
        {"id": "A", "total": 1.5},
        {"id": "A", "total": 1.5, "paid": True, "note": "x"},
    ]
    expected = [dict(shapes[i % 4]) for i in range(40)]
    actual = [dict(e, total=2.5) if i % 3 else dict(e) for i, e in enumerate(expected)]
    counted = evaluate_records(expected, actual, "field_f1")
    _, full = score_records(expected, actual, "field_f1")
    assert [(r.score, r.precision, r.recall) for r in counted.records] == [
        (r.score, r.precision, r.recall) for r in full
    ]
    assert [r.fields for r in counted.records] == [r.fields for r in full]


def test_the_judge_of_counted_records_refuses_to_be_asked() -> None:
    from pytest_jsonmatch.engine.judge import UNASKED

    class Item:
        path = "a.b"

    with pytest.raises(AssertionError, match="a.b"):
        UNASKED.ask(object(), Item(), "a.b")  # type: ignore[arg-type]
    assert not UNASKED.waiting and not UNASKED.rewalk


def test_tallies_counted_a_batch_at_a_time_keep_the_records_order(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Tallies wait in a list and are counted ``PENDING`` at a time: batches of 7 (records
    cut off and scored closed among them, whose fields are added as they are made) give
    the tables one count at the end gives, in the same order, and ``count_records`` the
    same Counter."""
    from pytest_jsonmatch.engine import match

    expected = [INVOICE, DAMAGED] * 10
    actual: list[Any] = [DAMAGED, INVOICE] * 10
    actual[3] = '{"id": "A-1", "total": 10.5, "items": [{"sku": "a"'  # (cut off)
    options = {"truncated": "close"}
    whole = match.count_records(expected, actual, "field_f1", **options)[2]
    run = evaluate_records(expected, actual, "field_f1", **options)
    monkeypatch.setattr(match, "PENDING", 7)
    batched = match.count_records(expected, actual, "field_f1", **options)[2]
    assert list(batched.items()) == list(whole.items())
    again = evaluate_records(expected, actual, "field_f1", **options)
    assert list(again.per_field) == list(run.per_field)
    assert fv.exact_repr(again.per_field) == fv.exact_repr(run.per_field)
    assert sum(whole.values()) == sum(len(r.fields) for r in run.records)


def test_a_runs_tallies_are_one_object_per_value_and_count_the_same_past_the_bound(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """``field_results.tally`` makes one object per (field path, status, score): the first
    records' tallies (the general walk's, before their shapes' scorers are compiled) and the
    scorers' constants are the same objects, so the run's Counter finds each by identity.
    Past ``MAX_CANONICAL`` a tally is made as it is, and the counts are the same."""
    from pytest_jsonmatch.engine import match
    from pytest_jsonmatch.engine.results import field_results

    expected = [INVOICE, DAMAGED] * (compiled.MIN_SIGHTINGS * 4)
    actual = [DAMAGED, INVOICE] * (compiled.MIN_SIGHTINGS * 4)
    counted = match.count_records(expected, actual, "field_f1")[2]
    assert counted and [k for k in counted if field_results.tally(*k) is not k] == []
    made = field_results.tally("a.b", "match", 1.0)
    assert field_results.tally("a.b", "match", 1.0) is made

    monkeypatch.setattr(field_results, "_CANONICAL", {})
    monkeypatch.setattr(field_results, "MAX_CANONICAL", 0)
    unkept = field_results.tally("a.b", "match", 1.0)
    assert unkept == made and unkept is not field_results.tally("a.b", "match", 1.0)
    again = match.count_records(expected, actual, "field_f1")[2]
    assert list(again.items()) == list(counted.items())
