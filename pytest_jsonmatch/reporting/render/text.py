"""The report as terminal text: the ``jsonmatch`` section of a pytest run (and the command
line's text output). Every table fits ``width`` columns; values are cut, never wrapped.
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Literal

from ..run_model.comparisons import NOT_RECORDED
from ..verdicts.changes import (
    metric_cells,
    regressed_first,
)
from .baseline_tables import ChangedRow, baseline_fields, changed_rows, mean_change
from .listing import (
    field_figures,
    field_rows,
    never_scored_line,
    valid_share_text,
    violations_text,
    worst_first,
)
from .tables import cut_right, escape_controls, fit, guard, guarded, table, wrap

if TYPE_CHECKING:
    from ..run_model.report_types import (
        BaselineSectionDict,
        CaseDict,
        ComparisonDict,
        FieldDeltaDict,
        FieldDict,
        FieldTable,
        GatesDict,
        Report,
        ReportHead,
        RunsComparison,
        TargetsDict,
    )

SIMULATOR = "simulator"  # (the status of a conversation its simulated user spoiled)
FIELD_ROWS = 15  # per field table, unless -v
CHANGED_ROWS = 5  # cases that changed most against the baseline
NAMED_CASES = 5  # added / removed / error cases named, unless -v


def summary_lines(report: Report, width: int = 80, verbose: int = 0) -> list[str]:
    """The summary of a report, without the gates' verdict (see :func:`verdict_lines`)."""
    lines = _metric_lines(report, width)
    lines.extend(part for line in _overall(report) for part in wrap(line, width))
    lines.extend(part for line in _simulator_lines(report) for part in wrap(line, width))
    lines.extend(_recording_lines(report))
    baseline = report.get("baseline")
    groups = report["groups"]
    for key, fields in groups.items():
        if not fields:
            continue
        lines.append("")
        if len(groups) > 1 or report["group_by"] != "metric":
            lines.append(fit(f"fields of {report['group_by']} {escape_controls(key)}", width))
        changes = baseline["groups"].get(key, {}) if baseline else {}
        lines.extend(_field_lines(fields, width, verbose, changes))
    repeated, errors, cut, quarantined = _listed_cases(report)
    lines.extend(_repeated_lines(repeated, width))
    if report.get("reliability") is not None:  # (a case ran more than once)
        from .reliability_text import reliability_lines

        lines.extend(reliability_lines(report, width, verbose))
    lines.extend(_error_lines(errors, width, verbose))
    lines.extend(_death_lines(report, width))
    lines.extend(_truncated_lines(cut, width, verbose))
    if baseline:
        lines.extend(
            _baseline_lines(
                baseline, report["gates"], report["group_by"], width, verbose, len(quarantined)
            )
        )
    targets = report.get("targets")
    if targets:
        lines.extend(_targets_lines(targets, width, verbose))
    return guarded(lines)


def update_lines(updated: list[str]) -> list[str]:
    """What --jsonmatch-update wrote: ``updated 3 cases in 2 files`` and each ``file:line``."""
    if not updated:
        return []
    files = len({entry.rsplit(":", 1)[0] for entry in (u.split(" ", 1)[0] for u in updated)})
    return guarded(
        [
            f"updated {_cases(len(updated))} in {files} file{'' if files == 1 else 's'}:",
            *(f"  {escape_controls(entry)}" for entry in updated),
        ]
    )


def verdict_lines(
    report: ReportHead, width: int = 80, verbose: int = 0
) -> tuple[list[str], list[str]]:
    """(failure lines, warning lines) of the gates, ready to print (failures in red): one
    line per failed gate and one per warning, each whole: a warning is never folded behind
    another (a field that got worse, a quarantined case, a gate a part of the suite did not
    hold are each said). ``width`` and ``verbose`` are the summary's; a gate's line is
    printed whole at any width."""
    gates = report["gates"]
    if gates.get("not_judged"):
        return [], guarded([f"jsonmatch gates: not judged: {escape_controls(gates['not_judged'])}"])
    failures = []
    if gates["failures"]:
        count = len(gates["failures"])
        failures = [f"FAILED: jsonmatch gates: {count} failure{'' if count == 1 else 's'}"]
        failures += ["  " + escape_controls(failure) for failure in gates["failures"]]
    warnings = ["warning: " + escape_controls(warning) for warning in gates["warnings"]]
    return guarded(failures), guarded(warnings)


