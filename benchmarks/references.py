"""The references section: pytest-jsonmatch against the three implementations it reproduces.

    UiPath JsonSimilarityEvaluator   vs  match_json(..., metric="json_similarity")
    structeval StructEvaluator       vs  match_json(..., metric="structural_f1")
    struct-extract-eval evaluate     vs  match_json(..., metric="field_f1"), evaluate_records,
                                         jsonmatch score (ordered, and Hungarian alignment)

The references are not dependencies of the project: they are measured only when they are
installed beside it, in the same interpreter. A row whose reference is missing still
appears, as INFO without a time, its note naming the package.

Every row times both sides in the same process, in adjacent runs taken in ABBA order (the
reference first in even runs, ours first in odd ones), and its ratio is the median of the
per-run ratios (our time / the reference's time: below 1x, pytest-jsonmatch is faster);
the note gives the spread of those ratios and whether both sides gave the same scores.
"""

from __future__ import annotations

import argparse
import asyncio
import copy
import gc
import importlib.metadata
import json
import os
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import corpus
import invoices

SECTION = "references"
PAIR_TARGET = 0.10  # per pair, on the corpus: 10x faster than the reference (issue 99)
VARIED_TARGET = 1 / 6  # per pair, varied small pairs each scored once: 6x (issue 99)
RECORDS_TARGET = 1 / 6  # evaluate_records on records in memory: 6x faster (issue 99)
SAME = 1e-9  # scores this close are the same score

# The import name of each reference, and the distribution its version is read from.
EXTRACT_EVAL = ("struct_extract_eval", "struct-extract-eval")
STRUCTEVAL = ("structeval", "structeval")
UIPATH = ("uipath", "uipath")


def not_installed_note(package: str) -> str:
    return (
        f"{package} not installed: a reference implementation, installed beside the "
        f"project to measure this row"
    )


def _installed(package: str) -> bool:
    """Whether the reference imports (a broken install counts as missing)."""
    try:
        __import__(package)
    except ImportError:
        return False
    return True


def _label(reference: tuple[str, str], what: str) -> str:
    """The baseline column: the reference's name, its version when installed, and its call."""
    _, dist = reference
    try:
        return f"{dist} {importlib.metadata.version(dist)} {what}"
    except importlib.metadata.PackageNotFoundError:
        return f"{dist} {what}"


def _fmt_ratio(r: float) -> str:
    return f"{r:.2f}x" if r >= 0.1 else f"{r:.2g}x"


def _timed(fn: Callable[[], Any], clock: Callable[[], float] = time.perf_counter) -> float:
    """One call of ``fn`` on ``clock`` (wall time; ``time.process_time`` for CPU time)."""
    gc.collect()
    t0 = clock()
    fn()
    return clock() - t0


def _abba(
    ours: Callable[[], Any],
    theirs: Callable[[], Any],
    runs: int,
    clock: Callable[[], float] = time.perf_counter,
) -> tuple[list[float], list[float]]:
    """(our times, the reference's times) on ``clock``, one of each per run, the reference
    first in even runs and ours first in odd ones: neither side always goes first, and each
    ratio is of two adjacent timings (this machine's speed shifts for seconds at a time)."""
    mine: list[float] = []
    refs: list[float] = []
    for k in range(runs):
        if k % 2 == 0:
            refs.append(_timed(theirs, clock))
            mine.append(_timed(ours, clock))
        else:
            mine.append(_timed(ours, clock))
            refs.append(_timed(theirs, clock))
    return mine, refs


# -- the row -------------------------------------------------------------------------------


def _key_paths(value: Any, path: tuple = ()) -> set[tuple]:
    """The path of every value inside ``value``, array positions included: two values with
    the same set have the same keys everywhere (none missing from one side, none added)."""
    if isinstance(value, dict):
        return set().union(*(_key_paths(v, (*path, k)) for k, v in value.items()), {path})
    if isinstance(value, list):
        return set().union(*(_key_paths(v, (*path, i)) for i, v in enumerate(value)), {path})
    return {path}


