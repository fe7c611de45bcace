"""Golden cases whose expected side is an agent's whole reply: the answer's fields beside the
calls it must make (``expected_calls``), scored as one case. The agent calls the real
``openai`` client against an OpenAI-compatible server on 127.0.0.1 started here and returns
``TargetResult(message.content, tool_calls=message.tool_calls)``; each scenario is one
comparison in the run, its report and its per-field table, recorded and replayed with the
server gone. (docs/tool-calls.md, "An agent's reply: its answer and its calls in one case".)
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


def _airline(body: dict) -> tuple[dict, str]:
    """``/v1/chat/completions``: an airline agent. Asked to rebook a PNR, it calls
    ``rebook_flight(pnr, flight_no, date)`` with what the question names and answers in
    JSON beside the call; its mistakes: "tomorrow" becomes the wrong date, and a waitlisted
    rebooking is reported as "pending". Asked anything else, it answers with no call
    (``tool_calls`` left out, as OpenAI does: the client gives ``None``)."""
    question = body["messages"][-1]["content"]
    pnr = re.search(r"\b[A-Z]{3}\d{3}\b", question)
    if pnr is None:
        answer = {"reply_summary": "Your allowance is 23 kg", "status": "answered"}
        message: dict[str, object] = {"role": "assistant", "content": json.dumps(answer)}
    else:
        flight = re.search(r"\b[A-Z]{2}\d{3}\b", question).group()
        date = "2026-11-25" if "tomorrow" in question else "2026-11-26"
        status = "pending" if "waitlist" in question else "rebooked"
        arguments = {"pnr": pnr.group(), "flight_no": flight, "date": date}
        call = {
            "id": "call_1",
            "type": "function",
            "function": {"name": "rebook_flight", "arguments": json.dumps(arguments)},
        }
        answer = {"reply_summary": f"Rebooked {pnr.group()} on {flight}", "status": status}
        message = {"role": "assistant", "content": json.dumps(answer), "tool_calls": [call]}
    return message, "stop"


AGENT = """
import openai
from pytest_jsonmatch import TargetResult

TOOLS = [{
    "type": "function",
    "function": {
        "name": "rebook_flight",
        "parameters": {
            "type": "object",
            "properties": {"pnr": {"type": "string"}, "flight_no": {"type": "string"},
                           "date": {"type": "string"}},
            "required": ["pnr", "flight_no", "date"],
        },
    },
}]
client = openai.OpenAI(base_url="{url}", api_key="test-key", max_retries=0)

def agent(case_input):
    reply = client.chat.completions.create(
        model="airline-1",
        messages=[{"role": "user", "content": case_input["question"]}],
        tools=TOOLS,
    )
    message = reply.choices[0].message
    return TargetResult(message.content, tool_calls=message.tool_calls)
"""

CASES = """
threshold: 1.0
call_options:
  tools:
    - name: rebook_flight
      parameters:
        type: object
        properties: {pnr: {type: string}, flight_no: {type: string}, date: {type: string}}
        required: [pnr, flight_no, date]
cases:
  - id: rebook
    input: {question: "Rebook ABC123 onto LH401 on 26 November"}
    expected: {reply_summary: "Rebooked ABC123 on LH401", status: rebooked}
    expected_calls:
      - {name: rebook_flight, arguments: {pnr: ABC123, flight_no: LH401, date: "2026-11-26"}}
  - id: wrong_date
    input: {question: "Rebook DEF456 onto LH403 tomorrow"}
    expected: {reply_summary: "Rebooked DEF456 on LH403", status: rebooked}
    expected_calls:
      - {name: rebook_flight, arguments: {pnr: DEF456, flight_no: LH403, date: "2026-11-26"}}
  - id: wrong_status
    input: {question: "Rebook GHI789 onto LH405 on 26 November, waitlist is fine"}
    expected: {reply_summary: "Rebooked GHI789 on LH405", status: rebooked}
    expected_calls:
      calls:
        - {name: rebook_flight, arguments: {pnr: GHI789, flight_no: LH405, date: "2026-11-26"}}
  - id: baggage
    input: {question: "What is my baggage allowance?"}
    expected: {reply_summary: "Your allowance is 23 kg", status: answered}
    expected_calls: []
