"""BFCL's multi-turn verdict executes each entry in a child process: held to the four
categories' classes, no network, each call's time and size bounded, the caller's process left
as it was found, and every entry checked as if it were the first.

The network tests load, in a fork server of the test's own, a class standing in for BFCL's
``WebSearchAPI`` (whose ``fetch_url_content`` fetches any URL a model names): a tiny
``bfcl_eval`` package in tmp_path, first on the server's ``sys.path``, whose table maps
``GorillaFileSystem`` to it. A real HTTP server on 127.0.0.1 counts the requests it gets.
The other tests run bfcl-eval's own classes through ``bfcl_multi_turn_verdict``.
"""

from __future__ import annotations

import decimal
import http.server
import json
import os
import signal
import subprocess
import sys
import threading
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

pytest.importorskip("bfcl_eval", reason="pip install --no-deps bfcl-eval")

from pytest_jsonmatch import ConfigError, bfcl_multi_turn_verdict
from pytest_jsonmatch.engine.bfcl import bfcl_execution

if TYPE_CHECKING:
    from pytest_jsonmatch.engine.bfcl.bfcl_isolation import ForkServer

MATH = {"id": "multi_turn_base_math", "involved_classes": ["MathAPI"], "initial_config": {}}
TWITTER = {
    "id": "multi_turn_base_tweets",
    "involved_classes": ["TwitterAPI"],
    "initial_config": {"TwitterAPI": {"username": "john", "authenticated": True}},
}


# -- the classes an entry may name --------------------------------------------------------


@pytest.mark.parametrize("name", ["WebSearchAPI", "MemoryAPI_kv"])
def test_a_class_outside_the_four_categories_is_refused(name: str) -> None:
    # bfcl-eval's table names it (its web search, its memory backed by a model), but no
    # entry of the four multi-turn categories does
    entry = {"id": "multi_turn_base_web", "involved_classes": [name], "initial_config": {}}
    model = [[["fetch_url_content(url='http://127.0.0.1:9/')"]]]
    with pytest.raises(
        ConfigError,
        match=rf"BFCL entry 'multi_turn_base_web': involved class '{name}' is not one of the "
        r"multi-turn categories' classes \(GorillaFileSystem, MathAPI, .*\); only those",
    ):
        bfcl_multi_turn_verdict(entry, model, [["ls()"]])
    with pytest.raises(ConfigError, match=rf"BFCL's {name} environment is not executed"):
        bfcl_execution.environment_class(name)


# -- no network, no file, bounded memory: a class of the test's own -------------------------

_TABLE = """
CLASS_FILE_PATH_MAPPING = {"GorillaFileSystem": "jm_reaching_env"}
STATELESS_CLASSES = ["GorillaFileSystem"]
"""
_CLASS = '''
import _socket
import urllib.request


class GorillaFileSystem:
    """What BFCL's WebSearchAPI does with a URL, and what else a method could reach."""

    def fetch_url_content(self, url):
        return urllib.request.urlopen(url, timeout=5).read().decode()

    def connect_raw(self, port):
        connection = _socket.socket()  # (below the socket module)
        connection.settimeout(5)
        connection.connect(("127.0.0.1", port))
        return "connected"

    def read_file(self, path):
        with open(path, encoding="utf-8") as file:
            return file.read()

    def allocate(self, size):
        return len(bytearray(size))

    def whoami(self):
        return "the test's class"
'''


class _Counting(http.server.BaseHTTPRequestHandler):
    seen: list[str] = []

    def do_GET(self) -> None:
        _Counting.seen.append(self.path)
        self.send_response(200)
        self.end_headers()
        self.wfile.write(b"the page")

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def http_server() -> Iterator[int]:
    _Counting.seen = []
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Counting)
    thread = threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    yield server.server_address[1]
    server.shutdown()
    server.server_close()


