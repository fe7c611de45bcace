"""The benchmark script runs end to end on tiny sizes (the benchmarks themselves are not tests)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

RUN = Path(__file__).resolve().parents[2] / "benchmarks" / "run.py"


def test_benchmark_script_runs_quick(tmp_path: Path) -> None:
    out = tmp_path / "bench.json"
    proc = subprocess.run([sys.executable, str(RUN), "--quick", "--json", str(out)],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    table = proc.stdout
    for section in ("metrics", "pairing", "suite", "startup", "parse"):
        assert any(line.startswith(section) for line in table.splitlines()), (section, table)
    for metric in ("field_match", "field_match_normalized", "json_similarity",
                   "structural_f1", "field_f1"):
        assert f"{metric} (corpus)" in table
    assert "ERROR" not in table
    rows = json.loads(out.read_text())["rows"]
    assert {r["section"] for r in rows} == {"metrics", "pairing", "suite", "startup", "parse"}
    assert all(r["time_s"] is not None and r["time_s"] > 0 for r in rows)
    # a pure shuffle pairs exactly, whatever the size
    assert all(r["note"] == "F1=1.0" for r in rows
               if r["section"] == "pairing" and "damaged" not in r["case"])
