"""A BFCL multi-turn entry's turns checked one after the other, once their calls are executed.

``TurnChecks`` checks each turn by BFCL's checks, in its order, into a plain row: whether the
model made a call, which public attributes of the two sides' instances differ (by ``!=``,
BFCL's rule), which of the ground truth's results the model's results so far lack. Two rules
spare comparisons without changing what they find. A class on which no call was made since
the last comparison (on either side) keeps the differences found then: an environment's
method changes its own instance only. A class on which both sides have made the same calls
(``BfclEnvironment.calls``), in the same order, since the entry was loaded is not compared:
both start from the same configuration and the environments are deterministic (their random
draws are seeded), so the same calls leave the same state, private attributes included.

``CheckedTurns`` keeps the rows and gives what the fields need, each differing attribute read
to JSON on both sides as its turn left it, made when first asked for: the verdict, its error
type and the per-turn credit need only whether something differs. The entry's calls are
executed again from its initial configuration up to the last turn with a difference, and
each such turn's differing attributes are read there, a class read once kept until a call
is made on it.

``check_entry`` and ``read_turns`` execute an entry in the process that calls them, with an
optional ``CallGate`` on each call; ``bfcl_multi_turn_verdict`` calls them only in a child
process (``bfcl_fork_server.py``), and gives its ``CheckedTurns`` a reader that reads there.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..agents.state_reading import read_apart, read_state_at
from ..core.errors import ConfigError, JsonMatchError
from ..core.paths import key_segment
from ..core.values import MISSING
from .bfcl_execution import BfclEnvironment, CallGate


@dataclass(frozen=True)
class AttributeDifference:
    """One public attribute that differs after a turn, read to JSON as the turn left it."""

    class_name: str
    attribute: str
    model: object
    truth: object


class Unreadable(str):
    """An attribute's value that does not read as JSON, kept as its text."""


# BFCL's error types of a turn that fails (its checker's words; the last its irrelevance
# checker's)
EMPTY_TURN = "multi_turn:empty_turn_model_response"
STATE_MISMATCH = "multi_turn:instance_state_mismatch"
RESULT_MISMATCH = "multi_turn:execution_response_mismatch"
CALLS_NOT_EXPECTED = "multi_turn:irrelevance_error"
# the names BFCL's checker builds each side's instances' names from (the model's, the ground
# truth's); its rewrite writes them into a call's text
SIDES = ("jsonmatch_eval", "jsonmatch_ground_truth_eval")

# One turn as the verdict checked it: right, BFCL's error type ("" when right), the differing
# attributes, the missing results, the model's steps (each a list of call texts), the
# ground truth's calls, the model's results (a tuple per step), the ground truth's results.
# A plain tuple, made once per turn; the verdict's ``BfclTurn`` objects are made from it
# when first read.
TurnRow = tuple[
    bool,
    str,
    tuple[str, ...],
    tuple[str, ...],
    Sequence[Sequence[str]],
    Sequence[str],
    tuple[tuple[str, ...], ...],
    tuple[str, ...],
]


