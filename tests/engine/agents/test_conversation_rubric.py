"""A conversation's rubric judged over its transcript (engine/agents/conversation_rubric.py,
engine/judge/rubric.py): each assertion a row ``rubric[k]`` with the judge's reason, asked of
the judge's own settings, memory and figures; an answer that cannot be read leaves its rows
undecided; tau2-bench's NL assertions judged by the same judge where its reward needs them."""

from __future__ import annotations

import json

import pytest

from pytest_jsonmatch import configure_judge
from pytest_jsonmatch.engine.agents.conversation_scoring import (
    ConversationScorer,
    match_conversation,
)
from pytest_jsonmatch.engine.agents.tau2_reward import tau2_reward
from pytest_jsonmatch.engine.core.errors import ConfigError
from pytest_jsonmatch.engine.judge import JudgeReply, JudgeRequest, JudgeSettings, SemanticJudge
from pytest_jsonmatch.engine.judge.rubric import read_judgments, rubric_fingerprint

TALK = {
    "messages": [
        {"role": "system", "content": "You are a refund desk."},
        {"role": "user", "content": "I want my money back"},
        {"role": "assistant", "content": '{"asks_for": "order_id"}'},
        {"role": "user", "content": [{"type": "text", "text": "It is order 1234"}]},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": "c1",
                    "type": "function",
                    "function": {"name": "refund", "arguments": '{"order": "1234"}'},
                }
            ],
        },
        {"role": "tool", "tool_call_id": "c1", "content": '{"ok": true}'},
        {"role": "assistant", "content": "Refunded. I promise it arrives by Friday."},
    ],
    "state": {"refunds": [{"order": "1234"}]},
}
RUBRIC = ["asked for the order_id", "called refund", "offered a voucher"]


class Judge:
    """A judge on no network: a statement holds when its last word is in the transcript."""

    def __init__(self, reply: str | None = None) -> None:
        self.requests: list[JudgeRequest] = []
        self.reply = reply

    def __call__(self, request: JudgeRequest) -> JudgeReply:
        self.requests.append(request)
        if self.reply is not None:
            return JudgeReply(self.reply, "stop")
        transcript = request.prompt.split("Transcript:\n", 1)[1].split("\n\nBelow are", 1)[0]
        statements = request.prompt.split("Statements:\n", 1)[1].split("\n\n", 1)[0]
        results = []
        for line in statements.splitlines():
            word = line.split()[-1]
            results.append({"holds": word in transcript, "reason": f"looked for {word}"})
        return JudgeReply(json.dumps({"results": results}), "stop", 100, 20)


def _judge(transport: Judge, **more: object) -> SemanticJudge:
    return SemanticJudge(JudgeSettings("judge-1", "http://127.0.0.1:9/v1", **more), transport)  # type: ignore[arg-type]


def test_each_assertion_a_row_with_the_judges_reason() -> None:
    transport = Judge()
    judge = _judge(transport, price_in=1.0, price_out=1.0)
    turns = [{"expected": {"asks_for": "order_id"}}, {}]
    r = match_conversation(TALK, turns, expected_state=TALK["state"], rubric=RUBRIC, judge=judge)
    assert r.metric == "field_f1+turns+state+rubric"
    assert [
        (f.path, f.status, f.actual, f.reason) for f in r.fields if f.comparator == "rubric"
    ] == [
        ("rubric[0]", "match", "holds", "looked for order_id"),
        ("rubric[1]", "match", "holds", "looked for refund"),
        ("rubric[2]", "mismatch", "does not hold", "looked for voucher"),
    ]
    # turn 0's answer 1 row, right; the state 1 row, right; the rubric 3 rows, 2 holding
    # (F1 2/3): (1 * 1 + 1 * 1 + 3 * 2/3) / 5 = 4/5
    assert r.score == pytest.approx(0.8)
    assert [p.name for p in r.parts] == ["answer", "state", "rubric"]
    # one request: the whole transcript (each message in order, no call id) and the three
    (request,) = transport.requests
    assert (
        "Transcript:\nsystem: You are a refund desk.\nuser: I want my money back\n"
        'assistant: {"asks_for": "order_id"}\nuser: It is order 1234\n'
        'assistant calls refund({"order": "1234"})\ntool result: {"ok": true}\n'
        "assistant: Refunded. I promise it arrives by Friday.\n"
    ) in request.prompt
    assert "c1" not in request.prompt
    assert "1. asked for the order_id\n2. called refund\n3. offered a voucher\n" in request.prompt
    # its cost counted as the judge's: 100 and 20 tokens at 1 a million
    assert judge.figures.requests == 1 and judge.figures.cost == pytest.approx(120e-6)
    # asked again: answered from memory, reasons too
    again = match_conversation(TALK, turns, rubric=RUBRIC, judge=judge)
    assert len(transport.requests) == 1
    assert [f.reason for f in again.fields if f.comparator == "rubric"][2] == "looked for voucher"


def test_a_rubric_asks_by_batch_and_keeps_its_own_fingerprint() -> None:
    transport = Judge()
    judge = _judge(transport, batch=2)
    match_conversation(TALK, [], rubric=RUBRIC, judge=judge)
    assert [r.items for r in transport.requests] == [2, 1]  # three assertions, two a request
    keys = list(judge.memory.verdicts)
    assert len(keys) == 3
    assert all(k.startswith(rubric_fingerprint(judge.settings) + "\x00") for k in keys)
    assert rubric_fingerprint(judge.settings) != judge.settings.fingerprint


