"""``run_tools`` against a hostile model and hostile tool results, with the real ``openai``
client and a scripted chat-completions model on 127.0.0.1 (tests/helpers/http_models.py).

- a tool name the model makes up reaches MaxStepsError's message quoted: its newline never
  starts a line (``::warning::`` is a workflow command to GitHub Actions' log);
- a function's result JSON cannot write (a list inside itself, a key that is not text, an
  integer of 5,001 digits, 10,000 levels of nesting) or one too long is that call's error text, as a function that
  raised is: the run goes on, the model is sent the error, the run records it;
- a call's arguments are read as deeply as the door reads values (2,000 levels), past that
  refused with the door's error naming the depth, never "no JSON object found";
- the whole run is bounded: a response with more calls than a response may hold stops the
  run before any of them runs, and tool results past what a run may hold stop it at the
  call that passes (RunLimitError holding the run so far), never a MemoryError.
"""

from __future__ import annotations

import json

import pytest

from pytest_jsonmatch.integrations.openai_agent import (
    ERROR_CHARS,
    MAX_CALLS_PER_RESPONSE,
    MAX_RESULT_CHARS,
    MAX_RUN_RESULT_CHARS,
    MaxStepsError,
    RunLimitError,
    run_tools,
)
from tests.helpers.http_models import ChatModel, serving
from tests.helpers.timeout import within

openai = pytest.importorskip("openai")  # (the test extra installs it)

TOOLS = [{"type": "function", "function": {"name": "f", "parameters": {"type": "object"}}}]


def _calling(name: str, arguments: str = "{}") -> dict:
    call = {"id": "call_0", "type": "function", "function": {"name": name, "arguments": arguments}}
    return {"role": "assistant", "content": None, "tool_calls": [call]}


def _once(name: str, arguments: str = "{}"):
    """A model that calls ``name`` once, then answers "done" once it has a tool's result."""

    def say(body: dict) -> tuple[dict, str]:
        if any(message["role"] == "tool" for message in body["messages"]):
            return {"role": "assistant", "content": "done"}, "stop"
        return _calling(name, arguments), "tool_calls"

    return say


@pytest.fixture(scope="module")
def model():
    """One server for the module (a server's shutdown waits out its half-second poll);
    each test scripts what it says."""
    server = ChatModel(lambda body: server.script(body))
    with serving(server):
        yield server


def _run(model, say, functions: dict, **kwargs):
    """The run of ``functions`` with ``model`` speaking as ``say``, and what it was asked."""
    model.script = say
    model.asked.clear()
    with within(20, "run_tools"):
        client = openai.OpenAI(base_url=model.url, api_key="sk-test-secret", max_retries=0)
        run = run_tools(
            client,
            model="agent-1",
            messages=[{"role": "user", "content": "go"}],
            tools=TOOLS,
            functions=functions,
            **kwargs,
        )
    return run, model.asked


def test_a_tool_name_with_a_newline_starts_no_line_of_the_max_steps_message(model):
    hostile = "x\n::warning::pwned"
    with pytest.raises(MaxStepsError) as stopped:
        _run(model, lambda body: (_calling(hostile), "tool_calls"), {}, max_steps=2)
    message = str(stopped.value)
    assert "(its last calls: 'x\\n::warning::pwned')" in message
    assert "\n" not in message
    assert not any(line.lstrip().startswith("::") for line in message.splitlines())
    # neither the key nor the base URL is named
    assert "sk-test-secret" not in message and "127.0.0.1" not in message
    # the unknown tool the model was told of names it quoted too
    tool_message = stopped.value.run.messages[2]
    assert tool_message["content"] == "error: no tool named 'x\\n::warning::pwned'; the tools are "


def _cyclic() -> list:
    loop: list = [1]
    loop.append(loop)
    return loop


def _deep_list() -> list:
    deep: list = []
    for _ in range(10_000):
        deep = [deep]
    return deep


HOSTILE_RESULTS = {
    "a list inside itself": (
        _cyclic,
        "error: the result of 'f' cannot be written as JSON: it holds itself (a list or "
        "object inside itself)",
    ),
    "a key that is not text": (
        lambda: {(1, 2): 3},
        "error: the result of 'f' cannot be written as JSON: a key is not text (keys must be "
        "str, int, float, bool or None, not tuple)",
    ),
    "an integer of 5,001 digits": (
        lambda: 10**5000,
        "error: the result of 'f' cannot be written as JSON: an integer is too long to write "
        "(more digits than Python writes, 4,300 by default)",
    ),
    "a list nested 10,000 levels": (
        _deep_list,
        "error: the result of 'f' cannot be written as JSON: it nests too deeply",
    ),
    "a text past the bound": (
        lambda: "x" * (MAX_RESULT_CHARS + 1),
        f"error: the result of 'f' is {MAX_RESULT_CHARS + 1:,} characters long, more than "
        f"the {MAX_RESULT_CHARS:,} a tool result may be: return less",
    ),
}


@pytest.mark.parametrize("kind", list(HOSTILE_RESULTS))
def test_a_result_json_cannot_write_is_the_calls_error_and_the_run_goes_on(model, kind):
    tool, error = HOSTILE_RESULTS[kind]
    run, asked = _run(model, _once("f"), {"f": tool})
    # the question, the call, its result (the error), the answer
    assert [m["role"] for m in run.messages] == ["user", "assistant", "tool", "assistant"]
    assert run.messages[2] == {"role": "tool", "tool_call_id": "call_0", "content": error}
    assert run.messages[3]["content"] == "done"
    # the model was sent the error, and the recording holds it
    assert asked[1]["messages"][2]["content"] == error
    assert run.answer()["messages"][2]["content"] == error


