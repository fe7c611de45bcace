"""A user played by a model (engine/agents/simulated_user.py), asked through the judge's
HTTP transport of a real OpenAI-compatible server on 127.0.0.1: what it is told, its stop
signal, and each rule of its instructions a message breaks, a SimulatorFault naming the rule
and the turn (the simulator's failure, never the agent's)."""

from __future__ import annotations

import pytest

from pytest_jsonmatch import ConfigError
from pytest_jsonmatch.engine.agents.simulated_user import STOP, SimulatedUser, SimulatorFault
from tests.helpers.http_models import ChatModel, serving

CONVERSATION = [
    {"role": "user", "content": "I want my money back"},
    {"role": "assistant", "content": "Which order?"},
    {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "lookup", "arguments": "{}"}}
        ],
    },
    {"role": "tool", "tool_call_id": "c1", "content": "SECRET-TOOL-RESULT"},
]


def _user(said: str, finish: str = "stop") -> ChatModel:
    return ChatModel(lambda body: ({"role": "assistant", "content": said}, finish))


def _settings(url: str, **more: object) -> dict[str, object]:
    return {
        "persona": "An impatient customer",
        "goal": "Get order 1234 refunded",
        "model": "user-1",
        "endpoint": url,
        **more,
    }


def test_the_user_is_told_who_it_is_and_sees_the_assistants_words_only(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("USER_KEY_FOR_TEST", "local")  # (the transport sends it)
    server = _user("It is order 1234")
    monkeypatch.setenv("USER_URL_FOR_TEST", server.url)
    settings = _settings("", instructions="Give the order only when asked")
    del settings["endpoint"]  # (a key goes only where the environment says)
    with serving(server):
        user = SimulatedUser(
            {**settings, "endpoint_env": "USER_URL_FOR_TEST", "key_env": "USER_KEY_FOR_TEST"}
        )
        assert user(CONVERSATION) == "It is order 1234"
    (asked,) = server.asked
    prompt = asked["messages"][0]["content"]
    assert asked["model"] == "user-1"
    for told in (
        "An impatient customer",
        "Get order 1234 refunded",
        "Give the order only when asked",
        STOP,
    ):
        assert told in prompt
    assert "You: I want my money back" in prompt and "Assistant: Which order?" in prompt
    assert "SECRET-TOOL-RESULT" not in prompt and "lookup" not in prompt  # (tools: not the user's)


def test_the_stop_signal_ends_the_conversation() -> None:
    server = _user(f"Thanks, that is all. {STOP}")
    with serving(server):
        assert SimulatedUser(_settings(server.url))(CONVERSATION) is None
        assert (
            SimulatedUser(_settings(server.url, stop="BYE"))(CONVERSATION)
            == f"Thanks, that is all. {STOP}"
        )


@pytest.mark.parametrize(
    ("said", "finish", "settings", "fault"),
    [
        (
            "My email is Jane@Example.com, order 1234",
            "stop",
            {"withhold": ["jane@example.com"]},
            "the simulated user revealed 'jane@example.com' at turn 1, which its instructions withhold (withhold)",
        ),
        (
            STOP,
            "stop",
            {"min_turns": 2},
            "the simulated user ended the conversation at turn 1, before the 2 user turns its settings ask for (min_turns)",
        ),
        (
            "It is order",
            "length",
            {},
            "the simulated user's message at turn 1 was cut off by the token limit (max_tokens): no user turn",
        ),
        ("   ", "stop", {}, "the simulated user said nothing at turn 1"),
    ],
)
def test_a_message_that_breaks_its_instructions_is_the_simulators_fault(
    said: str, finish: str, settings: dict[str, object], fault: str
) -> None:
    server = _user(said, finish)
    with serving(server), pytest.raises(SimulatorFault) as raised:
        SimulatedUser(_settings(server.url, **settings))(CONVERSATION)
    assert str(raised.value) == "simulator: " + fault  # (every report tells it apart so)


def test_its_model_and_endpoint_read_from_the_variables_named_when_first_asked(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    server = _user("hello")
    settings = {"goal": "g", "model_env": "SIM_USER_MODEL", "endpoint_env": "SIM_USER_ENDPOINT"}
    user = SimulatedUser(settings)  # (made without them: a replay never asks it)
    monkeypatch.delenv("SIM_USER_MODEL", raising=False)
    with pytest.raises(ConfigError, match="model_env names 'SIM_USER_MODEL', which is not set"):
        user([])
    monkeypatch.setenv("SIM_USER_MODEL", "user-2")
    monkeypatch.setenv("SIM_USER_ENDPOINT", server.url)
    with serving(server):
        assert user([]) == "hello"
    assert server.asked[0]["model"] == "user-2"
    assert "You speak first." in server.asked[0]["messages"][0]["content"]


@pytest.mark.parametrize(
    ("settings", "said"),
    [
        ({"model": "m"}, "give the user's goal"),
        ({"goal": "g"}, "name its model (model: NAME) or the environment variable"),
        ({"goal": "g", "model": "m", "model_env": "M"}, "one of the two"),
        ({"goal": "g", "model": "m", "persona": 3}, "persona must be text"),
        ({"goal": "g", "model": "m", "withhold": [""]}, "withhold must be a list of texts"),
        ({"goal": "g", "model": "m", "min_turns": 0}, "min_turns must be a whole number from 1"),
        (
            {"goal": "g", "model": "m", "key_env": "sk-live-abc123"},
            "key_env must name an environment variable",
        ),
        (
            {"goal": "g", "model": "m", "endpoint": "http://a", "endpoint_env": "E"},
            "endpoint or endpoint_env, not both",
        ),
        ({"goal": "g", "model": "m", "timeout": 0}, "timeout must be a number of seconds above 0"),
        ({"goal": "g", "model": "m", "temperature": 1}, "simulated: unknown key 'temperature'"),
        (
            {"goal": "g", "model": "m", "endpoint": "https://evil.example", "key_env": "K"},
            "a key goes only to an endpoint the environment names: give endpoint_env",
        ),
        (
            {"goal": "g", "model": "m", "max_tokns": 3},
            "unknown key 'max_tokns' (did you mean 'max_tokens'?)",
        ),
    ],
)
def test_settings_that_cannot_play_a_user_are_refused(
    settings: dict[str, object], said: str
) -> None:
    with pytest.raises(ConfigError) as raised:
        SimulatedUser(settings)
    assert said in str(raised.value)
    assert "sk-live-abc123" not in str(raised.value)


def test_a_key_pasted_as_key_env_is_masked_as_the_judges_is() -> None:
    from pytest_jsonmatch.engine.core.masking import masked

    with pytest.raises(ConfigError):
        SimulatedUser({"goal": "g", "model": "m", "key_env": "sk-live-abc123"})
    assert "sk-live-abc123" not in masked("the server said: bad key sk-live-abc123")


def _judged(verdict: str) -> ChatModel:
    """A model that plays the user (it says its order is 999) and, asked as the judge of
    invented facts, answers ``verdict``."""

    def say(body: dict) -> tuple[dict, str]:
        asked = body["messages"][0]["content"]
        text = verdict if "Does the message state a fact" in asked else "It is order 999"
        return {"role": "assistant", "content": text}, "stop"

    return ChatModel(say)


def test_a_fact_its_instructions_do_not_give_is_the_simulators_fault_where_asked() -> None:
    server = _judged('Yes. {"invented": true, "fact": "order 999"}')
    with serving(server), pytest.raises(SimulatorFault) as raised:
        SimulatedUser(_settings(server.url, check_facts=True))(CONVERSATION)
    assert str(raised.value) == (
        "simulator: the simulated user stated a fact its instructions do not give at turn 1 "
        "(check_facts): 'order 999'"
    )
    judged = server.asked[1]["messages"][0]["content"]  # (the user's turn, then its check)
    assert "Its message: It is order 999" in judged and "Get order 1234 refunded" in judged


def test_a_fact_check_that_passes_or_gives_no_verdict() -> None:
    server = _judged('{"invented": false, "fact": ""}')
    with serving(server):
        assert (
            SimulatedUser(_settings(server.url, check_facts=True))(CONVERSATION)
            == "It is order 999"
        )
        assert SimulatedUser(_settings(server.url))(CONVERSATION) == "It is order 999"
    assert len(server.asked) == 3  # two turns, one of them checked
    unread = _judged("I think it is fine")
    with serving(unread), pytest.raises(SimulatorFault, match="gave no verdict"):
        SimulatedUser(_settings(unread.url, check_facts=True))(CONVERSATION)
    with pytest.raises(ConfigError, match="check_facts must be true or false"):
        SimulatedUser(_settings("http://127.0.0.1:9/v1", check_facts="yes"))
