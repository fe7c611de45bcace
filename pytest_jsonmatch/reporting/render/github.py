"""GitHub Actions workflow commands: one ``::error`` annotation per golden case that failed or
could not be scored, pointing at the line where the case starts (shown on the pull request).

This module does not import ``from __future__ import annotations``: its function
:func:`annotations` would take that name."""

from ...engine.core.errors import printable, workflow_safe
from ..run_model.report_types import Report


def annotations(report: Report) -> list[str]:
    lines = []
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
            message = (
                f"{case['case_id']}: {case['metric']} score {case['mean_score']:.4f} "
                f"< threshold {case['threshold']:.4f}"
            )
        lines.append(
            f"::error file={_property(case['file'])},line={case['line']},"
            f"title={_property('jsonmatch ' + case['metric'])}::{_data(message)}"
        )
    return lines


def _data(text: str) -> str:
    """``text`` as a command's message or property: its control and format characters written
    as escapes (printable; the guard's own zero-width space kept), ``##[`` broken
    (workflow_safe: the runner reads it anywhere in a line, a command's too), then CR, LF and
    ``%`` escaped as GitHub reads them."""
    text = workflow_safe(printable(text, keep="\r\n\u200b"))
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _property(text: str) -> str:
    return _data(text).replace(":", "%3A").replace(",", "%2C")
