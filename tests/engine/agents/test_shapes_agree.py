"""One run, and one reply, written in every vendor shape the reader takes (OpenAI chat and
Responses, Anthropic, Gemini, LangChain message dicts, plain steps): every agent API
(``tool_calls``, ``trajectory``, ``match_reply``, ``match_run``, ``AgentRun``, the answer a
golden case's update writes) gives each shape the same score and the same fields, all read
by engine/reading/agent_messages.py; a shape it does not take is a ParseError naming it."""

from __future__ import annotations

import json

import pytest

from pytest_jsonmatch import (
    AgentRun,
    ParseError,
    assert_json_match,
    match_json,
    match_reply,
    match_run,
)
from pytest_jsonmatch.engine.agents import answer_of, read_run

ASK = "Book a hotel in Paris for two nights"
SEARCH = {"q": "paris hotels"}
BOOK = {"hotel": "H1", "nights": 2}
FOUND, BOOKED = "H1, H2", '{"pnr": "AB12"}'
ANSWER = '{"hotel": "H1", "status": "booked"}'


def _chat_call(name: str, args: dict, cid: str) -> dict:
    function = {"name": name, "arguments": json.dumps(args)}
    return {"id": cid, "type": "function", "function": function}


def _openai_chat() -> list:
    return [
        {"role": "user", "content": ASK},
        {"role": "assistant", "content": None, "tool_calls": [_chat_call("search", SEARCH, "c1")]},
        {"role": "tool", "tool_call_id": "c1", "content": FOUND},
        {"role": "assistant", "content": None, "tool_calls": [_chat_call("book", BOOK, "c2")]},
        {"role": "tool", "tool_call_id": "c2", "content": BOOKED},
        {"role": "assistant", "content": ANSWER},
    ]


def _responses_call(name: str, args: dict, cid: str) -> dict:
    return {"type": "function_call", "call_id": cid, "name": name, "arguments": json.dumps(args)}


def _openai_responses() -> list:
    text = {"type": "output_text", "text": ANSWER, "annotations": []}
    return [
        {"type": "message", "role": "user", "content": ASK},
        {"type": "reasoning", "id": "rs_1", "summary": []},
        _responses_call("search", SEARCH, "c1"),
        {"type": "function_call_output", "call_id": "c1", "output": FOUND},
        _responses_call("book", BOOK, "c2"),
        {"type": "function_call_output", "call_id": "c2", "output": BOOKED},
        {"type": "message", "role": "assistant", "status": "completed", "content": [text]},
    ]


def _anthropic() -> list:
    def use(name: str, args: dict, tid: str) -> dict:
        block = {"type": "tool_use", "id": tid, "name": name, "input": args}
        return {"role": "assistant", "content": [block]}

    def result(tid: str, text: str) -> dict:
        block = {"type": "tool_result", "tool_use_id": tid, "content": text}
        return {"role": "user", "content": [block]}

    return [
        {"role": "user", "content": ASK},
        use("search", SEARCH, "t1"),
        result("t1", FOUND),
        use("book", BOOK, "t2"),
        result("t2", BOOKED),
        {"role": "assistant", "content": [{"type": "text", "text": ANSWER}]},
    ]


def _gemini() -> list:
    def call(name: str, args: dict) -> dict:
        return {"role": "model", "parts": [{"functionCall": {"name": name, "args": args}}]}

    def response(name: str, text: str) -> dict:
        part = {"functionResponse": {"name": name, "response": {"result": text}}}
        return {"role": "user", "parts": [part]}

    return [
        {"role": "user", "parts": [{"text": ASK}]},
        call("search", SEARCH),
        response("search", FOUND),
        call("book", BOOK),
        response("book", BOOKED),
        {"role": "model", "parts": [{"text": ANSWER}]},
    ]


