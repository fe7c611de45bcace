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
| trajectory              | steps, call arguments| by mode        | steps: strict / any / sets | F1       |

For the first three, recall is exactly the published score: matched fields (or summed leaf
similarity) over expected fields, since they never emit hallucinations.

Adding a metric is one module beside these (or a package's, as
``tool_calls`` and ``trajectory``) and one line in ``BUILTIN_MODULES`` below. The
metrics are declared by name in the engine's registry when this package loads, and each
module is imported when its metric is first looked up (a command scoring with ``field_f1``
does not load ``tool_calls`` and BFCL's readers); code that looks a metric up by name
imports this package through :func:`metric_named`, so the built-in ones are always there.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, cast

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

# Each built-in metric by name: the module that defines it, relative to this package (a
# module beside this one, or the tool_calls package's metric, named here as text so that
# no stage below tool_calls imports it), and the name of its Metric there.
BUILTIN_MODULES = {
    "field_match": (".field_match", "FIELD_MATCH"),
    "field_match_normalized": (".field_match_normalized", "FIELD_MATCH_NORMALIZED"),
    "json_similarity": (".json_similarity", "JSON_SIMILARITY"),
    "structural_f1": (".structural_f1", "STRUCTURAL_F1"),
    "field_f1": (".field_f1", "FIELD_F1"),
    "tool_calls": ("..tool_calls.metric", "TOOL_CALLS"),
    "trajectory": ("..trajectories.trajectory_metric", "TRAJECTORY"),
}
METRIC_NAMES = tuple(BUILTIN_MODULES)


def _load(name: str) -> Metric:
    """The built-in metric ``name``, its module imported."""
    module, attribute = BUILTIN_MODULES[name]
    metric: Metric = getattr(import_module(module, __name__), attribute)
    return metric


REGISTRY.declare_builtin_metrics(METRIC_NAMES, _load)


if TYPE_CHECKING:
    BUILTIN: tuple[Metric, ...]  # the built-in metrics, in order
    METRICS: dict[str, Metric]  # them by name


def __getattr__(name: str) -> object:
    """``BUILTIN`` and ``METRICS``, made (every built-in metric's module imported) when
    either is first read, and kept."""
    if name not in ("BUILTIN", "METRICS"):
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    builtin = tuple(cast(Metric, REGISTRY.metric(n)) for n in METRIC_NAMES)
    globals().update(BUILTIN=builtin, METRICS={metric.name: metric for metric in builtin})
    return globals()[name]


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
