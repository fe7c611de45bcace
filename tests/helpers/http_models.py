"""What the tests' HTTP "models" on 127.0.0.1 share: a JSON reply, a count of the calls in
flight, and a server that runs in a thread of its own for as long as a fixture holds it."""

from __future__ import annotations

import contextlib
import json
import threading
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, HTTPServer, ThreadingHTTPServer


class InFlight:
    """The calls a server is answering: how many now, the most at once, how many in all.

    A test that checks a runner's concurrency sets ``gather`` to the number of calls the
    runner should have out at once: each call then waits (``patience`` seconds at most)
    until that many have been in flight together, so calls sent together are seen together
    however loaded the machine is, not only when their sleeps happen to overlap. A runner
    that sends fewer at a time never reaches the figure: its calls go on after the wait and
    ``most`` says how many it did send."""

    def __init__(self, gather: int = 0, patience: float = 10.0) -> None:
        self.gather, self.patience = gather, patience
        self.now = self.most = self.total = 0
        self._changed = threading.Condition()

    def reset(self, gather: int = 0) -> None:
        with self._changed:
            self.gather, self.most = gather, self.now

    @contextlib.contextmanager
    def call(self) -> Iterator[Callable[[], None]]:
        """Count one call for as long as the block runs (after the gathering wait), or until
        the block calls the ``leave`` it is given. A handler calls ``leave()`` just before it
        writes its reply: a client that has read the reply may send its next call at once,
        and that call must not find this one still counted."""
        with self._changed:
            self.now += 1
            self.total += 1
            self.most = max(self.most, self.now)
            self._changed.notify_all()
            if self.gather:
                self._changed.wait_for(lambda: self.most >= self.gather, self.patience)
        left = False

        def leave() -> None:
            nonlocal left
            with self._changed:
                if not left:
                    left = True
                    self.now -= 1

        try:
            yield leave
        finally:
            leave()


class CountsCalls:
    """A test server whose handlers count their calls in ``calls``: the most in flight at
    once and how many in all, as the runner tests read them."""

    calls: InFlight

    @property
    def max_in_flight(self) -> int:
        return self.calls.most

    @property
    def total(self) -> int:
        return self.calls.total


def reply_json(
    handler: BaseHTTPRequestHandler,
    value: object,
    status: int = 200,
    headers: dict[str, str] | None = None,
) -> None:
    """Send ``value`` as a JSON reply with ``status`` (and any ``headers``)."""
    body = json.dumps(value).encode()
    handler.send_response(status)
    for name, text in (headers or {}).items():
        handler.send_header(name, text)
    handler.send_header("Content-Type", "application/json")
    handler.send_header("Content-Length", str(len(body)))
    handler.end_headers()
    handler.wfile.write(body)


# How often a serving thread looks for its shutdown: socketserver's default (0.5 s) is the
# time each server's shutdown waits, at the end of each of some hundred tests.
POLL = 0.02


@contextlib.contextmanager
def serving(*servers: HTTPServer) -> Iterator[None]:
    """Each server answering in a daemon thread of its own until the block ends; then shut
    down, closed and its thread joined (5 s at most)."""
    threads = [threading.Thread(target=s.serve_forever, args=(POLL,), daemon=True) for s in servers]
    for thread in threads:
        thread.start()
    try:
        yield
    finally:
        for srv in servers:
            srv.shutdown()
            srv.server_close()
        for thread in threads:
            thread.join(5)


class ChatModel(ThreadingHTTPServer):
    """A chat-completions model on 127.0.0.1 for the real ``openai`` client: each request's
    body is kept (``asked``), and the reply is the chat completion of what ``say`` gives for
    the body: ``(assistant message, finish reason)``. ``usage``: (prompt, completion) tokens
    reported for every call."""

    daemon_threads = True

    def __init__(
        self,
        say: Callable[[dict], tuple[dict, str]],
        usage: tuple[int, int] = (50, 10),
    ) -> None:
        super().__init__(("127.0.0.1", 0), _ChatCompletions)
        self.say, self.usage = say, usage
        self.lock = threading.Lock()
        self.asked: list[dict] = []

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}/v1"


class _ChatCompletions(BaseHTTPRequestHandler):
    server: ChatModel

    def log_message(self, *args: object) -> None:  # quiet
        pass

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        with self.server.lock:
            self.server.asked.append(body)
        message, finish = self.server.say(body)
        prompt, completion = self.server.usage
        reply_json(
            self,
            {
                "id": "chatcmpl-1",
                "object": "chat.completion",
                "created": 1,
                "model": body["model"],
                "choices": [{"index": 0, "finish_reason": finish, "message": message}],
                "usage": {
                    "prompt_tokens": prompt,
                    "completion_tokens": completion,
                    "total_tokens": prompt + completion,
                },
            },
        )
