"""A conversation scored turn by turn (engine/agents/conversation_scoring.py): each user
turn's answer and steps against what that turn must show, the end state once, one table;
the scores worked out by hand from the rules of a run's parts (docs/metrics.md)."""

from __future__ import annotations

import json

import pytest

from pytest_jsonmatch import ConfigError, match_conversation
from pytest_jsonmatch.engine.agents import ConversationScorer
from pytest_jsonmatch.engine.agents.agent_run import read_run
from pytest_jsonmatch.engine.agents.conversation_scoring import (
    expectations,
    first_failing_turn,
    turns_of,
)


def _call(name: str, arguments: dict[str, object], k: int) -> dict[str, object]:
    return {
        "id": f"c{k}",
        "type": "function",
        "function": {"name": name, "arguments": json.dumps(arguments)},
    }


# two user turns: the agent asks for the order, then refunds it and says so
REFUND = {
    "messages": [
        {"role": "system", "content": "You refund orders."},
        {"role": "user", "content": "I want my money back"},
        {"role": "assistant", "content": '{"asks_for": "order_id"}'},
        {"role": "user", "content": "It is order 1234"},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [_call("refund", {"order": "1234"}, 1)],
        },
        {"role": "tool", "tool_call_id": "c1", "content": '{"ok": true}'},
        {"role": "assistant", "content": '{"status": "refunded"}'},
    ],
    "state": {"refunds": [{"order": "1234"}]},
}
SUPERSET = {"mode": "superset"}
TURNS = [
    {"expected": {"asks_for": "order_id"}},
    {
        "expected": {"status": "refunded"},
        "expected_run": [{"name": "refund", "arguments": {"order": "1234"}}],
    },
]


def test_every_turn_and_the_state_as_expected_score_one_in_one_table() -> None:
    result = match_conversation(
        REFUND, TURNS, expected_state={"refunds": [{"order": "1234"}]}, run_options=SUPERSET
    )
    assert result.metric == "field_f1+turns+state"
    assert result.score == 1.0
    assert [(f.path, f.status) for f in result.fields] == [
        ("turns[0].asks_for", "match"),
        ("turns[1].status", "match"),
        ("turns[1].run[0].refund", "match"),
        ("turns[1].run[0].refund.order", "match"),
        ("state.refunds[0].order", "match"),
    ]
    # strict (the default mode): a step the turn added is shown where the conversation
    # holds it, its message index counting every turn
    strict = match_conversation(REFUND, [{}, TURNS[1]])
    added = [f for f in strict.fields if f.status == "hallucination"]
    assert [(f.path, f.actual_path) for f in added] == [
        ("turns[1].run[1]", "messages[5]"),
        ("turns[1].run[2]", "messages[6]"),
    ]
    assert [p.name for p in result.parts] == ["answer", "answer", "trajectory", "state"]


def test_credit_turn_by_turn_and_the_first_turn_gone_wrong() -> None:
    turns = [
        {"expected": {"asks_for": "email"}},
        {"expected_run": [{"name": "refund", "arguments": {"order": "999"}}]},
    ]
    scorer = ConversationScorer(
        expectations(turns), {"refunds": [{"order": "999"}]}, "field_f1", SUPERSET, {}
    )
    scored = scorer.scored_turns(REFUND)
    # turn 0: its answer's one row a mismatch, 0.0; turn 1: the step's name matches, its
    # argument does not (F1 1/2 over 2 rows); the state's one row a mismatch, 0.0:
    # (1 * 0 + 2 * 0.5 + 1 * 0) / 4 = 0.25
    assert scored.result.score == pytest.approx(0.25)
    assert scored.turn_scores == (0.0, 0.5)
    assert first_failing_turn(scored.turn_scores, 1.0) == 0
    assert first_failing_turn(scored.turn_scores, 0.4) == 0
    assert first_failing_turn((1.0, None, 0.5), 0.9) == 2
    assert first_failing_turn((1.0, None), 0.9) is None


