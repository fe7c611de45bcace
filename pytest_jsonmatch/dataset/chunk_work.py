"""A chunk of a dataset made into what a run keeps of it, wherever the chunk is handled: in
the reading process, or in a worker (``jsonmatch score -j N``).

Two steps, each a function of a chunk alone, so that any process can take any chunk:

- :func:`sketch_part`: the schema sketch of the chunk's gold records, for a schema-driven
  metric whose schema is inferred from the whole dataset (the run merges the parts'
  sketches in order: exactly the sketch of all records, tests/dataset/test_sketch.py);
- :func:`score_part`: the chunk scored (:func:`~pytest_jsonmatch.dataset.scoring.score_chunk`)
  and made into report lines, its aggregates, and, for a baseline, each case's scores.

A chunk arrives as a list of pairs, :class:`Packed` (pickled once by the reading process, for
a worker), or a :class:`~pytest_jsonmatch.dataset.spans.Span` of two JSONL files, which the
process handling it reads itself (only its gold records, to sketch). Both steps decode the
records a reader left :class:`~pytest_jsonmatch.dataset.undecoded.Undecoded` in order (a
pair's gold record, then its prediction) and handle the pairs before the first line that is
not JSON before they raise its error, as one process reading the files meets them.

Pickle is safe here: a Packed chunk is made by the run's own process from the pairs it read,
and unpickled by that process or its workers only.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, TypeVar, cast

from ..engine.comparing.registry import REGISTRY
from ..engine.core.depth import SHALLOW
from ..engine.core.errors import JsonMatchError
from ..engine.core.slotted import HashedSlotted, Slotted
from ..engine.metrics import metric_named
from ..engine.metrics.base import configure
from ..engine.results.field_results import MatchResult
from ..reporting.run_model.aggregate import Aggregates, listed_in_summary
from ..reporting.run_model.comparison_lines import case_line, comparison_line, scored_lines
from ..reporting.run_model.field_rows import Heads, stored_comparison
from ..reporting.run_model.spool import bare, items_text, json_line
from .fitting import fitting
from .scoring import NO_PREDICTION, Pair, comparison_of, score_chunk
from .sketch import SchemaSketch
from .spans import FileRange, Span, span_gold, span_pairs
from .undecoded import RecordError, Undecoded, decoded

if TYPE_CHECKING:
    from ..reporting.run_model.field_rows import Head
    from ..reporting.run_model.report_types import JudgeDict
    from ..reporting.verdicts.baseline import CaseScores
    from .scoring import Scored, ScoreSettings


class _Absent:
    """Stands for NO_PREDICTION on the way to another process: an instance of a class
    pickles as one, where the sentinel itself would arrive as a new ``object()`` and be
    scored as a prediction (``actual must be a mapping ... not object``)."""


class Packed(Slotted):
    """A chunk of pairs, pickled (:func:`packed`)."""

    __slots__ = ("blob",)

    def __init__(
        self,
        blob: bytes,
    ) -> None:
        self.blob = blob


Chunk = Sequence[Pair] | Packed | Span  # a chunk as it travels: listed, pickled once, or a span
T = TypeVar("T")
Pause = Callable[[], None]  # what a step calls between its groups of pairs (parallel.py)

SCORED_TOGETHER = 64  # pairs in one score_records call (one configuration for them)


def packed(chunk: Sequence[Pair]) -> Packed:
    """The chunk pickled, each pair and each of its Undecoded lines as a plain tuple:
    pickle writes a tuple of strings and numbers in C, where each NamedTuple costs it a
    Python call (most of the reading process's time with ``-j N``). A decoded value is
    never a tuple (JSON has none), so a tuple in a pair is an Undecoded line."""
    import pickle  # (here and below: only a run with worker processes pickles)

    rows = [
        (p.case_id, _plain(p.expected), _plain(p.actual), p.where, p.file, p.line, p.missing)
        for p in chunk
    ]
    return Packed(pickle.dumps(rows, protocol=pickle.HIGHEST_PROTOCOL))


def _plain(value: Any) -> Any:
    if type(value) is Undecoded:
        return (value.text, value.where, value.strict)
    return _Absent() if value is NO_PREDICTION else value


def unpacked(chunk: Chunk) -> list[Pair]:
    """The pairs of a chunk, each missing prediction NO_PREDICTION (a span's read and
    decoded, or taken from what was read ahead for it: :func:`hold_pairs`)."""
    global _ahead
    ahead, _ahead = _ahead, None  # (held for the first chunk this process unpacks alone)
    if isinstance(chunk, Span):
        if ahead is not None and ahead[0] == chunk:
            return ahead[1]
        return span_pairs(chunk)
    if isinstance(chunk, Packed):
        import pickle

        rows = pickle.loads(chunk.blob)  # noqa: S301 - the run's own (module docstring)
        return [
            Pair(case_id, _value(expected), _value(actual), where, file, line, missing)
            for case_id, expected, actual, where, file, line, missing in rows
        ]
    return list(chunk)


# A span's pairs read before the span was asked for (:func:`hold_pairs`), or None.
_ahead: tuple[Span, list[Pair]] | None = None


def hold_pairs(span: Span, pairs: list[Pair]) -> None:
    """``pairs`` (``span_pairs(span)``) kept for the first chunk this process unpacks: a
    forked worker reads its first chunk while it waits for the run's settings
    (cli/parallel.py, ``Workers``). Any other chunk first, and they are dropped unused."""
    global _ahead
    _ahead = (span, pairs)


def _value(packed_value: Any) -> Any:
    if type(packed_value) is tuple:
        return Undecoded(*packed_value)
    return NO_PREDICTION if isinstance(packed_value, _Absent) else packed_value


def joined(spans: Sequence[Span]) -> Span:
    """Spans that follow one another in the same files, as one span."""
    first, last = spans[0], spans[-1]
    if len(spans) == 1:
        return first
    return Span(
        FileRange(first.gold.path, first.gold.start, last.gold.end, first.gold.lines),
        FileRange(first.pred.path, first.pred.start, last.pred.end, first.pred.lines),
        first.first,
        sum(span.records for span in spans),
        first.gold_field,
        first.pred_field,
    )


def ready() -> None:
    """A worker's first task: nothing, once this module's imports are done (the command
    line starts its workers with it before reading the files)."""


_last_args: tuple[bytes, tuple[Any, ...]] = (b"", ())


def hold_args(args: bytes, values: tuple[Any, ...]) -> None:
    """``values`` kept as what ``args`` (their pickle) stands for, in this process and in
    the workers forked from it after this call: such a worker takes the very objects this
    process built (a guessed schema, its settings) instead of unpickling its own copies."""
    global _last_args
    _last_args = (args, values)


def call_in_worker(handle: Callable[..., T], chunk: Chunk, args: bytes) -> T:
    """``handle(chunk, *args)`` in a worker, ``args`` pickled once for the whole run: the
    worker unpickles them once too (or holds them from its fork, :func:`hold_args`), so that
    the run's settings are the same object for every chunk it takes (the engine compiles a
    schema once per schema object)."""
    global _last_args
    if args != _last_args[0]:
        import pickle

        _last_args = (args, pickle.loads(args))  # noqa: S301 - the run's own (module docstring)
    return handle(chunk, *_last_args[1])


def _decoded(pairs: Sequence[Pair]) -> tuple[list[Pair], RecordError | None]:
    """``pairs`` with the lines a reader left undecoded decoded, in order, up to the first
    line that is not JSON; and that line's error (None: every line decoded). The pairs
    before it are handled before the error is raised, as where the files are read."""
    out: list[Pair] = []
    for pair in pairs:
        try:
            expected = decoded(pair.expected)
            actual = decoded(pair.actual)
        except RecordError as exc:
            return out, exc
        out.append(
            pair
            if expected is pair.expected and actual is pair.actual
            else pair._replace(expected=expected, actual=actual)
        )
    return out, None


def sketch_part(
    chunk: Chunk, metric: str, options: Mapping[str, Any], pause: Pause | None = None
) -> SchemaSketch:
    """The schema sketch of the chunk's gold records, read as the run's ``ignore`` reads
    them (RecordError naming the record that cannot be read); ``pause`` called after each
    SCORED_TOGETHER records."""
    cfg = configure(metric_named(metric), dict(options))
    skip = cfg.is_skipped if cfg.skip_patterns else None
    sketch = SchemaSketch()
    if isinstance(chunk, Span):  # the gold records alone, without the door where it can tell
        for at, (value, depth) in enumerate(span_gold(chunk), 1):
            if depth <= SHALLOW:
                sketch.add_decoded(value, depth)
            else:
                sketch.add(value, skip)
            if pause is not None and at % SCORED_TOGETHER == 0:
                pause()
        return sketch
    pairs, error = _decoded(unpacked(chunk))
    for start in range(0, len(pairs), SCORED_TOGETHER):
        _sketched(sketch, pairs[start : start + SCORED_TOGETHER], skip)
        if pause is not None:
            pause()
    if error is not None:
        raise error
    return sketch


class Part(Slotted):
    """What a run keeps of a scored chunk: its cases as lines of the report's case list
    (as a spool keeps them: ``spool.items_text``; one text to hand back from a worker and
    to write), its comparisons' lines (when a report keeps them), each table's bare
    (``spool.bare``: the spool writes the table's index in the report at their start),
    each case's scores by case id (when a baseline compares), and the chunk's
    aggregates."""

    __slots__ = (
        "aggregates",
        "count",
        "case_lines",
        "cases",
        "comparisons",
        "heads",
        "case_scores",
        "sketch",
        "judge",
    )

    aggregates: Aggregates
    count: int  # cases
    case_lines: int  # of them, those whose lines are kept (Keeps.all_cases)
    cases: str
    # each table's comparison lines, bare, in the order of ``heads``
    comparisons: list[list[str]]
    # the tables its comparisons' rows refer to, one per group scored together, named by
    # each comparison's "heads" (its index here; the spool makes it the report's)
    heads: list[list[Head]]
    case_scores: dict[str, CaseScores]
    # the sketch of its gold records that would change the guess (Keeps.guess), in order;
    # None: none would
    sketch: SchemaSketch | None
    # what the LLM judge did for its records (None: nothing was judged)
    judge: JudgeDict | None

    def __init__(
        self,
        aggregates: Aggregates,
        count: int = 0,
        case_lines: int = 0,
        cases: str = "",
        comparisons: list[list[str]] | None = None,
        heads: list[list[Head]] | None = None,
        case_scores: dict[str, CaseScores] | None = None,
        sketch: SchemaSketch | None = None,
        judge: JudgeDict | None = None,
    ) -> None:
        self.aggregates, self.count, self.case_lines = aggregates, count, case_lines
        self.cases = cases
        self.comparisons = [] if comparisons is None else comparisons
        self.heads = [] if heads is None else heads
        self.case_scores = {} if case_scores is None else case_scores
        self.sketch, self.judge = sketch, judge


class Keeps(HashedSlotted):
    """What a run keeps of each scored chunk besides its aggregates: the report line of
    every case (a report lists them all) or only of those the text summary names
    (``listed_in_summary``: a run whose only output is that summary), the report line of
    every comparison (a JSON or HTML report, or a report file), and each case's scores (a
    baseline compares them)."""

    __slots__ = ("all_cases", "comparisons", "case_scores", "guess")

    def __init__(
        self,
        all_cases: bool = True,
        comparisons: bool = False,
        case_scores: bool = False,
        # the sketch a guessed schema came from: the chunk's gold records that would change
        # it are sketched too, for the run to check the guess (fitting.py)
        guess: SchemaSketch | None = None,
    ) -> None:
        self.all_cases, self.comparisons = all_cases, comparisons
        self.case_scores, self.guess = case_scores, guess


def score_part(
    chunk: Chunk, settings: ScoreSettings, keeps: Keeps, pause: Pause | None = None
) -> Part:
    """The chunk scored and made into a :class:`Part`, SCORED_TOGETHER pairs at a time, each
    group decoded just before it is scored: a longer chunk (a worker's) meets its errors in
    the order one process meets them, scoring the pairs read before a line that is not JSON
    before that line's error; ``pause`` called after each group. The part carries what the
    LLM judge did for its records (requests, tokens, cost), counted in the process that
    scored them."""
    with REGISTRY.judge_tab() as tab:
        part = _scored_part(chunk, settings, keeps, pause)
    judged = tab.figures()
    part.judge = cast("JudgeDict", judged) if judged is not None else None
    return part


def _scored_part(chunk: Chunk, settings: ScoreSettings, keeps: Keeps, pause: Pause | None) -> Part:
    pairs = unpacked(chunk)
    aggregates = Aggregates(settings.group_by)
    cases: list[str] = []
    part = Part(aggregates, len(pairs))
    skip = None
    sketch, sketched, fits = None, 0, None
    if keeps.guess is not None:
        sketch, fits = SchemaSketch(), fitting(keeps.guess, len(pairs))
        cfg = configure(metric_named(settings.metric), dict(settings.options))
        skip = cfg.is_skipped if cfg.skip_patterns else None
    spanned = isinstance(chunk, Span)  # (a span's pairs come decoded)
    for start in range(0, len(pairs), SCORED_TOGETHER):
        group, error = (
            (pairs[start : start + SCORED_TOGETHER], None)
            if spanned
            else _decoded(pairs[start : start + SCORED_TOGETHER])
        )
        if sketch is not None:  # (what sketch_part does, on the records decoded here)
            sketched += _sketched(sketch, group, skip, fits)
        # a report's lines alone (no baseline) are written from the outcomes: no Comparison
        # is made for a pair that was scored (comparison_lines.scored_lines)
        from_outcomes = keeps.comparisons and not keeps.case_scores
        # the group's own table of field heads (its comparisons' rows refer to it): the
        # same tables whichever chunks the groups travel in (-j N writes -j 1's report);
        # the lines written from outcomes are written as they are scored (score_chunk)
        heads = Heads()
        scored = score_chunk(
            group,
            settings,
            counted=not keeps.comparisons and not settings.keep_fields,
            made=not from_outcomes,
            heads=heads if from_outcomes else None,
        )
        aggregates.merge(scored.aggregates)
        written = scored.lines  # (with each scored pair's case line, where it was written)
        if written is None:
            cases += [
                case_line(case, settings.group_by)
                for case in scored.cases
                if keeps.all_cases or listed_in_summary(case)
            ]
        else:
            cases += [
                text
                if (text := written.get(id(pair), _NONE)[1])
                else case_line(case, settings.group_by)
                for pair, case in zip(group, scored.cases)
                if keeps.all_cases or listed_in_summary(case)
            ]
        if keeps.comparisons:  # each written from the engine's fields, once
            lines = (
                _outcome_lines(group, scored, settings, heads)
                if from_outcomes
                else [
                    bare(
                        comparison_line(c, outcome.fields, settings.values, heads)
                        if isinstance(outcome, MatchResult)
                        else json_line(stored_comparison(c.to_dict(), heads, 0))
                    )
                    for c, outcome in zip(scored.comparisons, scored.outcomes)
                ]
            )
            part.heads.append(heads.heads)
            part.comparisons.append(lines)  # (the spool writes the table's index)
        if keeps.case_scores:  # (a baseline's reader: only a run against one loads it)
            from ..reporting.verdicts.baseline import case_scores

            part.case_scores.update(
                (case.case_id, case_scores(case, [comparison], settings.group_by))
                for comparison, case in zip(scored.comparisons, scored.cases)
            )
        if error is not None:
            raise error
        if pause is not None:
            pause()
    part.case_lines = len(cases)
    part.sketch = sketch if sketched else None
    part.cases = items_text(cases)
    return part


def _outcome_lines(
    pairs: Sequence[Pair], scored: Scored, settings: ScoreSettings, heads: Heads
) -> list[str]:
    """The report lines of ``pairs`` scored with ``made=False``, bare (``spool.bare``): a
    scored pair's from its outcome (``scored_lines``; its Comparison made only for an
    unusual result), an unscored one's from its comparison (in ``scored.comparisons``, in
    order)."""
    unscored = iter(scored.comparisons)
    threshold, values = settings.threshold, settings.values
    lines: list[str] = []
    for pair, outcome in zip(pairs, scored.outcomes):
        if not isinstance(outcome, MatchResult):
            lines.append(bare(json_line(stored_comparison(next(unscored).to_dict(), heads, 0))))
            continue
        if scored.lines is not None:  # (written as it was scored)
            lines.append(scored.lines[id(pair)][0])
            continue
        passed = outcome.passed(threshold, settings.invalid_fails)
        place = (pair.file, pair.line)
        found = scored_lines(outcome, pair.case_id, threshold, passed, place, values, heads)
        if found is None:
            comparison = comparison_of(pair, outcome, settings)
            lines.append(bare(comparison_line(comparison, outcome.fields, values, heads)))
        else:
            lines.append(found[0])
    return lines


_NONE = ("", "")  # (a pair without lines written as it was scored: an unscored one)


def _sketched(
    sketch: SchemaSketch,
    pairs: Sequence[Pair],
    skip: Callable[[str], bool] | None,
    fits: Callable[[Any], bool] | None = None,
) -> int:
    """The pairs' gold records added to ``sketch``: those a span read (``read_depth``)
    without the door, the others through it (RecordError naming the record it refuses);
    with ``fits``, only those of the first kind that do not fit a guess. How many were."""
    added = 0
    for pair in pairs:
        if pair.read_depth >= 0:
            if fits is None or not fits(pair.expected):
                sketch.add_decoded(pair.expected, pair.read_depth)
                added += 1
            continue
        try:
            sketch.add(pair.expected, skip)
        except JsonMatchError as exc:
            raise RecordError(f"{pair.where}: {exc}") from None
        added += 1
    return added
