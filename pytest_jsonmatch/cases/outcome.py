"""One attempted comparison, as a test hands it to its session's channel (channel.py).

Its own module so that a session that never compares does not build it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .case_outputs import OutputSource, Recorded
    from .runner import CallFigures
    from ..engine.results.field_results import MatchResult


@dataclass(frozen=True, kw_only=True)
class Outcome:
    """One attempted comparison: its MatchResult and verdict, or (``result`` None) the
    one-line reason it could not be scored. ``repeat`` is the run's index when a case runs
    several times; ``call`` is what the target's call for this output took (None: no call)."""

    metric: str
    threshold: float
    result: MatchResult | None = None
    passed: bool = False
    error: str = ""
    repeat: int = 0
    source: OutputSource = "case"  # the output came from the case, a live call, or a replay
    recording: Recorded = ""  # "recorded" or "stale" when this run wrote a recording
    call: CallFigures | None = None
