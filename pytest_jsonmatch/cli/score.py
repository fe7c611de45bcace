"""``jsonmatch score GOLD PRED``: a dataset scored record by record, as it streams.

This module holds the command's arguments and its start; the run itself is score_run.py's.
Its imports are those the parser needs, so that with ``-j N`` the N - 1 workers are forked
as soon as the arguments are parsed (parallel.py, ``Workers``): before the dataset's and the
engine's modules are imported, which each worker imports on its own meanwhile, while this
process imports them, checks the options and guesses the schema. Only this process reads
the inputs and reports anything: an error in the options, or in the guess, is its own,
with the message and exit status of ``-j 1``; the workers are stopped and waited for on
every way out.
"""

from __future__ import annotations

import argparse
import os
from collections.abc import Callable

from ..reporting.run_model.aggregate import GROUP_BY
from ..reporting.run_model.comparisons import VALUE_MODES
from .extensions import load_in_worker, worker_setup
from .input_error import InputError
from .options import add_gate_arguments, add_scoring_arguments, whole_number
from .output import add_look_arguments, choices
from .parallel import AUTO, AUTO_MIN_BYTES, Workers, auto_jobs

MAX_JOBS = 1_024  # worker processes --jobs may ask for

DESCRIPTION = """Score a dataset: GOLD and PRED are two JSONL files (one JSON value a line),
two files each holding a JSON array, or two folders of files matched by name. Records pair
by --id-field, else by position (folders: by file name). Each pair is scored as
evaluate_records scores it; a prediction that cannot be scored counts as 0."""


