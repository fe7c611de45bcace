"""The judge the calibration's tests ask: a real OpenAI-compatible server on 127.0.0.1
(tests/helpers/judge_server.py) that says "same" of equal texts and of the pairs in ``same``."""

from __future__ import annotations

import threading
from collections.abc import Iterator

import pytest

from tests.helpers.judge_server import JudgeServer


@pytest.fixture
def server() -> Iterator[JudgeServer]:
    srv = JudgeServer()
    srv.same = {frozenset(("two boxes", "2 boxes")), frozenset(("fragile", "handle with care"))}
    # polled every 20 ms, so that shutting it down takes no half second (serving()'s default)
    thread = threading.Thread(target=srv.serve_forever, kwargs={"poll_interval": 0.02})
    thread.start()
    try:
        yield srv
    finally:
        srv.shutdown()
        srv.server_close()
        thread.join(5)
