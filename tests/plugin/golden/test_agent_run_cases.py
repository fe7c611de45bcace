"""Golden cases of an agent's whole run: the input a conversation, the expected side the run's
trajectory (``expected_run``), the state it must leave (``expected_state``) and its final
answer's fields (``expected``), scored as one case. The target runs a two-step agent with
``run_tools`` and the real ``openai`` client against a model on 127.0.0.1
(tests/integrations/agent_server.py) and returns its ``AgentRun``; the whole run, tool results
and state included, is recorded and replayed with the model gone. (docs/agents.md.)"""

from __future__ import annotations

import json

import pytest

from tests.helpers.http_models import serving
from tests.helpers.plugin_cases import ARGS, write
from tests.helpers.reports import held
from tests.integrations.agent_server import AgentModel

pytestmark = pytest.mark.slow  # (CONTRIBUTING.md: the inner loop leaves it out)

openai = pytest.importorskip("openai")  # (the test extra installs it)

AGENT = """
import openai
from pytest_jsonmatch.integrations.openai_agent import run_tools

TOOLS = [{"type": "function", "function": {"name": n, "parameters": {"type": "object"}}}
         for n in ("search_flights", "book_flight")]
client = openai.OpenAI(base_url="{url}", api_key="test-key", max_retries=0)

class Airline:
    def __init__(self):
        self.bookings = []

    def search_flights(self, to, date):
        return [{"flight": "SK401", "to": to, "date": date}]

    def book_flight(self, flight, date):
        self.bookings.append({"pnr": "PNR1", "flight": flight, "date": date})
        return self.bookings[-1]

def agent(case_input):
    airline = Airline()
    return run_tools(
        client, model="agent-1", messages=case_input["messages"], tools=TOOLS,
        functions={"search_flights": airline.search_flights, "book_flight": airline.book_flight},
        state=airline,
    )
"""

CASES = """
run_options: {mode: superset}
cases:
  - id: oslo
    input: {messages: [{role: user, content: "Book a flight to Oslo"}]}
    expected: {pnr: PNR1, flight: SK401, status: booked}
    expected_run:
      - {name: search_flights, arguments: {to: Oslo, date: "2026-12-01"}}
      - {name: book_flight, arguments: {flight: SK401, date: "2026-12-01"}}
    expected_state: {bookings: [{pnr: PNR1, flight: SK401, date: "2026-12-01"}]}
  - id: tomorrow
    input: {messages: [{role: user, content: "Book a flight to Rome tomorrow"}]}
    expected_run:
      - {name: search_flights, arguments: {to: Rome, date: "2026-12-01"}}
      - {name: book_flight, arguments: {flight: SK401, date: "2026-12-01"}}
    expected_state: {bookings: [{pnr: PNR1, flight: SK401, date: "2026-12-01"}]}
"""


@pytest.fixture
def model():
    server = AgentModel()
    with serving(server):
        yield server