def _langchain() -> list:
    def ai(name: str, args: dict, cid: str) -> dict:
        call = {"name": name, "args": args, "id": cid, "type": "tool_call"}
        return {"type": "ai", "content": "", "tool_calls": [call], "invalid_tool_calls": []}

    return [
        {"type": "human", "content": ASK},
        ai("search", SEARCH, "c1"),
        {"type": "tool", "content": FOUND, "tool_call_id": "c1"},
        ai("book", BOOK, "c2"),
        {"type": "tool", "content": BOOKED, "tool_call_id": "c2"},
        {"type": "ai", "content": ANSWER, "tool_calls": []},
    ]


def _plain_steps() -> list:
    return [
        {"role": "user", "content": ASK},
        {"name": "search", "arguments": SEARCH},
        {"result": FOUND},
        {"name": "book", "arguments": BOOK},
        {"result": BOOKED},
        {"answer": ANSWER},
    ]


RUNS = {
    "openai chat": _openai_chat,
    "openai responses": _openai_responses,
    "anthropic": _anthropic,
    "gemini": _gemini,
    "langchain": _langchain,
    "plain steps": _plain_steps,
}

# the expected trajectory: the wrong nights, so that each API has a mismatch to agree on
EXPECTED_RUN = [
    {"role": "user", "content": "..."},
    {"name": "search", "arguments": SEARCH},
    {"result": "..."},
    {"name": "book", "arguments": {"hotel": "H1", "nights": 3}},
    {"result": "..."},
    {"answer": "..."},
]
EXPECTED_CALLS = [
    {"name": "search", "arguments": SEARCH},
    {"name": "book", "arguments": {"hotel": "H1", "nights": 3}},
]
EXPECTED_ANSWER = {"hotel": "H1", "status": "confirmed"}


def _seen(result) -> tuple:
    """What every shape must agree on: the score and each field's paths and verdict (not
    where in the input a field was found, which is each shape's own)."""
    fields = tuple((f.path, f.field_path, f.status, f.expected, f.actual) for f in result.fields)
    return result.metric, round(result.score, 12), fields


def _through_every_api(run: list) -> dict:
    last = run[1:] if run and run[0].get("role") == "user" else run
    return {
        "trajectory strict": _seen(match_json(run, EXPECTED_RUN, metric="trajectory")),
        "trajectory unordered": _seen(
            match_json(run, EXPECTED_RUN, metric="trajectory", mode="unordered")
        ),
        "tool_calls": _seen(match_json(run, EXPECTED_CALLS, metric="tool_calls")),
        "match_run": _seen(match_run(run, EXPECTED_ANSWER, expected_run=EXPECTED_RUN[1:])),
        "match_run, run form": _seen(
            match_run({"messages": run, "state": {"n": 1}}, EXPECTED_ANSWER, EXPECTED_RUN[1:], {})
        ),
        "match_run of an AgentRun": _seen(
            match_run(AgentRun(run), EXPECTED_ANSWER, expected_run=EXPECTED_RUN[1:])
        ),
        "match_run, run without its question": _seen(
            match_run(last, None, expected_run=EXPECTED_RUN[1:])
        ),
        "a golden case's route": _seen(
            assert_json_match(
                AgentRun(run), EXPECTED_ANSWER, threshold=0, expected_run=EXPECTED_RUN[1:]
            )
        ),
        "the run's answer": read_run(AgentRun(run)).answer,
    }


def test_the_reference_run_scores_what_it_should():
    seen = _through_every_api(_openai_chat())
    assert seen["the run's answer"] == ANSWER
    score, fields = seen["match_run"][1:]
    # the answer's status and the booking's nights differ; every other field matches
    assert [f[0] for f in fields if f[2] != "match"] == ["status", "run[2].book.nights"]
    assert 0 < score < 1


@pytest.mark.parametrize("shape", [s for s in RUNS if s != "openai chat"])
def test_one_run_in_every_shape_scores_the_same_through_every_api(shape):
    reference = _through_every_api(_openai_chat())
    seen = _through_every_api(RUNS[shape]())
    assert seen == reference


# one reply: a sentence of text and two calls made at once, in each vendor's shape
REPLY_TEXT = ANSWER


def _reply_chat() -> dict:
    calls = [_chat_call("search", SEARCH, "c1"), _chat_call("book", BOOK, "c2")]
    return {"role": "assistant", "content": REPLY_TEXT, "tool_calls": calls}


