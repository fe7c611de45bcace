"""BFCL's multi-turn verdict, with the per-turn credit and what differed beside it.

BFCL's ``multi_turn_checker`` executes the model's decoded calls and the ground truth's, turn
by turn, each side on its own instances of the entry's environment classes; after each turn
whose ground truth makes calls it requires, in this order: that the model made a call in the
turn, that every public attribute of every instance equals the ground truth's (Python's
``==``), and that the ground truth's results of the turn are among the model's results of
every turn so far (as a multiset). The entry is invalid at its first turn that fails.

``bfcl_multi_turn_verdict`` decides the same, executing the calls with ``bfcl_execution.py``
(no ``eval``), and goes on past the first failure: every turn is checked by the same rule
(a turn whose ground truth makes no call is right when the model made none either, BFCL's
irrelevance rule, which its multi-turn verdict does not apply), giving the per-turn credit.
Where a turn is wrong, its fields say why in the project's terms: each state attribute that
differs, read to JSON and compared field by field (``turns[2].GorillaFileSystem.root...``),
and each of the ground truth's results the model's lack (``turns[2].execution_results[0]``).
The checking is ``bfcl_turn_checks.py``'s, a plain row per turn; the turns and their fields
are made from the rows when first read (reading the differing attributes to JSON executes
the entry's calls again, ``CheckedTurns``), so that the verdict and the per-turn credit cost
no more than the comparisons BFCL's checker makes.

The entry is executed, and executed again for the fields, in a child process forked for it
(``bfcl_isolation.py``, ``bfcl_fork_server.py``): BFCL's classes keep state from entry to
entry and change the process (``decimal``'s precision), so each entry is checked as in a
fresh process, as if it were the first, and this process never runs their methods. Only the
four categories' eight classes are executed; a call's time, memory and result are bounded.
"""

from __future__ import annotations

import functools
import operator
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..agents.run_paths import placed, under
from ..core.errors import ConfigError
from ..core.paths import index_segment, key_segment
from ..core.values import MISSING
from ..match import match_json
from ..results.field_results import HALLUCINATION, MISMATCH, OMISSION, FieldResult
from .bfcl_execution import check_classes
from .bfcl_isolation import checked_rows, isolated_reader
from .bfcl_turn_checks import (
    CALLS_NOT_EXPECTED,
    EMPTY_TURN,
    SIDES,
    AttributeDifference,
    CheckedTurns,
    TurnRow,
    Unreadable,
)

# BFCL's error types, one per way a turn fails (its checker's and its runner's words)
FORCE_TERMINATED = "multi_turn:force_terminated"
_MODEL_SIDE, _TRUTH_SIDE = SIDES
_RIGHT = operator.itemgetter(0)  # a turn's row -> whether the turn is right


