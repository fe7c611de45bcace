"""``run_tools``, the usual client loop, with the real ``openai`` client against a two-step
agent's model on 127.0.0.1 (tests/integrations/agent_server.py): the whole run comes back
(the calls, the tool results, the answer), the usage summed, the state read when it ends; a
tool that fails or is unknown becomes the tool message's text; a model that never stops
calling raises MaxStepsError holding the run so far."""

from __future__ import annotations

import importlib
import importlib.util
import json
from typing import Any

import pytest

from pytest_jsonmatch import AgentRun, ConfigError, assert_json_match
from pytest_jsonmatch.integrations.openai_agent import MaxStepsError, run_tools
from tests.helpers.http_models import serving

from .agent_server import AgentModel, Airline

# (the test extra installs it; imported by the first test that makes a client, not when the
# module is collected: half a second of CPU that every xdist worker would pay before its
# first test, whether or not it runs one of these)
pytestmark = pytest.mark.skipif(
    importlib.util.find_spec("openai") is None, reason="openai is not installed"
)


def _client(model) -> Any:
    openai = importlib.import_module("openai")
    return openai.OpenAI(base_url=model.url, api_key="test-key", max_retries=0)


TOOLS = [
    {"type": "function", "function": {"name": name, "parameters": {"type": "object"}}}
    for name in ("search_flights", "book_flight")
]


@pytest.fixture(scope="module")
def model():
    server = AgentModel()
    with serving(server):
        yield server


def _run(model, question: str, **kwargs) -> tuple[AgentRun, Airline]:
    client = _client(model)
    airline = Airline()
    functions = {"search_flights": airline.search_flights, "book_flight": airline.book_flight}
    run = run_tools(
        client,
        model="agent-1",
        messages=[{"role": "user", "content": question}],
        tools=TOOLS,
        functions=functions,
        state=airline,
        **kwargs,
    )
    return run, airline


def test_a_two_step_run_comes_back_whole_with_its_usage_and_state(model):
    run, airline = _run(model, "Book a flight to Oslo")
    roles = [m["role"] for m in run.messages]
    # the question, search, its result, book, its result, the answer
    assert roles == ["user", "assistant", "tool", "assistant", "tool", "assistant"]
    assert run.messages[2] == {
        "role": "tool",
        "tool_call_id": "call_0",
        "content": '[{"flight": "SK401", "to": "Oslo", "date": "2026-12-01"}]',
    }
    assert json.loads(run.messages[-1]["content"]) == {
        "pnr": "PNR1",
        "flight": "SK401",
        "status": "booked",
    }
    # three requests of 50 prompt and 10 completion tokens each
    assert (run.input_tokens, run.output_tokens) == (150, 30)
    assert run.state == {"bookings": [{"pnr": "PNR1", "flight": "SK401", "date": "2026-12-01"}]}
    assert airline.bookings == [{"pnr": "PNR1", "flight": "SK401", "date": "2026-12-01"}]
    # the run's JSON form is what a recording holds
    assert run.answer() == {"messages": list(run.messages), "state": run.state}


def test_the_run_is_scored_whole_by_assert_json_match(model):
    run, _ = _run(model, "Book a flight to Oslo tomorrow")
    expected_run = [
        {"name": "search_flights", "arguments": {"to": "Oslo", "date": "2026-12-01"}},
        {"name": "book_flight", "arguments": {"flight": "SK401", "date": "2026-12-01"}},
    ]
    with pytest.raises(AssertionError) as failed:
        assert_json_match(
            run,
            {"pnr": "PNR1", "flight": "SK401", "status": "booked"},
            expected_run=expected_run,
            run_options={"mode": "superset"},
            expected_state={"bookings": [{"pnr": "PNR1", "flight": "SK401", "date": "2026-12-01"}]},
        )
    result = failed.value.result
    # answer: 3 rows, all right: 1.0; run: 6 rows (2 names, 4 arguments), the 2 dates wrong:
    # F1 4/6; state: 3 rows, the date wrong: F1 2/3. (3 * 1 + 6 * 4/6 + 3 * 2/3) / 12 = 9/12
    assert result.metric == "field_f1+trajectory+state"
    assert result.score == pytest.approx(0.75)
    assert "the run left the expected path at step 0 (search_flights, argument date)" in str(
        failed.value
    )


def test_a_failing_tool_and_an_unknown_one_become_the_tool_messages_text(model):
    run, airline = _run(model, "Book a flight to Oslo, or cancel")
    # the second step calls cancel_flight, which the agent does not have
    assert run.messages[4]["content"] == (
        "error: no tool named 'cancel_flight'; the tools are book_flight, search_flights"
    )
    assert json.loads(run.messages[-1]["content"])["status"] == "failed"
    assert airline.bookings == []


def test_a_tool_that_raises_is_told_to_the_model(model):
    client = _client(model)

    def book_flight(flight: str, date: str) -> dict:
        raise RuntimeError("the booking system is down")

    run = run_tools(
        client,
        model="agent-1",
        messages=[{"role": "user", "content": "Book a flight to Rome"}],
        tools=TOOLS,
        functions={"search_flights": Airline().search_flights, "book_flight": book_flight},
    )
    assert run.messages[4]["content"] == "error: RuntimeError: the booking system is down"
    assert run.state is None


def test_a_model_that_never_stops_calling_raises_with_the_run_so_far(model):
    with pytest.raises(MaxStepsError) as stopped:
        _run(model, "Book a flight to Oslo, loop", max_steps=3)
    assert str(stopped.value) == (
        "run_tools: the model still called tools after max_steps=3 requests (its last "
        "calls: 'search_flights'); the run stops there: raise max_steps, or see why the agent "
        "loops (the error's run holds it so far)"
    )
    assert isinstance(stopped.value, ConfigError)
    # the question, then three (call, result) pairs
    assert len(stopped.value.run.messages) == 7


@pytest.mark.parametrize("steps", [0, -1, 2.5, True])
def test_max_steps_must_be_a_whole_number_of_at_least_one(model, steps):
    with pytest.raises(ConfigError, match="max_steps must be a whole number >= 1"):
        _run(model, "Book a flight to Oslo", max_steps=steps)
