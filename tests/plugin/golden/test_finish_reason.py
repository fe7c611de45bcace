"""A model that stopped at its token limit says so, and its answer counts as cut off
(issue 51, item 10): ``TargetResult.finish_reason``, kept with the call's figures (in the
report and in recordings, so that a replay knows too).

Against real parts: an OpenAI-compatible chat server on 127.0.0.1 started here, called
through the real ``openai`` client (retries off) by the target."""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

pytest.importorskip("openai")

from tests.helpers.http_models import serving
from tests.helpers.plugin_cases import ARGS, write

# what the model answers per prompt: its text and why it stopped. The "limit" answer reads as
# whole JSON, yet the model stopped at max_tokens: only its finish reason tells.
ANSWERS = {
    "whole": ('{"a": 1, "b": 2}', "stop"),
    "limit": ('{"a": 1, "b": 2}', "length"),
}


class _Chat(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), _Completion)
        self.lock = threading.Lock()
        self.total = 0

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}/v1"


class _Completion(BaseHTTPRequestHandler):
    server: _Chat

    def log_message(self, *args):  # quiet
        pass

    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        with self.server.lock:
            self.server.total += 1
        content, reason = ANSWERS[body["messages"][-1]["content"]]
        data = json.dumps(
            {
                "id": "chatcmpl-1",
                "object": "chat.completion",
                "created": 0,
                "model": body["model"],
                "choices": [
                    {
                        "index": 0,
                        "message": {"role": "assistant", "content": content},
                        "finish_reason": reason,
                    }
                ],
                "usage": {"prompt_tokens": 5, "completion_tokens": 7, "total_tokens": 12},
            }
        ).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


TARGET = """
import openai
from pytest_jsonmatch import TargetResult

CLIENT = openai.OpenAI(base_url="{url}", api_key="test", max_retries=0)

def extract(prompt):
    reply = CLIENT.chat.completions.create(
        model="m", messages=[{"role": "user", "content": prompt}], max_tokens=8
    )
    choice = reply.choices[0]
    return TargetResult(choice.message.content, input_tokens=reply.usage.prompt_tokens,
                        output_tokens=reply.usage.completion_tokens,
                        finish_reason=choice.finish_reason)
"""

CASES = """
options:
  schema: {type: object, properties: {a: {type: integer}, b: {type: integer}}}
cases:
  - id: whole
    input: whole
    expected: {a: 1, b: 2}
  - id: limit
    input: limit
    expected: {a: 1, b: 2}
"""


@pytest.fixture
def chat():
    server = _Chat()
    with serving(server):
        yield server


def _report(pytester) -> dict:
    return json.loads((pytester.path / "r.json").read_text())


def test_a_length_finish_marks_the_answer_cut_live_and_replayed(pytester, chat):
    write(pytester, "model.py", TARGET.replace("{url}", chat.url))
    write(pytester, "c.jsonmatch.yaml", CASES)
    pytester.makeini(
        "[pytest]\npythonpath = .\njsonmatch_target = model:extract\njsonmatch_record = once\n"
    )
    for run in ("live", "replayed"):
        result = pytester.runpytest_inprocess(*ARGS, "--jsonmatch-report=r.json")
        result.assert_outcomes(passed=1, failed=1)
        by_id = {c["case_id"]: c for c in _report(pytester)["comparisons"]}
        limit = by_id["c.jsonmatch.yaml::limit"]
        assert (limit["source"], limit["status"]) == (run, "error")
        assert limit["error"] == (
            "actual was cut off: the target reported finish_reason 'length' (the model "
            "stopped at its token limit), so its answer is not whole whatever its text looks "
            "like"
        )
        assert limit["call"]["finish_reason"] == "length"
        assert by_id["c.jsonmatch.yaml::whole"]["call"]["finish_reason"] == "stop"
        # the cut answer is not a valid one: 1 of the 2 answers valid against the schema
        share = _report(pytester)["metrics"]["field_f1"]["conformance"]
        assert (share["checked"], share["valid"]) == (2, 1)
    assert chat.total == 2  # the second run replayed both recordings


def test_a_length_finish_scored_closed_when_truncated_close_is_asked(pytester, chat):
    write(pytester, "model.py", TARGET.replace("{url}", chat.url))
    write(pytester, "c.jsonmatch.yaml", "options:\n  truncated: close\n" + CASES.split("\n", 3)[3])
    pytester.makeini("[pytest]\npythonpath = .\njsonmatch_target = model:extract\n")
    result = pytester.runpytest_inprocess(*ARGS, "--jsonmatch-report=r.json")
    # with truncated: close the answer is scored as written, in full here: 1.0
    result.assert_outcomes(passed=2)