def passed_line(report: ReportHead) -> str | None:
    """``jsonmatch gates passed: ...`` naming each gate checked, when the run passed them."""
    gates = report["gates"]
    if gates["failures"] or not gates.get("checked") or gates.get("not_judged"):
        return None
    return guard(
        "jsonmatch gates passed: " + "; ".join(escape_controls(c) for c in gates["checked"])
    )


def _metric_lines(report: ReportHead, width: int) -> list[str]:
    # the share of answers valid against their schema: a column when a schema was given and
    # the table still fits the terminal (every metric's share is also said in a line below)
    rows: list[tuple[str, ...]] = [
        ("metric", "cases", "pass", "fail", "error", "score", "prec", "recall", "F1")
    ]
    valid = [("valid",)]
    shares = []
    for name, m in report["metrics"].items():
        share = m.get("conformance")
        rows.append(
            (
                escape_controls(name),
                *metric_cells(m),
            )
        )
        valid.append((f"{share['share']:.4f}" if share else "-",))
        if share:
            shares.append(
                f"schema: {escape_controls(name)}: {valid_share_text(share, escape_controls)}"
            )
    wide = [row + extra for row, extra in zip(rows, valid)]
    if shares and sum(max(len(r[i]) for r in wide) + 2 for i in range(len(wide[0]))) - 2 <= width:
        rows = wide
    # a metric's name is never cut (``field_f1+trajectory+state``): where the names do not fit
    # whole beside every figure, the counts and the score, then precision, recall and F1
    return table(rows, width, split_at=6) + [part for line in shares for part in wrap(line, width)]


def _overall(report: ReportHead) -> list[str]:
    count = report["count"]
    if report["overall"] is None:
        text = "no case was counted"
    else:
        text = f"overall score {report['overall']:.4f} over {_cases(count)}"
    if report["errors"]:
        text += f", {report['errors']} unscored (counted as 0)"
    lines = [text]
    if report["xfailed"] or report["xpassed"]:
        lines.append(
            f"not counted (expected to fail): {report['xfailed']} xfailed, "
            f"{report['xpassed']} xpassed"
        )
    return lines


def _simulator_lines(report: Report) -> list[str]:
    """The conversations a simulated user spoiled (status ``simulator``), counted apart from
    the agent's cases: neither its pass nor its failure, nor in any score."""
    spoiled = report.get("simulator", 0)
    if not spoiled:
        return []
    ids = dict.fromkeys(c["case_id"] for c in report["comparisons"] if c["status"] == SIMULATOR)
    named = list(ids)[:NAMED_CASES]
    listed = ", ".join(named) + (", ..." if len(ids) > len(named) else "")
    return [
        escape_controls(
            f"simulator: {spoiled} conversation{'' if spoiled == 1 else 's'} spoiled by "
            f"{'its' if spoiled == 1 else 'their'} simulated user, not counted "
            f"(neither the agent's pass nor its failure)" + (f": {listed}" if listed else "")
        )
    ]


def _recording_lines(report: Report) -> list[str]:
    """How many outputs were replayed from recordings, and how many recorded."""
    comparisons = report["comparisons"]
    not_recorded = [c for c in comparisons if c.get("recording", "").startswith(NOT_RECORDED)]
    counts = {
        "replayed": sum(c.get("source") == "replayed" for c in comparisons),
        "recorded": sum(c.get("recording") == "recorded" for c in comparisons),
        "stale, re-recorded": sum(c.get("recording") == "stale" for c in comparisons),
        "not recorded (scored, not kept)": len(not_recorded),
    }
    shown = [f"{n} {what}" for what, n in counts.items() if n]
    lines = [f"recordings: {', '.join(shown)}"] if shown else []
    lines += [
        escape_controls(f"  not recorded: {c['case_id']}: {c['recording'][len(NOT_RECORDED) :]}")
        for c in not_recorded
    ]
    from ..verdicts.report import call_lines, target_order

    calls = call_lines(comparisons, target_order(report), report["run"].get("judge"))
    return lines + [escape_controls(line) for line in calls]


