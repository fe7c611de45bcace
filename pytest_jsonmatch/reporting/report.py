"""The JSON report (version 3): everything a run found, as data. The terminal summary, the
Markdown summary and the command line's renderings are all made from it.

Its shape is described by ``report.schema.json`` (shipped beside this module). Version 3
holds the baseline's field deltas per group (``baseline.groups``, each table's own), where
each changed case is (``where``), and the gates that were checked (``gates.checked``).
Version-1 and -2 reports still load as baselines (baseline.py), and a version-2 report still
renders (:func:`load_report` reads it as version 3).
"""

from __future__ import annotations

import json
import os
import platform
import subprocess
from collections.abc import Mapping, Sequence
from datetime import datetime, timezone
from importlib import resources
from typing import Any

from .aggregate import CaseResult, Summary, group_key
from .atomic import write_atomic
from .baseline import BaselineComparison
from .gates import Verdict
from .records import Comparison
from .validation import check_report

REPORT_VERSION = 3


def run_info(command: Sequence[str], root: str | None) -> dict[str, Any]:
    """When and where a run happened: time, versions, command line, git commit."""
    from ..version import __version__

    return {"time": datetime.now(timezone.utc).isoformat(timespec="seconds"),
            "plugin_version": __version__, "python": platform.python_version(),
            "command": list(command), "git_commit": _git_commit(root)}


def _git_commit(root: str | None) -> str | None:
    if root is None:
        return None
    try:
        done = subprocess.run(["git", "rev-parse", "HEAD"], cwd=root, capture_output=True,
                              text=True, timeout=5)
    except (OSError, subprocess.SubprocessError):
        return None
    commit = done.stdout.strip()
    return commit if done.returncode == 0 and len(commit) in (40, 64) else None


