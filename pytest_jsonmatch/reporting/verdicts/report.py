"""The JSON report (version 4): everything a run found, as data. The terminal summary, the
Markdown summary and the command line's renderings are all made from it.

Its shape is described by ``report.schema.json`` (shipped beside this module). It holds the
baseline's field deltas per group (``baseline.groups``, each table's own), where each changed
case is (``where``), and the gates that were checked (``gates.checked``). Only this version
is read back, as a baseline (baseline.py) or to render (:func:`load_report`).
"""

from __future__ import annotations

import json
import os
import sys
import time
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Literal, Protocol, cast, get_args

from ...engine.core.gc_pause import collector_paused
from ...engine.core.masking import masked
from ...engine.core.slotted import HashedSlotted
from ..run_model.aggregate import (
    case_dict,
    listed_in_summary,
    summarize,
)
from ..run_model.comparisons import FAILED
from ..run_model.validation import REPORT_VERSION, check_report
from .gates import GateDecision, decision_of
from .money import money

if TYPE_CHECKING:  # (a baseline's and the targets' modules load when a run has them)
    from ...engine.results.field_results import FieldAggregate
    from ..run_model.aggregate import (
        CaseResult,
        GroupBy,
        RepeatRule,
        Summary,
    )
    from ..run_model.comparisons import Comparison
    from ..run_model.report_types import (
        BaselineSectionDict,
        ComparisonDict,
        FieldAggregateDict,
        FieldDeltaDict,
        FieldTable,
        JudgeDict,
        Report,
        ReportHead,
        ReportSummary,
        Rows,
        RunInfo,
        TargetsDict,
        WorkerDeathDict,
    )
    from .baseline import Baseline, BaselineComparison
    from .field_counts import FieldCounts
    from .gates import GateSettings
    from .versus import VersusSettings


def run_info(
    command: Sequence[str],
    root: str | None,
    worker_deaths: Sequence[WorkerDeathDict] = (),
    shard: tuple[int, int] | None = None,
) -> RunInfo:
    """When and where a run happened: time, versions, command line, git commit; the xdist
    workers that died, if any; which shard of a split suite it is, if it is one."""
    from ...version import __version__

    run: RunInfo = {
        # datetime.now(timezone.utc).isoformat(timespec="seconds"), without loading datetime
        "time": time.strftime("%Y-%m-%dT%H:%M:%S+00:00", time.gmtime()),
        "plugin_version": __version__,
        "python": _python_version(),
        # masked: a setting given on the command line may hold a credential
        "command": [masked(part) for part in command],
        "git_commit": _git_commit(root),
    }
    if worker_deaths:
        run["worker_deaths"] = list(worker_deaths)
    if shard is not None:
        run["shard"] = {"index": shard[0], "count": shard[1]}
    return run


def _python_version() -> str:
    """``platform.python_version()`` (``3.13.0``, ``3.14.0rc1``) without importing
    ``platform``."""
    v = sys.version_info
    suffix = {"alpha": "a", "beta": "b", "candidate": "rc"}.get(v.releaselevel)
    return f"{v.major}.{v.minor}.{v.micro}" + (f"{suffix}{v.serial}" if suffix else "")


def _git_commit(root: str | None) -> str | None:
    """The commit checked out in ``root``; None without a root, a repository or a commit
    (git_head.py)."""
    if root is None:
        return None
    from .git_head import head_commit  # (only where a commit is recorded)

    return head_commit(root)


