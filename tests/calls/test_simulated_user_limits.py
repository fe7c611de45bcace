"""A simulated user's requests keep the judge's rules (engine/agents/simulated_user.py,
calls/judge_calls.py): in a session with a judge they go through its runner, beside the
judge's own (its concurrency, its rate on the schedule xdist's workers share, its retries
after ``Retry-After``, its timeout); without one each is retried as the judge retries its
own. The user's model is a server on 127.0.0.1 that counts the requests in flight."""

from __future__ import annotations

import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from pytest_jsonmatch.calls.judge_calls import JudgeCalls, judge_setup_from_text
from pytest_jsonmatch.engine.agents.simulated_user import SimulatedUser
from tests.helpers.http_models import CountsCalls, InFlight, reply_json, serving
from tests.helpers.plugin_cases import ARGS, write


class UserModel(ThreadingHTTPServer, CountsCalls):
    """The simulated user's model: says what it wants, then stops; ``refuse`` first
    requests answered 429 with ``Retry-After: 0``; each request's start time kept."""

    daemon_threads = True

    def __init__(self, gather: int = 0, refuse: int = 0, hold: float = 0.0) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.calls = InFlight(gather, patience=2.0)
        self.refuse, self.hold = refuse, hold
        self.lock = threading.Lock()
        self.starts: list[float] = []

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}/v1"


class _Handler(BaseHTTPRequestHandler):
    server: UserModel

    def log_message(self, *args: object) -> None:
        pass

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers["Content-Length"])).decode()
        with self.server.lock:
            self.server.starts.append(time.monotonic())
            refused = self.server.refuse > 0
            self.server.refuse -= refused
        if refused:
            reply_json(self, {"error": "slow down"}, 429, {"Retry-After": "0"})
            return
        with self.server.calls.call() as leave:
            time.sleep(self.server.hold)
            text = "Thanks ###STOP###" if "\\nYou: " in body else "Refund order 1234"
            leave()
            reply_json(
                self,
                {
                    "choices": [
                        {"message": {"role": "assistant", "content": text}, "finish_reason": "stop"}
                    ]
                },
            )


def _settings(url: str) -> dict[str, object]:
    return {"goal": "a refund", "model": "user-1", "endpoint": url}


def test_without_a_runner_a_refused_request_is_retried_after_retry_after() -> None:
    server = UserModel(refuse=1)
    with serving(server):
        assert SimulatedUser(_settings(server.url))([]) == "Refund order 1234"
    assert len(server.starts) == 2  # refused once (429, Retry-After: 0), then answered


def test_a_user_that_cannot_be_asked_is_the_simulators_fault_not_the_agents() -> None:
    from pytest_jsonmatch.engine.agents.simulated_user import SimulatorFault, spoils

    server = UserModel(refuse=99)  # (every request refused, past the judge's retries)
    with serving(server), pytest.raises(SimulatorFault) as caught:
        SimulatedUser(_settings(server.url))([])
    assert str(caught.value).startswith("simulator: the simulated user's model 'user-1' at ")
    assert spoils(caught.value) and len(server.starts) > 1  # (retried first, as the judge is)


def test_through_the_judges_runner_its_retries_and_its_rate_shared_by_workers(tmp_path) -> None:
    server = UserModel(refuse=1)
    # two workers' judge runners on one shared schedule: 20 starts a second in all
    setup = judge_setup_from_text(
        "model=judge-1 endpoint=http://127.0.0.1:9/v1 rate=20/s retries=1", "judge", tmp_path
    )
    workers = [JudgeCalls(setup, 2, shared=str(tmp_path)) for _ in range(2)]
    said: list[str | None] = []
    with serving(server):
        users = [SimulatedUser(_settings(server.url), through=w.through) for w in workers]
        threads = [
            threading.Thread(target=lambda u=u: said.extend(u([]) for _ in range(3))) for u in users
        ]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(30)
    for worker in workers:
        worker.close()
    assert said == ["Refund order 1234"] * 6
    # seven requests (one refused, then retried), the starts of both workers on one
    # schedule of 20 a second: six intervals of 0.05 s at the least (each worker keeping 20
    # a second of its own would take half that), less what the server's clock reads late
    # of the first start
    starts = sorted(server.starts)
    assert len(starts) == 7
    assert starts[-1] - starts[0] >= 6 * 0.05 - 0.03


AGENT = """
def agent(case_input):
    return '{"status": "refunded"}'
"""


def _cases(count: int) -> str:
    case = (
        "  - id: c{k}\n    conversation:\n      simulated: {{goal: a refund, model: user-1, "
        "endpoint_env: USER_URL}}\n      max_turns: 2\n      turns: [{{expected: "
        "{{status: refunded}}}}]\n"
    )
    return "cases:\n" + "".join(case.format(k=k) for k in range(count))


@pytest.mark.slow
def test_in_a_session_the_judges_concurrency_holds_the_users_requests(pytester, monkeypatch):
    write(pytester, "agent.py", AGENT)
    write(pytester, "talk.jsonmatch.yaml", _cases(4))
    calls = "--jsonmatch-calls=concurrency=4"
    # without a judge: the conversations' users talk at once (four conversations at a time;
    # the server holds each request until two are in flight together)
    loose = UserModel(gather=2)
    with serving(loose):
        monkeypatch.setenv("USER_URL", loose.url)
        pytester.makeini("[pytest]\npythonpath = .\njsonmatch_target = agent:agent\n")
        pytester.runpytest_inprocess(*ARGS, calls, "--jsonmatch-record=off").assert_outcomes(
            passed=4
        )
    assert loose.max_in_flight >= 2
    # with a judge of concurrency 1: the users' requests go through its runner, one at a time
    held = UserModel(hold=0.05)
    with serving(held):
        monkeypatch.setenv("USER_URL", held.url)
        pytester.makeini(
            "[pytest]\npythonpath = .\njsonmatch_target = agent:agent\n"
            "jsonmatch_judge = model=judge-1 endpoint=http://127.0.0.1:9/v1 concurrency=1\n"
        )
        result = pytester.runpytest_inprocess(*ARGS, calls, "--jsonmatch-record=off")
        result.assert_outcomes(passed=4)
    assert held.total == 8  # each conversation: its user's message, then its stop signal
    assert held.max_in_flight == 1
