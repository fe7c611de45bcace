"""Every shape of a run read into steps: calls, tool results, the answer, other messages."""

from __future__ import annotations

import pytest

from pytest_jsonmatch import ParseError
from pytest_jsonmatch.engine.trajectories.run_steps import messages_of, read_steps


def kinds(value):
    return [(s.kind, s.role, s.name, s.arguments, s.message) for s in read_steps(value, "actual")]


SEARCH = ("call", "assistant", "search", {"q": "a"})


def test_openai_chat_messages():
    run = [
        {"role": "system", "content": "be brief"},
        {"role": "user", "content": "find a"},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": "1",
                    "type": "function",
                    "function": {"name": "search", "arguments": '{"q": "a"}'},
                },
                {"id": "2", "type": "function", "function": {"name": "open", "arguments": ""}},
            ],
        },
        {"role": "tool", "tool_call_id": "1", "content": "..."},
        {"role": "assistant", "content": "found", "tool_calls": []},
    ]
    assert kinds(run) == [
        ("message", "system", "", {}, 0),
        ("message", "user", "", {}, 1),
        (*SEARCH, 2),
        ("call", "assistant", "open", {}, 2),
        ("result", "tool", "", {}, 3),
        ("answer", "assistant", "", {}, 4),
    ]
    steps = read_steps(run, "actual")
    assert steps[2].where == "[2].tool_calls[0].function"
    assert messages_of(steps) == [[0], [1], [2, 3], [4], [5]]


def test_anthropic_messages():
    run = [
        {"role": "user", "content": "find a"},
        {
            "role": "assistant",
            "content": [
                {"type": "text", "text": "looking"},
                {"type": "tool_use", "id": "t1", "name": "search", "input": {"q": "a"}},
            ],
        },
        # two results in one user message: one step (agentevals reads one tool message)
        {
            "role": "user",
            "content": [
                {"type": "tool_result", "tool_use_id": "t1", "content": "r"},
                {"type": "tool_result", "tool_use_id": "t2", "content": "s"},
            ],
        },
        {"role": "assistant", "content": [{"type": "text", "text": "found"}]},
    ]
    assert kinds(run) == [
        ("message", "user", "", {}, 0),
        (*SEARCH, 1),
        ("result", "tool", "", {}, 2),
        ("answer", "assistant", "", {}, 3),
    ]


def test_langchain_message_dicts_under_messages():
    state = {
        "messages": [
            {"type": "human", "content": "find a"},
            {
                "type": "ai",
                "content": "",
                "tool_calls": [
                    {"name": "search", "args": {"q": "a"}, "id": "1", "type": "tool_call"}
                ],
            },
            {"type": "tool", "content": "r", "tool_call_id": "1"},
            {"role": "ai", "content": "found"},
        ]
    }
    assert kinds(state) == [
        ("message", "user", "", {}, 0),
        (*SEARCH, 1),
        ("result", "tool", "", {}, 2),
        ("answer", "assistant", "", {}, 3),
    ]
    assert read_steps(state, "actual")[1].where == "messages[1].tool_calls[0]"


def test_openai_responses_items():
    items = [
        {"type": "reasoning", "summary": []},
        {"type": "function_call", "call_id": "a", "name": "search", "arguments": '{"q": "a"}'},
        {"type": "function_call", "call_id": "b", "name": "open", "arguments": "{}"},
        {"type": "function_call_output", "call_id": "a", "output": "r"},
        {
            "type": "message",
            "role": "assistant",
            "content": [{"type": "output_text", "text": "ok"}],
        },
    ]
    # the two consecutive calls are one message, as the chat form would give them
    assert kinds({"id": "resp_1", "object": "response", "output": items}) == kinds(items)
    assert read_steps({"output": items}, "actual")[0].where == "output[1]"
    assert kinds(items) == [
        (*SEARCH, 1),
        ("call", "assistant", "open", {}, 1),
        ("result", "tool", "", {}, 2),
        ("answer", "assistant", "", {}, 3),
    ]


def test_plain_steps():
    steps = [
        {"name": "search", "arguments": {"q": "a"}},
        {"result": "r"},
        {"name": "search", "args": {"q": "a"}},
        {"answer": "found"},
    ]
    assert kinds(steps) == [
        (*SEARCH, 0),
        ("result", "tool", "", {}, 1),
        (*SEARCH, 2),
        ("answer", "assistant", "", {}, 3),
    ]


def test_one_message_alone_and_an_empty_run():
    assert kinds({"role": "user", "content": "x"}) == [("message", "user", "", {}, 0)]
    assert kinds([]) == []


@pytest.mark.parametrize(
    ("value", "words"),
    [
        ("text", "must be a list of messages or steps"),
        ({"steps": []}, "under 'messages'"),
        ([1], "step [0] must be an object"),
        ([{"content": "x"}], "step [0] is neither a message"),
        ([{"role": 3}], "its role must be text"),
        (
            [{"role": "assistant", "tool_calls": ["x"]}],
            "call at [0].tool_calls[0] must be an object",
        ),
        ([{"name": "f", "arguments": "[1"}], "actual step [0] arguments (call 'f')"),
        ([{"role": "assistant", "tool_calls": "f"}], "step [0]: its tool_calls must be a list"),
        (
            [{"role": "user"}, {"role": "assistant", "content": [{"type": "tool_use"}]}],
            "actual step [1] call at content[0]: its name must be text, not None",
        ),
    ],
)
def test_what_cannot_be_read_is_named(value, words):
    with pytest.raises(ParseError, match=None) as caught:
        read_steps(value, "actual")
    assert words in str(caught.value)
    assert "actual" in str(caught.value)
