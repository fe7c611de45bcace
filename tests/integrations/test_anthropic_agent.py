"""``run_tools`` with the real ``anthropic`` client against a model on 127.0.0.1 speaking the
Messages API (tests/helpers/messages_model.py): the loop that drives the ``openai`` client
(test_openai_agent.py, test_run_tools_hostile.py) drives this one in its own words.

- the run comes back whole in the API's form: ``tool_use`` blocks, the results of one
  response's parallel calls in one user message of ``tool_result`` blocks, the usage summed
  (cache reads counted as input), the state read when it ends; its JSON form is what a
  recording holds, and ``match_run`` scores it as it scores an OpenAI run;
- a tool that raises, an unknown tool, a result too long are the tool result's ``error: ...``
  text (``is_error``), cut to ERROR_CHARS, and the run goes on;
- the limits are the same: MAX_CALLS_PER_RESPONSE, MAX_RUN_RESULT_CHARS (RunLimitError
  holding the run so far), max_steps (MaxStepsError);
- what the Messages API needs is said before any request: max_tokens; an async client, a
  client of neither API, a response without content blocks are ConfigErrors.
"""

from __future__ import annotations

import gc
import importlib
import importlib.util
import json
import warnings
from types import ModuleType

import pytest

from pytest_jsonmatch import AgentRun, ConfigError, match_run
from pytest_jsonmatch.integrations.anthropic_agent import (
    ERROR_CHARS,
    MAX_CALLS_PER_RESPONSE,
    MAX_RESULT_CHARS,
    MAX_RUN_RESULT_CHARS,
    MaxStepsError,
    RunLimitError,
    run_tools,
)
from tests.helpers.http_models import ChatModel, serving
from tests.helpers.messages_model import MessagesModel, tool_use, travel_agent
from tests.helpers.timeout import within

from .agent_server import Airline

# (the test extra installs it; imported by the first test that makes a client, not when the
# module is collected: 1.5 s of CPU that every xdist worker would pay before its first test,
# whether or not it runs one of these)
pytestmark = pytest.mark.skipif(
    importlib.util.find_spec("anthropic") is None, reason="anthropic is not installed"
)


def _anthropic() -> ModuleType:
    return importlib.import_module("anthropic")


TOOLS = [
    {"name": name, "input_schema": {"type": "object"}} for name in ("search_flights", "book_flight")
]
TWO_CITIES = "Book flights to Oslo and to Paris"


@pytest.fixture(scope="module")
def model():
    """One server for the module; each test scripts what it says (the travel agent unless
    it says otherwise)."""
    server = MessagesModel(lambda body: server.script(body))
    with serving(server):
        yield server


@pytest.fixture
def say(model):
    model.asked.clear()
    model.script = travel_agent
    return model


def _client(model, cls=None):
    return (cls or _anthropic().Anthropic)(base_url=model.url, api_key="test-key", max_retries=0)


def _run(model, question: str, functions: dict | None = None, **kwargs) -> tuple[AgentRun, Airline]:
    airline = Airline()
    given = {"search_flights": airline.search_flights, "book_flight": airline.book_flight}
    kwargs.setdefault("max_tokens", 1024)
    with within(20, "run_tools"):
        run = run_tools(
            _client(model),
            model="claude-test",
            messages=[{"role": "user", "content": question}],
            tools=TOOLS,
            functions=given if functions is None else functions,
            state=airline,
            **kwargs,
        )
    return run, airline


BOOKED = [
    {"pnr": "PNR1", "flight": "SK401", "date": "2026-12-01"},
    {"pnr": "PNR2", "flight": "SK501", "date": "2026-12-01"},
]


