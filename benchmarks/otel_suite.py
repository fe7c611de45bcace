"""The OpenTelemetry export's cost: a suite of ``input:`` cases run with ``jsonmatch_otel`` on
(to a local OTLP/HTTP receiver) and off, in separate pytest processes.

The receiver answers every request at once and counts the log records it was sent (decoded
with opentelemetry-proto, which comes with the exporter), so that a run whose events did not
all arrive is an error, not a fast figure.
"""

from __future__ import annotations

import json
import resource
import subprocess
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import suite

TARGET = """
def pytest_jsonmatch_target(case, config):
    n = case.input
    return {"id": n, "vendor": "ACME", "total": n * 3, "lines": [{"sku": f"S{n}", "qty": 1}]}
"""

# the same answers from a local HTTP "model" (``Receiver`` answers GET /model?n=N), through
# httpx, as a suite calling a model does
HTTP_TARGET = """
import httpx

client = httpx.Client(base_url="{url}")

def pytest_jsonmatch_target(case, config):
    return client.get("/model", params={{"n": case.input}}).json()
"""


def answer(n: int) -> dict[str, object]:
    return {"id": n, "vendor": "ACME", "total": n * 3, "lines": [{"sku": f"S{n}", "qty": 1}]}


class _Counting(BaseHTTPRequestHandler):
    server: Receiver

    def log_message(self, *args: object) -> None:
        pass

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
        if self.path == "/v1/logs":
            from opentelemetry.proto.collector.logs.v1.logs_service_pb2 import (
                ExportLogsServiceRequest,
            )

            request = ExportLogsServiceRequest.FromString(body)
            count = sum(len(sl.log_records) for rl in request.resource_logs for sl in rl.scope_logs)
            with self.server.lock:
                self.server.records += count
        self.send_response(200)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def do_GET(self) -> None:
        n = int(self.path.rpartition("=")[2])
        body = json.dumps(answer(n)).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


class Receiver(ThreadingHTTPServer):
    """A local OTLP/HTTP endpoint, serving in a thread until closed."""

    daemon_threads = True

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), _Counting)
        self.lock = threading.Lock()
        self.records = 0
        self.thread = threading.Thread(target=self.serve_forever, daemon=True)
        self.thread.start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}"

    def close(self) -> None:
        self.shutdown()
        self.server_close()
        self.thread.join(5)


def write_suite(root: Path, cases: int, model_url: str = "") -> None:
    """One case file of ``cases`` input cases (each passes: the target gives the expected
    value), the target in conftest.py: in process, or calling the model at ``model_url``."""
    (root / "pytest.ini").write_text("[pytest]\n")
    (root / "conftest.py").write_text(HTTP_TARGET.format(url=model_url) if model_url else TARGET)
    (root / "c.jsonmatch.yaml").write_text(
        "cases:\n"
        + "".join(
            f"  - id: c{n}\n    input: {n}\n    expected: {{id: {n}, vendor: ACME, total: {n * 3}, "
            f"lines: [{{sku: S{n}, qty: 1}}]}}\n"
            for n in range(cases)
        )
    )


def run(root: Path, cases: int, mode: str, receiver: Receiver, quick: bool) -> tuple[float, float]:
    """One pytest process over the suite with ``--jsonmatch-otel=MODE``: its wall time and
    its CPU time (user and system, every thread of it: the exporter's included)."""
    env = suite._env()
    env["OTEL_EXPORTER_OTLP_ENDPOINT"] = receiver.url
    env.pop("OTEL_SDK_DISABLED", None)
    before = receiver.records
    cpu0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",
            *(suite.QUICK_ARGS if quick else []),
            "-p",
            "no:xdist",
            f"--jsonmatch-otel={mode}",
        ],
        cwd=root,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    took = time.perf_counter() - t0
    cpu1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = cpu1.ru_utime - cpu0.ru_utime + cpu1.ru_stime - cpu0.ru_stime
    if done.returncode != 0 or f"{cases} passed" not in done.stdout:
        raise RuntimeError(
            f"otel={mode} run failed, rc={done.returncode}:\n"
            f"{done.stdout[-2000:]}{done.stderr[-2000:]}"
        )
    # cases: one event each; fields: and one per field (5 each: id, vendor, total, sku, qty)
    wanted = {"off": 0, "cases": cases, "fields": cases * 6}[mode]
    if receiver.records - before != wanted:
        raise RuntimeError(
            f"otel={mode}: the receiver got {receiver.records - before} events, not {wanted}"
        )
    return took, cpu
