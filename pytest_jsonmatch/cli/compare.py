"""``jsonmatch compare ACTUAL EXPECTED``: one pair, scored and reported."""

from __future__ import annotations

import argparse
import sys

from ..dataset import Pair, ScoreSettings, comparison_of
from ..engine.core.errors import JsonMatchError
from ..engine.match import match_json
from ..engine.metrics import metric_named
from ..engine.reading.parse import parse_expected
from ..engine.results.field_results import MatchResult
from ..reporting.run_model.aggregate import summarize
from ..reporting.run_model.comparisons import PASSED, VALUE_MODES, Comparison
from ..reporting.verdicts.gates import GateSettings, decision_of
from ..reporting.verdicts.report import build_report, run_info
from .input_error import InputError
from .inputs import STDIN, decode_json, path_shown, read_bytes, read_text
from .options import GATE_NAMES, add_scoring_arguments, checked_configuration, metric_and_options
from .output import choices, emit, repository_of

DESCRIPTION = """Score one pair: ACTUAL (the model's output, read leniently: JSON inside prose
or a code fence is found) against EXPECTED (strict JSON). Either may be '-' for standard
input. structeval's spelling works too: jsonmatch --test ACTUAL --gt EXPECTED --report text.
With a --trace-... option, ACTUAL is an OpenTelemetry trace file and its run is scored as a
golden run case scores it."""


def add_parser(commands: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = commands.add_parser(
        "compare", help="score one pair of JSON documents", description=DESCRIPTION
    )
    p.add_argument("actual", nargs="?", metavar="ACTUAL", help="the model's output (a path, or -)")
    p.add_argument(
        "expected", nargs="?", metavar="EXPECTED", help="the expected JSON (a path, or -)"
    )
    p.add_argument("--test", dest="test", metavar="ACTUAL", help="structeval's name for ACTUAL")
    p.add_argument("--gt", dest="gt", metavar="EXPECTED", help="structeval's name for EXPECTED")
    add_scoring_arguments(p)
    p.add_argument(
        "--format",
        "-f",
        "--report",
        dest="format",
        choices=choices(),
        default=None,
        help="output format (default text; --report is structeval's name for it)",
    )
    p.add_argument(
        "--output", "-o", metavar="OUT", help="write the output to OUT (default: standard output)"
    )
    p.add_argument(
        "--values",
        choices=VALUE_MODES,
        default="full",
        help="field values in the output: full (default), short (200 characters), none",
    )
    p.add_argument(
        "--color",
        choices=("auto", "always", "never"),
        default="auto",
        help="colour text output: on a terminal (auto, the default; NO_COLOR turns "
        "it off), always, never",
    )
    p.add_argument("--verbose", "-v", action="count", default=0, help="show every field")
    _add_trace_arguments(p)
    p.set_defaults(run=run, structeval=False)


def _add_trace_arguments(parser: argparse.ArgumentParser) -> None:
    """The ``--trace-...`` options (``trace_compare.py``, loaded only when one is given: a
    plain ``compare`` reads its options' names from this list)."""
    group = parser.add_argument_group(
        "a trace as ACTUAL",
        "ACTUAL is an OpenTelemetry trace file (OTLP JSON or protobuf, as the Collector's file "
        "exporter writes it), its run scored as a golden run case scores it; EXPECTED then "
        "holds the case's keys: expected, expected_run, run_options, expected_state",
    )
    group.add_argument("--trace-id", metavar="HEX", help="the run's trace id (32 hex digits)")
    group.add_argument("--trace-root", metavar="NAME", help="the run whose root span has this name")
    group.add_argument(
        "--trace-attribute",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="the run whose spans (or resource) hold this attribute; repeatable: all must hold",
    )
    group.add_argument(
        "--trace-format",
        choices=("json", "proto"),
        help="what the trace file must be: json (OTLP JSON) or proto (OTLP protobuf); "
        "read as either when not given",
    )


def run(args: argparse.Namespace) -> int:
    structeval = args.structeval or args.test is not None or args.gt is not None
    actual_path = _one(args.actual, args.test, "ACTUAL", "--test")
    expected_path = _one(args.expected, args.gt, "EXPECTED", "--gt")
    if actual_path == STDIN and expected_path == STDIN:
        raise InputError("ACTUAL and EXPECTED cannot both be standard input")
    metric, options = metric_and_options(args, structeval)
    checked_configuration(args, metric, options)  # a bad --schema named as such, not as ACTUAL
    # structeval has no threshold: in its spelling nothing fails unless --threshold asks
    threshold = args.threshold if args.threshold is not None else (0.0 if structeval else 1.0)
    settings = ScoreSettings(
        metric, threshold, options, args.values, invalid_fails=args.invalid_fails
    )
    if args.trace_id or args.trace_root or args.trace_attribute or args.trace_format:
        from .trace_compare import trace_comparison

        traced = trace_comparison(args, actual_path, expected_path, metric, options, settings)
        _emit(args, traced)
        return 0 if traced.status == PASSED else 1
    expected = _expected(expected_path, metric)
    actual = read_bytes(actual_path)
    result = _scored(actual, expected, metric, options, actual_path, expected_path)
    case_id = path_shown(actual_path)
    comparison = comparison_of(
        Pair(case_id, expected, actual, case_id, "" if actual_path == STDIN else actual_path),
        result,
        settings,
    )
    _emit(args, comparison)
    return 0 if comparison.status == PASSED else 1


def _expected(path: str, metric: str) -> object:
    """The expected document, read and checked as the metric takes it (an array only where
    the metric allows one); a mistake names the file."""
    expected = decode_json(read_text(path), path_shown(path))
    try:
        parse_expected(
            expected, allow_array=metric_named(metric).allow_array, what=path_shown(path)
        )
    except JsonMatchError as exc:
        raise InputError(str(exc)) from None
    return expected


def _scored(
    actual: bytes,
    expected: object,
    metric: str,
    options: dict[str, object],
    actual_path: str,
    expected_path: str,
) -> MatchResult:
    """The pair scored; an error names the file it is about (expected's, else actual's)."""
    try:
        return match_json(actual, expected, metric, **options)
    except JsonMatchError as exc:
        message = str(exc)
        where = (
            path_shown(expected_path) if message.startswith("expected") else path_shown(actual_path)
        )
        raise InputError(f"{where}: {message}") from None


def _emit(args: argparse.Namespace, comparison: Comparison) -> None:
    """The one comparison's report, judged by the default gates, written in the format
    asked for."""
    summary = summarize([comparison])
    fmt = args.format or "text"
    decision = decision_of(summary, GateSettings(names=GATE_NAMES))
    report = build_report(
        summary,
        [comparison],
        decision,
        None,
        run_info(["jsonmatch", *getattr(args, "argv", sys.argv[1:])], repository_of(fmt)),
    )
    emit(report, fmt, args.output, verbose=args.verbose, color_choice=args.color)


def _one(positional: str | None, flag: str | None, name: str, flag_name: str) -> str:
    if positional is not None and flag is not None:
        raise InputError(f"give {name} once: as an argument or as {flag_name}, not both")
    value = positional if positional is not None else flag
    if value is None:
        raise InputError(f"{name} is missing (a path, or - for standard input)")
    return value
