"""The entry points: :func:`match_json` scores one pair, :func:`evaluate_records` many.

Data flows one way: parse (parse.py: text to JSON) -> the door (intake.py: plain JSON the
walk can trust) -> configure (config.py: the metric's walk and per-field rules) -> walk
(walk.py: FieldResults) -> post-process -> scores (results.py: MatchResult, RunResult).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from .comparing.registry import REGISTRY, Registry
from .configuring.walk_config import Metric, WalkConfig, configure
from .core.depth import call_with_depth
from .core.errors import ComparatorError, ConfigError, JsonMatchError, known_names, printable, shown
from .metrics.target_output_key import select
from .reading.intake import as_data, read_json
from .reading.parse import parse_actual, parse_expected
from .results.field_results import (
    STATUSES,
    FieldResult,
    MatchResult,
    RunResult,
    aggregate_fields,
    f_beta,
    precision_recall,
    weighted_precision_recall,
)
from .schemas.eval_schema import SchemaNode, infer_node
from .walking.prefetch import prepare_strings
from .walking.walk import walk


def match_json(actual: Any, expected: Any, metric: str = "field_f1", **options: Any) -> MatchResult:
    """Score ``actual`` against ``expected`` under ``metric``.

    ``expected`` is parsed strictly (a mapping, or a string holding one JSON object);
    ``actual`` leniently (a mapping, or text in which a JSON object is found). Options:
    ``ignore``, ``fields``, ``align``, ``schema`` for every metric, plus the metric's own
    (see ``METRICS[name].options``). Unknown names raise ConfigError listing the known ones.
    """
    registry = options.pop("registry", REGISTRY)
    chosen: Metric = registry.metric(metric)
    cfg = configure(chosen, options, registry)
    expected_value, depth_e = _read(parse_expected(as_data(expected, "expected"),
                                                   allow_array=chosen.allow_array), "expected", cfg)
    actual_value, depth_a = _read(parse_actual(as_data(actual, "actual"), allow_array=chosen.allow_array),
                                  "actual", cfg)
    expected_value, actual_value = _target(expected_value, actual_value, options)
    return call_with_depth(max(depth_e, depth_a), lambda: _score(
        chosen, cfg, cfg.schema, expected_value, actual_value, options, registry))


def evaluate_records(expected_list: Sequence[Any], actual_list: Sequence[Any],
                     metric: str = "field_f1", **options: Any) -> RunResult:
    """Score records pairwise and aggregate: macro means over records, per field path
    (``items[].sku``) the mean score and the count of each status. For ``field_f1`` without
    a schema, one schema is inferred from all expected records together."""
    registry = options.pop("registry", REGISTRY)
    for name, records in (("expected_list", expected_list), ("actual_list", actual_list)):
        if isinstance(records, (str, bytes, bytearray, Mapping)) or not (
                hasattr(records, "__len__") and hasattr(records, "__iter__")):
            raise ConfigError(f"evaluate_records takes two lists of records; {name} is a "
                              f"{type(records).__name__} (wrap one record in a list)")
    if len(expected_list) != len(actual_list):
        raise ConfigError(f"evaluate_records needs as many actual records as expected ones "
                          f"({len(actual_list)} != {len(expected_list)})")
    chosen: Metric = registry.metric(metric)
    cfg = configure(chosen, options, registry)
    read_e = [_read(parse_expected(as_data(e, f"expected[{i}]"), allow_array=chosen.allow_array,
                                   what=f"expected[{i}]"), f"expected[{i}]", cfg)
              for i, e in enumerate(expected_list)]
    depth = max((d for _, d in read_e), default=0)
    schema = cfg.schema
    if cfg.schema_driven and schema is None and read_e:
        values = [value for value, _ in read_e]
        schema = call_with_depth(depth, lambda: infer_node(values, registry))
    records = []
    for i, ((e, depth_e), actual) in enumerate(zip(read_e, actual_list)):
        a, depth_a = _read(parse_actual(as_data(actual, f"actual[{i}]"), allow_array=chosen.allow_array,
                                        what=f"actual[{i}]"), f"actual[{i}]", cfg)
        e, a = _target(e, a, options)
        records.append(call_with_depth(max(depth_e, depth_a), lambda: _score(
            chosen, cfg, schema, e, a, options, registry)))
    return RunResult(chosen.name, tuple(records), aggregate_fields(records))


def _read(value: Any, side: str, cfg: WalkConfig) -> tuple[Any, int]:
    """A parsed value through the door (the fields ``ignore`` names are not read)."""
    return read_json(value, side, cfg.is_skipped if cfg.skip_patterns else None)


def _target(expected: Any, actual: Any, options: Mapping[str, Any]) -> tuple[Any, Any]:
    """UiPath's ``target_output_key`` (target.py): compare only what it names on both sides."""
    return select(expected, actual, options.get("target_output_key") if options else None)


