"""The network block (calls/offline.py) against real sockets: a server on 127.0.0.1 started
by the test, reached by urllib, by a raw socket and through a name lookup; the record
setting's keys that turn it on and list the hosts it allows (``block_network``,
``allowed_hosts=``), read and refused."""

from __future__ import annotations

import contextlib
import socket
import threading
import urllib.request
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, HTTPServer

import pytest

from pytest_jsonmatch.calls import offline
from pytest_jsonmatch.calls.fingerprints import RecordSettings
from pytest_jsonmatch.engine.core.errors import ConfigError

OK = b'{"ok": true}'


class Ok(BaseHTTPRequestHandler):
    """Answers every GET with ``{"ok": true}``."""

    def do_GET(self) -> None:
        self.send_response(200)
        self.send_header("Content-Length", "12")
        self.end_headers()
        self.wfile.write(OK)

    def log_message(self, *args: object) -> None:  # quiet
        pass


@contextlib.contextmanager
def serving_ok(*servers: HTTPServer) -> Iterator[None]:
    """Each server answering in a thread of its own (polled often: shut down at once)."""
    threads = [
        threading.Thread(target=s.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True)
        for s in servers
    ]
    for thread in threads:
        thread.start()
    try:
        yield
    finally:
        for srv, thread in zip(servers, threads):
            srv.shutdown()
            srv.server_close()
            thread.join(5)


@pytest.fixture
def server():
    srv = HTTPServer(("127.0.0.1", 0), Ok)
    with serving_ok(srv):
        yield f"http://127.0.0.1:{srv.server_address[1]}/", srv.server_address[1]


@pytest.fixture
def blocked():
    """The block on for the test's body, off after it whatever happens (each block the
    test set ended, as many as it set)."""
    depth = len(offline._OUTER)
    yield offline.block
    while len(offline._OUTER) > depth:
        offline.unblock()


def _get(url: str) -> bytes:
    with urllib.request.urlopen(url, timeout=5) as answer:
        return answer.read()


def test_a_connection_is_refused_naming_the_host_the_port_and_the_case(server, blocked):
    url, port = server
    blocked((), "jsonmatch_record")
    with offline.for_case("c.jsonmatch.yaml::one"), pytest.raises(offline.NetworkBlocked) as got:
        _get(url)
    assert str(got.value) == (
        f"test c.jsonmatch.yaml::one tried to reach 127.0.0.1:{port}, but the session runs "
        "offline (jsonmatch_record: outbound connections refused, allowed: none); allow the "
        "host with allowed_hosts=127.0.0.1 in jsonmatch_record, or turn the block off with "
        "block_network=off"
    )
    # connect_ex too (it would return an errno, not raise, if the hook let it through)
    with socket.socket() as sock, pytest.raises(offline.NetworkBlocked):
        sock.connect_ex(("127.0.0.1", port))


def test_an_allowed_host_is_reached_and_the_block_ends(server, blocked):
    url, port = server
    blocked(("127.0.0.1",), "jsonmatch_record")
    assert _get(url) == OK
    assert offline.summary_line() == "offline: outbound connections refused (allowed: 127.0.0.1)"
    offline.unblock()
    assert offline.summary_line() == ""
    assert _get(url) == OK


def test_a_session_run_inside_a_test_leaves_the_outer_block_in_force(server, blocked):
    # a session that runs offline ends (pytester's in-process run, under a session that
    # runs offline too): the outer session's block holds again, not no block at all
    url, port = server
    blocked((), "jsonmatch_record")
    blocked(("127.0.0.1",), "jsonmatch_record")
    assert _get(url) == OK
    offline.unblock()
    assert offline.summary_line() == "offline: outbound connections refused (allowed: none)"
    with pytest.raises(offline.NetworkBlocked, match=f"reach 127.0.0.1:{port}, but"):
        _get(url)
    offline.unblock()
    assert offline.summary_line() == ""


def test_the_sessions_own_telemetry_export_sends_while_a_plain_thread_is_held(server, blocked):
    # the OTLP outbox's thread (telemetry/otlp_export.py) reaches the collector jsonmatch_otel
    # names; a thread of the test's own, to the same host, is refused
    from pytest_jsonmatch.telemetry.otlp_export import _Sender

    url, _ = server
    blocked((), "jsonmatch_record")
    got: dict[str, object] = {}

    def fetch(key: str) -> None:
        try:
            got[key] = _get(url)
        except offline.NetworkBlocked as exc:
            got[key] = exc

    for key, kind in (("export", _Sender), ("plain", threading.Thread)):
        thread = kind(target=fetch, args=(key,), daemon=True)
        thread.start()
        thread.join(10)
    assert got["export"] == OK
    assert isinstance(got["plain"], offline.NetworkBlocked)


