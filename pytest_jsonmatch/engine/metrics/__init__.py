"""Metrics: the five published metrics and ``tool_calls``, each a module that owns its rules.

Takes a metric's name and options; gives the :class:`~.base.Metric` that configures the
walk and the steps around it that are the metric's own. May import every engine stage
below the walk (``core``, ``reading``, ``comparing``, ``results``, ``schemas``,
``configuring``); ``match.py`` imports it.

| metric                  | leaves               | extras         | arrays                     | headline |
|-------------------------|----------------------|----------------|----------------------------|----------|
| field_match             | top-level values     | ignored        | (inside deep equality)     | recall   |
| field_match_normalized  | same, strings folded | ignored        | (inside deep equality)     | recall   |
| json_similarity         | scalars of expected  | ignored        | by index                   | recall   |
| structural_f1           | scalars, both sides  | hallucinations | assignment on similarity   | F-beta   |
| field_f1                | schema fields        | hallucinations | ordered / key / hungarian  | F1       |
| tool_calls              | call names, arguments| hallucinations | calls: in order / any      | F1       |

For the first three, recall is exactly the published score: matched fields (or summed leaf
similarity) over expected fields, since they never emit hallucinations.

Adding a metric is one module beside these and one line in ``BUILTIN`` below. The metrics
are registered in the engine's registry when this package loads; code that looks a metric up
by name imports it through :func:`metric_named`, so the built-in ones are always there.
"""

from __future__ import annotations

from ..comparing.registry import (
    REGISTRY,
    Registry,
    configure_judge,
    register_comparator,
    register_embedder,
    register_metric,
    register_post_processor,
    register_transform,
    reset_type_defaults,
    set_type_default,
)
from ..core.errors import ConfigError
from .base import Metric
from .field_f1 import FIELD_F1
from .field_match import FIELD_MATCH
from .field_match_normalized import FIELD_MATCH_NORMALIZED
from .json_similarity import JSON_SIMILARITY
from .structural_f1 import STRUCTURAL_F1
from .tool_calls import TOOL_CALLS

BUILTIN = (
    FIELD_MATCH,
    FIELD_MATCH_NORMALIZED,
    JSON_SIMILARITY,
    STRUCTURAL_F1,
    FIELD_F1,
    TOOL_CALLS,
)

METRICS: dict[str, Metric] = {metric.name: metric for metric in BUILTIN}
METRIC_NAMES = tuple(METRICS)

for _metric in BUILTIN:
    REGISTRY.register_builtin_metric(_metric)


def metric_named(name: object, registry: Registry = REGISTRY) -> Metric:
    """The metric registered as ``name`` (a built-in or a registered one), or ConfigError
    listing the known names, or naming what was registered in a Metric's place."""
    metric = registry.metric(name)
    if not isinstance(metric, Metric):
        raise ConfigError(
            f"metric {name!r} is registered as a {type(metric).__name__}, not a "
            f"pytest_jsonmatch.Metric"
        )
    return metric


# The registry, seen from the public API with the built-in metrics in it (pytest_jsonmatch
# resolves these names here, so that a metric registered by a user can never shadow one).
__all__ = [
    "BUILTIN",
    "METRICS",
    "METRIC_NAMES",
    "REGISTRY",
    "Registry",
    "configure_judge",
    "metric_named",
    "register_comparator",
    "register_embedder",
    "register_metric",
    "register_post_processor",
    "register_transform",
    "reset_type_defaults",
    "set_type_default",
]
