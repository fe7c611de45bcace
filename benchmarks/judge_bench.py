"""The judge section: the built-in LLM judge (``semantic``) as part of the run, and against
extract-eval's batch rules.

- **Overlap**: a golden suite of N cases, each with one judged field, run by pytest in a
  subprocess (timed by pytest's own session time: the interpreter's start-up is left out)
  against a local OpenAI-compatible server that answers every request after a
  fixed delay; judge concurrency 8 against concurrency 1 (the serial run), ``runs`` times
  each in ABBA order. The ratio is the median of the paired wall-time ratios, min and max
  beside it; the target is at most 0.3x. The server counts its requests and the most in
  flight at once, which the note gives. A second row does the same with a live target: each
  case's output comes from a call of a target that asks the same local server (its own
  path, the same delay) for its answer; target and judge concurrency 8 against both 1.
- **Differential**: extract-eval's ``SemanticBatchComparator`` (through its ``FakeJudge``,
  made to answer short, long, invalid and failing batches) and ours (through a transport
  that answers the same verdicts) on the same records: same statuses and scores, field by
  field. Measured only when ``struct_extract_eval`` is installed beside the project; else the
  row says it skipped.
"""

from __future__ import annotations

import json
import os
import random
import re
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

SECTION = "judge"
OVERLAP_TARGET = 0.30
ROOT = Path(__file__).resolve().parents[1]
_ITEM = re.compile(r'^(\d+)\. field ("(?:[^"\\]|\\.)*"): reference (.*); produced (.*)$')


class _Server(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, delay: float) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.delay, self.lock = delay, threading.Lock()
        self.now = self.most = self.total = 0

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}/v1"


class _Handler(BaseHTTPRequestHandler):
    server: _Server

    def log_message(self, *args: object) -> None:
        pass

    def do_POST(self) -> None:
        srv = self.server
        body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", "0"))))
        if self.path == "/model":  # the live target's model: the produced summary
            time.sleep(srv.delay)
            data = json.dumps({"summary": f"produced {body['n']}"}).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)
            return
        with srv.lock:
            srv.now += 1
            srv.total += 1
            srv.most = max(srv.most, srv.now)
        try:
            time.sleep(srv.delay)
            n = sum(1 for line in body["messages"][0]["content"].splitlines() if _ITEM.match(line))
            content = json.dumps({"results": [0] * n})
            reply = {
                "choices": [{"message": {"content": content}, "finish_reason": "stop"}],
                "usage": {"prompt_tokens": 50, "completion_tokens": 5},
            }
            data = json.dumps(reply).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)
        finally:
            with srv.lock:
                srv.now -= 1


_TARGET = """\
import json
import urllib.request

def answer(n):
    request = urllib.request.Request(
        URL, json.dumps({"n": n}).encode(), {"Content-Type": "application/json"}
    )
    with urllib.request.urlopen(request, timeout=60) as reply:
        return {"id": n, **json.loads(reply.read())}
"""


def _write_suite(root: Path, cases: int, url: str, concurrency: int, live: bool = False) -> None:
    ini = f"[pytest]\njsonmatch_judge = model=bench endpoint={url} concurrency={concurrency}\n"
    if live:  # each output from a call of the target, which asks the server's /model
        ini += "pythonpath = .\njsonmatch_target = target:answer\n"
        ini += f"jsonmatch_calls = concurrency={concurrency}\n"
        model = url.removesuffix("/v1") + "/model"
        (root / "target.py").write_text(f"URL = {model!r}\n" + _TARGET)
    (root / "pytest.ini").write_text(ini)
    (root / "cases").mkdir(exist_ok=True)
    body = "".join(
        f"- id: c{n}\n"
        f"  options: {{fields: {{summary: {{comparator: semantic}}}}}}\n"
        f"  expected: {{id: {n}, summary: 'reference {n}'}}\n"
        + (f"  input: {n}\n" if live else f"  actual: {{id: {n}, summary: 'produced {n}'}}\n")
        for n in range(cases)
    )
    (root / "cases" / "m.jsonmatch.yaml").write_text("cases:\n" + body)


