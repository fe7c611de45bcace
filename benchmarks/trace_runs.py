"""A scenario's repeated runs read out of one trace file and scored (issue 98, item 3: a
golden case's ``trace: {attribute: ..., runs: each}``).

The file is the traces section's (benchmarks/traces.py, ``write_many``): ``--spans`` spans
(100,000) as runs of ten spans, ten runs a line, in OTLP JSON as the Collector's file
exporter writes it. ``--repeats`` of its runs (10), spread over the file, carry
``scenario=refund`` on their agent's span. Each timing reads them with ``read_traces``
(every run of the scenario, each read whole as ``read_trace`` reads it) and scores each with
one ``RunScorer`` (built once, outside the timing, as a session builds a case's). The
baseline is the traces section's: ``json.loads`` of every line of the same file, read from
disk too. CPU time, ABBA, ``--runs`` runs (5): the median time, and the ratio as the median
of the paired ratios with its min and max. Run: ``python3 benchmarks/trace_runs.py``.
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
from pathlib import Path
from typing import Any

import traces  # (benchmarks/traces.py: its file and its timing helpers)


def write_scenario(path: Path, total: int, repeats: int) -> list[int]:
    """The traces section's file of ``total`` spans, ``repeats`` of its runs (every
    ``runs // repeats``-th) marked ``scenario=refund``; the runs marked, in file order."""
    ids, lines, batch = traces._Ids(), [], []
    count = total // traces.RUN_SPANS
    step = count // repeats
    marked = [k * step + step // 2 for k in range(repeats)]
    for run in range(count):
        spans, _ = traces.run_spans(run, 3, ids)
        if run in marked:
            spans[0]["attributes"].append({"key": "scenario", "value": {"stringValue": "refund"}})
        batch += spans
        if (run + 1) % traces.RUNS_A_LINE == 0:
            lines.append(traces._line(batch))
            batch = []
    if batch:
        lines.append(traces._line(batch))
    path.write_text("\n".join(lines) + "\n")
    return marked


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--spans", type=int, default=100_000)
    parser.add_argument("--repeats", type=int, default=10)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()

    from pytest_jsonmatch.engine.agents.agent_scorers import RunScorer
    from pytest_jsonmatch.engine.reading.trace_runs import read_traces

    # each run is asked for its first tool call and gives an answer of its own: the rows
    # the answer and that call make, scored for every repeat
    call = {"name": traces.TOOLS[0], "arguments": {"turn": 0}}
    scorer = RunScorer(
        {"status": "booked"}, [call], None, "field_f1", {"mode": "superset", "args": "subset"}, {}
    )
    with tempfile.TemporaryDirectory(prefix="jm-bench-trace-runs-") as tmp:
        path = Path(tmp) / "scenario.jsonl"
        marked = write_scenario(path, args.spans, args.repeats)

        def mine() -> Any:
            return [scorer.scored(t) for t in read_traces(path, attribute="scenario=refund")]

        m, b, results = traces._abba(mine, traces._baseline(path), args.runs)
        size = path.stat().st_size / 2**20
    assert len(results) == len(marked), (len(results), marked)
    ratios = sorted(x / y for x, y in zip(m, b))
    print(
        json.dumps(
            {
                "case": f"{args.spans:,} spans, {len(marked)} runs of one scenario read and scored",
                "runs": len(m),
                "time_s": {"min": min(m), "median": statistics.median(m), "max": max(m)},
                "baseline_s (json.loads of each line)": statistics.median(b),
                "ratio": {
                    "min": ratios[0],
                    "median": statistics.median(ratios),
                    "max": ratios[-1],
                },
                "scores": [round(r.score, 4) for r in results],
                "file_mb": round(size, 1),
            },
            indent=2,
        )
    )


if __name__ == "__main__":
    main()