def test_a_turn_the_conversation_never_reached_is_omitted() -> None:
    one_turn = {"messages": REFUND["messages"][:3]}
    result = match_conversation(one_turn, TURNS, run_options=SUPERSET)
    # turn 0's row matches (1.0); turn 1 never came: its answer's row and its step's two
    # rows omitted (0.0): (1 * 1 + 1 * 0 + 2 * 0) / 4
    assert result.score == pytest.approx(0.25)
    assert [(f.path, f.status) for f in result.fields][1:] == [
        ("turns[1].status", "omission"),
        ("turns[1].run[0].refund", "omission"),
        ("turns[1].run[0].refund.order", "omission"),
    ]


def test_a_turn_with_nothing_expected_has_no_rows_and_no_score() -> None:
    scorer = ConversationScorer(expectations([{}, TURNS[1]]), None, "field_f1", SUPERSET, {})
    scored = scorer.scored_turns(REFUND)
    assert scored.turn_scores == (None, 1.0)
    assert all(f.path.startswith("turns[1].") for f in scored.result.fields)
    assert scored.result.metric == "field_f1+turns"


def test_turns_are_cut_at_each_user_message_whatever_the_vendor() -> None:
    # Anthropic's tool results come in a user message: they are a tool's result, no turn
    anthropic = {
        "messages": [
            {"role": "user", "content": "refund order 7"},
            {
                "role": "assistant",
                "content": [
                    {"type": "tool_use", "id": "t1", "name": "refund", "input": {"order": "7"}}
                ],
            },
            {
                "role": "user",
                "content": [{"type": "tool_result", "tool_use_id": "t1", "content": "ok"}],
            },
            {"role": "assistant", "content": [{"type": "text", "text": '{"status": "refunded"}'}]},
            {"role": "user", "content": "thanks"},
            {"role": "assistant", "content": "You are welcome"},
        ]
    }
    turns = turns_of(read_run(anthropic))
    assert [[m.role for m in t.messages] for t in turns] == [
        ["user", "assistant", "tool", "assistant"],
        ["user", "assistant"],
    ]
    assert [t.start for t in turns] == [1, 5]  # each turn's first assistant message
    result = match_conversation(
        anthropic,
        [
            {
                "expected": {"status": "refunded"},
                "expected_run": [{"name": "refund", "arguments": {"order": "7"}}],
            }
        ],
        run_options=SUPERSET,
    )
    assert result.score == 1.0
    # a system prompt belongs to no turn; a user turn the agent never answered starts past
    # its end (no step, no answer)
    silent = turns_of(
        read_run([{"role": "system", "content": "s"}, {"role": "user", "content": "hi"}])
    )
    assert [(len(t.messages), t.start, t.answer) for t in silent] == [(1, 2, None)]


def test_the_same_conversation_scores_the_same_read_from_openai_or_anthropic() -> None:
    openai_form = {
        "messages": [
            {"role": "user", "content": "refund order 7"},
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [_call("refund", {"order": "7"}, 1)],
            },
            {"role": "tool", "tool_call_id": "c1", "content": "ok"},
            {"role": "assistant", "content": '{"status": "refunded"}'},
        ]
    }
    anthropic_form = {
        "messages": [
            {"role": "user", "content": "refund order 7"},
            {
                "role": "assistant",
                "content": [
                    {"type": "tool_use", "id": "t1", "name": "refund", "input": {"order": "8"}}
                ],
            },
            {
                "role": "user",
                "content": [{"type": "tool_result", "tool_use_id": "t1", "content": "ok"}],
            },
            {"role": "assistant", "content": [{"type": "text", "text": '{"status": "refunded"}'}]},
        ]
    }
    turns = [
        {
            "expected": {"status": "refunded"},
            "expected_run": [{"name": "refund", "arguments": {"order": "8"}}],
        }
    ]
    a = match_conversation(openai_form, turns, run_options=SUPERSET)
    b = match_conversation(anthropic_form, turns, run_options=SUPERSET)
    # the answer's row matches in both; the step's argument only in Anthropic's: OpenAI's
    # (1 * 1 + 2 * 0.5) / 3 = 2/3
    assert (a.score, b.score) == (pytest.approx(2 / 3), 1.0)


