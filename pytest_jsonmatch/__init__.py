"""pytest-jsonmatch: score structured JSON output against golden expectations, field by field.

This is the public API, exported from here once: every name below is documented and typed.
"""

from types import ModuleType as _ModuleType

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
from .version import __version__ as __version__


# Every public name imported above (the submodules these imports bind are not), and the version.
__all__ = sorted(["__version__"] + [name for name, value in list(globals().items())
                                    if not name.startswith("_") and not isinstance(value, _ModuleType)])