"""


@pytest.fixture
def airline():
    server = ChatModel(_airline, usage=(80, 30))
    with serving(server):
        yield server


def _suite(pytester, url):
    write(pytester, "agent.py", AGENT.replace("{url}", url))
    write(pytester, "airline.jsonmatch.yaml", CASES)
    pytester.makeini("[pytest]\npythonpath = .\njsonmatch_target = agent:agent\n")


def test_agent_replies_scored_one_case_each_recorded_and_replayed(pytester, airline):
    _suite(pytester, airline.url)
    result = pytester.runpytest_inprocess(
        *ARGS, "--jsonmatch-record=once", "--jsonmatch-report=r.json", "-v"
    )
    result.assert_outcomes(passed=2, failed=2)
    assert len(airline.asked) == 4
    result.stdout.fnmatch_lines(
        [
            "*rebook PASSED*",
            "*wrong_date FAILED*",
            "*wrong_status FAILED*",
            "*baggage PASSED*",
        ]
    )
    # wrong_date: the answer's 2 rows match (F1 1); the call's name, pnr and flight_no
    # match, its date mismatches: F1 3/4 over 4 rows. (2 * 1 + 4 * 3/4) / 6 = 5/6.
    # wrong_status: the answer's status mismatches: F1 1/2 over 2 rows; the call's 4 rows
    # match. (2 * 1/2 + 4 * 1) / 6 = 5/6
    result.stdout.fnmatch_lines(["*field_f1+tool_calls: score 0.8333 < threshold 1.0000*"])
    result.stdout.fnmatch_lines(["*rebook_flight.date*mismatch*"])

    report = held((pytester.path / "r.json").read_text())
    # each scenario is one comparison of one case: never its answer and its calls apart
    ids = [c["case_id"].rsplit("::", 1)[1] for c in report["comparisons"]]
    assert sorted(ids) == ["baggage", "rebook", "wrong_date", "wrong_status"]
    by_id = {c["case_id"].rsplit("::", 1)[1]: c for c in report["comparisons"]}
    assert {i: c["metric"] for i, c in by_id.items()} == dict.fromkeys(by_id, "field_f1+tool_calls")
    assert by_id["wrong_date"]["score"] == pytest.approx(5 / 6)
    assert by_id["wrong_status"]["score"] == pytest.approx(5 / 6)
    # baggage: no call expected, none made: its answer's 2 rows alone
    assert [f["path"] for f in by_id["baggage"]["fields"]] == ["reply_summary", "status"]
    assert by_id["rebook"]["score"] == 1.0
    # one case each in the aggregates: 4 cases, their mean (1 + 5/6 + 5/6 + 1) / 4 = 11/12
    assert (report["count"], len(report["cases"])) == (4, 4)
    assert report["overall"] == pytest.approx(11 / 12)
    assert report["metrics"]["field_f1+tool_calls"]["count"] == 4
    # the field table holds both parts' rows, each scenario counted once
    fields = report["fields"]
    assert fields["status"]["scored"] == 4 and fields["status"]["match"] == 3
    assert fields["rebook_flight.date"]["scored"] == 3
    assert fields["rebook_flight.date"]["mismatch"] == 1

    recording = pytester.path / "__recordings__" / "airline.jsonmatch.yaml" / "rebook.json"
    output = json.loads(recording.read_text())["output"]
    assert output["tool_calls"][0]["function"]["name"] == "rebook_flight"
    assert json.loads(output["content"])["status"] == "rebooked"

    # replayed with the server gone: no call, the same verdicts and scores
    airline.shutdown()
    (pytester.path / "main.json").write_text((pytester.path / "r.json").read_text())
    again = pytester.runpytest_inprocess(
        *ARGS,
        "--jsonmatch-record=none",
        "--jsonmatch-report=again.json",
        "--jsonmatch-baseline=main.json",
        "-v",
    )
    again.assert_outcomes(passed=2, failed=2)
    assert len(airline.asked) == 4
    replayed = held((pytester.path / "again.json").read_text())
    # against the first run as its baseline: 4 cases shared, one each, none changed
    section = replayed["baseline"]
    assert (section["compared"], section["shared"], section["changed"]) == (4, 4, [])
    assert {c["case_id"]: c["score"] for c in replayed["comparisons"]} == {
        c["case_id"]: c["score"] for c in report["comparisons"]
    }


GIVEN_REPLY = """
id: given
actual:
  role: assistant
  content: '{"reply_summary": "Rebooked on LH401", "status": "rebooked"}'
  tool_calls:
    - {id: c1, type: function, function: {name: rebook_flight, arguments: '{"pnr": "ABC123"}'}}