def _score_note(
    ours: list[float], theirs: list[float], pairs: list[tuple[Any, Any]] | None = None
) -> str:
    """Whether both sides scored alike: the same mean (to 1e-9), else on how many pairs or
    records they differ. For pairs, also how many of the differing ones have the same keys
    on both sides: structeval scores a key missing from one side otherwise than we do (a
    documented difference), and this tells such pairs from any other disagreement."""
    mean_ours, mean_theirs = statistics.fmean(ours), statistics.fmean(theirs)
    if abs(mean_ours - mean_theirs) <= SAME:
        return f"same scores, mean {mean_ours:.4f}"
    differ = [i for i, (x, y) in enumerate(zip(ours, theirs)) if abs(x - y) > SAME]
    unit = "pairs" if pairs is not None else "records"
    note = (
        f"scores differ on {len(differ)} of {len(ours)} {unit}, mean {mean_ours:.4f} "
        f"against the reference's {mean_theirs:.4f}"
    )
    if pairs is not None and differ:
        same_keys = sum(_key_paths(pairs[i][0]) == _key_paths(pairs[i][1]) for i in differ)
        note += (
            ", every one with a key on one side only"
            if same_keys == 0
            else f", {same_keys} of them with the same keys on both sides"
        )
    return note


def _row(
    make_row: Callable[..., Any],
    case: str,
    baseline: str,
    mine: list[float],
    refs: list[float],
    pairs: int | None,
    target: float | None,
    note: str,
) -> Any:
    """A measured row: the median times (per pair when the timings are of ``pairs`` pairs,
    else of the whole dataset), the median of the per-run ratios, and their spread; INFO
    where there is no ``target``."""
    ratios = [m / r for m, r in zip(mine, refs)]
    ratio = statistics.median(ratios)
    runs = f"{len(ratios)} run{'s' if len(ratios) > 1 else ''}"
    note = (
        f"{'per pair; ' if pairs else ''}ratios {_fmt_ratio(min(ratios))}-"
        f"{_fmt_ratio(max(ratios))} over {runs}; {note}"
    )
    per = pairs or 1
    return make_row(
        SECTION,
        case,
        statistics.median(mine) / per,
        baseline,
        statistics.median(refs) / per,
        ratio,
        f"<= {target:.2f}x" if target is not None else "-",
        ("PASS" if ratio <= target else "MISS") if target is not None else "INFO",
        len(ratios),
        note,
    )


def _missing_row(make_row: Callable[..., Any], case: str, baseline: str, package: str) -> Any:
    return make_row(
        SECTION, case, None, baseline, None, None, "-", "INFO", 0, not_installed_note(package)
    )


# -- 1. one pair at a time, on the metric corpus -------------------------------------------


def _pair_row(
    make_row: Callable[..., Any],
    case: str,
    baseline: str,
    pairs: list[tuple[Any, Any]],
    ours: Callable[[Any, Any], float],
    theirs: Callable[[Any, Any, Any], float],
    prepare: Callable[[Any, Any], Any],
    runs: int,
    about: str = "",
) -> Any:
    """``ours(actual, expected)`` against ``theirs(actual, expected, prepared)`` on every
    pair, ``prepare(actual, expected)`` run beforehand (not timed). An untimed first pass
    scores every pair on both sides (and warms both up); the pairs the reference raises on
    are left out of both timings. ``about`` ends the note: how the reference was called."""
    kept: list[tuple[Any, Any, Any]] = []
    our_scores: list[float] = []
    their_scores: list[float] = []
    raised = 0
    for actual, expected in pairs:
        prepared = prepare(actual, expected)
        try:
            their_scores.append(theirs(actual, expected, prepared))
        except Exception:  # noqa: BLE001 - a reference's failure is counted, not fatal
            raised += 1
            continue
        our_scores.append(ours(actual, expected))
        kept.append((actual, expected, prepared))
    if not kept:
        return make_row(
            SECTION,
            case,
            None,
            baseline,
            None,
            None,
            "-",
            "MISS",
            0,
            f"the reference raised on all {len(pairs)} pairs",
        )

    def run_ours() -> None:
        for actual, expected, _ in kept:
            ours(actual, expected)

    def run_theirs() -> None:
        for actual, expected, prepared in kept:
            theirs(actual, expected, prepared)

    mine, refs = _abba(run_ours, run_theirs, runs)
    note = _score_note(our_scores, their_scores, [(a, e) for a, e, _ in kept])
    if raised:
        note += f"; the reference raised on {raised} pairs, left out of both timings"
    if about:
        note += f"; {about}"
    return _row(make_row, case, baseline, mine, refs, len(kept), PAIR_TARGET, note)


