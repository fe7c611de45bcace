"""Scoring a dataset in parts: gold and predicted records, paired, scored a chunk at a time
into case records and mergeable aggregates.

A chunk is scored through the engine's one entry (engine/entry.py: one configuration for
the whole chunk, each record's route decided there) and aggregated once, here, into the
report's aggregates: the engine's own per-field aggregate of ``evaluate_records`` is not
made. A gold record that cannot be read is the caller's input error (:class:`GoldError`,
naming where the record is); a prediction that cannot be scored is a case with status
``error`` and score 0, as in the pytest plugin, its error worded as ``match_json`` words it. A schema-driven metric (``field_f1``) without a ``schema`` needs the schema
all gold records give (:class:`~pytest_jsonmatch.dataset.sketch.SchemaSketch`), so that a
chunk scores as it would inside one ``evaluate_records`` call over the whole dataset.
"""

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from types import ModuleType
from typing import TYPE_CHECKING, Any, NamedTuple

from ..engine.core.errors import ConfigError, JsonMatchError, ParseError, TruncatedError
from ..engine.core.gc_pause import collector_paused
from ..engine.core.slotted import HashedSlotted, Slotted
from ..engine.core.values import JsonValue
from ..engine.entry import Entry, entry_for
from ..engine.metrics import metric_named
from ..engine.metrics.base import configure
from ..engine.reading.intake import Read
from ..engine.results.field_results import TALLY_OF, MatchResult, Tally
from ..reporting.run_model.aggregate import (
    Aggregates,
    CaseResult,
    case_result,
    group_key,
    one_run_case,
)
from ..reporting.run_model.comparisons import ERROR, Comparison, ReportedConformance, ValueMode
from ..reporting.verdicts.undecided_verdicts import undecided_message

if TYPE_CHECKING:
    from ..reporting.run_model.field_rows import Heads
    from ..reporting.run_model.row_writer import RowWriter

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


class ScoreSettings(HashedSlotted):
    """How a dataset is scored: metric, threshold and options (a ``schema`` among them for
    a schema-driven metric), how much of each value the report keeps, the grouping of the
    per-field tables, whether each comparison keeps its fields as FieldRecords (a baseline
    needs them; a report's entries are written from the engine's fields, see
    parts.score_part, and the per-field tables are counted from the scores either way), and
    whether an answer that breaks its schema fails."""

    __slots__ = (
        "metric",
        "threshold",
        "options",
        "values",
        "group_by",
        "keep_fields",
        "invalid_fails",
    )

    metric: str
    threshold: float
    options: Mapping[str, Any]
    values: ValueMode
    group_by: str
    keep_fields: bool
    invalid_fails: bool  # an answer that breaks its schema fails its case

    def __init__(
        self,
        metric: str = "field_f1",
        threshold: float = 1.0,
        options: Mapping[str, Any] | None = None,
        values: ValueMode = "short",
        group_by: str = "metric",
        keep_fields: bool = True,
        invalid_fails: bool = False,
    ) -> None:
        self.metric, self.threshold = metric, threshold
        self.options = {} if options is None else options
        self.values, self.group_by = values, group_by
        self.keep_fields, self.invalid_fails = keep_fields, invalid_fails

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


class Scored(Slotted):
    """What scoring some pairs gave: their comparisons and case results, in order, and their
    aggregates. Counted (``score_chunk(..., counted=True)``, or ``made=False``), only the
    pairs that could not be scored have a comparison (no one reads the others'), so
    ``comparisons`` lines up with ``cases`` only when neither."""

    __slots__ = (
        "aggregates",
        "comparisons",
        "cases",
        "outcomes",
        "lines",
    )

    aggregates: Aggregates
    comparisons: list[Comparison]
    cases: list[CaseResult]
    # each pair's MatchResult, or why it could not be scored (the comparisons' source)
    outcomes: list[MatchResult | str]
    # (``score_chunk(..., heads=...)``) each scored pair's report line and its case's line
    # ("": left to chunk_work.case_line) by ``id`` of its pair, written as it was scored;
    # None: no lines written
    lines: dict[int, tuple[str, str]] | None

    def __init__(
        self,
        aggregates: Aggregates,
        comparisons: list[Comparison],
        cases: list[CaseResult] | None = None,
        outcomes: list[MatchResult | str] | None = None,
    ) -> None:
        self.aggregates, self.comparisons = aggregates, comparisons
        self.cases = [] if cases is None else cases
        self.outcomes = [] if outcomes is None else outcomes
        self.lines = None