def test_agent_runs_scored_one_case_each_recorded_and_replayed(pytester, model):
    write(pytester, "agent.py", AGENT.replace("{url}", model.url))
    write(pytester, "trips.jsonmatch.yaml", CASES)
    pytester.makeini("[pytest]\npythonpath = .\njsonmatch_target = agent:agent\n")
    result = pytester.runpytest_inprocess(
        *ARGS, "--jsonmatch-record=once", "--jsonmatch-report=r.json", "-v"
    )
    result.assert_outcomes(passed=1, failed=1)
    assert len(model.asked) == 6  # three requests per run
    # tomorrow: run 6 rows (2 names, 4 arguments), the 2 dates wrong: F1 4/6; state 3 rows,
    # the date wrong: F1 2/3. (6 * 4/6 + 3 * 2/3) / 9 = 6/9
    result.stdout.fnmatch_lines(
        [
            "*trajectory+state: score 0.6667 < threshold 1.0000*",
            "*the run left the expected path at step 0 (search_flights, argument date)*",
            "*run?0?.search_flights.date*mismatch*",
            "*state.bookings?0?.date*mismatch*",
            # each run's three requests of 50 and 10 tokens, summed by run_tools: 2 runs
            "calls: 2, *; tokens 300 in, 60 out",
        ]
    )

    report = held((pytester.path / "r.json").read_text())
    by_id = {c["case_id"].rsplit("::", 1)[1]: c for c in report["comparisons"]}
    assert {i: c["metric"] for i, c in by_id.items()} == {
        "oslo": "field_f1+trajectory+state",
        "tomorrow": "trajectory+state",
    }
    assert by_id["oslo"]["score"] == 1.0
    assert by_id["tomorrow"]["score"] == pytest.approx(6 / 9)
    fields = report["fields"]
    assert fields["run[].book_flight.date"]["scored"] == 2
    assert fields["run[].book_flight.date"]["mismatch"] == 1
    assert fields["state.bookings[].date"]["mismatch"] == 1

    # the recording holds the whole run and its state as JSON
    recording = pytester.path / "__recordings__" / "trips.jsonmatch.yaml" / "oslo.json"
    output = json.loads(recording.read_text())["output"]
    assert [m["role"] for m in output["messages"]] == [
        "user",
        "assistant",
        "tool",
        "assistant",
        "tool",
        "assistant",
    ]
    assert output["messages"][4]["content"] == (
        '{"pnr": "PNR1", "flight": "SK401", "date": "2026-12-01"}'
    )
    assert output["state"] == {
        "bookings": [{"pnr": "PNR1", "flight": "SK401", "date": "2026-12-01"}]
    }

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


FIXTURE_TEST = """
from pytest_jsonmatch import AgentRun

MESSAGES = [
    {"role": "user", "content": "Book a flight"},
    {"role": "assistant", "content": None, "tool_calls": [{"id": "c1", "type": "function",
        "function": {"name": "book_flight", "arguments": '{"flight": "SK401"}'}}]},
    {"role": "tool", "tool_call_id": "c1", "content": "ok"},
    {"role": "assistant", "content": '{"status": "booked"}'},
]

def test_run(json_match):
    run = AgentRun(MESSAGES, state={"bookings": [{"flight": "SK401"}]})
    json_match(run, {"status": "booked"},
               expected_run=[{"name": "book_flight", "arguments": {"flight": "SK401"}}],
               run_options={"mode": "superset"},
               expected_state={"bookings": [{"flight": "SK401"}]})
"""


def test_the_fixture_scores_a_run_as_one_comparison(pytester):
    write(pytester, "test_run.py", FIXTURE_TEST)
    result = pytester.runpytest_inprocess(*ARGS, "--jsonmatch-report=r.json")
    result.assert_outcomes(passed=1)
    report = held((pytester.path / "r.json").read_text())
    assert [(c["metric"], c["score"]) for c in report["comparisons"]] == [
        ("field_f1+trajectory+state", 1.0)
    ]
    assert sorted(report["fields"]) == [
        "run[].book_flight",
        "run[].book_flight.flight",
        "state.bookings[].flight",
        "status",
    ]


def test_a_run_case_whose_target_fails_is_an_error_under_the_runs_metric(pytester):
    write(pytester, "agent.py", "def agent(case_input):\n    raise ValueError('down')\n")
    write(pytester, "down.jsonmatch.yaml", "input: {q: hi}\nexpected_state: {bookings: []}\n")
    pytester.makeini("[pytest]\npythonpath = .\njsonmatch_target = agent:agent\n")
    result = pytester.runpytest_inprocess(*ARGS, "--jsonmatch-report=r.json")
    result.assert_outcomes(failed=1)
    [comparison] = held((pytester.path / "r.json").read_text())["comparisons"]
    assert comparison["metric"] == "state"
    assert "ValueError: down" in comparison["error"]