class SummaryReads(HashedSlotted):
    """What a session's report must hold, by what reads it (:func:`summary_reads`).

    ``records``: every comparison keeps its fields as FieldRecords (a report file writes
    them, a baseline and named targets compare them field by field, telemetry sends them,
    an xdist worker sends them to its controller, which counts them); False: the fields
    are counted into the per-field tables as each comparison is recorded
    (field_counts.py), and no comparison keeps them.
    ``whole``: the report lists every case and comparison (a report file, or an xdist
    run's); False: only what the terminal summary reads of them (:meth:`lists`,
    :meth:`reads`), its aggregates being those of every case all the same.
    ``failing``: (not whole) the failing cases are listed too, with their failed
    comparisons: GitHub's annotations name them and their worst fields (so a session that
    writes annotations keeps its field records)."""

    __slots__ = ("records", "whole", "failing")

    def __init__(
        self,
        records: bool = True,
        whole: bool = True,
        failing: bool = False,
    ) -> None:
        self.records, self.whole, self.failing = records, whole, failing

    def lists(self, case: CaseResult) -> bool:
        """Whether the report lists ``case``: the summary names it (text.py: a case run more
        than once, one that could not be scored, one scored from an answer cut off), or an
        annotation does."""
        return self.whole or listed_in_summary(case) or (self.failing and case.status == FAILED)

    def reads(self, comparison: Comparison) -> bool:
        """Whether the report lists ``comparison``: the summary counts the outputs that
        were replayed or recorded, the calls made (only a live or replayed output has
        a call, and only such an output is recorded) and what the judge did; an annotation
        names a failed one's worst fields."""
        return (
            self.whole
            or comparison.source != "case"
            or bool(comparison.recording)
            or comparison.judge is not None
            or (self.failing and comparison.status == FAILED)
        )

    def field_counts(self, group_by: str) -> FieldCounts | None:
        """Where a session that keeps no field records counts them (None: it keeps them)."""
        from .field_counts import FieldCounts

        return None if self.records else FieldCounts(group_by)


if TYPE_CHECKING:  # (for type checkers: made at run time, a Protocol is a class built by typing)

    class ReadSettings(Protocol):
        """What :func:`summary_reads` reads of a session's settings (the plugin's Settings)."""

        @property
        def writes_reports(self) -> bool: ...
        @property
        def baseline(self) -> str | None: ...
        @property
        def targets(self) -> Sequence[object]: ...
        @property
        def sends_telemetry(self) -> bool: ...
        @property
        def annotations(self) -> bool: ...


def summary_reads(settings: ReadSettings, xdist: bool) -> SummaryReads:
    """What a session's report must hold (:class:`SummaryReads`), from its settings: whether
    it writes any report file, holds the run against a baseline, has named targets, sends
    telemetry, writes GitHub annotations; and whether it runs under xdist (controller or
    worker). The summary's verbosity (-v) changes none of it: it lists more fields and
    cases then, but every per-field table and every case it may list is there either way."""
    from . import field_counts

    whole = xdist or settings.writes_reports
    return SummaryReads(
        records=whole
        or not field_counts.SPECIALISE
        or settings.baseline is not None
        or bool(settings.targets)
        or settings.sends_telemetry
        or settings.annotations,
        whole=whole,
        failing=settings.annotations and not whole,
    )


def conclude(
    comparisons: Sequence[Comparison],
    gates: GateSettings,
    run: RunInfo,
    *,
    group_by: GroupBy = "metric",
    repeat_rule: RepeatRule = "mean",
    baseline: Baseline | None = None,
    stopped: str | None = None,
    not_decided_why: str | None = None,
    targets: Sequence[str] = (),
    versus: VersusSettings | None = None,
    reads: SummaryReads = SummaryReads(),  # noqa: B008 (a frozen dataclass)
    counts: FieldCounts | None = None,
    notes: Sequence[str] = (),
) -> tuple[Report, GateDecision]:
    """A run's report and gate decision from its comparisons: aggregated, held against the
    ``baseline``, judged by the ``gates``; its named ``targets`` side by side, each held to
    the reference ``versus`` names (versus.py). A run that ``stopped`` early (why, in words) is
    marked incomplete, and no gate of it is judged as passed: its missing cases would pass
    every gate they never reached. A run whose scores are not the suite's (``not_decided_why``, why:
    an update run rewrote the cases it scored) is not judged at all, and says so.

    ``reads`` says what the report holds (:class:`SummaryReads`); a run whose comparisons
    keep no field records gives the ``counts`` of their fields (field_counts.py).
    ``notes`` are said among the warnings (a quarantine entry that names no case).

    The cyclic collector is paused meanwhile (``collector_paused``): the report's entries are
    made in a burst, a dict per field, none of them garbage, beside everything the session
    holds; with the collector on, each burst's collections walked all of it (a 10,000-case
    suite: the collector's CPU 1.97 s against 0.89 s without a report)."""
    with collector_paused():
        return _conclude(
            comparisons,
            gates,
            run,
            group_by=group_by,
            repeat_rule=repeat_rule,
            baseline=baseline,
            stopped=stopped,
            not_decided_why=not_decided_why,
            targets=targets,
            versus=versus,
            reads=reads,
            counts=counts,
            notes=notes,
        )


