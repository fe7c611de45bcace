"""pytest-jsonmatch: score structured JSON output against golden expectations, field by field.

This is the public API, exported from here once: every name below is documented and typed.
Names are imported on first use (PEP 562), so that pytest loading the plugin, which imports
this package first, does not load the engine, NumPy and the rest before a test needs them.
"""

from __future__ import annotations

from .engine.core.lazy_names import lazy_names
from .version import __version__ as __version__

# typing.TYPE_CHECKING without importing typing: type checkers read any name so spelled as
# true. The ``jsonmatch`` program imports this package before it holds the garbage
# collector back (__main__.py), and typing is the largest import it would make meanwhile.
TYPE_CHECKING = False

# name -> the module that defines it
_API = {
    "assert_json_match": ".session.assertion",
    "score_pairs": ".dataset.scoring",
    "SchemaSketch": ".dataset.sketch",
    "Metric": ".engine.metrics.base",
    "CaseFileError": ".engine.core.errors",
    "ComparatorError": ".engine.core.errors",
    "ConfigError": ".engine.core.errors",
    "JsonMatchError": ".engine.core.errors",
    "JsonMatchWarning": ".engine.core.errors",
    "ParseError": ".engine.core.errors",
    "SchemaError": ".engine.core.errors",
    "SchemaWarning": ".engine.core.errors",
    "TruncatedError": ".engine.core.errors",
    "Truncation": ".engine.core.cut_off",
    "evaluate_records": ".engine.match",
    "BfclVerdict": ".engine.bfcl.bfcl_checker",
    "bfcl_verdict": ".engine.bfcl.bfcl_checker",
    "BfclChecker": ".engine.bfcl.bfcl_checker",
    "match_json": ".engine.match",
    "match_reply": ".engine.agents",
    "match_run": ".engine.agents",
    "match_conversation": ".engine.agents",
    "tau2_reward": ".engine.agents",
    "read_trace": ".engine.reading.trace_spans",
    "Trace": ".engine.reading.trace_spans",
    "Tau2Reward": ".engine.agents",
    "AgentRun": ".calls.agent_outputs",
    "METRIC_NAMES": ".engine.metrics",
    "METRICS": ".engine.metrics",
    "parse_actual": ".engine.reading.parse",
    "parse_expected": ".engine.reading.parse",
    "PathPattern": ".engine.core.paths",
    "propagate_batch_errors": ".engine.results.post_processors",
    "reclassify_nulls": ".engine.results.post_processors",
    "REGISTRY": ".engine.metrics",
    "BatchItem": ".engine.comparing.registry",
    "configure_judge": ".engine.metrics",
    "JudgeReply": ".engine.judge",
    "JudgeRequest": ".engine.judge",
    "JudgeSettings": ".engine.judge",
    "Registry": ".engine.metrics",
    "register_comparator": ".engine.metrics",
    "register_embedder": ".engine.metrics",
    "register_metric": ".engine.metrics",
    "register_post_processor": ".engine.metrics",
    "register_transform": ".engine.metrics",
    "reset_type_defaults": ".engine.metrics",
    "set_type_default": ".engine.metrics",
    "FieldAggregate": ".engine.results.field_results",
    "FieldResult": ".engine.results.field_results",
    "FloorFailure": ".engine.results.field_results",
    "MatchResult": ".engine.results.field_results",
    "Pairing": ".engine.results.field_results",
    "RunResult": ".engine.results.field_results",
    "aggregate_fields": ".engine.results.field_results",
    "annotate_schema": ".engine.schemas.eval_schema",
    "infer_schema": ".engine.schemas.eval_schema",
    "validate_gold": ".engine.schemas.eval_schema",
    "Aggregates": ".reporting.run_model.aggregate",
    "TargetResult": ".calls.call_figures",
    # end states and BFCL's multi-turn verdict
    "read_state": ".engine.agents",
    "match_state": ".engine.agents",
    "match_turn_states": ".engine.agents",
    "TurnStates": ".engine.agents",
    "bfcl_multi_turn_verdict": ".engine.bfcl.bfcl_multi_turn",
    "BfclMultiTurnVerdict": ".engine.bfcl.bfcl_multi_turn",
    "BfclTurn": ".engine.bfcl.bfcl_multi_turn",
}

