"""tau2-bench's reward for one conversation (engine/agents/tau2_reward.py): each expected
reward worked out by hand from the rules docs/metrics.md ("tau2-bench's reward") gives,
which are tau2-bench's evaluator's (src/tau2/evaluator/, src/tau2/data_model/tasks.py)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from pytest_jsonmatch import ConfigError
from pytest_jsonmatch.engine.agents.agent_run import read_run
from pytest_jsonmatch.engine.agents.tau2_reward import (
    ActionCheck,
    AssertionCheck,
    InfoCheck,
    tau2_reward,
)
from pytest_jsonmatch.engine.reading.agent_messages import Conversation


def _call(name: str, **arguments: object) -> dict[str, Any]:
    return {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {
                "id": f"c_{name}",
                "type": "function",
                "function": {"name": name, "arguments": json.dumps(arguments)},
            }
        ],
    }


def _result(name: str, content: str) -> dict[str, Any]:
    return {"role": "tool", "tool_call_id": f"c_{name}", "content": content}


MESSAGES: list[dict[str, Any]] = [
    {"role": "system", "content": "You are an airline agent."},
    {"role": "user", "content": "Please cancel reservation EHGLP3, my user id is emma_kim_9957."},
    _call("get_user_details", user_id="emma_kim_9957"),
    _result("get_user_details", '{"user_id": "emma_kim_9957"}'),
    _call("cancel_reservation", reservation_id="EHGLP3", reason="change of plan"),
    _result("cancel_reservation", '{"status": "cancelled"}'),
    {
        "role": "assistant",
        "content": "Reservation EHGLP3 is now Cancelled. A refund of $1,628 will reach your card.",
    },
]
CANCELLED = {"reservations": {"EHGLP3": {"status": "cancelled", "refund": 1628}}}
OPEN = {"reservations": {"EHGLP3": {"status": "confirmed", "refund": 0}}}
GET_USER = {
    "action_id": "0_0",
    "name": "get_user_details",
    "arguments": {"user_id": "emma_kim_9957"},
}
CANCEL = {
    "action_id": "0_1",
    "name": "cancel_reservation",
    "arguments": {"reservation_id": "EHGLP3", "reason": "change of plan"},
}


def _conversation(messages: list[dict[str, Any]] = MESSAGES, state: object = None) -> Conversation:
    return read_run({"messages": messages, "state": state})


def _criteria(**given: object) -> dict[str, object]:
    criteria: dict[str, object] = {"actions": [GET_USER, CANCEL], "communicate_info": ["1628"]}
    criteria.update(given)
    return criteria


# -- every component ------------------------------------------------------------------------


def test_every_component_met_gives_one() -> None:
    basis = ["DB", "ENV_ASSERTION", "ACTION", "COMMUNICATE", "NL_ASSERTION"]
    result = tau2_reward(
        _conversation(), _criteria(reward_basis=basis), CANCELLED, json.loads(json.dumps(CANCELLED))
    )
    # DB 1 (same states) x ENV_ASSERTION 1 (none) x ACTION 1 (both called) x COMMUNICATE 1
    # ("1628" in "...$1628...", commas removed) x NL_ASSERTION 1 (none): 1.0
    assert result.reward == 1.0
    assert result.db is True
    assert result.actions == (
        ActionCheck(
            "0_0", "get_user_details", "assistant", True, "messages[2].tool_calls[0].function"
        ),
        ActionCheck(
            "0_1", "cancel_reservation", "assistant", True, "messages[4].tool_calls[0].function"
        ),
    )
    assert result.communicate == (InfoCheck("1628", True, "messages[6]"),)
    assert result.basis == tuple(basis)
    assert result.breakdown == dict.fromkeys(basis, 1.0)
    assert result.nl_assertions == () and result.notes == ()


def test_one_action_missed_under_action_gives_zero() -> None:
    certificate = {"action_id": "0_2", "name": "send_certificate", "arguments": {"amount": 50}}
    criteria = _criteria(actions=[GET_USER, CANCEL, certificate], reward_basis=["ACTION"])
    result = tau2_reward(_conversation(), criteria)
    # ACTION: 1 only when every expected action is matched; send_certificate never called: 0
    assert result.reward == 0.0
    assert [(check.action_id, check.matched) for check in result.actions] == [
        ("0_0", True),
        ("0_1", True),
        ("0_2", False),
    ]
    assert result.actions[2].call == ""
    assert result.breakdown == {"ACTION": 0.0}
    assert result.db is None  # no states given, and DB is not in the basis
    assert result.notes == ("DB: not evaluated: no end_state and no expected_state given",)


def test_an_argument_left_out_of_compare_args_may_differ() -> None:
    other_reason = {**CANCEL, "arguments": {"reservation_id": "EHGLP3", "reason": "other"}}
    compared = {**other_reason, "compare_args": ["reservation_id"]}
    matched = tau2_reward(_conversation(), _criteria(actions=[compared], reward_basis=["ACTION"]))
    assert matched.reward == 1.0 and matched.actions[0].matched
    # without compare_args every argument the call gives is compared: reason differs
    missed = tau2_reward(
        _conversation(), _criteria(actions=[other_reason], reward_basis=["ACTION"])
    )
    assert missed.reward == 0.0 and not missed.actions[0].matched


def test_without_compare_args_only_the_calls_arguments_are_compared() -> None:
    # the arguments compared are the call's keys: one only the action gives is not compared,
    # one only the call gives is (its value against nothing: no match)
    wider = {**GET_USER, "arguments": {"user_id": "emma_kim_9957", "include_history": True}}
    narrower = {**CANCEL, "arguments": {"reservation_id": "EHGLP3"}}
    result = tau2_reward(_conversation(), _criteria(actions=[wider, narrower], reward_basis=[]))
    assert [check.matched for check in result.actions] == [True, False]


def test_empty_compare_args_matches_on_the_name_alone() -> None:
    anything = {**CANCEL, "arguments": {"reservation_id": "ZZZZZZ"}, "compare_args": []}
    result = tau2_reward(_conversation(), _criteria(actions=[anything], reward_basis=["ACTION"]))
    assert result.reward == 1.0


def test_argument_values_compare_by_pythons_equality() -> None:
    # tau2 compares the two dicts with ==: 1628 equals 1628.0, as json.loads gives both
    messages = [*MESSAGES[:2], _call("refund", amount=1628.0)]
    action = {"action_id": "r", "name": "refund", "arguments": {"amount": 1628}}
    result = tau2_reward(_conversation(messages), {"actions": [action], "reward_basis": ["ACTION"]})
    assert result.reward == 1.0


# -- communicate_info -----------------------------------------------------------------------


def test_info_is_found_whatever_its_case() -> None:
    criteria = _criteria(communicate_info=["ehglp3 is now CANCELLED"], reward_basis=["COMMUNICATE"])
    result = tau2_reward(_conversation(), criteria)
    assert result.reward == 1.0
    assert result.communicate == (InfoCheck("ehglp3 is now CANCELLED", True, "messages[6]"),)


def test_info_not_said_gives_zero_and_its_own_commas_are_kept() -> None:
    infos = ["$1628", "1,628", "full refund"]
    result = tau2_reward(
        _conversation(), _criteria(communicate_info=infos, reward_basis=["COMMUNICATE"])
    )
    # the message's commas are removed, the info's are not: "$1628" is found, "1,628" is
    # not ("$1,628" reads "$1628"); "full refund" is never said. COMMUNICATE: 0
    assert [check.found for check in result.communicate] == [True, False, False]
    assert result.reward == 0.0


def test_only_the_assistants_messages_are_read_for_info() -> None:
    # "emma_kim_9957" is in the user's message and in a tool's result, never the assistant's
    criteria = _criteria(communicate_info=["emma_kim_9957"], reward_basis=["COMMUNICATE"])
    result = tau2_reward(_conversation(), criteria)
    assert result.communicate == (InfoCheck("emma_kim_9957", False, ""),)
    assert result.reward == 0.0


# -- reward_basis ---------------------------------------------------------------------------


def test_db_only_reads_the_end_state_and_nothing_else() -> None:
    criteria = _criteria(communicate_info=["never said"], reward_basis=["DB"])
    same = tau2_reward(_conversation(), criteria, CANCELLED, CANCELLED)
    # DB 1; COMMUNICATE (0) is evaluated but not in the basis: 1.0
    assert same.reward == 1.0 and same.communicate[0].found is False
    assert same.breakdown == {"DB": 1.0}
    differ = tau2_reward(_conversation(), criteria, OPEN, CANCELLED)
    assert differ.reward == 0.0 and differ.db is False


def test_db_and_communicate_is_the_default_basis() -> None:
    both = tau2_reward(_conversation(), _criteria(), CANCELLED, CANCELLED)
    assert both.basis == ("DB", "COMMUNICATE")
    assert both.reward == 1.0  # 1 (DB) x 1 (COMMUNICATE)
    unsaid = tau2_reward(
        _conversation(), _criteria(communicate_info=["voucher"]), CANCELLED, CANCELLED
    )
    assert unsaid.reward == 0.0  # 1 (DB) x 0 (COMMUNICATE)
    assert unsaid.breakdown == {"DB": 1.0, "COMMUNICATE": 0.0}


def test_action_and_communicate_need_no_state() -> None:
    criteria = _criteria(reward_basis=["ACTION", "COMMUNICATE"])
    assert tau2_reward(_conversation(), criteria).reward == 1.0  # 1 x 1
    missed = _criteria(actions=[GET_USER, {**CANCEL, "arguments": {"reservation_id": "X"}}])
    missed["reward_basis"] = ["ACTION", "COMMUNICATE"]
    assert tau2_reward(_conversation(), missed).reward == 0.0  # 0 (ACTION) x 1 (COMMUNICATE)


def test_empty_basis_gives_one() -> None:
    result = tau2_reward(_conversation(), _criteria(communicate_info=["voucher"], reward_basis=[]))
    assert result.reward == 1.0 and result.breakdown == {}
    assert result.communicate[0].found is False  # (evaluated all the same)


def test_the_end_state_is_compared_as_tau2_hashes_it() -> None:
    # key order does not count (the hash's JSON sorts keys); list order does
    reordered = {"reservations": {"EHGLP3": {"refund": 1628, "status": "cancelled"}}}
    assert (
        tau2_reward(_conversation(), _criteria(reward_basis=["DB"]), reordered, CANCELLED).db
        is True
    )
    listed, swapped = {"seats": ["1A", "1B"]}, {"seats": ["1B", "1A"]}
    assert tau2_reward(_conversation(), _criteria(reward_basis=["DB"]), listed, swapped).db is False


def test_the_conversations_own_state_is_the_end_state_by_default() -> None:
    run = _conversation(state=CANCELLED)
    assert tau2_reward(run, _criteria(), expected_state=CANCELLED).reward == 1.0
    assert tau2_reward(run, _criteria(), expected_state=OPEN).reward == 0.0


def test_no_actions_and_no_env_assertions_skip_the_db_check() -> None:
    # tau2 replays nothing then: the environment's reward is 1.0, no state needed
    result = tau2_reward(_conversation(), {"communicate_info": ["1628"], "reward_basis": ["DB"]})
    assert result.reward == 1.0 and result.db is True
    assert result.notes == ("DB: the task gives no actions and no env assertions: 1.0, unchecked",)
    # an empty list is not an absent one: the check runs, and needs the states
    with pytest.raises(ConfigError, match="no end_state and no expected_state was given"):
        tau2_reward(_conversation(), {"actions": [], "reward_basis": ["DB"]})


# -- actions: whose calls count -------------------------------------------------------------


def test_empty_actions_give_one_under_action() -> None:
    result = tau2_reward(_conversation(), {"actions": [], "reward_basis": ["ACTION"]})
    assert result.reward == 1.0 and result.actions == ()


def test_a_call_in_a_user_message_is_not_read() -> None:
    # tau2 counts a user's tool call (telecom's simulated user toggles its own phone); the
    # conversation's reader keeps the assistant's calls only, so here the action is missed
    user_call = {**_call("toggle_airplane_mode"), "role": "user"}
    action = {
        "action_id": "u",
        "requestor": "user",
        "name": "toggle_airplane_mode",
        "arguments": {},
    }
    criteria = {"actions": [action], "reward_basis": ["ACTION"]}
    result = tau2_reward(_conversation([*MESSAGES[:2], user_call]), criteria)
    assert result.actions == (ActionCheck("u", "toggle_airplane_mode", "user", False, ""),)
    assert result.reward == 0.0


def test_the_requestor_is_reported_not_compared() -> None:
    # compare_with_tool_call compares the name and arguments only: a user action matches an
    # assistant's call of the same function
    by_user = {**GET_USER, "requestor": "user"}
    result = tau2_reward(_conversation(), {"actions": [by_user], "reward_basis": ["ACTION"]})
    assert result.actions[0].requestor == "user" and result.actions[0].matched
    assert result.reward == 1.0


# -- what cannot be evaluated ---------------------------------------------------------------


def test_nl_assertions_are_not_evaluated() -> None:
    assertion = "Agent should not offer a voucher."
    result = tau2_reward(
        _conversation(), _criteria(nl_assertions=[assertion]), CANCELLED, CANCELLED
    )
    assert result.nl_assertions == (AssertionCheck(assertion, None),)
    assert result.reward == 1.0  # NL_ASSERTION is not in the basis [DB, COMMUNICATE]
    assert result.notes == (
        "NL_ASSERTION: 1 assertion(s) not evaluated (NL_ASSERTION is not in the reward_basis: "
        "tau2-bench's evaluation type ALL does not judge them)",
    )
    # in the basis with none to judge: 1.0, as tau2 gives for an empty list
    none = _criteria(nl_assertions=None, reward_basis=["NL_ASSERTION"])
    assert tau2_reward(_conversation(), none).reward == 1.0


def test_a_basis_that_needs_what_is_not_evaluated_is_refused() -> None:
    nl = _criteria(nl_assertions=["Agent is polite."], reward_basis=["NL_ASSERTION"])
    with pytest.raises(ConfigError) as caught:
        tau2_reward(_conversation(), nl)
    assert str(caught.value) == (
        "evaluation_criteria.reward_basis holds NL_ASSERTION and the task gives 1 NL "
        "assertion(s): tau2-bench asks an LLM judge for them; give the judge's verdicts "
        "(nl_met), or score the conversation with a judge configured"
    )
    env = _criteria(
        env_assertions=[{"env_type": "user", "func_name": "assert_ok", "arguments": {}}]
    )
    env["reward_basis"] = ["ENV_ASSERTION"]
    with pytest.raises(ConfigError) as caught:
        tau2_reward(_conversation(), env, CANCELLED, CANCELLED)
    assert str(caught.value) == (
        "evaluation_criteria.reward_basis holds ENV_ASSERTION and the task gives 1 env "
        "assertion(s): they run in tau2-bench's environment, which this reward does not replay"
    )
    with pytest.raises(ConfigError) as caught:
        tau2_reward(_conversation(), _criteria(), end_state=CANCELLED)
    assert str(caught.value) == (
        "evaluation_criteria.reward_basis holds DB, but no expected_state was given: the DB "
        "check compares the state the agent left (end_state, or the conversation's own state) "
        "with the state the task's actions leave (expected_state)"
    )


# -- bad criteria ---------------------------------------------------------------------------

NO_NAME = {"action_id": "0_2", "arguments": {}}
BAD_CRITERIA = [
    (
        ["DB"],
        "evaluation_criteria must be a mapping (a tau2-bench task's 'evaluation_criteria' "
        "object), not ['DB']",
    ),
    (
        {"actions": [GET_USER, CANCEL, NO_NAME]},
        "evaluation_criteria.actions[2].name is missing: an action gives one",
    ),
    (
        {"actions": [{**GET_USER, "name": 7}]},
        "evaluation_criteria.actions[0].name must be text, not 7",
    ),
    (
        {"actions": [{**GET_USER, "arguments": '{"user_id": "x"}'}]},
        'evaluation_criteria.actions[0].arguments must be an object, not \'{"user_id": "x"}\'',
    ),
    (
        {"actions": [{**GET_USER, "compare_args": ["user_id", 3]}]},
        "evaluation_criteria.actions[0].compare_args[1] must be text, not 3",
    ),
    (
        {"actions": [{**GET_USER, "requestor": "agent"}]},
        "evaluation_criteria.actions[0].requestor must be 'assistant' or 'user', not 'agent'",
    ),
    (
        {"actions": "get_user_details"},
        "evaluation_criteria.actions must be a list or null, not 'get_user_details'",
    ),
    (
        {"reward_basis": ["DB", "DATABASE"]},
        "evaluation_criteria.reward_basis[1]: unknown component 'DATABASE'; known components: "
        "ACTION, COMMUNICATE, DB, ENV_ASSERTION, NL_ASSERTION",
    ),
    (
        {"reward_basis": ["db"]},
        "evaluation_criteria.reward_basis[0]: unknown component 'db' (did you mean 'DB'?); "
        "known components: ACTION, COMMUNICATE, DB, ENV_ASSERTION, NL_ASSERTION",
    ),
    (
        {"reward_basis": None},
        "evaluation_criteria.reward_basis must be a list of components, not None",
    ),
    (
        {"communicate_info": ["1628", 1628]},
        "evaluation_criteria.communicate_info[1] must be text, not 1628",
    ),
    (
        {"reward_bases": ["DB"]},
        "evaluation_criteria: unknown key 'reward_bases' (did you mean 'reward_basis'?); known "
        "keys: actions, communicate_info, env_assertions, nl_assertions, reward_basis",
    ),
]


@pytest.mark.parametrize(("criteria", "message"), BAD_CRITERIA)
def test_bad_criteria_name_the_key(criteria: object, message: str) -> None:
    with pytest.raises(ConfigError) as caught:
        tau2_reward(_conversation(), criteria, CANCELLED, CANCELLED)
    assert str(caught.value) == message


def test_a_task_given_for_its_criteria_is_named() -> None:
    task = {"id": "1", "evaluation_criteria": {"reward_basis": ["DB"]}}
    with pytest.raises(ConfigError) as caught:
        tau2_reward(_conversation(), task)
    assert str(caught.value) == (
        "evaluation_criteria: a whole task was given (it holds 'evaluation_criteria'); give "
        "the task's 'evaluation_criteria' object"
    )
