"""Reports holding values that would be markup if they were not escaped."""

from __future__ import annotations

from pytest_jsonmatch.dataset import Pair, ScoreSettings, comparison_of
from pytest_jsonmatch.engine.match import match_json
from pytest_jsonmatch.reporting.run_model.aggregate import summarize
from pytest_jsonmatch.reporting.run_model.comparisons import ERROR, Comparison
from pytest_jsonmatch.reporting.verdicts.gates import GateSettings, decision_of
from pytest_jsonmatch.reporting.verdicts.report import build_report

SCRIPT = "<script>window.hacked = 1</script>"
TEXTAREA = '</textarea><img src=x onerror="window.hacked = 2">'


def hostile_report() -> dict:
    """Three cases: one passes, one fails with hostile values on both sides and in a key,
    one could not be scored (its error message holds markup too)."""
    settings = ScoreSettings("field_f1", 0.9, {}, "full")
    pairs = [
        ("inv-1", {"vendor": "ACME", "total": 10}, {"vendor": "ACME", "total": 10}),
        (
            "inv-<b>2</b>",
            {"vendor": "ACME", "note": TEXTAREA, "items": [{"sku": "A"}, {"sku": "B"}]},
            {"vendor": SCRIPT, "note": "ok", SCRIPT: 1, "items": [{"sku": "B"}, {"sku": "A"}]},
        ),
    ]
    comparisons = [
        comparison_of(
            Pair(case_id, e, a, case_id, "data.jsonl", k + 1),
            match_json(a, e, align="hungarian"),
            settings,
        )
        for k, (case_id, e, a) in enumerate(pairs)
    ]
    comparisons.append(
        Comparison(
            case_id="inv-3",
            nodeid="inv-3",
            metric="structural_f1",
            score=0.0,
            threshold=0.9,
            status=ERROR,
            error=f"no JSON object found in actual: {SCRIPT!r}",
        )
    )
    summary = summarize(comparisons)
    return build_report(
        summary,
        comparisons,
        decision_of(summary, GateSettings(fail_under=0.9)),
        None,
        {"command": ["jsonmatch", SCRIPT]},
    )