def _run_suite(root: Path) -> float:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, (str(ROOT), env.get("PYTHONPATH"))))
    start = time.perf_counter()
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",
            "-p",
            "no:randomly",
            "-p",
            "no:xdist",
            "cases",
        ],
        cwd=root,
        capture_output=True,
        text=True,
        env=env,
        timeout=600,
    )
    if "failed" not in proc.stdout:  # every case is judged different: all fail
        raise RuntimeError(proc.stdout[-2000:] + proc.stderr[-2000:])
    # the session's own time (collection and tests), not the interpreter's start-up
    found = re.search(r" in ([0-9.]+)s", proc.stdout.strip().splitlines()[-1])
    return float(found[1]) if found else time.perf_counter() - start


def overlap_rows(row: Any, quick: bool, runs: int) -> list[Any]:
    """Judge concurrency 8 against 1 on a suite of judged cases, their outputs given and
    from a live target (see the module docstring)."""
    return _overlap(row, quick, runs, False) + _overlap(row, quick, runs, True)


def _overlap(row: Any, quick: bool, runs: int, live: bool) -> list[Any]:
    cases, delay = (8, 0.05) if quick else (40, 0.5)
    server = _Server(delay)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        with tempfile.TemporaryDirectory(prefix="jm-bench-judge-") as tmp:
            roots = {}
            for concurrency in (8, 1):
                roots[concurrency] = Path(tmp, f"c{concurrency}")
                roots[concurrency].mkdir()
                _write_suite(roots[concurrency], cases, server.url, concurrency, live)
            times: dict[int, list[float]] = {8: [], 1: []}
            most: dict[int, int] = {}
            for k in range(runs):
                for concurrency in (8, 1) if k % 2 == 0 else (1, 8):  # ABBA
                    before = server.total
                    server.most = 0
                    times[concurrency].append(_run_suite(roots[concurrency]))
                    most[concurrency] = server.most
                    requests = server.total - before
    finally:
        server.shutdown()
        server.server_close()
    ratios = sorted(a / b for a, b in zip(times[8], times[1]))
    ratio = statistics.median(ratios)
    note = (
        f"ratio min/median/max {ratios[0]:.3f}/{ratio:.3f}/{ratios[-1]:.3f} over {runs} "
        f"paired runs; {requests} requests a run; most in flight {most[8]} (concurrency 8), "
        f"{most[1]} (serial); server delay {delay:g} s"
    )
    return [
        row(
            SECTION,
            f"{cases} judged golden cases"
            + (", live target" if live else "")
            + (", target and judge concurrency=8" if live else ", judge concurrency=8"),
            statistics.median(times[8]),
            "the same, concurrency=1 (serial)",
            statistics.median(times[1]),
            ratio,
            f"<= {OVERLAP_TARGET:.2f}x",
            "PASS" if ratio <= OVERLAP_TARGET else "MISS",
            runs,
            note,
        )
    ]


# -- the differential against extract-eval ---------------------------------------------------


def _behaviour(n: int) -> str:
    """How the fake judges answer the n-th batch: all of it, too few, too many, with an
    invalid verdict, or by failing."""
    return ("all", "short", "long", "invalid", "raise", "all")[n % 6]


def _shape(scores: list[Any], how: str) -> list[Any]:
    if how == "short":
        return scores[:-1]
    if how == "long":
        return scores + [1.0]
    if how == "invalid":
        return [None] + scores[1:]
    return scores