if TYPE_CHECKING:  # the same names for type checkers (tests/engine/test_independence.py
    # checks that this list and _API agree)
    from .calls.agent_outputs import AgentRun as AgentRun
    from .calls.call_figures import TargetResult as TargetResult
    from .dataset.scoring import score_pairs as score_pairs
    from .dataset.sketch import SchemaSketch as SchemaSketch
    from .engine.agents import Tau2Reward as Tau2Reward

    # end states and BFCL's multi-turn verdict
    from .engine.agents import TurnStates as TurnStates
    from .engine.agents import match_conversation as match_conversation
    from .engine.agents import match_reply as match_reply
    from .engine.agents import match_run as match_run
    from .engine.agents import match_state as match_state
    from .engine.agents import match_turn_states as match_turn_states
    from .engine.agents import read_state as read_state
    from .engine.agents import tau2_reward as tau2_reward
    from .engine.bfcl.bfcl_checker import BfclChecker as BfclChecker
    from .engine.bfcl.bfcl_checker import BfclVerdict as BfclVerdict
    from .engine.bfcl.bfcl_checker import bfcl_verdict as bfcl_verdict
    from .engine.bfcl.bfcl_multi_turn import BfclMultiTurnVerdict as BfclMultiTurnVerdict
    from .engine.bfcl.bfcl_multi_turn import BfclTurn as BfclTurn
    from .engine.bfcl.bfcl_multi_turn import bfcl_multi_turn_verdict as bfcl_multi_turn_verdict
    from .engine.comparing.registry import BatchItem as BatchItem
    from .engine.core.cut_off import Truncation as Truncation
    from .engine.core.errors import CaseFileError as CaseFileError
    from .engine.core.errors import ComparatorError as ComparatorError
    from .engine.core.errors import ConfigError as ConfigError
    from .engine.core.errors import JsonMatchError as JsonMatchError
    from .engine.core.errors import JsonMatchWarning as JsonMatchWarning
    from .engine.core.errors import ParseError as ParseError
    from .engine.core.errors import SchemaError as SchemaError
    from .engine.core.errors import SchemaWarning as SchemaWarning
    from .engine.core.errors import TruncatedError as TruncatedError
    from .engine.core.paths import PathPattern as PathPattern
    from .engine.judge import JudgeReply as JudgeReply
    from .engine.judge import JudgeRequest as JudgeRequest
    from .engine.judge import JudgeSettings as JudgeSettings
    from .engine.match import evaluate_records as evaluate_records
    from .engine.match import match_json as match_json
    from .engine.metrics import METRIC_NAMES as METRIC_NAMES
    from .engine.metrics import METRICS as METRICS
    from .engine.metrics import REGISTRY as REGISTRY
    from .engine.metrics import Registry as Registry
    from .engine.metrics import configure_judge as configure_judge
    from .engine.metrics import register_comparator as register_comparator
    from .engine.metrics import register_embedder as register_embedder
    from .engine.metrics import register_metric as register_metric
    from .engine.metrics import register_post_processor as register_post_processor
    from .engine.metrics import register_transform as register_transform
    from .engine.metrics import reset_type_defaults as reset_type_defaults
    from .engine.metrics import set_type_default as set_type_default
    from .engine.metrics.base import Metric as Metric
    from .engine.reading.parse import parse_actual as parse_actual
    from .engine.reading.parse import parse_expected as parse_expected
    from .engine.reading.trace_spans import Trace as Trace
    from .engine.reading.trace_spans import read_trace as read_trace
    from .engine.results.field_results import FieldAggregate as FieldAggregate
    from .engine.results.field_results import FieldResult as FieldResult
    from .engine.results.field_results import FloorFailure as FloorFailure
    from .engine.results.field_results import MatchResult as MatchResult
    from .engine.results.field_results import Pairing as Pairing
    from .engine.results.field_results import RunResult as RunResult
    from .engine.results.field_results import aggregate_fields as aggregate_fields
    from .engine.results.post_processors import propagate_batch_errors as propagate_batch_errors
    from .engine.results.post_processors import reclassify_nulls as reclassify_nulls
    from .engine.schemas.eval_schema import annotate_schema as annotate_schema
    from .engine.schemas.eval_schema import infer_schema as infer_schema
    from .engine.schemas.eval_schema import validate_gold as validate_gold
    from .reporting.run_model.aggregate import Aggregates as Aggregates
    from .session.assertion import assert_json_match as assert_json_match

__all__ = sorted([*_API, "__version__"])


__getattr__ = lazy_names(__name__, _API, globals())  # (each name typed by its import above)


def __dir__() -> list[str]:
    return sorted({*globals(), *_API})
