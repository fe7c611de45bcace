"""Tool calls read from every vendor's form into names and arguments (reading/agent_messages.py),
and the expected side: BFCL's possible answers and every vendor's tools (tool_calls/expected_calls.py)."""

from __future__ import annotations

import pytest

from pytest_jsonmatch import ParseError, TruncatedError
from pytest_jsonmatch.engine.reading.agent_messages import read_calls
from pytest_jsonmatch.engine.tool_calls import read_expected_calls, read_tools


def named(calls):
    return [(call.name, call.arguments) for call in calls]


WEATHER = ("get_weather", {"location": "Paris", "unit": "celsius"})
TIME = ("get_time", {"zone": "CET"})


def test_openai_chat_completion_arguments_are_json_text():
    response = {
        "id": "chatcmpl-1",
        "choices": [
            {
                "index": 0,
                "finish_reason": "tool_calls",
                "message": {
                    "role": "assistant",
                    "content": None,
                    "tool_calls": [
                        {
                            "id": "call_1",
                            "type": "function",
                            "function": {
                                "name": "get_weather",
                                "arguments": '{"location": "Paris", "unit": "celsius"}',
                            },
                        },
                        {
                            "id": "call_2",
                            "type": "function",
                            "function": {"name": "get_time", "arguments": '{"zone":"CET"}'},
                        },
                    ],
                },
            }
        ],
    }
    calls = read_calls(response)
    assert named(calls) == [WEATHER, TIME]
    assert calls[1].where == "choices[0].message.tool_calls[1].function"
    # the message alone, and its list alone, read the same
    message = response["choices"][0]["message"]
    assert named(read_calls(message)) == [WEATHER, TIME]
    assert named(read_calls(message["tool_calls"])) == [WEATHER, TIME]


def test_openai_arguments_text_is_read_leniently_and_empty_text_is_no_arguments():
    fenced = '```json\n{"location": "Paris", "unit": "celsius"}\n```'
    calls = read_calls(
        [{"type": "function", "function": {"name": "get_weather", "arguments": fenced}}]
    )
    assert named(calls) == [WEATHER]
    none = read_calls([{"type": "function", "function": {"name": "ping", "arguments": ""}}])
    assert named(none) == [("ping", {})]


def test_openai_arguments_cut_off_are_named_as_cut():
    cut = {
        "type": "function",
        "function": {"name": "get_weather", "arguments": '{"location": "Par'},
    }
    with pytest.raises(TruncatedError) as caught:
        read_calls({"tool_calls": [cut]})
    message = str(caught.value)
    assert "tool_calls[0].function.arguments" in message
    assert "'get_weather'" in message and "cut off" in message


def test_a_message_without_calls_has_none():
    assert read_calls({"role": "assistant", "content": "It is sunny.", "tool_calls": None}) == []
    assert read_calls({"role": "assistant", "content": "It is sunny."}) == []


def test_openai_responses_function_call_items_among_other_output():
    response = {
        "output": [
            {"type": "reasoning", "summary": []},
            {
                "type": "message",
                "role": "assistant",
                "content": [{"type": "output_text", "text": "Checking."}],
            },
            {
                "type": "function_call",
                "call_id": "c1",
                "name": "get_weather",
                "arguments": '{"location": "Paris", "unit": "celsius"}',
            },
        ]
    }
    assert named(read_calls(response)) == [WEATHER]


def test_anthropic_tool_use_blocks():
    message = {
        "role": "assistant",
        "content": [
            {"type": "text", "text": "Let me look."},
            {"type": "tool_use", "id": "toolu_1", "name": "get_weather", "input": WEATHER[1]},
            {"type": "tool_use", "id": "toolu_2", "name": "get_time", "input": TIME[1]},
        ],
    }
    assert named(read_calls(message)) == [WEATHER, TIME]


def test_gemini_function_call_parts():
    response = {
        "candidates": [
            {
                "content": {
                    "role": "model",
                    "parts": [
                        {"text": "Looking it up."},
                        {"functionCall": {"name": "get_weather", "args": WEATHER[1]}},
                    ],
                }
            }
        ]
    }
    calls = read_calls(response)
    assert named(calls) == [WEATHER]
    assert calls[0].where == "candidates[0].content.parts[1].functionCall"


def test_plain_calls_and_bfcl_decoded_form():
    assert named(read_calls({"name": "get_weather", "arguments": WEATHER[1]})) == [WEATHER]
    assert named(read_calls([{"name": "get_time", "args": TIME[1]}])) == [TIME]
    assert named(read_calls([{"get_weather": WEATHER[1]}, {"get_time": TIME[1]}])) == [
        WEATHER,
        TIME,
    ]


@pytest.mark.parametrize(
    ("value", "words"),
    [
        (42, "holds no tool calls"),
        ({"foo": 1, "bar": 2}, "neither a call nor a message"),
        ([{"get_weather": "Paris"}], "its arguments must be an object"),
        ([{"name": 7, "arguments": {}}], "its name must be text"),
        ([{"type": "function", "function": {"name": "f", "arguments": "[1, 2]"}}], "f"),
        ([{"f": {"a": 1}, "g": {"b": 2}}], "names 2 functions"),
    ],
)
def test_what_is_no_call_is_a_parse_error_naming_it(value, words):
    with pytest.raises(ParseError, match=words):
        read_calls(value)


def test_expected_possible_answers_with_bfcl_function_documents():
    expected = {
        "ground_truth": [{"calc.area": {"base": [10], "unit": ["units", ""]}}],
        "function": [
            {
                "name": "calc.area",
                "parameters": {
                    "type": "dict",
                    "properties": {"base": {"type": "integer"}, "unit": {"type": "string"}},
                    "required": ["base"],
                },
            }
        ],
    }
    read = read_expected_calls(expected)
    (call,) = read.calls
    assert call.name == "calc.area"
    assert call.accepted == {"base": (10,), "unit": ("units",)}
    assert call.optional == frozenset({"unit"})
    assert read.tools is not None and read.tools[0].required == ("base",)


def test_expected_calls_in_any_form_with_tools_of_every_vendor():
    schema = {
        "type": "object",
        "properties": {"location": {"type": "string"}},
        "required": ["location"],
    }
    tools = [
        {"type": "function", "function": {"name": "a", "parameters": schema}},  # OpenAI chat
        {"type": "function", "name": "b", "parameters": schema},  # OpenAI Responses
        {"name": "c", "input_schema": schema},  # Anthropic
        {"functionDeclarations": [{"name": "d", "parameters": schema}]},  # Gemini
    ]
    read = read_tools(tools)
    assert [(t.name, t.required) for t in read] == [(n, ("location",)) for n in "abcd"]
    expected = read_expected_calls(
        {"calls": [{"name": "a", "arguments": {"location": "X"}}], "tools": tools}
    )
    assert expected.calls[0].accepted == {"location": ("X",)}
    with pytest.raises(ParseError, match="put the expected calls under 'calls'"):
        read_expected_calls({"tools": tools})
    with pytest.raises(ParseError, match="must be a list of acceptable values"):
        read_expected_calls({"possible_answer": [{"a": {"location": "X"}}]})
