"""Golden cases of an agent's whole run made with the ``anthropic`` client: the target runs
``run_tools`` with the real client against a model on 127.0.0.1 speaking the Messages API
(tests/helpers/messages_model.py: parallel ``tool_use`` calls, then an answer) and returns its
``AgentRun``, as test_agent_run_cases.py's does with ``openai``; the case file names the
target and its expected answer, run and state the same way. The run is recorded in the API's
own form (its call ids made stable) and replayed with the model gone, with the same scores."""

from __future__ import annotations

import importlib.util
import json

import pytest

from tests.helpers.http_models import serving
from tests.helpers.messages_model import MessagesModel, travel_agent
from tests.helpers.plugin_cases import ARGS, write
from tests.helpers.reports import held

pytestmark = [
    pytest.mark.slow,  # (CONTRIBUTING.md: the inner loop leaves it out)
    # (the test extra installs it; imported by the inner session that runs the agent, not
    # when this module is collected: about 2 s of CPU that every xdist worker would pay
    # whether or not it runs this test)
    pytest.mark.skipif(
        importlib.util.find_spec("anthropic") is None, reason="anthropic is not installed"
    ),
]

AGENT = """
import anthropic
from pytest_jsonmatch.integrations.anthropic_agent import run_tools

TOOLS = [{"name": n, "input_schema": {"type": "object"}} for n in ("search_flights", "book_flight")]
client = anthropic.Anthropic(base_url="{url}", api_key="test-key", max_retries=0)

class Airline:
    def __init__(self):
        self.bookings = []

    def search_flights(self, to, date):
        return [{"flight": f"SK{len(to)}01", "to": to, "date": date}]

    def book_flight(self, flight, date):
        self.bookings.append({"pnr": f"PNR{len(self.bookings) + 1}", "flight": flight, "date": date})
        return self.bookings[-1]

def agent(case_input):
    airline = Airline()
    return run_tools(
        client, model="claude-test", max_tokens=1024, messages=case_input["messages"],
        tools=TOOLS, state=airline,
        functions={"search_flights": airline.search_flights, "book_flight": airline.book_flight},
    )
"""

CASES = """
run_options: {mode: unordered}
cases:
  - id: two
    input: {messages: [{role: user, content: "Book flights to Oslo and to Paris"}]}
    expected: {status: booked, bookings: [{pnr: PNR1, flight: SK401}, {pnr: PNR2, flight: SK501}]}
    expected_run:
      - {name: search_flights, arguments: {to: Paris, date: "2026-12-01"}}
      - {name: search_flights, arguments: {to: Oslo, date: "2026-12-01"}}
      - {name: book_flight, arguments: {flight: SK401, date: "2026-12-01"}}
      - {name: book_flight, arguments: {flight: SK501, date: "2026-12-01"}}
    expected_state:
      bookings: [{pnr: PNR1, flight: SK401, date: "2026-12-01"},
                 {pnr: PNR2, flight: SK501, date: "2026-12-01"}]
  - id: tomorrow
    input: {messages: [{role: user, content: "Book flights to Oslo tomorrow"}]}
    expected_run:
      - {name: search_flights, arguments: {to: Oslo, date: "2026-12-01"}}
      - {name: book_flight, arguments: {flight: SK401, date: "2026-12-01"}}
    expected_state: {bookings: [{pnr: PNR1, flight: SK401, date: "2026-12-01"}]}
"""


@pytest.fixture
def model():
    server = MessagesModel(travel_agent)
    with serving(server):
        yield server


def test_anthropic_runs_scored_recorded_in_their_form_and_replayed(pytester, model):
    write(pytester, "agent.py", AGENT.replace("{url}", model.url))
    write(pytester, "trips.jsonmatch.yaml", CASES)
    pytester.makeini("[pytest]\npythonpath = .\njsonmatch_target = agent:agent\n")
    result = pytester.runpytest_inprocess(
        *ARGS, "--jsonmatch-record=once", "--jsonmatch-report=r.json", "-v"
    )
    result.assert_outcomes(passed=1, failed=1)
    assert len(model.asked) == 6  # three requests per run
    # tomorrow: run 6 rows, the 2 dates wrong: F1 4/6; state 3 rows, the date wrong: 2/3
    result.stdout.fnmatch_lines(
        [
            "*trajectory+state: score 0.6667 < threshold 1.0000*",
            "*run?0?.search_flights.date*mismatch*",
            "*state.bookings?0?.date*mismatch*",
            # each run's three requests of 40 + 10 (cache) input and 10 output tokens: 2 runs
            "calls: 2, *; tokens 300 in, 60 out",
        ]
    )
    report = held((pytester.path / "r.json").read_text())
    scores = {c["case_id"].rsplit("::", 1)[1]: c["score"] for c in report["comparisons"]}
    assert scores == {"two": 1.0, "tomorrow": pytest.approx(6 / 9)}

    # recorded as the client gave it: tool_use blocks, one user message of both results
    recording = pytester.path / "__recordings__" / "trips.jsonmatch.yaml" / "two.json"
    messages = json.loads(recording.read_text())["output"]["messages"]
    assert [m["role"] for m in messages] == [
        "user",
        "assistant",
        "user",
        "assistant",
        "user",
        "assistant",
    ]
    calls = [b for b in messages[1]["content"] if b["type"] == "tool_use"]
    results = messages[2]["content"]
    assert [(c["name"], c["input"]["to"]) for c in calls] == [
        ("search_flights", "Oslo"),
        ("search_flights", "Paris"),
    ]
    assert [r["type"] for r in results] == ["tool_result", "tool_result"]
    # (the model's call ids, toolu_0_0 and toolu_0_1, made stable as an OpenAI run's are)
    assert [r["tool_use_id"] for r in results] == [c["id"] for c in calls] == ["call_1", "call_2"]
    assert json.loads(messages[5]["content"][0]["text"])["status"] == "booked"

    # replayed with the model gone: no request, the same verdicts and scores
    model.shutdown()
    again = pytester.runpytest_inprocess(
        *ARGS, "--jsonmatch-record=none", "--jsonmatch-report=again.json"
    )
    again.assert_outcomes(passed=1, failed=1)
    assert len(model.asked) == 6
    replayed = held((pytester.path / "again.json").read_text())
    assert {c["case_id"]: c["score"] for c in replayed["comparisons"]} == {
        c["case_id"]: c["score"] for c in report["comparisons"]
    }
