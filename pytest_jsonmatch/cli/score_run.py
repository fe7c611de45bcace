"""A ``jsonmatch score`` run once its processes are started (cli/score.py): the options
checked, the records read, scored and merged, the gates judged and the output written.

With ``-j N`` this module is imported after the workers are forked (cli/score.py), which
meanwhile load what scoring a chunk needs (parallel.py, ``Workers``).

Two JSONL files paired by position are cut into spans (dataset/spans.py: where every 256th
record starts), each read, decoded, paired and scored by the process that takes it, here or
a worker (parallel.py; dataset/chunk_work.py). Other inputs (folders, arrays, pairing by id) are
read and paired here (record_pairs.py) and sent in chunks. Each chunk's aggregates are merged
into the run's; cases and comparisons go to spools as they come (held in memory up to a bound,
then in temporary files: reporting/run_model/spool.py), never all into memory; the report,
the gates and the renderings are made from the merged aggregates and the spools at the end. When the schema must first be inferred from every gold record, it is guessed
from the first chunk's and confirmed by every chunk scored (``_Run``); should a later chunk
show more, the chunks are read twice: their gold records sketched, then scored.

Which way the records go is decided in one place, ``_Run.scored``: should the spans refuse the
files anywhere (``SpanError``: a line that is not JSON, files of different lengths), the run
starts again on the streaming reader, which meets the error where it always did and names
it: file, line and message do not depend on the path taken, nor on -j N.
"""

from __future__ import annotations

import argparse
import contextlib
import itertools
import os
import sys
from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import TYPE_CHECKING, TypeAlias

from ..dataset import GoldError, SchemaSketch, ScoreSettings
from ..dataset.chunk_work import SCORED_TOGETHER, Keeps, score_part, sketch_part
from ..dataset.spans import Span, SpanError, is_jsonl, spans
from ..engine.core.errors import JsonMatchError
from ..reporting.render.formats import FORMATS
from ..reporting.run_model.aggregate import Aggregates
from ..reporting.run_model.spool import ComparisonSpool, Spool, write_streamed_report
from ..reporting.verdicts.gates import decision_of
from ..reporting.verdicts.report import added_judge, report_head, run_info
from .input_error import InputError
from .options import checked_configuration, gates_of, metric_and_options
from .output import emit, repository_of
from .parallel import Workers
from .progress import Progress

if TYPE_CHECKING:
    from ..dataset.chunk_work import Chunk
    from ..reporting.run_model.aggregate import Summary
    from ..reporting.run_model.report_types import CaseDict, JudgeDict, Report, ReportHead
    from ..reporting.verdicts.baseline import Baseline, BaselineComparison, CaseScores
    from ..reporting.verdicts.gates import GateDecision
    from .record_pairs import Leftovers


def scored_run(args: argparse.Namespace, workers: Workers) -> int:
    """The run ``args`` ask for, its exit status (0 passed, 1 a gate failed); ``workers``
    entered already (forked ones load what scoring needs meanwhile)."""
    metric, options = metric_and_options(args)
    threshold = 1.0 if args.threshold is None else args.threshold
    gates = gates_of(args, "score")
    cfg = checked_configuration(args, metric, options)
    baseline = _baseline(args)
    # every case's line where a report lists them all; else only those the summary names
    printed = FORMATS[args.format]  # what it shows of the run (reporting/render/formats.py)
    keeps = Keeps(
        all_cases=bool(args.report) or printed.all_cases,
        comparisons=bool(args.report) or printed.comparisons,
        case_scores=baseline is not None,
    )
    workers.start()  # (spawned workers: started once the options are known to be good)
    with contextlib.ExitStack() as stack:
        scoring = _Run(
            workers,
            args,
            metric,
            threshold,
            options,
            inferred=cfg.schema_driven and "schema" not in options,
            keeps=keeps,
        )
        cases, comparisons, total, now = scoring.scored()
        workers.release()  # (the workers exit as the output is written)
        stack.enter_context(cases)
        if comparisons is not None:
            stack.enter_context(comparisons)
        summary = total.summary()
        against = None
        if baseline is not None and summary.count:
            from ..reporting.verdicts.baseline import compare

            against = compare(now, baseline)
        decision = decision_of(summary, gates, against)
        warning = scoring.leftovers.warning(args.pred) if scoring.leftovers else None
        if warning:
            decision.warnings.insert(0, warning)
        _reported(args, _head(args, summary, decision, against, scoring), cases, comparisons)
    return 0 if decision.passed else 1


