"""An OpenAI-compatible chat-completions server on 127.0.0.1 for the judge's tests: it reads
the numbered items out of the prompt the judge sends and answers as it is told.

By default it decides as a careful judge would for the tests' data: a pair is the same
when its values are equal ignoring case, or when ``same`` lists them. ``answer`` (a
function of the items) replaces the reply's text; ``finish`` its finish reason; ``storm``
makes the first N requests 429s with a ``Retry-After`` of ``after`` seconds; ``down_after``
answers the first N requests and every later one with a 503 (a judge that dies mid-run); ``delay``
holds every answer that long, or until the client hangs up (counted in ``hung_up``: a
request its client gave up on ends then, unanswered). It counts requests (``total``), the
most in flight at once (``max_in_flight``), those in flight now (``calls.now``) and keeps
every request body and Authorization header."""

from __future__ import annotations

import json
import re
import select
import socket
import threading
import time
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from tests.helpers.http_models import CountsCalls, InFlight, reply_json

_ITEM = re.compile(r'^(\d+)\. field ("(?:[^"\\]|\\.)*"): reference (.*); produced (.*)$')

Item = tuple[str, object, object]  # field path, reference value, produced value


def items_of(prompt: str) -> list[Item]:
    """The numbered items of a prompt as the judge renders them."""
    out = []
    for line in prompt.splitlines():
        found = _ITEM.match(line)
        if found:
            out.append((json.loads(found[2]), json.loads(found[3]), json.loads(found[4])))
    return out


class JudgeServer(CountsCalls, ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.calls = InFlight()
        self.lock = threading.Lock()
        self.same: set[frozenset[str]] = set()
        self.answer: Callable[[list[Item]], str] | None = None
        self.finish = "stop"
        self.storm = 0
        self.down_after: int | None = None
        self.after = "0"
        self.status = 429
        self.delay = 0.0
        self.usage = (100, 10)  # prompt and completion tokens per request
        self.bodies: list[dict[str, object]] = []
        self.auth: list[str | None] = []
        self.started: list[float] = []
        self.hung_up = 0

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}/v1"

    def decide(self, items: list[Item]) -> list[int]:
        out = []
        for _, expected, actual in items:
            e, a = str(expected).lower(), str(actual).lower()
            out.append(int(e == a or frozenset((e, a)) in self.same))
        return out

    @property
    def items_sent(self) -> list[list[Item]]:
        return [items_of(str(b["messages"][0]["content"])) for b in self.bodies]  # type: ignore[index]


class _Handler(BaseHTTPRequestHandler):
    server: JudgeServer

    def log_message(self, *args: object) -> None:  # quiet
        pass

    def do_POST(self) -> None:
        srv = self.server
        length = int(self.headers.get("Content-Length", "0"))
        body = json.loads(self.rfile.read(length))
        with srv.lock:
            srv.bodies.append(body)
            srv.auth.append(self.headers.get("Authorization"))
            srv.started.append(time.monotonic())
            n = len(srv.bodies)
        with srv.calls.call() as leave:
            if srv.delay and not _held(self.connection, srv.delay):
                with srv.lock:
                    srv.hung_up += 1
                return
            if self.path != "/v1/chat/completions":
                leave()
                reply_json(self, {"error": "not found"}, 404)
                return
            if srv.down_after is not None and n > srv.down_after:
                leave()
                reply_json(self, {"error": "overloaded"}, 503)
                return
            if n <= srv.storm:
                leave()
                reply_json(self, {"error": "slow down"}, srv.status, {"Retry-After": srv.after})
                return
            items = items_of(body["messages"][0]["content"])
            content = (
                srv.answer(items)
                if srv.answer is not None
                else json.dumps({"results": srv.decide(items)})
            )
            leave()
            reply_json(
                self,
                {
                    "id": f"chatcmpl-{n}",
                    "object": "chat.completion",
                    "model": body.get("model"),
                    "choices": [
                        {
                            "index": 0,
                            "message": {"role": "assistant", "content": content},
                            "finish_reason": srv.finish,
                        }
                    ],
                    "usage": {
                        "prompt_tokens": srv.usage[0],
                        "completion_tokens": srv.usage[1],
                        "total_tokens": sum(srv.usage),
                    },
                },
            )


def _held(conn: socket.socket, seconds: float) -> bool:
    """Wait ``seconds``, watching the connection: False as soon as the client hangs up (its
    end of the socket closed: a read that returns nothing)."""
    end = time.monotonic() + seconds
    while (left := end - time.monotonic()) > 0:
        ready, _, _ = select.select([conn], [], [], min(left, 0.05))
        if ready:
            try:
                if conn.recv(1, socket.MSG_PEEK) == b"":
                    return False
            except OSError:
                return False
            time.sleep(max(0.0, end - time.monotonic()))  # bytes sent after the body: wait
            return True
    return True


class WireServer(ThreadingHTTPServer):
    """A judge's server that misbehaves on the wire, for the transport's tests: every POST
    is answered as ``mode`` says, and its Authorization header kept in ``auth``.

    - ``redirect``: a 302 to ``location`` (another server, an ftp:// URL);
    - ``drip``: a 200 whose long JSON body comes one byte every ``gap`` seconds;
    - ``huge``: a 200 that streams ``huge`` bytes of a JSON string, as fast as it is read;
    - ``echo``: a 401 whose body quotes the request's Authorization header;
    - ``ok``: a chat completion judging every item 1.
    """

    daemon_threads = True

    def __init__(self, mode: str = "ok") -> None:
        super().__init__(("127.0.0.1", 0), _WireHandler)
        self.mode = mode
        self.location = ""
        self.gap = 0.3
        self.huge = 64 * 1024 * 1024
        self.auth: list[str | None] = []
        self.sent = 0  # bytes of body written (huge, drip)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}/v1"


class _WireHandler(BaseHTTPRequestHandler):
    server: WireServer

    def log_message(self, *args: object) -> None:  # quiet
        pass

    def do_POST(self) -> None:
        srv = self.server
        srv.auth.append(self.headers.get("Authorization"))
        self.rfile.read(int(self.headers.get("Content-Length", "0")))
        try:
            getattr(self, f"_{srv.mode}")()
        except OSError:
            pass  # the client hung up: what it was sent is what the test reads

    def _redirect(self) -> None:
        self.send_response(302)
        self.send_header("Location", self.server.location)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def _drip(self) -> None:
        body = json.dumps({"choices": [], "pad": "x" * 1000}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.flush()
        for byte in body:
            self.wfile.write(bytes([byte]))
            self.wfile.flush()
            self.server.sent += 1
            time.sleep(self.server.gap)

    def _huge(self) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(self.server.huge + 2))
        self.end_headers()
        self.wfile.write(b'"')
        block = b"x" * 65536
        while self.server.sent < self.server.huge:
            self.wfile.write(block)
            self.server.sent += len(block)
        self.wfile.write(b'"')

    def _echo(self) -> None:
        auth = str(self.headers.get("Authorization"))
        key = auth.removeprefix("Bearer ")
        reply_json(self, {"error": f"invalid key {key} (you sent: {auth})"}, 401)

    def _ok(self) -> None:
        content = json.dumps({"results": [1]})  # the tests ask one item a request
        reply_json(self, {"choices": [{"message": {"content": content}}]})
