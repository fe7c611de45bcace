"""The scoring settings shared by ``compare`` and ``score``: metric, threshold, options from
``--option``, ``--schema`` and structeval's ``--config``.

``--schema FILE`` reaches the engine as the path, as ``match_json(schema=path)`` and the
plugin give it: the schema's ``$ref``s to other files resolve beside FILE, wherever the
command runs (and in every ``-j`` worker)."""

from __future__ import annotations

import argparse
import math
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING

from ..engine.core.errors import JsonMatchError, SchemaError
from ..engine.core.numbers import whole_in
from ..reporting.verdicts.gate_specs import offered_by
from ..reporting.verdicts.gates import GateSettings, gate_names, parse_floors, with_fields
from .extensions import add_extension_arguments, load_extensions
from .input_error import InputError

# The metrics and the readers of files are imported where the options are read, not here:
# ``jsonmatch score -j N`` parses its arguments with this module, then forks its workers
# before the engine's modules are imported (cli/score.py).
if TYPE_CHECKING:
    from ..engine.configuring.walk_config import WalkConfig
    from ..engine.core.values import JsonObject, JsonValue


def add_scoring_arguments(parser: argparse._ActionsContainer, structeval: bool = False) -> None:
    parser.add_argument(
        "--metric",
        "-m",
        help="the metric (default: field_f1; structural_f1 with structeval's spelling or --config)",
    )
    parser.add_argument(
        "--threshold",
        "-t",
        type=_unit,
        metavar="T",
        help="the score a case must reach to pass, in [0, 1] (default 1.0)",
    )
    parser.add_argument(
        "--option",
        dest="options",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="a metric option; VALUE is read as JSON when it is JSON "
        "(--option ignore='[\"id\"]' --option beta=2); repeatable",
    )
    parser.add_argument(
        "--schema",
        metavar="FILE",
        help="an eval schema (JSON or YAML); its $refs to other files resolve beside FILE",
    )
    parser.add_argument(
        "--config",
        metavar="FILE",
        help="structeval's configuration file (JSON or YAML): its string, "
        "number and boolean evaluators and array_matching_threshold",
    )
    add_extension_arguments(parser)
    add_gate_arguments(parser, "scoring")  # --invalid-fails


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


def whole_number(minimum: int, of: str, maximum: int = 10**9) -> Callable[[str], int]:
    """An argparse type: a whole number of ``of`` (cases, worker processes) from
    ``minimum`` to ``maximum``; otherwise a usage error saying so (never a number too large
    for what it sizes, a process pool or a count)."""

    def parse(text: str) -> int:
        value = whole_in(text, minimum, maximum)
        if value is not None:
            return value
        shown = f"{text[:40]!r}{'...' if len(text) > 40 else ''}"
        digits = text.strip()
        # (a number past the maximum; a long string of digits is never read as an int)
        if digits.isascii() and digits.isdigit() and (len(digits) > 18 or int(digits) > maximum):
            raise argparse.ArgumentTypeError(
                f"a whole number of {of}, at most {maximum:,}, not {shown}"
            )
        raise argparse.ArgumentTypeError(f"a whole number of {of}, {minimum} or more, not {shown}")

    return parse


# The gate settings as the command line spells them, for the gates' messages to name
GATE_NAMES = gate_names(lambda spec: spec.flag)


def add_gate_arguments(parser: argparse._ActionsContainer, command: str) -> None:
    """The options of the gates ``command`` offers (reporting/verdicts/gate_specs.py: "score", "diff",
    or "scoring": compare's and score's), each typed by its kind, its value in
    ``args.<field>``."""
    for spec in offered_by(command):
        flag, dest, help_ = spec.flag, spec.field, spec.helps[command]
        if spec.value == "switch":
            parser.add_argument(flag, dest=dest, action="store_true", help=help_)
        elif spec.value == "lines":
            parser.add_argument(
                flag, dest=dest, action="append", default=[], metavar=spec.metavar, help=help_
            )
        elif spec.value == "choice":
            parser.add_argument(
                flag, dest=dest, choices=spec.words, default=spec.default, help=help_
            )
        else:
            parser.add_argument(
                flag,
                dest=dest,
                type=unit if spec.value == "score" else whole_number(0, "cases"),
                default=spec.default,
                metavar=spec.metavar,
                help=help_,
            )