def _baseline(args: argparse.Namespace) -> Baseline | None:
    """The saved report ``--baseline`` names, loaded (None: no baseline asked for)."""
    if not args.baseline:
        return None
    from ..reporting.verdicts.baseline import BaselineError, load_baseline  # (only with a baseline)

    try:
        return load_baseline(args.baseline)
    except BaselineError as exc:
        raise InputError(str(exc)) from None


def _head(
    args: argparse.Namespace,
    summary: Summary,
    decision: GateDecision,
    against: BaselineComparison | None,
    scoring: _Run,
) -> ReportHead:
    """The report's head: the summary, the gates' decision, the baseline's comparison, the
    run's provenance and what the LLM judge did (every request, a scoring redone too)."""
    head = report_head(
        summary,
        decision,
        against,
        run_info(["jsonmatch", *recorded_command(args)], repository_of(args.format, args.report)),
    )
    if scoring.judged is not None:
        head["run"]["judge"] = scoring.judged
    return head


def _reported(
    args: argparse.Namespace,
    head: ReportHead,
    cases: Spool[CaseDict],
    comparisons: ComparisonSpool | None,
) -> None:
    """The run written: the JSON report file (``--report``) and the chosen format.

    The chosen format is given what it shows of a run (``FORMATS``' ``comparisons``), not
    what ``--report`` kept besides: the text summary of a run with a report is the one it
    prints without one, and it reads none of the comparisons kept for the report (read
    back field by field, 10,000 invoices' cost four times their scoring)."""
    if args.report:
        try:
            write_streamed_report(args.report, head, cases, comparisons)
        except OSError as exc:
            raise InputError(f"{args.report}: cannot write: {exc.strerror or exc}") from None
    if not FORMATS[args.format].comparisons:
        comparisons = None
    report: Report = {**head, "cases": cases, "comparisons": comparisons or []}
    emit(
        report,
        args.format,
        args.output,
        verbose=args.verbose,
        color_choice=args.color,
        spools=(cases, comparisons),
    )
    if args.report:
        print(f"report written to {args.report}", file=sys.stderr)


def recorded_command(args: argparse.Namespace) -> list[str]:
    """The command line the report records, without ``-j N``: the report is the same for
    any N, to the byte, so it does not say which N made it."""
    argv = list(getattr(args, "argv", sys.argv[1:]))
    out: list[str] = []
    skip = False
    for i, token in enumerate(argv):
        if skip:
            skip = False
        elif token == "--":
            return out + argv[i:]
        elif token == "-j" or _is_jobs_flag(token):
            skip = True  # the flag, then its value
        elif not (token.startswith("-j") or _is_jobs_flag(token.split("=", 1)[0])):
            out.append(token)
    return out


def _is_jobs_flag(token: str) -> bool:
    """``--jobs`` or a prefix of it argparse takes for it (``--jo``); no other option of
    ``score`` starts with ``--j``."""
    return len(token) >= 3 and "--jobs".startswith(token)


class _Replayed:
    """A source of spans read as the scan finds them, and again from what was kept (a few
    numbers a span): each call reads the spans kept, then goes on with the scan, so a read
    that stopped part way leaves the next one whole."""

    def __init__(self, found: Iterator[Span]) -> None:
        self.found, self.kept = found, list[Span]()

    def __call__(self) -> Iterator[Span]:
        at = 0
        while True:
            if at == len(self.kept):
                span = next(self.found, None)
                if span is None:
                    return
                self.kept.append(span)
            yield self.kept[at]
            at += 1


