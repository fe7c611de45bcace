"""Galtea's JSON Field Match (Normalized): Field Match with accents removed and case folded in
every string, at any depth (arrays kept in order)."""

from __future__ import annotations

from ..comparing.registry import Registry
from ..configuring.walk_config import WalkConfig
from .base import COMMON_OPTIONS, Metric
from .field_match import top_level_fields


def _configure(opts: dict[str, object], registry: Registry) -> WalkConfig:
    return top_level_fields("normalized", registry)


FIELD_MATCH_NORMALIZED = Metric(
    "field_match_normalized",
    COMMON_OPTIONS,
    _configure,
    description="Galtea JSON Field Match (Normalized): accents and case folded",
)
