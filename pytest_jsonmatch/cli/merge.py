"""``jsonmatch merge SHARD.json... -o RUN.json``: the shards' reports of one split suite
(jsonmatch_shard) joined into the report of the whole run, and that run judged once by the
gates the plugin judges, given here as the plugin's settings' values."""

from __future__ import annotations

import argparse

from ..engine.core.errors import JsonMatchError
from ..reporting.baseline import BaselineError, load_baseline
from ..reporting.gates import gate_settings
from ..reporting.report import conclude, run_info, write_report
from ..reporting.shards import merge_shards
from .input_error import InputError
from .output import FORMATS, emit
from .saved import _load


def add_parser(commands: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = commands.add_parser(
        "merge",
        help="join the reports of a split suite's shards and judge the whole run",
        description="Join the JSON reports of the shards of one run (each written with "
        "--jsonmatch-shard i/N --jsonmatch-report SHARD.json) into the report of the whole "
        "run, and judge its gates once. Exit status 1 when a gate failed.",
    )
    p.add_argument("shards", nargs="+", metavar="SHARD.json")
    p.add_argument(
        "--json", "-o", dest="json_out", metavar="RUN.json", help="write the merged report"
    )
    p.add_argument(
        "--partial",
        action="store_true",
        help="merge although shards are missing; the run is marked partial and passes no gate",
    )
    p.add_argument("--baseline", metavar="PATH", help="hold the run against this report")
    p.add_argument("--fail-under", default="", metavar="SCORE", help="as jsonmatch_fail_under")
    p.add_argument(
        "--field-floor",
        action="append",
        default=[],
        metavar="LINE",
        help="as jsonmatch_field_floors",
    )
    p.add_argument("--max-drop", default="", metavar="D [strict]", help="as jsonmatch_max_drop")
    p.add_argument(
        "--max-case-drop", default="", metavar="D [allow=N]", help="as jsonmatch_max_case_drop"
    )
    p.add_argument("--min-valid", default="", metavar="SHARE", help="as jsonmatch_min_valid")
    p.add_argument("--format", "-f", choices=FORMATS, default="text", help="the summary's format")
    p.add_argument("--output", metavar="OUT", help="write the summary to OUT (default: stdout)")
    p.add_argument("--color", choices=("auto", "always", "never"), default="auto")
    p.add_argument("--verbose", "-v", action="count", default=0)
    p.set_defaults(run=run_merge)


def run_merge(args: argparse.Namespace) -> int:
    shards = [(path, _load(path)) for path in args.shards]
    try:
        merged = merge_shards(shards, partial=args.partial)
        gates = gate_settings(
            fail_under=args.fail_under,
            floor_lines=args.field_floor,
            drop_parts=[(args.max_drop, "max_drop")] if args.max_drop else [],
            case_parts=[(args.max_case_drop, "max_case_drop")] if args.max_case_drop else [],
            prefix="jsonmatch_",
            min_valid=args.min_valid,
        )
        baseline = load_baseline(args.baseline) if args.baseline else None
    except BaselineError as exc:
        raise InputError(str(exc)) from None
    except JsonMatchError:
        raise
    report, verdict = conclude(
        merged.comparisons,
        gates,
        {**run_info(["jsonmatch", *args.argv], None), **merged.run},
        group_by=merged.group_by,  # type: ignore[arg-type]
        baseline=baseline,
        stopped=merged.stopped,
    )
    if args.json_out:
        write_report(args.json_out, report)
    emit(report, args.format, args.output, verbose=args.verbose, color_choice=args.color)
    return 0 if verdict.passed else 1