@pytest.mark.parametrize(
    ("reply", "why"),
    [
        ("They all hold.", "the judge's reply is not JSON"),
        ('{"verdicts": [true]}', "the judge's reply has no 'results' list"),
        ('{"results": [{"holds": true}]}', "the judge gave 1 verdicts for 3 assertions"),
        ('{"results": [1, 1, 1]}', "does not say holds: true or false"),
    ],
    ids=["prose", "no-results", "too-few", "no-holds"],
)
def test_a_reply_that_cannot_be_read_leaves_the_assertions_undecided(reply: str, why: str) -> None:
    judge = _judge(Judge(reply))
    r = match_conversation(
        TALK, [{"expected": {"asks_for": "order_id"}}], rubric=RUBRIC, judge=judge
    )
    undecided = [f for f in r.fields if f.status == "batch_error"]
    assert undecided and all(f.path.startswith("rubric[") for f in undecided)
    assert why in undecided[-1].reason
    assert not r.passed(0.0)  # never a pass, whatever its score


def test_a_fenced_reply_and_a_cut_one() -> None:
    fenced = JudgeReply('```json\n{"results": [{"holds": false, "reason": "no"}]}\n```', "stop")
    assert read_judgments(fenced, 1) == [(0.0, "no")]
    cut = JudgeReply('{"results": [{"holds": true, "rea', "length")
    assert read_judgments(cut, 2)[1].startswith("the judge's reply was cut off by its token limit")


def test_the_judge_named_or_configured_else_refused() -> None:
    transport = Judge()
    configure_judge("model=judge-1 endpoint=http://127.0.0.1:9/v1", transport=transport)
    try:
        r = match_conversation(TALK, [], rubric=["called refund"])
        assert r.score == 1.0 and len(transport.requests) == 1
    finally:
        configure_judge(None, transport=None)
    with pytest.raises(
        ConfigError,
        match="rubric: the transcript is judged by the LLM judge, and none is configured",
    ):
        match_conversation(TALK, [], rubric=["called refund"])
    with pytest.raises(ConfigError, match=r"rubric\[1\] must be an assertion"):
        match_conversation(TALK, [], rubric=["called refund", 3])  # type: ignore[list-item]
    with pytest.raises(ConfigError, match="rubric is empty"):
        ConversationScorer([], None, "field_f1", None, {}, None, [])


CRITERIA = {
    "actions": [{"action_id": "r1", "name": "refund", "arguments": {"order": "1234"}}],
    "communicate_info": ["Friday"],
    "nl_assertions": ["The agent never offered a voucher", "The agent mentioned Friday"],
    "reward_basis": ["ACTION", "COMMUNICATE", "NL_ASSERTION"],
}


def test_tau2_nl_assertions_judged_where_its_reward_needs_them() -> None:
    transport = Judge()
    scorer = ConversationScorer([], None, "field_f1", None, {}, CRITERIA, None, _judge(transport))
    r = scorer.scored(TALK)
    rows = {f.path: f for f in r.fields}
    # "voucher" is not in the transcript: the first does not hold; "Friday" is: the second does
    assert rows["tau2.nl_assertions[0]"].status == "mismatch"
    assert rows["tau2.nl_assertions[1]"].status == "match"
    assert rows["tau2.nl_assertions[1]"].reason == "looked for Friday"
    # ACTION 1, COMMUNICATE 1, NL_ASSERTION 0 (one not met): the reward 0
    assert rows["tau2.reward"].status == "mismatch"
    assert rows["tau2.reward"].reason == "reward over ACTION 1, COMMUNICATE 1, NL_ASSERTION 0"
    # rows: the reward (mismatch), the action, the string, the two assertions (one
    # mismatch): 3 of 5 matching, F1 3/5
    assert r.score == pytest.approx(0.6)
    assert len(transport.requests) == 1


def test_tau2_nl_assertions_outside_the_basis_are_not_judged() -> None:
    transport = Judge()
    criteria = {**CRITERIA, "reward_basis": ["ACTION"]}
    scorer = ConversationScorer([], None, "field_f1", None, {}, criteria, None, _judge(transport))
    rows = {f.path: f for f in scorer.scored(TALK).fields}
    assert rows["tau2.nl_assertions[0]"].status == "skipped"
    assert "not in the task's reward_basis" in rows["tau2.nl_assertions[0]"].reason
    assert transport.requests == []


def test_tau2_reward_takes_the_judges_verdicts() -> None:
    criteria = {**CRITERIA, "reward_basis": ["NL_ASSERTION"]}
    assert tau2_reward(TALK, criteria, nl_met=[True, True]).reward == 1.0
    assert tau2_reward(TALK, criteria, nl_met=[True, False]).breakdown == {"NL_ASSERTION": 0.0}
    undecided = tau2_reward(TALK, criteria, nl_met=[True, None])
    assert undecided.undecided and undecided.reward == 0.0
    with pytest.raises(ConfigError, match="nl_met gives 1 verdict"):
        tau2_reward(TALK, criteria, nl_met=[True])


def test_an_undecided_nl_assertion_leaves_the_reward_undecided() -> None:
    scorer = ConversationScorer(
        [], None, "field_f1", None, {}, CRITERIA, None, _judge(Judge("no idea"))
    )
    rows = {f.path: f for f in scorer.scored(TALK).fields}
    assert rows["tau2.reward"].status == "batch_error"
    assert rows["tau2.nl_assertions[0]"].status == "batch_error"
