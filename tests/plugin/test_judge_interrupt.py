"""Ctrl-C in a judged session: a real pytest process judging golden cases against a slow
OpenAI-compatible server on 127.0.0.1 (tests/helpers/judge_server.py) gets SIGINT while its
requests are in flight. The run ends within a bounded time, no request of its judge is left
running at the server, the judgments' recording is whole (or not written) and the summary
says the run was interrupted."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import threading
import time

import pytest

from tests.helpers.http_models import serving
from tests.helpers.judge_server import JudgeServer
from tests.helpers.plugin_cases import ARGS, write

pytestmark = pytest.mark.skipif(not hasattr(signal, "SIGINT"), reason="POSIX signals")

DELAY_S = 90.0  # each answer: far longer than the run may take to stop


def _lines(stream):
    for line in iter(stream.readline, b""):
        yield line.decode()


def _wait_for(check, within: float) -> bool:
    end = time.monotonic() + within
    while time.monotonic() < end:
        if check():
            return True
        time.sleep(0.02)
    return check()


def test_ctrl_c_ends_a_judged_run_at_once_and_leaves_no_request_running(pytester, monkeypatch):
    monkeypatch.setenv("PYTHONFAULTHANDLER", "1")  # (a run that hangs shows where: below)
    srv = JudgeServer()
    srv.delay = DELAY_S
    write(
        pytester,
        "pytest.ini",
        f"[pytest]\njsonmatch_judge = model=j endpoint={srv.url} concurrency=4\n"
        "jsonmatch_record = once\n",
    )
    # c0 to c3 are equal (decided without a request: they pass at once); the other eight
    # each ask the judge, four at a time, and would wait DELAY_S for every answer
    body = "".join(
        f"- id: c{n}\n  options: {{fields: {{s: {{comparator: semantic}}}}}}\n"
        f"  expected: {{s: 'reference {n}'}}\n"
        f"  actual: {{s: '{'reference' if n < 4 else 'produced'} {n}'}}\n"
        for n in range(12)
    )
    write(pytester, "cases/m.jsonmatch.yaml", "cases:\n" + body)
    with serving(srv):
        # the run starts with Ctrl-C as a terminal gives it, even where this session was
        # started with it ignored (a shell's job in the background), which a child inherits
        kept = signal.signal(signal.SIGINT, signal.SIG_DFL)
        try:
            proc = pytester.popen(
                [sys.executable, "-m", "pytest", *ARGS, "-v", "cases"],
                stdin=None,
                stderr=subprocess.STDOUT,
            )
        finally:
            signal.signal(signal.SIGINT, kept)
        lines: list[str] = []
        reader = threading.Thread(target=lambda: lines.extend(_lines(proc.stdout)), daemon=True)
        reader.start()
        try:
            # c3 passed, and the judge's four threads each have a request at the server
            assert _wait_for(lambda: any("c3 PASSED" in x for x in lines), 60), lines
            assert _wait_for(lambda: srv.calls.now >= 4, 60), srv.calls.now
            sent = time.monotonic()
            proc.send_signal(signal.SIGINT)
            try:
                proc.wait(timeout=60)
            except subprocess.TimeoutExpired:  # where it hangs: every thread's stack, printed
                proc.send_signal(signal.SIGABRT)  # by the fault handler (PYTHONFAULTHANDLER)
                proc.wait(30)
                reader.join(10)
                pytest.fail("the run did not end within 60 s of Ctrl-C:\n" + "".join(lines))
            took = time.monotonic() - sent
            reader.join(10)
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
        # the process hung up on every request: none is left running at the server
        assert _wait_for(lambda: srv.calls.now == 0, 5), srv.calls.now
        total, hung_up = srv.total, srv.hung_up
    text = "".join(lines)
    assert proc.returncode == pytest.ExitCode.INTERRUPTED, text
    # bounded: well below one answer's delay, on a loaded machine too (most of it is pytest
    # stopping); a run that waited for its requests would take DELAY_S at least
    assert took < DELAY_S / 3, (took, text)
    # every request the run sent was given up on, none answered; no more than its 4 at once
    assert hung_up == total and 4 <= total <= 8, (hung_up, total)
    assert "interrupted by Ctrl-C: 4 of 12 tests ran" in text, text
    # no half-written recording: the judgments' file is absent or whole JSON, no temp files
    folder = pytester.path / "__recordings__"
    if folder.exists():
        names = sorted(p.name for p in folder.iterdir())
        assert set(names) <= {"judgments.json", ".lock"}, names
        if "judgments.json" in names:
            json.loads((folder / "judgments.json").read_text())
