"""The report as terminal text: the ``jsonmatch`` section of a pytest run (and the command
line's text output). Every table fits ``width`` columns; values are cut, never wrapped.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .tables import fit, printable, table, wrap

FIELD_ROWS = 15  # per field table, unless -v
CHANGED_ROWS = 5  # cases that changed most against the baseline
NAMED_CASES = 5  # added / removed / error cases named, unless -v


def summary_lines(report: Mapping[str, Any], width: int = 80, verbose: int = 0) -> list[str]:
    """The summary of a report, without the gates' verdict (see :func:`verdict_lines`)."""
    lines = _metric_lines(report, width)
    lines.extend(part for line in _overall(report) for part in wrap(line, width))
    lines.extend(_recording_lines(report))
    baseline = report.get("baseline")
    deltas = {path: d["difference"]["mean"] for path, d in baseline["fields"].items()} \
        if baseline else None
    groups = report["groups"]
    for key, fields in groups.items():
        if not fields:
            continue
        lines.append("")
        if len(groups) > 1 or report["group_by"] != "metric":
            lines.append(fit(f"fields of {report['group_by']} {printable(key)}", width))
        lines.extend(_field_lines(fields, deltas, width, verbose))
    lines.extend(_repeated_lines(report, width, verbose))
    lines.extend(_error_lines(report, width, verbose))
    if baseline:
        lines.extend(_baseline_lines(baseline, width, verbose))
    return lines


def update_lines(updated: list[str]) -> list[str]:
    """What --jsonmatch-update wrote: ``updated 3 cases in 2 files`` and each ``file:line``."""
    if not updated:
        return []
    files = len({entry.rsplit(":", 1)[0] for entry in (u.split(" ", 1)[0] for u in updated)})
    return [f"updated {_cases(len(updated))} in {files} file{'' if files == 1 else 's'}:",
            *(f"  {printable(entry)}" for entry in updated)]


def verdict_lines(report: Mapping[str, Any], width: int = 80) -> tuple[list[str], list[str]]:
    """(failure lines, warning lines) of the gates, ready to print (failures in red)."""
    gates = report["gates"]
    failures = ["FAILED: the session did not pass its jsonmatch gates:"] if gates["failures"] else []
    for failure in gates["failures"]:
        failures += wrap("  " + printable(failure), width)
    warnings = [line for warning in gates["warnings"]
                for line in wrap("warning: " + printable(warning), width)]
    return failures, warnings


def _metric_lines(report: Mapping[str, Any], width: int) -> list[str]:
    rows = [("metric", "cases", "pass", "fail", "error", "score", "prec", "recall", "F1")]
    for name, m in report["metrics"].items():
        rows.append((printable(name), str(m["count"]), str(m["passed"]), str(m["failed"]),
                     str(m["errors"]), f"{m['mean_score']:.4f}", f"{m['precision']:.4f}",
                     f"{m['recall']:.4f}", f"{m['f1']:.4f}"))
    return table(rows, width)


def _overall(report: Mapping[str, Any]) -> list[str]:
    count = report["count"]
    if report["overall"] is None:
        text = "no case was counted"
    else:
        text = f"overall score {report['overall']:.4f} over {_cases(count)}"
    if report["errors"]:
        text += f", {report['errors']} unscored (counted as 0)"
    lines = [text]
    if report["xfailed"] or report["xpassed"]:
        lines.append(f"not counted (xfail-marked): {report['xfailed']} xfailed, "
                     f"{report['xpassed']} xpassed")
    return lines


def _recording_lines(report: Mapping[str, Any]) -> list[str]:
    """How many outputs were replayed from recordings, and how many recorded."""
    comparisons = report["comparisons"]
    counts = {"replayed": sum(c.get("source") == "replayed" for c in comparisons),
              "recorded": sum(c.get("recording") == "recorded" for c in comparisons),
              "stale, re-recorded": sum(c.get("recording") == "stale" for c in comparisons)}
    shown = [f"{n} {what}" for what, n in counts.items() if n]
    return [f"recordings: {', '.join(shown)}"] if shown else []