@dataclass(frozen=True)
class BfclTurn:
    """One turn as the verdict checked it.

    ``checked``: the ground truth makes calls in this turn (BFCL checks only those).
    ``right``: the turn passes (a checked turn: BFCL's three checks; an unchecked one: the
    model made no call). ``problem``: BFCL's error type for the first check it fails (None
    when right). ``differing``: the attributes that differ after the turn
    (``Class.attribute``). ``missing_results``: the ground truth's results of the turn the
    model's lack. ``model_results``: the model's results, a tuple per step;
    ``expected_results``: the ground truth's. ``differences``: the differing attributes read
    to JSON as the turn left them (read when first asked for, as the fields are).
    """

    index: int
    checked: bool
    right: bool
    problem: str | None
    differing: tuple[str, ...]
    missing_results: tuple[str, ...]
    model_results: tuple[tuple[str, ...], ...]
    expected_results: tuple[str, ...]
    expected_calls: tuple[str, ...]
    model_calls: tuple[tuple[str, ...], ...]
    checked_turns: CheckedTurns | None = field(default=None, repr=False, compare=False)

    @property
    def differences(self) -> tuple[AttributeDifference, ...]:
        """The differing attributes read to JSON (made on first use, for the whole entry)."""
        if self.checked_turns is None or not self.differing:
            return ()
        return self.checked_turns.readings(self.index)

    @functools.cached_property
    def fields(self) -> tuple[FieldResult, ...]:
        """What is wrong with the turn, as fields under ``turns[i]`` (none when right)."""
        turn = index_segment("turns", self.index)
        if self.problem == EMPTY_TURN:
            return (
                _field(
                    turn,
                    "turns[]",
                    OMISSION,
                    list(self.expected_calls),
                    MISSING,
                    "no call in a turn where the ground truth makes calls",
                ),
            )
        if self.problem == CALLS_NOT_EXPECTED:
            calls = [list(step) for step in self.model_calls]
            return (
                _field(
                    f"{turn}.calls",
                    "turns[].calls",
                    HALLUCINATION,
                    MISSING,
                    calls,
                    "calls in a turn where the ground truth makes none",
                ),
            )
        out: list[FieldResult] = []
        for difference in self.differences:
            out.extend(_state_fields(turn, difference))
        for position, text in self._missing_positions().items():
            out.append(
                _field(
                    f"{turn}.execution_results[{position}]",
                    "turns[].execution_results[]",
                    OMISSION,
                    text,
                    MISSING,
                    "the ground truth's result is not among the model's results so far",
                )
            )
        return tuple(out)

    def _missing_positions(self) -> dict[int, str]:
        """Where each missing result stands among the ground truth's results of the turn."""
        wanted = list(self.missing_results)
        out: dict[int, str] = {}
        for position in range(len(self.expected_results) - 1, -1, -1):
            text = self.expected_results[position]
            if text in wanted:
                wanted.remove(text)
                out[position] = text
        return dict(sorted(out.items()))


def _field(
    path: str, field_path: str, status: str, expected: object, actual: object, reason: str
) -> FieldResult:
    return FieldResult(path, status, 0.0, expected, actual, "exact", reason, field_path)


def _state_fields(turn: str, difference: AttributeDifference) -> list[FieldResult]:
    """The fields of one differing attribute that differ, in the project's terms."""
    at = key_segment(key_segment("", difference.class_name), difference.attribute)
    model, truth = difference.model, difference.truth
    if isinstance(model, Unreadable) or isinstance(truth, Unreadable) or model == truth:
        reason = "differs by Python's == (BFCL's rule), not as JSON"
        if isinstance(model, Unreadable) or isinstance(truth, Unreadable):
            reason = "differs by Python's == (BFCL's rule); it is not JSON, shown as text"
        return [
            _field(under(turn, at), under("turns[]", at), MISMATCH, str(truth), str(model), reason)
        ]
    wrap = {difference.class_name: {difference.attribute: model}}
    expected = {difference.class_name: {difference.attribute: truth}}
    result = match_json(wrap, expected, "field_f1")
    return [placed(field, turn, "turns[]") for field in result.fields if field.score < 1.0]


@dataclass(frozen=True)
class BfclMultiTurnVerdict:
    """BFCL's multi-turn verdict on one entry and what stands beside it.

    ``valid``: what BFCL's ``multi_turn_checker`` (with its runner's check of the turn count)
    decides. ``problem``: BFCL's error type of the failure (None when valid, as BFCL gives
    none); ``failed_turn``: the turn BFCL stops at (None when valid, or when the turn counts
    differ). ``turns``: each turn checked, the ones after the failure too. ``score``: the
    per-turn credit, the share of turns right. ``fields``: what is wrong with each turn,
    paths under ``turns[i]``.
    """

    valid: bool
    problem: str | None
    failed_turn: int | None
    score: float
    checked_turns: CheckedTurns | None = field(default=None, repr=False, compare=False)

    @functools.cached_property
    def turns(self) -> tuple[BfclTurn, ...]:
        if self.checked_turns is None:
            return ()
        return tuple(
            _turn(index, row, self.checked_turns)
            for index, row in enumerate(self.checked_turns.rows)
        )

    @property
    def fields(self) -> tuple[FieldResult, ...]:
        return tuple(field for turn in self.turns for field in turn.fields)


def _turn(index: int, row: TurnRow, checked_turns: CheckedTurns) -> BfclTurn:
    right, problem, differing, missing, steps, calls, model_results, expected = row
    return BfclTurn(
        index=index,
        checked=bool(calls),
        right=right,
        problem=problem or None,  # (a turn's row says "" when right)
        differing=differing,
        missing_results=missing,
        model_results=model_results,
        expected_results=expected,
        expected_calls=tuple(calls),
        model_calls=tuple(map(tuple, steps)),
        checked_turns=checked_turns,
    )


