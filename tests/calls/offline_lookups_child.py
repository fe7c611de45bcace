"""Run by test_offline_lookups.py inside a network namespace of its own (``unshare -n``), so
that no query leaves the machine whether the block holds or not: it turns the block on and
tries each way of handing a host to the resolver, then prints one JSON object, each
attempt's label with its outcome (the host and port a refusal names, or the error's type,
or ``passed``), and the whole text of two refusals."""

from __future__ import annotations

import _socket
import asyncio
import http.client
import json
import logging.handlers
import re
import socket
import ssl
import threading
import urllib.request
from collections.abc import Callable

from pytest_jsonmatch.calls import offline

got: dict[str, str] = {}
messages: dict[str, str] = {}


def attempt(label: str, call: Callable[[], object]) -> None:
    try:
        call()
    except offline.NetworkBlocked as exc:
        found = re.search(r"tried to reach (.*?), but", str(exc))
        got[label] = found.group(1) if found else str(exc)
        messages[label] = str(exc)
    except Exception as exc:  # noqa: BLE001 (an outcome to report)
        got[label] = type(exc).__name__
    else:
        got[label] = "passed"


def udp(family: int = socket.AF_INET) -> socket.socket:
    return socket.socket(family, socket.SOCK_DGRAM)


class Disguised(str):
    """Reads as itself; the ``idna`` codec CPython encodes a host with asks another."""

    def encode(self, *args: object, **kwargs: object) -> bytes:
        return b"some.host"


class Posing(str):
    def __str__(self) -> str:
        return "127.0.0.1"


class PosingTuple(tuple):
    def __getitem__(self, at: object) -> object:
        return ("127.0.0.1", 53)[at]


class PosingAsUnix(socket.socket):
    family = property(lambda self: socket.AF_UNIX)


# a thread started before the block, which reaches out once it is on
later = threading.Event()
early = threading.Thread(
    target=lambda: (
        later.wait(5),
        attempt("thread started before", lambda: udp().connect(("some.host", 80))),
    )
)
early.start()
offline.block(("127.0.0.1", "localhost", "xn--bcher-kva.example"), "jsonmatch_record")
later.set()
early.join(5)

# a name given to a socket's own methods (CPython looks it up inside them)
attempt("connect", lambda: socket.socket().connect(("some.host", 80)))
attempt("connect_ex", lambda: socket.socket().connect_ex(("some.host", 80)))
attempt("connect v6", lambda: socket.socket(socket.AF_INET6).connect(("some.host", 80, 0, 0)))
attempt("sendto", lambda: udp().sendto(b"x", ("some.host", 53)))
attempt("sendto flags", lambda: udp().sendto(b"x", 0, (b"some.host", 53)))
attempt("sendmsg", lambda: udp().sendmsg([b"x"], [], 0, (bytearray(b"some.host"), 53)))
attempt("bind", lambda: udp().bind(("some.host", 0)))
# reverse lookups
attempt("getnameinfo", lambda: socket.getnameinfo(("8.8.8.8", 53), socket.NI_NAMEREQD))
attempt("numeric getnameinfo", lambda: socket.getnameinfo(("8.8.8.8", 53), socket.NI_NUMERICHOST))
# libraries that hand a socket a name
attempt("urllib", lambda: urllib.request.urlopen("http://Bücher.invalid/", timeout=1))
attempt(
    "create_connection source_address",
    lambda: socket.create_connection(("127.0.0.1", 9), 1, ("some.host", 0)),
)
attempt(
    "http.client source_address",
    lambda: http.client.HTTPConnection("127.0.0.1", 9, source_address=("some.host", 0)).connect(),
)
attempt(
    "ssl",
    lambda: (
        ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
        .wrap_socket(socket.socket(), server_hostname="some.host")
        .connect(("some.host", 443))
    ),
)
attempt(
    "logging DatagramHandler", lambda: logging.handlers.DatagramHandler("some.host", 514).send(b"x")
)
# a host that reads as another
attempt("IPv4 with a zone", lambda: socket.getaddrinfo("127.0.0.1%some.host", 80))
attempt("disguised str", lambda: socket.getaddrinfo(Disguised("localhost"), 80))
attempt("posing str", lambda: _socket.socket.connect(udp(), (Posing("8.8.8.8"), 53)))
attempt("posing tuple", lambda: _socket.socket.connect(udp(), PosingTuple(("8.8.8.8", 53))))
attempt(
    "posing family",
    lambda: PosingAsUnix(socket.AF_INET, socket.SOCK_DGRAM).connect(("8.8.8.8", 53)),
)
attempt("unlisted unicode name", lambda: socket.getaddrinfo("Bücher.invalid.", 80))
# what stays allowed (no network here: a lookup that is let through fails as gaierror)
attempt("listed name", lambda: udp().connect(("localhost", 53)))
attempt("listed unicode name", lambda: socket.getaddrinfo("BÜCHER.example.", 80))
attempt(
    "IPv4-mapped listed address", lambda: udp(socket.AF_INET6).connect(("::ffff:127.0.0.1", 53))
)
attempt("bind to an address", lambda: udp().bind(("127.0.0.1", 0)))
attempt("bind to any", lambda: udp().bind(("", 0)))
attempt("literal lookup", lambda: socket.getaddrinfo("8.8.8.8", 53))
attempt("IPv6 literal with a zone", lambda: socket.getaddrinfo("fe80::1%lo", 80))
attempt("IPv4 literal with a final dot", lambda: socket.getaddrinfo("127.0.0.1.", 80))


async def on_a_loop() -> dict[str, BaseException | None]:
    """What the loop's lookup raised (in its executor thread), and what its datagram
    transport gave its protocol when asked to send to a name."""
    loop = asyncio.get_running_loop()
    raised: dict[str, BaseException | None] = {"loop.getaddrinfo": None}
    try:
        await loop.getaddrinfo("some.host", 80)
    except Exception as exc:  # noqa: BLE001 (an outcome to report)
        raised["loop.getaddrinfo"] = exc
    sent: asyncio.Future[BaseException | None] = loop.create_future()

    class Datagrams(asyncio.DatagramProtocol):
        def error_received(self, exc: Exception) -> None:
            sent.done() or sent.set_result(exc)

        def connection_lost(self, exc: Exception | None) -> None:
            sent.done() or sent.set_result(exc)

    transport, _ = await loop.create_datagram_endpoint(Datagrams, family=socket.AF_INET)
    transport.sendto(b"x", ("some.host", 53))
    raised["datagram transport"] = await sent
    transport.close()
    return raised


def raising(error: BaseException | None) -> Callable[[], None]:
    def call() -> None:
        if error is not None:
            raise error

    return call


logging.disable()  # (the loop logs the transport's fatal error; its outcome is reported)
for label, error in asyncio.run(on_a_loop()).items():
    attempt(label, raising(error))
print(json.dumps({"outcomes": got, "messages": messages}))