def _conclude(
    comparisons: Sequence[Comparison],
    gates: GateSettings,
    run: RunInfo,
    *,
    group_by: GroupBy,
    repeat_rule: RepeatRule,
    baseline: Baseline | None,
    stopped: str | None,
    not_decided_why: str | None,
    targets: Sequence[str],
    versus: VersusSettings | None,
    reads: SummaryReads,
    counts: FieldCounts | None,
    notes: Sequence[str] = (),
) -> tuple[Report, GateDecision]:
    if counts is None and not reads.records:
        raise ValueError("comparisons without field records need their field counts")
    summary = summarize(
        comparisons,
        group_by,
        repeat_rule,
        None if counts is None else counts.groups,
        None if reads.whole else reads.lists,
    )
    reference = (versus.reference if versus is not None else "") or next(iter(targets), "")
    against = (
        _against(comparisons, baseline, reference, repeat_rule, group_by)
        if baseline is not None and summary.count
        else None
    )
    decision = (
        decision_of(summary, gates, against, baseline_path=baseline.path if baseline else "")
        if not_decided_why is None
        else GateDecision(not_judged=not_decided_why)
    )
    if against is not None and baseline is not None:  # said, not failed (provenance.py)
        from .provenance import provenance_changes

        decision.warnings += provenance_changes(baseline.provenance, run.get("provenance"))
    if "quarantine" in run.get("provenance", {}) or notes:
        from .quarantine import quarantine_lines

        decision.warnings += quarantine_lines(summary.cases.values(), run.get("provenance", {}))
        decision.warnings += notes
    reliable = None
    floors = (gates.min_pass_hat_k, gates.min_pass_at_k)
    if any(floor is not None for floor in floors) or any(c.repeat for c in comparisons):
        # (a run whose cases each ran once, and holds no pass^k or pass@k floor, has no
        # reliability to judge: its modules are loaded only for a run that has)
        from .reliability_gates import reliability_section

        reliable = reliability_section(
            comparisons,
            gates,
            group_by,
            against,
            decision if not_decided_why is None else None,
            None if counts is None else counts.passes,
        )
    side = (
        _targets_section(
            comparisons,
            targets,
            versus,
            gates,
            group_by=group_by,
            repeat_rule=repeat_rule,
            decision=decision if not_decided_why is None else GateDecision(),
        )
        if targets and summary.count
        else None
    )
    provenance = run.get("provenance", {})
    if not_decided_why is None and (gates.holds_judge or "calibration" in provenance):
        from .calibration_gates import judge_calibration  # (loaded only for a run that has one)

        judge_calibration(provenance, gates, decision)
    run = {**run, "complete": stopped is None}
    if stopped is not None:
        run["stopped"] = stopped
        decision.checked.clear()
        decision.failures.insert(
            0, f"the run did not finish ({stopped}): no gate is judged as passed on a partial run"
        )
    listed = comparisons if reads.whole else [c for c in comparisons if reads.reads(c)]
    report = build_report(summary, listed, decision, against, run)
    if side is not None:
        report["targets"] = side
    if reliable is not None:
        report["reliability"] = reliable
    return report, decision


def not_decided(updated: int, shard: tuple[int, int] | None = None) -> str | None:
    """Why an update run judges no gate (None: it updated nothing, and is judged): its scores
    are those of the expected values it replaced; or a shard's: its cases are a part of the
    suite (shards.py)."""
    if shard is not None and not updated:
        from .shards import shard_not_decided

        return shard_not_decided(*shard)
    return (
        None
        if not updated
        else (
            f"this run updated {updated} case{'' if updated == 1 else 's'}, so its scores are those "
            f"of the expected values it replaced; run again without --jsonmatch-update to judge them"
        )
    )


def build_report(
    summary: Summary,
    comparisons: Sequence[Comparison],
    decision: GateDecision,
    baseline: BaselineComparison | None = None,
    run: RunInfo | None = None,
) -> Report:
    """The report of a run (see report.schema.json)."""
    ordered = sorted(comparisons, key=lambda c: (c.case_id, c.repeat))
    # the keys in the plugin's order: the cases and comparisons before the gates
    data: Report = {
        **_summary(summary, run),
        "cases": [case_dict(case, summary.group_by) for case in summary.cases.values()],
        "comparisons": [c.to_dict() for c in ordered],
        "gates": decision.to_dict(),
    }
    if baseline is not None:
        data["baseline"] = baseline_section(baseline)
    return data


