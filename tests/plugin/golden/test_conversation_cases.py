"""Golden conversation cases: the user's turns scripted in the case file (or played by a
Python function), the agent called once a turn with the conversation so far, each turn held
to what it must show and the end state to the case's; the whole conversation recorded as one
run and replayed with the model gone, a changed user turn named as where the replay departs
(docs/agents.md, "Conversations"). The agent is ``run_tools`` with the real ``openai``
client against a refund desk's model on 127.0.0.1."""

from __future__ import annotations

import json
import re

import pytest

from tests.helpers.http_models import ChatModel, serving
from tests.helpers.plugin_cases import ARGS, write
from tests.helpers.reports import held

pytestmark = pytest.mark.slow  # (CONTRIBUTING.md: the inner loop leaves it out)

openai = pytest.importorskip("openai")  # (the test extra installs it)


def desk(body: dict) -> tuple[dict, str]:
    """The refund desk's model: asked without an order number, it asks for one (in JSON);
    given one, it calls ``refund(order)``; given the refund's result, it answers with it.
    Told "twelve", it refunds order 12 whatever else was said."""
    messages = body["messages"]
    last = messages[-1]
    if last["role"] == "tool":
        done = json.loads(last["content"])
        return {"role": "assistant", "content": json.dumps({"status": "refunded", **done})}, "stop"
    said = last["content"]
    order = "12" if "twelve" in said else "".join(re.findall(r"\d", said))
    if not order:
        return {"role": "assistant", "content": json.dumps({"asks_for": "order_id"})}, "stop"
    call = {
        "id": f"call_{len(messages)}",
        "type": "function",
        "function": {"name": "refund", "arguments": json.dumps({"order": order})},
    }
    return {"role": "assistant", "content": None, "tool_calls": [call]}, "stop"


AGENT = """
import openai
from pytest_jsonmatch.integrations.openai_agent import run_tools

TOOLS = [{"type": "function", "function": {"name": "refund", "parameters": {"type": "object"}}}]
client = openai.OpenAI(base_url="{url}", api_key="test-key", max_retries=0)
DESKS = {}  # each conversation's desk, kept between its turns under its id


class Desk:
    def __init__(self):
        self.refunds = []

    def refund(self, order):
        self.refunds.append({"order": order})
        return {"order": order}


def agent(case_input):
    desk = DESKS.setdefault(case_input["conversation_id"], Desk())
    return run_tools(client, model="desk-1", messages=case_input["messages"], tools=TOOLS,
                     functions={"refund": desk.refund}, state=desk)


def impatient(messages):
    # the user's side played by a function: says what they want, then the order, then stops
    users = [m for m in messages if m["role"] == "user"]
    return ["I want my money back", "order 1234"][len(users)] if len(users) < 2 else None
"""

CASES = """
run_options: {mode: superset}
cases:
  - id: refund
    conversation:
      - user: I want my money back
        expected: {asks_for: order_id}
      - user: It is order 1234
        expected_run: [{name: refund, arguments: {order: "1234"}}]
        expected: {status: refunded, order: "1234"}
    expected_state: {refunds: [{order: "1234"}]}
  - id: misheard
    conversation:
      - user: Refund please
        expected: {asks_for: order_id}
      - user: order 1234, not twelve
        expected_run: [{name: refund, arguments: {order: "1234"}}]
        expected: {status: refunded, order: "1234"}
    expected_state: {refunds: [{order: "1234"}]}
  - id: tau2
    conversation:
      - user: I want my money back
      - user: It is order 1234
    expected_state: {refunds: [{order: "1234"}]}
    tau2:
      actions: [{action_id: r1, name: refund, arguments: {order: "1234"}}]
      communicate_info: ["1234"]
      reward_basis: [DB, ACTION, COMMUNICATE]
  - id: played
    conversation:
      user: agent:impatient
      turns:
        - expected: {asks_for: order_id}
        - expected: {status: refunded, order: "1234"}
    expected_state: {refunds: [{order: "1234"}]}
"""