@pytest.mark.parametrize(
    ("turns", "state", "metric", "said"),
    [
        ([], None, "field_f1", "expected_state): give at least one"),
        ([{}, {}], None, "field_f1", "give at least one"),
        (
            [{"expected": {"a": 1}, "expect": {}}],
            None,
            "field_f1",
            "turns[0]: unknown key 'expect'",
        ),
        (["hello"], None, "field_f1", "turns[0] must be a mapping, not str"),
        ({"expected": {}}, None, "field_f1", "turns must be a list of turns"),
        (
            [{"expected": {"a": 1}}],
            None,
            "trajectory",
            "turns[0]: metric 'trajectory' scores one part",
        ),
        ([{}, {"expected_run": "search"}], None, "field_f1", "turns[1]: "),
    ],
)
def test_a_conversation_that_cannot_be_scored_says_which_turn(
    turns: object, state: object, metric: str, said: str
) -> None:
    with pytest.raises(ConfigError) as raised:
        match_conversation(REFUND, turns, expected_state=state, metric=metric)  # type: ignore[arg-type]
    assert said in str(raised.value)


def test_a_scorer_is_built_once_and_scores_many_conversations_alike() -> None:
    scorer = ConversationScorer(expectations(TURNS), None, "field_f1", SUPERSET, {})
    first, second = scorer.scored(REFUND), scorer.scored(json.dumps(REFUND))  # (text too)
    assert first.score == second.score == 1.0
    assert [f.path for f in first.fields] == [f.path for f in second.fields]


# a conversation of tau2-bench's shape: one refund asked for and made, the user told
TAU2_TALK = {
    "messages": [
        {"role": "user", "content": "Refund order 1234, it came late"},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [_call("refund", {"order": "1234", "reason": "late"}, 1)],
        },
        {"role": "tool", "tool_call_id": "c1", "content": "ok"},
        {"role": "assistant", "content": "Your refund of order 1234 is done."},
    ],
    "state": {"refunds": [{"order": "1234"}]},
}
CRITERIA = {
    "actions": [
        {
            "action_id": "a1",
            "name": "refund",
            "arguments": {"order": "1234"},
            "compare_args": ["order"],
        }
    ],
    "communicate_info": ["refund of order 1234"],
    "reward_basis": ["DB", "ACTION", "COMMUNICATE"],
}


def test_tau2_benchs_verdict_is_a_part_its_reward_a_row_beside_each_components_checks() -> None:
    scorer = ConversationScorer(
        [], {"refunds": [{"order": "1234"}]}, "field_f1", None, {}, CRITERIA
    )
    result = scorer.scored(TAU2_TALK)
    assert result.metric == "field_f1+turns+state+tau2"
    assert result.score == 1.0
    assert [(f.path, f.status) for f in result.fields] == [
        ("state.refunds[0].order", "match"),
        ("tau2.reward", "match"),
        ("tau2.db", "match"),
        ("tau2.actions[0].refund", "match"),
        ("tau2.communicate[0]", "match"),
    ]
    assert result.fields[1].reason == "reward over DB 1, ACTION 1, COMMUNICATE 1"
    assert [p.name for p in result.parts] == ["state", "tau2"]


def test_tau2_benchs_reward_of_0_fails_its_row_and_the_detail_says_which_check() -> None:
    told_other = dict(
        CRITERIA, communicate_info=["refund of order 999"], reward_basis=["ACTION", "COMMUNICATE"]
    )
    result = ConversationScorer([], None, "field_f1", None, {}, told_other).scored(TAU2_TALK)
    assert [(f.path, f.status) for f in result.fields] == [
        ("tau2.reward", "mismatch"),  # ACTION 1 x COMMUNICATE 0 = 0
        ("tau2.actions[0].refund", "match"),
        ("tau2.communicate[0]", "omission"),
    ]
    # its rows' F1: precision 1 / (1 + 1) = 1/2, recall 1 / (1 + 1 + 1) = 1/3: (1/3) / (5/6)
    assert result.score == pytest.approx(0.4)
    # the database in the basis needs both states: said when scored, under tau2
    with pytest.raises(ConfigError, match="^tau2: "):
        ConversationScorer([], None, "field_f1", None, {}, CRITERIA).scored(TAU2_TALK)
    with pytest.raises(ConfigError, match="^tau2: "):
        ConversationScorer([], None, "field_f1", None, {}, {"reward_basis": ["NOPE"]})
