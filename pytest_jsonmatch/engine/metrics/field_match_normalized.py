"""Galtea's JSON Field Match (Normalized): Field Match with accents removed and case folded in
every string, at any depth (arrays kept in order)."""

from __future__ import annotations

from .field_match import galtea_metric

FIELD_MATCH_NORMALIZED = galtea_metric(
    "field_match_normalized",
    "normalized",
    "Galtea JSON Field Match (Normalized): accents and case folded",
)