def test_an_allowed_name_allows_its_addresses_and_a_name_lookup_is_held(server, blocked):
    url, port = server
    blocked(("localhost",), "jsonmatch_record")
    assert _get(url) == OK  # 127.0.0.1 is localhost's
    # a lookup of an unlisted name is refused before any packet leaves (named by the test
    # pytest runs now: no target's call is in progress)
    with pytest.raises(offline.NetworkBlocked, match=r"^test tests/calls/test_offline\.py::"):
        socket.getaddrinfo("model.example.invalid", 443)
    with pytest.raises(offline.NetworkBlocked, match="reach model.example.invalid, but"):
        socket.gethostbyname("model.example.invalid")


def test_a_unix_socket_and_an_address_literal_lookup_pass(tmp_path, blocked):
    blocked((), "jsonmatch_record")
    path = str(tmp_path / "s")
    with socket.socket(socket.AF_UNIX) as listening, socket.socket(socket.AF_UNIX) as client:
        listening.bind(path)
        listening.listen()
        client.connect(path)  # stays on the machine
    assert socket.getaddrinfo("127.0.0.1", 80)  # no lookup leaves: the connect is held


@pytest.mark.parametrize(
    ("text", "blocks", "hosts"),
    [
        ("none", True, ()),
        ("once", False, ()),
        ("all", False, ()),
        ("none block_network=off", False, ()),
        ("once block_network", True, ()),
        ("once block_network=on allowed_hosts=127.0.0.1,Judge.Internal,[::1]", True,
         ("127.0.0.1", "judge.internal", "::1")),
    ],
)  # fmt: skip
def test_the_record_setting_turns_the_block_on_under_none(text, blocks, hosts):
    settings = RecordSettings.parse([(text, "jsonmatch_record")])
    assert (settings.blocks_network, settings.allowed_hosts) == (blocks, hosts)


def test_the_flag_overrides_the_ini_key_by_key():
    settings = RecordSettings.parse(
        [
            ("once allowed_hosts=judge.internal", "jsonmatch_record"),
            ("none", "--jsonmatch-record"),
        ]
    )
    assert (settings.mode, settings.blocks_network, settings.allowed_hosts) == (
        "none",
        True,
        ("judge.internal",),
    )


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("none allowed_hosts=", "allowed_hosts= takes host names and addresses"),
        ("none allowed_hosts=a,,b", "(allowed_hosts=127.0.0.1,judge.internal), not ''"),
        ("none allowed_hosts=http://x", "not 'http://x'"),
        ("none allowed_hosts=a\x1b[2Jb", r"not 'a\\x1b[2Jb'"),
        ("none block_network=maybe", "block_network=on|off and allowed_hosts=HOST,..., not"),
    ],
)
def test_a_malformed_key_names_the_setting_and_the_value(text, message):
    with pytest.raises(ConfigError) as caught:
        RecordSettings.parse([(text, "jsonmatch_record")])
    assert message in str(caught.value)
    assert str(caught.value).startswith("jsonmatch_record")
    assert "\n" not in str(caught.value) and "\x1b" not in str(caught.value)


def test_a_clients_refusal_reaches_the_case_as_it_is(server, blocked):
    # the real openai client (its default retries on), as a target's call runs it: a recent
    # client lets NetworkBlocked (no OSError) through as it is; the oldest the project takes
    # (1.40) retries any error and wraps it in "APIConnectionError: Connection error.", from
    # which the call's context gives the refusal back, naming the host and the case
    openai = pytest.importorskip("openai")  # (the test extra installs it)
    url, port = server
    blocked((), "jsonmatch_record")
    client = openai.OpenAI(base_url=url + "v1", api_key="test-key")
    refused = f"test c.jsonmatch.yaml::one tried to reach 127.0.0.1:{port}, but"
    with pytest.raises(offline.NetworkBlocked) as got, offline.for_case("c.jsonmatch.yaml::one"):
        client.chat.completions.create(model="m", messages=[{"role": "user", "content": "x"}])
    assert str(got.value).startswith(refused)


def test_a_refusal_wrapped_by_a_client_is_given_back_and_other_errors_pass(blocked):
    # what openai 1.40 does with any error of its transport: retried, then wrapped
    class ConnectionTrouble(Exception):
        pass

    blocked((), "jsonmatch_record")
    with pytest.raises(offline.NetworkBlocked) as got, offline.for_case("c::one"):
        try:
            socket.create_connection(("127.0.0.1", 9), timeout=1)
        except offline.NetworkBlocked as exc:
            raise ConnectionTrouble("Connection error.") from exc
    assert str(got.value).startswith("test c::one tried to reach 127.0.0.1:9, but")
    assert isinstance(got.value.__cause__, ConnectionTrouble)
    with pytest.raises(ValueError, match="other"), offline.for_case("c::one"):
        raise ValueError("other")
