"""Where comparisons made during a pytest session are recorded, without importing pytest.

The plugin installs a sink for the running test (``activate``); the assertion helper calls
``record`` and reads the session ``defaults``. Outside pytest nothing is recorded.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Defaults:
    metric: str = "field_f1"
    threshold: float = 1.0
    options: Mapping[str, Any] = field(default_factory=dict)


_DEFAULTS = Defaults()
_SINK: Callable[[Any, float, bool], None] | None = None


def defaults() -> Defaults:
    return _DEFAULTS


def set_defaults(value: Defaults) -> None:
    global _DEFAULTS
    _DEFAULTS = value


def activate(sink: Callable[[Any, float, bool], None] | None) -> None:
    """Send the comparisons of the running test to ``sink`` (None: record nothing)."""
    global _SINK
    _SINK = sink


def record(result: Any, threshold: float, passed: bool) -> None:
    if _SINK is not None:
        _SINK(result, threshold, passed)