@pytest.fixture
def model():
    server = ChatModel(desk)
    with serving(server):
        yield server


def test_conversations_scored_turn_by_turn_recorded_and_replayed_with_the_model_gone(
    pytester, model
):
    write(pytester, "agent.py", AGENT.replace("{url}", model.url))
    write(pytester, "desk.jsonmatch.yaml", CASES)
    pytester.makeini("[pytest]\npythonpath = .\njsonmatch_target = agent:agent\n")
    result = pytester.runpytest_inprocess(
        *ARGS, "--jsonmatch-record=once", "--jsonmatch-report=r.json", "-v"
    )
    result.assert_outcomes(passed=3, failed=1)
    # each conversation: one request in its first turn, two in its second
    assert len(model.asked) == 12
    # misheard: turn 0's answer matches (1 row, 1.0); turn 1 refunds order 12: its answer
    # 2 rows, the order wrong (F1 1/2), its step 2 rows, the argument wrong (F1 1/2); the
    # state's one row wrong (0.0): (1 * 1 + 2 * 0.5 + 2 * 0.5 + 1 * 0) / 6 = 0.5
    result.stdout.fnmatch_lines(
        [
            "*field_f1+turns+state: score 0.5000 < threshold 1.0000*",
            "*the conversation first went wrong at turn 1 (the user's message 2): "
            'turns?1?.order mismatch, expected "1234", actual "12"*',
            # four conversations' requests of 50 and 10 tokens each, summed over their turns
            "calls: 4, *; tokens 600 in, 120 out",
        ]
    )
    report = held((pytester.path / "r.json").read_text())
    by_id = {c["case_id"].rsplit("::", 1)[1]: c for c in report["comparisons"]}
    assert {i: c["metric"] for i, c in by_id.items()} == {
        **dict.fromkeys(("refund", "misheard", "played"), "field_f1+turns+state"),
        "tau2": "field_f1+turns+state+tau2",
    }
    # tau2-bench's verdict beside the end state: its reward 1 (DB 1, ACTION 1, COMMUNICATE 1)
    assert by_id["tau2"]["score"] == 1.0
    assert report["fields"]["tau2.reward"]["match"] == 1
    assert by_id["misheard"]["score"] == pytest.approx(0.5)
    assert report["fields"]["turns[].order"]["mismatch"] == 1

    # the recording holds the whole conversation, both users' turns and the state, as JSON
    folder = pytester.path / "__recordings__" / "desk.jsonmatch.yaml"
    output = json.loads((folder / "refund.json").read_text())["output"]
    assert [m["role"] for m in output["messages"]] == [
        "user",
        "assistant",
        "user",
        "assistant",
        "tool",
        "assistant",
    ]
    assert output["state"] == {"refunds": [{"order": "1234"}]}

    # replayed offline: neither the model nor the user's function is reached
    model.shutdown()
    asked = len(model.asked)
    again = pytester.runpytest_inprocess(*ARGS, "--jsonmatch-record=none", "-p", "no:cacheprovider")
    again.assert_outcomes(passed=3, failed=1)
    assert len(model.asked) == asked


def test_a_changed_user_turn_makes_the_recording_stale_naming_the_turn(pytester, model):
    write(pytester, "agent.py", AGENT.replace("{url}", model.url))
    write(pytester, "desk.jsonmatch.yaml", CASES)
    pytester.makeini("[pytest]\npythonpath = .\njsonmatch_target = agent:agent\n")
    pytester.runpytest_inprocess(*ARGS, "--jsonmatch-record=once").assert_outcomes(
        passed=3, failed=1
    )
    write(pytester, "desk.jsonmatch.yaml", CASES.replace("It is order 1234", "It is order 4321"))
    result = pytester.runpytest_inprocess(*ARGS, "--jsonmatch-record=none")
    result.assert_outcomes(passed=1, failed=3)  # (refund and tau2: stale, not scored)
    result.stdout.fnmatch_lines(
        [
            "*desk.jsonmatch.yaml:4: case 'refund': the recording "
            "__recordings__/desk.jsonmatch.yaml/refund.json is stale (the user's turn 1 of "
            "the conversation (recorded: 'It is order 1234'; now: 'It is order 4321') "
            "changed since it was recorded)*"
        ]
    )