def _field_lines(
    fields: FieldTable,
    width: int,
    verbose: int,
    changes: Mapping[str, FieldDeltaDict] | None = None,
) -> list[str]:
    """A group's field table, worst first; against a baseline (``changes``: the group's
    fields against it) the fields whose mean dropped come first, most dropped first, so
    that the field that regressed leads rather than one that is always fuzzy."""
    worst, unscored = field_rows(fields)  # a field never scored has no score to show
    worst = regressed_first(worst, changes)
    shown = worst if verbose > 0 else worst[:FIELD_ROWS]
    # fields a judge left undecided have their own column, in a run that has some
    judged = any(agg.get("batch_error") for _, agg in worst)
    rows = [["field", "score", "match", "mismatch", "omission", "halluc."]]
    rows[0] += ["not judged"] if judged else []
    for path, agg in shown:
        rows.append([escape_controls(path), *field_figures(agg, judged)])
    lines = table(rows, width) if shown else []
    if len(worst) > len(shown):
        more = len(worst) - len(shown)
        lines.append(f"... {more} more field{'' if more == 1 else 's'} (-v shows all)")
    if unscored:
        lines += wrap(
            never_scored_line(unscored, escape_controls, None if verbose > 0 else NAMED_CASES),
            width,
        )
    return lines


def _listed_cases(
    report: Report,
) -> tuple[list[CaseDict], list[CaseDict], list[CaseDict], list[CaseDict]]:
    """The cases the summary lists, each list worst first: those run more than once, those
    that could not be scored, those scored from an answer cut off, and those quarantined.
    One pass over the cases; a spooled report's case lines (a dataset's, written by
    ``json.dumps`` with its usual separators) are decoded only when their text may be one of
    these."""
    cases: Iterable[CaseDict] = report["cases"]
    lines = getattr(cases, "lines", None)
    if lines is not None:
        cases = (
            json.loads(line)
            for line in lines()
            if '"runs": 1,' not in line
            or '"status": "error"' in line
            or '"truncated"' in line
            or '"quarantine"' in line
        )
    repeated, errors, cut, quarantined = [], [], [], []
    for case in cases:
        if case["runs"] > 1:
            repeated.append(case)
        if case["status"] == "error":
            errors.append(case)
        if case.get("truncated"):
            cut.append(case)
        if "quarantine" in case:
            quarantined.append(case)
    return worst_first(repeated), worst_first(errors), worst_first(cut), quarantined


def _repeated_lines(repeated: list[CaseDict], width: int) -> list[str]:
    if not repeated:
        return []
    rows = [("repeated case", "runs", "mean", "min", "max", "passed")]
    for case in repeated:
        rows.append(
            (
                escape_controls(case["case_id"]),
                str(case["runs"]),
                f"{case['mean_score']:.4f}",
                f"{case['min_score']:.4f}",
                f"{case['max_score']:.4f}",
                f"{case['passed_runs']}/{case['runs']}",
            )
        )
    return [""] + table(rows, width)


def _error_lines(errors: list[CaseDict], width: int, verbose: int) -> list[str]:
    """The cases that could not be scored, one line per cause with its count and the first
    cases it struck (all of them with -v): a judge or a target that went down strikes many
    cases alike, and each case's whole message is in the reports. Where no cause struck two
    cases, each case is listed with its own message."""
    if not errors:
        return []
    causes: dict[str, list[str]] = {}
    for case in errors:
        causes.setdefault(error_cause(str(case["error"])), []).append(case["case_id"])
    if len(causes) == len(errors):  # no cause struck two cases: each case with its message
        return _case_error_lines(errors, width, verbose)
    counted = sorted(causes.items(), key=lambda item: (-len(item[1]), item[0]))
    shown = counted if verbose > 0 else counted[:NAMED_CASES]
    noun = "cause" if len(causes) == 1 else "causes"
    lines = ["", f"could not be scored (counted as 0): {_cases(len(errors))}, {len(causes)} {noun}"]
    for cause, ids in shown:
        named = ids if verbose > 0 else ids[:NAMED_IDS]
        more = f" and {len(ids) - len(named)} more" if len(ids) > len(named) else ""
        lines += wrap(
            f"  {_cases(len(ids))} ({escape_controls(', '.join(named))}{more}): "
            f"{escape_controls(cause)}",
            width,
        )
    if len(counted) > len(shown):
        lines.append(f"  ... {len(counted) - len(shown)} more causes (-v shows all)")
    return lines


