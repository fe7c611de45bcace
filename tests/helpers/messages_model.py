"""A model on 127.0.0.1 speaking Anthropic's Messages API, for the real ``anthropic`` client
(``base_url`` its ``url``, any key): ``POST /v1/messages`` answers with a message whose
content blocks and stop reason are what ``say`` gives for the request's body (``text`` and
``tool_use`` blocks; ``stop_reason: tool_use`` where it calls tools; several ``tool_use``
blocks in one message are parallel calls). Each request's body is kept (``asked``), and the
usage reported (``input_tokens``, ``output_tokens``, cache reads) is ``usage``'s.

:func:`travel_agent` plays the two-step travel agent of tests/integrations/agent_server.py
in this API's words, booking one flight per city named, in parallel.
"""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from tests.helpers.http_models import reply_json

Say = Callable[[dict], tuple[list[dict], str]]


class MessagesModel(ThreadingHTTPServer):
    """The Messages API on 127.0.0.1: the reply to each request is ``say(body)``'s
    ``(content blocks, stop reason)``; ``usage``: (input, output, cache read) tokens
    reported for every call."""

    daemon_threads = True

    def __init__(self, say: Say, usage: tuple[int, int, int] = (40, 10, 10)) -> None:
        super().__init__(("127.0.0.1", 0), _Messages)
        self.say, self.usage = say, usage
        self.lock = threading.Lock()
        self.asked: list[dict] = []

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}"


class _Messages(BaseHTTPRequestHandler):
    server: MessagesModel

    def log_message(self, *args: object) -> None:  # quiet
        pass

    def do_POST(self) -> None:
        if self.path != "/v1/messages":
            reply_json(self, {"type": "error", "error": {"type": "not_found_error"}}, 404)
            return
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        with self.server.lock:
            self.server.asked.append(body)
        content, stop = self.server.say(body)
        given, output, cached = self.server.usage
        reply_json(
            self,
            {
                "id": "msg_1",
                "type": "message",
                "role": "assistant",
                "model": body["model"],
                "content": content,
                "stop_reason": stop,
                "stop_sequence": None,
                "usage": {
                    "input_tokens": given,
                    "output_tokens": output,
                    "cache_creation_input_tokens": 0,
                    "cache_read_input_tokens": cached,
                },
            },
        )


def tool_use(name: str, arguments: dict, call_id: str) -> dict:
    return {"type": "tool_use", "id": call_id, "name": name, "input": arguments}


def results(messages: list[dict]) -> list[list[dict]]:
    """The ``tool_result`` blocks of each user message that carries them, in order."""
    return [
        [b for b in m["content"] if b.get("type") == "tool_result"]
        for m in messages
        if m["role"] == "user" and isinstance(m["content"], list)
    ]


def travel_agent(body: dict) -> tuple[list[dict], str]:
    """A travel agent's model: asked to book flights to one city or several ("to Oslo and to
    Rome"), it first searches them all (one ``search_flights(to, date)`` call each, in one
    response), then books the first flight each search found (``book_flight(flight, date)``,
    in one response), then answers in JSON (``{bookings: [{pnr, flight}], status}``).
    "tomorrow" in the question: it books 2026-12-02 for 2026-12-01; "loop": it searches at
    every step. A tool's error (``is_error``) answers ``status: failed``."""
    messages = body["messages"]
    question = messages[0]["content"]
    cities = re.findall(r"to (\w+)", question)
    date = "2026-12-02" if "tomorrow" in question else "2026-12-01"
    step = len(results(messages))
    if step == 0 or "loop" in question:
        calls = [
            tool_use("search_flights", {"to": city, "date": date}, f"toolu_{step}_{k}")
            for k, city in enumerate(cities)
        ]
        return [{"type": "text", "text": "Searching."}, *calls], "tool_use"
    if step == 1:
        found = [json.loads(r["content"])[0]["flight"] for r in results(messages)[0]]
        calls = [
            tool_use("book_flight", {"flight": flight, "date": date}, f"toolu_1_{k}")
            for k, flight in enumerate(found)
        ]
        return calls, "tool_use"
    booked = results(messages)[1]
    failed = any(r.get("is_error") for r in booked)
    bookings = [] if failed else [json.loads(r["content"]) for r in booked]
    answer = {
        "bookings": [{"pnr": b["pnr"], "flight": b["flight"]} for b in bookings],
        "status": "failed" if failed else "booked",
    }
    return [{"type": "text", "text": json.dumps(answer)}], "end_turn"