def score_chunk(
    pairs: Sequence[Pair],
    settings: ScoreSettings,
    counted: bool = False,
    made: bool = True,
    heads: "Heads | None" = None,
) -> Scored:
    """Score ``pairs`` (see the module docstring). ``counted``: no one reads the outcomes'
    fields but the per-field tables (no report of comparisons, no field records kept), so
    the records may be scored from their tallies and tabled from them. ``made`` False: only
    the pairs that could not be scored get a comparison, as counted (a report's lines are
    written from the outcomes, chunk_work.py). ``heads`` (with ``made`` False): the table of
    heads of these pairs' report lines, each scored pair's line written as it is scored
    (``Scored.lines``), its fields' rows by the generated scorers as they score it where
    they can (row_writer.py), its heads made in the order the lines' own way makes them."""
    present = [p for p in pairs if p.actual is not NO_PREDICTION]
    with collector_paused():
        results, tallies, lines = _outcomes(present, settings, counted, heads)
    if any(isinstance(r, MatchResult) and r.batch_errors for r in results.values()):
        # a record the judge left undecided is an error, its fields counted nowhere (as the
        # pytest plugin records it): the tallies, which counted them, are not used
        tallies = None
        results = {key: _decided(r) for key, r in results.items()}
    out = _cases(pairs, results, settings, counted, made)
    out.lines = lines
    _aggregated(out, tallies, settings)
    return out


def _outcomes(
    present: Sequence[Pair],
    settings: ScoreSettings,
    counted: bool,
    heads: "Heads | None" = None,
) -> tuple[dict[int, MatchResult | str], Counter[Tally] | None, dict[int, tuple[str, str]] | None]:
    """Each pair's outcome by ``id``, scored through the engine's one entry as a lone
    ``match_json`` scores it (its errors worded so), and, ``counted``, every field counted
    by its tally (None: an outcome was an error after its fields were counted); with
    ``heads``, each scored pair's report line by ``id`` as it is scored (score_chunk), where
    the records are scored from tallies (no judge: no record made undecided afterwards)
    and the row form is on; else None, the lines written afterwards (chunk_work.py)."""
    entry = entry_for(settings.metric, dict(settings.options), check=True)
    writer = _writer(heads, settings) if entry.countable else None
    # the chunk's tallies in order, counted at its end (engine/match.py, PENDING); a
    # record whose rows the scorers write is scored from them
    tallies: list[Tally] | None = [] if counted or writer is not None else None
    counting = tallies if tallies is not None and entry.countable else None
    lines: dict[int, tuple[str, str]] | None = None if writer is None else {}
    if lines is not None:  # (the report's writing, loaded by a run that writes one only)
        from ..reporting.run_model import comparison_lines
    results: dict[int, MatchResult | str] = {}
    for index, pair in enumerate(present):
        expected, depth = _gold(entry, pair)
        try:
            parsed, cut = entry.parse_actual(pair.actual, "actual")
        except JsonMatchError as exc:  # (before anything of it is counted)
            results[id(pair)] = _error(exc, settings)
            continue
        if writer is not None:
            writer.begin()
        try:
            result = entry.scored(expected, depth, parsed, cut, "actual", index, counting, writer)
        except JsonMatchError as exc:
            results[id(pair)] = _error(exc, settings)
            # what was counted of the chunk is not used: the fields are counted from the
            # outcomes instead (_aggregated), a record's counted part never among them; no
            # row is written any more (the records are scored in full)
            tallies = counting = None
            if writer is not None:
                writer.give_up()
                writer = None
            continue
        if tallies is not None and (counting is None or cut is not None):
            entry.tallied(result, tallies)  # (a record not scored from counts)
        results[id(pair)] = result
        if lines is not None:
            assert heads is not None
            lines[id(pair)] = _scored_line(pair, result, settings, heads, writer, comparison_lines)
    return results, None if tallies is None else Counter(tallies), lines