expected: {reply_summary: "Rebooked on LH401", status: pending}
expected_calls: [{name: rebook_flight, arguments: {pnr: ABC123}}]
"""


def test_an_update_writes_the_replys_answer_as_expected_never_the_message(pytester):
    # the answer's status is wrong: (2 * 1/2 + 2 * 1) / 4 = 3/4, the case fails; fixed, its
    # expected becomes the reply's answer (its calls stay as written) and it passes
    write(pytester, "given.jsonmatch.yaml", GIVEN_REPLY)
    first = pytester.runpytest_inprocess(*ARGS)
    first.assert_outcomes(failed=1)
    first.stdout.fnmatch_lines(["*field_f1+tool_calls: score 0.7500 < threshold 1.0000*"])
    pytester.runpytest_inprocess(*ARGS, "--jsonmatch-update=fix")
    text = (pytester.path / "given.jsonmatch.yaml").read_text()
    assert "status: rebooked" in text and "role" not in text.split("expected:", 1)[1]
    assert "expected_calls: [{name: rebook_flight, arguments: {pnr: ABC123}}]" in text
    pytester.runpytest_inprocess(*ARGS).assert_outcomes(passed=1)


FIXTURE_TEST = """
from pytest_jsonmatch import TargetResult

CALL = {"id": "c1", "type": "function",
        "function": {"name": "rebook_flight", "arguments": '{"pnr": "ABC123"}'}}

def test_reply(json_match):
    reply = TargetResult('{"status": "rebooked"}', tool_calls=[CALL]).answer()
    json_match(reply, {"status": "rebooked"},
               expected_calls=[{"name": "rebook_flight", "arguments": {"pnr": "ABC123"}}],
               call_options={"order": "strict"})
"""


def test_the_fixture_scores_a_reply_as_one_comparison(pytester):
    write(pytester, "test_reply.py", FIXTURE_TEST)
    result = pytester.runpytest_inprocess(*ARGS, "--jsonmatch-report=r.json")
    result.assert_outcomes(passed=1)
    report = held((pytester.path / "r.json").read_text())
    assert [(c["metric"], c["score"]) for c in report["comparisons"]] == [
        ("field_f1+tool_calls", 1.0)
    ]
    assert sorted(report["fields"]) == ["rebook_flight", "rebook_flight.pnr", "status"]


def test_a_reply_case_whose_target_fails_is_an_error_under_the_replys_metric(pytester):
    write(pytester, "agent.py", "def agent(case_input):\n    raise ValueError('down')\n")
    write(
        pytester,
        "down.jsonmatch.yaml",
        "input: {question: hi}\nexpected: {status: answered}\nexpected_calls: []\n",
    )
    pytester.makeini("[pytest]\npythonpath = .\njsonmatch_target = agent:agent\n")
    result = pytester.runpytest_inprocess(*ARGS, "--jsonmatch-report=r.json")
    result.assert_outcomes(failed=1)
    report = held((pytester.path / "r.json").read_text())
    [comparison] = report["comparisons"]
    assert comparison["metric"] == "field_f1+tool_calls"
    assert "ValueError: down" in comparison["error"]