@pytest.mark.parametrize(
    ("case", "said"),
    [
        (
            "conversation: [{user: hi, expected: {a: 1}}]\nexpected: {a: 1}",
            "case 'c': a conversation's turns say what each must show: give expected within a "
            "turn of conversation (expected, expected_run), not beside it",
        ),
        (
            "conversation: [{expected: {a: 1}}]",
            "case 'c': conversation: turn 0: user must be the user's message (text)",
        ),
        (
            "conversation: [{user: hi, expect: {a: 1}}]",
            "case 'c': conversation: turn 0: unknown key 'expect' (did you mean 'expected'?) "
            "(a turn gives user, expected, expected_run)",
        ),
        (
            "conversation: []",
            "case 'c': conversation: give the user's turns",
        ),
        (
            "conversation: {user: agent, turns: [{expected: {a: 1}}]}",
            "case 'c': conversation: user must name the function that plays the user: "
            "module:function",
        ),
        (
            "conversation: {user: 'agent:impatient', max_turns: 0, turns: [{expected: {a: 1}}]}",
            "case 'c': conversation: max_turns must be a whole number from 1 to 1000, not 0",
        ),
        (
            "conversation: [{user: hi}]",
            "case 'c': conversation: a conversation is scored against what its turns show",
        ),
        pytest.param(
            "conversation: [" + ", ".join(["{user: hi, expected: {a: 1}}"] * 1001) + "]",
            "case 'c': conversation: 1,001 turns, more than the 1,000 a conversation may hold",
            id="1001-turns",
        ),
        (
            "conversation: [{user: hi, expected: {a: 1}}]\ninput: [1]",
            "case 'c': a conversation's input must be a mapping (its messages, ...), not [1]",
        ),
        (
            # a case file may not pick a function of Python's own to run as the user
            "conversation: {user: 'subprocess:run', turns: [{expected: {a: 1}}]}",
            "case 'c': conversation user 'subprocess:run' is not a function of your project's code",
        ),
        (
            "conversation: {user: 'os:getcwd', turns: [{expected: {a: 1}}]}",
            "case 'c': conversation user 'os:getcwd' is not a function of your project's code",
        ),
        (
            "conversation: [{user: hi, expected: {a: 1}}]\ntau2: {reward_basis: [NOPE]}",
            "case 'c': conversation: tau2: evaluation_criteria.reward_basis[0]",
        ),
        (
            "expected: {a: 1}\nactual: {a: 1}\ntau2: {reward_basis: [ACTION]}",
            "case 'c': tau2 scores a conversation as tau2-bench does: give conversation",
        ),
        (
            "conversation: [{user: hi, expected_run: search}]",
            "case 'c': conversation: turns[0]: ",
        ),
    ],
)
def test_a_conversation_case_mistake_names_the_file_line_and_case(pytester, case, said):
    body = "\n".join("    " + line for line in case.splitlines())
    write(pytester, "desk.jsonmatch.yaml", f"cases:\n  - id: c\n{body}\n")
    write(
        pytester,
        "agent.py",
        "def agent(value):\n    return value\n\n\ndef impatient(m):\n    return None\n",
    )
    pytester.makeini("[pytest]\npythonpath = .\njsonmatch_target = agent:agent\n")
    result = pytester.runpytest_inprocess(*ARGS)
    assert result.ret != 0
    shown = said.replace("[", "?").replace("]", "?")  # (brackets are fnmatch's classes)
    result.stdout.fnmatch_lines([f"*desk.jsonmatch.yaml:*{shown}*"])


