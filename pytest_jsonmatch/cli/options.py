"""The scoring settings shared by ``compare`` and ``score``: metric, threshold, options from
``--option``, ``--schema`` and structeval's ``--config``."""

from __future__ import annotations

import argparse
import math
from typing import Any

from ..engine.core.errors import JsonMatchError
from ..engine.metrics import metric_named
from .errors import InputError
from .files import parse_option, read_settings
from .structeval import structeval_options


def add_scoring_arguments(parser: argparse.ArgumentParser, structeval: bool = False) -> None:
    parser.add_argument("--metric", "-m", help="the metric (default: field_f1; structural_f1 "
                        "with structeval's spelling or --config)")
    parser.add_argument("--threshold", "-t", type=_unit, metavar="T",
                        help="the score a case must reach to pass, in [0, 1] (default 1.0)")
    parser.add_argument("--option", dest="options", action="append", default=[],
                        metavar="KEY=VALUE",
                        help="a metric option; VALUE is read as JSON when it is JSON "
                             "(--option ignore='[\"id\"]' --option beta=2); repeatable")
    parser.add_argument("--schema", metavar="FILE", help="an eval schema (JSON or YAML)")
    parser.add_argument("--config", metavar="FILE",
                        help="structeval's configuration file (JSON or YAML): its string, "
                             "number and boolean evaluators and array_matching_threshold")


def _unit(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not math.isfinite(value) or not 0.0 <= value <= 1.0:
        raise argparse.ArgumentTypeError(f"must be a number between 0 and 1, not {text!r}")
    return value


def unit(text: str) -> float:
    """An argparse type: a score in [0, 1]."""
    return _unit(text)


def metric_and_options(args: argparse.Namespace, structeval: bool = False) -> tuple[str, dict[str, Any]]:
    """The metric and options the arguments ask for (InputError when they cannot be used)."""
    metric = args.metric or ("structural_f1" if structeval or args.config else "field_f1")
    try:
        chosen = metric_named(metric)
    except JsonMatchError as exc:
        raise InputError(f"--metric: {exc}") from None
    options: dict[str, Any] = {}
    if args.config:
        if chosen.name != "structural_f1":
            raise InputError(f"--config holds structeval's settings, for metric structural_f1, "
                             f"not {metric}")
        options.update(structeval_options(read_settings(args.config, "configuration"),
                                          args.config))
    if args.schema:
        schema = read_settings(args.schema, "schema")
        if not isinstance(schema, dict):
            raise InputError(f"{args.schema}: a schema is a mapping (a JSON or YAML object)")
        options["schema"] = schema
    for text in args.options:
        key, value = parse_option(text)
        options[key] = value
    return chosen.name, options
