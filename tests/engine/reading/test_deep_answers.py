"""A model's answer reads alike wherever it is read from (engine/reading/parse.py, deep_json.py).

The lenient reading of an answer (the whole text, a fence, an object in prose, a cut answer
closed) reads JSON through deep_json: a value nested up to the door's 2,000 levels is read,
past them it is the door's error naming where, and neither depends on how deep in the
call stack the reading happens. An answer nested 960 levels used to score at the top of a
program and be "no JSON object found" 60 calls deeper (where pytest calls it), and one
nested 1,000 to 2,000 levels was always "no JSON object found".
"""

from __future__ import annotations

from collections.abc import Callable

import pytest

from pytest_jsonmatch import AgentRun, ParseError, match_json, match_run, parse_actual
from pytest_jsonmatch.engine.core.depth import call_with_depth
from pytest_jsonmatch.engine.reading.parse import parse_actual_checked
from pytest_jsonmatch.engine.tool_calls.argument_checks import json_key

FRAMES = 200  # calls between the test and the reading: deeper than pytest's own


def _beneath(frames: int, fn: Callable[[], object]) -> object:
    """``fn()`` called ``frames`` Python calls deeper than here."""
    return fn() if frames == 0 else _beneath(frames - 1, fn)


def _outcome(fn: Callable[[], object]) -> object:
    """What ``fn()`` gives: ("value", its value and the value written out flat, so that two
    deep values compare without recursion) or ("error", the ParseError's message)."""
    try:
        value = fn()
    except ParseError as error:
        return ("error", str(error))
    return ("value", _Flat(value))


class _Flat:
    """A value that compares by its tokens written out without recursion (json_key)."""

    def __init__(self, value: object) -> None:
        self.value, self.key = value, json_key(value)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _Flat) and self.key == other.key

    def __repr__(self) -> str:
        return f"_Flat({len(self.key)} tokens)"


def _everywhere(fn: Callable[[], object]) -> object:
    """What ``fn()`` gives at the top, FRAMES calls deeper, and with all the stack it needs:
    the same each time (asserted), returned once."""
    here = _outcome(fn)
    assert _outcome(lambda: _beneath(FRAMES, fn)) == here
    assert call_with_depth(3_000, _outcome, fn) == here
    return here


def _nested(levels: int) -> str:
    """An answer whose ``answer`` is an array nested ``levels`` levels (``levels + 1`` with
    the object around it)."""
    return '{"answer": ' + "[" * levels + "]" * levels + "}"


def _levels(value: object) -> int:
    levels = 0
    while isinstance(value, list):
        levels, value = levels + 1, value[0] if value else None
    return levels


@pytest.mark.parametrize("levels", [960, 1_500, 1_999])
def test_an_answer_within_the_door_is_read_from_any_stack(levels):
    kind, flat = _everywhere(lambda: parse_actual(_nested(levels)))
    assert kind == "value" and _levels(flat.value["answer"]) == levels


DOOR = "actual: values nest too deeply (more than 2,000 levels, at answer" + "[0]" * 18 + "...)"


@pytest.mark.parametrize(
    "text",
    [
        _nested(2_000),
        _nested(2_500),
        "Here it is: " + _nested(2_500) + " -- done.",
        "```json\n" + _nested(2_500) + "\n```",
    ],
    ids=["just-past", "whole", "in-prose", "in-a-fence"],
)
def test_an_answer_past_the_door_is_the_door_s_error_from_any_stack(text):
    assert _everywhere(lambda: parse_actual(text)) == ("error", DOOR)


@pytest.mark.parametrize(
    "text",
    [
        "Here it is: " + _nested(1_500) + " -- done.",
        "```json\n" + _nested(1_500) + "\n```",
        "prose {not json} " + _nested(1_500),
    ],
    ids=["in-prose", "in-a-fence", "after-broken-braces"],
)
def test_an_answer_in_prose_or_a_fence_is_read_from_any_stack(text):
    kind, flat = _everywhere(lambda: parse_actual(text))
    assert kind == "value" and _levels(flat.value["answer"]) == 1_500


@pytest.mark.parametrize(
    "deep",
    [_nested(2_500), '{"a": ' + "[" * 2_500 + "1, oops" + "]" * 2_500 + "}"],
    ids=["past-the-door", "broken-past-the-door"],
)
def test_an_object_after_one_past_the_door_is_the_answer_from_any_stack(deep):
    # a value the door refuses is passed over, as one that does not parse: the object after
    # it is the answer (as it was where the standard reader ran out), now from anywhere
    text = deep + ' then {"ok": 1}'
    assert _everywhere(lambda: parse_actual(text)) == ("value", _Flat({"ok": 1}))


def test_broken_or_cut_deep_text_is_read_alike_from_any_stack():
    # broken before the door's depth: not JSON, and nothing else in the text
    broken = '{"a": ' + "[" * 1_500 + "1, oops" + "]" * 1_500 + "}"
    only = _everywhere(lambda: parse_actual(broken))
    assert only[0] == "error" and str(only[1]).startswith("no JSON object found in actual")
    # cut off (by max_tokens): an answer cut off, however deep, from anywhere
    cut = _nested(2_500)[:-100]
    verdict = _everywhere(lambda: parse_actual(cut))
    assert verdict[0] == "error" and str(verdict[1]).startswith("actual was cut off")


def test_a_deep_answer_cut_off_is_closed_from_any_stack():
    text = '{"answer": ' + "[" * 1_500 + "1, 2"  # cut off by max_tokens
    kind, flat = _everywhere(lambda: parse_actual_checked(text, truncated="close")[0])
    assert kind == "value" and _levels(flat.value["answer"]) == 1_500


def test_the_finding_match_json_and_match_run_score_from_a_deep_stack():
    # the attacker's repro: 960 levels scored at the top and were "no JSON object found" 60
    # frames deeper; 1,500 levels were "no JSON object found" everywhere
    for levels in (960, 1_500):
        text = _nested(levels)
        run = AgentRun([{"role": "user", "content": "q"}, {"role": "assistant", "content": text}])
        for frames in (0, 60, FRAMES):
            json_score = _beneath(frames, lambda t=text: match_json(t, {"answer": [[1]]}).score)
            run_score = _beneath(frames, lambda r=run: match_run(r, {"answer": [[1]]}).score)
            assert (json_score, run_score) == (0.0, 0.0)
    text = _nested(2_500)
    for frames in (0, FRAMES):
        with pytest.raises(ParseError, match=r"actual: values nest too deeply \(more than 2,000"):
            _beneath(frames, lambda: match_json(text, {"answer": 1}))
