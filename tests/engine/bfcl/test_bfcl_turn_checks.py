"""The turn checks of BFCL's multi-turn verdict: the shortcuts give what comparing everything
gives, and the fields read later are those of the states as each turn left them.

``TurnChecks`` compares a class only where a call was made on it since the last turn, and not
while both sides have made the same calls on it; ``CheckedTurns`` reads the differing
attributes by executing the entry's calls again. The first test holds both, on every entry of
the four multi-turn categories with every kind of model output of the differential test,
against a plain checking of the same executed instances: every public attribute of every class
compared after every checked turn, and each differing one read at once. The others work
single cases by hand.
"""

from __future__ import annotations

import copy
from typing import Any

import pytest

pytest.importorskip("bfcl_eval", reason="pip install --no-deps bfcl-eval")

from pytest_jsonmatch import ConfigError, bfcl_multi_turn_verdict
from pytest_jsonmatch.engine.bfcl import bfcl_turn_checks
from pytest_jsonmatch.engine.bfcl.bfcl_execution import BfclEnvironment
from pytest_jsonmatch.engine.bfcl.bfcl_turn_checks import CheckedTurns, TurnChecks
from pytest_jsonmatch.engine.core.paths import key_segment
from pytest_jsonmatch.engine.core.values import MISSING
from tests.helpers.bfcl_multi_turn_entries import (
    CATEGORIES,
    KINDS,
    entries,
    loadable,
    output,
    theirs,
)

pytestmark = pytest.mark.slow  # about 6 s: every entry of four categories, 8 outputs each

SIDES = ("jsonmatch_eval", "jsonmatch_ground_truth_eval")


def _every_difference(model: dict[str, Any], truth: dict[str, Any]) -> tuple[str, ...]:
    """Every public attribute of every class that differs by ``!=`` (no shortcut)."""
    return tuple(
        f"{name}.{attribute}"
        for name, instance in truth.items()
        for attribute, value in vars(instance).items()
        if not attribute.startswith("_") and getattr(model[name], attribute, MISSING) != value
    )


def _missing(expected: tuple[str, ...], so_far: list[str]) -> tuple[str, ...]:
    left = list(so_far)
    out = []
    for text in expected:
        if text in left:
            left.remove(text)
        else:
            out.append(text)
    return tuple(out)


def _read_now(model: BfclEnvironment, gt: BfclEnvironment, name: str) -> tuple[object, object]:
    """Both sides of a differing attribute (``Class.attribute``) read to JSON as they are."""
    class_name, attribute = name.split(".")
    return bfcl_turn_checks._read_apart(
        getattr(model.instances[class_name], attribute, MISSING),
        getattr(gt.instances[class_name], attribute),
        key_segment(key_segment("", class_name), attribute),
    )


def _judge_both_ways(entry: dict[str, Any], turns: list, truth: list) -> list[str]:
    """What the turn checks and the plain checking disagree on for one check (none: [])."""
    entry_id, classes, config = entry["id"], entry["involved_classes"], entry["initial_config"]
    long_context = "long_context" in entry_id
    model, gt = (BfclEnvironment(entry_id, classes, config, long_context, s) for s in SIDES)
    checks = TurnChecks(model, gt)
    so_far: list[str] = []
    read_then = {}
    wrong = []
    for index, (steps, calls) in enumerate(zip(turns, truth)):
        results = tuple(tuple(model.execute(step)) for step in steps)
        so_far.extend(text for step in results for text in step)
        expected = tuple(gt.execute(calls))
        checks.check(steps, calls, results, expected)
        row = checks.rows[-1]
        if not calls:
            continue
        plain = (_every_difference(model.instances, gt.instances), _missing(expected, so_far))
        if (row[2], row[3]) != plain:
            wrong.append(f"turn {index}: {row[2:4]} where comparing everything gives {plain}")
        read_then[index] = tuple(_read_now(model, gt, name) for name in plain[0])
    checked_turns = CheckedTurns(entry_id, classes, config, long_context, SIDES, checks.rows)
    for index, then in read_then.items():
        later = tuple((d.model, d.truth) for d in checked_turns.readings(index))
        if later != then:
            wrong.append(f"turn {index}: read later {later!r:.200} where read then {then!r:.200}")
    return wrong


@pytest.mark.whole_reference
@pytest.mark.parametrize("category", CATEGORIES)
def test_the_shortcuts_give_what_comparing_everything_gives(category: str) -> None:
    differ = []
    checked = 0
    for entry, truth in entries(category):
        if not loadable(entry):
            continue
        for kind in KINDS:
            turns = output(entry, truth, kind)
            if len(turns) != len(truth):
                continue
            checked += 1
            differ.extend(
                f"{entry['id']} {kind} {w}" for w in _judge_both_ways(entry, turns, truth)
            )
    assert differ == []
    assert checked >= 175 * len(KINDS) - 5  # (every loadable entry, nearly every output)


