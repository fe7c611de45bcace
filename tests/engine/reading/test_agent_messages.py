"""Every vendor's messages read into one model (reading/agent_messages.py), seen as the
trajectory metric's steps: calls, tool results, the answer, other messages; a reply's calls
and answer; and what cannot be read named where it is."""

from __future__ import annotations

import pytest

from pytest_jsonmatch import ParseError, match_json
from pytest_jsonmatch.engine.reading.agent_messages import read_calls, read_messages, read_reply
from pytest_jsonmatch.engine.trajectories.trajectory_metric import messages_of, read_steps


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
        (*SEARCH, 0),
        ("call", "assistant", "open", {}, 0),
        ("result", "tool", "", {}, 1),
        ("answer", "assistant", "", {}, 2),
    ]


def test_the_items_of_one_responses_turn_are_one_message():
    # a turn's message item, its reasoning and its calls side by side: one assistant message
    # (its text the answer, its calls its calls), as the chat form gives one turn
    text = {
        "type": "message",
        "role": "assistant",
        "content": [{"type": "output_text", "text": "ok"}],
    }
    call = {"type": "function_call", "call_id": "a", "name": "search", "arguments": '{"q": "a"}'}
    items = [{"type": "reasoning", "summary": []}, text, call, {**call, "call_id": "b"}]
    (message,) = read_messages(items)
    assert (message.role, message.answer, [c.name for c in message.calls]) == (
        "assistant",
        "ok",
        ["search", "search"],
    )
    # two message items are two turns; a result ends a turn
    assert len(read_messages([text, text])) == 2
    output = {"type": "function_call_output", "call_id": "a", "output": "r"}
    assert [m.role for m in read_messages([call, output, call])] == [
        "assistant",
        "tool",
        "assistant",
    ]


def test_gemini_contents_their_results_and_a_content_without_its_role():
    contents = [
        {"role": "user", "parts": [{"text": "find a"}]},
        {"role": "model", "parts": [{"functionCall": {"name": "search", "args": {"q": "a"}}}]},
        {"role": "user", "parts": [{"functionResponse": {"name": "search", "response": {}}}]},
        {"parts": [{"text": "thinking", "thought": True}, {"text": "found"}]},
    ]
    assert (
        kinds({"contents": contents})
        == kinds(contents)
        == [
            ("message", "user", "", {}, 0),
            (*SEARCH, 1),
            ("result", "tool", "", {}, 2),
            ("answer", "assistant", "", {}, 3),
        ]
    )
    assert read_messages(contents)[3].answer == "found"
    assert read_steps(contents, "actual")[1].where == "[1].parts[0].functionCall"


def test_langchain_tool_calls_are_calls_for_the_tool_calls_metric_too():
    message = {
        "type": "ai",
        "content": "",
        "tool_calls": [{"name": "search", "args": {"q": "a"}, "id": "1", "type": "tool_call"}],
    }
    assert [(c.name, c.arguments, c.where) for c in read_calls(message)] == [
        ("search", {"q": "a"}, "tool_calls[0]")
    ]
    expected = [{"name": "search", "arguments": {"q": "a"}}]
    assert match_json(message, expected, metric="tool_calls").score == 1.0


def test_a_reply_is_its_calls_and_its_texts_joined():
    blocks = [
        {"type": "text", "text": "one"},
        {"type": "tool_use", "id": "t", "name": "search", "input": {"q": "a"}},
        {"type": "text", "text": "two"},
    ]
    reply = read_reply(blocks)  # an Anthropic message's content given bare: one turn
    assert (reply.answer, [c.name for c in reply.calls]) == ("one\ntwo", ["search"])
    assert read_reply({"role": "assistant", "content": {"pnr": "AB12"}}).answer == {"pnr": "AB12"}
    with pytest.raises(ParseError, match="actual is not an agent's reply"):
        read_reply({"pnr": "AB12"})


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


def test_one_message_alone_an_empty_run_and_a_message_without_its_role():
    assert kinds({"role": "user", "content": "x"}) == [("message", "user", "", {}, 0)]
    assert kinds([]) == []
    # content without a role is what a model gave: the assistant's (Gemini's role is optional)
    assert kinds([{"content": "x"}]) == [("answer", "assistant", "", {}, 0)]


@pytest.mark.parametrize(
    ("value", "words"),
    [
        ("text", "actual holds no tool calls or messages: 'text'"),
        ({"steps": []}, "is neither a call nor a message"),
        ([1], "actual [0] must be a message, a call or a step (an object), not 1"),
        ([{"kind": "x", "n": 1}], "actual [0]: {'kind': 'x', 'n': 1} is neither a call nor"),
        ([{"role": 3}], "actual message at [0]: its role must be text"),
        (
            [{"role": "assistant", "tool_calls": ["x"]}],
            "actual call at [0].tool_calls[0] must be an object",
        ),
        (
            [{"role": "assistant", "tool_calls": [{"id": "1", "type": "x"}]}],
            "actual call at [0].tool_calls[0] is no call",
        ),
        ([{"name": "f", "arguments": "[1"}], "actual [0].arguments (call 'f')"),
        ([{"role": "assistant", "tool_calls": "f"}], "actual message at [0]: its tool_calls must"),
        (
            [{"role": "user"}, {"role": "assistant", "content": [{"type": "tool_use"}]}],
            "actual call at [1].content[0]: its name must be text, not None",
        ),
        ([{"role": "model", "parts": "found"}], "actual message at [0]: its parts must be a list"),
    ],
)
def test_what_cannot_be_read_is_named(value, words):
    with pytest.raises(ParseError) as caught:
        read_steps(value, "actual")
    assert words in str(caught.value)