class TurnChecks:
    """One entry's turns checked one after the other (``check``, each made a ``TurnRow`` in
    ``rows``), on the two sides' environments (``model``, ``truth``) as their calls are
    executed."""

    def __init__(self, model: BfclEnvironment, truth: BfclEnvironment) -> None:
        self.model = model
        self.truth = truth
        self.rows: list[TurnRow] = []
        # class name -> its differing attributes (``Class.attribute``) when last compared; at
        # first none: both sides are loaded from the same configuration
        self._by_class: dict[str, tuple[str, ...]] = dict.fromkeys(truth.instances, ())
        self._differing: tuple[str, ...] = ()  # every class's, in the entry's order
        # the classes on which both sides have made the same calls, in the same order
        self._same_calls = set(truth.instances)
        self._in_step = True  # (every class among them)
        self._results: list[str] = []  # the model's results so far
        self._calls = (model.calls, truth.calls)  # (the same two mappings throughout)

    def check(
        self,
        steps: Sequence[Sequence[str]],
        calls: Sequence[str],
        model_results: tuple[tuple[str, ...], ...],
        expected: tuple[str, ...],
    ) -> bool:
        """The next turn checked once its calls are executed (``steps``: the model's, a list
        of call texts each; ``calls``: the ground truth's; ``model_results``: a tuple per
        step; ``expected``: the ground truth's results), BFCL's checks in its order; its row
        added to ``rows``; whether it is right."""
        so_far = self._results
        for results in model_results:
            so_far.extend(results)
        empty = not steps or (len(steps) == 1 and not steps[0])
        if not calls:
            problem = "" if empty else CALLS_NOT_EXPECTED
            self.rows.append((empty, problem, (), (), steps, calls, model_results, expected))
            return empty
        ours, theirs = self._calls
        if self._in_step and ours == theirs:
            # every class: the same calls on both sides from the start, so far
            ours.clear()
            theirs.clear()
            differing: tuple[str, ...] = ()
        else:
            differing = self.differing()
        # (the model's own results of the turn, in the same order, leave none missing)
        if len(model_results) == 1 and model_results[0] == expected:
            missing: tuple[str, ...] = ()
        else:
            missing = self.missing(expected)
        problem = (
            EMPTY_TURN
            if empty
            else STATE_MISMATCH
            if differing
            else RESULT_MISMATCH
            if missing
            else ""
        )
        right = not problem
        self.rows.append(
            (right, problem, differing, missing, steps, calls, model_results, expected)
        )
        return right

    def differing(self) -> tuple[str, ...]:
        """The public attributes (``Class.attribute``) of the ground truth's instances that
        the model's differ in now, class by class in the entry's order."""
        ours, theirs = self._calls
        if not (ours or theirs):
            return self._differing  # no call on either side: as they were
        by_class, same_calls = self._by_class, self._same_calls
        changed = False
        for class_name in ours.keys() | theirs.keys() if theirs else ours:
            made = ours.get(class_name)
            if class_name in same_calls and made is not None and made == theirs.get(class_name):
                continue  # the same calls on the same state: the same state
            same_calls.discard(class_name)
            found = _class_differing(
                class_name, self.model.instances[class_name], self.truth.instances[class_name]
            )
            if found != by_class[class_name]:
                by_class[class_name] = found
                changed = True
        ours.clear()
        theirs.clear()
        self._in_step = len(same_calls) == len(by_class)
        if changed:
            self._differing = tuple(name for names in by_class.values() for name in names)
        return self._differing

    def missing(self, expected: Sequence[str]) -> tuple[str, ...]:
        """The ``expected`` results not among the model's results so far, each of those
        used once (a copy of the list, emptied as it is matched: an entry's results are
        few, and the list's own search is the fastest way through them)."""
        if not expected:
            return ()
        left = self._results.copy()
        out = []
        for text in expected:
            try:
                left.remove(text)
            except ValueError:
                out.append(text)
        return tuple(out)


def _class_differing(class_name: str, model: object, truth: object) -> tuple[str, ...]:
    """The public attributes of ``truth`` (an instance) that ``model`` differs in by ``!=``."""
    out = []
    for attribute, truth_value in vars(truth).items():
        if attribute[:1] == "_":
            continue
        if getattr(model, attribute, MISSING) != truth_value:
            out.append(f"{class_name}.{attribute}")
    return tuple(out)


def check_entry(
    entry: tuple[str, Sequence[str], Mapping[str, Any], bool],
    model_turns: Sequence[Sequence[Sequence[str]]],
    truth_turns: Sequence[Sequence[str]],
    gate: CallGate | None = None,
) -> list[TurnRow]:
    """Every turn of an entry (its id, classes, initial configuration, long-context loading)
    executed on both sides from its initial configuration and checked: a row per turn."""
    checks = TurnChecks(*(BfclEnvironment(*entry, side, gate) for side in SIDES))
    for steps, calls in zip(model_turns, truth_turns):
        model_results = tuple(tuple(checks.model.execute(step)) for step in steps)
        checks.check(steps, calls, model_results, tuple(checks.truth.execute(calls)))
    return checks.rows


Readings = dict[int, tuple[AttributeDifference, ...]]