PostProcessor = Callable[[list[FieldResult]], list[FieldResult]]


def _post_processors(spec: Any, registry: Registry) -> list[PostProcessor]:
    if spec is None:
        return []
    out = []
    for item in spec if isinstance(spec, (list, tuple)) else [spec]:
        if callable(item):
            out.append(item)
        elif isinstance(item, str) and item in registry.post_processors:
            out.append(registry.post_processors[item])
        else:
            raise ConfigError(f"unknown post-processor {shown(item)}; known: {known_names(registry.post_processors)}")
    return out


def _post_processed(post: PostProcessor, fields: list[FieldResult]) -> list[FieldResult]:
    """What a post-processor makes of the field results, checked: a list of FieldResults
    with known statuses and scores in [0, 1]; anything else is a ComparatorError naming it."""
    name = getattr(post, "__name__", type(post).__name__)
    try:
        returned = post(list(fields))
        if isinstance(returned, (str, bytes, Mapping)) or not isinstance(returned, Iterable):
            raise ComparatorError(f"post-processor {name!r} returned a {type(returned).__name__}, "
                                  f"not a list of FieldResults")
        out = list(returned)  # a generator runs its code here
    except JsonMatchError:
        raise
    except Exception as exc:  # noqa: BLE001 - user code: say whose it is
        raise ComparatorError(f"post-processor {name!r} raised {type(exc).__name__}: "
                              f"{printable(str(exc))[:200]}") from None
    for fr in out:
        if not isinstance(fr, FieldResult):
            raise ComparatorError(f"post-processor {name!r} returned a {type(fr).__name__}, "
                                  f"not a FieldResult")
        in_unit = isinstance(fr.score, (int, float)) and 0.0 <= fr.score <= 1.0  # NaN is not
        if fr.status not in STATUSES or not in_unit:
            raise ComparatorError(f"post-processor {name!r} returned {fr.display_path} with "
                                  f"status {shown(fr.status)} and score {shown(fr.score)}; "
                                  f"statuses are {', '.join(STATUSES)}, scores in [0, 1]")
    return out


def _score(metric: Metric, cfg: WalkConfig, schema: SchemaNode | None, expected: Any, actual: Any,
           options: Mapping[str, Any], registry: Registry) -> MatchResult:
    if metric.prepare is not None:
        expected, actual = metric.prepare(cfg, expected, actual)
    prepare_strings(cfg, expected, actual)
    found = walk(cfg, expected, actual, schema)
    fields = found.fields
    if options:
        for post in _post_processors(options.get("post_process"), registry):
            fields = _post_processed(post, fields)
    if cfg.weighted:
        fields = [fr._replace(weight=cfg.weight_at(fr.path)) for fr in fields]
        precision, recall = weighted_precision_recall(fields)
    else:
        precision, recall = precision_recall(fields)
    f1 = f_beta(precision, recall)
    if metric.headline == "recall":
        score = recall
    else:
        beta = float(options.get("beta", 1.0)) if options else 1.0
        score = f1 if beta == 1.0 else f_beta(precision, recall, beta)
    return MatchResult._build(metric.name, score, precision, recall, f1, tuple(fields),
                              tuple(found.pairings), tuple(found.floors))