def build_report(summary: Summary, comparisons: Sequence[Comparison], verdict: Verdict,
                 baseline: BaselineComparison | None = None,
                 run: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """The report of a run (see report.schema.json)."""
    ordered = sorted(comparisons, key=lambda c: (c.case_id, c.repeat))
    data = report_head(summary, verdict, baseline, run)
    data["cases"] = [case_dict(case, summary.group_by) for case in summary.cases.values()]
    data["comparisons"] = [c.to_dict() for c in ordered]
    data["gates"] = data.pop("gates")  # the plugin's key order: cases and comparisons first
    if baseline is not None:
        data["baseline"] = data.pop("baseline")
    return data


def report_head(summary: Summary, verdict: Verdict, baseline: BaselineComparison | None = None,
                run: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """Everything of a report but its ``cases`` and ``comparisons`` (a run streamed case by
    case writes those from where it kept them: spool.py)."""
    data: dict[str, Any] = {
        "version": REPORT_VERSION,
        "run": dict(run or {}),
        "overall": summary.overall,
        "count": summary.count,
        "errors": summary.errors,
        "xfailed": summary.xfailed,
        "xpassed": summary.xpassed,
        "group_by": summary.group_by,
        "metrics": {name: tally.to_dict() for name, tally in summary.metrics.items()},
        "fields": {path: agg.to_dict() for path, agg in summary.fields.items()},
        "groups": {key: {path: agg.to_dict() for path, agg in fields.items()}
                   for key, fields in summary.groups.items()},
        "gates": verdict.to_dict(),
    }
    if baseline is not None:
        data["baseline"] = baseline_section(baseline)
    return data


def case_dict(case: CaseResult, group_by: str) -> dict[str, Any]:
    """A case as the report lists it."""
    return {**case.to_dict(), "group": group_key(case, group_by)}


def baseline_section(comparison: BaselineComparison) -> dict[str, Any]:
    return {
        "path": comparison.baseline.path,
        "version": comparison.baseline.version,
        "shared": comparison.shared,
        "added": list(comparison.added),
        "removed": list(comparison.removed),
        "before": comparison.before,
        "after": comparison.after,
        "difference": comparison.difference.to_dict(),
        "changed": [{"case_id": d.case_id, "where": d.where, "before": d.before,
                     "after": d.after, "delta": d.delta}
                    for d in comparison.cases if d.delta != 0.0],
        "groups": _field_deltas(comparison),
        "pass_to_fail": comparison.worse,
        "fail_to_pass": comparison.better,
        "mcnemar_p": comparison.mcnemar_p,
    }


def _field_deltas(comparison: BaselineComparison) -> dict[str, dict[str, Any]]:
    groups: dict[str, dict[str, Any]] = {}
    for d in comparison.fields:
        groups.setdefault(d.group, {})[d.path] = {
            "before": d.before, "after": d.after, "difference": d.difference.to_dict(),
            "significant": d.significant}
    return groups


def write_report(path: str | os.PathLike[str], data: Mapping[str, Any]) -> None:
    """Write ``data`` as JSON to ``path`` atomically (see atomic.py). A value JSON cannot
    hold (NaN, an object) fails before the target is touched."""

    def dump(fh: Any) -> None:
        json.dump(data, fh, indent=2, allow_nan=False)
        fh.write("\n")

    write_atomic(path, dump)


def load_report(path: str | os.PathLike[str]) -> dict[str, Any]:
    """A report read back (for rendering): version 3, or version 2 read as version 3, checked
    whole against the shipped schema (reporting/validation.py)."""
    from .baseline import BaselineError, read_report_text

    text = read_report_text(os.fspath(path), "report")
    try:
        data = json.loads(text)
    except ValueError as exc:
        raise BaselineError(f"{os.fspath(path)} is not valid JSON: {exc}") from None
    version = data.get("version") if isinstance(data, dict) else None
    if type(version) is not int or version not in (2, REPORT_VERSION):
        raise BaselineError(f"{os.fspath(path)}: $.version: not a version-2 or -{REPORT_VERSION} "
                            f"jsonmatch report")
    if version == 2:
        if not isinstance(data.get("gates"), dict):
            raise BaselineError(f"{os.fspath(path)}: $.gates: not an object")
        data = _as_current(data)
    # a report may come from anywhere (a fork's pull request): held whole to the schema
    # before a renderer reads a value of it
    check_report(data, os.fspath(path), BaselineError)
    return data


def _as_current(data: dict[str, Any]) -> dict[str, Any]:
    """A version-2 report as version 3: its baseline's pooled field deltas are the one
    group's when the run had one table (else no table can show them), no gate is listed as
    checked, and changed cases have no place."""
    data = {**data, "version": REPORT_VERSION, "gates": {"checked": [], **data["gates"]}}
    baseline = data.get("baseline")
    if isinstance(baseline, dict):
        pooled = baseline.get("fields", {})
        groups = list(data.get("groups", {}))
        data["baseline"] = {
            **{k: v for k, v in baseline.items() if k != "fields"},
            "changed": [{"where": "", **c} for c in baseline.get("changed", [])],
            "groups": {groups[0]: pooled} if len(groups) == 1 else {}}
    return data


def schema() -> dict[str, Any]:
    """The JSON Schema of a version-3 report."""
    text = resources.files(__package__).joinpath("report.schema.json").read_text(encoding="utf-8")
    return json.loads(text)  # type: ignore[no-any-return]


def call_totals(comparisons: Sequence[Mapping[str, Any]]) -> dict[str, dict[str, Any]]:
    """What the calls of the target took, from the comparisons' ``call`` figures, apart for
    ``live`` calls and ``replayed`` ones (the figures recorded with a replayed output, never
    counted as live): calls, retried and failed ones, p50/p95/max/total latency in seconds,
    and the input and output tokens and cost the targets reported (None: none reported)."""
    out: dict[str, dict[str, Any]] = {}
    for source in ("live", "replayed"):
        calls = [c["call"] for c in comparisons
                 if c.get("source") == source and isinstance(c.get("call"), Mapping)]
        if not calls:
            continue
        latencies = sorted(float(c["latency_s"]) for c in calls if c.get("latency_s") is not None)

        def total(key: str) -> Any:
            values = [c[key] for c in calls if c.get(key) is not None]
            return sum(values) if values else None

        out[source] = {
            "calls": len(calls), "retried": sum(int(c.get("attempts") or 0) > 1 for c in calls),
            "failed": sum(bool(c.get("failed")) for c in calls),
            "p50_s": _percentile(latencies, 50), "p95_s": _percentile(latencies, 95),
            "max_s": latencies[-1] if latencies else None,
            "total_s": sum(latencies) if latencies else None,
            "input_tokens": total("input_tokens"), "output_tokens": total("output_tokens"),
            "cost": total("cost")}
    return out


def _percentile(ordered: Sequence[float], p: float) -> float | None:
    """The ``p``-th percentile of sorted values, by linear interpolation (NumPy's default)."""
    if not ordered:
        return None
    rank = (len(ordered) - 1) * p / 100
    low = int(rank)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (rank - low)


def call_summary(totals: Mapping[str, Mapping[str, Any]]) -> list[str]:
    """One plain line per source of :func:`call_totals` (the renderers escape nothing here:
    every value is a number)."""
    lines = []
    for source, t in totals.items():
        def secs(value: Any) -> str:
            return "-" if value is None else f"{value:.2f} s"

        label = "calls" if source == "live" else "replayed calls (recorded figures)"
        line = (f"{label}: {t['calls']}, latency p50 {secs(t['p50_s'])}, p95 {secs(t['p95_s'])}, "
                f"max {secs(t['max_s'])}, total {secs(t['total_s'])}")
        if source == "live":
            line += f"; {t['retried']} retried, {t['failed']} failed"
        usage = []
        if t["input_tokens"] is not None or t["output_tokens"] is not None:
            usage.append(f"tokens {t['input_tokens'] or 0:,} in, {t['output_tokens'] or 0:,} out")
        if t["cost"] is not None:
            usage.append(f"cost {t['cost']:.4f}")
        lines.append(line + (f"; {', '.join(usage)}" if usage else ""))
    return lines
