"""pytest-jsonmatch: score structured JSON output against golden expectations, field by field.

The public API is re-exported here. Names load on first use, so that pytest, which imports
the plugin module in every session, pays nothing for the engine until a test needs it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .engine._lazy import lazy_exports

__version__ = "0.1.0"

_EXPORTS = {
    # engine
    "match_json": "engine.metrics",
    "evaluate_records": "engine.metrics",
    "METRICS": "engine.metrics",
    "METRIC_NAMES": "engine.metrics",
    "Metric": "engine.metrics",
    "MatchResult": "engine.results",
    "FieldResult": "engine.results",
    "FieldAggregate": "engine.results",
    "FloorFailure": "engine.results",
    "Pairing": "engine.results",
    "RunResult": "engine.results",
    "aggregate_fields": "engine.results",
    "infer_schema": "engine.schema",
    "annotate_schema": "engine.schema",
    "validate_gold": "engine.schema",
    "reclassify_nulls": "engine.postprocess",
    "parse_actual": "engine.parse",
    "parse_expected": "engine.parse",
    "PathPattern": "engine.values",
    "Registry": "engine.registry",
    "REGISTRY": "engine.registry",
    "BatchItem": "engine.registry",
    "register_comparator": "engine.registry",
    "register_transform": "engine.registry",
    "register_metric": "engine.registry",
    "register_post_processor": "engine.registry",
    "JsonMatchError": "engine.errors",
    "ParseError": "engine.errors",
    "ConfigError": "engine.errors",
    "SchemaError": "engine.errors",
    "ComparatorError": "engine.errors",
    "CaseFileError": "engine.errors",
    # pytest adapter
    "assert_json_match": "assertion",
}

__all__ = sorted(_EXPORTS) + ["__version__"]


__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)


if TYPE_CHECKING:  # pragma: no cover - for type checkers and IDEs only
    from .assertion import assert_json_match
    from .engine.errors import (CaseFileError, ComparatorError, ConfigError, JsonMatchError,
                                ParseError, SchemaError)
    from .engine.metrics import METRIC_NAMES, METRICS, Metric, evaluate_records, match_json
    from .engine.parse import parse_actual, parse_expected
    from .engine.postprocess import reclassify_nulls
    from .engine.registry import (REGISTRY, BatchItem, Registry, register_comparator,
                                  register_metric, register_post_processor, register_transform)
    from .engine.results import (FieldAggregate, FieldResult, FloorFailure, MatchResult, Pairing,
                                 RunResult, aggregate_fields)
    from .engine.schema import annotate_schema, infer_schema, validate_gold
    from .engine.values import PathPattern