def _uipath_scorer() -> tuple[Callable[[Any, Any, Any], float], Callable[[], None]]:
    """(score, close): UiPath's JsonSimilarityEvaluator as its users call it, the evaluator
    built once (not timed), then per pair a WorkloadExecution holding the actual output,
    criteria holding the expected one, and its coroutine ``evaluate`` run to the end on one
    reused event loop (which ``close`` closes). Its decorator turns an exception into an
    ErrorEvaluationResult: that is raised again here, so that the pair counts as one the
    reference raised on."""
    from uipath.eval.evaluators import JsonSimilarityEvaluator
    from uipath.eval.evaluators.output_evaluator import OutputEvaluationCriteria
    from uipath.eval.models import WorkloadExecution
    from uipath.eval.models.models import ErrorEvaluationResult

    evaluator = JsonSimilarityEvaluator(id="json-similarity", evaluatorConfig={})
    loop = asyncio.new_event_loop()

    def score(actual: Any, expected: Any, _: Any) -> float:
        result = loop.run_until_complete(
            evaluator.evaluate(
                WorkloadExecution(agent_input=None, workload_output=actual, workload_trace=[]),
                OutputEvaluationCriteria(expected_output=expected),
            )
        )
        if isinstance(result, ErrorEvaluationResult):
            raise RuntimeError(result.details)
        return result.score

    return score, loop.close


def _hungarian(schema: dict[str, Any]) -> dict[str, Any]:
    """A copy of an annotated extract-eval schema with Hungarian alignment on every array."""
    schema = copy.deepcopy(schema)

    def walk(node: Any) -> None:
        if not isinstance(node, dict):
            return
        if node.get("type") == "array":
            node["x-eval-align"] = {"ordered": False, "match_by": "hungarian"}
        for child in (node.get("properties") or {}).values():
            walk(child)
        walk(node.get("items"))

    walk(schema)
    return schema


def _extract_eval_schema(gold: list[Any]) -> dict[str, Any]:
    """extract-eval's schema, as its users make one: inferred from the gold records, then
    annotated with its default comparators."""
    import struct_extract_eval

    schema = struct_extract_eval.infer_schema(gold)
    struct_extract_eval.annotate_xeval(schema)
    return schema


