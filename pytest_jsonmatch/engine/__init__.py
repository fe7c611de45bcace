"""The metric engine: pure scoring, no pytest. Data flows parse -> walk (comparators,
alignment) -> FieldResults -> MatchResult / RunResult.

Names load on first use: importing ``engine.errors`` (as the pytest layer does at start-up)
must not pull in rapidfuzz or the walk.
"""

from __future__ import annotations

from ._lazy import lazy_exports

_EXPORTS = {
    "CaseFileError": "errors", "ComparatorError": "errors", "ConfigError": "errors",
    "JsonMatchError": "errors", "ParseError": "errors", "SchemaError": "errors",
    "METRIC_NAMES": "metrics", "METRICS": "metrics", "Metric": "metrics",
    "evaluate_records": "metrics", "match_json": "metrics",
    "parse_actual": "parse", "parse_expected": "parse",
    "reclassify_nulls": "postprocess",
    "REGISTRY": "registry", "BatchItem": "registry", "Registry": "registry",
    "register_comparator": "registry", "register_metric": "registry",
    "register_post_processor": "registry", "register_transform": "registry",
    "FieldAggregate": "results", "FieldResult": "results", "FloorFailure": "results",
    "MatchResult": "results", "Pairing": "results", "RunResult": "results",
    "aggregate_fields": "results",
    "annotate_schema": "schema", "infer_schema": "schema", "validate_gold": "schema",
    "PathPattern": "values",
}

__all__ = sorted(_EXPORTS)


__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
