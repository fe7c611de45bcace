"""``jsonmatch compare-runs RUN.json RUN.json [...]``: saved runs side by side over the cases
they share (reporting/verdicts/runs.py), each against the first. It judges no score; exit status 1 only
when a run shares too few cases with the first for the comparison to speak for it."""

from __future__ import annotations

import argparse
import os
import sys

from ..reporting.render.formats import FORMATS, RUNS, Look, offered
from ..reporting.run_model.atomic import write_atomic
from ..reporting.run_model.report_types import Report
from ..reporting.verdicts.baseline import BaselineError
from ..reporting.verdicts.report import load_report
from ..reporting.verdicts.runs import Run, compare_runs, too_few_shared
from ..reporting.verdicts.versus import runs_of_report
from .input_error import InputError
from .output import width

DESCRIPTION = """Compare two or more saved reports (the pytest plugin's --jsonmatch-report, or
jsonmatch score --report) over the cases they all share: each run's overall and per-field
scores, its mean difference from the first run with the 95%% interval of jsonmatch diff, the
cases it does better, worse or the same on, and the cases where the runs disagree most.
Cases only some runs have are counted and named, never averaged in. Exit status 1 when a run
shares with the first fewer than half of its cases (none shared is always too few), else 0."""


def add_parser(commands: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = commands.add_parser(
        "compare-runs",
        help="compare two or more saved reports side by side",
        description=DESCRIPTION,
    )
    p.add_argument(
        "runs",
        nargs="+",
        metavar="RUN.json",
        help="saved reports; the first is "
        "the one the others are held against (one report of a run with named "
        "targets: its targets, the reference first)",
    )
    p.add_argument(
        "--name",
        action="append",
        default=[],
        metavar="NAME",
        help="a run's name, in the order of the files (repeat once per file; "
        "default: each file's name)",
    )
    p.add_argument(
        "--format",
        "-f",
        choices=offered(RUNS),
        default="text",
        help="output format (default text)",
    )
    p.add_argument("--output", "-o", metavar="OUT", help="write to OUT (default: standard output)")
    p.add_argument(
        "--verbose",
        "-v",
        action="count",
        default=0,
        help="list every case that disagrees and every case only some runs have",
    )
    p.set_defaults(run=run)


def run_names(paths: list[str], names: list[str]) -> list[str]:
    """The runs' names: ``--name`` in order when given (one per file, all different), else
    each file's name, or its path where two files share a name."""
    if names:
        if len(names) != len(paths):
            raise InputError(
                f"compare-runs: {len(names)} --name for {len(paths)} files "
                f"({', '.join(paths)}); give one --name per file, in order"
            )
        for i, name in enumerate(names):
            if not name.strip():
                raise InputError(f"compare-runs: the --name of {paths[i]} is empty")
            if name in names[:i]:
                raise InputError(
                    f"compare-runs: --name {name!r} is given to both "
                    f"{paths[names.index(name)]} and {paths[i]}"
                )
        return list(names)
    bases = [os.path.basename(p.rstrip("/" + os.sep)) or p for p in paths]
    chosen = [base if bases.count(base) == 1 else path for base, path in zip(bases, paths)]
    for i, name in enumerate(chosen):
        if name in chosen[:i]:
            raise InputError(f"compare-runs: {paths[i]} is given twice; name the runs with --name")
    return chosen


def run(args: argparse.Namespace) -> int:
    paths: list[str] = args.runs
    said: list[str] = []
    if len(paths) < 2:  # one run of several named targets: its targets side by side
        runs = runs_of_report(_load(paths[0]), paths[0])
        if not runs:
            raise InputError(
                f"compare-runs: {paths[0]}: only one run given, and it ran fewer "
                f"than two named targets; compare-runs needs two or more reports, "
                f"or one report of a run with jsonmatch_targets"
            )
    else:
        names = run_names(paths, args.name)
        reports = [_load(path) for path in paths]
        runs = [Run(name, path, report) for name, path, report in zip(names, paths, reports)]
        said = provenance_lines(names, reports)
    data = compare_runs(runs)
    too_few = too_few_shared(runs)
    to_stdout = args.output in (None, "-")
    look = Look(args.verbose, False, width(sys.stdout) if to_stdout else 100)
    write = FORMATS[args.format].write_runs
    assert write is not None  # (the choices are the formats that have one)
    if to_stdout:
        write(sys.stdout, data, look)
        sys.stdout.flush()
    else:
        try:
            write_atomic(args.output, lambda fh: write(fh, data, look))
        except OSError as exc:
            raise InputError(f"{args.output}: cannot write: {exc.strerror or exc}") from None
    for line in too_few + said:
        print(f"jsonmatch compare-runs: {line}", file=sys.stderr)
    return 1 if too_few else 0


def _load(path: str) -> Report:
    try:
        return load_report(path)
    except BaselineError as exc:
        raise InputError(str(exc)) from None


def provenance_lines(names: list[str], reports: list[Report]) -> list[str]:
    """What differs in each run's provenance from the first run's (a prompt version, the
    golden set, the judge), named by run: said, not failed (reporting/verdicts/provenance.py)."""
    from ..reporting.verdicts.provenance import provenance_changes

    first = reports[0]["run"].get("provenance")
    return [
        f"{name} against {names[0]}: {line}"
        for name, report in zip(names[1:], reports[1:])
        for line in provenance_changes(first, report["run"].get("provenance"))
    ]
