"""Recordings a team keeps (calls/stable_form.py): re-recording a run whose only changes are
volatile values leaves its file byte for byte. The target runs an agent with ``run_tools`` and
the real ``openai`` client against a model on 127.0.0.1 that makes up a fresh call id for
every call (as real models do); its environment stamps each booking with the time it was made
(``created_at``), in the state and in the tool's result. (docs/golden-cases.md, "Recording
and replay".)"""

from __future__ import annotations

import json
import uuid

import pytest

from tests.helpers.http_models import ChatModel, serving
from tests.helpers.plugin_cases import ARGS, write
from tests.helpers.reports import held
from tests.integrations.agent_server import next_message
from tests.plugin.golden.test_agent_run_cases import CASES  # (its two bookings, recorded)

pytestmark = pytest.mark.slow  # (CONTRIBUTING.md: the inner loop leaves it out)

openai = pytest.importorskip("openai")  # (the test extra installs it)

AGENT = """
import datetime
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
        now = datetime.datetime.now(datetime.timezone.utc).isoformat()
        self.bookings.append({"pnr": "PNR1", "flight": flight, "date": date, "created_at": now})
        return self.bookings[-1]

def agent(case_input):
    airline = Airline()
    return run_tools(
        client, model="agent-1", messages=case_input["messages"], tools=TOOLS,
        functions={"search_flights": airline.search_flights, "book_flight": airline.book_flight},
        state=airline,
    )
"""


# the state's stamp by its path, the tool result's (text) by a pattern
SCRUB = r"scrub=state.**.created_at scrub=/\d{4}-\d\d-\d\dT[0-9:.]+\+00:00/"


def fresh_ids(body: dict) -> tuple[dict, str]:
    """The agent's model, each call under an id never given before."""
    message = next_message(body["messages"])
    for call in message.get("tool_calls", []):
        call["id"] = f"call_{uuid.uuid4().hex}"
    return message, "stop"


@pytest.fixture
def model():
    server = ChatModel(fresh_ids)
    with serving(server):
        yield server


@pytest.fixture
def suite(pytester, model):
    write(pytester, "agent.py", AGENT.replace("{url}", model.url))
    write(pytester, "trips.jsonmatch.yaml", CASES)
    pytester.makeini("[pytest]\npythonpath = .\njsonmatch_target = agent:agent\n")
    return pytester


def _recording(pytester, case="oslo"):
    return (pytester.path / "__recordings__" / "trips.jsonmatch.yaml" / f"{case}.json").read_bytes()


def _scores(pytester, *flags):
    result = pytester.runpytest_inprocess(*ARGS, "--jsonmatch-report=r.json", *flags)
    # oslo: its state's created_at is an extra field until scrubbed (then left out)
    scrubbed = any("scrub=" in flag for flag in flags)
    result.assert_outcomes(failed=1 + (not scrubbed), passed=int(scrubbed))
    report = held((pytester.path / "r.json").read_text())
    return {c["case_id"]: (c["source"], c["score"]) for c in report["comparisons"]}, report


def test_rerecording_a_run_with_fresh_call_ids_leaves_its_recording_byte_for_byte(suite, model):
    _scores(suite, f"--jsonmatch-record=all {SCRUB}")
    first = _recording(suite)
    _scores(suite, f"--jsonmatch-record=all {SCRUB}")
    assert len(model.asked) == 12  # both runs called the model: 2 cases x 3 requests x 2
    assert _recording(suite) == first
    # the ids are call_1, call_2 in order of appearance, each result still tied to its call
    messages = json.loads(first)["output"]["messages"]
    calls = [call["id"] for m in messages for call in m.get("tool_calls", [])]
    assert calls == ["call_1", "call_2"]
    assert [m["tool_call_id"] for m in messages if m["role"] == "tool"] == calls


def test_without_scrub_the_stamp_still_changes_the_recording(suite):
    # the ids alone are stable; the state's created_at is the run's own until scrubbed
    _scores(suite, "--jsonmatch-record=all")
    first = json.loads(_recording(suite))
    _scores(suite, "--jsonmatch-record=all")
    again = json.loads(_recording(suite))
    assert first["output"]["messages"][1] == again["output"]["messages"][1]  # ids: call_1
    assert first["output"]["state"] != again["output"]["state"]  # a fresh created_at


def test_a_scrubbed_stamp_in_the_state_and_the_tools_result_is_kept_out(suite):
    _scores(suite, f"--jsonmatch-record=all {SCRUB}")
    output = json.loads(_recording(suite))["output"]
    assert output["state"]["bookings"][0]["created_at"] == "<scrubbed>"
    booked = json.loads(output["messages"][4]["content"])
    assert booked["created_at"] == "<scrubbed>"
    assert booked["date"] == "2026-12-01"  # no stamp: left as it was


def test_a_scrubbed_recording_replays_with_the_scores_of_the_live_run(suite, model):
    live, report = _scores(suite, f"--jsonmatch-record=once {SCRUB}")
    model.shutdown()  # the model is gone: the replay makes no request
    replayed, again = _scores(suite, f"--jsonmatch-record=none {SCRUB}")
    assert {k: s for k, (_, s) in live.items()} == {k: s for k, (_, s) in replayed.items()}
    assert {s for s, _ in live.values()} == {"live"}
    assert {s for s, _ in replayed.values()} == {"replayed"}
    # field by field too: the state's created_at, scrubbed, is left out of both alike
    assert again["fields"] == report["fields"]
    # oslo: the answer's 3 fields, the run's 6 rows and the state's 3 match; created_at,
    # missing from expected_state, is no extra field: it counts nowhere
    assert live[next(k for k in live if k.endswith("oslo"))][1] == 1.0
    stamp = report["fields"]["state.bookings[].created_at"]
    assert (stamp["scored"], stamp["hallucination"]) == (0, 0)  # skipped: counted nowhere


def test_a_recording_with_the_models_own_ids_still_replays(suite, model):
    live, _ = _scores(suite, "--jsonmatch-record=once")
    path = suite.path / "__recordings__" / "trips.jsonmatch.yaml" / "oslo.json"
    # as recordings were made before ids were renamed: the model's ids, linked
    old = path.read_text().replace('"call_1"', '"call_Zx81"').replace('"call_2"', '"call_a0"')
    assert '"call_Zx81"' in old
    path.write_text(old)
    model.shutdown()
    replayed, _ = _scores(suite, "--jsonmatch-record=none")
    assert {k: s for k, (_, s) in live.items()} == {k: s for k, (_, s) in replayed.items()}
    assert path.read_text() == old  # replaying never rewrites it