# -- by hand ----------------------------------------------------------------------------------

ENTRY = {
    "id": "multi_turn_base_demo",
    "involved_classes": ["GorillaFileSystem"],
    "initial_config": {
        "GorillaFileSystem": {
            "root": {
                "alex": {
                    "type": "directory",
                    "contents": {"notes.txt": {"type": "file", "content": "hi"}},
                }
            }
        }
    },
}


def test_the_same_text_is_not_the_same_call_where_the_rewrite_reaches_into_it() -> None:
    # BFCL writes each side's instance name before every method name followed by "(", in
    # string literals too: the same echo writes a different text on each side, and BFCL's
    # checker finds the states different. The two sides' calls are then not "the same".
    truth = [["touch(file_name='a.txt')"], ["echo(content='run ls() now', file_name='a.txt')"]]
    model = [[turn] for turn in truth]
    verdict = bfcl_multi_turn_verdict(ENTRY, model, truth)
    assert theirs(ENTRY, model, truth) == (False, "multi_turn:instance_state_mismatch")
    assert (verdict.valid, verdict.problem, verdict.failed_turn) == (
        False,
        "multi_turn:instance_state_mismatch",
        1,
    )
    # turn 0 right, turn 1 wrong: 1/2
    assert verdict.score == 0.5
    (field,) = verdict.fields
    assert field.path == 'turns[1].GorillaFileSystem.root.contents["a.txt"].content'
    assert (
        field.actual
        == "run jsonmatch_eval_multi_turn_base_demo_GorillaFileSystem_instance.ls() now"
    )


def test_fields_read_after_the_entry_changed_are_an_error() -> None:
    entry = copy.deepcopy(ENTRY)
    truth = [["cat(file_name='notes.txt')"], ["mkdir(dir_name='docs')"]]
    model = [[["cat(file_name='notes.txt')"]], [["mkdir(dir_name='other')"]]]
    verdict = bfcl_multi_turn_verdict(entry, model, truth)
    assert (verdict.valid, verdict.problem, verdict.turns[1].differing) == (
        False,
        "multi_turn:instance_state_mismatch",
        ("GorillaFileSystem.root",),
    )
    notes = entry["initial_config"]["GorillaFileSystem"]["root"]["alex"]["contents"]
    notes["notes.txt"]["content"] = "changed"  # (the model's first result is no longer "hi")
    with pytest.raises(
        ConfigError,
        match=r"BFCL entry multi_turn_base_demo: its calls, executed again to read turn 0's states",
    ):
        _ = verdict.fields


class _Counted:
    """A value equal to another of the same ``value``, counting the comparisons made."""

    compared = 0

    def __init__(self, value: int) -> None:
        self.value = value

    def __eq__(self, other: object) -> bool:
        _Counted.compared += 1
        return isinstance(other, _Counted) and self.value == other.value


class _Instance:
    def __init__(self, value: int) -> None:
        self.state = _Counted(value)


class _Side:
    """What ``TurnChecks`` reads of an environment: its instances and the calls made on each
    since it last looked."""

    def __init__(self) -> None:
        self.instances = {"A": _Instance(1), "B": _Instance(1)}
        self.calls: dict[str, list[str]] = {}


def test_a_class_is_compared_only_after_calls_that_may_have_parted_the_sides() -> None:
    model, truth = _Side(), _Side()
    checks = TurnChecks(model, truth)  # type: ignore[arg-type]
    _Counted.compared = 0

    def turn(ours: dict[str, list[str]], theirs_: dict[str, list[str]]) -> tuple[str, ...]:
        model.calls.update(ours)
        truth.calls.update(theirs_)
        checks.check([["c()"]], ["c()"], (("r",),), ("r",))
        return checks.rows[-1][2]

    # the same calls on A on both sides: not compared, nothing differs
    assert turn({"A": ["f(1)"]}, {"A": ["f(1)"]}) == ()
    assert _Counted.compared == 0
    # a call on A the truth did not make: A compared (one ==); equal, but A now stays
    # compared after every call on it
    assert turn({"A": ["g()"]}, {}) == ()
    assert _Counted.compared == 1
    model.instances["A"].state = _Counted(2)
    assert turn({"A": ["f(1)"]}, {"A": ["f(1)"]}) == ("A.state",)
    assert _Counted.compared == 2
    # no call on A: its difference stands without comparing; B still in step
    assert turn({"B": ["h()"]}, {"B": ["h()"]}) == ("A.state",)
    assert _Counted.compared == 2