@pytest.fixture(scope="module")
def reaching_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ForkServer]:
    from pytest_jsonmatch.engine.bfcl.bfcl_isolation import ForkServer

    root = tmp_path_factory.mktemp("reaching")
    (root / "bfcl_eval" / "constants").mkdir(parents=True)
    (root / "bfcl_eval" / "__init__.py").write_text("")
    (root / "bfcl_eval" / "constants" / "__init__.py").write_text("")
    (root / "bfcl_eval" / "constants" / "executable_backend_config.py").write_text(_TABLE)
    (root / "jm_reaching_env.py").write_text(_CLASS)
    server = ForkServer([str(root), *sys.path])
    yield server
    server.close()


def _results(server: ForkServer, calls: list[str]) -> tuple[str, ...]:
    """The model's results of one turn of ``calls`` on the test's class, in a child."""
    from pytest_jsonmatch.engine.bfcl.bfcl_isolation import checked_rows

    entry = ("multi_turn_base_reach", ["GorillaFileSystem"], {}, False)
    rows, _ = checked_rows(entry, [[calls]], [["whoami()"]], server=server)
    (results,) = rows[0][6]
    return results


def test_a_call_in_the_child_reaches_no_network(
    reaching_server: ForkServer, http_server: int
) -> None:
    url = f"http://127.0.0.1:{http_server}/page"
    fetched, raw, whoami = _results(
        reaching_server,
        [f"fetch_url_content(url={url!r})", f"connect_raw(port={http_server})", "whoami()"],
    )
    assert whoami == "the test's class"  # (the child ran the test's class)
    assert fetched.startswith("Error during execution: ")
    assert "the network is not reachable from an executed BFCL call" in fetched
    # the socket module bypassed: no new file descriptor at all
    assert raw == "Error during execution: [Errno 24] Too many open files"
    assert _Counting.seen == []
    # the same fetch from this process reaches the server: it was there to be reached
    with urllib.request.urlopen(url, timeout=5) as page:
        assert page.read() == b"the page"
    assert _Counting.seen == ["/page"]


def test_a_call_in_the_child_opens_no_file_and_allocates_a_bounded_amount(
    reaching_server: ForkServer, tmp_path: Path
) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text("not for the model")
    read, allocated, small = _results(
        reaching_server,
        [f"read_file(path={str(secret)!r})", f"allocate(size={4 << 30})", "allocate(size=10)"],
    )
    assert read == f"Error during execution: [Errno 24] Too many open files: {str(secret)!r}"
    # 4 GiB is past the child's 1 GiB: a MemoryError, recorded as BFCL records any error
    # (its text is empty); the child goes on
    assert (allocated, small) == ("Error during execution: ", "10")


def test_a_server_that_ended_is_started_again(reaching_server: ForkServer) -> None:
    process = reaching_server._process
    assert process is not None
    os.kill(process.pid, signal.SIGKILL)
    process.wait()
    with pytest.raises(ConfigError, match="BFCL's fork server stopped answering"):
        _results(reaching_server, ["whoami()"])
    assert _results(reaching_server, ["whoami()"]) == ("the test's class",)


_WINDOWS = """
import os, sys
sys.modules["resource"] = None  # (neither exists on Windows)
del os.fork
from pytest_jsonmatch import ConfigError, bfcl_multi_turn_verdict
entry = {"id": "multi_turn_base_math", "involved_classes": ["MathAPI"], "initial_config": {}}
try:
    bfcl_multi_turn_verdict(entry, [[["pwd()"]]], [["pwd()"]])
except ConfigError as error:
    print(error)
"""


def test_without_os_fork_the_verdict_says_so() -> None:
    done = subprocess.run(
        [sys.executable, "-c", _WINDOWS], capture_output=True, text=True, timeout=30
    )
    assert (done.returncode, done.stderr) == (0, "")
    assert done.stdout == (
        "BFCL's multi-turn verdict executes each entry in a child process forked for it, "
        f"which needs os.fork: this platform ({sys.platform}) has none\n"
    )


# -- every entry checked as if it were the first ----------------------------------------------


