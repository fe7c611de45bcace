"""pytest-jsonmatch: score structured JSON output against golden expectations, field by field.

This is the public API, exported from here once: every name below is documented and typed.
Names are imported on first use (PEP 562), so that pytest loading the plugin, which imports
this package first, does not load the engine, NumPy and the rest before a test needs them.
"""

from __future__ import annotations

import importlib as _importlib
from typing import TYPE_CHECKING, Any

from .version import __version__ as __version__

# name -> the module that defines it
_API = {
    "assert_json_match": ".assertion",
    "score_pairs": ".dataset.scoring",
    "SchemaSketch": ".dataset.sketch",
    "Metric": ".engine.config",
    "CaseFileError": ".engine.errors",
    "ComparatorError": ".engine.errors",
    "ConfigError": ".engine.errors",
    "JsonMatchError": ".engine.errors",
    "JsonMatchWarning": ".engine.errors",
    "ParseError": ".engine.errors",
    "SchemaError": ".engine.errors",
    "SchemaWarning": ".engine.errors",
    "evaluate_records": ".engine.match",
    "match_json": ".engine.match",
    "METRIC_NAMES": ".engine.metrics",
    "METRICS": ".engine.metrics",
    "parse_actual": ".engine.parse",
    "parse_expected": ".engine.parse",
    "PathPattern": ".engine.paths",
    "propagate_batch_errors": ".engine.postprocess",
    "reclassify_nulls": ".engine.postprocess",
    "REGISTRY": ".engine.registry",
    "BatchItem": ".engine.registry",
    "Registry": ".engine.registry",
    "register_comparator": ".engine.registry",
    "register_embedder": ".engine.registry",
    "register_metric": ".engine.registry",
    "register_post_processor": ".engine.registry",
    "register_transform": ".engine.registry",
    "reset_type_defaults": ".engine.registry",
    "set_type_default": ".engine.registry",
    "FieldAggregate": ".engine.results",
    "FieldResult": ".engine.results",
    "FloorFailure": ".engine.results",
    "MatchResult": ".engine.results",
    "Pairing": ".engine.results",
    "RunResult": ".engine.results",
    "aggregate_fields": ".engine.results",
    "annotate_schema": ".engine.schema",
    "infer_schema": ".engine.schema",
    "validate_gold": ".engine.schema",
    "Aggregates": ".reporting.aggregate",
}

if TYPE_CHECKING:  # the same names for type checkers (tests/engine/test_independence.py
    # checks that this list and _API agree)
    from .assertion import assert_json_match as assert_json_match
    from .dataset.scoring import score_pairs as score_pairs
    from .dataset.sketch import SchemaSketch as SchemaSketch
    from .engine.config import Metric as Metric
    from .engine.errors import CaseFileError as CaseFileError
    from .engine.errors import ComparatorError as ComparatorError
    from .engine.errors import ConfigError as ConfigError
    from .engine.errors import JsonMatchError as JsonMatchError
    from .engine.errors import JsonMatchWarning as JsonMatchWarning
    from .engine.errors import ParseError as ParseError
    from .engine.errors import SchemaError as SchemaError
    from .engine.errors import SchemaWarning as SchemaWarning
    from .engine.match import evaluate_records as evaluate_records
    from .engine.match import match_json as match_json
    from .engine.metrics import METRIC_NAMES as METRIC_NAMES
    from .engine.metrics import METRICS as METRICS
    from .engine.parse import parse_actual as parse_actual
    from .engine.parse import parse_expected as parse_expected
    from .engine.paths import PathPattern as PathPattern
    from .engine.postprocess import propagate_batch_errors as propagate_batch_errors
    from .engine.postprocess import reclassify_nulls as reclassify_nulls
    from .engine.registry import REGISTRY as REGISTRY
    from .engine.registry import BatchItem as BatchItem
    from .engine.registry import Registry as Registry
    from .engine.registry import register_comparator as register_comparator
    from .engine.registry import register_embedder as register_embedder
    from .engine.registry import register_metric as register_metric
    from .engine.registry import register_post_processor as register_post_processor
    from .engine.registry import register_transform as register_transform
    from .engine.registry import reset_type_defaults as reset_type_defaults
    from .engine.registry import set_type_default as set_type_default
    from .engine.results import FieldAggregate as FieldAggregate
    from .engine.results import FieldResult as FieldResult
    from .engine.results import FloorFailure as FloorFailure
    from .engine.results import MatchResult as MatchResult
    from .engine.results import Pairing as Pairing
    from .engine.results import RunResult as RunResult
    from .engine.results import aggregate_fields as aggregate_fields
    from .engine.schema import annotate_schema as annotate_schema
    from .engine.schema import infer_schema as infer_schema
    from .engine.schema import validate_gold as validate_gold
    from .reporting.aggregate import Aggregates as Aggregates

__all__ = sorted([*_API, "__version__"])


def __getattr__(name: str) -> Any:
    module = _API.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(_importlib.import_module(module, __name__), name)
    globals()[name] = value  # the next lookup is a plain one
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_API})
