"""The entry points: :func:`match_json` scores one pair, :func:`evaluate_records` many.

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
from dataclasses import replace
from typing import TYPE_CHECKING, cast

from .comparing.registry import Registry
from .configuring.walk_config import WalkConfig
from .core.gc_pause import collector_paused
from .core.cut_off import Truncation
from .core.depth import SHALLOW, call_with_depth
from .core.errors import ConfigError, JsonMatchError, ParseError, shown
from .core.values import JsonValue
from .core.violations import Conformance
from .metrics import REGISTRY, metric_named
from .metrics.base import Metric, configure
from .reading.intake import Read, Unread, as_data, read_json
from .reading.parse import check_truncated, parse_actual_checked, parse_expected
from .results.field_results import (
    TALLY_OF,
    FieldResult,
    MatchResult,
    RunResult,
    Tally,
    WalkOutput,
    as_tallies,
    f_beta,
    field_tables,
    precision_recall,
    weighted_precision_recall,
)
from .results.post_processors import spare_cut_elements
from .schemas.eval_schema import SchemaNode, infer_node
from .walking import generated_scorers as compiled
from .walking.prefetch import prefetch_strings
from .walking.walk import walk

if TYPE_CHECKING:  # (the checker is imported where a schema asks for it: _validator)
    from .schemas.conformance import Validator

# The switches of evaluate_records' two fast paths (docs/architecture.md, "Fast paths"):
# False makes every record full FieldResults from the start (no tallies), and reads every
# actual side through the door before the walk (no Walk.read).
COUNT_TALLIES = True
READ_IN_WALK = True


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
    registry = cast(Registry, options.pop("registry", REGISTRY))
    truncated = cast(str, options.pop("truncated", "error"))  # checked next
    check_truncated(truncated)
    chosen = metric_named(metric, registry)
    cfg = configure(chosen, options, registry)
    validator = _validator(options)
    expected_value, depth_e = _read(
        parse_expected(as_data(expected, "expected"), allow_array=chosen.allow_array),
        "expected",
        cfg,
    )
    try:
        parsed, cut = parse_actual_checked(
            as_data(actual, "actual"), allow_array=chosen.allow_array, truncated=truncated
        )
    except ParseError as exc:
        exc.side = "actual"  # the answer itself could not be read (not a valid answer)
        raise
    actual_value, depth_a = _read(parsed, "actual", cfg)
    if chosen.target is not None:
        expected_value, actual_value = chosen.target(expected_value, actual_value, options)
    return _marked(
        call_with_depth(
            max(depth_e, depth_a),
            lambda: _conformed(
                validator,
                actual_value,
                _score(
                    chosen, cfg, cfg.schema, expected_value, actual_value, options, registry, cut
                ),
            ),
        ),
        cut,
    )


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
    registry = cast(Registry, options.pop("registry", REGISTRY))
    truncated = cast(str, options.pop("truncated", "error"))  # checked where it is read
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
    chosen = metric_named(metric, registry)
    cfg = configure(chosen, options, registry)
    validator = _validator(options)
    read_e = [_read_expected(e, i, chosen.allow_array, cfg) for i, e in enumerate(expected_list)]
    depth = max((d for _, d in read_e), default=0)
    schema = cfg.schema
    if cfg.schema_driven and schema is None and read_e:
        values = [value for value, _ in read_e]
        schema = call_with_depth(depth, lambda: infer_node(values, registry))
    # records scored from counts count their tallies here, as they are (as_tallies)
    counting: Counter[Tally] | None = (
        Counter()
        if COUNT_TALLIES and tallies is not None and _countable(chosen, cfg, schema, options)
        else None
    )
    context = (chosen, cfg, schema, options, registry)
    # records whose actual side the walk may check as it reads it, instead of the door
    # (walk.walk's ``unread``): generated scorers read it all (its extra keys and elements
    # too, which count), no judge is handed its values, and nothing else reads that side
    # before the walk (a schema's conformance check reads it after, once the walk found it
    # all plain: what the door would have passed as it is)
    unread = (
        READ_IN_WALK
        and compiled.compiles(cfg)
        and cfg.count_extras
        and not cfg.judged(schema)
        and chosen.prepare is None
        and chosen.target is None
        and not cfg.prepares
        and not cfg.skip_patterns
    )
    records: list[MatchResult] = []
    for i, ((e, depth_e), actual) in enumerate(zip(read_e, actual_list)):
        parsed: object  # (the answer as parse_actual_checked reads it, before the door)
        if type(actual) is dict:  # (what parse_actual_checked makes of it: itself, whole)
            parsed, cut = actual, None
        else:
            side = f"actual[{i}]"
            try:
                parsed, cut = parse_actual_checked(
                    as_data(actual, side),
                    what=side,
                    allow_array=chosen.allow_array,
                    truncated=truncated,
                )
            except ParseError as exc:  # the answer, unread: an error record, as jsonmatch
                records.append(MatchResult.unscored(chosen.name, str(exc)))  # score gives
                continue
        if unread and cut is None and type(parsed) is dict and depth_e <= SHALLOW:
            # (within the caller's stack: a value the walk takes nests at most SHALLOW deep)
            try:
                if counting is not None:
                    records.append(
                        _Rescore(context, e, parsed, SHALLOW, i).scored(
                            counting, validator, unread=True
                        )
                    )
                    continue
                result = _conformed(
                    validator,
                    parsed,
                    _score(chosen, cfg, schema, e, parsed, options, registry, unread=True),
                )
            except Unread:  # something the door must read: read, and walked again below
                pass
            else:
                if tallies is not None:
                    tallies.update(map(TALLY_OF, result.fields))
                records.append(result)
                continue
        a, depth_a = _read(parsed, f"actual[{i}]", cfg)
        if chosen.target is not None:
            e, a = chosen.target(e, a, options)
        depth = max(depth_e, depth_a)
        if counting is not None and cut is None:
            records.append(
                call_with_depth(
                    depth, _Rescore(context, e, a, depth, i).scored, counting, validator
                )
            )
            continue
        result = _marked(
            call_with_depth(
                depth,
                _scored_and_conformed,
                validator,
                chosen,
                cfg,
                schema,
                e,
                a,
                options,
                registry,
                cut,
            ),
            cut,
        )
        if counting is not None:  # (an answer cut off, in a run scored from counts)
            counting.update(as_tallies(list(result.fields)))
        elif tallies is not None:
            tallies.update(map(TALLY_OF, result.fields))
        records.append(result)
    if counting is not None and tallies is not None:
        tallies.update(counting)  # (tallies are the tables' keys: counted as they are)
    return chosen.name, tuple(records)


def _countable(
    metric: Metric, cfg: WalkConfig, schema: SchemaNode | None, options: Mapping[str, object]
) -> bool:
    """Whether a record's scores follow from what its fields count for alone: no judge
    scores a field (its answers are not asked twice), no weight, no ``finish`` step."""
    return (
        compiled.compiles(cfg)
        and not metric.finishes(options)
        and not cfg.weighted
        and not cfg.judged(schema)
    )


class _Rescore:
    """A record scored from counts: what makes its fields when they are first read (its
    full walk), and checks them against the scores it was given."""

    __slots__ = ("context", "expected", "actual", "depth", "index")

    def __init__(
        self,
        context: tuple[Metric, WalkConfig, SchemaNode | None, Mapping[str, object], Registry],
        expected: JsonValue,
        actual: JsonValue,
        depth: int,
        index: int,
    ) -> None:
        self.context, self.expected, self.actual = context, expected, actual
        self.depth, self.index = depth, index

    def __call__(self, result: MatchResult) -> tuple[FieldResult, ...]:
        metric, cfg, schema, options, registry = self.context
        full = call_with_depth(
            self.depth,
            lambda: _score(metric, cfg, schema, self.expected, self.actual, options, registry),
        )
        if (full.score, full.precision, full.recall) != (
            result.score,
            result.precision,
            result.recall,
        ):
            raise JsonMatchError(
                f"record {self.index} changed after evaluate_records scored it: its fields "
                f"are made when first read, from the records themselves, and now give score "
                f"{full.score!r} instead of {result.score!r}. Read the fields before changing "
                f"the records, or pass copies"
            )
        return full.fields

    def scored(
        self, tallies: Counter[Tally], validator: Validator | None, unread: bool = False
    ) -> MatchResult:
        """The record walked in tally form, each field counted into ``tallies`` by its tally
        (``as_tallies``): its result,
        whose fields this makes when they are first read (its conformance checked here,
        within the room its depth needs, as ``_conformed`` checks a full record's).
        ``unread``: the actual side has not been through the door (walk.walk); ``Unread``
        is raised, before anything is counted, when it must be."""
        metric, cfg, schema, options, _ = self.context
        expected, actual = self.expected, self.actual
        if metric.prepare is not None:
            expected, actual = metric.prepare(cfg, expected, actual)
        if cfg.prepares:
            prefetch_strings(cfg, expected, actual)
        # the generated scorers' tallies, and the general walk's FieldResults among them
        # made tallies (field_results.tally: status and score in the same slots)
        found = walk(cfg, expected, actual, schema, tally=True, unread=unread)
        fields = as_tallies(found.fields)
        tallies.update(fields)  # (counted in C: Counter's own loop over an iterable)
        precision, recall = precision_recall(fields)
        f1 = f_beta(precision, recall)
        return MatchResult._build(
            metric.name,
            metric.headline_score(precision, recall, f1, options),
            precision,
            recall,
            f1,
            self,
            tuple(found.pairings),
            tuple(found.floors),
            None if validator is None else validator.check(self.actual),
        )


def _marked(result: MatchResult, cut: Truncation | None) -> MatchResult:
    """``result``, saying where the answer was cut off when it was scored closed; its schema
    violations that the cut made (Truncation.made_by_cut) are not the model's, and are left
    out."""
    if cut is None:
        return result
    conformance = result.conformance
    if conformance is not None and conformance.violations:
        kept = tuple(v for v in conformance.violations if not cut.made_by_cut(v.path, v.keyword))
        dropped = len(conformance.violations) - len(kept)
        if dropped:
            conformance = Conformance(kept, conformance.total - dropped)
            return replace(result, truncated=cut, conformance=conformance)
    return replace(result, truncated=cut)


def _validator(options: Mapping[str, object]) -> Validator | None:
    """The compiled conformance check of the ``schema`` option (None: no schema given, or
    the ``conformance`` option false)."""
    check = options.get("conformance")
    if check is None:
        check = True
    elif not isinstance(check, bool):
        raise ConfigError(f"conformance must be true or false, not {shown(check)}")
    source = options.get("schema")
    if source is None or not check:
        return None
    from .schemas.conformance import validator_for  # (its compiler and `regex`, when used)

    return validator_for(source)


def _conformed(validator: Validator | None, actual: JsonValue, result: MatchResult) -> MatchResult:
    """``result``, saying whether ``actual`` (the compared value) is valid against the
    schema: beside the score, never in it."""
    if validator is None:
        return result
    return result.with_conformance(validator.check(actual))


def _scored_and_conformed(
    validator: Validator | None,
    metric: Metric,
    cfg: WalkConfig,
    schema: SchemaNode | None,
    expected: JsonValue,
    actual: JsonValue,
    options: Mapping[str, object],
    registry: Registry,
    cut: Truncation | None,
) -> MatchResult:
    """A record scored in full, with its conformance: one call, so that it runs with the
    room a deep value needs (``call_with_depth``)."""
    result = _score(metric, cfg, schema, expected, actual, options, registry, cut)
    return _conformed(validator, actual, result)


def _read_expected(
    value: object, index: int, allow_array: bool, cfg: WalkConfig
) -> tuple[JsonValue, int]:
    """The ``index``-th expected record parsed strictly and read through the door (a
    :class:`Read` one, an object or an allowed array, as it is)."""
    if type(value) is Read:
        if type(value.value) is dict or (allow_array and type(value.value) is list):
            return value.value, value.depth
        value = value.value  # (refused below, as it would be unread)
    side = f"expected[{index}]"
    return _read(
        parse_expected(as_data(value, side), allow_array=allow_array, what=side), side, cfg
    )


def _read(value: object, side: str, cfg: WalkConfig) -> tuple[JsonValue, int]:
    """A parsed value through the door (the fields ``ignore`` names are not read)."""
    return read_json(value, side, cfg.is_skipped if cfg.skip_patterns else None)


# what a metric that makes its own fields leaves of a walk: no pairings, no floors
_NOTHING_WALKED = WalkOutput()


def _score(
    metric: Metric,
    cfg: WalkConfig,
    schema: SchemaNode | None,
    expected: JsonValue,
    actual: JsonValue,
    options: Mapping[str, object],
    registry: Registry,
    cut: Truncation | None = None,
    unread: bool = False,
) -> MatchResult:
    """A record scored in full (``unread``: its actual side checked by the walk, see
    walk.walk)."""
    if metric.score_fields is not None:  # (a metric that makes its fields itself)
        fields = metric.score_fields(expected, actual, options)
        found = _NOTHING_WALKED
    else:
        if metric.prepare is not None:
            expected, actual = metric.prepare(cfg, expected, actual)
        prefetch_strings(cfg, expected, actual)
        found = walk(cfg, expected, actual, schema, unread=unread)
        fields = found.fields
    if metric.finish is not None:
        fields = metric.finish(fields, options, registry)
    if cut is not None:  # an answer scored closed: what was cut is not invented
        fields = spare_cut_elements(fields, cut.elements)
    if cfg.weighted:
        fields = [fr._replace(weight=cfg.weight_at(fr.path)) for fr in fields]
        precision, recall = weighted_precision_recall(fields)
    else:
        precision, recall = precision_recall(fields)
    f1 = f_beta(precision, recall)
    score = metric.headline_score(precision, recall, f1, options)
    return MatchResult._build(
        metric.name,
        score,
        precision,
        recall,
        f1,
        tuple(fields),
        tuple(found.pairings),
        tuple(found.floors),
    )