REPLIES = {
    "openai chat message": _reply_chat,
    "openai chat response": lambda: {
        "object": "chat.completion",
        "choices": [{"index": 0, "message": _reply_chat(), "finish_reason": "tool_calls"}],
    },
    "openai responses output": lambda: [
        {"type": "reasoning", "id": "rs_1", "summary": []},
        {
            "type": "message",
            "role": "assistant",
            "content": [{"type": "output_text", "text": REPLY_TEXT, "annotations": []}],
        },
        _responses_call("search", SEARCH, "c1"),
        _responses_call("book", BOOK, "c2"),
    ],
    "openai responses response": lambda: {
        "object": "response",
        "output": REPLIES["openai responses output"](),
    },
    "anthropic message": lambda: {
        "type": "message",
        "role": "assistant",
        "content": [
            {"type": "text", "text": REPLY_TEXT},
            {"type": "tool_use", "id": "t1", "name": "search", "input": SEARCH},
            {"type": "tool_use", "id": "t2", "name": "book", "input": BOOK},
        ],
    },
    "gemini response": lambda: {
        "candidates": [
            {
                "content": {
                    "role": "model",
                    "parts": [
                        {"text": REPLY_TEXT},
                        {"functionCall": {"name": "search", "args": SEARCH}},
                        {"functionCall": {"name": "book", "args": BOOK}},
                    ],
                }
            }
        ]
    },
    "langchain ai message": lambda: {
        "type": "ai",
        "content": REPLY_TEXT,
        "tool_calls": [
            {"name": "search", "args": SEARCH, "id": "c1", "type": "tool_call"},
            {"name": "book", "args": BOOK, "id": "c2", "type": "tool_call"},
        ],
    },
}


def _reply_seen(reply: object) -> dict:
    return {
        "match_reply": _seen(match_reply(reply, EXPECTED_ANSWER, EXPECTED_CALLS)),
        "tool-only reply": _seen(match_reply(reply, None, EXPECTED_CALLS)),
        "tool_calls": _seen(match_json(reply, EXPECTED_CALLS, metric="tool_calls")),
        "a golden case's route": _seen(
            assert_json_match(reply, EXPECTED_ANSWER, threshold=0, expected_calls=EXPECTED_CALLS)
        ),
        "answer written on update": answer_of(reply),
    }


def test_the_reference_reply_scores_what_it_should():
    seen = _reply_seen(_reply_chat())
    assert seen["answer written on update"] == ANSWER
    fields = seen["match_reply"][2]
    assert [f[0] for f in fields if f[2] != "match"] == ["status", "book.nights"]


@pytest.mark.parametrize("shape", [s for s in REPLIES if s != "openai chat message"])
def test_one_reply_in_every_shape_scores_the_same_through_every_api(shape):
    assert _reply_seen(REPLIES[shape]()) == _reply_seen(_reply_chat())


UNREAD = {
    # a Gemini content whose parts are no list, a message of an unknown role shape
    "parts not a list": [{"role": "model", "parts": {"text": ANSWER}}],
    "a step of no known shape": [{"role": "user", "content": ASK}, {"kind": "result", "n": 1}],
    "a Gemini part of no known kind": [{"role": "model", "parts": [{"inlineData": {}}, 3]}],
}


@pytest.mark.parametrize("run", list(UNREAD.values()), ids=list(UNREAD))
@pytest.mark.parametrize("api", ["trajectory", "match_run", "AgentRun"])
def test_a_shape_the_reader_does_not_take_is_a_parse_error_naming_it(run, api):
    with pytest.raises(ParseError) as refused:
        if api == "trajectory":
            match_json(run, EXPECTED_RUN, metric="trajectory")
        elif api == "match_run":
            match_run(run, None, expected_run=EXPECTED_RUN)
        else:
            match_run(AgentRun(run), None, expected_run=EXPECTED_RUN)
    assert "[" in str(refused.value) and "\n" not in str(refused.value)