def _case_error_lines(errors: list[CaseDict], width: int, verbose: int) -> list[str]:
    shown = errors if verbose > 0 else errors[:NAMED_CASES]
    lines = ["", "could not be scored (counted as 0):"]
    for case in shown:
        lines += wrap(
            f"  {escape_controls(case['case_id'])}: {escape_controls(case['error'])}", width
        )
    if len(errors) > len(shown):
        lines.append(f"  ... {len(errors) - len(shown)} more (-v shows all)")
    return lines


NAMED_IDS = 3  # the cases a cause names before "and N more" (-v: all)


# an undecided comparison's message (undecided_verdicts.py): its count and paths vary from
# case to case, its reasons are the cause
@functools.cache
def _undecided() -> re.Pattern[str]:
    return re.compile(r"^(\S+): \d+ fields? could not be scored \((.*)\) at [^()]*$", re.S)


def error_cause(error: str) -> str:
    """What a case's error says of why it could not be scored, without what is the case's
    own (how many of its fields, and which): the same cause reads the same for every case."""
    found = _undecided().match(error)
    return f"{found[1]}: fields could not be scored ({found[2]})" if found else error


_VERDICTS = {
    "blamed": "the running test is blamed",
    "sent back": "blamed on no one; the running test and those calls run again, alone",
    "lost": "blamed on no one; the running test had run again twice, and is a lost call",
    "had reported": "the running test had reported; those calls run again, alone",
}


def _death_lines(report: Report, width: int) -> list[str]:
    """Each xdist worker that died: the test it ran, the calls it had in flight, and whom
    that blames (calls/calls_in_flight.py)."""
    deaths = report["run"].get("worker_deaths") or []
    lines = ["", "xdist workers that died:"] if deaths else []
    for death in deaths:
        others = [name for name in death["calls_in_flight"] if name != death["running"]]
        beside = f", with the calls of {', '.join(others)} in flight" if others else ""
        lines += wrap(
            escape_controls(
                f"  {death['worker']} died running {death['running']}"
                f"{beside}: {_VERDICTS[death['verdict']]}"
            ),
            width,
        )
    return lines


def _truncated_lines(cut: list[CaseDict], width: int, verbose: int) -> list[str]:
    """The cases scored from an answer cut off inside its JSON value, closed for partial
    credit (the ``truncated: close`` option): their fields past the cut count as omitted."""
    if not cut:
        return []
    shown = cut if verbose > 0 else cut[:NAMED_CASES]
    lines = [
        "",
        f"truncated: {_cases(len(cut))} scored from an answer cut off, closed for partial credit:",
    ]
    for case in shown:
        runs = (
            ""
            if case["runs"] == 1
            else f" ({case.get('truncated')} of {case['runs']} runs cut off)"
        )
        lines += wrap(
            f"  {escape_controls(case['case_id'])}: {case['mean_score']:.4f}{runs}", width
        )
    if len(cut) > len(shown):
        lines.append(f"  ... {len(cut) - len(shown)} more (-v shows all)")
    return lines


