"""The network block (calls/offline.py) against host names: each way a test, a target or a
library can hand a name (or an address) to the resolver is refused before the name is looked
up. The attempts run in one child interpreter (offline_lookups_child.py) inside a network
namespace of its own (``unshare -n``: a loopback that is down and nothing else), so that no
query can leave the machine while they run, whether the block holds or not; a lookup the
block lets through fails there as ``gaierror``, a connection as ``OSError``. Where
``unshare -n`` is refused (not root, not Linux) the tests skip."""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from pytest_jsonmatch.calls import offline

CHILD = Path(__file__).with_name("offline_lookups_child.py")


@pytest.fixture(scope="module")
def tried() -> dict[str, dict[str, str]]:
    """The child's outcomes (the host and port a refusal names, or the error's type, or
    ``passed``) and its refusals' messages, by attempt."""
    if sys.platform != "linux" or shutil.which("unshare") is None:
        pytest.skip("no unshare here: the lookups are tried in a network namespace only")
    env = {k: v for k, v in os.environ.items() if k != "PYTEST_CURRENT_TEST"}
    done = subprocess.run(
        ["unshare", "-n", sys.executable, str(CHILD)],
        capture_output=True,
        text=True,
        timeout=60,
        env=env,
        check=False,
    )
    if done.returncode and done.stderr.startswith("unshare:"):
        pytest.skip(f"no network namespace here ({done.stderr.strip()})")
    assert done.returncode == 0, done.stderr
    result: dict[str, dict[str, str]] = json.loads(done.stdout.splitlines()[-1])
    return result


@pytest.fixture
def blocked():
    """The block on for the test's body, off after it whatever happens (each block the
    test set ended, as many as it set)."""
    depth = len(offline._OUTER)
    yield offline.block
    while len(offline._OUTER) > depth:
        offline.unblock()


def _outcomes(tried: dict[str, dict[str, str]], *labels: str) -> dict[str, str]:
    return {label: tried["outcomes"].get(label, "not tried") for label in labels}


def test_a_name_given_to_a_socket_is_refused_before_it_is_looked_up(tried):
    # CPython looks the name up inside the C method, before its audit event: without the
    # check in Python's socket class, each of these asked the resolver (gaierror here)
    assert _outcomes(
        tried, "connect", "connect_ex", "connect v6", "sendto", "sendto flags", "sendmsg", "bind"
    ) == {
        "connect": "some.host:80",
        "connect_ex": "some.host:80",
        "connect v6": "some.host:80",
        "sendto": "some.host:53",
        "sendto flags": "some.host:53",  # (a bytes host)
        "sendmsg": "some.host:53",  # (a bytearray host)
        "bind": "some.host",
    }
    assert tried["messages"]["connect"] == (
        "the session (outside any test) tried to reach some.host:80, but the session runs "
        "offline (jsonmatch_record: outbound connections refused, allowed: 127.0.0.1, "
        "localhost, xn--bcher-kva.example); allow the host with allowed_hosts=some.host in "
        "jsonmatch_record, or turn the block off with block_network=off"
    )


def test_a_reverse_lookup_by_getnameinfo_is_refused(tried):
    # the audit event does not carry the flags: a numeric getnameinfo is held as well
    assert _outcomes(tried, "getnameinfo", "numeric getnameinfo") == {
        "getnameinfo": "8.8.8.8:53",
        "numeric getnameinfo": "8.8.8.8:53",
    }


def test_the_libraries_that_hand_a_socket_a_name_are_refused(tried):
    labels = (
        "urllib",
        "create_connection source_address",
        "http.client source_address",
        "ssl",
        "logging DatagramHandler",
        "datagram transport",
        "loop.getaddrinfo",
        "thread started before",
    )
    assert _outcomes(tried, *labels) == {
        "urllib": "Bücher.invalid:80",  # (no URLError: no OSError to wrap)
        "create_connection source_address": "some.host",  # (its bind, once 127.0.0.1 passed)
        "http.client source_address": "some.host",
        "ssl": "some.host:443",
        "logging DatagramHandler": "some.host:514",  # (sendto with the handler's address)
        "datagram transport": "some.host:53",  # (asyncio's, given to connection_lost)
        "loop.getaddrinfo": "some.host:80",  # (in the loop's executor thread)
        "thread started before": "some.host:80",
    }


