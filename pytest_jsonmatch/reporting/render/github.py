"""GitHub Actions workflow commands: one ``::error`` annotation per golden case that failed or
could not be scored, pointing at the line where the case starts (shown on the pull request).
A failed case's names the fields that cost it the most, with their scores: those of its
worst failed run (the run its failure in pytest's output shows), fields below their
``min_score`` first, then worst first, as the failure lists them.

Every text from data (a case id, a metric, a field's path) reaches a command through
:func:`_data` (engine/core/errors.py's ``printable`` and ``workflow_safe``, then GitHub's
escapes), so that none can end the command or start another.

This module does not import ``from __future__ import annotations``: its function
:func:`annotations` would take that name."""

from ...engine.core.errors import printable, workflow_safe
from ...engine.results.field_results import SCORE_EPSILON, SKIPPED
from ..run_model.report_types import CaseDict, ComparisonDict, FieldDict, Report
from .failure_message import format_score

# How many of a failed case's fields its annotation names (the rest are counted), and how
# long a field's path may be there before it is cut.
WORST_FIELDS = 3
PATH_WIDTH = 80


def annotations(report: Report) -> list[str]:
    lines = []
    worst = _worst_runs(report)
    for case in report["cases"]:
        if (
            case["status"] not in ("failed", "error")
            or not case["file"]
            or not case["line"]
            or "::" not in case["case_id"]
            or not case["file"].endswith((".yaml", ".yml"))
        ):
            continue
        if case["status"] == "error":
            message = f"{case['case_id']} could not be scored: {case['error']}"
        else:
            message = _failed(case, worst.get(case["case_id"]))
        lines.append(
            f"::error file={_property(case['file'])},line={case['line']},"
            f"title={_property('jsonmatch ' + case['metric'])}::{_data(message)}"
        )
    return lines


def _worst_runs(report: Report) -> dict[str, ComparisonDict]:
    """Each case's failed run of the lowest score (a report read back may list none)."""
    worst: dict[str, ComparisonDict] = {}
    for comparison in report.get("comparisons", ()):
        if comparison["status"] != "failed":
            continue
        held = worst.get(comparison["case_id"])
        if held is None or comparison["score"] < held["score"]:
            worst[comparison["case_id"]] = comparison
    return worst


def _failed(case: CaseDict, run: ComparisonDict | None) -> str:
    """A failed case's message: its score against its threshold, or the floors it broke
    when its score reached it, then its worst fields (:func:`_worst_fields`)."""
    score, threshold = case["mean_score"], case["threshold"]
    message = f"{case['case_id']}: {case['metric']} score {score:.4f} "
    floors = len(run["floor_failures"]) if run is not None else 0
    if score < threshold - SCORE_EPSILON:
        message += f"< threshold {threshold:.4f}"
    elif floors:
        below = "1 field is" if floors == 1 else f"{floors} fields are"
        message += f">= threshold {threshold:.4f}, but {below} below min_score"
    else:  # failed by its schema, or by the repeat rule over its runs
        message += f"(threshold {threshold:.4f})"
    fields = _worst_fields(run["fields"]) if run is not None else ""
    return message + (f"; worst fields: {fields}" if fields else "")


def _worst_fields(fields: list[FieldDict]) -> str:
    """The fields that cost points, those below their ``min_score`` first, then worst first
    (in their order among equals), each with its score and status; the first WORST_FIELDS,
    and how many more."""
    costly = [
        (field.get("min_score") is None, field["score"], i, field)
        for i, field in enumerate(fields)
        if field["status"] != SKIPPED and field["score"] < 1.0
    ]
    costly.sort(key=lambda t: t[:3])
    named = []
    for _, score, _, field in costly[:WORST_FIELDS]:
        path = field["path"] or "$"
        if len(path) > PATH_WIDTH:
            path = path[: PATH_WIDTH - 3] + "..."
        floor = field.get("min_score")
        below = f", below min_score {floor:g}" if floor is not None else ""
        named.append(f"{path} {format_score(score)} ({field['status']}{below})")
    more = len(costly) - len(named)
    return ", ".join(named) + (f", and {more} more" if more > 0 else "")


def _data(text: str) -> str:
    """``text`` as a command's message or property: its control and format characters written
    as escapes (printable; the guard's own zero-width space kept), ``##[`` broken
    (workflow_safe: the runner reads it anywhere in a line, a command's too), then CR, LF and
    ``%`` escaped as GitHub reads them."""
    text = workflow_safe(printable(text, keep="\r\n\u200b"))
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _property(text: str) -> str:
    return _data(text).replace(":", "%3A").replace(",", "%2C")