GIVEN_RUN = """
id: given
actual:
  messages:
    - {role: user, content: "Book a flight to Oslo"}
    - role: assistant
      content: null
      tool_calls:
        - {id: c1, type: function,
           function: {name: search_flights, arguments: '{"to": "Oslo", "date": "2026-12-01"}'}}
    - {role: tool, tool_call_id: c1, content: '[{"flight": "SK401"}]'}
    - role: assistant
      content: null
      tool_calls:
        - {id: c2, type: function,
           function: {name: book_flight, arguments: '{"flight": "SK401", "date": "2026-12-02"}'}}
    - {role: tool, tool_call_id: c2, content: '{"pnr": "PNR1"}'}
    - {role: assistant, content: '{"status": "booked"}'}
  state: {bookings: [{flight: SK401, date: "2026-12-02"}]}
expected: {status: booked}
run_options: {mode: superset}
expected_run:
  - {name: search_flights, arguments: {to: Oslo, date: "2026-12-01"}}
  - {name: book_flight, arguments: {flight: SK401, date: "2026-12-01"}}
expected_state: {bookings: [{flight: SK401, date: "2026-12-01"}]}
"""


def test_the_html_report_shows_a_run_step_by_step_the_step_that_left_the_path_marked(
    pytester, tmp_path
):
    from pytest_jsonmatch.reporting.render.html import render_html
    from tests.cli.test_browser import offline_browser

    write(pytester, "given.jsonmatch.yaml", GIVEN_RUN)
    pytester.runpytest_inprocess(*ARGS, "--jsonmatch-report=r.json").assert_outcomes(failed=1)
    report = held((pytester.path / "r.json").read_text())
    page_file = tmp_path / "run.html"
    page_file.write_text(render_html(report), encoding="utf-8")
    with offline_browser() as (load, _):
        page, problems = load(page_file)
        # (a run's only case, failed, is shown open)
        page.locator("table.side-by-side").wait_for()
        steps = page.locator("table.side-by-side tr.step").all_inner_texts()
        marked = page.locator("table.side-by-side tr.off-path td.path").all_inner_texts()
        heads = page.locator("table.side-by-side tr.step.off-path").all_inner_texts()
    assert problems == []
    # one heading per expected step, before its rows; the first step with a row off the
    # path (step 1, the booked date) marked, and that row
    assert [s.strip() for s in steps] == [
        "step 0: search_flights",
        "step 1: book_flight (the run left the expected path here)",
    ]
    assert [h.strip() for h in heads] == [
        "step 1: book_flight (the run left the expected path here)"
    ]
    assert marked == ["run[1].book_flight.date"]


def test_an_update_writes_the_runs_final_answer_never_the_run_and_leaves_the_rest(pytester):
    # the answer's status is wrong (booked, not confirmed); fixed, expected becomes the final
    # answer, {status: booked}; expected_run and expected_state stay as written
    write(pytester, "given.jsonmatch.yaml", GIVEN_RUN.replace("{status: booked}", "{status: x}"))
    pytester.runpytest_inprocess(*ARGS, "--jsonmatch-update=fix")
    text = (pytester.path / "given.jsonmatch.yaml").read_text()
    expected = text.split("\nexpected:", 1)[1].split("\n", 1)[0]
    assert expected.strip() == "{status: booked}"
    assert 'expected_state: {bookings: [{flight: SK401, date: "2026-12-01"}]}' in text
    assert '- {name: book_flight, arguments: {flight: SK401, date: "2026-12-01"}}' in text


def test_a_run_case_without_an_answer_is_never_given_one_by_an_update(pytester):
    without = GIVEN_RUN.replace("expected: {status: booked}\n", "")
    write(pytester, "given.jsonmatch.yaml", without)
    result = pytester.runpytest_inprocess(*ARGS, "--jsonmatch-update=fix")
    result.stdout.fnmatch_lines(["*trajectory+state: score *"])
    assert (pytester.path / "given.jsonmatch.yaml").read_text() == without
