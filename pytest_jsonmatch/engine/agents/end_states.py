"""End states: the state an environment was left in, compared with the expected state.

``match_state`` reads both states to JSON (``state_reading.py``), alike (text that stands
for data read as data on both sides: ``as_data``), and scores them by any metric through the
engine's one way in; a row comparing text that stands for data says why in its ``reason``.
``match_turn_states`` does so after every turn of a run and puts the turns side by side: each
turn's result, the per-turn score (the mean over turns), the strict verdict (every turn
right) and one field table whose paths start with the turn
(``turns[1].GorillaFileSystem.root.name``; folded, ``turns[].GorillaFileSystem.root.name``).
Turns are numbered from 0, as BFCL numbers them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ..core.errors import ConfigError, JsonMatchError
from ..core.paths import index_segment
from ..entry import kept_entry
from ..results.field_results import FieldResult, MatchResult
from .agent_scorers import read_expected_state, scored_state, state_object
from .run_paths import placed

# a turn is right when its score is 1 to within float noise
_RIGHT = 1.0 - 1e-9


def match_state(
    actual: object, expected: object, metric: str = "field_f1", **options: object
) -> MatchResult:
    """The state ``actual`` scored against ``expected`` under ``metric`` (any metric, with
    its options, as ``match_json`` takes them). Each state is an object, a mapping, a
    ``sqlite3.Connection`` or a directory path, read as docs/metrics.md ("End states") says;
    each must read to a JSON object. A row comparing a value as text where it stands for
    data (a file that does not read as its format) says so in its ``reason``."""
    actual_json = state_object(actual, "actual state")
    return scored_state(kept_entry(metric, options), actual_json, read_expected_state(expected))


@dataclass(frozen=True)
class TurnStates:
    """The states after each turn of a run, compared turn by turn.

    ``turns``: each turn's result (a turn the run never reached is unscored: score 0, no
    fields, its ``error`` saying so). ``score``: the per-turn credit, the mean of the turns'
    scores. ``strict``: every turn right (its score 1). ``first_wrong``: the first turn that
    is not right (None: all are). ``fields``: every turn's fields, their paths prefixed by
    ``turns[i]`` (and their field paths by ``turns[]``).
    """

    metric: str
    turns: tuple[MatchResult, ...]
    score: float
    strict: bool
    first_wrong: int | None
    fields: tuple[FieldResult, ...]

    @property
    def right(self) -> tuple[bool, ...]:
        """Whether each turn is right (its score 1)."""
        return tuple(turn.score >= _RIGHT for turn in self.turns)


def match_turn_states(
    actual_states: Sequence[object],
    expected_states: Sequence[object],
    metric: str = "field_f1",
    **options: object,
) -> TurnStates:
    """The state after each turn scored against the expected state after that turn.

    A run that stopped early gives fewer actual states than expected: the turns it never
    reached score 0. More actual states than expected turns is a ConfigError, as is a state
    that cannot be read (naming the turn and the path)."""
    if isinstance(actual_states, (str, bytes)) or isinstance(expected_states, (str, bytes)):
        raise ConfigError("match_turn_states takes a list of states for each side, not text")
    if len(actual_states) > len(expected_states):
        raise ConfigError(
            f"match_turn_states: {len(actual_states)} actual states for "
            f"{len(expected_states)} expected turns (a state after each turn, on each side)"
        )
    if not expected_states:
        raise ConfigError("match_turn_states: no expected turns")
    turns: list[MatchResult] = []
    for index, expected in enumerate(expected_states):
        if index >= len(actual_states):
            turns.append(
                MatchResult.unscored(metric, f"turn {index}: the run ended before this turn")
            )
            continue
        try:
            turns.append(match_state(actual_states[index], expected, metric, **options))
        except JsonMatchError as error:
            raise ConfigError(f"turn {index}: {error}") from None
    return _side_by_side(metric, turns)


def _side_by_side(metric: str, turns: list[MatchResult]) -> TurnStates:
    right = [turn.score >= _RIGHT for turn in turns]
    wrong = [index for index, ok in enumerate(right) if not ok]
    fields = tuple(
        _in_turn(field, index) for index, turn in enumerate(turns) for field in turn.fields
    )
    return TurnStates(
        metric=metric,
        turns=tuple(turns),
        score=sum(turn.score for turn in turns) / len(turns),
        strict=not wrong,
        first_wrong=wrong[0] if wrong else None,
        fields=fields,
    )


def _in_turn(field: FieldResult, turn: int) -> FieldResult:
    """``field`` with its paths under ``turns[turn]`` (field path: ``turns[]``)."""
    return placed(field, index_segment("turns", turn), "turns[]")
