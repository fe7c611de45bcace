"""benchmarks/trace_runs.py at a quick size, in this process: the runs of the scenario it
marks are the runs it reads and scores, and its figures come out with their spread."""

from __future__ import annotations

import json
import sys
from pathlib import Path

BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"


def test_the_scenario_s_runs_are_read_and_scored(monkeypatch, capsys):
    monkeypatch.syspath_prepend(str(BENCHMARKS))
    import trace_runs

    monkeypatch.setattr(
        sys, "argv", ["trace_runs", "--spans", "2000", "--repeats", "4", "--runs", "2"]
    )
    trace_runs.main()
    out = json.loads(capsys.readouterr().out)
    # 2,000 spans: 200 runs of 10; 4 marked, every 50th from the 25th: 4 scored
    assert len(out["scores"]) == 4 and len(set(out["scores"])) == 1  # (each run alike)
    assert out["runs"] == 2
    ratio = out["ratio"]
    assert 0 < ratio["min"] <= ratio["median"] <= ratio["max"]
    assert out["time_s"]["min"] <= out["time_s"]["median"] <= out["time_s"]["max"]


def test_the_marked_runs_are_spread_over_the_file(tmp_path, monkeypatch):
    monkeypatch.syspath_prepend(str(BENCHMARKS))
    import trace_runs

    marked = trace_runs.write_scenario(tmp_path / "s.jsonl", 2000, 4)
    assert marked == [25, 75, 125, 175]
    lines = (tmp_path / "s.jsonl").read_text().splitlines()
    assert len(lines) == 20  # 200 runs, ten a line
    assert [n for n, line in enumerate(lines) if '"scenario"' in line] == [2, 7, 12, 17]