def differential_rows(row: Any, quick: bool) -> list[Any]:
    try:
        import struct_extract_eval  # noqa: F401
        from struct_extract_eval import evaluate
        from struct_extract_eval.batch import FakeJudge, SemanticBatchComparator
        from struct_extract_eval.core.comparators.registry import register
    except ImportError:
        from references import not_installed_note

        return [
            row(
                SECTION,
                "semantic batch rules against extract-eval",
                None,
                "-",
                None,
                None,
                "same",
                "INFO",
                0,
                not_installed_note("struct_extract_eval"),
            )
        ]
    from pytest_jsonmatch import REGISTRY, JudgeReply, JudgeSettings, evaluate_records

    rng = random.Random(50)
    words = [
        "PVD",
        "physical vapour deposition",
        "sputtering",
        "Sputtering",
        "CVD",
        "anneal",
        "annealing",
        "300 K",
        "room temperature",
        "none",
    ]
    keys = ["method", "process", "note", "step", "target"]
    records = 60 if quick else 400
    gold, pred = [], []
    for _ in range(records):
        g, p = {}, {}
        for key in keys:
            if rng.random() < 0.85:
                g[key] = rng.choice(words)
                p[key] = g[key] if rng.random() < 0.3 else rng.choice(words)
        gold.append(g)
        pred.append(p)
    schema = {
        "type": "object",
        "properties": {k: {"type": "string", "x-eval-compare": "semantic"} for k in keys},
    }

    def fake_decide(g: str, e: str) -> float:
        return 1.0 if g.lower()[:3] == e.lower()[:3] else 0.0

    class ShapedFake(FakeJudge):
        def __init__(self) -> None:
            super().__init__()
            self.n = 0

        def judge_batch(self, items: list[Any]) -> list[Any]:
            how = _behaviour(self.n)
            self.n += 1
            if how == "raise":
                raise RuntimeError("the fake judge failed")
            return _shape([fake_decide(str(i.gold), str(i.extracted)) for i in items], how)

    register("semantic", SemanticBatchComparator(ShapedFake()), overwrite=True)
    started = time.perf_counter()
    theirs = evaluate(gold, pred, schema=schema)
    their_s = time.perf_counter() - started

    calls = {"n": 0}

    def transport(request: Any) -> Any:
        how = _behaviour(calls["n"])
        calls["n"] += 1
        if how == "raise":
            raise RuntimeError("the fake judge failed")
        verdicts = []
        for line in request.prompt.splitlines():
            found = _ITEM.match(line)
            if found:
                verdicts.append(fake_decide(json.loads(found[3]), json.loads(found[4])))
        shaped = ["maybe" if v is None else int(v) for v in _shape(verdicts, how)]
        return JudgeReply(json.dumps({"results": shaped}), "stop")

    before = REGISTRY.state()
    records_ours = []
    started = time.perf_counter()
    try:
        REGISTRY.configure_judge(JudgeSettings(model="fake", batch=500), transport=transport)
        for g, p in zip(gold, pred):
            # extract-eval's judge remembers nothing between records: a judge of our own per
            # record, so that both send the same batches in the same order
            REGISTRY.configure_judge(transport=transport)
            records_ours.extend(evaluate_records([g], [p], schema=schema).records)
    finally:
        REGISTRY.restore(before)
    our_s = time.perf_counter() - started
    same = total = 0
    differ: list[str] = []
    statuses: dict[str, int] = {}
    for t, o in zip(theirs.records, records_ours):
        mine = {f.path: (f.status, f.score) for f in o.fields}
        for f in t.field_results:
            total += 1
            got = mine.get(f.path)
            want = (f.status, float(f.score) if f.status != "batch_error" else 0.0)
            got = None if got is None else (got[0], got[1] if got[0] != "batch_error" else 0.0)
            statuses[f.status] = statuses.get(f.status, 0) + 1
            if got == want:
                same += 1
            elif len(differ) < 3:
                differ.append(f"{f.path}: theirs {want}, ours {got}")
    counts = ", ".join(f"{k} {v}" for k, v in sorted(statuses.items()))
    note = (
        f"{same}/{total} fields the same ({counts}); batches {calls['n']}; times: ours "
        f"one record at a time (a fresh judge each, as theirs remembers nothing)"
    )
    if differ:
        note += "; differ: " + "; ".join(differ)
    return [
        row(
            SECTION,
            f"semantic batch rules against extract-eval, {records} records",
            our_s,
            "extract-eval, its FakeJudge",
            their_s,
            our_s / their_s,
            "same",
            "PASS" if same == total else "MISS",
            1,
            note,
        )
    ]
