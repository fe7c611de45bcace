"""A calibration as a person reads it: text for a terminal, Markdown for a pull request.

Each figure with its two 95% intervals (bootstrap over items, analytic); an undefined figure
is shown ``-`` (no items to say it), never 0; the counts of the confusion matrix beside them.
"""

from __future__ import annotations

from collections.abc import Iterator

from ..reporting.render.markdown import escape
from .calibration_file import Calibration, Consistency, Estimate, Figures

NAMES = {
    "agreement": "raw agreement",
    "kappa": "Cohen's kappa",
    "ac1": "Gwet's AC1",
    "true_pass_rate": "true-pass rate",
    "true_fail_rate": "true-fail rate",
    "false_accept_rate": "false-accept rate",
    "prevalence_same": "labels 'same'",
    "constant_baseline": "constant baseline",
}


def _number(x: float | None) -> str:
    return "-" if x is None else f"{x:.3f}"


def _interval(low: float | None, high: float | None) -> str:
    return "-" if low is None or high is None else f"[{low:.3f}, {high:.3f}]"


def _cells(e: Estimate) -> tuple[str, str, str]:
    return (
        _number(e.value),
        _interval(e.low, e.high),
        _interval(e.analytic_low, e.analytic_high),
    )


def _scopes(cal: Calibration) -> Iterator[tuple[str, Figures]]:
    yield "overall", cal.overall
    if len(cal.fields) > 1:
        for name, figures in cal.fields.items():
            yield f"field {name!r}", figures
    if cal.panel is not None:
        for member in cal.panel.members:
            yield f"panel judge {member.judge.model!r} ({member.judge.fingerprint})", member.overall
        yield f"panel ({cal.panel.rule}, {len(cal.panel.members) + 1} judges)", cal.panel.overall


def _checks(cal: Calibration) -> Iterator[tuple[str, Consistency]]:
    for name, check in (
        ("position (swapped)", cal.position),
        (f"repeat (asked {cal.repeat_k} times)", cal.repeat),
        ("verbosity (padded)", cal.verbosity),
    ):
        if check is not None:
            yield name, check


def _head(cal: Calibration) -> list[str]:
    lines = [
        f"judge {cal.judge.model!r} (fingerprint {cal.judge.fingerprint})",
        f"{cal.labels} labels ({cal.same} same, {cal.different} different) "
        f"from {cal.labels_path!r}" + _cases(cal),
    ]
    why = cal.too_small()
    if why:
        lines.append(f"too small to gate on: {why}")
    return lines


def _cases(cal: Calibration) -> str:
    """`` and the judge_labels of 'golden'``: the case folders whose labels joined."""
    folders = ", ".join(map(repr, cal.case_folders))
    return f" and the judge_labels of {folders}" if folders else ""


def _counts(f: Figures) -> str:
    return f"n {f.n}: tp {f.tp}, fp {f.fp} (false accepts), tn {f.tn}, fn {f.fn}"


def _spent(check: Consistency) -> str:
    """A check's requests, and their cost where the judge is priced."""
    cost = "" if check.cost is None else f", cost {check.cost:.6g}"
    return f"{check.requests} requests{cost}"


def _cost(cal: Calibration) -> str:
    cost = "" if cal.cost is None else f", cost {cal.cost:.6g}"
    return (
        f"{cal.requests} judge requests{cost}\n95% intervals: bootstrap over items "
        f"({cal.resamples} resamples, seed {cal.seed}), analytic"
    )


def text(cal: Calibration) -> str:
    """The calibration as aligned text."""
    lines = _head(cal)
    row = "  {:<22} {:>6}  {:<16}  {:<16}"
    for scope, figures in _scopes(cal):
        lines += ["", f"{scope} ({_counts(figures)})"]
        lines.append(row.format("", "value", "bootstrap", "analytic").rstrip())
        for key, name in NAMES.items():
            lines.append(row.format(name, *_cells(getattr(figures, key))).rstrip())
    checks = list(_checks(cal))
    if checks:
        lines += ["", "consistency (share of items whose verdict held)"]
        lines.append(row.format("", "share", "bootstrap", "Wilson").rstrip())
        for name, check in checks:
            value, boot, wilson = _cells(check.share)
            done = f"{check.held}/{check.n}, {_spent(check)}"
            lines.append(row.format(name, value, boot, wilson) + "  " + done)
    return "\n".join([*lines, "", _cost(cal)]) + "\n"


def markdown(cal: Calibration) -> str:
    """The calibration as Markdown tables (a pull request's comment, a step summary)."""
    lines = ["## Judge calibration", "", *(f"{escape(line)}  " for line in _head(cal)), ""]
    for scope, figures in _scopes(cal):
        lines += [f"### {escape(scope)}", "", f"{_counts(figures)}", ""]
        lines += ["| figure | value | 95% bootstrap | 95% analytic |", "|---|---:|---|---|"]
        for key, name in NAMES.items():
            lines.append("| {} | {} | {} | {} |".format(name, *_cells(getattr(figures, key))))
        lines.append("")
    checks = list(_checks(cal))
    if checks:
        lines += ["### consistency", ""]
        lines += ["| check | held | share | 95% bootstrap | 95% Wilson | its requests |"]
        lines += ["|---|---:|---:|---|---|---:|"]
        for name, check in checks:
            value, boot, wilson = _cells(check.share)
            lines.append(
                f"| {name} | {check.held}/{check.n} | {value} | {boot} | {wilson} | "
                f"{_spent(check)} |"
            )
        lines.append("")
    return "\n".join([*lines, _cost(cal).replace("\n", "  \n")]) + "\n"
