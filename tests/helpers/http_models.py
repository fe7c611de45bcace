"""What the tests' HTTP "models" on 127.0.0.1 share: a JSON reply, and a server that runs
in a thread of its own for as long as a fixture holds it."""

from __future__ import annotations

import contextlib
import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, HTTPServer


def reply_json(handler: BaseHTTPRequestHandler, value: object, status: int = 200,
               headers: dict[str, str] | None = None) -> None:
    """Send ``value`` as a JSON reply with ``status`` (and any ``headers``)."""
    body = json.dumps(value).encode()
    handler.send_response(status)
    for name, text in (headers or {}).items():
        handler.send_header(name, text)
    handler.send_header("Content-Type", "application/json")
    handler.send_header("Content-Length", str(len(body)))
    handler.end_headers()
    handler.wfile.write(body)


@contextlib.contextmanager
def serving(*servers: HTTPServer) -> Iterator[None]:
    """Each server answering in a daemon thread of its own until the block ends; then shut
    down, closed and its thread joined (5 s at most)."""
    threads = [threading.Thread(target=s.serve_forever, daemon=True) for s in servers]
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