def test_an_error_of_any_length_is_cut_and_one_whose_text_fails_is_named_by_its_type(model):
    class Unreadable(Exception):
        def __str__(self) -> str:
            raise RuntimeError("no text")

    def long_error() -> None:
        raise ValueError("y" * 10_000_000)

    def unreadable() -> None:
        raise Unreadable()

    run, _ = _run(model, _once("f"), {"f": long_error})
    content = run.messages[2]["content"]
    assert content.startswith("error: ValueError: yyy") and content.endswith("...")
    assert len(content) == ERROR_CHARS
    run, _ = _run(model, _once("f"), {"f": unreadable})
    assert run.messages[2]["content"] == (
        "error: Unreadable: (a Unreadable whose text cannot be read)"
    )


def _nested(depth: int) -> str:
    return '{"a":' * depth + "1" + "}" * depth


def _depth(value: object) -> int:
    levels = 0
    while isinstance(value, dict):
        value, levels = value["a"], levels + 1
    return levels


@pytest.mark.parametrize("depth", [1_000, 2_000])
def test_arguments_nested_as_deep_as_the_door_reads_reach_the_function(model, depth):
    seen = []
    run, _ = _run(
        model, _once("f", _nested(depth)), {"f": lambda a: seen.append(_depth(a)) or "ok"}
    )
    assert seen == [depth - 1]  # (the arguments object is the first level)
    assert run.messages[2]["content"] == "ok"


def test_arguments_nested_past_the_door_are_refused_with_its_depth_error(model):
    called = []
    run, _ = _run(model, _once("f", _nested(2_001)), {"f": lambda a: called.append(a)})
    assert called == []
    content = run.messages[2]["content"]
    assert content.startswith(
        "error: the arguments text of 'f': values nest too deeply (more than 2,000 levels, at a.a.a"
    )
    assert "no JSON object found" not in content
    assert run.messages[3]["content"] == "done"  # the run went on


def test_arguments_that_are_no_object_name_the_tool_quoted(model):
    run, _ = _run(model, _once("f", "[1]\n::error::x"), {"f": lambda: "ok"})
    content = run.messages[2]["content"]
    assert content == "error: no JSON object found in the arguments text of 'f': '[1]\\n::error::x'"
    assert json.loads(json.dumps(content)) == content


# -- the whole run is bounded: calls in one response, tool results kept ----------------------


def _flooding(calls: int):
    """A model that answers every request with ``calls`` calls of ``f``."""

    def say(body: dict) -> tuple[dict, str]:
        return {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": f"call_{k}",
                    "type": "function",
                    "function": {"name": "f", "arguments": "{}"},
                }
                for k in range(calls)
            ],
        }, "tool_calls"

    return say


def test_a_response_with_more_calls_than_a_response_may_hold_stops_the_run_unrun(model):
    ran = []
    with pytest.raises(RunLimitError) as stopped:
        _run(model, _flooding(MAX_CALLS_PER_RESPONSE + 1), {"f": lambda: ran.append(1) or "ok"})
    assert not isinstance(stopped.value, MaxStepsError)  # (a limit of its own, not max_steps)
    assert str(stopped.value) == (
        "run_tools: the model made 129 tool calls in one response (request 1), more than the "
        "128 a response may hold (MAX_CALLS_PER_RESPONSE); none of them was run and the run "
        "stops there (the error's run holds it so far)"
    )
    assert ran == []  # no call of the response was run
    # the run so far: the question and the response, its 129 calls as the model made them
    messages = stopped.value.run.messages
    assert [m["role"] for m in messages] == ["user", "assistant"]
    assert len(messages[1]["tool_calls"]) == 129


def test_tool_results_past_what_a_run_may_hold_stop_it_at_the_call_that_passes(model):
    ran = []

    def page() -> str:  # an ordinary tool: a page of a document, as long as a result may be
        ran.append(1)
        return "x" * MAX_RESULT_CHARS

    # 10 calls a response, each result 1,000,000 characters: the first response's 10 results
    # hold 10,000,000; the second's seventh would make 17,000,000, past 16,000,000
    with pytest.raises(RunLimitError) as stopped:
        _run(model, _flooding(10), {"f": page}, max_steps=3)
    assert not isinstance(stopped.value, MaxStepsError)
    assert str(stopped.value) == (
        "run_tools: the tool results of the run passed 16,000,000 characters "
        "(MAX_RUN_RESULT_CHARS) at the result of 'f' (call 7 of 10, request 2): that result "
        "is left out and the run stops there (the error's run holds it so far); return less, "
        "or see why the model asks for so much"
    )
    assert len(ran) == 17  # the calls after the one that passed were not run
    assert len(model.asked) == 2  # and the model was not asked again
    run = stopped.value.run
    # the question, 10 calls and their results, 10 calls and the 6 results within the limit
    assert [m["role"] for m in run.messages] == (
        ["user", "assistant", *["tool"] * 10, "assistant", *["tool"] * 6]
    )
    kept = sum(len(m["content"]) for m in run.messages if m["role"] == "tool")
    assert kept == 16 * MAX_RESULT_CHARS <= MAX_RUN_RESULT_CHARS
