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

from .core.depth import call_with_depth
from .core.errors import ConfigError, ParseError
from .core.gc_pause import collector_paused
from .entry import entry_for, kept_entry
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
    read_e = [entry.read_expected(e, f"expected[{i}]") for i, e in enumerate(expected_list)]
    if entry.cfg.schema_driven and entry.schema is None and read_e:
        values = [value for value, _ in read_e]
        depth = max(d for _, d in read_e)
        entry.with_schema(call_with_depth(depth, lambda: infer_node(values, entry.registry)))
    # records scored from counts count their tallies here, as they are (as_tallies)
    counting = tallies if tallies is not None and entry.countable else None
    records: list[MatchResult] = []
    for i, ((e, depth_e), actual) in enumerate(zip(read_e, actual_list)):
        side = f"actual[{i}]"
        try:
            parsed, cut = entry.parse_actual(actual, side)
        except ParseError as exc:  # the answer, unread: an error record, as jsonmatch
            records.append(MatchResult.unscored(entry.metric.name, str(exc)))  # score gives
            continue
        result = entry.scored(e, depth_e, parsed, cut, side, i, counting)
        if tallies is not None and (counting is None or cut is not None):
            entry.tallied(result, tallies)  # (a record not scored from counts)
        records.append(result)
    return entry.metric.name, tuple(records)


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
