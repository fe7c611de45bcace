"""Where comparisons made during a pytest session are recorded, without importing pytest.

The plugin installs a sink for the running test (``activate``); the assertion helper calls
``record`` and reads the session ``defaults``. Outside pytest nothing is recorded, and the
defaults are ``field_f1`` with threshold 1.0.

Sinks nest: ``activate`` returns the sink it replaced, so a caller restores it afterwards
(a pytest session run inside a test, as ``pytester`` does, must not steal the outer test's
records).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

Sink = Callable[[Any, float, bool], None]


@dataclass(frozen=True)
class Defaults:
    """The session's settings for comparisons that do not name their own.

    ``verbosity`` is pytest's assertion verbosity (``-v`` counts); it sets how many fields a
    failure message lists."""

    metric: str = "field_f1"
    threshold: float = 1.0
    options: Mapping[str, Any] = field(default_factory=dict)
    verbosity: int = 0


_DEFAULTS = Defaults()
_SINK: Sink | None = None


def defaults() -> Defaults:
    return _DEFAULTS


def set_defaults(value: Defaults) -> Defaults:
    """Install ``value`` as the session defaults; return the ones it replaced."""
    global _DEFAULTS
    previous, _DEFAULTS = _DEFAULTS, value
    return previous


def activate(sink: Sink | None) -> Sink | None:
    """Send the comparisons of the running test to ``sink`` (None: record nothing).
    Return the sink that was active before, for the caller to restore."""
    global _SINK
    previous, _SINK = _SINK, sink
    return previous


def active() -> Sink | None:
    """The sink comparisons go to now, or None."""
    return _SINK


def record(result: Any, threshold: float, passed: bool) -> None:
    """Hand one comparison (a MatchResult, the threshold it was held to, the verdict) to the
    active sink, if any."""
    if _SINK is not None:
        _SINK(result, threshold, passed)
