"""The five metrics, each a preset of the shared parts, and the public entry points.

| metric                  | leaves              | extras        | arrays                    | headline |
|-------------------------|---------------------|---------------|---------------------------|----------|
| field_match             | top-level values    | ignored       | (inside deep equality)    | recall   |
| field_match_normalized  | same, strings folded| ignored       | (inside deep equality)    | recall   |
| json_similarity         | scalars of expected | ignored       | by index                  | recall   |
| structural_f1           | scalars, both sides | hallucinations| assignment on similarity  | F-beta   |
| field_f1                | schema fields       | hallucinations| ordered / key / hungarian | F1       |

For the first three, recall is exactly the published score: matched fields (or summed leaf
similarity) over expected fields, since they never emit hallucinations.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from .comparators import BoundComparator
from .errors import ConfigError, ParseError, known_names
from .parse import parse_actual, parse_expected
from .postprocess import reclassify_nulls
from .registry import REGISTRY, Registry
from .results import (FieldResult, MatchResult, RunResult, aggregate_fields, f_beta,
                      precision_recall)
from .schema import (Align, SchemaNode, infer_node, load_schema, parse_align, parse_schema,
                     parse_transforms)
from .values import ARRAY, OBJECT, PathPattern, json_type
from .walk import FieldRule, Walk, WalkConfig

COMMON_OPTIONS = frozenset({"ignore", "fields", "align", "schema"})
FIELD_RULE_KEYS = ("align", "comparator", "min_score", "skip", "tolerance", "transform")


@dataclass(frozen=True)
class Metric:
    """A metric: which options it takes, how it configures the walk, how it headlines."""

    name: str
    options: frozenset[str]
    configure: Callable[[dict[str, Any], Registry], WalkConfig]
    headline: str = "recall"  # or "f_beta"
    allow_array: bool = False
    description: str = ""


def _policy(registry: Registry, string: str = "exact", number: str = "exact",
            params: Mapping[str, Any] | None = None) -> dict[str, BoundComparator]:
    exact = registry.comparator("exact")
    return {"null": exact, "boolean": exact,
            "number": registry.comparator({number: dict(params or {})} if params else number),
            "string": registry.comparator(string),
            OBJECT: exact, ARRAY: exact}


def _field_match(opts: dict[str, Any], registry: Registry, normalized: bool) -> WalkConfig:
    deep = registry.comparator("normalized" if normalized else "exact")
    policy = {tag: deep for tag in ("null", "boolean", "number", "string", OBJECT, ARRAY)}
    return WalkConfig(type_policy=policy, leaf_depth=1, count_extras=False, registry=registry)


def _json_similarity(opts: dict[str, Any], registry: Registry) -> WalkConfig:
    return WalkConfig(type_policy=_policy(registry, "levenshtein", "relative"), count_extras=False,
                      array_mode="index", registry=registry)


def _structural(opts: dict[str, Any], registry: Registry) -> WalkConfig:
    threshold = opts.get("array_matching_threshold", 0.3)
    if not _number(threshold) or not 0 <= threshold <= 1:
        raise ConfigError(f"array_matching_threshold must be a number in [0, 1], not {threshold!r}")
    string = opts.get("string_evaluator", "jaccard")
    if string == "binary":
        string = "exact"
    params = {"threshold": opts.get("numeric_threshold", 0.001),
              "weighting": opts.get("numeric_weighting", 0.1)}
    try:
        registry.comparator(string)
    except ConfigError as exc:
        raise ConfigError(f"string_evaluator: {exc}") from None
    try:
        policy = _policy(registry, string, "threshold", params)
    except ConfigError as exc:
        raise ConfigError(f"numeric_threshold / numeric_weighting: {exc}") from None
    return WalkConfig(type_policy=policy, null_absent=True,
                      array_mode="similarity", array_threshold=float(threshold), registry=registry)


def _field_f1(opts: dict[str, Any], registry: Registry) -> WalkConfig:
    return WalkConfig(type_policy=_policy(registry, "exact", "numeric"), schema_driven=True,
                      array_mode="align", default_align=parse_align(opts.get("align"), "align"),
                      registry=registry)


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


METRICS: dict[str, Metric] = {}


def _define(metric: Metric) -> None:
    METRICS[metric.name] = metric
    REGISTRY.register_metric(metric.name, metric, overwrite=True)


_define(Metric("field_match", COMMON_OPTIONS, lambda o, r: _field_match(o, r, False),
               description="Galtea JSON Field Match: top-level fields, strict deep equality"))
_define(Metric("field_match_normalized", COMMON_OPTIONS, lambda o, r: _field_match(o, r, True),
               description="Galtea JSON Field Match (Normalized): accents and case folded"))
_define(Metric("json_similarity", COMMON_OPTIONS | {"target_output_key"}, _json_similarity,
               description="UiPath JSON Similarity: leaf similarity over expected's tree"))
_define(Metric("structural_f1", COMMON_OPTIONS | {"string_evaluator", "numeric_threshold",
                                                  "numeric_weighting", "array_matching_threshold", "beta"},
               _structural, headline="f_beta", allow_array=True,
               description="structeval: order-agnostic arrays, leaf precision/recall, F-beta"))
_define(Metric("field_f1", COMMON_OPTIONS | {"post_process"}, _field_f1, headline="f_beta",
               allow_array=True, description="struct-extract-eval: schema-driven field P/R/F1"))

METRIC_NAMES = tuple(METRICS)


# -- options ---------------------------------------------------------------------------------


def _field_rules(opts: Mapping[str, Any], registry: Registry) -> tuple[FieldRule, ...]:
    rules: list[FieldRule] = []
    ignore = opts.get("ignore") or ()
    if isinstance(ignore, str):
        ignore = [ignore]
    for pattern in ignore:
        rules.append(FieldRule(PathPattern(pattern), skip=True))
    fields = opts.get("fields") or {}
    if not isinstance(fields, Mapping):
        raise ConfigError(f"fields must map path patterns to settings, not {type(fields).__name__}")
    for pattern, settings in fields.items():
        if not isinstance(settings, Mapping):
            raise ConfigError(f"fields[{pattern!r}] must be a mapping of settings, not {settings!r}")
        unknown = set(settings) - set(FIELD_RULE_KEYS)
        if unknown:
            raise ConfigError(f"fields[{pattern!r}]: unknown setting {', '.join(map(repr, sorted(unknown)))}; "
                              f"known: {', '.join(FIELD_RULE_KEYS)}")
        try:
            comparator = registry.comparator(settings["comparator"]) if "comparator" in settings else None
            if "tolerance" in settings:
                if comparator is not None:
                    raise ConfigError("give either comparator or tolerance, not both")
                tol = settings["tolerance"]
                comparator = registry.comparator({"numeric": dict(tol) if isinstance(tol, Mapping) else {"abs": tol}})
            transform = parse_transforms(settings["transform"], registry) if "transform" in settings else None
            align = parse_align(settings["align"], "align") if "align" in settings else None
        except ConfigError as exc:
            raise ConfigError(f"fields[{pattern!r}]: {exc}") from None
        min_score = settings.get("min_score")
        if min_score is not None and (not _number(min_score) or not 0 <= min_score <= 1):
            raise ConfigError(f"fields[{pattern!r}]: min_score must be a number in [0, 1], not {min_score!r}")
        skip = settings.get("skip", False)
        if not isinstance(skip, bool):
            raise ConfigError(f"fields[{pattern!r}]: skip must be true or false")
        rules.append(FieldRule(PathPattern(pattern), comparator, transform, align, min_score, skip))
    return tuple(rules)


def _check_options(metric: Metric, options: Mapping[str, Any]) -> None:
    unknown = [name for name in options if name not in metric.options]
    if unknown:
        raise ConfigError(
            f"unknown option {', '.join(map(repr, sorted(unknown)))} for metric {metric.name!r}; "
            f"known options: {known_names(metric.options)}"
        )
    if "beta" in options and (not _number(options["beta"]) or options["beta"] <= 0):
        raise ConfigError(f"beta must be a positive number, not {options['beta']!r}")


_SCHEMA_CACHE: dict[int, tuple[Any, SchemaNode]] = {}


def _schema_node(source: Any, registry: Registry) -> SchemaNode:
    schema = load_schema(source)
    cached = _SCHEMA_CACHE.get(id(schema))
    if cached is not None and cached[0] is schema and registry is REGISTRY:
        return cached[1]
    node = parse_schema(schema, registry)
    if registry is REGISTRY:
        if len(_SCHEMA_CACHE) > 256:
            _SCHEMA_CACHE.clear()
        _SCHEMA_CACHE[id(schema)] = (schema, node)
    return node


_BASE_CONFIGS: dict[tuple[str, int], WalkConfig] = {}


def configure(metric: Metric, options: Mapping[str, Any], registry: Registry = REGISTRY) -> WalkConfig:
    """Check ``options`` against ``metric`` and build its walk configuration."""
    key = (metric.name, id(registry))
    if not options:
        cfg = _BASE_CONFIGS.get(key)
        if cfg is None or cfg.registry is not registry:
            cfg = _BASE_CONFIGS[key] = metric.configure({}, registry)
        return cfg
    _check_options(metric, options)
    opts = dict(options)
    cfg = metric.configure(opts, registry)
    rules = _field_rules(opts, registry)
    schema = _schema_node(opts["schema"], registry) if opts.get("schema") is not None else None
    return replace(cfg, rules=rules, schema=schema)


# -- entry points ----------------------------------------------------------------------------


def _select_target(expected: Any, actual: Any, key: Any) -> tuple[Any, Any]:
    if key in (None, "*"):
        return expected, actual
    if not isinstance(key, str):
        raise ConfigError(f"target_output_key must be a string, not {key!r}")
    if key not in expected:
        raise ParseError(f"target_output_key {key!r} is not a key of expected "
                         f"(keys: {known_names(expected)})")
    if key not in actual:
        raise ParseError(f"target_output_key {key!r} is not a key of actual "
                         f"(keys: {known_names(actual)})")
    return expected[key], actual[key]


def _post_processors(spec: Any, registry: Registry) -> list[Callable[[list[FieldResult]], list[FieldResult]]]:
    if spec is None:
        return []
    items = spec if isinstance(spec, (list, tuple)) else [spec]
    out = []
    for item in items:
        if callable(item):
            out.append(item)
        elif isinstance(item, str) and item in registry.post_processors:
            out.append(registry.post_processors[item])
        else:
            raise ConfigError(f"unknown post-processor {item!r}; known: {known_names(registry.post_processors)}")
    return out


def _score(metric: Metric, cfg: WalkConfig, schema: SchemaNode | None, expected: Any, actual: Any,
           options: Mapping[str, Any], registry: Registry) -> MatchResult:
    fields, pairings, floors = Walk(cfg, schema).run(expected, actual)
    if options:
        for post in _post_processors(options.get("post_process"), registry):
            fields = list(post(fields))
    precision, recall = precision_recall(fields)
    f1 = f_beta(precision, recall)
    if metric.headline == "recall":
        score = recall
    else:
        beta = float(options.get("beta", 1.0)) if options else 1.0
        score = f1 if beta == 1.0 else f_beta(precision, recall, beta)
    return MatchResult._build(metric.name, score, precision, recall, f1, tuple(fields),
                              tuple(pairings), tuple(floors))


def match_json(actual: Any, expected: Any, metric: str = "field_f1", **options: Any) -> MatchResult:
    """Score ``actual`` against ``expected`` under ``metric``.

    ``expected`` is parsed strictly (a mapping, or a string holding one JSON object);
    ``actual`` leniently (a mapping, or text in which a JSON object is found). Options:
    ``ignore``, ``fields``, ``align``, ``schema`` for every metric, plus the metric's own
    (see ``METRICS[name].options``). Unknown names raise ConfigError listing the known ones.
    """
    registry = options.pop("registry", REGISTRY)
    m = registry.metric(metric)
    cfg = configure(m, options, registry)
    # a dict needs no parsing (the usual case, checked here to spare two calls)
    e = expected if type(expected) is dict else parse_expected(expected, allow_array=m.allow_array)
    a = actual if type(actual) is dict else parse_actual(actual, allow_array=m.allow_array)
    if options and "target_output_key" in options:
        e, a = _select_target(e, a, options["target_output_key"])
    try:
        # field_f1 without a schema walks the schema expected implies as it goes (walk.py)
        return _score(m, cfg, cfg.schema, e, a, options, registry)
    except RecursionError:
        raise _too_deep() from None


def _too_deep() -> ParseError:
    return ParseError("the values nest too deeply to compare "
                      "(more levels than Python's recursion limit allows)")


def evaluate_records(expected_list: Sequence[Any], actual_list: Sequence[Any],
                     metric: str = "field_f1", **options: Any) -> RunResult:
    """Score records pairwise and aggregate: macro means over records, per field path
    (``items[].sku``) the mean score and the count of each status. For ``field_f1`` without
    a schema, one schema is inferred from all expected records together."""
    registry = options.pop("registry", REGISTRY)
    if len(expected_list) != len(actual_list):
        raise ConfigError(f"evaluate_records needs as many actual records as expected ones "
                          f"({len(actual_list)} != {len(expected_list)})")
    m = registry.metric(metric)
    cfg = configure(m, options, registry)
    parsed_e = [parse_expected(e, allow_array=m.allow_array, what=f"expected[{i}]")
                for i, e in enumerate(expected_list)]
    try:
        schema = cfg.schema
        if cfg.schema_driven and schema is None and parsed_e:
            schema = infer_node(parsed_e, registry)
        records = []
        for i, (e, actual) in enumerate(zip(parsed_e, actual_list)):
            a = parse_actual(actual, allow_array=m.allow_array, what=f"actual[{i}]")
            if "target_output_key" in options:
                e, a = _select_target(e, a, options["target_output_key"])
            records.append(_score(m, cfg, schema, e, a, options, registry))
    except RecursionError:
        raise _too_deep() from None
    return RunResult(m.name, tuple(records), aggregate_fields(records))


REGISTRY.register_post_processor("reclassify_nulls", reclassify_nulls, overwrite=True)

__all__ = ["METRICS", "METRIC_NAMES", "Metric", "configure", "evaluate_records", "match_json",
           "Align", "json_type", "Iterable"]