def bfcl_multi_turn_verdict(
    entry: Mapping[str, Any],
    decoded_turns: Sequence[Sequence[Sequence[str]]],
    ground_truth: Sequence[Sequence[str]],
) -> BfclMultiTurnVerdict:
    """BFCL's multi-turn verdict on a model's decoded turns (a list per turn of steps, each a
    list of call texts such as ``"cd(folder='document')"``), for the BFCL ``entry`` (its
    ``id``, ``involved_classes`` and ``initial_config``) and its ``ground_truth`` (a list
    per turn of call texts). The long-context loading is chosen from the entry's id, as
    BFCL's checker chooses it. Needs bfcl-eval's environments (``pip install --no-deps
    bfcl-eval``) and ``os.fork`` (Linux, macOS). The turns and their fields are made when
    first read; reading the fields of a turn whose state differs executes the entry's calls
    again (from ``entry`` as it is then: it must not have changed)."""
    entry_id, classes, config = _entry_parts(entry)
    truth = _turns_of(ground_truth, "ground_truth", depth=2)
    model = _turns_of(decoded_turns, "decoded_turns", depth=3)
    if len(model) != len(truth):
        return BfclMultiTurnVerdict(False, FORCE_TERMINATED, None, 0.0)
    category = entry_id.rsplit("_", 1)[0]
    long_context = "long_context" in category or "composite" in category
    rows, skipped = checked_rows((entry_id, classes, config, long_context), model, truth)
    reader = isolated_reader(skipped)
    return verdict_of(CheckedTurns(entry_id, classes, config, long_context, SIDES, rows, reader))


def verdict_of(checked_turns: CheckedTurns) -> BfclMultiTurnVerdict:
    """The verdict on an entry whose turns are all checked: invalid at the first checked turn
    that is not right."""
    rows = checked_turns.rows
    score = sum(map(_RIGHT, rows)) / len(rows) if rows else 0.0
    for index, row in enumerate(rows):
        if row[5] and not row[0]:  # (calls expected, and not right)
            return BfclMultiTurnVerdict(False, row[1], index, score, checked_turns)
    return BfclMultiTurnVerdict(True, None, None, score, checked_turns)


def _entry_parts(entry: Mapping[str, Any]) -> tuple[str, list[str], Mapping[str, Any]]:
    if not isinstance(entry, Mapping):
        raise ConfigError(
            f"a BFCL entry must be a mapping (its id, involved_classes and "
            f"initial_config), not {type(entry).__name__}"
        )
    entry_id = entry.get("id")
    classes = entry.get("involved_classes")
    config = entry.get("initial_config")
    if not isinstance(entry_id, str):
        raise ConfigError(f"the BFCL entry's id must be text, not {entry_id!r:.60}")
    if not isinstance(classes, list) or not all(isinstance(c, str) for c in classes):
        raise ConfigError(
            f"BFCL entry {entry_id}: involved_classes must be a list of class "
            f"names, not {classes!r:.60}"
        )
    check_classes(entry_id, classes)
    if not isinstance(config, Mapping):
        raise ConfigError(
            f"BFCL entry {entry_id}: initial_config must be an object, not {config!r:.60}"
        )
    return entry_id, classes, config


def _turns_of(value: object, name: str, depth: int) -> list[Any]:
    """``value`` checked to be lists nested ``depth`` deep with call texts at the bottom,
    copied into lists."""

    def check(item: object, at: str, level: int) -> Any:
        if level == 0:
            if not isinstance(item, str):
                raise ConfigError(f"{name}{at}: a call must be text, not {item!r:.60}")
            return item
        if isinstance(item, (str, bytes)) or not isinstance(item, Sequence):
            what = "a list of turns" if not at else "a list"
            raise ConfigError(f"{name}{at}: must be {what}, not {item!r:.60}")
        return [check(inner, f"{at}[{i}]", level - 1) for i, inner in enumerate(item)]

    turns: list[Any] = check(value, "", depth)
    return turns