def report_head(
    summary: Summary,
    decision: GateDecision,
    baseline: BaselineComparison | None = None,
    run: RunInfo | None = None,
) -> ReportHead:
    """Everything of a report but its ``cases`` and ``comparisons`` (a run streamed case by
    case writes those from where it kept them: spool.py)."""
    head: ReportHead = {**_summary(summary, run), "gates": decision.to_dict()}
    if baseline is not None:
        head["baseline"] = baseline_section(baseline)
    return head


def _summary(summary: Summary, run: RunInfo | None) -> ReportSummary:
    out = _counts(summary, run)
    if summary.spoiled:  # (kept out otherwise: a run without conversations reads as before)
        out["simulator"] = summary.spoiled
    return out


def _counts(summary: Summary, run: RunInfo | None) -> ReportSummary:
    return {
        "version": REPORT_VERSION,
        "run": run.copy() if run else {},
        "overall": summary.overall,
        "count": summary.count,
        "errors": summary.errors,
        "xfailed": summary.xfailed,
        "xpassed": summary.xpassed,
        "group_by": summary.group_by,
        "metrics": {name: tally.to_dict() for name, tally in summary.metrics.items()},
        "fields": _field_table(summary.fields),
        "groups": {key: _field_table(fields) for key, fields in summary.groups.items()},
    }


def _field_table(fields: Mapping[str, FieldAggregate]) -> FieldTable:
    # the engine's aggregate writes the schema's field_aggregate
    return {path: cast("FieldAggregateDict", agg.to_dict()) for path, agg in fields.items()}


def baseline_section(comparison: BaselineComparison) -> BaselineSectionDict:
    section: BaselineSectionDict = {
        "path": comparison.baseline.path,
        "version": comparison.baseline.version,
        "compared": comparison.compared,
        "shared": comparison.shared,
        "added": list(comparison.added),
        "removed": list(comparison.removed),
        "before": comparison.before,
        "after": comparison.after,
        "difference": comparison.difference.to_dict(),
        "changed": [
            {
                "case_id": d.case_id,
                "where": d.where,
                "before": d.before,
                "after": d.after,
                "delta": d.delta,
            }
            for d in comparison.cases
            if d.delta != 0.0
        ],
        "groups": _field_deltas(comparison),
        "pass_to_fail": comparison.worse,
        "fail_to_pass": comparison.better,
        "mcnemar_p": comparison.mcnemar_p,
    }
    if comparison.unscored:
        section["unscored"] = list(comparison.unscored)
    note = comparison.matching.note() if comparison.matching is not None else ""
    if note:
        section["paired"] = note
    return section


def _field_deltas(comparison: BaselineComparison) -> dict[str, dict[str, FieldDeltaDict]]:
    groups: dict[str, dict[str, FieldDeltaDict]] = {}
    for d in comparison.fields:
        groups.setdefault(d.group, {})[d.path] = {
            "before": d.before,
            "after": d.after,
            "difference": d.difference.to_dict(),
            "significant": d.significant,
            "holm_p": d.holm_p,
        }
    return groups


def write_report(path: str | os.PathLike[str], data: Report) -> None:
    """Write the report ``data`` to ``path`` as it is stored (spool.dump_report: its
    comparisons' fields as rows of a table of heads, field_rows.py), atomically (see
    atomic.py). A value JSON cannot hold (NaN, an object) fails before the target is
    touched."""
    from ..run_model.spool import write_streamed_report

    write_streamed_report(path, _head(data), data["cases"], data["comparisons"])


def report_text(data: Report) -> str:
    """The report ``data`` as :func:`write_report` writes it (as it is stored)."""
    import io

    from ..run_model.spool import dump_report

    text = io.StringIO()
    dump_report(text, _head(data), data["cases"], data["comparisons"])
    return text.getvalue()


def _head(data: Report) -> dict[str, object]:
    """The report but its cases and comparisons."""
    return {k: v for k, v in data.items() if k not in ("cases", "comparisons")}


