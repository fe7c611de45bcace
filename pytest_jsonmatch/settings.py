"""Session settings read at start-up (scores, per-field floors, gates), kept apart from the
report module so that a session which compares nothing does not load it."""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any


class ReportError(Exception):
    """A setting, a baseline file or a report path that cannot be used."""


@dataclass(frozen=True)
class GateSettings:
    fail_under: float | None = None
    field_floors: Mapping[str, float] = field(default_factory=dict)
    max_drop: float = 0.0


def parse_score(value: Any, what: str) -> float:
    """A number in [0, 1] from a flag or ini string, or ReportError naming ``what``."""
    try:
        number = float(value)
    except (TypeError, ValueError):
        raise ReportError(f"{what} must be a number between 0 and 1, not {value!r}") from None
    if not math.isfinite(number) or not 0.0 <= number <= 1.0:
        raise ReportError(f"{what} must be a number between 0 and 1, not {value!r}")
    return number


def parse_field_floors(lines: Iterable[str]) -> dict[str, float]:
    """``items[].sku=0.9`` lines -> {field path: floor}."""
    floors: dict[str, float] = {}
    for raw in lines:
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        path, sep, value = line.rpartition("=")
        path = path.strip()
        if not sep or not path:
            raise ReportError(f"jsonmatch_field_floors: expected 'field.path=score', not {line!r}")
        floors[path] = parse_score(value.strip(), f"jsonmatch_field_floors {path!r}")
    return floors
