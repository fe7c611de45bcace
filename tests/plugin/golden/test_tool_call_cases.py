"""Golden cases whose expected output is tool calls: an agent's calls made through the real
``openai`` client against an OpenAI-compatible server on 127.0.0.1 started here, returned as
``TargetResult(..., tool_calls=message.tool_calls)``, scored by ``tool_calls`` field by
field, recorded, replayed with the server gone, and gated; the report's per-field table is
keyed by function and argument. (docs/golden-cases.md, "Scoring tool calls", is this suite.)
"""

from __future__ import annotations

import json
import re

import pytest

from tests.helpers.http_models import ChatModel, serving
from tests.helpers.plugin_cases import ARGS, write
from tests.helpers.reports import held

pytestmark = pytest.mark.slow  # (CONTRIBUTING.md: the inner loop leaves it out)

openai = pytest.importorskip("openai")  # (the test extra installs it)


def _weather_agent(body: dict) -> tuple[dict, str]:
    """``/v1/chat/completions``: calls get_weather once per city the question names, cities
    in reverse order; its mistake: it always asks for celsius. A question that names no
    city is answered in JSON text, with no tool call (``tool_calls`` left out of the
    message, as OpenAI does: the client gives ``None``)."""
    question = body["messages"][-1]["content"]
    cities = re.findall(r"\b(Paris|Rome|Oslo)\b", question)
    calls = [
        {
            "id": f"call_{i}",
            "type": "function",
            "function": {
                "name": "get_weather",
                "arguments": json.dumps({"location": city, "unit": "celsius"}),
            },
        }
        for i, city in enumerate(reversed(cities))
    ]
    if not calls:
        return {"role": "assistant", "content": NO_CALL_ANSWER}, "stop"
    return {"role": "assistant", "content": None, "tool_calls": calls}, "tool_calls"


# the agent's answer where it calls nothing: JSON that, read as BFCL's decoded form, would
# be a call of a function named ``answer``
NO_CALL_ANSWER = '{"answer": "Which city do you mean?"}'

AGENT = """
import openai
from pytest_jsonmatch import TargetResult

TOOLS = [{
    "type": "function",
    "function": {
        "name": "get_weather",
        "parameters": {
            "type": "object",
            "properties": {"location": {"type": "string"},
                           "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]}},
            "required": ["location"],
        },
    },
}]
client = openai.OpenAI(base_url="{url}", api_key="test-key", max_retries=0)

def agent(case_input):
    reply = client.chat.completions.create(
        model="agent-1",
        messages=[{"role": "user", "content": case_input["question"]}],
        tools=TOOLS,
    )
    message = reply.choices[0].message
    return TargetResult(message.content, tool_calls=message.tool_calls,
                        input_tokens=reply.usage.prompt_tokens,
                        output_tokens=reply.usage.completion_tokens)
"""

CASES = """
metric: tool_calls
threshold: 1.0
options:
  tools:
    - name: get_weather
      parameters:
        type: object
        properties:
          location: {type: string}
          unit: {type: string}
        required: [location]
cases:
  - id: paris
    input: {question: "Weather in Paris?"}
    expected:
      possible_answer:
        - get_weather: {location: [Paris], unit: [celsius, ""]}
  - id: two_cities
    input: {question: "Weather in Paris and in Rome?"}
    expected:
      calls:
        - {name: get_weather, arguments: {location: Paris, unit: celsius}}
        - {name: get_weather, arguments: {location: Rome, unit: celsius}}
  - id: oslo_fahrenheit
    input: {question: "Weather in Oslo, in fahrenheit?"}
    expected:
      calls:
        - {name: get_weather, arguments: {location: Oslo, unit: fahrenheit}}
"""


@pytest.fixture
def agent():
    server = ChatModel(_weather_agent, usage=(50, 12))
    with serving(server):
        yield server


def _suite(pytester, url):
    write(pytester, "agent.py", AGENT.replace("{url}", url))
    write(pytester, "weather.jsonmatch.yaml", CASES)
    pytester.makeini("[pytest]\npythonpath = .\njsonmatch_target = agent:agent\n")


