"""``jsonmatch merge SHARD.json... -o RUN.json``: the shards' reports of one split suite
(jsonmatch_shard) joined into the report of the whole run, and that run judged once by the
gates the plugin judges: with the settings the shards recorded (``run.settings``), each
overridden by its option where given."""

from __future__ import annotations

import argparse
import os
from pathlib import Path
from typing import cast

from ..engine.core.errors import JsonMatchError
from ..reporting.run_model.aggregate import REPEAT_RULES, RepeatRule
from ..reporting.run_model.report_types import RunSettingsDict
from ..reporting.verdicts import gate_specs
from ..reporting.verdicts.baseline import Baseline, BaselineError, baseline_setting, load_baseline
from ..reporting.verdicts.gate_specs import PREFIX, GateSpec
from ..reporting.verdicts.gates import gate_settings
from ..reporting.verdicts.report import conclude, run_info, write_report
from ..reporting.verdicts.shard_checks import ShardError
from ..reporting.verdicts.shards import merge_shards
from ..reporting.verdicts.versus import parse_reference
from .input_error import InputError
from .output import choices, emit
from .saved_reports import read_saved_report


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
    p.add_argument(
        "--baseline",
        metavar="PATH",
        help="hold the run against this report (default: the shards' jsonmatch_baseline, "
        "from the current directory)",
    )
    p.add_argument("--no-baseline", action="store_true", help="hold the run against no baseline")
    # each gate option overrides the setting the shards' reports recorded (run.settings)
    for spec in gate_specs.recorded():
        if spec.value == "lines":
            p.add_argument(spec.flag, dest=spec.key, action="append", default=None, **_shown(spec))
        else:
            p.add_argument(spec.flag, dest=spec.key, default=None, **_shown(spec))
    p.add_argument(
        "--reference",
        default=None,
        metavar="NAME [latency_p95=LIMIT] [cost=LIMIT]",
        help="as jsonmatch_reference",
    )
    p.add_argument("--format", "-f", choices=choices(), default="text", help="the summary's format")
    p.add_argument("--output", metavar="OUT", help="write the summary to OUT (default: stdout)")
    p.add_argument("--color", choices=("auto", "always", "never"), default="auto")
    p.add_argument("--verbose", "-v", action="count", default=0)
    p.set_defaults(run=run_merge)


def _case_repeats(root: Path, path: Path, metric: str) -> tuple[dict[str, int | None], str | None]:
    """The golden case file ``path``, read as the plugin reads it under ``root``: each
    case's own ``repeat:`` (1 for a case with no input to repeat) and the SHA-256 of its
    bytes, for the merge's check of a shard's runs (reporting/verdicts/shard_checks.py)."""
    from ..cases.case_files import CaseFiles

    cases = CaseFiles(root=root, metric=metric).load(path)
    repeats = {case.id: case.repeat if case.source == "input" else 1 for case in cases}
    return repeats, cases[0].file_sha256 if cases else None


def run_merge(args: argparse.Namespace) -> int:
    for written, option in ((args.json_out, "-o/--json"), (args.output, "--output")):
        if written:
            _not_a_shard(written, option, args.shards)
    shards = [(path, read_saved_report(path)) for path in args.shards]
    try:
        merged = merge_shards(
            shards, partial=args.partial, root=os.getcwd(), read_case_file=_case_repeats
        )
        ran = merged_gate_settings(merged.run.get("settings", {}), args)
        gates = gate_settings(
            texts={k: v for k, v in ran.items() if isinstance(v, str)},
            floor_lines=ran.get("field_floors", []),
            prefix=PREFIX,
            gate_prefix=PREFIX + "gates ",
        )
        versus = parse_reference(
            ran.get("reference", ""),
            "--reference" if args.reference is not None else "jsonmatch_reference",
        )
        baseline = _baseline(ran, args)
        rule = _repeat_rule(ran.get("repeat", ""))
    except BaselineError as exc:
        raise InputError(str(exc)) from None
    except JsonMatchError:
        raise
    report, decision = conclude(
        merged.comparisons,
        gates,
        {**run_info(["jsonmatch", *args.argv], None), **merged.run, "settings": ran},
        group_by=merged.group_by,  # type: ignore[arg-type]
        repeat_rule=rule,
        baseline=baseline,
        stopped=merged.stopped,
        targets=ran.get("targets", []),
        versus=versus,
    )
    if args.json_out:
        write_report(args.json_out, report)
    emit(report, args.format, args.output, verbose=args.verbose, color_choice=args.color)
    return 0 if decision.passed else 1