def test_parallel_calls_come_back_whole_in_the_messages_apis_form(say):
    run, airline = _run(say, TWO_CITIES)
    assert [m["role"] for m in run.messages] == [
        "user",
        "assistant",
        "user",
        "assistant",
        "user",
        "assistant",
    ]
    # the first response: a text block and two searches, as the client gave them
    assert run.messages[1] == {
        "role": "assistant",
        "content": [
            {"type": "text", "text": "Searching."},
            tool_use("search_flights", {"to": "Oslo", "date": "2026-12-01"}, "toolu_0_0"),
            tool_use("search_flights", {"to": "Paris", "date": "2026-12-01"}, "toolu_0_1"),
        ],
    }
    # both results in one user message, in the calls' order
    assert run.messages[2] == {
        "role": "user",
        "content": [
            {
                "type": "tool_result",
                "tool_use_id": "toolu_0_0",
                "content": '[{"flight": "SK401", "to": "Oslo", "date": "2026-12-01"}]',
            },
            {
                "type": "tool_result",
                "tool_use_id": "toolu_0_1",
                "content": '[{"flight": "SK501", "to": "Paris", "date": "2026-12-01"}]',
            },
        ],
    }
    assert [b["tool_use_id"] for b in run.messages[4]["content"]] == ["toolu_1_0", "toolu_1_1"]
    assert json.loads(run.messages[5]["content"][0]["text"]) == {
        "bookings": [{"pnr": "PNR1", "flight": "SK401"}, {"pnr": "PNR2", "flight": "SK501"}],
        "status": "booked",
    }
    # what the model was sent is the run: its second request held the first four messages
    assert say.asked[1]["messages"] == list(run.messages[:3])
    assert say.asked[2]["max_tokens"] == 1024 and say.asked[2]["tools"] == TOOLS
    # three requests of 40 input, 10 read from the cache and 10 output tokens each
    assert (run.input_tokens, run.output_tokens) == (150, 30)
    assert run.state == {"bookings": BOOKED} and airline.bookings == BOOKED
    # the run's JSON form is what a recording holds, and reads back as the same run
    assert run.answer() == {"messages": list(run.messages), "state": run.state}
    assert AgentRun(**run.answer()).answer() == run.answer()


EXPECTED_RUN = [
    {"name": "search_flights", "arguments": {"to": "Oslo", "date": "2026-12-01"}},
    {"name": "search_flights", "arguments": {"to": "Paris", "date": "2026-12-01"}},
    {"name": "book_flight", "arguments": {"flight": "SK401", "date": "2026-12-01"}},
    {"name": "book_flight", "arguments": {"flight": "SK501", "date": "2026-12-01"}},
]
ANSWER = {
    "bookings": [{"pnr": "PNR1", "flight": "SK401"}, {"pnr": "PNR2", "flight": "SK501"}],
    "status": "booked",
}


def test_match_run_scores_a_messages_run_as_it_scores_an_openai_one(say):
    run, _ = _run(say, TWO_CITIES + " tomorrow")
    expected = {"expected_run": EXPECTED_RUN, "expected_state": {"bookings": BOOKED}}
    # (the JSON form, as a recording replays it)
    result = match_run(run.answer(), ANSWER, run_options={"mode": "superset"}, **expected)
    # answer: 5 rows, right; run: 12 rows (4 names, 8 arguments), the 4 dates wrong: F1 8/12;
    # state: 6 rows, the 2 dates wrong: F1 4/6. (5 + 12 * 8/12 + 6 * 4/6) / 23 = 17/23
    assert result.metric == "field_f1+trajectory+state"
    assert result.score == pytest.approx(17 / 23)
    assert sorted(f.path for f in result.fields if f.status != "match") == [
        "run[0].search_flights.date",
        "run[1].search_flights.date",
        "run[2].book_flight.date",
        "run[3].book_flight.date",
        "state.bookings[0].date",
        "state.bookings[1].date",
    ]
    right, _ = _run(say, TWO_CITIES)
    assert match_run(right, ANSWER, run_options={"mode": "superset"}, **expected).score == 1.0


def test_a_tool_that_raises_is_told_to_the_model_cut_and_marked_as_an_error(say):
    def book_flight(flight: str, date: str) -> dict:
        raise RuntimeError("the booking system is down " + "y" * 10_000)

    functions = {"search_flights": Airline().search_flights, "book_flight": book_flight}
    run, airline = _run(say, TWO_CITIES, functions)
    blocks = run.messages[4]["content"]
    assert [b["is_error"] for b in blocks] == [True, True]
    text = blocks[0]["content"]
    assert text.startswith("error: RuntimeError: the booking system is down yyy")
    assert text.endswith("...") and len(text) == ERROR_CHARS
    # the model was sent the error, answered, and the run went on to its end
    assert say.asked[2]["messages"][4]["content"][0]["content"] == text
    assert json.loads(run.messages[5]["content"][0]["text"])["status"] == "failed"
    assert airline.bookings == []


