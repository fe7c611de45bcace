"""Where comparisons made during a pytest session go, without importing pytest.

The plugin installs a sink for the running test (``activate``); the assertion helper and the
golden cases hand it an :class:`Outcome` for every comparison they attempt, scored or not,
and read the session ``defaults``. Outside pytest nothing is recorded, and the defaults are
``field_f1`` with threshold 1.0.

Sinks nest: ``activate`` returns the sink it replaced, so a caller restores it afterwards
(a pytest session run inside a test, as ``pytester`` does, must not steal the outer test's
records).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from ..engine.core.errors import printable


@dataclass(frozen=True)
class Outcome:
    """One attempted comparison: its MatchResult and verdict, or (``result`` None) the
    one-line reason it could not be scored. ``repeat`` is the run's index when a case runs
    several times."""

    metric: str
    threshold: float
    result: Any = None
    passed: bool = False
    error: str = ""
    repeat: int = 0
    source: str = "case"  # the output came from the case, a live call, or a replay
    recording: str = ""  # "recorded" or "stale" when this run wrote a recording


Sink = Callable[[Outcome], None]


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


def record(outcome: Outcome) -> None:
    """Hand one attempted comparison to the active sink, if any."""
    if _SINK is not None:
        _SINK(outcome)


def one_line(exc: BaseException) -> str:
    """An exception as the one-line reason a comparison could not be scored."""
    text = printable(" ".join(str(exc).split()), keep="")
    return text if type(exc).__module__.startswith("pytest_jsonmatch") else \
        f"{type(exc).__name__}: {text}" if text else type(exc).__name__