def _baseline_lines(
    baseline: BaselineSectionDict,
    gates: GatesDict,
    group_by: str,
    width: int,
    verbose: int,
    quarantined: int = 0,
) -> list[str]:
    """The run against its baseline (``quarantined``: this run's quarantined cases, neither
    added nor removed, and not compared: the gates' warnings name each)."""
    unscored = len(baseline.get("unscored", []))
    lines = [""] + wrap(
        f"baseline {escape_controls(baseline['path'])}: {_cases(baseline['shared'])} "
        f"shared, {len(baseline['added'])} added, {len(baseline['removed'])} "
        f"removed"
        + (f", {quarantined} quarantined (not compared)" if quarantined else "")
        + (f", {unscored} not compared (could not be scored)" if unscored else ""),
        width,
    )
    if baseline.get("paired"):
        lines += wrap(f"  {escape_controls(baseline.get('paired', ''))}", width)
    mean = mean_change(baseline, ", ", "detectable drop")
    if mean is not None:
        change, before, after, interval = mean
        lines += wrap(f"  mean change {change} ({before:.4f} -> {after:.4f}){interval}", width)
        lines += wrap(
            f"  pass -> fail {baseline['pass_to_fail']}, fail -> pass "
            f"{baseline['fail_to_pass']} (McNemar p = {baseline['mcnemar_p']:.4f})",
            width,
        )
    shown, hidden = changed_rows(baseline, gates, None if verbose > 0 else CHANGED_ROWS)
    if shown:
        rows = [ChangedRow.header("changed most", "")]
        rows += [
            [escape_controls(c.case_id), *c.figures, "" if c.gate is None else "gate failed"]
            for c in shown
        ]
        lines.extend(table(rows, width, indent="  "))
        if hidden:
            lines.append(
                f"  ... {hidden} more changed case{'' if hidden == 1 else 's'} (-v shows all)"
            )
    lines.extend(_field_change_lines(baseline, gates, group_by, width, verbose))
    for what in ("added", "removed"):
        names = baseline[what]
        if names:
            named = names if verbose > 0 else names[:NAMED_CASES]
            more = f" and {len(names) - len(named)} more" if len(names) > len(named) else ""
            lines += wrap(f"  {what}: {', '.join(escape_controls(n) for n in named)}{more}", width)
    return lines


def _field_change_lines(
    baseline: BaselineSectionDict, gates: GatesDict, group_by: str, width: int, verbose: int
) -> list[str]:
    """Each field against the baseline, on the numbers its gate uses: the mean of its
    per-case scores over the shared cases that hold it, then and now; now - base = change.
    One table per group of the run's field tables, when there are several."""
    limit = None if verbose > 0 else FIELD_ROWS
    fields = baseline_fields(baseline, gates, limit)
    rows, hidden, tested = fields.rows, fields.hidden, fields.tested
    if not rows:
        return []
    lines = [
        "",
        fit(
            f"  fields against the baseline (mean per shared case; Holm across "
            f"{tested} row{'' if tested == 1 else 's'}):",
            width,
        ),
    ]
    groups = list(dict.fromkeys(r.group for r in rows))
    for group in groups:
        if len(baseline["groups"]) > 1:
            lines.append(fit(f"  {group_by} {escape_controls(group)}", width))
        table_rows = [fields.header(False)]
        table_rows += [
            [escape_controls(r.path), *fields.cells(r)] for r in rows if r.group == group
        ]
        # paths are never cut nor set apart: where they do not fit whole beside every figure,
        # the changes, then their intervals and p-values
        lines += table(table_rows, width, indent="  ", split_at=5)
    if hidden:
        lines.append(f"  ... {hidden} more field{'' if hidden == 1 else 's'} (-v shows all)")
    return lines


def _cases(count: int) -> str:
    return f"{count} case{'' if count == 1 else 's'}"


# -- the command line's text output ------------------------------------------------------------

CASE_ROWS = 50  # fields of one case shown, unless -v
_COLORS = {
    "match": "32",
    "mismatch": "33",
    "omission": "31",
    "hallucination": "31",
    "skipped": "2",
    "passed": "32",
    "failed": "31",
    "error": "31",
}


def paint(text: str, status: str, color: bool) -> str:
    """``text`` in the colour of ``status`` (ANSI), when ``color`` is on."""
    code = _COLORS.get(status)
    return f"\x1b[{code}m{text}\x1b[0m" if color and code else text


