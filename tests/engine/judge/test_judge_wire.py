"""The judge's wire (judge/http_transport.py, and the request the judge builds): its key
goes to the configured endpoint and nowhere else, one deadline bounds an attempt, a reply
and a request are bounded, the key read from key_env is masked in every output whatever
its shape, and the comparison whose request failed says so.

Against real servers on 127.0.0.1 (tests/helpers/judge_server.py), the library's own HTTP
client, real pytest sessions (pytester) and the real ``jsonmatch`` command."""

from __future__ import annotations

import json
import threading

import pytest

from pytest_jsonmatch import REGISTRY, ConfigError, JudgeSettings, match_json
from pytest_jsonmatch.engine.core.errors import ComparatorError
from pytest_jsonmatch.engine.judge import JudgeRequest, judge_settings_from_text
from pytest_jsonmatch.engine.judge.http_transport import HttpTransport, JudgeTimeout
from tests.cli.run import jsonmatch
from tests.helpers.http_models import serving
from tests.helpers.judge_server import JudgeServer, WireServer
from tests.helpers.plugin_cases import ARGS, write

pytestmark = pytest.mark.slow  # (CONTRIBUTING.md: the inner loop leaves it out)

SEM = {"comparator": "semantic"}
KEY = "zq8-plainkey-0123456789"  # no shape the masking knows: only its value can mask it
KEY_ENV = "JSONMATCH_WIRE_TEST_KEY"


@pytest.fixture
def judge_state():
    before = REGISTRY.state()
    try:
        yield
    finally:
        REGISTRY.restore(before)


def _judged(endpoint: str, **settings: object):
    """The one judged field of a record whose two values differ, judged at ``endpoint``."""
    REGISTRY.configure_judge(
        JudgeSettings(model="judge-1", endpoint=endpoint, **settings), transport=None
    )
    return match_json({"s": "two boxes"}, {"s": "2 boxes"}, fields={"s": SEM}).fields[0]


# -- the key goes to the endpoint only ---------------------------------------------------------


@pytest.mark.parametrize("elsewhere", ["server", "ftp"])
def test_a_redirect_is_not_followed(judge_state, monkeypatch, elsewhere):
    monkeypatch.setenv(KEY_ENV, KEY)
    other, redirecting = WireServer("ok"), WireServer("redirect")
    with serving(other, redirecting):
        redirecting.location = (
            other.url + "/chat/completions"
            if elsewhere == "server"
            else f"ftp://127.0.0.1:{other.server_address[1]}/v1/chat/completions"
        )
        field = _judged(redirecting.url, key_env=KEY_ENV)
    assert redirecting.auth == [f"Bearer {KEY}"]  # the configured endpoint got the key
    assert other.auth == []  # the place it pointed to got no request at all
    assert field.status == "batch_error"
    assert "HTTP 302" in field.reason and "not followed" in field.reason
    assert redirecting.location in field.reason


@pytest.mark.parametrize(
    "endpoint", ["ftp://127.0.0.1/v1", "file:///etc/passwd", "127.0.0.1:8080/v1", "http:///v1"]
)
def test_an_endpoint_the_key_cannot_go_to_is_a_config_error(endpoint):
    with pytest.raises(ConfigError) as caught:
        judge_settings_from_text(f"model=j endpoint={endpoint}", "jsonmatch_judge")
    assert str(caught.value).startswith(
        "jsonmatch_judge: endpoint must be an http:// or https:// URL with a host"
    )


# -- one deadline an attempt, bounded replies and requests -------------------------------------


def _in_thread(call):
    """``call()`` run in a thread given 15 s (a hang fails the test instead of holding it):
    (what it returned or raised, whether it ended)."""
    done: list[object] = []

    def run() -> None:
        try:
            done.append(call())
        except BaseException as exc:  # noqa: BLE001 - the test reads it
            done.append(exc)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(15)
    return (done[0] if done else None), not thread.is_alive()


def test_a_server_dripping_its_reply_is_cut_at_the_timeout():
    # one byte every 0.1 s of a body over 1,000 bytes: each read is quick, the whole would
    # take minutes; the attempt's one deadline (0.3 s) ends it
    drip = WireServer("drip")
    drip.gap = 0.1
    with serving(drip):
        request = JudgeRequest("judge-1", "{pairs}", 1, drip.url, timeout=0.3)
        outcome, ended = _in_thread(lambda: HttpTransport()(request))
    assert ended, "the attempt outlived its 0.3 s deadline by over 14 s"
    assert isinstance(outcome, JudgeTimeout)
    assert str(outcome) == f"no answer from {drip.url}/chat/completions within 0.3 s"
    assert 0 < drip.sent < 100  # the body had begun, and was not read to its end


