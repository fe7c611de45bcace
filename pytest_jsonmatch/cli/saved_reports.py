"""``jsonmatch report`` renders a saved report; ``jsonmatch diff`` holds one saved report
against another, case by case (the baseline comparison of the pytest plugin)."""

from __future__ import annotations

import argparse

from ..reporting.run_model.aggregate import summarize
from ..reporting.run_model.comparisons import Comparison
from ..reporting.run_model.report_types import Report
from ..reporting.verdicts.baseline import (
    BaselineError,
    cases_of,
    compare,
    load_baseline,
    uncounted_of,
)
from ..reporting.verdicts.calibration_gates import judge_calibration
from ..reporting.verdicts.gates import decision_of
from ..reporting.verdicts.provenance import provenance_changes
from ..reporting.verdicts.reliability_gates import reliability_section
from ..reporting.verdicts.report import baseline_section, load_report
from ..reporting.verdicts.undecided_verdicts import (
    UNDECIDED_FAILURE,
    saved_undecided,
    undecided_failure,
)
from .input_error import InputError
from .options import add_gate_arguments, gates_of
from .output import add_look_arguments, choices, emit


def add_parsers(commands: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = commands.add_parser(
        "report",
        help="render a saved JSON report",
        description="Render a report saved by the pytest plugin "
        "(--jsonmatch-report) or by jsonmatch score --report. "
        "Exit status 1 when the report's gates failed.",
    )
    p.add_argument("report", metavar="REPORT.json")
    _output_arguments(p, "html")
    p.set_defaults(run=run_report)

    d = commands.add_parser(
        "diff",
        help="compare two saved reports case by case",
        description="Hold NEW against BASE case by case: the mean change "
        "with its 95%% interval, pass/fail flips, the cases "
        "that changed most and each field's change. Exit "
        "status 1 when the drop is beyond --max-drop and not "
        "by chance, or when NEW shares fewer than half of its cases with BASE.",
    )
    d.add_argument("base", metavar="BASE.json")
    d.add_argument("new", metavar="NEW.json")
    add_gate_arguments(d, "diff")
    d.add_argument(
        "--partial",
        action="store_true",
        help="accept BASE though its run did not finish (its missing cases go unchecked)",
    )
    _output_arguments(d, "text")
    d.set_defaults(run=run_diff)


def _output_arguments(p: argparse.ArgumentParser, default: str) -> None:
    p.add_argument(
        "--format",
        "-f",
        choices=choices(),
        default=default,
        help=f"output format (default {default})",
    )
    p.add_argument("--output", "-o", metavar="OUT", help="write to OUT (default: standard output)")
    add_look_arguments(p)


def read_saved_report(path: str) -> Report:
    """A saved JSON report, read and checked; one that cannot be is an input error."""
    try:
        return load_report(path)
    except BaselineError as exc:
        raise InputError(str(exc)) from None


def run_report(args: argparse.Namespace) -> int:
    report = read_saved_report(args.report)
    for key in ("overall", "metrics", "groups", "cases", "comparisons", "gates"):
        if key not in report:
            raise InputError(f"{args.report}: not a jsonmatch report (no {key!r})")
    report = with_undecided_read(report)
    emit(report, args.format, args.output, verbose=args.verbose, color_choice=args.color)
    return 0 if report["gates"].get("passed", True) else 1


def with_undecided_read(report: Report) -> Report:
    """``report`` with its gates failed where it holds a comparison the judge left undecided
    (reporting/verdicts/undecided_verdicts.py), whatever it was saved with: read from its comparisons
    and per-metric counts, the failure is said first, and no gate reads as passed."""
    count, why = saved_undecided(report)
    failure = undecided_failure(count, why)
    gates = report["gates"]
    failures = list(gates.get("failures", []))
    if not failure or any(str(f).startswith(UNDECIDED_FAILURE) for f in failures):
        return report  # (said already, as the run counted it)
    return {
        **report,
        "gates": {
            **gates,
            "passed": False,
            "failures": [failure, *failures],
            "checked": [],
        },
    }


def run_diff(args: argparse.Namespace) -> int:
    new = read_saved_report(args.new)
    try:
        baseline = load_baseline(args.base, allow_partial=args.partial)
        comparisons = [Comparison.from_dict(c) for c in new["comparisons"]]
    except BaselineError as exc:
        raise InputError(str(exc)) from None
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        raise InputError(f"{args.new}: a comparison lacks or mistypes {exc}") from None
    group_by = new.get("group_by", "metric")
    summary = summarize(comparisons, group_by)
    targets = new.get("targets")
    reference = targets["reference"] if targets else ""
    now = cases_of(comparisons, group_by=group_by)
    against = compare(now, baseline, reference, uncounted_of(comparisons))
    gates = gates_of(args, "diff")
    decision = decision_of(summary, gates, against)
    decision.warnings += provenance_changes(baseline.provenance, new["run"].get("provenance"))
    if gates.holds_judge:  # the new run's calibration, as it recorded it
        judge_calibration(new["run"].get("provenance", {}), gates, decision)
    reliable = reliability_section(comparisons, gates, group_by, against, decision)
    report: Report = {**new, "baseline": baseline_section(against), "gates": decision.to_dict()}
    if reliable is not None:
        report["reliability"] = reliable
    emit(report, args.format, args.output, verbose=args.verbose, color_choice=args.color)
    return 0 if decision.passed else 1