def _tweets(model: list[str], truth: list[str]) -> tuple[object, ...]:
    verdict = bfcl_multi_turn_verdict(TWITTER, [[model]], [truth])
    assert verdict.checked_turns is not None
    return verdict.valid, verdict.problem, tuple(verdict.checked_turns.rows)


def test_an_entry_after_one_that_mentions_gives_what_it_gives_alone() -> None:
    from bfcl_eval.eval_checker.multi_turn_eval.func_source_code.posting_api import TwitterAPI

    # post_tweet's default mentions is one list for every call, and mention() extends it:
    # executed in one process, the first entry's mention shows in the second's tweet
    plain = (["post_tweet(content='hi')"], ["post_tweet(content='hi', mentions=[])"])
    alone = _tweets(*plain)
    mentions = ["post_tweet(content='first')", "mention(tweet_id=0, mentioned_usernames=['@bob'])"]
    bfcl_multi_turn_verdict(TWITTER, [[mentions]], [mentions])
    after = _tweets(*plain)
    assert alone[:2] == (True, None)
    assert after == alone
    # and this process ran none of it: the default list is still empty
    assert TwitterAPI.post_tweet.__defaults__ == ([], [])


def test_reading_the_fields_runs_nothing_here() -> None:
    from bfcl_eval.eval_checker.multi_turn_eval.func_source_code.posting_api import TwitterAPI

    # a state that differs: the fields are read by executing the entry again, in a child
    model = ["post_tweet(content='first')", "mention(tweet_id=0, mentioned_usernames=['@al'])"]
    truth = ["post_tweet(content='first', mentions=['@bo'])"]
    verdict = bfcl_multi_turn_verdict(TWITTER, [[model]], [truth])
    assert (verdict.valid, verdict.problem) == (False, "multi_turn:instance_state_mismatch")
    # the tweet's mention differs, and so does post_tweet's result (its text holds the tweet)
    mention, result = verdict.fields
    assert (mention.path, mention.expected, mention.actual) == (
        'turns[0].TwitterAPI.tweets["0"].mentions[0]',
        "@bo",
        "@al",
    )
    assert (result.path, result.status) == ("turns[0].execution_results[0]", "omission")
    assert TwitterAPI.post_tweet.__defaults__ == ([], [])


# -- the process left as it was found --------------------------------------------------------


def test_math_calls_leave_this_process_precision_alone() -> None:
    import mpmath

    before = (decimal.getcontext().prec, mpmath.mp.prec, mpmath.mp.dps)
    calls = ["square_root(number=2, precision=1)", "logarithm(value=8, base=2, precision=3)"]
    verdict = bfcl_multi_turn_verdict(MATH, [[calls]], [calls])
    assert verdict.valid is True
    assert (decimal.getcontext().prec, mpmath.mp.prec, mpmath.mp.dps) == before


# -- each call's size and time bounded ---------------------------------------------------------


def test_a_result_too_long_to_write_is_bfcls_error_text() -> None:
    from bfcl_eval.eval_checker.multi_turn_eval import multi_turn_utils

    call = "power(base=10, exponent=5000)"  # 5,001 digits: past int's 4,300 as text
    verdict = bfcl_multi_turn_verdict(MATH, [[[call]]], [[call]])
    expected, _ = multi_turn_utils.execute_multi_turn_func_call(
        [call], {}, ["MathAPI"], "jm_power", MATH["id"], is_evaL_run=True
    )
    # (CPython 3.10 words it "Exceeds the limit (4300) for integer string conversion", 3.11
    # "... (4300 digits) ...")
    assert expected[0].startswith("Error during execution: Exceeds the limit (4300")
    assert verdict.turns[0].model_results == ((expected[0],),)
    assert verdict.valid is True