def gates_of(args: argparse.Namespace, command: str) -> GateSettings:
    """The gates ``command``'s options gave (:func:`add_gate_arguments`), named as the
    command line spells them; a field floor that cannot be read is an InputError."""
    values: dict[str, object] = {}  # (each of its field's type: with_fields)
    for spec in offered_by(command):
        if spec.field not in GateSettings._fields:
            continue  # (invalid_fails: a case's own rule, ScoreSettings)
        value = getattr(args, spec.field)
        if spec.value == "lines":
            try:
                value = parse_floors(value, spec.flag)
            except JsonMatchError as exc:
                raise InputError(str(exc)) from None
        values[spec.field] = value
    return with_fields(GateSettings(names=GATE_NAMES), values)


def metric_and_options(
    args: argparse.Namespace, structeval: bool = False
) -> tuple[str, dict[str, object]]:
    """The metric and options the arguments ask for (InputError when they cannot be used),
    once the ``--plugins`` and ``--judge`` they name are loaded."""
    from ..engine.metrics import metric_named
    from .inputs import parse_option, read_settings

    load_extensions(args)
    metric = args.metric or ("structural_f1" if structeval or args.config else "field_f1")
    try:
        chosen = metric_named(metric)
    except JsonMatchError as exc:
        raise InputError(f"--metric: {exc}") from None
    options: dict[str, object] = {}
    if args.config:
        if chosen.name != "structural_f1":
            raise InputError(
                f"--config holds structeval's settings, for metric structural_f1, not {metric}"
            )
        from .structeval import structeval_options  # (structeval's --config only)

        options.update(structeval_options(read_settings(args.config, "configuration"), args.config))
    if args.schema:
        options["schema"] = schema_option(args.schema)
    for text in args.options:
        key, value = parse_option(text)
        options[key] = value
    return chosen.name, options


def schema_option(path: str) -> str | JsonObject:
    """The ``schema`` option ``--schema path`` stands for: the path itself, read by the engine
    as ``match_json(schema=path)`` reads it, so that references resolve beside the file.

    The file is read here first all the same, so that one that is not a schema is an
    InputError naming it. Standard input has no folder: its schema is given as a mapping,
    whose references resolve in the working directory. A YAML schema in a file not named
    ``.yaml``/``.yml`` (which the engine would read as JSON) is given as a mapping too, its
    base set to the file by ``$id``."""
    from .inputs import STDIN, read_settings_as

    schema, kind = read_settings_as(path, "schema")
    if not isinstance(schema, dict):
        raise InputError(f"{path}: a schema is a mapping (a JSON or YAML object)")
    if path == STDIN:
        return schema
    if kind == "json" or path.lower().endswith((".yaml", ".yml")):
        return path
    from pathlib import Path  # (only for a schema file: a command without one imports none)

    return {**schema, "$id": _based_id(schema.get("$id"), Path(path).resolve().as_uri())}


def _based_id(given: JsonValue, file_uri: str) -> str:
    """A schema's ``$id`` read from ``file_uri``: an absolute one as it is, a relative one
    against the file, none: the file (as the engine bases a schema file's references)."""
    from urllib.parse import urljoin, urlsplit  # (only for a schema given as a mapping)

    if not isinstance(given, str):
        return file_uri
    return given if urlsplit(given).scheme else urljoin(file_uri, given)


def checked_configuration(
    args: argparse.Namespace, metric: str, options: Mapping[str, object]
) -> WalkConfig:
    """The metric's configuration of ``options``, made before any record is read: an option
    or a schema it cannot use is an InputError (a schema's names ``--schema`` and its file,
    a ``$ref`` that cannot be resolved among them)."""
    from ..engine.metrics import metric_named
    from ..engine.metrics.base import configure

    try:
        return configure(metric_named(metric), dict(options))
    except SchemaError as exc:
        if args.schema:
            raise InputError(f"--schema {args.schema}: {exc}") from None
        raise InputError(str(exc)) from None
    except JsonMatchError as exc:
        raise InputError(str(exc)) from None