def add_parser(commands: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = commands.add_parser(
        "score", help="score a dataset of gold and predicted records", description=DESCRIPTION
    )
    _record_arguments(p.add_argument_group("records", "what is scored, and how it is read"))
    add_scoring_arguments(p.add_argument_group("scoring", "the metric and its options"))
    _output_arguments(p.add_argument_group("output", "what is printed and written"))
    _gate_arguments(p.add_argument_group("gates", "when the command exits 1"))
    p.set_defaults(run=run)


def _record_arguments(group: argparse._ArgumentGroup) -> None:
    group.add_argument("gold", metavar="GOLD", help="the expected records")
    group.add_argument("pred", metavar="PRED", help="the predicted records (the model's outputs)")
    group.add_argument(
        "--id-field", metavar="KEY", help="pair records by this field (default: by position)"
    )
    group.add_argument(
        "--gold-field",
        metavar="KEY",
        help="score this field of each gold record (default: the whole record)",
    )
    group.add_argument(
        "--pred-field",
        metavar="KEY",
        help="score this field of each prediction, text or JSON (default: the whole record)",
    )
    group.add_argument(
        "--jobs",
        "-j",
        type=_jobs,
        default=AUTO,
        metavar="N",
        help=f"worker processes, or auto (the default: one a CPU for inputs of "
        f"{AUTO_MIN_BYTES >> 20} MB or more without --judge or --plugins, else 1); the "
        f"result is the same for any N",
    )


def _output_arguments(group: argparse._ArgumentGroup) -> None:
    group.add_argument(
        "--format", "-f", choices=choices(), default="text", help="what to print (default text)"
    )
    group.add_argument("--output", "-o", metavar="OUT", help="write that to OUT instead")
    group.add_argument(
        "--report",
        metavar="PATH",
        help="also write the JSON report (the pytest plugin's format) to PATH",
    )
    group.add_argument(
        "--group-by",
        choices=GROUP_BY,
        default="metric",
        help="per-field tables per metric (default), file or folder",
    )
    group.add_argument(
        "--values",
        choices=VALUE_MODES,
        default="short",
        help="field values in the report: short (200 characters, default), full, none",
    )
    add_look_arguments(group)


def _gate_arguments(group: argparse._ArgumentGroup) -> None:
    group.add_argument(
        "--baseline", metavar="PATH", help="compare with a saved report, case by case"
    )
    add_gate_arguments(
        group, "score"
    )  # --fail-under, --max-drop, ... (reporting/verdicts/gate_specs.py)


def run(args: argparse.Namespace) -> int:
    for side, path in (("GOLD", args.gold), ("PRED", args.pred)):
        _not_a_trace(side, path)
    jobs = _jobs_of(args)
    with Workers(
        jobs,
        _worker_setup(args),
        lambda: _output_modules(args),
        lambda number: _read_ahead(args, jobs, number),
    ) as workers:
        # (imported once the workers are forked: the dataset's and the engine's modules)
        from .score_run import scored_run

        return scored_run(args, workers)


# The modules each format's writer imports when it is called (reporting/render/formats.py):
# with workers, this process imports them while the workers score its first chunks, instead
# of after the last one (about 9 ms of a 0.3 s run on two CPUs, for text written to a file).
_RENDERERS = {
    "text": "pytest_jsonmatch.reporting.render.text",
    "html": "pytest_jsonmatch.reporting.render.html",
    "markdown": "pytest_jsonmatch.reporting.render.markdown",
}


def _output_modules(args: argparse.Namespace) -> None:
    """Import what writing this run's output will: its format's renderer, and the atomic
    writer of a file with what it imports (reporting/run_model/atomic.py). Nothing is
    written and nothing else is done: the same output, only the imports done earlier."""
    import importlib

    names = [_RENDERERS[args.format]] if args.format in _RENDERERS else []
    if args.report or args.output not in (None, "-"):
        # the atomic writer, what it imports, and the codec it reads the umask with
        names += ["pytest_jsonmatch.reporting.run_model.atomic", "pathlib", "tempfile"]
        names.append("encodings.ascii")
    for name in names:
        importlib.import_module(name)


def _read_ahead(args: argparse.Namespace, jobs: int, number: int) -> None:
    """In forked worker ``number``, before it serves: its first chunk read and decoded, held
    for when it comes (dataset/chunk_work.py, ``hold_pairs``), where the run will guess its
    schema first (a schema-driven metric, the default, given no schema): the worker would
    wait for the guess idle, about as long as the read takes. Only where the run cuts two
    JSONL files into spans (score_run.py, ``_Run.scored``): the chunk is the one the pool
    sends this worker first (worker k: chunk k, fork_pool.py), found as the run finds it
    (parallel.py, ``sized_spans``). Whatever goes wrong is left for the run to meet: a
    chunk not read ahead is read when it comes, and one that differs is not used."""
    if (
        args.id_field is not None
        or args.schema
        or getattr(args, "config", None)
        or args.metric not in (None, "field_f1")
        or any(text.partition("=")[0].strip() == "schema" for text in args.options)
    ):
        return  # (no guess to wait for: the first chunk comes as soon as the options are read)
    import itertools

    from ..dataset.chunk_work import SCORED_TOGETHER, hold_pairs
    from ..dataset.spans import is_jsonl, span_pairs, spans
    from .parallel import sized_spans

    try:
        if not (is_jsonl(args.gold) and is_jsonl(args.pred)):
            return
        found = spans(args.gold, args.pred, SCORED_TOGETHER, args.gold_field, args.pred_field)
        size = os.path.getsize(args.gold)
        chunk = next(itertools.islice(sized_spans(found, size, jobs), number, None), None)
        if chunk is not None:
            hold_pairs(chunk, span_pairs(chunk))
    except Exception:  # noqa: BLE001 - the run reads the chunk again and meets it
        pass


def _jobs(text: str) -> int:
    """``--jobs``: ``auto`` (AUTO, decided once the inputs are known) or a whole number."""
    if text.strip().lower() == "auto":
        return AUTO
    try:
        return whole_number(1, "worker processes", MAX_JOBS)(text)
    except argparse.ArgumentTypeError as exc:
        raise argparse.ArgumentTypeError(f"auto, or {exc}") from None


def _not_a_trace(side: str, path: str) -> None:
    """Refuse a file that is an OpenTelemetry trace (OTLP JSON: its first key
    ``resourceSpans``): its lines are exports of spans, which scored as records would score
    nothing the user meant. A run read from a trace is scored by ``compare --trace-...``, a
    scenario's runs by a golden case (``trace:``). Only the file's first bytes are read."""
    if not os.path.isfile(path):  # (a folder, a FIFO, standard input: read as they are)
        return
    try:
        with open(path, "rb") as handle:
            head = handle.read(256)
    except OSError:
        return  # (named where the file is read)
    body = head.removeprefix(b"\xef\xbb\xbf").lstrip()
    if body.startswith(b"{") and body[1:].lstrip().startswith(b'"resourceSpans"'):
        raise InputError(
            f"{side} {path}: an OpenTelemetry trace (OTLP JSON: resourceSpans), not records: "
            f"score the run a trace holds with jsonmatch compare TRACE EXPECTED --trace-id, "
            f"--trace-root or --trace-attribute, or the runs of a scenario as a golden case "
            f"(actual_file with trace:, docs/agents.md)"
        )


def _jobs_of(args: argparse.Namespace) -> int:
    """The worker processes the run starts: ``-j N`` as given, ``auto`` decided by the
    inputs' size and the CPUs (parallel.py, ``auto_jobs``)."""
    if args.jobs != AUTO:
        return int(args.jobs)
    return auto_jobs((args.gold, args.pred), alone=worker_setup(args) is None)


def _worker_setup(
    args: argparse.Namespace,
) -> tuple[Callable[..., None], tuple[object, ...]] | None:
    """What a spawned worker loads first: the command's ``--plugins`` and ``--judge``."""
    loaded = worker_setup(args)
    return (load_in_worker, loaded) if loaded is not None else None