def merged_gate_settings(recorded: RunSettingsDict, args: argparse.Namespace) -> RunSettingsDict:
    """The settings the merged run is held to: the shards' (``run.settings``), each gate,
    the reference and the baseline overridden by its option where given."""
    out: dict[str, object] = {**recorded}
    for key in [spec.key for spec in gate_specs.recorded()] + ["reference"]:
        given = getattr(args, key)
        if given is not None:
            out[key] = list(given) if isinstance(given, list) else given
    if args.no_baseline:
        out.pop("baseline", None)
    elif args.baseline is not None:
        out["baseline"] = args.baseline
    return cast("RunSettingsDict", out)


def _shown(spec: GateSpec) -> dict[str, str]:
    """How merge's option of a recorded gate is shown: its text as run.settings holds it."""
    what = f"as {PREFIX}{spec.setting}" + (f" {spec.key}=" if spec.setting == "gates" else "")
    return {"metavar": spec.merge or spec.metavar or "", "help": spec.merge_help or what}


def _not_a_shard(written: str, option: str, shards: list[str]) -> None:
    """Refused: a file merge would write (``option``'s) that is one of the shards it reads,
    by its resolved path or as the same file (a hard link, a symlink)."""
    target = os.path.realpath(written)
    for shard in shards:
        same = os.path.realpath(shard) == target
        if not same:
            try:
                same = os.path.samefile(shard, written)
            except OSError:  # one of them is not there (yet): not the same file
                same = False
        if same:
            raise InputError(
                f"{option} {written} is the shard {shard} being merged: write the merged "
                f"run elsewhere"
            )


def _inside_root(text: str, shards: list[str]) -> None:
    """Refused unless the shards' baseline path lies inside the directory merge runs in
    (symlinks resolved): a shard's report may come from anywhere, and names no file
    outside it."""
    root = os.path.realpath(os.getcwd())
    found = os.path.realpath(os.path.join(root, text))
    if os.path.commonpath([root, found]) != root:
        named = ", ".join(shards[:3]) + (", ..." if len(shards) > 3 else "")
        raise ShardError(
            f"{named}: the shards' baseline {text} (run.settings.baseline) lies outside "
            f"{root!r}, the directory merge runs in, and is not read: give --baseline PATH "
            f"to hold the run against it"
        )


def _baseline(ran: RunSettingsDict, args: argparse.Namespace) -> Baseline | None:
    """The baseline given, or the shards' (a path from the root dir, read from the current
    directory, and only inside it): one that is not there is refused, naming the option
    that says where."""
    path = ran.get("baseline", "")
    if not path:
        return None
    text, partial = baseline_setting(path, "--baseline")
    if args.baseline is None:
        _inside_root(text, args.shards)
    if args.baseline is None and not os.path.isfile(text):
        raise InputError(
            f"the shards were held against the baseline {text} (jsonmatch_baseline), which is "
            f"not in {os.getcwd()!r}: run merge from the shards' root dir, or give --baseline "
            f"PATH (or --no-baseline)"
        )
    return load_baseline(os.path.abspath(text), partial or args.partial)


def _repeat_rule(text: str) -> RepeatRule:
    """The rule a repeated case passes by, from the shards' ``repeat`` (``[N] RULE``)."""
    words = text.split() or ["mean"]
    rule = next((r for r in REPEAT_RULES if r == words[-1]), None)
    if rule is None:
        raise InputError(f"the shards' run.settings.repeat {text!r} names no rule a run has")
    return rule