def load_report(path: str | os.PathLike[str]) -> Report:
    """A report read back (for rendering): version 4, checked whole against the shipped schema
    (reporting/run_model/validation.py), its comparisons' fields made from their rows (field_rows.py)."""
    from .baseline import BaselineError, read_report_text, refuse_not_a_number

    text = read_report_text(os.fspath(path), "report")
    try:  # NaN and the infinities are refused here, as a baseline's are: no renderer prints one
        data: object = json.loads(text, parse_constant=refuse_not_a_number)
    except ValueError as exc:
        raise BaselineError(f"{os.fspath(path)} is not valid JSON: {exc}") from None
    version = data.get("version") if isinstance(data, dict) else None
    if type(version) is not int or version != REPORT_VERSION:
        raise BaselineError(
            f"{os.fspath(path)}: $.version: not a version-{REPORT_VERSION} jsonmatch report"
        )
    # a report may come from anywhere (a fork's pull request): held whole to the schema
    # before a renderer reads a value of it
    return check_report(data, os.fspath(path), BaselineError)


def _against(
    comparisons: Sequence[Comparison],
    baseline: Baseline,
    reference: str,
    repeat_rule: RepeatRule,
    group_by: GroupBy,
) -> BaselineComparison:
    """This run's cases held against ``baseline`` (baseline.py, loaded when a run has one)."""
    from .baseline import cases_of, compare, uncounted_of

    now = cases_of(comparisons, repeat_rule, group_by)
    return compare(now, baseline, reference, uncounted_of(comparisons))


def _targets_section(
    comparisons: Sequence[Comparison],
    targets: Sequence[str],
    versus: VersusSettings | None,
    gates: GateSettings,
    *,
    group_by: GroupBy,
    repeat_rule: RepeatRule,
    decision: GateDecision,
) -> TargetsDict | None:
    """The named targets side by side (versus.py, loaded when a run has targets)."""
    from .versus import VersusSettings, targets_section

    settings = versus or VersusSettings()
    return targets_section(
        comparisons,
        targets,
        settings,
        gates,
        group_by=group_by,
        repeat_rule=repeat_rule,
        decision=decision,
    )


if TYPE_CHECKING:  # (a type for checkers: typing compiles each annotation of a TypedDict
    # made at run time, and the totals are plain dicts)
    from typing import TypedDict

    class CallTotals(TypedDict):
        """What :func:`call_totals` gives for one source (``live`` or ``replayed``)."""

        calls: int
        retried: int
        failed: int
        p50_s: float | None
        p95_s: float | None
        max_s: float | None
        total_s: float | None
        input_tokens: float | None
        output_tokens: float | None
        cost: float | None


def call_totals(comparisons: Rows[ComparisonDict]) -> dict[str, CallTotals]:
    """What the calls of the target took, from the comparisons' ``call`` figures, apart for
    ``live`` calls and ``replayed`` ones (the figures recorded with a replayed output, never
    counted as live): calls, retried and failed ones, p50/p95/max/total latency in seconds,
    and the input and output tokens and cost the targets reported (None: none reported)."""
    out: dict[str, CallTotals] = {}
    for source in ("live", "replayed"):
        calls = [
            c["call"]
            for c in comparisons
            if c.get("source") == source and isinstance(c.get("call"), Mapping)
        ]
        if not calls:
            continue
        from .stats import percentile  # (only a run whose target was called)

        latencies = sorted(
            float(latency) for c in calls if (latency := c.get("latency_s")) is not None
        )

        def total(key: Literal["input_tokens", "output_tokens", "cost"]) -> float | None:
            # (called in this iteration only)
            values = [value for c in calls if (value := c.get(key)) is not None]  # noqa: B023
            return sum(values) if values else None

        out[source] = {
            "calls": len(calls),
            "retried": sum(int(c.get("attempts") or 0) > 1 for c in calls),
            "failed": sum(bool(c.get("failed")) for c in calls),
            "p50_s": percentile(latencies, 50) if latencies else None,
            "p95_s": percentile(latencies, 95) if latencies else None,
            "max_s": latencies[-1] if latencies else None,
            "total_s": sum(latencies) if latencies else None,
            "input_tokens": total("input_tokens"),
            "output_tokens": total("output_tokens"),
            "cost": total("cost"),
        }
    return out


