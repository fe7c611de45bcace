"""A model's reply that calls no tool, in every vendor's shape: it has no calls, and its
content (text, or the JSON answer the model wrote) is never read as a call."""

from __future__ import annotations

import pytest

from pytest_jsonmatch import ParseError, TargetResult, match_json
from pytest_jsonmatch.engine.reading.agent_messages import read_calls

# what a model writes when it answers instead of calling: JSON that, read as BFCL's decoded
# form, would be a call of a function named ``answer``
ANSWER = '{"answer": "Paris"}'

CHAT_MESSAGE = {"role": "assistant", "content": ANSWER, "tool_calls": None}

NO_CALL = {
    "chat message, tool_calls null": CHAT_MESSAGE,
    "chat message, tool_calls empty": {"role": "assistant", "content": ANSWER, "tool_calls": []},
    "chat message, tool_calls absent": {"role": "assistant", "content": ANSWER},
    "chat message, content null": {"role": "assistant", "content": None, "tool_calls": None},
    # content parts that look like calls in BFCL's form and the plain form: content still
    "chat message, call-like content parts": {
        "role": "assistant",
        "content": [{"get_weather": {"location": "Paris"}}],
        "tool_calls": None,
    },
    "chat message, plain-call-like content": {
        "role": "assistant",
        "content": [{"name": "get_weather", "arguments": {"location": "Paris"}}],
    },
    "chat completions response": {
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "choices": [{"index": 0, "finish_reason": "stop", "message": CHAT_MESSAGE}],
    },
    "Responses output, message items only": {
        "id": "resp_1",
        "object": "response",
        "output": [
            {"type": "reasoning", "id": "rs_1", "summary": []},
            {
                "type": "message",
                "role": "assistant",
                "content": [{"type": "output_text", "text": ANSWER, "annotations": []}],
            },
        ],
    },
    "Anthropic message, text blocks only": {
        "id": "msg_1",
        "type": "message",
        "role": "assistant",
        "content": [{"type": "text", "text": ANSWER}],
        "stop_reason": "end_turn",
    },
    "Gemini response, text parts only": {
        "candidates": [
            {"content": {"role": "model", "parts": [{"text": ANSWER}]}, "finishReason": "STOP"}
        ]
    },
    "Gemini content, text parts only": {
        "role": "model",
        "parts": [{"text": "thinking", "thought": True}, {"text": ANSWER}],
    },
    "TargetResult, tool_calls None": TargetResult(ANSWER, tool_calls=None).answer(),
    "TargetResult, tool_calls []": TargetResult(ANSWER, tool_calls=[]).answer(),
    "TargetResult, parsed output, tool_calls None": TargetResult(
        {"answer": "Paris"}, tool_calls=None
    ).answer(),
}


@pytest.mark.parametrize("actual", list(NO_CALL.values()), ids=list(NO_CALL))
def test_a_reply_with_no_call_has_none(actual):
    assert read_calls(actual) == []


@pytest.mark.parametrize("actual", list(NO_CALL.values()), ids=list(NO_CALL))
def test_no_call_expected_and_none_made_scores_1(actual):
    # no field on either side: every denominator is 0, so P = R = F1 = 1 (docs/metrics.md)
    result = match_json(actual, [], metric="tool_calls")
    assert (result.score, result.precision, result.recall) == (1.0, 1.0, 1.0)
    assert result.fields == ()


@pytest.mark.parametrize("actual", list(NO_CALL.values()), ids=list(NO_CALL))
def test_an_expected_call_against_no_call_is_an_omission(actual):
    # the name and its one argument are omissions: nothing made, so P = 0/0 = 1, R = 0/2,
    # F1 = 0
    expected = [{"name": "get_weather", "arguments": {"location": "Paris"}}]
    result = match_json(actual, expected, metric="tool_calls")
    assert [(f.path, f.status, f.score) for f in result.fields] == [
        ("get_weather", "omission", 0.0),
        ("get_weather.location", "omission", 0.0),
    ]
    assert (result.score, result.precision, result.recall) == (0.0, 1.0, 0.0)


def test_a_target_result_tells_tool_calls_left_out_from_none():
    # left out: the bare output; given, even as None or [], the assistant message
    assert TargetResult(ANSWER).answer() == ANSWER
    for calls in (None, []):
        assert TargetResult(ANSWER, tool_calls=calls).answer() == {
            "role": "assistant",
            "content": ANSWER,
            "tool_calls": calls,
        }
    assert TargetResult(ANSWER, tool_calls=None) != TargetResult(ANSWER)
    assert repr(TargetResult(ANSWER)).endswith("tool_calls=NOT_GIVEN)")


def test_the_legacy_function_call_of_a_message_with_tool_calls_null_is_its_call():
    message = {
        "role": "assistant",
        "content": None,
        "function_call": {"name": "get_weather", "arguments": '{"location": "Paris"}'},
        "tool_calls": None,
    }
    calls = read_calls(message)
    assert [(c.name, c.arguments, c.where) for c in calls] == [
        ("get_weather", {"location": "Paris"}, "function_call")
    ]


def test_a_message_whose_tool_calls_are_not_a_list_is_refused():
    message = {"role": "assistant", "content": ANSWER, "tool_calls": "get_weather"}
    with pytest.raises(
        ParseError,
        match=r"actual message at \$: its tool_calls must be a list of calls or null "
        r"\(no call\), not 'get_weather'",
    ):
        read_calls(message)


def test_the_plain_forms_are_still_calls():
    # a BFCL call of a function that happens to be named like a message's key, and the
    # plain form beside a role-less list: still calls
    assert [c.name for c in read_calls([{"tool_calls": {"a": 1}}])] == ["tool_calls"]
    assert [c.name for c in read_calls({"calls": [{"name": "f", "arguments": {}}]})] == ["f"]