def _script(model, *responses: tuple[list[dict], str]):
    """``model`` saying ``responses`` in turn, then "done"."""
    said = iter(responses)
    model.script = lambda body: next(said, ([{"type": "text", "text": "done"}], "end_turn"))


def test_an_unknown_tool_and_a_result_too_long_are_errors_the_run_goes_on(say):
    _script(say, ([tool_use("cancel_flight", {}, "t1"), tool_use("page", {}, "t2")], "tool_use"))
    run, _ = _run(say, "go", {"page": lambda: "x" * (MAX_RESULT_CHARS + 1)})
    assert run.messages[2]["content"] == [
        {
            "type": "tool_result",
            "tool_use_id": "t1",
            "content": "error: no tool named 'cancel_flight'; the tools are page",
            "is_error": True,
        },
        {
            "type": "tool_result",
            "tool_use_id": "t2",
            "content": f"error: the result of 'page' is {MAX_RESULT_CHARS + 1:,} characters "
            f"long, more than the {MAX_RESULT_CHARS:,} a tool result may be: return less",
            "is_error": True,
        },
    ]
    assert run.messages[3]["content"] == [{"type": "text", "text": "done"}]


def test_arguments_given_as_text_are_read_as_the_scorer_reads_them(say):
    # (a server may give a tool_use's input as JSON text: read as OpenAI's arguments are)
    _script(say, ([tool_use("f", '{"a": 1}', "t1"), tool_use("f", [1], "t2")], "tool_use"))
    run, _ = _run(say, "go", {"f": lambda a: f"a={a}"})
    assert [b["content"] for b in run.messages[2]["content"]] == [
        "a=1",
        "error: the arguments of 'f' must be an object or JSON text holding one, not [1]",
    ]


def test_a_response_with_more_calls_than_a_response_may_hold_stops_the_run_unrun(say):
    ran = []
    flood = [tool_use("f", {}, f"t{k}") for k in range(MAX_CALLS_PER_RESPONSE + 1)]
    _script(say, (flood, "tool_use"))
    with pytest.raises(RunLimitError) as stopped:
        _run(say, "go", {"f": lambda: ran.append(1) or "ok"})
    assert not isinstance(stopped.value, MaxStepsError)
    assert str(stopped.value) == (
        "run_tools: the model made 129 tool calls in one response (request 1), more than the "
        "128 a response may hold (MAX_CALLS_PER_RESPONSE); none of them was run and the run "
        "stops there (the error's run holds it so far)"
    )
    assert ran == []
    messages = stopped.value.run.messages
    assert [m["role"] for m in messages] == ["user", "assistant"]
    assert len(messages[1]["content"]) == 129


def test_tool_results_past_what_a_run_may_hold_stop_it_at_the_call_that_passes(say):
    ran = []

    def page() -> str:
        ran.append(1)
        return "x" * MAX_RESULT_CHARS

    ten = ([tool_use("f", {}, f"t{k}") for k in range(10)], "tool_use")
    _script(say, ten, ten, ten)
    with pytest.raises(RunLimitError) as stopped:
        _run(say, "go", {"f": page}, max_steps=3)
    assert str(stopped.value) == (
        "run_tools: the tool results of the run passed 16,000,000 characters "
        "(MAX_RUN_RESULT_CHARS) at the result of 'f' (call 7 of 10, request 2): that result "
        "is left out and the run stops there (the error's run holds it so far); return less, "
        "or see why the model asks for so much"
    )
    assert len(ran) == 17 and len(say.asked) == 2
    run = stopped.value.run
    # the question, 10 calls and one message of their results, 10 calls and the 6 within
    assert [m["role"] for m in run.messages] == ["user", "assistant", "user", "assistant", "user"]
    assert [len(m["content"]) for m in run.messages[1:]] == [10, 10, 10, 6]
    kept = sum(len(b["content"]) for m in run.messages[2::2] for b in m["content"])
    assert kept == 16 * MAX_RESULT_CHARS <= MAX_RUN_RESULT_CHARS


