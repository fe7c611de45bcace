"""The terminal summary's part on repeated cases (reliability.py): pass^k and pass@k over the
run (each group's and each named target's where there are several), each repeated case's
runs and estimates with the flaky ones marked, each field's under -v, and the change against
the baseline."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..verdicts.changes import change_text, interval_text
from .tables import escape_controls, table, wrap

if TYPE_CHECKING:
    from ..run_model.report_types import (
        EstimateDict,
        ReliabilityBaselineDict,
        ReliabilityDict,
        Report,
        ReportHead,
    )


def reliability_lines(report: Report | ReportHead, width: int = 80, verbose: int = 0) -> list[str]:
    """The summary's lines on the repeated cases (none when no case ran more than once); each
    field's figures too under -v (``verbose``)."""
    section = report.get("reliability")
    if section is None:
        return []
    k = section["k"]
    how = (
        "as jsonmatch_gates pass_k sets it"
        if section["k_given"]
        else "the fewest runs of a repeated case"
    )
    count = section["repeated"]
    lines = [""] + wrap(
        f"reliability of {count} repeated case{'' if count == 1 else 's'} at k = {k} ({how}):",
        width,
    )
    rows: list[tuple[str, ...]] = [("", "cases", "mean", "95% interval")]
    rows += _rows("", k, section["pass_hat_k"], section["pass_at_k"])
    for kind in ("groups", "targets"):
        parts = section["groups"] if kind == "groups" else section["targets"]
        if len(parts) > 1 or (kind == "targets" and parts):
            for key, pair in parts.items():
                label = f" {escape_controls(key)}"
                rows += _rows(label, k, pair["pass_hat_k"], pair["pass_at_k"])
    lines += table(rows, width, "  ")
    lines += wrap(
        f"  (pass^{k}: all of {k} runs pass; pass@{k}: at least one does; {section['interval']})",
        width,
    )
    if section["unscored_runs"]:
        lines += wrap(
            f"  {section['unscored_runs']} run{'' if section['unscored_runs'] == 1 else 's'} "
            f"could not be scored: counted as neither success nor failure",
            width,
        )
    lines += _case_lines(section, width)
    if verbose > 0:
        lines += _field_lines(section, width)
    baseline = section.get("baseline")
    if baseline is not None:
        lines += _baseline_lines(baseline, k, width)
    return lines


def _rows(
    label: str, k: int, hat: EstimateDict | None, at: EstimateDict | None
) -> list[tuple[str, ...]]:
    """pass^k's and pass@k's rows: the cases each is over, its mean and interval."""
    out: list[tuple[str, ...]] = []
    for name, figure in ((f"pass^{k}{label}", hat), (f"pass@{k}{label}", at)):
        if figure is None:
            out.append((name, "0", "-", "-"))
        else:
            out.append((name, str(figure["cases"]), f"{figure['mean']:.4f}", _interval(figure)))
    return out


def _interval(figure: EstimateDict) -> str:
    if figure["low"] is None or figure["high"] is None:
        return "-"
    return f"{figure['low']:.4f} to {figure['high']:.4f}"


def _case_lines(section: ReliabilityDict, width: int) -> list[str]:
    """Each repeated case's runs and estimates, the flaky ones marked."""
    k = section["k"]
    flaky = len(section["flaky"])
    lines = [
        "",
        f"flaky cases (runs that disagree): {flaky} of {section['repeated']}",
    ]
    rows = [("repeated case", "runs", "scored", "passed", f"pass^{k}", f"pass@{k}", "")]
    for case in section["cases"]:
        mark = "flaky" if case["flaky"] else ""
        if case["case_id"] in section["too_few_runs"]:
            mark = f"fewer than {k} runs"
        elif case["case_id"] in section["too_few_scored"]:
            mark = f"fewer than {k} scored"
        rows.append(
            (
                escape_controls(case["case_id"]),
                str(case["runs"]),
                str(case["scored"]),
                str(case["passed"]),
                "-" if case["pass_hat_k"] is None else f"{case['pass_hat_k']:.4f}",
                "-" if case["pass_at_k"] is None else f"{case['pass_at_k']:.4f}",
                mark,
            )
        )
    return lines + table(rows, width)


def _field_lines(section: ReliabilityDict, width: int) -> list[str]:
    """Each field's pass^k and pass@k over the repeated cases that have it."""
    k = section["k"]
    fields = section.get("fields", {})
    rows = [("field", "cases", f"pass^{k}", f"pass@{k}")]
    for path, figures in fields.items():
        rows.append(
            (
                escape_controls(path),
                str(figures["cases"]),
                _mean(figures["pass_hat_k"]),
                _mean(figures["pass_at_k"]),
            )
        )
    return ["", f"pass^{k} and pass@{k} per field of the repeated cases:"] + table(rows, width)


def _mean(figure: EstimateDict | None) -> str:
    return "-" if figure is None else f"{figure['mean']:.4f}"


def _baseline_lines(baseline: ReliabilityBaselineDict, k: int, width: int) -> list[str]:
    lines = [""]
    shared = baseline["shared"]
    for symbol, change in (("^", baseline["pass_hat_k"]), ("@", baseline["pass_at_k"])):
        before, after, diff = change["before"], change["after"], change["difference"]
        if before is None or after is None:
            continue
        lines += wrap(
            f"pass{symbol}{k} against the baseline: {before:.4f} -> {after:.4f}, change "
            f"{change_text(before, after)}, 95% interval "
            f"{interval_text(before, after, diff['mean'], diff['low'], diff['high'])} over "
            f"{shared} shared repeated case{'' if shared == 1 else 's'}",
            width,
        )
    if not shared:
        lines.append(
            f"pass^{k} against the baseline: no shared repeated case has {k} scored runs in both"
        )
    changed = (
        ("became flaky", baseline["became_flaky"]),
        ("no longer flaky", baseline["no_longer_flaky"]),
    )
    for words, cases in changed:
        if cases:
            lines += wrap(f"{words}: {', '.join(escape_controls(c) for c in cases)}", width)
    return lines
