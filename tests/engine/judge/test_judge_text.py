"""What the judge's settings and its transport show of a setting's text
(engine/judge/judge_settings.py, http_transport.py): an endpoint, a model or a key holding
a control character is refused when the judge is made, naming the setting, not showing the
value; an endpoint's user and password are used for the request and shown in no message.

Against a real server on 127.0.0.1 (tests/helpers/judge_server.py)."""

from __future__ import annotations

import socket

import pytest

from pytest_jsonmatch import ConfigError, JudgeSettings
from pytest_jsonmatch.engine.judge import JudgeRequest
from pytest_jsonmatch.engine.judge.http_transport import (
    HttpTransport,
    JudgeConnectionError,
    JudgeHTTPError,
)
from pytest_jsonmatch.engine.judge.semantic import SemanticJudge
from tests.helpers.http_models import serving
from tests.helpers.judge_server import JudgeServer

PASSWORD = "pw-judge-text-0123"


@pytest.mark.parametrize(
    ("settings", "message"),
    [
        (
            {"endpoint": "http://127.0.0.1:9/v1\n::warning::pwned"},
            "judge: endpoint must be one line of printable text; it holds a line break "
            "('\\n') at character 22",
        ),
        (
            {"endpoint": "http://127.0.0.1:9/v1\x1b[2J"},
            "judge: endpoint must be one line of printable text; it holds a control "
            "character ('\\x1b') at character 22",
        ),
        (
            {"model": "gpt\r::error::x"},
            "judge: model must be one line of printable text, not 'gpt\\r::error::x'",
        ),
    ],
)
def test_a_setting_holding_a_control_character_is_refused(settings, message):
    with pytest.raises(ConfigError) as caught:
        JudgeSettings(**{"model": "m", **settings})
    assert str(caught.value) == message


def test_a_key_holding_a_line_break_is_refused_and_not_shown(monkeypatch):
    monkeypatch.setenv("JM_TEST_TEXT_KEY", "sk-abc\r\nX-Injected: 1")
    with pytest.raises(ConfigError) as caught:
        JudgeSettings(model="m", key_env="JM_TEST_TEXT_KEY")
    assert str(caught.value) == (
        "judge: key_env names the environment variable JM_TEST_TEXT_KEY, whose value holds "
        "a line break ('\\r') at character 7: an API key is one line of printable text (the "
        "value is not shown)"
    )


def test_an_endpoints_user_and_password_reach_the_server_and_no_message():
    srv = JudgeServer()
    srv.down_after = 0  # a 503: its message names where the request went
    url = f"http://judge-user:{PASSWORD}@127.0.0.1:{srv.server_address[1]}/v1"
    settings = JudgeSettings(model="m", endpoint=url)
    assert settings.endpoint == url  # kept for the request
    assert settings.shown_endpoint == f"http://***@127.0.0.1:{srv.server_address[1]}/v1"
    assert SemanticJudge(settings).name == f"judge 'm' at {settings.shown_endpoint}"
    with serving(srv):
        with pytest.raises(JudgeHTTPError) as caught:
            HttpTransport()(JudgeRequest("m", "{pairs}", 1, url, timeout=5.0))
    assert srv.total == 1
    assert str(caught.value).startswith(f"HTTP 503 from {settings.shown_endpoint}/chat/")


def test_an_unreachable_endpoints_password_is_not_in_its_message():
    with socket.socket() as closed:
        closed.bind(("127.0.0.1", 0))
        port = closed.getsockname()[1]
    url = f"http://u:{PASSWORD}@127.0.0.1:{port}/v1"
    with pytest.raises(JudgeConnectionError) as caught:
        HttpTransport()(JudgeRequest("m", "{pairs}", 1, url, timeout=5.0))
    assert str(caught.value).startswith(f"cannot reach http://***@127.0.0.1:{port}/v1/")
    assert PASSWORD not in str(caught.value)
