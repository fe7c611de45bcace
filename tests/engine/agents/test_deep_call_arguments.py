"""A model's call arguments given as JSON text are read as deeply as the door reads values
(2,000 levels, docs/errors.md) on every path that reads them: a chat completion's
``function.arguments``, a Responses ``function_call`` item's ``arguments``, a run's calls
scored by ``trajectory``; past 2,000 levels they are refused with the door's error naming
the depth and where, never "no JSON object found" (which they were from about 1,000 levels,
where the standard library's reader runs out of recursion on CPython 3.10 and 3.11)."""

from __future__ import annotations

import pytest

from pytest_jsonmatch import ParseError, match_json
from pytest_jsonmatch.engine.reading.agent_messages import read_calls
from tests.helpers.timeout import within


def _text(depth: int) -> str:
    return '{"a":' * depth + "1" + "}" * depth


def _value(depth: int) -> object:
    value: object = 1
    for _ in range(depth):
        value = {"a": value}
    return value


def _depth(value: object) -> int:
    levels = 0
    while isinstance(value, dict):
        value, levels = value["a"], levels + 1
    return levels


def _chat(arguments: str) -> dict:
    call = {"id": "c", "type": "function", "function": {"name": "f", "arguments": arguments}}
    return {"role": "assistant", "content": None, "tool_calls": [call]}


def _responses(arguments: str) -> dict:
    return {"output": [{"type": "function_call", "name": "f", "arguments": arguments}]}


SHAPES = {"chat": _chat, "responses": _responses}
WHERE = {"chat": "tool_calls[0].function.arguments", "responses": "output[0].arguments"}


@pytest.mark.parametrize("shape", list(SHAPES))
@pytest.mark.parametrize("depth", [1_000, 2_000])
def test_arguments_nested_as_deep_as_the_door_reads_are_read(shape, depth):
    (call,) = read_calls(SHAPES[shape](_text(depth)))
    assert call.name == "f"
    assert _depth(call.arguments) == depth


@pytest.mark.parametrize("shape", list(SHAPES))
@pytest.mark.parametrize("depth", [2_001, 100_000])
def test_arguments_nested_past_the_door_are_refused_with_its_depth_error(shape, depth):
    with within(20, "a deep text refused"), pytest.raises(ParseError) as refused:
        read_calls(SHAPES[shape](_text(depth)))
    assert str(refused.value) == (
        f"actual {WHERE[shape]} (call 'f'): values nest too deeply (more than 2,000 levels, "
        f"at {'a.' * 29}a....)"
    )


@pytest.mark.parametrize("shape", list(SHAPES))
def test_deep_arguments_are_scored_by_tool_calls(shape):
    expected = [{"name": "f", "arguments": {"a": {"a": 1}}}]
    result = match_json(SHAPES[shape](_text(1_000)), expected, metric="tool_calls")
    # the call read and paired by its name; its deep argument differs from the shallow one
    assert [(f.path, f.status) for f in result.fields] == [("f", "match"), ("f.a", "mismatch")]


def test_a_runs_deep_arguments_are_scored_by_trajectory_and_refused_past_the_door():
    expected = [{"name": "f", "arguments": {"a": {"a": 1}}}]
    result = match_json([_chat(_text(1_000))], expected, metric="trajectory")
    assert [(f.path, f.status) for f in result.fields] == [
        ("[0].f", "match"),
        ("[0].f.a", "mismatch"),
    ]
    with pytest.raises(ParseError, match=r"values nest too deeply \(more than 2,000 levels"):
        match_json([_chat(_text(2_001))], expected, metric="trajectory")