def _writer(heads: "Heads | None", settings: ScoreSettings) -> "RowWriter | None":
    """The row writer of a chunk's records scored from tallies (None: the row form is
    off, row_scorers.ROW_FORM)."""
    from ..engine.walking import row_scorers
    from ..reporting.run_model.row_writer import RowWriter

    if heads is None or not row_scorers.ROW_FORM:
        return None
    return RowWriter(heads, settings.values)


def _scored_line(
    pair: Pair,
    result: MatchResult,
    settings: ScoreSettings,
    heads: "Heads",
    writer: "RowWriter | None",
    lines: ModuleType,
) -> tuple[str, str]:
    """A scored pair's report line, bare (``spool.bare``; chunk_work.py writes the others'):
    from the rows the scorers wrote (``writer.text``), else from its fields; its Comparison
    made only for a result ``scored_lines`` declines. A result with floor failures has its rows written
    from its fields (their heads name the floors). With it, its case's line, where
    ``scored_lines`` writes it from the same texts ("": chunk_work.py writes it)."""
    rows = None if writer is None else writer.text
    if rows is not None and result.floor_failures:
        writer.give_up()  # type: ignore[union-attr]
        rows = None
    passed = result.passed(settings.threshold, settings.invalid_fails)
    place = (pair.file, pair.line)
    found: tuple[str, str] | None = lines.scored_lines(
        result,
        pair.case_id,
        settings.threshold,
        passed,
        place,
        settings.values,
        heads,
        rows,
        settings.group_by,
    )
    if found is not None:
        return found
    comparison = comparison_of(pair, result, settings)
    fields = result.fields if rows is None else ()
    line: str = lines.comparison_line(comparison, fields, settings.values, heads, rows)
    from ..reporting.run_model.spool import bare  # (loaded with comparison_lines)

    return bare(line), ""


def _gold(entry: Entry, pair: Pair) -> tuple[JsonValue, int]:
    """A pair's gold record read by the entry (as it is when a span read it: ``read_depth``);
    one that cannot be read is the caller's input error, :class:`GoldError`."""
    gold = pair.expected if pair.read_depth < 0 else _new(Read, (pair.expected, pair.read_depth))
    try:
        return entry.read_expected(gold, "expected")
    except JsonMatchError as exc:
        raise GoldError(f"{pair.where}: {exc}") from None


def _error(exc: JsonMatchError, settings: ScoreSettings) -> str:
    """Why a prediction could not be scored: an answer held to a schema that could not be
    read is :class:`Unread` (it counts as invalid)."""
    schema = settings.options.get("schema")
    if isinstance(exc, ParseError) and exc.side == "actual" and schema is not None:
        return Unread(str(exc), "cut off" if isinstance(exc, TruncatedError) else "unreadable")
    return str(exc)


def _cases(
    pairs: Sequence[Pair],
    results: dict[int, MatchResult | str],
    settings: ScoreSettings,
    counted: bool,
    made: bool,
) -> Scored:
    """Each pair's case and outcome (and comparison, where it is read), in order."""
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
    return out


def _aggregated(out: Scored, tallies: Counter[Tally] | None, settings: ScoreSettings) -> None:
    """The cases' aggregates: from the tallies where one group holds every case, else from
    the engine's own field results (the same paths, statuses and scores as the records)."""
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
        return
    out.aggregates.add_cases(
        (case, outcome.fields if isinstance(outcome, MatchResult) else ())
        for case, outcome in zip(out.cases, out.outcomes)
    )


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


class Undecided(str):
    """Why a record's comparison was left undecided by the judge (undecided_verdicts.py's message),
    with how many fields (``fields``): such a record is an error, scored 0."""

    fields: int

    def __new__(cls, text: str, fields: int) -> "Undecided":
        self = super().__new__(cls, text)
        self.fields = fields
        return self

    def __reduce__(self) -> "tuple[type[Undecided], tuple[str, int]]":
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

    def __new__(cls, text: str, keyword: str) -> "Unread":
        self = super().__new__(cls, text)
        self.keyword = keyword
        return self

    def __reduce__(self) -> "tuple[type[Unread], tuple[str, str]]":
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
                ReportedConformance((("", "(answer)", outcome.keyword),), 1)
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