def case_lines(
    comparison: ComparisonDict, width: int = 80, verbose: int = 0, color: bool = False
) -> list[str]:
    """One comparison of a report, field by field: its verdict, then each field's status,
    score and both values (compact JSON), then how array elements were paired."""
    c = comparison
    head = f"{escape_controls(c['case_id'])}: {escape_controls(c['metric'])}"
    if c["status"] == "error":
        return guarded(wrap(f"{head}: could not be scored: {escape_controls(c['error'])}", width))
    verdict = paint(c["status"].upper(), c["status"], color)
    lines = wrap(
        f"{head} score {c['score']:.4f} (precision {c['precision']:.4f}, recall "
        f"{c['recall']:.4f}, F1 {c['f1']:.4f}), threshold {c['threshold']:.4f}: "
        f"{c['status'].upper()}",
        width,
    )
    if color:
        lines[-1] = lines[-1][: len(lines[-1]) - len(c["status"])] + verdict
    conformance = c.get("conformance")
    if conformance is not None:
        lines += wrap(
            "schema: "
            + violations_text(
                [(v["path"], v["keyword"]) for v in conformance["violations"]],
                conformance["count"],
                escape_controls,
            ),
            width,
        )
    fields = c["fields"]
    shown = fields if verbose > 0 else fields[:CASE_ROWS]
    rows = [("field", "status", "score", "expected", "actual")]
    for f in shown:
        rows.append(
            (
                escape_controls(f["path"]),
                f["status"],
                f"{f['score']:.4f}",
                _value_text(f, "expected"),
                _value_text(f, "actual"),
            )
        )
    if shown:
        table_lines = _left_table(rows, width)
        if color:
            table_lines = [table_lines[0]] + [
                _paint_status(line, f["status"]) for line, f in zip(table_lines[1:], shown)
            ]
        lines += table_lines
    if len(fields) > len(shown):
        lines.append(f"... {len(fields) - len(shown)} more fields (-v shows all)")
    if c["pairings"]:
        lines.append("array pairings (expected[i] <-> actual[j], score):")
        for p in c["pairings"]:
            lines += wrap(
                f"  {escape_controls(p['path'])}: expected[{p['expected_index']}] <-> "
                f"actual[{p['actual_index']}] ({p['score']:.2f})",
                width,
            )
    for floor in c["floor_failures"]:
        lines += wrap(
            f"  below its min_score: {escape_controls(floor['path'])} "
            f"{floor['score']:.4f} < {floor['min_score']:.4f}",
            width,
        )
    return guarded(lines)


def _paint_status(line: str, status: str) -> str:
    index = line.find(" " + status + " ")
    if index < 0:
        return line
    start = index + 1
    return line[:start] + paint(status, status, True) + line[start + len(status) :]


def _value_text(field: FieldDict, side: Literal["expected", "actual"]) -> str:
    if side not in field:
        return "<missing>"
    value = field[side]
    cut = field.get("expected_cut") if side == "expected" else field.get("actual_cut")
    # a cut value is the text the report kept
    text = str(value) if cut else json.dumps(value, ensure_ascii=False)
    return escape_controls(text)