class CheckedTurns:
    """An entry's turns as checked (``rows``, a ``TurnRow`` each), and their differing
    attributes read to JSON, made on first use (``readings``) by ``reader`` (``read_turns``
    in this process unless another is given).

    Reading executes the entry's calls again: where they give other results than the
    verdict saw, or leave equal an attribute it found different (the entry was changed since),
    it is a ConfigError."""

    def __init__(
        self,
        entry_id: str,
        classes: Sequence[str],
        config: Mapping[str, Any],
        long_context: bool,
        sides: tuple[str, str],
        rows: Sequence[TurnRow],
        reader: Callable[[CheckedTurns], Readings] | None = None,
    ) -> None:
        self.entry = (entry_id, classes, config, long_context)
        self.sides = sides
        self.rows = rows
        self._reader = reader
        self._read: Readings | None = None

    def readings(self, index: int) -> tuple[AttributeDifference, ...]:
        """Turn ``index``'s differing attributes, each side read to JSON."""
        if self._read is None:
            self._read = (self._reader or read_turns)(self)
        return self._read.get(index, ())


def read_turns(checked_turns: CheckedTurns, gate: CallGate | None = None) -> Readings:
    """The differing attributes of each turn that has some, read to JSON as the turn left
    them: the entry's calls executed again from its initial configuration."""
    rows = checked_turns.rows
    wanted = [index for index, row in enumerate(rows) if row[2]]
    if not wanted:
        return {}
    entry_id = checked_turns.entry[0]
    model, truth = (
        BfclEnvironment(*checked_turns.entry, side, gate) for side in checked_turns.sides
    )
    out: Readings = {}
    kept: dict[str, tuple[AttributeDifference, ...]] = {}  # class name -> its last reading
    for index, row in enumerate(rows[: wanted[-1] + 1]):
        differing, steps, calls = row[2], row[4], row[5]
        results = tuple(tuple(model.execute(step)) for step in steps)
        truth.execute(calls)
        if results != row[6]:
            raise _changed(entry_id, index)
        if not differing:
            continue  # (the classes with calls meanwhile are read again at the next reading)
        for class_name in (*model.calls, *truth.calls):
            kept.pop(class_name, None)
        model.calls.clear()
        truth.calls.clear()
        out[index] = tuple(
            difference
            for class_name in dict.fromkeys(name.split(".", 1)[0] for name in differing)
            for difference in _class_readings(
                kept, class_name, differing, model, truth, entry_id, index
            )
        )
    return out


def _class_readings(
    kept: dict[str, tuple[AttributeDifference, ...]],
    class_name: str,
    differing: tuple[str, ...],
    model: BfclEnvironment,
    truth: BfclEnvironment,
    entry_id: str,
    index: int,
) -> tuple[AttributeDifference, ...]:
    """One class's differing attributes read now, or as read before where no call was made
    on it since."""
    if class_name in kept:
        return kept[class_name]
    model_instance = model.instances[class_name]
    truth_instance = truth.instances[class_name]
    read = []
    for name in differing:
        owner, attribute = name.split(".", 1)
        if owner != class_name:
            continue
        model_value = getattr(model_instance, attribute, MISSING)
        truth_value = getattr(truth_instance, attribute, MISSING)
        if not model_value != truth_value:
            raise _changed(entry_id, index)
        at = key_segment(key_segment("", class_name), attribute)
        read.append(
            AttributeDifference(class_name, attribute, *_read_apart(model_value, truth_value, at))
        )
    kept[class_name] = tuple(read)
    return kept[class_name]


def _changed(entry_id: str, index: int) -> ConfigError:
    return ConfigError(
        f"BFCL entry {entry_id}: its calls, executed again to read turn {index}'s states for "
        f"the fields, did not give what the verdict saw (was the entry changed after the "
        f"verdict?)"
    )


def _read_apart(model: object, truth: object, at: str) -> tuple[object, object]:
    """Both sides of a differing attribute read to JSON along what differs (a whole file
    system's tree is read along the one file that changed), each side as text where it is
    not JSON."""
    if model is not MISSING:
        try:
            return read_apart(model, truth, at)
        except JsonMatchError:
            pass
    return _readable(model, at), _readable(truth, at)


def _readable(value: object, at: str) -> object:
    if value is MISSING:
        return Unreadable("<no such attribute>")
    try:
        return read_state_at(value, at)
    except JsonMatchError:
        return Unreadable(repr(value)[:500])