Scored: TypeAlias = (
    "tuple[Spool[CaseDict], ComparisonSpool | None, Aggregates, dict[str, CaseScores]]"
)


class _Run:
    """How a run scores its chunks: the settings it was given, its workers and its folder.

    A schema inferred from every gold record is first guessed from the first chunk's, and
    the chunks scored with it, each sketching its gold records as it decodes them: where the
    records scored so far would infer another schema (a field no record of the first chunk
    had), the run stops, sketches every chunk, and scores them all again with the schema all
    of them give. Either way the scores are those of that schema; a dataset whose first
    chunk shows its whole shape, the usual one, is read once instead of twice."""

    def __init__(
        self,
        workers: Workers,
        args: argparse.Namespace,
        metric: str,
        threshold: float,
        options: Mapping[str, object],
        inferred: bool,
        keeps: Keeps,
    ) -> None:
        self.workers, self.args = workers, args
        self.metric, self.threshold, self.options = metric, threshold, options
        self.inferred = inferred
        self.keeps = keeps
        # what the LLM judge did over the run, added up from the parts (None: nothing judged)
        self.judged: JudgeDict | None = None
        # predictions the streaming reader paired with no gold record (None: not read that way)
        self.leftovers: Leftovers | None = None

    def scored(self) -> Scored:
        """The run's records scored: the spools of cases and comparisons, the aggregates and
        each case's scores (for a baseline). Every route is chosen here and nowhere else:

        - where both files are JSONL paired by position, spans that any process reads on
          its own; should the spans refuse the files (``SpanError``: a line that is not
          JSON, files of different lengths, text that is not UTF-8) or meet bad input (a
          ``JsonMatchError``, which a span cannot place in its file), the streaming reader,
          which meets the same records in the same order and names what is wrong (file,
          line, message), whatever -j N; a worker that stopped (``WorkerStopped``) and any
          other exception are raised as they are;
        - otherwise the streaming reader, its records sent in chunks;
        - either way, with a schema to infer from every gold record, :meth:`_inferred`."""
        args = self.args
        count = _count(args.gold) if sys.stderr.isatty() else None
        if args.id_field is None and is_jsonl(args.gold) and is_jsonl(args.pred):
            found = spans(args.gold, args.pred, SCORED_TOGETHER, args.gold_field, args.pred_field)
            sized = self.workers.spans(found, _size(args.gold))
            try:
                return self._inferred(_Replayed(sized), count)
            except (SpanError, JsonMatchError) as exc:
                if self.workers.stopped(exc):  # (no error of the input: the run stops)
                    raise
                # the streaming reader, below, names what the spans refused or met
        # the streaming reader (cli/datasets.py, cli/record_pairs.py) is loaded where its
        # route starts: two JSONL files paired by position, the usual run, never need it
        from .record_pairs import Leftovers, PairingSettings, pairs

        pairing = PairingSettings(
            args.gold, args.pred, args.id_field, args.gold_field, args.pred_field
        )
        leftovers = self.leftovers = Leftovers()
        return self._inferred(
            lambda: self.workers.chunks(pairs(pairing, leftovers, undecoded=self.workers.parallel)),
            count,
        )

    def _inferred(self, source: Callable[[], Iterable[Chunk]], count: int | None) -> Scored:
        """The chunks of ``source()`` scored with the options given, or with a schema
        inferred from every gold record: first guessed from the first chunk's, and where a
        later chunk would infer another (``_scored`` gives None), every chunk sketched and
        scored again with the schema all of them give. The spools are removed should it
        fail."""
        if not self.inferred:
            scored = self._scored(source(), count, dict(self.options), None)
            assert scored is not None  # (only a guess goes unconfirmed)
            return scored
        chunks = iter(source())
        first = next(chunks, None)
        if first is not None:
            guessed = sketch_part(first, self.metric, dict(self.options))
            try:
                scored = self._scored(
                    itertools.chain([first], chunks),
                    count,
                    self._with_schema(guessed.schema()),
                    guessed,
                )
            finally:
                close = getattr(chunks, "close", None)
                if close is not None:
                    close()
            if scored is not None:
                return scored
        sketches = self.workers.map(sketch_part, source(), self.metric, dict(self.options))
        schema = SchemaSketch.merged(sketches).schema()
        scored = self._scored(source(), count, self._with_schema(schema), None)
        assert scored is not None
        return scored

    def _with_schema(self, schema: Mapping[str, object]) -> dict[str, object]:
        # a schema inferred from gold is no answer's contract: nothing to check answers by
        return {**self.options, "schema": schema, "conformance": False}

    def _judged(self, figures: JudgeDict | None) -> None:
        self.judged = added_judge(self.judged, figures)

    def _scored(
        self,
        chunks: Iterable[Chunk],
        count: int | None,
        options: Mapping[str, object],
        guessed: SchemaSketch | None,
    ) -> Scored | None:
        """The chunks scored with ``options``; with a schema ``guessed`` (from this sketch),
        None as soon as the records scored so far would infer another one (its spools
        removed, the chunks after it not read)."""
        args = self.args
        settings = ScoreSettings(
            self.metric,
            self.threshold,
            options,
            args.values,
            args.group_by,
            keep_fields=self.keeps.case_scores,
            invalid_fails=args.invalid_fails,
        )
        keeps = self.keeps.replace(guess=guessed)
        with contextlib.ExitStack() as spools:
            cases: Spool[CaseDict] = spools.enter_context(Spool())
            comparisons: ComparisonSpool | None = (
                spools.enter_context(ComparisonSpool()) if keeps.comparisons else None
            )
            scored = _score(
                chunks, count, settings, self.workers, cases, comparisons, keeps, self._judged
            )
            if scored is None:
                return None  # (the spools closed and removed on the way out)
            spools.pop_all()  # kept: the caller closes them
        total, now = scored
        return cases, comparisons, total, now