def pair_rows(args: argparse.Namespace, make_row: Callable[..., Any]) -> list[Any]:
    from pytest_jsonmatch import match_json

    pairs = corpus.corpus(args.ref_pairs)
    what = f"{len(pairs)} corpus pairs"
    rows = []

    def nothing(actual: Any, expected: Any) -> None:
        """No preparation: the reference takes the pair as it is."""

    label = _label(UIPATH, "JsonSimilarityEvaluator")
    case = f"json_similarity, {what}"
    if _installed(UIPATH[0]):
        score, close = _uipath_scorer()
        rows.append(
            _pair_row(
                make_row,
                case,
                label,
                pairs,
                lambda a, e: match_json(a, e, metric="json_similarity").score,
                score,
                nothing,
                args.runs,
                "its evaluate coroutine run on one reused event loop",
            )
        )
        close()
    else:
        rows.append(_missing_row(make_row, case, label, UIPATH[0]))

    label = _label(STRUCTEVAL, "StructEvaluator.run")
    case = f"structural_f1, {what}"
    if _installed(STRUCTEVAL[0]):
        from structeval import StructEvaluator

        # StructEvaluator.run is its documented entry point (its command line calls it);
        # the F1 is read from the result's summed metrics, as its reports read it.
        rows.append(
            _pair_row(
                make_row,
                case,
                label,
                pairs,
                lambda a, e: match_json(a, e, metric="structural_f1").score,
                lambda a, e, _: StructEvaluator.run(a, e).sum_metrics.f_score(1.0),
                nothing,
                args.runs,
            )
        )
    else:
        rows.append(_missing_row(make_row, case, label, STRUCTEVAL[0]))

    # extract-eval's evaluate needs a schema: one is inferred and annotated per pair, before
    # the timing. What its evaluate does inside (parsing the schema into its tree, a copy of
    # it) stays timed: it is what a user scoring one pair pays.
    for align, suffix in ((None, ""), ("hungarian", " align=hungarian")):
        label = _label(EXTRACT_EVAL, "evaluate" + (", hungarian" if align else ""))
        case = f"field_f1{suffix}, {what}"
        if not _installed(EXTRACT_EVAL[0]):
            rows.append(_missing_row(make_row, case, label, EXTRACT_EVAL[0]))
            continue
        from struct_extract_eval import evaluate

        options = {"align": align} if align else {}

        def prepare(actual: Any, expected: Any, align: str | None = align) -> dict:
            schema = _extract_eval_schema([expected])
            return _hungarian(schema) if align else schema

        rows.append(
            _pair_row(
                make_row,
                case,
                label,
                pairs,
                lambda a, e, options=options: match_json(a, e, metric="field_f1", **options).score,
                lambda a, e, schema: evaluate([e], [a], schema=schema).mean_f1,
                prepare,
                args.runs,
                "extract-eval's schema inferred and annotated per pair "
                "beforehand, not timed; ours infers its own in the timing",
            )
        )
    return rows


# -- 2. a dataset of invoices --------------------------------------------------------------


def _command_mean(gold: Path, pred: Path, options: list[str]) -> float:
    """The mean score ``jsonmatch score`` reports (one untimed run, its JSON output)."""
    from pytest_jsonmatch.cli import main

    with tempfile.TemporaryDirectory(prefix="jm-bench-refs-out-") as tmp:
        out = Path(tmp) / "score.json"
        status = main(["score", str(gold), str(pred), *options, "--format", "json", "-o", str(out)])
        if status == 2:
            raise RuntimeError(f"jsonmatch score failed (exit status 2) on {gold.name}")
        return json.loads(out.read_text())["overall"]


