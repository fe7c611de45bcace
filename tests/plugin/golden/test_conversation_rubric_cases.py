"""A conversation case's rubric: assertions in plain words, each judged over the transcript by
the session's LLM judge (``jsonmatch_judge``), a row ``rubric[k]`` with the judge's reason;
its verdicts recorded beside the judge's others and replayed with the judge gone, a changed
assertion stale and loud, a judge that cannot answer an undecided case, never a pass
(docs/agents.md, "Conversations"). The judge is a chat model on 127.0.0.1; the agent a
plain function (no model needed for what is scored here)."""

from __future__ import annotations

import json
import re
import socket

import pytest

from tests.helpers.http_models import ChatModel, serving
from tests.helpers.plugin_cases import ARGS, write
from tests.helpers.reports import held

pytestmark = pytest.mark.slow  # (CONTRIBUTING.md: the inner loop leaves it out)

AGENT = """
import json


def agent(case_input):
    # a refund desk: asks for the order number, then refunds the order it was told
    said = case_input["messages"][-1]["content"]
    digits = "".join(ch for ch in said if ch.isdigit())
    if not digits:
        return {"role": "assistant", "content": json.dumps({"asks_for": "order_id"})}
    return {"role": "assistant", "content": json.dumps({"status": "refunded", "order": digits})}
"""

CASES = """
cases:
  - id: desk
    conversation:
      - user: I want my money back
        expected: {asks_for: order_id}
      - user: It is order 1234
        expected: {status: refunded, order: "1234"}
    rubric:
      - the agent asked for the order_id
      - the agent said refunded
      - the agent offered a voucher
"""


def judge_model(body: dict) -> tuple[dict, str]:
    """The judge: a statement holds when its last word is in the transcript; its reason
    says so."""
    prompt = body["messages"][0]["content"]
    transcript = prompt.split("Transcript:\n", 1)[1].split("\n\nBelow are", 1)[0]
    statements = re.findall(r"^\d+\. (.*)$", prompt.split("Statements:\n", 1)[1], re.M)
    results = []
    for text in statements:
        word = text.split()[-1]
        there = word in transcript
        results.append({"holds": there, "reason": f"{word!r} {'is' if there else 'is not'} said"})
    message = {"role": "assistant", "content": json.dumps({"results": results})}
    return message, "stop"


@pytest.fixture
def judge():
    server = ChatModel(judge_model)
    with serving(server):
        yield server


def _setup(pytester, judge_line: str, cases: str = CASES) -> None:
    write(pytester, "agent.py", AGENT)
    write(pytester, "desk.jsonmatch.yaml", cases)
    pytester.makeini(
        "[pytest]\npythonpath = .\njsonmatch_target = agent:agent\n"
        f"jsonmatch_judge = {judge_line}\n"
    )