def test_jsonmatch_score_ends_a_dripping_judge_at_its_timeout(tmp_path):
    drip = WireServer("drip")
    drip.gap = 0.1  # each byte well within the deadline of 0.3 s
    (tmp_path / "gold.jsonl").write_text('{"s": "two boxes"}\n')
    (tmp_path / "pred.jsonl").write_text('{"s": "2 boxes"}\n')
    (tmp_path / "s.schema.json").write_text(
        json.dumps({"properties": {"s": {"type": "string", "x-eval-compare": "semantic"}}})
    )
    with serving(drip):
        proc = jsonmatch(
            "score",
            "gold.jsonl",
            "pred.jsonl",
            "--schema",
            "s.schema.json",
            "--judge",
            f"model=j endpoint={drip.url} timeout=0.3",
            "--format",
            "json",
            cwd=tmp_path,
            timeout=60,  # past it the run hangs: subprocess raises TimeoutExpired
        )
    # the command prints no field's reason: its judge figures say the one request failed,
    # after one attempt (a timeout is not retried), ended by its 0.3 s deadline
    judge = json.loads(proc.stdout)["run"]["judge"]
    assert (judge["requests"], judge["attempts"], judge["failed_requests"]) == (1, 1, 1)
    assert judge["not_judged"] == 1
    assert judge["latency_s"] < 10  # a deadline of 0.3 s; minutes without one


def test_a_reply_past_the_cap_is_not_read_whole():
    # a 64 MiB body: reading stops past 8 MiB (a few 64 KiB chunks of slack in the pipes)
    huge = WireServer("huge")
    with serving(huge):
        request = JudgeRequest("judge-1", "{pairs}", 1, huge.url, timeout=30.0)
        outcome, ended = _in_thread(lambda: HttpTransport()(request))
    assert ended
    assert isinstance(outcome, ComparatorError)
    assert str(outcome) == (
        f"the judge's response from {huge.url}/chat/completions is larger than 8,388,608 "
        f"bytes (8 MiB, the most a reply is read)"
    )
    assert huge.sent < 16 * 1024 * 1024


def test_a_template_repeating_pairs_sends_nothing(judge_state, tmp_path):
    # 36,000 {pairs} (252 KB, under the template's 256 KiB cap) and a 1 KB value: each
    # {pairs} becomes the ~2 KB item line, 36,000 x 2 KB = 72 MB, over the 4 MiB cap
    (tmp_path / "judge.txt").write_text("{pairs}" * 36_000)
    srv = JudgeServer()
    with serving(srv):
        REGISTRY.configure_judge(
            judge_settings_from_text(f"model=j endpoint={srv.url} prompt=judge.txt", "x", tmp_path),
            transport=None,
        )
        field = match_json({"s": "a" * 1000}, {"s": "b" * 1000}, fields={"s": SEM}).fields[0]
    assert srv.total == 0  # the server received nothing
    assert field.status == "batch_error"
    assert "the request was not sent: its prompt would be" in field.reason
    assert "the prompt template 'judge.txt' holds {pairs} 36,000 times" in field.reason


# -- the key is masked wherever it appears -----------------------------------------------------


def _judged_suite(pytester, endpoint: str, answers: list[str]) -> None:
    """A suite judged at ``endpoint`` with the key in ``KEY_ENV``: case c<n> of cases/m
    compares its field ``s`` (semantic) "two boxes" against ``answers[n]``."""
    write(
        pytester,
        "pytest.ini",
        f"[pytest]\njsonmatch_judge = model=j endpoint={endpoint} key_env={KEY_ENV}\n",
    )
    write(
        pytester,
        "cases/m.jsonmatch.yaml",
        "cases:\n"
        + "".join(
            f"- id: c{n}\n  options: {{fields: {{s: {{comparator: semantic}}}}}}\n"
            f"  expected: {{s: two boxes}}\n  actual: {{s: '{answer}'}}\n"
            for n, answer in enumerate(answers)
        ),
    )
    write(pytester, "conftest.py", "")


