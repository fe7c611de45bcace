"""Scoring a dataset in parts: gold and predicted records, paired, scored a chunk at a time
into case records and mergeable aggregates.

A chunk is scored as ``evaluate_records`` scores it (one configuration for the whole chunk)
and aggregated once, here, into the report's aggregates: the engine's own per-field
aggregate of ``evaluate_records`` is not made. Should
any record of it fail, the chunk is scored again record by record: a gold record that cannot
be read is the caller's input error (:class:`GoldError`, naming where the record is); a
prediction that cannot be scored is a case with status ``error`` and score 0, as in the
pytest plugin. A schema-driven metric (``field_f1``) without a ``schema`` needs the schema
all gold records give (:class:`~pytest_jsonmatch.dataset.sketch.SchemaSketch`), so that a
chunk scores as it would inside one ``evaluate_records`` call over the whole dataset.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from ..engine.core.errors import ConfigError, JsonMatchError, ParseError, TruncatedError
from ..engine.match import count_records, match_json, score_records
from ..engine.metrics import metric_named
from ..engine.metrics.base import configure
from ..engine.reading.intake import Read, read_json
from ..engine.reading.parse import parse_expected
from ..engine.results.field_results import TALLY_OF, MatchResult
from ..reporting.aggregate import Aggregates, CaseResult, case_result, group_key, one_run_case
from ..reporting.records import ERROR, Comparison, ConformanceRecord, ValueMode
from ..reporting.undecided_verdicts import undecided_message

NO_PREDICTION = object()  # the actual side of a gold record no prediction was found for


class GoldError(JsonMatchError):
    """A gold record that cannot be used: the message starts with where the record is."""


class Pair(NamedTuple):
    """One gold record and its prediction. ``where`` names the gold record in errors
    (``gold.jsonl line 12``); ``file`` and ``line`` go into the report."""

    case_id: str
    expected: Any
    actual: Any
    where: str = ""
    file: str = ""
    line: int | None = None
    missing: str = ""  # why there is no prediction (with ``actual`` NO_PREDICTION)
    # a bound on how deeply ``expected`` nests when its JSON text showed that the engine's
    # door would pass it as it is (intake.depth_from_text); -1: the door reads it
    read_depth: int = -1


@dataclass(frozen=True)
class ScoreSettings:
    """How a dataset is scored: metric, threshold and options (a ``schema`` among them for
    a schema-driven metric), how much of each value the report keeps, the grouping of the
    per-field tables, whether each comparison keeps its fields as FieldRecords (a baseline
    needs them; a report's entries are written from the engine's fields, see
    parts.score_part, and the per-field tables are counted from the scores either way), and
    whether an answer that breaks its schema fails."""

    metric: str = "field_f1"
    threshold: float = 1.0
    options: Mapping[str, Any] = field(default_factory=dict)
    values: ValueMode = "short"
    group_by: str = "metric"
    keep_fields: bool = True
    invalid_fails: bool = False  # an answer that breaks its schema fails its case

    def check(self) -> None:
        """ConfigError for an unknown metric or option, or a schema-driven metric without
        its schema, before any record is read."""
        metric = metric_named(self.metric)
        cfg = configure(metric, dict(self.options))
        if cfg.schema_driven and self.options.get("schema") is None:
            raise ConfigError(
                f"{self.metric} infers its schema from all gold records: give "
                f"schema= (SchemaSketch.of(gold).schema() computes that one)"
            )


_new = tuple.__new__  # (a record's Read made without its NamedTuple's keyword handling)


@dataclass
class Scored:
    """What scoring some pairs gave: their comparisons and case results, in order, and their
    aggregates. Counted (``score_chunk(..., counted=True)``, or ``made=False``), only the
    pairs that could not be scored have a comparison (no one reads the others'), so
    ``comparisons`` lines up with ``cases`` only when neither."""

    aggregates: Aggregates
    comparisons: list[Comparison]
    cases: list[CaseResult] = field(default_factory=list)
    # each pair's MatchResult, or why it could not be scored (the comparisons' source)
    outcomes: list[MatchResult | str] = field(default_factory=list)


def score_chunk(
    pairs: Sequence[Pair], settings: ScoreSettings, counted: bool = False, made: bool = True
) -> Scored:
    """Score ``pairs`` (see the module docstring). ``counted``: no one reads the outcomes'
    fields but the per-field tables (no report of comparisons, no field records kept), so
    the records may be scored from their tallies (``count_records``) and tabled from them.
    ``made`` False: only the pairs that could not be scored get a comparison, as counted
    (a report's lines are written from the outcomes, chunk_work.py)."""
    present = [p for p in pairs if p.actual is not NO_PREDICTION]
    results: dict[int, MatchResult | str] = {}
    tallies = None
    try:
        expected = [
            p.expected if p.read_depth < 0 else _new(Read, (p.expected, p.read_depth))
            for p in present
        ]
        actual = [p.actual for p in present]
        if counted:
            _, records, tallies = count_records(
                expected, actual, settings.metric, **settings.options
            )
        else:
            _, records = score_records(expected, actual, settings.metric, **settings.options)
        # a record whose answer could not be read: its error as a lone scoring words it (the
        # answer named ``actual``, not by its place in this chunk)
        results = {
            id(p): _score_one(p, settings) if r.error else r for p, r in zip(present, records)
        }
    except JsonMatchError:
        tallies = None
        results = {id(p): _score_one(p, settings) for p in present}
    if any(isinstance(r, MatchResult) and r.batch_errors for r in results.values()):
        # a record the judge left undecided is an error, its fields counted nowhere (as the
        # pytest plugin records it): the tallies, which counted them, are not used
        tallies = None
        results = {key: _decided(r) for key, r in results.items()}
    out = Scored(Aggregates(settings.group_by), [])
    for pair in pairs:
        outcome = results.get(id(pair), pair.missing or "no prediction")
        if not isinstance(outcome, MatchResult):
            comparison = comparison_of(pair, outcome, settings)
            out.comparisons.append(comparison)
            out.cases.append(case_result([comparison]))
        else:  # (the case its comparison's case_result would give)
            if made and not counted:  # else no one reads its comparison
                out.comparisons.append(comparison_of(pair, outcome, settings))
            out.cases.append(
                one_run_case(
                    outcome,
                    case_id=pair.case_id,
                    threshold=settings.threshold,
                    file=pair.file,
                    line=pair.line,
                    invalid_fails=settings.invalid_fails,
                )
            )
        out.outcomes.append(outcome)
    one_group = len({group_key(c, settings.group_by) for c in out.cases}) <= 1
    if tallies is None and one_group and all(c.counted for c in out.cases):
        # the full walk's fields counted as the tally walk counts them, in C (the per-field
        # tables and their order are those of add_cases)
        tallies = Counter()
        for outcome in out.outcomes:
            if isinstance(outcome, MatchResult):
                tallies.update(map(TALLY_OF, outcome.fields))
    if tallies is not None and one_group:
        out.aggregates.add_tallied_cases(out.cases, tallies)
        return out
    # the engine's own field results: the same paths, statuses and scores as the records
    out.aggregates.add_cases(
        (case, outcome.fields if isinstance(outcome, MatchResult) else ())
        for case, outcome in zip(out.cases, out.outcomes)
    )
    return out


def score_pairs(
    pairs: Iterable[tuple[Any, Any]],
    metric: str = "field_f1",
    threshold: float = 1.0,
    **options: Any,
) -> Aggregates:
    """The aggregates of (expected, actual) pairs: a partition's part of a dataset's
    figures, to be merged with the others' (:meth:`Aggregates.merge`) in any order. The
    k-th pair is case ``k``; errors in a prediction count as 0, as everywhere."""
    settings = ScoreSettings(metric, threshold, options, keep_fields=False)
    settings.check()
    chunk = [
        Pair(str(k), expected, actual, f"record {k}") for k, (expected, actual) in enumerate(pairs)
    ]
    return score_chunk(chunk, settings, counted=True).aggregates


def _score_one(pair: Pair, settings: ScoreSettings) -> MatchResult | str:
    metric = metric_named(settings.metric)
    try:
        cfg = configure(metric, dict(settings.options))
        expected = parse_expected(pair.expected, allow_array=metric.allow_array)
        read_json(expected, "expected", cfg.is_skipped if cfg.skip_patterns else None)
    except JsonMatchError as exc:
        raise GoldError(f"{pair.where}: {exc}") from None
    try:
        return match_json(pair.actual, pair.expected, settings.metric, **settings.options)
    except JsonMatchError as exc:
        if (
            isinstance(exc, ParseError)
            and exc.side == "actual"
            and settings.options.get("schema") is not None
        ):
            return Unread(str(exc), "cut off" if isinstance(exc, TruncatedError) else "unreadable")
        return str(exc)


class Undecided(str):
    """Why a record's comparison was left undecided by the judge (undecided_verdicts.py's message),
    with how many fields (``fields``): such a record is an error, scored 0."""

    fields: int

    def __new__(cls, text: str, fields: int) -> Undecided:
        self = super().__new__(cls, text)
        self.fields = fields
        return self

    def __reduce__(self) -> tuple[type[Undecided], tuple[str, int]]:
        return type(self), (str(self), self.fields)


def _decided(outcome: MatchResult | str) -> MatchResult | str:
    """``outcome``, or, for a result with fields the judge left undecided, the error that
    says so (:class:`Undecided`)."""
    if isinstance(outcome, MatchResult) and outcome.batch_errors:
        return Undecided(undecided_message(outcome), outcome.batch_errors)
    return outcome


class Unread(str):
    """Why an answer held to a schema could not be read (the error's text), and how
    (``keyword``: ``cut off`` or ``unreadable``): such an answer counts as invalid."""

    keyword: str

    def __new__(cls, text: str, keyword: str) -> Unread:
        self = super().__new__(cls, text)
        self.keyword = keyword
        return self

    def __reduce__(self) -> tuple[type[Unread], tuple[str, str]]:
        return type(self), (str(self), self.keyword)


def comparison_of(pair: Pair, outcome: MatchResult | str, settings: ScoreSettings) -> Comparison:
    """The record of one pair: its MatchResult, or (a string) why it could not be scored."""
    if isinstance(outcome, str):
        return Comparison(
            case_id=pair.case_id,
            nodeid=pair.case_id,
            metric=settings.metric,
            score=0.0,
            threshold=settings.threshold,
            status=ERROR,
            error=str(outcome),
            file=pair.file,
            line=pair.line,
            conformance=(
                ConformanceRecord((("", "(answer)", outcome.keyword),), 1)
                if isinstance(outcome, Unread)
                else None
            ),
            undecided=outcome.fields if isinstance(outcome, Undecided) else 0,
        )
    return Comparison.of_result(
        outcome,
        case_id=pair.case_id,
        nodeid=pair.case_id,
        threshold=settings.threshold,
        passed=outcome.passed(settings.threshold, settings.invalid_fails),
        file=pair.file,
        line=pair.line,
        values=settings.values if settings.keep_fields else None,
        invalid_fails=settings.invalid_fails,
    )
