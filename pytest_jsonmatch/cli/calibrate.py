"""``jsonmatch calibrate LABELS --judge SETTING``: the judge measured against a person's
labels (calibration/): its figures overall and per field, with their intervals, printed, and
the calibration file written for the gates to read (docs/judge.md, "Measuring the judge")."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from ..engine.core.errors import JsonMatchError
from .input_error import InputError

if TYPE_CHECKING:
    from ..engine.judge import JudgeSettings

FORMATS = ("text", "markdown", "json")
RECORD_MODES = ("once", "none", "all", "off")


def add_parser(commands: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = commands.add_parser(
        "calibrate",
        help="measure the LLM judge against a person's labels",
        description="Ask the judge about each labelled field pair of LABELS (YAML or JSONL: "
        "field, reference, produced, human: same|different), print its agreement with the "
        "person overall and per field (confusion matrix, raw agreement, Cohen's kappa, "
        "Gwet's AC1, true-pass, true-fail and false-accept rates, each with 95%% intervals) "
        "and write the calibration file. Exit status 0 written, 2 a usage or input error.",
    )
    p.add_argument("labels", metavar="LABELS", help="the labels file (.yaml, .yml, .jsonl)")
    p.add_argument(
        "--judge",
        required=True,
        metavar="SETTING",
        help="the judge, as the plugin's jsonmatch_judge: 'model=... endpoint=... key_env=...'",
    )
    p.add_argument(
        "--cases",
        action="append",
        metavar="FOLDER",
        help="a folder of golden cases whose judge_labels join LABELS' items (repeat for "
        "more; run from the test root: each labelled field's pair is the case's expected "
        "value and its actual output or recording there)",
    )
    p.add_argument("--swap", action="store_true", help="position check: ask each label swapped")
    p.add_argument(
        "--repeat", type=int, metavar="K", help="self-consistency check: ask each label K times"
    )
    p.add_argument("--pad", action="store_true", help="verbosity check: the produced text padded")
    p.add_argument(
        "--panel",
        action="append",
        metavar="SETTING",
        help="a further judge of a panel (repeat for more); the panel's verdict by --rule",
    )
    p.add_argument("--rule", choices=("majority", "unanimous"), default="majority")
    p.add_argument(
        "--out",
        metavar="PATH",
        help="the calibration file (default: LABELS with .calibration.json)",
    )
    p.add_argument("--format", choices=FORMATS, default="text", help="what is printed")
    p.add_argument(
        "--record",
        choices=RECORD_MODES,
        default="once",
        help="the verdicts' recording beside LABELS: once (ask what is not recorded), none "
        "(never ask), all (ask again), off",
    )
    p.add_argument("--seed", type=_seed, default=0, help="the bootstrap's seed, from 0 (default 0)")
    p.set_defaults(run=run_calibrate)


def _seed(text: str) -> int:
    """``--seed``: a whole number from 0 (NumPy's generator takes no negative seed)."""
    try:
        value = int(text)
    except ValueError:
        value = -1
    if value < 0:
        raise argparse.ArgumentTypeError(f"a whole number from 0, not {text!r}")
    return value


def _settings(text: str, option: str) -> JudgeSettings:
    from ..engine.judge import judge_settings_from_text

    try:
        return judge_settings_from_text(text, option, Path.cwd())
    except JsonMatchError as exc:
        raise InputError(str(exc)) from None


def run_calibrate(args: argparse.Namespace) -> int:
    from ..calibration.calibration_file import MAX_PANEL, calibration_json, write_calibration
    from ..calibration.judge_asking import Checks, calibrate
    from ..calibration.labels import read_labels
    from ..calibration.showing import markdown, text

    if args.repeat is not None and not 2 <= args.repeat <= 20:
        raise InputError(f"--repeat must be a whole number from 2 to 20, not {args.repeat}")
    if len(args.panel or ()) > MAX_PANEL:
        raise InputError(
            f"--panel: at most {MAX_PANEL} judges beside --judge, not {len(args.panel)}"
        )
    judge = _settings(args.judge, "--judge")
    panel = tuple(_settings(t, "--panel") for t in args.panel or ())
    labels = read_labels(Path(args.labels))
    folders = tuple(args.cases or ())
    if folders:
        from ..calibration.case_labels import case_labels, joined

        labels = joined(labels, case_labels([Path(f) for f in folders], Path.cwd().resolve()))
    checks = Checks(args.swap, args.repeat, args.pad, panel, args.rule)
    cal = calibrate(labels, judge, checks, record=args.record, seed=args.seed)
    if folders:
        from dataclasses import replace

        cal = replace(cal, case_folders=folders)
    out = Path(args.out) if args.out else labels.path.with_suffix(".calibration.json")
    try:
        write_calibration(out, cal)
    except OSError as exc:
        raise InputError(f"{out}: cannot write: {exc.strerror or exc}") from None
    if args.format == "json":
        sys.stdout.write(json.dumps(calibration_json(cal), indent=1, ensure_ascii=False) + "\n")
    else:
        sys.stdout.write((markdown if args.format == "markdown" else text)(cal))
        sys.stdout.write(f"written: {out}\n")
    return 0