def call_lines(
    comparisons: Rows[ComparisonDict], order: Sequence[str] = (), judge: JudgeDict | None = None
) -> list[str]:
    """The calls' lines of a run (:func:`call_summary`): one set per named target, in the
    order the targets first appear, when the run has named targets, and one for the calls
    of no target; the targets ``order`` names first, in its order (the reference first). A
    target's name is data (a report read back may hold any): renderers escape these lines.
    ``judge``: the run's judge figures (``run.judge``), for comparisons that carry none."""
    found = dict.fromkeys(c.get("target", "") for c in comparisons)
    targets = [t for t in order if t in found] + [t for t in found if t not in order]
    judged = judge_line(comparisons, judge)
    if targets == [""]:
        return call_summary(call_totals(comparisons)) + judged
    return [
        line
        for target in targets
        for line in call_summary(
            call_totals([c for c in comparisons if c.get("target", "") == target]), target
        )
    ] + judged


# the figures of a comparison's judge that judge_line totals
def added_judge(total: JudgeDict | None, more: JudgeDict | None) -> JudgeDict | None:
    """Two sets of the judge's figures as one (a run's chunks'); a cost where either
    reported one."""
    if total is None or more is None:
        return more if total is None else total
    out = total.copy()
    for key in _JUDGE_COUNTS:
        out[key] = total[key] + more[key]
    out["latency_s"] = total["latency_s"] + more["latency_s"]
    costs = [c for c in (total["cost"], more["cost"]) if c is not None]
    out["cost"] = float(sum(costs)) if costs else None
    return out


_JudgeWhole = Literal[
    "requests",
    "attempts",
    "sent",
    "equal",
    "reused",
    "not_judged",
    "failed_requests",
    "input_tokens",
    "output_tokens",
]
# the figures the judge's line totals
_JudgeCount = Literal[_JudgeWhole, "latency_s"]


# the whole numbers of the judge's figures
_JUDGE_COUNTS: tuple[_JudgeWhole, ...] = get_args(_JudgeWhole)


def judge_line(comparisons: Rows[ComparisonDict], whole: JudgeDict | None = None) -> list[str]:
    """What the LLM judge did over the run, from the comparisons' ``judge`` figures, or the
    run's own (``whole``) where they carry none, apart from the target's calls (a plain line
    of numbers; none when nothing was judged)."""
    judged: list[JudgeDict] = [j for c in comparisons if isinstance(j := c.get("judge"), Mapping)]
    if not judged and whole is not None:
        judged = [whole]
    if not judged:
        return []

    def total(key: _JudgeCount) -> float:
        return float(sum(float(j.get(key) or 0) for j in judged))

    costs = [float(cost) for j in judged if (cost := j.get("cost")) is not None]
    line = (
        f"judge: {total('requests'):,.0f} requests ({total('attempts'):,.0f} attempts, "
        f"{total('latency_s'):.2f} s), {total('sent'):,.0f} items sent, "
        f"{total('equal'):,.0f} equal (not sent), {total('reused'):,.0f} reused, "
        f"{total('not_judged'):,.0f} not judged; tokens {total('input_tokens'):,.0f} in, "
        f"{total('output_tokens'):,.0f} out"
    )
    return [line + (f", cost {money(sum(costs))}" if costs else "")]


def target_order(report: Report) -> list[str]:
    """The named targets as the report's ``targets`` lists them, the reference first."""
    targets = report.get("targets")
    return [row["name"] for row in targets["runs"]] if targets else []


def call_summary(totals: Mapping[str, CallTotals], target: str = "") -> list[str]:
    """One plain line per source of :func:`call_totals`, of the named ``target``'s calls
    when one is given (every value but the target's name is a number)."""
    lines = []
    whose = f" of {target}" if target else ""
    for source, t in totals.items():

        def secs(value: float | None) -> str:
            return "-" if value is None else f"{value:.2f} s"

        label = f"calls{whose}" if source == "live" else f"replayed calls{whose} (recorded figures)"
        line = (
            f"{label}: {t['calls']}, latency p50 {secs(t['p50_s'])}, p95 {secs(t['p95_s'])}, "
            f"max {secs(t['max_s'])}, total {secs(t['total_s'])}"
        )
        if source == "live":
            line += f"; {t['retried']} retried, {t['failed']} failed"
        usage = []
        if t["input_tokens"] is not None or t["output_tokens"] is not None:
            usage.append(f"tokens {t['input_tokens'] or 0:,} in, {t['output_tokens'] or 0:,} out")
        if t["cost"] is not None:
            usage.append(f"cost {money(t['cost'])}")
        lines.append(line + (f"; {', '.join(usage)}" if usage else ""))
    return lines