def _size(path: str) -> int:
    """The bytes of ``path`` (0 where it cannot be read: the reader names why)."""
    try:
        return os.path.getsize(path)
    except OSError:
        return 0


def _count(gold: str) -> int | None:
    """How many records ``gold`` holds, for the progress bar shown on a terminal."""
    from .datasets import count_records  # (only for a progress bar)

    return count_records(gold)


def _score(
    source: Iterable[Chunk],
    count: int | None,
    settings: ScoreSettings,
    workers: Workers,
    cases: Spool[CaseDict],
    comparisons: ComparisonSpool | None,
    keeps: Keeps,
    judged: Callable[[JudgeDict | None], None],
) -> tuple[Aggregates, dict[str, CaseScores]] | None:
    """Score the chunks of ``source`` (``count`` pairs, when known, for the progress bar);
    with a guess (``keeps.guess``), check it against the sketch of each chunk's gold records
    that would change it (``_Run``): the guess's sketch merged with those infers the schema
    of all the records (dataset/fitting.py); None as soon as it infers another."""
    total = Aggregates(settings.group_by)
    now: dict[str, CaseScores] = {}
    progress = Progress(count)
    guess = keeps.guess.schema() if keeps.guess is not None else None
    seen = SchemaSketch()
    if keeps.guess is not None:
        seen.merge(keeps.guess)  # (a copy: the guess itself goes on to the chunks)
    try:
        with contextlib.closing(workers.map(score_part, source, settings, keeps)) as parts:
            for part in parts:
                judged(part.judge)  # (first: the requests of a part that ends the run count)
                if part.sketch is not None:
                    seen.merge(part.sketch)
                    # (an inferred schema lists fields in the order the records first
                    # show them, and the first chunk comes first: equal is equal in order)
                    if seen.schema() != guess:
                        return None
                total.merge(part.aggregates)
                cases.append_lines(part.cases, part.case_lines)
                if comparisons is not None:
                    comparisons.append_part(part.comparisons, part.count, part.heads)
                now.update(part.case_scores)
                progress.advance(part.count)
    except GoldError as exc:
        raise InputError(str(exc)) from None
    finally:
        progress.close()
    return total, now
