"""A report that holds every status: each way a case can end (records.STATUSES) and each
field status (engine STATUSES), with two fields never scored (``id`` skipped everywhere,
``meta`` never scored by its batch comparator)."""

from __future__ import annotations

from pytest_jsonmatch.engine.results.field_results import STATUSES as FIELD_STATUSES
from pytest_jsonmatch.reporting.run_model.aggregate import summarize
from pytest_jsonmatch.reporting.run_model.comparisons import (
    STATUSES,
    Comparison,
    Status,
)
from pytest_jsonmatch.reporting.run_model.reported_fields import ReportedField
from pytest_jsonmatch.reporting.verdicts.gates import GateSettings, decision_of
from pytest_jsonmatch.reporting.verdicts.report import build_report


def _fields(name: str, name_score: float) -> tuple[ReportedField, ...]:
    return (
        ReportedField("id", "id", "skipped", 0.0),
        ReportedField("meta", "meta", "batch_error", 0.0),
        ReportedField("name", "name", name, name_score, "x", "x" if name == "match" else "y", "ea"),
    )


# (case id, status, score, field records); ids sort apart from the worst-first order
CASES = [
    ("a-pass", "passed", 1.0, _fields("match", 1.0)),
    (
        "b-fail",
        "failed",
        0.5,
        _fields("mismatch", 0.0)
        + (ReportedField("total", "total", "omission", 0.0, 1, None, "e"),),
    ),
    ("c-error", "error", 0.0, ()),
    (
        "d-low",
        "failed",
        0.25,
        _fields("mismatch", 0.0)
        + (ReportedField("extra", "extra", "hallucination", 0.0, None, 1, "a"),),
    ),
    ("e-xfail", "xfailed", 0.0, _fields("mismatch", 0.0)),
    ("f-xpass", "xpassed", 1.0, _fields("match", 1.0)),
    ("g-near", "passed", 0.9, _fields("match", 1.0)),
    # a conversation its simulated user spoiled: counted nowhere, named apart
    ("h-spoiled", "simulator", 0.0, ()),
]


def every_status_report() -> dict:
    comparisons = [
        Comparison(
            case_id=case_id,
            nodeid=f"t.py::{case_id}",
            metric="field_f1",
            score=score,
            threshold=0.8,
            status=Status(status),
            precision=score,
            recall=score,
            f1=score,
            error={
                "error": "no JSON object found in actual",
                "simulator": "simulator: the simulated user said nothing at turn 1",
            }.get(status, ""),
            file="t.py",
            fields=fields,
        )
        for case_id, status, score, fields in CASES
    ]
    assert {c.status for c in comparisons} == set(STATUSES)
    assert {f.status for c in comparisons for f in c.fields} == set(FIELD_STATUSES)
    summary = summarize(comparisons)
    return build_report(
        summary, comparisons, decision_of(summary, GateSettings()), None, {"command": ["jsonmatch"]}
    )


def repeated_report() -> dict:
    """Cases run twice, and one unscored case run once: ``b-rep`` could not be scored in its
    second run (an error, mean 0.5), ``c-rep`` has the lowest mean (0.25); ``id`` is
    skipped everywhere."""
    runs = {
        "a-rep": (1.0, 0.0),
        "b-rep": (1.0, None),
        "c-rep": (0.5, 0.0),
        "d-rep": (1.0, 1.0),
        "e-err": (None,),
    }
    comparisons = []
    for case_id, scores in runs.items():
        for repeat, score in enumerate(scores):
            status = "error" if score is None else "passed" if score >= 0.8 else "failed"
            fields = (
                ()
                if score is None
                else (
                    ReportedField("id", "id", "skipped", 0.0),
                    ReportedField("name", "name", "match" if score == 1.0 else "mismatch", score),
                )
            )
            comparisons.append(
                Comparison(
                    case_id=case_id,
                    nodeid=f"t.py::{case_id}",
                    metric="field_f1",
                    score=score or 0.0,
                    threshold=0.8,
                    status=Status(status),
                    repeat=repeat,
                    error="" if score is not None else f"run {repeat} timed out",
                    fields=fields,
                )
            )
    summary = summarize(comparisons)
    return build_report(summary, comparisons, decision_of(summary, GateSettings()))


def truncated_report() -> dict:
    """Two cases, one scored from an answer cut off at line 1, column 88 after 87 characters
    and closed (``truncated: close``): its ``items[1].qty`` omitted, score 10/11."""
    cut = (
        ReportedField("invoice", "invoice", "match", 1.0, "INV-1", "INV-1", "ea"),
        ReportedField("items[1].qty", "items[].qty", "omission", 0.0, 2, None, "e"),
    )
    comparisons = [
        Comparison(
            case_id="cut-items",
            nodeid="g.yaml::cut-items",
            metric="field_f1",
            score=10 / 11,
            threshold=1.0,
            status=Status("failed"),
            precision=1.0,
            recall=5 / 6,
            f1=10 / 11,
            file="g.yaml",
            line=2,
            fields=cut,
            truncated=(1, 88, 87),
        ),
        Comparison(
            case_id="whole",
            nodeid="g.yaml::whole",
            metric="field_f1",
            score=1.0,
            threshold=1.0,
            status=Status("passed"),
            precision=1.0,
            recall=1.0,
            f1=1.0,
            file="g.yaml",
            line=5,
            fields=cut[:1],
        ),
    ]
    summary = summarize(comparisons)
    return build_report(
        summary, comparisons, decision_of(summary, GateSettings()), None, {"command": ["jsonmatch"]}
    )


def reviewer_report() -> dict:
    """An agent's two cases as a reviewer reads them: ``refund`` failed at 0.86 (threshold
    1.0; its ``reply_summary`` judged wrong, its ``currency`` left out), ``greeting`` passed at
    0.67 (threshold 0.5, its ``tone`` scored by a fuzzy comparator). Both came from a live
    call, with the case's input and the model's output."""
    from pytest_jsonmatch.engine.core.values import MISSING
    from pytest_jsonmatch.engine.results.field_results import FieldResult, MatchResult
    from pytest_jsonmatch.reporting.run_model.comparisons import Shown, decided_by

    def result(score: float, fields: list[FieldResult]) -> MatchResult:
        return MatchResult("field_f1", score, score, score, score, tuple(fields))

    refund = result(
        0.86,
        [
            FieldResult("pnr", "match", 1.0, "X1", "X1", "exact", field_path="pnr"),
            FieldResult(
                "reply_summary", "mismatch", 0.0, "ok", "no", "semantic", "", "reply_summary"
            ),
            FieldResult("currency", "omission", 0.0, "EUR", MISSING, "", "", "currency"),
        ],
    )
    greeting = result(
        0.67, [FieldResult("tone", "match", 0.67, "warm", "warmish", "fuzzy", "", "tone")]
    )
    comparisons = [
        Comparison.of_result(
            r,
            case_id=case_id,
            nodeid=f"golden/agent.yaml::{case_id}",
            threshold=threshold,
            passed=r.score >= threshold,
            values="short",
            file="golden/agent.yaml",
            line=line,
            source="live",
            shown=Shown.of(given, output, "short"),
            by=decided_by(r.fields),
        )
        for r, case_id, threshold, line, given, output in (
            (greeting, "greeting", 0.5, 3, "Hi there", '{"tone": "warmish"}'),
            (refund, "refund", 1.0, 9, {"message": "Refund my flight"}, '{"pnr": "X1"}'),
        )
    ]
    summary = summarize(comparisons)
    return build_report(
        summary, comparisons, decision_of(summary, GateSettings()), None, {"command": ["pytest"]}
    )