def test_tool_call_cases_through_the_openai_client_recorded_replayed_and_gated(pytester, agent):
    _suite(pytester, agent.url)
    result = pytester.runpytest_inprocess(
        *ARGS, "--jsonmatch-record=once", "--jsonmatch-report=r.json", "-v"
    )
    # paris and two_cities (asked in reverse order) pass; oslo_fahrenheit's unit is wrong:
    # name, location match, unit mismatch: P = R = 2/3 < 1.0
    result.assert_outcomes(passed=2, failed=1)
    assert len(agent.asked) == 3
    assert agent.asked[0]["tools"][0]["function"]["name"] == "get_weather"
    result.stdout.fnmatch_lines(["*tool_calls: score 0.6667 < threshold 1.0000*"])
    result.stdout.fnmatch_lines(["*get_weather.unit*"])

    # the per-field table, keyed by function and argument: four calls in all (two_cities
    # made two), three units right
    fields = json.loads((pytester.path / "r.json").read_text())["fields"]
    assert sorted(fields) == ["get_weather", "get_weather.location", "get_weather.unit"]
    assert (fields["get_weather.location"]["match"], fields["get_weather.location"]["scored"]) == (
        4,
        4,
    )
    unit = fields["get_weather.unit"]
    assert (unit["match"], unit["mismatch"], unit["mean_score"]) == (3, 1, 0.75)

    recording = pytester.path / "__recordings__" / "weather.jsonmatch.yaml" / "paris.json"
    output = json.loads(recording.read_text())["output"]
    assert output["tool_calls"][0]["function"] == {
        "name": "get_weather",
        "arguments": '{"location": "Paris", "unit": "celsius"}',
    }

    # replayed with the server gone: no call, the same verdicts
    agent.shutdown()
    again = pytester.runpytest_inprocess(*ARGS, "--jsonmatch-record=none", "-v")
    again.assert_outcomes(passed=2, failed=1)
    assert len(agent.asked) == 3


def test_live_tool_calls_under_xdist_reach_the_report(pytester, agent):
    # nothing recorded: each worker calls the agent live, its pydantic tool-call objects
    # read through the door before the comparison travels to the controller
    _suite(pytester, agent.url)
    result = pytester.runpytest_subprocess(*ARGS, "-n", "2", "--jsonmatch-report=r.json")
    result.assert_outcomes(passed=2, failed=1)
    assert len(agent.asked) == 3
    report = held((pytester.path / "r.json").read_text())
    failed = [c for c in report["comparisons"] if c["status"] == "failed"]
    assert [c["case_id"] for c in failed] == ["weather.jsonmatch.yaml::oslo_fahrenheit"]
    unit = [f for f in failed[0]["fields"] if f["path"] == "get_weather.unit"]
    assert unit == [
        {
            "path": "get_weather.unit",
            "field_path": "get_weather.unit",
            "status": "mismatch",
            "score": 0.0,
            "expected": "fahrenheit",
            "actual": "celsius",
        }
    ]


NO_CALL_CASES = """
metric: tool_calls
threshold: 1.0
cases:
  - id: small_talk
    input: {question: "Hello, who are you?"}
    expected: {calls: []}
  - id: missed_call
    input: {question: "Weather where I am?"}
    expected:
      calls:
        - {name: get_weather, arguments: {location: Paris}}
"""


def test_a_reply_with_no_tool_call_has_no_calls_recorded_and_replayed(pytester, agent):
    # the server names no city: the openai client's message has tool_calls None, and the
    # target returns TargetResult(content, tool_calls=None). Its content is not a call:
    # small_talk (no call expected, none made) has no field: P = R = F1 = 1, it passes;
    # missed_call's name and location are omissions: R = 0/2, F1 = 0, it fails
    write(pytester, "agent.py", AGENT.replace("{url}", agent.url))
    write(pytester, "chat.jsonmatch.yaml", NO_CALL_CASES)
    pytester.makeini("[pytest]\npythonpath = .\njsonmatch_target = agent:agent\n")
    result = pytester.runpytest_inprocess(
        *ARGS, "--jsonmatch-record=once", "--jsonmatch-report=r.json", "-v"
    )
    result.assert_outcomes(passed=1, failed=1)
    assert len(agent.asked) == 2
    result.stdout.fnmatch_lines(["*small_talk PASSED*", "*missed_call FAILED*"])
    result.stdout.fnmatch_lines(["*tool_calls: score 0.0000 < threshold 1.0000*"])
    report = held((pytester.path / "r.json").read_text())
    by_id = {c["case_id"].rsplit("::", 1)[1]: c for c in report["comparisons"]}
    assert (by_id["small_talk"]["score"], by_id["small_talk"]["fields"]) == (1.0, [])
    assert [(f["path"], f["status"]) for f in by_id["missed_call"]["fields"]] == [
        ("get_weather", "omission"),
        ("get_weather.location", "omission"),
    ]
    # the recording holds the assistant message, its tool_calls null
    recording = pytester.path / "__recordings__" / "chat.jsonmatch.yaml" / "small_talk.json"
    assert json.loads(recording.read_text())["output"] == {
        "role": "assistant",
        "content": NO_CALL_ANSWER,
        "tool_calls": None,
    }

    # replayed with the server gone: the same verdicts
    agent.shutdown()
    again = pytester.runpytest_inprocess(*ARGS, "--jsonmatch-record=none", "-v")
    again.assert_outcomes(passed=1, failed=1)
    assert len(agent.asked) == 2