def test_a_rubric_judged_recorded_and_replayed_with_the_judge_gone(pytester, judge, monkeypatch):
    monkeypatch.setenv("JUDGE_URL", judge.url)
    _setup(pytester, "model=judge-1 endpoint_env=JUDGE_URL price_in=1 price_out=2")
    result = pytester.runpytest_inprocess(
        *ARGS, "--jsonmatch-record=once", "--jsonmatch-report=r.json"
    )
    result.assert_outcomes(failed=1)
    assert len(judge.asked) == 1  # the three assertions in one request, over one transcript
    # turn 0's answer 1 row, right; turn 1's 2 rows, right; the rubric's 3 rows, 2 holding
    # (F1 2/3): (1 * 1 + 2 * 1 + 3 * 2/3) / 6 = 5/6
    result.stdout.fnmatch_lines(
        [
            "*field_f1+turns+rubric: score 0.8333 < threshold 1.0000*",
            # the row's reason is the judge's
            '*rubric[[]2[]]  mismatch*expected "the agent offered a voucher"  actual "does not '
            "hold\"  ('voucher' is not said)*",
        ]
    )
    report = held((pytester.path / "r.json").read_text())
    (comparison,) = report["comparisons"]
    assert comparison["score"] == pytest.approx(5 / 6)
    table = report["fields"]["rubric[]"]
    assert (table["match"], table["mismatch"]) == (2, 1)
    assert [p["name"] for p in comparison["parts"]] == ["answer", "answer", "rubric"]
    # one request of 50 tokens in and 10 out, at 1 and 2 a million: 0.00007
    assert comparison["judge"]["requests"] == 1
    assert comparison["judge"]["cost"] == pytest.approx(50e-6 + 20e-6)
    # recorded beside the judge's other verdicts, under the rubric's own fingerprint
    recorded = json.loads((pytester.path / "__recordings__" / "judgments.json").read_text())
    (rubric,) = [j for j in recorded["judges"].values() if j.get("asks") == "rubric"]
    assert rubric["model"] == "judge-1"
    assert [(v["expected"], v["verdict"], v["reason"]) for v in rubric["verdicts"]][2] == (
        "the agent said refunded",
        1,
        "'refunded' is said",
    )

    # replayed: neither the judge nor its variable is there; the same rows and reasons
    judge.shutdown()
    monkeypatch.delenv("JUDGE_URL")
    again = pytester.runpytest_inprocess(
        *ARGS, "--jsonmatch-record=none", "--jsonmatch-report=r2.json"
    )
    again.assert_outcomes(failed=1)
    replayed = held((pytester.path / "r2.json").read_text())["comparisons"][0]
    assert replayed["score"] == pytest.approx(5 / 6)
    again.stdout.fnmatch_lines(["*rubric[[]2[]]  mismatch*('voucher' is not said)*"])

    # an assertion changed: its verdict is stale, and the replay says so loudly
    write(pytester, "desk.jsonmatch.yaml", CASES.replace("offered a voucher", "was polite"))
    stale = pytester.runpytest_inprocess(*ARGS, "--jsonmatch-record=none")
    stale.assert_outcomes(failed=1)
    stale.stdout.fnmatch_lines(
        ['*no recorded judgment of field rubric[]: "the agent was polite" against *']
    )


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_a_judge_that_cannot_answer_leaves_the_case_undecided_never_passed(pytester):
    url = f"http://127.0.0.1:{_closed_port()}/v1"
    _setup(pytester, f"model=judge-1 endpoint={url} retries=0")
    result = pytester.runpytest_inprocess(*ARGS, "--jsonmatch-record=off")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            "*field_f1+turns+rubric: 3 fields could not be scored (*the request failed*) at "
            "rubric?0?, rubric?1?, rubric?2?",
            "overall score 0.0000 over 1 case, 1 unscored (counted as 0)",
        ]
    )


def test_a_rubric_without_a_judge_is_the_cases_error(pytester):
    write(pytester, "agent.py", AGENT)
    write(pytester, "desk.jsonmatch.yaml", CASES)
    pytester.makeini("[pytest]\npythonpath = .\njsonmatch_target = agent:agent\n")
    result = pytester.runpytest_inprocess(*ARGS, "--jsonmatch-record=off")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            "*rubric: the transcript is judged by the LLM judge, and none is configured: set "
            "jsonmatch_judge*"
        ]
    )


@pytest.mark.parametrize(
    ("rubric", "said"),
    [
        (
            "rubric: the agent was polite",
            "desk.jsonmatch.yaml:9: case 'desk': rubric must be a list",
        ),
        ("rubric: []", "desk.jsonmatch.yaml:9: case 'desk': rubric is empty"),
        (
            "rubric: [polite, 3]",
            "desk.jsonmatch.yaml:9: case 'desk': rubric?1? must be an assertion",
        ),
        ("rubric: [polite, ' ']", "desk.jsonmatch.yaml:9: case 'desk': rubric?1? is empty"),
        (
            "rubric: [polite, polite]",
            "desk.jsonmatch.yaml:9: case 'desk': rubric?1? repeats rubric?0?",
        ),
    ],
    ids=["text", "empty", "not-text", "blank", "repeated"],
)
def test_a_rubric_mistake_names_the_file_line_and_case(pytester, rubric, said):
    cases = CASES.split("    rubric:")[0] + f"    {rubric}\n"
    write(pytester, "agent.py", AGENT)
    write(pytester, "desk.jsonmatch.yaml", cases)
    pytester.makeini("[pytest]\npythonpath = .\njsonmatch_target = agent:agent\n")
    result = pytester.runpytest_inprocess(*ARGS, "--collect-only")
    result.stdout.fnmatch_lines([f"*{said}*"])


def test_a_rubric_without_a_conversation_is_refused(pytester):
    write(
        pytester,
        "plain.jsonmatch.yaml",
        "cases:\n  - id: one\n    expected: {a: 1}\n    actual: {a: 1}\n    rubric: [polite]\n",
    )
    result = pytester.runpytest_inprocess(*ARGS, "--collect-only")
    result.stdout.fnmatch_lines(
        [
            "*plain.jsonmatch.yaml:5: case 'one': rubric holds assertions judged over a "
            "conversation's transcript: give conversation*"
        ]
    )
