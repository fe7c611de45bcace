"""The metric engine: pure scoring, no pytest. Data flows parse -> walk (comparators,
alignment) -> FieldResults -> MatchResult / RunResult."""

from .errors import (CaseFileError, ComparatorError, ConfigError, JsonMatchError, ParseError,
                     SchemaError)
from .metrics import METRIC_NAMES, METRICS, Metric, evaluate_records, match_json
from .parse import parse_actual, parse_expected
from .postprocess import reclassify_nulls
from .registry import (REGISTRY, BatchItem, Registry, register_comparator, register_metric,
                       register_post_processor, register_transform)
from .results import (FieldAggregate, FieldResult, FloorFailure, MatchResult, Pairing,
                      RunResult, aggregate_fields)
from .schema import annotate_schema, infer_schema, validate_gold
from .values import PathPattern

__all__ = [
    "BatchItem", "CaseFileError", "ComparatorError", "ConfigError", "FieldAggregate",
    "FieldResult", "FloorFailure", "JsonMatchError", "METRICS", "METRIC_NAMES", "MatchResult",
    "Metric", "Pairing", "ParseError", "PathPattern", "REGISTRY", "Registry", "RunResult",
    "SchemaError", "aggregate_fields", "annotate_schema", "evaluate_records", "infer_schema",
    "match_json", "parse_actual", "parse_expected", "reclassify_nulls", "register_comparator",
    "register_metric", "register_post_processor", "register_transform", "validate_gold",
]
