"""Galtea's JSON Field Match: each top-level field of expected, compared whole by strict deep
equality; the score is the share of expected's fields that match (recall). Fields only in
the actual output do not count."""

from __future__ import annotations

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


def _configure(opts: dict[str, object], registry: Registry) -> WalkConfig:
    return top_level_fields("exact", registry)


FIELD_MATCH = Metric(
    "field_match",
    COMMON_OPTIONS,
    _configure,
    description="Galtea JSON Field Match: top-level fields, strict deep equality",
)