def test_a_model_that_never_stops_calling_raises_with_the_run_so_far(say):
    with pytest.raises(MaxStepsError) as stopped:
        _run(say, "Book flights to Oslo and to Paris, loop", max_steps=3)
    assert str(stopped.value) == (
        "run_tools: the model still called tools after max_steps=3 requests (its last "
        "calls: 'search_flights', 'search_flights'); the run stops there: raise max_steps, or "
        "see why the agent loops (the error's run holds it so far)"
    )
    assert len(stopped.value.run.messages) == 7  # the question, three (calls, results) pairs


def test_thinking_blocks_are_sent_back_as_the_api_gave_them(say):
    thinking = {"type": "thinking", "thinking": "search first", "signature": "c2lnbmVk"}
    _script(say, ([thinking, tool_use("f", {}, "t1")], "tool_use"))
    run, _ = _run(say, "go", {"f": lambda: "ok"})
    assert say.asked[1]["messages"][1]["content"][0] == thinking
    assert run.messages[1]["content"][0] == thinking


def test_max_tokens_is_asked_for_before_any_request(say):
    with pytest.raises(ConfigError) as refused:
        run_tools(
            _client(say),
            model="claude-test",
            messages=[{"role": "user", "content": "go"}],
            tools=TOOLS,
            functions={},
        )
    assert str(refused.value) == (
        "run_tools: an anthropic client's messages.create needs max_tokens (the most tokens a "
        "response may hold): pass it to run_tools, e.g. max_tokens=1024"
    )
    assert say.asked == []


def _run_with(client) -> AgentRun:
    return run_tools(
        client,
        model="claude-test",
        messages=[{"role": "user", "content": "go"}],
        tools=TOOLS,
        functions={},
        max_tokens=1024,
    )


def test_an_async_client_is_refused_with_the_client_to_give(say):
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        with pytest.raises(ConfigError) as refused:
            _run_with(_client(say, _anthropic().AsyncAnthropic))
        gc.collect()
    # (its coroutine closed: no "never awaited" warning)
    assert [str(w.message) for w in seen if w.category is RuntimeWarning] == []
    assert str(refused.value) == (
        "run_tools: the client's messages call gave an awaitable, not a response: run_tools "
        "drives a synchronous client (openai.OpenAI, anthropic.Anthropic), not an async one"
    )
    assert say.asked == []


def test_a_client_of_neither_api_and_a_response_without_content_are_config_errors(say):
    with pytest.raises(ConfigError) as refused:
        _run_with(object())
    assert str(refused.value) == (
        "run_tools: the client must be an openai client (client.chat.completions.create) or "
        "an anthropic client (client.messages.create); a object has neither"
    )
    say.script = lambda body: ("no blocks", "end_turn")
    with pytest.raises(
        ConfigError, match="^run_tools: the model's response holds no content blocks: "
    ):
        _run_with(_client(say))


def test_a_hostile_servers_blocks_names_and_usage_stay_data(say):
    # a block that is no object is recorded as it came; a tool name holding a line break
    # reaches the error text quoted; a negative count is no count (the run's figures stay
    # reportable), the others are summed
    hostile = "x\n::warning::pwned"
    _script(say, (["text?", 5, None, tool_use(hostile, {}, "t1")], "tool_use"))
    say.usage = (-5, 10, 0)
    try:
        run, _ = _run(say, "go", {})
    finally:
        say.usage = (40, 10, 10)
    assert run.messages[1]["content"][:3] == ["text?", 5, None]
    assert run.messages[2]["content"][0]["content"] == (
        "error: no tool named 'x\\n::warning::pwned'; the tools are "
    )
    assert (run.input_tokens, run.output_tokens) == (0, 20)


def test_an_openai_servers_negative_usage_is_no_count_either():
    openai = pytest.importorskip("openai")
    server = ChatModel(lambda body: ({"role": "assistant", "content": "done"}, "stop"), (-1, 7))
    with serving(server):
        run = run_tools(
            openai.OpenAI(base_url=server.url, api_key="test-key", max_retries=0),
            model="agent-1",
            messages=[{"role": "user", "content": "go"}],
            tools=[],
            functions={},
        )
    assert (run.input_tokens, run.output_tokens) == (None, 7)