def test_a_key_echoed_by_the_judge_is_in_no_output(pytester, monkeypatch):
    monkeypatch.setenv(KEY_ENV, KEY)
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(pytester.path / "summary.md"))
    monkeypatch.setenv("GITHUB_ACTIONS", "true")  # the workflow commands (annotations) too
    echo = WireServer("echo")
    with serving(echo):
        _judged_suite(pytester, echo.url, ["2 boxes"])
        result = pytester.runpytest_inprocess(
            *ARGS,
            "cases",
            "-rA",
            "--jsonmatch-report=r.json",
            "--jsonmatch-report=r.md",
            "--jsonmatch-report=r.html",
            "--junitxml=junit.xml",
        )
    assert echo.auth == [f"Bearer {KEY}"]  # the server did get it, and echoed it
    out = result.stdout.str() + result.stderr.str()
    assert "::error" in out  # the annotations were written
    assert "HTTP 401" in out  # the echo reached the outputs, its key masked
    written = {p.name: p.read_text() for p in pytester.path.iterdir() if p.is_file()}
    assert {"r.json", "r.md", "r.html", "junit.xml", "summary.md"} <= written.keys()
    assert KEY not in out
    assert [name for name, text in written.items() if KEY in text] == []


def test_a_key_echoed_by_the_judge_is_masked_in_the_reason(judge_state, monkeypatch):
    monkeypatch.setenv(KEY_ENV, KEY)
    echo = WireServer("echo")
    with serving(echo):
        field = _judged(echo.url, key_env=KEY_ENV)
    assert "HTTP 401" in field.reason and "***" in field.reason
    assert KEY not in field.reason


@pytest.mark.parametrize("given", [KEY, "sk-proj-abc123def456ghi789", "1KEY", "A" * 65])
def test_key_env_must_be_a_variable_name_and_is_not_echoed(given):
    with pytest.raises(ConfigError) as caught:
        judge_settings_from_text(f"model=j key_env={given}", "jsonmatch_judge")
    message = str(caught.value)
    assert message.startswith("jsonmatch_judge: key_env must name an environment variable")
    assert given not in message


def test_a_key_in_key_envs_place_is_not_named_when_unset(judge_state, monkeypatch):
    # shaped like a name but not in upper case, and not set: it may be a key, not shown
    pasted = "zq8plainkey0123456789"
    monkeypatch.delenv(pasted, raising=False)
    srv = JudgeServer()
    with serving(srv):
        field = _judged(srv.url, key_env=pasted)
    assert srv.total == 0
    assert "the judge's key variable named by key_env is not set" in field.reason
    assert pasted not in field.reason


def test_a_key_pasted_as_key_env_is_not_in_the_reports_command_line(tmp_path):
    # the key's text in the variable name's place: unset, not upper case, so it is masked
    # wherever it would be shown, the report's record of the command line included
    pasted = "zq8plainkey0123456789"
    (tmp_path / "gold.jsonl").write_text('{"s": "two boxes"}\n')
    (tmp_path / "pred.jsonl").write_text('{"s": "2 boxes"}\n')
    (tmp_path / "s.schema.json").write_text(
        json.dumps({"properties": {"s": {"type": "string", "x-eval-compare": "semantic"}}})
    )
    srv = JudgeServer()
    with serving(srv):
        proc = jsonmatch(
            "score",
            "gold.jsonl",
            "pred.jsonl",
            "--schema",
            "s.schema.json",
            "--judge",
            f"model=j endpoint={srv.url} key_env={pasted}",
            "--format",
            "json",
            "-o",
            "r.json",
            cwd=tmp_path,
        )
    written = (tmp_path / "r.json").read_text()
    assert srv.total == 0  # no key to send: nothing was sent
    assert "key_env=***" in " ".join(json.loads(written)["run"]["command"])
    assert pasted not in written + proc.stdout + proc.stderr


# -- the comparison whose request failed says why ------------------------------------------------


def test_the_case_whose_request_failed_says_the_request_failed(pytester, monkeypatch):
    # c0 and c1 ask different items; the first request is refused its key (401): it says
    # why, and the judge is asked nothing more; the other says it was not asked
    monkeypatch.setenv(KEY_ENV, KEY)
    echo = WireServer("echo")
    with serving(echo):
        _judged_suite(pytester, echo.url, ["0 boxes", "1 boxes"])
        result = pytester.runpytest_inprocess(*ARGS, "cases", "--jsonmatch-report=r.json")
    assert len(echo.auth) == 1  # one request, then no more
    cases = json.loads((pytester.path / "r.json").read_text())["cases"]
    first, second = (c["error"] for c in cases)
    assert "the request failed:" in first and "HTTP 401" in first, first
    assert "the judge is asked nothing more in this run" in first
    assert "not asked:" not in first
    assert "not asked:" in second and "unreachable earlier in this run" in second
    assert KEY not in result.stdout.str()