def _field_lines(fields: Mapping[str, Any], deltas: Mapping[str, float] | None, width: int,
                 verbose: int) -> list[str]:
    worst = sorted(fields.items(), key=lambda kv: (kv[1]["mean_score"], kv[0]))
    shown = worst if verbose > 0 else worst[:FIELD_ROWS]
    header = ["field", "score", "match", "mismatch", "omission", "halluc."]
    if deltas is not None:
        header.append("vs base")
    rows = [header]
    for path, agg in shown:
        row = [printable(path), f"{agg['mean_score']:.4f}", str(agg["match"]), str(agg["mismatch"]),
               str(agg["omission"]), str(agg["hallucination"])]
        if deltas is not None:
            row.append(_signed(deltas[path]) if path in deltas else "new")
        rows.append(row)
    lines = table(rows, width)
    if len(worst) > len(shown):
        more = len(worst) - len(shown)
        lines.append(f"... {more} more field{'' if more == 1 else 's'} (-v shows all)")
    return lines


def _repeated_lines(report: Mapping[str, Any], width: int, verbose: int) -> list[str]:
    repeated = [c for c in report["cases"] if c["runs"] > 1]
    if not repeated:
        return []
    rows = [("repeated case", "runs", "mean", "min", "max", "passed")]
    for case in repeated:
        rows.append((printable(case["case_id"]), str(case["runs"]), f"{case['mean_score']:.4f}",
                     f"{case['min_score']:.4f}", f"{case['max_score']:.4f}",
                     f"{case['passed_runs']}/{case['runs']}"))
    return [""] + table(rows, width)


def _error_lines(report: Mapping[str, Any], width: int, verbose: int) -> list[str]:
    errors = [c for c in report["cases"] if c["status"] == "error"]
    if not errors:
        return []
    shown = errors if verbose > 0 else errors[:NAMED_CASES]
    lines = ["", "could not be scored (counted as 0):"]
    for case in shown:
        lines += wrap(f"  {printable(case['case_id'])}: {printable(case['error'])}", width)
    if len(errors) > len(shown):
        lines.append(f"  ... {len(errors) - len(shown)} more (-v shows all)")
    return lines


def _baseline_lines(baseline: Mapping[str, Any], width: int, verbose: int) -> list[str]:
    diff = baseline["difference"]
    lines = [""] + wrap(f"baseline {printable(baseline['path'])}: {_cases(baseline['shared'])} "
                        f"shared, {len(baseline['added'])} added, {len(baseline['removed'])} "
                        f"removed", width)
    if baseline["shared"]:
        change = f"  mean change {_signed(diff['mean'])} ({baseline['before']:.4f} -> " \
                 f"{baseline['after']:.4f})"
        if diff["low"] is not None:
            change += f", 95% interval {_signed(diff['low'])} to {_signed(diff['high'])}, " \
                      f"detectable drop {diff['detectable']:.4f}"
        lines += wrap(change, width)
        lines += wrap(f"  pass -> fail {baseline['pass_to_fail']}, fail -> pass "
                      f"{baseline['fail_to_pass']} (McNemar p = {baseline['mcnemar_p']:.4f})", width)
    changed = baseline["changed"]
    if changed:
        shown = changed if verbose > 0 else changed[:CHANGED_ROWS]
        rows = [("changed most", "before", "after", "change")]
        rows += [(printable(c["case_id"]), f"{c['before']:.4f}", f"{c['after']:.4f}",
                  _signed(c["delta"])) for c in shown]
        lines.extend(table(rows, width, indent="  "))
    for what in ("added", "removed"):
        names = baseline[what]
        if names:
            shown = names if verbose > 0 else names[:NAMED_CASES]
            more = f" and {len(names) - len(shown)} more" if len(names) > len(shown) else ""
            lines += wrap(f"  {what}: {', '.join(printable(n) for n in shown)}{more}", width)
    return lines


def _signed(value: float) -> str:
    text = f"{value:+.4f}"
    return "+0.0000" if text == "-0.0000" else text


def _cases(count: int) -> str:
    return f"{count} case{'' if count == 1 else 's'}"
