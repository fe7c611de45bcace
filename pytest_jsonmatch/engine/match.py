"""The public doors: :func:`match_json` scores one pair, :func:`evaluate_records` many;
each builds one :class:`~pytest_jsonmatch.engine.entry.Entry` and hands it every record
(entry.py decides each record's route).

Data flows one way: parse (reading/parse.py: text to JSON) -> the door (reading/intake.py:
plain JSON the walk can trust) -> configure (metrics/base.py: the metric's walk and the
per-field rules) -> the metric's own steps before the walk (its target, its prepare) -> walk
(walking/walk.py: FieldResults) -> the metric's finish -> scores (results/: MatchResult,
RunResult). Every metric-specific step is the metric's (engine/metrics/); nothing here names
a metric.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from typing import cast

from .core.cut_off import Truncation
from .core.depth import SHALLOW, call_with_depth
from .core.errors import ConfigError, ParseError
from .core.gc_pause import collector_paused
from .core.values import JsonValue
from .entry import UNREAD, Entry, entry_for, kept_entry, one_rule_pair
from .reading.intake import Reread
from .results.field_results import MatchResult, RunResult, Tally, field_tables
from .schemas.eval_schema import infer_node


def match_json(
    actual: object, expected: object, metric: str = "field_f1", **options: object
) -> MatchResult:
    """Score ``actual`` against ``expected`` under ``metric``.

    ``expected`` is parsed strictly (a mapping, or a string holding one JSON object);
    ``actual`` leniently (a mapping, or text in which a JSON object is found). Options:
    ``ignore``, ``fields``, ``align``, ``schema``, ``embedder`` and ``truncated`` for every
    metric, plus the metric's own (see ``METRICS[name].options``). Unknown names raise
    ConfigError listing the known ones. An answer cut off inside its JSON value raises
    TruncatedError; with ``truncated="close"`` it is scored closed (partial credit) and the
    result's ``truncated`` says where it was cut. With a ``schema``, the result's
    ``conformance`` says whether the actual value is valid against it (never in the score;
    ``conformance=False`` skips the check).
    """
    if type(expected) is dict and type(actual) is dict:  # (both taken as they are, unread)
        if "ignore" in options or "fields" in options:  # (an assertion's one rule)
            found = one_rule_pair(metric, options, expected, actual)
            if found is not None:
                return found
        entry = kept_entry(metric, options)
        found = entry.unread_pair(expected, actual)
        if found is not None:
            return found
    else:
        entry = kept_entry(metric, options)
    expected_value, depth_e = entry.read_expected(expected, "expected")
    parsed, cut = entry.parse_actual(actual, "actual")
    return entry.scored(expected_value, depth_e, parsed, cut, "actual")


def evaluate_records(
    expected_list: Sequence[object],
    actual_list: Sequence[object],
    metric: str = "field_f1",
    **options: object,
) -> RunResult:
    """Score records pairwise and aggregate: macro means over records, per field path
    (``items[].sku``) the mean score and the count of each status. For ``field_f1`` without
    a schema, one schema is inferred from all expected records together.

    Where a record's scores need only what its fields count for (a schema-driven metric
    whose fields no judge, weight or ``post_process`` rewrites, an answer not cut off), it
    is scored from those counts, and its ``fields`` are made when first read, by walking
    it again: the same fields the full walk makes, checked against its scores (a record
    changed in place since raises JsonMatchError)."""
    with collector_paused():
        name, records, tallies = count_records(expected_list, actual_list, metric, **options)
        return RunResult(name, records, field_tables(tallies))


def count_records(
    expected_list: Sequence[object],
    actual_list: Sequence[object],
    metric: str = "field_f1",
    **options: object,
) -> tuple[str, tuple[MatchResult, ...], Counter[Tally]]:
    """What :func:`evaluate_records` scores, record by record, and every field counted by
    (field path, status, score) in one Counter, in the records' order (``field_tables``
    turns it into per-field aggregates): records are scored from those counts where they
    can be, their fields made when read. For callers that table the fields their own way
    and read no record's fields (a dataset's text run)."""
    with collector_paused():
        tallies: Counter[Tally] = Counter()
        name, records = _score_records(expected_list, actual_list, metric, options, tallies)
        return name, records, tallies


def score_records(
    expected_list: Sequence[object],
    actual_list: Sequence[object],
    metric: str = "field_f1",
    **options: object,
) -> tuple[str, tuple[MatchResult, ...]]:
    """What :func:`evaluate_records` scores, record by record, without its per-field
    aggregate: (the metric's name, one MatchResult per record). For callers that aggregate
    the records their own way (a dataset's chunks), so that nothing is aggregated twice."""
    with collector_paused():
        return _score_records(expected_list, actual_list, metric, options, None)


def _score_records(
    expected_list: Sequence[object],
    actual_list: Sequence[object],
    metric: str,
    options: dict[str, object],
    tallies: Counter[Tally] | None,
) -> tuple[str, tuple[MatchResult, ...]]:
    """The records scored in order; with ``tallies``, every field counted into it by
    (field path, status, score), and records scored from counts where they can be."""
    _check_lists(expected_list, actual_list)
    entry = entry_for(metric, options)
    if tallies is not None and entry.reads_gold(expected_list):
        counted: Counter[Tally] = Counter()  # (the caller's, only once the run is whole)
        try:
            scored = _scored(entry, _unread_gold(entry, expected_list), actual_list, counted)
        except Reread:  # a gold record the door reads otherwise: all are read, and scored
            entry.with_schema(entry.cfg.schema)
        except Exception:
            # (an error of a record's: the run's own where the door passes every gold record
            # as it is; else the door, reading them first, may meet another one before it)
            if entry.passes_gold(expected_list):
                raise
            entry.with_schema(entry.cfg.schema)
        else:
            tallies.update(counted)
            return scored
    read_e = [entry.read_expected(e, f"expected[{i}]") for i, e in enumerate(expected_list)]
    if entry.cfg.schema_driven and entry.schema is None and read_e:
        values = [value for value, _ in read_e]
        depth = max(d for _, d in read_e)
        entry.with_schema(call_with_depth(depth, lambda: infer_node(values, entry.registry)))
    return _scored(entry, read_e, actual_list, tallies)


def _unread_gold(entry: Entry, expected_list: Sequence[object]) -> list[tuple[JsonValue, int]]:
    """The gold records as the walk takes them unread (``Entry.reads_gold``), each with
    the depth ``UNREAD``, and their schema inferred from them as they are, within the
    walk's room. Whatever inference cannot take of them, the door reads (``Reread``)."""
    values = cast("list[JsonValue]", list(expected_list))
    # gold the door would copy is most often all of a kind (numbers a dataframe made):
    # the first record read by the door spares inference over all of them
    entry.gold_read(values[0], 0)
    bound = SHALLOW - 1  # (a record's containers lie at most SHALLOW - 1 levels below it)
    try:
        schema = call_with_depth(SHALLOW, lambda: infer_node(values, entry.registry, bound=bound))
    except Exception:  # noqa: BLE001 - whatever inference cannot take of the records
        # (a value that holds itself or nests past the bound, a mapping of another kind that
        # fails as it is read): the door reads them first, and names what is wrong
        raise Reread from None
    entry.with_schema(schema)
    return [(value, UNREAD) for value in values]


def _scored(
    entry: Entry,
    read_e: list[tuple[JsonValue, int]],
    actual_list: Sequence[object],
    tallies: Counter[Tally] | None,
) -> tuple[str, tuple[MatchResult, ...]]:
    """The records scored in order, each gold record with its depth (``UNREAD``: not
    through the door); with ``tallies``, their fields counted into it, in order."""
    # every record's tallies, counted PENDING at a time (records scored from counts add
    # theirs as they are: as_tallies)
    pending: list[Tally] = []
    counting = pending if tallies is not None and entry.countable else None
    records: list[MatchResult] = []
    for i, ((e, depth_e), actual) in enumerate(zip(read_e, actual_list)):
        parsed: object
        cut: Truncation | None
        if type(actual) is dict:  # (what parse_actual makes of one: itself, whole)
            parsed, cut = actual, None
        else:
            try:
                parsed, cut = entry.parse_actual(actual, f"actual[{i}]")
            except ParseError as exc:  # the answer, unread: an error record, as jsonmatch
                if depth_e == UNREAD:  # (its gold record read all the same, as the door does)
                    entry.gold_read(e, i)
                records.append(MatchResult.unscored(entry.metric.name, str(exc)))  # score
                continue
        result = entry.scored(e, depth_e, parsed, cut, None, i, counting)
        if tallies is not None:
            if counting is None or cut is not None:
                entry.tallied(result, pending)  # (a record not scored from counts)
            if len(pending) >= PENDING:
                tallies.update(pending)
                pending.clear()
        records.append(result)
    if tallies is not None:
        tallies.update(pending)
    return entry.metric.name, tuple(records)


# How many tallies wait to be counted: ``Counter.update`` counts a list in C, and a call
# per record (26 tallies an invoice) adds the method's own steps to every record (its check
# that a list is no Mapping: 4 M instructions over 2,000 invoices); a batch bounds the
# memory they hold, whatever the number of records.
PENDING = 1 << 16


def _check_lists(expected_list: Sequence[object], actual_list: Sequence[object]) -> None:
    """ConfigError unless both are lists of records (not one record) of one length."""
    for name, given in (("expected_list", expected_list), ("actual_list", actual_list)):
        if isinstance(given, (str, bytes, bytearray, Mapping)) or not (
            hasattr(given, "__len__") and hasattr(given, "__iter__")
        ):
            raise ConfigError(
                f"evaluate_records takes two lists of records; {name} is a "
                f"{type(given).__name__} (wrap one record in a list)"
            )
    if len(expected_list) != len(actual_list):
        raise ConfigError(
            f"evaluate_records needs as many actual records as expected ones "
            f"({len(actual_list)} != {len(expected_list)})"
        )