def _left_table(rows: Sequence[tuple[str, ...]], width: int) -> list[str]:
    """Rows with the path, status and score aligned and the two values after them, each
    value cut to share what is left of the width."""
    fixed = [max(len(row[i]) for row in rows) for i in range(3)]
    used = fixed[0] + fixed[1] + fixed[2] + 6
    room = max(12, (width - used - 2) // 2)
    out = []
    for row in rows:
        expected = cut_right(row[3], room).ljust(room)
        actual = cut_right(row[4], room)
        line = (
            f"{row[0].ljust(fixed[0])}  {row[1].ljust(fixed[1])}  {row[2].rjust(fixed[2])}"
            f"  {expected}  {actual}"
        )
        out.append(cut_right(line.rstrip(), width))
    return out


def render_text(report: Report, width: int = 80, verbose: int = 0, color: bool = False) -> str:
    """The report as the command line prints it: a report of one comparison field by
    field; any other the summary of a pytest run; then the gates' verdict."""
    lines: list[str] = []
    comparisons = report["comparisons"]
    single = len(comparisons) == 1
    if single:
        for comparison in comparisons:
            lines += case_lines(comparison, width, verbose, color)
    else:
        lines += summary_lines(report, width, verbose)
    failures, warnings = verdict_lines(report, width, verbose)
    lines += [paint(line, "mismatch", color) for line in warnings]
    lines += [paint(line, "failed", color) for line in failures]
    passed = passed_line(report)
    if passed:
        lines.append(paint(passed, "match", color))
    return "\n".join(lines) + "\n"


# -- runs side by side: compare-runs, and a run's named targets -----------------------------


def runs_lines(
    data: RunsComparison, width: int = 100, verbose: int = 0, word: str = "runs"
) -> list[str]:
    """The tables of a runs comparison (reporting/verdicts/runs.py): each run (or target: ``word``)
    against the first, latency and usage, cases only some have, per field, and where they
    disagree most."""
    from ..verdicts.runs import (  # (a run's summary alone does not load the runs comparison)
        DISAGREEMENTS,
        PARTIAL_NAMED,
        cell_latency,
        cell_score,
        cell_spread,
        cell_usage,
        field_table,
        has_costs,
        partial_text,
        run_rows,
    )

    names = [r["name"] for r in data["runs"]]
    clean = escape_controls
    header, rows = run_rows(data, costs=False, word=word[:-1])
    # two tables, to fit a terminal: the scores, then how each case moved
    lines = table([[clean(c) for c in row[:6]] for row in [header, *rows]], width)
    lines += [
        "",
        f"Case by case against {clean(names[0])} (flips: pass to fail / fail to pass, "
        f"McNemar's p):",
        *table([[clean(row[0]), *row[6:]] for row in [header, *rows]], width),
    ]
    latency, usage_keys = has_costs(data)
    if latency or usage_keys:
        head = [
            word[:-1],
            *(["latency p50 / p95"] if latency else []),
            *(k.replace("_", " ") for k in usage_keys),
        ]
        body = [
            [
                clean(r["name"]),
                *([cell_latency(r["latency"])] if latency else []),
                *(cell_usage(r["usage"], k) for k in usage_keys),
            ]
            for r in data["runs"]
        ]
        lines += [
            "",
            "Latency (per comparison) and usage (summed), over the shared cases:",
            *table([head, *body], width),
        ]
    if data["partial"]:
        limit = None if verbose else PARTIAL_NAMED
        shown = data["partial"][:limit]
        lines += ["", f"Cases only some {word} have:"]
        lines += [clean("  " + partial_text(p)) for p in shown]
        if len(shown) < len(data["partial"]):
            lines.append(f"  ... and {len(data['partial']) - len(shown)} more (-v lists them)")
    if data["fields"]:
        head, body = field_table(data, names, "-")
        lines += [
            "",
            "Per field (mean over the shared cases in which every column holds it):",
            *table([[clean(h) for h in head], *([clean(row[0]), *row[1:]] for row in body)], width),
        ]
    lines += ["", f"Where the {word} disagree most:"]
    limit = None if verbose else DISAGREEMENTS
    if data["disagreements"]:
        head = ["case", *names, "spread"]
        body = [
            [clean(r["case_id"]), *(cell_score(s) for s in r["scores"]), cell_spread(r)]
            for r in data["disagreements"][:limit]
        ]
        lines += table([[clean(h) for h in head], *body], width)
    else:
        lines.append(f"  every shared case scores the same in every {word[:-1]}")
    return lines + _flaky_lines(data, verbose)


def _flaky_lines(data: RunsComparison, verbose: int) -> list[str]:
    """Each run's flaky shared cases, and those that became flaky or stopped being against
    the first run (nothing when no shared case ran twice)."""
    from ..verdicts.runs import FLAKY_TITLE, PARTIAL_NAMED, flaky_line

    if "flaky" not in data:
        return []
    first = escape_controls(data["runs"][0]["name"])
    limit = None if verbose else PARTIAL_NAMED
    return [
        "",
        f"{FLAKY_TITLE}:",
        *("  " + flaky_line(row, first, limit, escape_controls) for row in data["flaky"]),
    ]


def render_runs_text(data: RunsComparison, width: int = 100, verbose: int = 0) -> str:
    """``jsonmatch compare-runs`` as text."""
    from ..verdicts.runs import headline

    lines = wrap("compare-runs: " + headline(data), width)
    lines += [escape_controls(f"  {r['name']}: {r['path']}") for r in data["runs"]]
    lines += ["", *runs_lines(data, width, verbose)]
    return "\n".join(guarded(lines)) + "\n"


def _targets_lines(targets: TargetsDict, width: int, verbose: int) -> list[str]:
    """A run's named targets side by side (versus.py), each against the reference."""
    shared = len(targets["shared"])
    held = "held to" if targets["gated"] else "against"
    title = (
        f"targets, each {held} {targets['reference']} over {shared} shared "
        f"case{'' if shared == 1 else 's'}"
    )
    return [
        "",
        *wrap(escape_controls(title), width),
        *runs_lines(targets, width, verbose, "targets"),
    ]