def user_model(body: dict) -> tuple[dict, str]:
    """The model that plays the user: it asks for its refund, gives its order when asked
    (and, when its goal is order 55, its email too, which its instructions withhold), then
    says it is done."""
    prompt = body["messages"][0]["content"]
    said = prompt.count("\nYou: ")
    if said == 0:
        text = "I want my money back"
    elif said == 1:
        text = "It is jane@example.com, order 55" if "order 55" in prompt else "It is order 1234"
    else:
        text = "Thanks. ###STOP###"
    return {"role": "assistant", "content": text}, "stop"


SIMULATED = """
run_options: {mode: superset}
cases:
  - id: simulated
    conversation:
      simulated: &user
        persona: An impatient customer
        goal: Get order 1234 refunded
        withhold: [jane@example.com]
        model: user-1
        endpoint_env: SIMULATED_USER_URL
      max_turns: 5
      turns:
        - expected: {asks_for: order_id}
        - expected: {status: refunded, order: "1234"}
    expected_state: {refunds: [{order: "1234"}]}
  - id: spoiled
    conversation:
      simulated: {<<: *user, goal: Get order 55 refunded}
    expected_state: {refunds: [{order: "55"}]}
"""


def test_a_user_played_by_a_model_recorded_replayed_and_its_faults_told_apart(
    pytester, model, monkeypatch
):
    player = ChatModel(user_model)
    with serving(player):
        monkeypatch.setenv("SIMULATED_USER_URL", player.url)
        write(pytester, "agent.py", AGENT.replace("{url}", model.url))
        write(pytester, "desk.jsonmatch.yaml", SIMULATED)
        pytester.makeini("[pytest]\npythonpath = .\njsonmatch_target = agent:agent\n")
        result = pytester.runpytest_inprocess(*ARGS, "--jsonmatch-record=once", "-v", "-rs")
        # under xdist too, as the JSON report keeps it: the spoiled one (not recorded) asks
        # its simulated user again, and is reported apart, in no score
        spread = pytester.runpytest_inprocess(
            *ARGS, "-n", "2", "--jsonmatch-report=r.json", "--jsonmatch-record=once"
        )
    spread.assert_outcomes(passed=1, skipped=1)
    report = held((pytester.path / "r.json").read_text())
    assert (report["count"], report["overall"], report["simulator"]) == (1, 1.0, 1)
    assert {c["case_id"]: c["status"] for c in report["comparisons"]} == {
        "desk.jsonmatch.yaml::simulated": "passed",
        "desk.jsonmatch.yaml::spoiled": "simulator",
    }
    # the spoiled conversation is neither the agent's pass nor its failure: skipped, and
    # counted in no score (the overall score is the simulated one's alone)
    result.assert_outcomes(passed=1, skipped=1)
    # simulated: three user turns asked (the third said the stop signal); spoiled: two, its
    # second breaking its instructions before the agent saw it; then the spoiled one's two again
    assert len(player.asked) == 7
    result.stdout.fnmatch_lines(
        [
            "*spoiled SKIPPED (simulator: *",
            "overall score 1.0000 over 1 case",
            # (the summary apart from the agent's cases, wrapped at 80 columns)
            "simulator: 1 conversation spoiled by its simulated user, not counted (neither",
            "  the agent's pass nor its failure): desk.jsonmatch.yaml::spoiled",
            "*SKIPPED*simulator: the simulated user revealed 'jane@example.com' at turn 1, "
            "which its instructions withhold (withhold)*",
        ]
    )
    recording = pytester.path / "__recordings__" / "desk.jsonmatch.yaml" / "simulated.json"
    users = [
        m["content"]
        for m in json.loads(recording.read_text())["output"]["messages"]
        if m["role"] == "user"
    ]
    assert users == ["I want my money back", "It is order 1234"]
    assert not (recording.parent / "spoiled.json").exists()  # (no conversation to replay)

    # replayed with neither the agent's model nor the user's reachable, nor its variable set
    model.shutdown()
    monkeypatch.delenv("SIMULATED_USER_URL")
    again = pytester.runpytest_inprocess(*ARGS, "--jsonmatch-record=none", "-v")
    again.assert_outcomes(passed=1, failed=1)
    again.stdout.fnmatch_lines(["*spoiled*no recording of this case*"])
