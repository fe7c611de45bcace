"""A metric that makes its fields itself (``Metric.score_fields``: tool calls, trajectories)
never takes the unread walk: its sides are read by the door, which turns a client's objects
(an OpenAI SDK's pydantic tool calls) into JSON, whatever its configuration lets the walk
take unread (``walks_unread`` admits arrays paired by index, every such metric's default)."""

from __future__ import annotations

import json

import pytest

from pytest_jsonmatch import match_json
from pytest_jsonmatch.engine.entry import entry_for
from pytest_jsonmatch.engine.metrics import REGISTRY

chat = pytest.importorskip("openai.types.chat")  # (the test extra installs the client)


def _call(city: str, unit: str) -> object:
    arguments = json.dumps({"location": city, "unit": unit})
    # (the class's name in the SDK's releases before function and custom calls were two)
    made = getattr(chat, "ChatCompletionMessageFunctionToolCall", None)
    made = made or chat.ChatCompletionMessageToolCall
    return made(
        id=f"call_{city}", type="function", function={"name": "get_weather", "arguments": arguments}
    )


def test_no_metric_that_scores_its_own_fields_walks_unread() -> None:
    own = {name for name, metric in REGISTRY.metrics.items() if metric.score_fields is not None}
    assert own >= {"tool_calls", "trajectory"}
    assert not [name for name in sorted(own) if entry_for(name, {}).unread]
    # (where the walk scores, its configuration decides: json_similarity's index arrays)
    assert entry_for("json_similarity", {}).unread


def test_an_sdk_message_s_tool_calls_are_read_by_the_door() -> None:
    """The assistant message as a plain dict holding the SDK's call objects: scored as its
    JSON form is (the Oslo call's unit wrong: one of three fields)."""
    expected = {
        "calls": [
            {"name": "get_weather", "arguments": {"location": "Paris", "unit": "celsius"}},
            {"name": "get_weather", "arguments": {"location": "Oslo", "unit": "fahrenheit"}},
        ]
    }
    calls = [_call("Paris", "celsius"), _call("Oslo", "celsius")]
    message = {"role": "assistant", "content": None, "tool_calls": calls}
    plain = json.loads(json.dumps({**message, "tool_calls": [c.model_dump() for c in calls]}))
    got = match_json(message, expected, metric="tool_calls")
    assert got.score == match_json(plain, expected, metric="tool_calls").score < 1.0
    assert [f.path for f in got.fields if f.status != "match"] == [
        f.path
        for f in match_json(plain, expected, metric="tool_calls").fields
        if f.status != "match"
    ]