def test_a_host_that_reads_as_another_is_refused(tried):
    # an IPv4 address with a "%" is a name to the resolver; a str whose encode() gives the
    # resolver another name; a str, a tuple or a socket's family that tells the check one
    # thing and the C code another (reaching _socket's method directly, past the class)
    assert _outcomes(
        tried,
        "IPv4 with a zone",
        "disguised str",
        "posing str",
        "posing tuple",
        "posing family",
        "unlisted unicode name",
        "IPv4 literal with a final dot",
    ) == {
        "IPv4 with a zone": "127.0.0.1%some.host:80",
        "disguised str": "localhost:80",
        "posing str": "8.8.8.8:53",
        "posing tuple": "8.8.8.8:53",
        "posing family": "8.8.8.8:53",
        "unlisted unicode name": "Bücher.invalid.:80",
        "IPv4 literal with a final dot": "127.0.0.1.:80",  # (a name: the resolver is asked)
    }
    # the host to list is the name the resolver would have been asked
    assert (
        "allow the host with allowed_hosts=xn--bcher-kva.invalid. in"
        in (tried["messages"]["unlisted unicode name"])
    )


def test_what_was_allowed_stays_allowed_and_a_listed_name_in_other_forms_too(tried):
    assert _outcomes(
        tried,
        "listed name",
        "listed unicode name",
        "IPv4-mapped listed address",
        "bind to an address",
        "bind to any",
        "literal lookup",
        "IPv6 literal with a zone",
    ) == {
        "listed name": "OSError",  # (let through: no loopback up in the namespace)
        "listed unicode name": "gaierror",  # BÜCHER.example. is xn--bcher-kva.example
        "IPv4-mapped listed address": "OSError",  # ::ffff:127.0.0.1 is 127.0.0.1
        "bind to an address": "passed",
        "bind to any": "passed",
        "literal lookup": "passed",  # (no resolver asked: its connect is held)
        "IPv6 literal with a zone": "passed",
    }


def test_the_check_hands_the_socket_the_address_it_checked(blocked):
    # in this process, on the loopback: a bytearray host, a str subclass and a tuple
    # subclass reach the C method as the exact address the check read
    class Named(str):
        pass

    class Pair(tuple):
        pass

    blocked(("127.0.0.1",), "jsonmatch_record")
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as inbox:
        inbox.bind(("127.0.0.1", 0))
        inbox.settimeout(5)
        port = inbox.getsockname()[1]
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as outbox:
            outbox.sendto(b"a", (bytearray(b"127.0.0.1"), port))
            outbox.sendto(b"b", 0, Pair((Named("127.0.0.1"), port)))
            outbox.sendmsg([b"c"], [], 0, ("127.0.0.1", port))
            assert [inbox.recv(8) for _ in range(3)] == [b"a", b"b", b"c"]
            with pytest.raises(offline.NetworkBlocked, match=r"reach 127\.0\.0\.2:9, but"):
                outbox.sendto(b"d", Pair(("127.0.0.2", 9)))


def test_a_connect_put_over_the_check_is_wrapped_again_as_a_socket_is_made(blocked, monkeypatch):
    # pytest-socket's --allow-hosts puts its own connect on socket.socket (and its
    # original back after each test): the next socket made puts the check over it again,
    # so that a name is refused before that connect hands it to the C method
    import _socket

    reached: list[object] = []

    def theirs(sock: socket.socket, address: object) -> object:
        reached.append(address)
        return _socket.socket.connect(sock, address)

    blocked((), "jsonmatch_record")
    monkeypatch.setattr(socket.socket, "connect", theirs)
    with socket.socket() as sock, pytest.raises(offline.NetworkBlocked, match="127.0.0.2:9"):
        sock.connect(("127.0.0.2", 9))
    assert reached == []
