"""Galtea's JSON Field Match: each top-level field of expected, compared whole by strict deep
equality; the score is the share of expected's fields that match (recall). Fields only in
the actual output do not count."""

from __future__ import annotations

from functools import partial

from ..comparing.registry import Registry
from ..configuring.walk_config import WalkConfig
from ..core.values import ARRAY, BOOLEAN, NULL, NUMBER, OBJECT, STRING
from .base import COMMON_OPTIONS, Metric


def top_level_fields(comparator: str, registry: Registry) -> WalkConfig:
    """Every top-level value compared whole by ``comparator``, extra fields not counted
    (the walk of both Galtea metrics)."""
    whole = registry.comparator(comparator)
    policy = dict.fromkeys((NULL, BOOLEAN, NUMBER, STRING, OBJECT, ARRAY), whole)
    return WalkConfig(type_policy=policy, leaf_depth=1, count_extras=False, registry=registry)


def _configure(comparator: str, opts: dict[str, object], registry: Registry) -> WalkConfig:
    return top_level_fields(comparator, registry)


def galtea_metric(name: str, comparator: str, description: str) -> Metric:
    """A Galtea Field Match metric: the top-level fields compared whole by ``comparator``,
    with the common options."""
    return Metric(
        name,
        COMMON_OPTIONS,
        partial(_configure, comparator),
        description=description,
        rules_apart=True,
    )


FIELD_MATCH = galtea_metric(
    "field_match", "exact", "Galtea JSON Field Match: top-level fields, strict deep equality"
)