def dataset_rows(args: argparse.Namespace, make_row: Callable[..., Any]) -> list[Any]:
    n, runs = args.ref_records, args.ref_runs
    what = f"{n:,} invoices"
    # The command's rows call its main() here, with one job: the path's own cost, beside
    # evaluate_records'. (-j auto would be one job here anyway: numpy's BLAS threads make this
    # process one that does not fork, and its inputs are too small to spawn workers for.)
    # Issue 78's cell for the command, a whole process with -j auto as a user runs it, is the
    # startup section's (command_startup.py); these rows are INFO.
    cases = [  # (case, what ours is, alignment)
        (f"jsonmatch score -j 1 (in process), {what}", "command", None),
        (f"jsonmatch score -j 1 --format json -o FILE (in process), {what}", "command-json", None),
        (
            f"jsonmatch score -j 1 --option align=hungarian (in process), {what}",
            "command",
            "hungarian",
        ),
        (
            f"jsonmatch score -j 1 --format json -o FILE --option align=hungarian "
            f"(in process), {what}",
            "command-json",
            "hungarian",
        ),
        (f"evaluate_records field_f1, {what}", "records", None),
        (f"evaluate_records field_f1 align=hungarian, {what}", "records", "hungarian"),
    ]
    labels = {
        None: _label(EXTRACT_EVAL, "evaluate"),
        "hungarian": _label(EXTRACT_EVAL, "evaluate, hungarian"),
    }
    if not _installed(EXTRACT_EVAL[0]):
        return [
            _missing_row(make_row, case, labels[align], EXTRACT_EVAL[0]) for case, _, align in cases
        ]

    import struct_extract_eval

    from pytest_jsonmatch import evaluate_records
    from pytest_jsonmatch.cli import main

    gold, pred = invoices.records(n)
    # extract-eval's schema is made once, before any timing, from all the gold records; ours
    # is inferred inside every timed run (evaluate_records and jsonmatch score do it).
    ordered = _extract_eval_schema(gold)
    schemas = {None: ordered, "hungarian": _hungarian(ordered)}

    def theirs(align: str | None) -> Any:
        return struct_extract_eval.evaluate(gold, pred, schema=schemas[align])

    # each side's scores, from untimed runs that also warm both up
    their_scores = {align: [r.f1 for r in theirs(align).records] for align in schemas}
    rows = []
    with tempfile.TemporaryDirectory(prefix="jm-bench-refs-") as tmp:
        gold_path, pred_path = invoices.write_jsonl(Path(tmp), n)  # written once, read per run
        for case, kind, align in cases:
            options = {"align": align} if align else {}
            if kind.startswith("command"):
                extra = ["--option", f"align={align}"] if align else []
                out = (
                    ["--format", "json", "-o", str(Path(tmp) / "score.json")]
                    if kind == "command-json"
                    else ["-o", os.devnull]
                )
                argv = ["score", str(gold_path), str(pred_path), "-j", "1", *extra, *out]

                def ours(argv: list[str] = argv) -> None:
                    if main(argv) == 2:
                        raise RuntimeError("jsonmatch score failed (exit status 2)")

                mean = _command_mean(gold_path, pred_path, extra)
                same = statistics.fmean(their_scores[align])
                check = (
                    f"same mean score {mean:.4f}"
                    if abs(mean - same) <= SAME
                    else f"mean score {mean:.4f} against the reference's {same:.4f}"
                )
                written = (
                    "its JSON report to a file"
                    if kind == "command-json"
                    else f"its text report (to {os.devnull})"
                )
                note = (
                    f"{check}; ours reads both JSONL files, infers its schema and writes "
                    f"{written} in the timing; extract-eval's "
                    f"records are in memory, its schema inferred and annotated "
                    f"beforehand, not timed"
                )
                target = None
            else:

                def ours(options: dict = options) -> None:
                    evaluate_records(gold, pred, "field_f1", **options)

                scores = [r.f1 for r in evaluate_records(gold, pred, "field_f1", **options).records]
                note = (
                    f"{_score_note(scores, their_scores[align])}; ours infers its schema "
                    f"in the timing; extract-eval's schema inferred and annotated "
                    f"beforehand, not timed"
                )
                target = RECORDS_TARGET
            mine, refs = _abba(ours, lambda align=align: theirs(align), runs)
            rows.append(_row(make_row, case, labels[align], mine, refs, None, target, note))
    return rows


def bench(args: argparse.Namespace, make_row: Callable[..., Any]) -> list[Any]:
    """Every row of the section; ``make_row`` is run.py's Row: the corpus pairs, the varied
    small pairs (benchmarks/varied_pairs.py), the invoices."""
    import varied_pairs

    return (
        pair_rows(args, make_row) + varied_pairs.rows(args, make_row) + dataset_rows(args, make_row)
    )
