"""What a judge already knows: :class:`Memory`, the verdicts of this run and of a recording,
by item key, with which keys were used, asked and by which case."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from ..core.errors import JsonMatchError
from .prompt import Item


@dataclass
class Memory:
    """Verdicts already known, by item key (the judge's fingerprint, the field path, both
    values): this run's and any a recording brought. ``used``: the keys a comparison read
    or asked; ``new``: those asked in this run; ``cases``: the keys each named case (a golden
    case's test id, as its tab names it) read or asked, so that a recording keeps which cases
    use each verdict; ``reasons``: the judge's reason for a verdict, where it gave one. ``closed`` (a replay-only run): what to raise instead of asking for
    items no verdict is known of."""

    verdicts: dict[str, float] = field(default_factory=dict)
    used: set[str] = field(default_factory=set)
    new: set[str] = field(default_factory=set)
    cases: dict[str, set[str]] = field(default_factory=dict)
    # the judge's reason for a verdict, where its question asked for one (a rubric's)
    reasons: dict[str, str] = field(default_factory=dict)
    closed: Callable[[list[Item]], JsonMatchError] | None = None
