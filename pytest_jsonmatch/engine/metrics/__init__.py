"""The five metrics, each a preset of the shared parts.

| metric                  | leaves               | extras         | arrays                     | headline |
|-------------------------|----------------------|----------------|----------------------------|----------|
| field_match             | top-level values     | ignored        | (inside deep equality)     | recall   |
| field_match_normalized  | same, strings folded | ignored        | (inside deep equality)     | recall   |
| json_similarity         | scalars of expected  | ignored        | by index                   | recall   |
| structural_f1           | scalars, both sides  | hallucinations | assignment on similarity   | F-beta   |
| field_f1                | schema fields        | hallucinations | ordered / key / hungarian  | F1       |

For the first three, recall is exactly the published score: matched fields (or summed leaf
similarity) over expected fields, since they never emit hallucinations.
"""

from __future__ import annotations

from typing import Any

from ..comparing.comparators import BoundComparator, by_kind
from ..comparing.field_spec import parse_align
from ..comparing.registry import REGISTRY, Registry
from ..configuring.walk_config import COMMON_OPTIONS, Metric, WalkConfig, comparator_defaults, unit_number
from ..core.errors import ConfigError
from ..core.values import ARRAY, BOOLEAN, NULL, NUMBER, OBJECT, STRING
from .structeval_config import CONFIG_OPTIONS, configured_policy, keep_schema_fields, read_schema_keys


def _policy(registry: Any, string: Any, number: Any) -> dict[str, BoundComparator]:
    """Per JSON type: ``string`` and ``number`` comparator specs; exact for the rest."""
    exact = registry.comparator("exact")
    return {NULL: exact, BOOLEAN: exact, NUMBER: registry.comparator(number),
            STRING: registry.comparator(string), OBJECT: exact, ARRAY: exact}


def _field_match(opts: dict[str, Any], registry: Registry, normalized: bool) -> WalkConfig:
    whole = registry.comparator("normalized" if normalized else "exact")
    policy = dict.fromkeys((NULL, BOOLEAN, NUMBER, STRING, OBJECT, ARRAY), whole)
    return WalkConfig(type_policy=policy, leaf_depth=1, count_extras=False, registry=registry)


def _json_similarity(opts: dict[str, Any], registry: Registry) -> WalkConfig:
    return WalkConfig(type_policy=_policy(registry, "levenshtein", "relative"),
                      count_extras=False, array_mode="index", registry=registry)


def _structural(opts: dict[str, Any], registry: Registry) -> WalkConfig:
    threshold = unit_number(opts.get("array_matching_threshold", 0.3), "array_matching_threshold")
    binder = registry.with_defaults(comparator_defaults(opts))
    string = opts.get("string_evaluator", "jaccard")
    if string == "binary":
        string = "exact"
    try:
        binder.comparator(string)
    except ConfigError as exc:
        raise ConfigError(f"string_evaluator: {exc}") from None
    number = {"threshold": {"threshold": opts.get("numeric_threshold", 0.001),
                            "weighting": opts.get("numeric_weighting", 0.1)}}
    try:
        policy = _policy(binder, string, number)
    except ConfigError as exc:
        raise ConfigError(f"numeric_threshold / numeric_weighting: {exc}") from None
    policy.update(configured_policy(opts, binder, policy[NUMBER], policy[STRING]) or {})
    return WalkConfig(type_policy=policy, null_absent=True, array_mode="similarity",
                      array_threshold=threshold, registry=registry)


_F1_POLICIES: dict[tuple[int, int, str], tuple[Registry, dict[str, BoundComparator]]] = {}


def _f1_policy(opts: dict[str, Any], registry: Registry) -> dict[str, BoundComparator]:
    """extract-eval's comparator per type (``set_type_default`` changes them), kept per
    registry state and comparator defaults."""
    binder = registry.with_defaults(comparator_defaults(opts))
    key = (id(registry), registry.generation, getattr(binder, "key", ""))
    cached = _F1_POLICIES.get(key)
    if cached is not None and cached[0] is registry:
        return cached[1]
    kinds = {kind: binder.comparator(registry.type_default(kind)) for kind in ("boolean", "integer", "number")}
    exact = binder.comparator("exact")
    policy = {NULL: binder.comparator(registry.type_default("null")), BOOLEAN: kinds["boolean"],
              NUMBER: kinds["number"] if kinds["integer"] is kinds["number"] else by_kind(kinds),
              STRING: binder.comparator(registry.type_default("string")), OBJECT: exact, ARRAY: exact}
    if len(_F1_POLICIES) > 64:
        _F1_POLICIES.clear()
    _F1_POLICIES[key] = (registry, policy)
    return policy


def _field_f1(opts: dict[str, Any], registry: Registry) -> WalkConfig:
    return WalkConfig(type_policy=_f1_policy(opts, registry), schema_driven=True,
                      array_mode="align", default_align=parse_align(opts.get("align"), "align"),
                      registry=registry)


METRICS: dict[str, Metric] = {metric.name: metric for metric in (
    Metric("field_match", COMMON_OPTIONS, lambda o, r: _field_match(o, r, False),
           description="Galtea JSON Field Match: top-level fields, strict deep equality"),
    Metric("field_match_normalized", COMMON_OPTIONS, lambda o, r: _field_match(o, r, True),
           description="Galtea JSON Field Match (Normalized): accents and case folded"),
    Metric("json_similarity", COMMON_OPTIONS | {"target_output_key"}, _json_similarity,
           description="UiPath JSON Similarity: leaf similarity over expected's tree"),
    Metric("structural_f1", COMMON_OPTIONS | {"string_evaluator", "numeric_threshold",
                                              "numeric_weighting", "array_matching_threshold",
                                              "beta", *CONFIG_OPTIONS},
           _structural, headline="f_beta", allow_array=True,
           description="structeval: order-agnostic arrays, leaf precision/recall, F-beta",
           schema_reader=read_schema_keys, prepare=keep_schema_fields),
    Metric("field_f1", COMMON_OPTIONS | {"post_process"}, _field_f1, headline="f_beta",
           allow_array=True, description="struct-extract-eval: schema-driven field P/R/F1"),
)}
METRIC_NAMES = tuple(METRICS)

for _metric in METRICS.values():
    REGISTRY.register_builtin_metric(_metric)

