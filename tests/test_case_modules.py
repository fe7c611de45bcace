"""How many of the package's modules one golden case runs through while its test runs (its
output produced, scored, sent): a budget, as the layout's sizes are (issue 96: an agent case
is one scorer beside the plain entry, not a second door). Counted in a pytest session of its
own, by profiling each golden item's ``runtest``: a warm-up case first (its imports and first
calls), then the cases counted. A run case with an answer, a trajectory and an end state:
at most 48 modules (52 counted so before its scorer was one, and `engine/match.py` among
them); a plain case: at most 42 (as before)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

_CALL = {"id": "c", "type": "function", "function": {"name": "book", "arguments": "{}"}}
_RUN = {
    "messages": [
        {"role": "user", "content": "go"},
        {"role": "assistant", "content": None, "tool_calls": [_CALL]},
        {"role": "tool", "tool_call_id": "c", "content": "ok"},
        {"role": "assistant", "content": '{"pnr": "AB", "status": "booked"}'},
    ],
    "state": {"bookings": [{"pnr": "AB"}]},
}
_RUN_CASE = {
    "actual": _RUN,
    "expected": {"pnr": "AB", "status": "booked"},
    "expected_run": _RUN["messages"][1:],
    "expected_state": _RUN["state"],
}
# (JSON is YAML: the case file is written as JSON)
CASES = {
    "cases": [
        {"id": "warm", **_RUN_CASE},
        {"id": "run", **_RUN_CASE},
        {
            "id": "plain",
            "actual": {"a": 1, "b": [1, 2]},
            "expected": {"a": 1, "b": [1, 3]},
            "threshold": 0.1,  # (passed: a failure's message is another path)
        },
    ]
}
PROFILER = """
import json, os, sys
import pytest

@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_call(item):
    seen = set()
    def profile(frame, event, arg):
        name = frame.f_code.co_filename
        if event == "call" and "pytest_jsonmatch" in name:
            seen.add(name.split("pytest_jsonmatch", 1)[1])
    sys.setprofile(profile)
    try:
        yield
    finally:
        sys.setprofile(None)
    with open(os.environ["MODULES_OUT"], "a") as out:
        out.write(json.dumps([item.name, sorted(seen)]) + "\\n")
"""


def test_a_golden_run_case_and_a_plain_one_stay_within_their_modules(tmp_path: Path) -> None:
    (tmp_path / "golden").mkdir()
    (tmp_path / "golden" / "cases.yaml").write_text(json.dumps(CASES))
    (tmp_path / "conftest.py").write_text(PROFILER)
    (tmp_path / "pytest.ini").write_text("[pytest]\njsonmatch_golden = golden\n")
    out = tmp_path / "modules.jsonl"
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:xdist"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "MODULES_OUT": str(out)},
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    ran = dict(json.loads(line) for line in out.read_text().splitlines())
    assert set(ran) == {"warm", "run", "plain"}
    assert len(ran["run"]) <= 48, ran["run"]
    assert len(ran["plain"]) <= 42, ran["plain"]
    # the run case's scoring is its scorer's: no second door into the engine
    assert "/engine/match.py" not in ran["run"]
    assert "/engine/agents/agent_scorers.py" in ran["run"]