def test_a_result_text_past_a_million_characters_is_an_error_text() -> None:
    entry = {
        "id": "multi_turn_base_long",
        "involved_classes": ["GorillaFileSystem"],
        "initial_config": {
            "GorillaFileSystem": {"root": {"u": {"type": "directory", "contents": {}}}}
        },
    }
    text = "x" * 1_000_000
    calls = ["touch(file_name='a')", f"echo(content={text!r}, file_name='a')", "cat(file_name='a')"]
    verdict = bfcl_multi_turn_verdict(entry, [[calls]], [calls])
    # cat's result, {"file_content": "xxx..."}: 1,000,000 + 20 characters
    assert verdict.turns[0].model_results[0][2] == (
        "Error during execution: the result's text is 1000020 characters long, past "
        "jsonmatch's limit of 1000000"
    )
    assert verdict.valid is True  # (the ground truth's is the same text)


_LONG_CALL = """
import json, sys
from pytest_jsonmatch import bfcl_multi_turn_verdict
entry = {
    "id": "multi_turn_base_slow",
    "involved_classes": ["GorillaFileSystem", "MathAPI"],
    "initial_config": {"GorillaFileSystem": {"root": {"u": {"type": "directory", "contents": {}}}}},
}
model = [[["power(base=10, exponent=100000000)", "mkdir(dir_name='a')", "power(base=2, exponent=3)"]]]
verdict = bfcl_multi_turn_verdict(entry, model, [["mkdir(dir_name='b')"]])
fields = [field.path for field in verdict.fields]
print(json.dumps([verdict.problem, verdict.turns[0].model_results, fields]))
"""


def test_a_call_past_its_time_is_recorded_as_an_error_and_the_rest_runs() -> None:
    # 10 ** 100000000 runs for minutes in one C operation; a subprocess's timeout guards the
    # test (this process could not interrupt it). The call is recorded as a failed call, the
    # next calls run, and the fields' reading skips it (no second wait)
    done = subprocess.run(
        [sys.executable, "-c", _LONG_CALL], capture_output=True, text=True, timeout=30
    )
    from pytest_jsonmatch.engine.bfcl.bfcl_fork_server import TIMED_OUT

    assert done.returncode == 0, done.stderr[-2000:]
    problem, results, fields = json.loads(done.stdout)
    assert problem == "multi_turn:instance_state_mismatch"
    assert results == [[TIMED_OUT, "None", '{"result": 8}']]
    assert TIMED_OUT == (
        "Error during execution: the call ran past 1 s of CPU time (jsonmatch's limit on one call)"
    )
    # the model made folder a where the ground truth made b (the root is folder u)
    assert fields == [
        "turns[0].GorillaFileSystem.root.contents.b.name",
        "turns[0].GorillaFileSystem.root.contents.b.parent",
        "turns[0].GorillaFileSystem.root.contents.b.contents",
        "turns[0].GorillaFileSystem.root.contents.a",
    ]


def test_more_calls_past_their_time_than_an_entry_may_have(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from pytest_jsonmatch.engine.bfcl import bfcl_isolation

    monkeypatch.setattr(bfcl_isolation, "MAX_TIMED_OUT_CALLS", 0)
    calls = ["absolute_value(number=-2)", "power(base=10, exponent=100000000)"]
    with pytest.raises(ConfigError) as raised:
        bfcl_multi_turn_verdict(MATH, [[["pwd()"]], [calls]], [["mean(numbers=[1])"], []])
    assert str(raised.value) == (
        "BFCL entry 'multi_turn_base_math': more than 0 calls ran past 1 s of CPU time each, "
        "the last (turn 1, the model's call 'power(base=10, exponent=100000000)')"
    )


def test_what_ends_a_child_is_named() -> None:
    from pytest_jsonmatch.engine.bfcl.bfcl_isolation import _ended as ended

    at = "turn 2, the ground truth's call 'ls()'"
    assert ended("e", signal.SIGXCPU, at) == (
        "BFCL entry 'e': executing it ran past 20 s of CPU time (turn 2, the ground truth's "
        "call 'ls()')"
    )
    assert ended("e", signal.SIGKILL, "") == (
        "BFCL entry 'e': executing it ran past 60 s of wall time, or the system ended it"
    )
    assert ended("e", signal.SIGSEGV, "") == (
        "BFCL entry 'e': the child process executing it ended (SIGSEGV)"
    )
