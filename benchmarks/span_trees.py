"""What keeping a trace case's span tree costs (issue 98, item 4): the tree a report keeps
of a run read from a trace (reporting/run_model/span_trees.py's ``kept_tree``, written as
the report's JSON), against reading and scoring the same trace, which a trace case does
anyway (benchmarks/traces.py's files: the Collector's OTLP JSON, GenAI spans as
pydantic-ai's instrumentation writes them).

- **one long run**: one agent run of ``--spans`` spans (100,000: a model call, its HTTP
  span and a tool call a turn), scored against ten of its calls (superset) and its answer:
  the tree keeps 200 of its spans (its steps' first);
- **a short run**: one run of ten spans selected out of a file of ``--spans`` spans by its
  ``session.id``: the tree keeps every span.

Each row: the baseline ``read_trace`` then ``RunScorer.scored`` (the scorer built once, as a
session builds it); the timed side the same, then ``kept_tree`` and its JSON text. CPU time,
ABBA, ``--runs`` runs: the ratio as the median of the paired ratios, with its min and max,
the tree's own time (the difference of the medians) and its JSON's size.

    python benchmarks/span_trees.py [--spans 100000] [--runs 7]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from traces import _abba, write_long, write_many


def _rows(name: str, m: list[float], b: list[float], size: int, note: str) -> str:
    ratios = sorted(x / y for x, y in zip(m, b))
    tree_ms = (statistics.median(m) - statistics.median(b)) * 1000
    return (
        f"{name}: ratio min {ratios[0]:.3f}x median {statistics.median(ratios):.3f}x max "
        f"{ratios[-1]:.3f}x over {len(m)} runs; read and scored {statistics.median(b):.3f} s "
        f"(min {min(b):.3f}, max {max(b):.3f}), with the tree {statistics.median(m):.3f} s "
        f"(min {min(m):.3f}, max {max(m):.3f}); the tree about {tree_ms:.1f} ms, its JSON "
        f"{size:,} bytes; {note}"
    )


def _pair(
    read: Callable[[], Any], scorer: Any
) -> tuple[Callable[[], Any], Callable[[], Any], Callable[[], int]]:
    from pytest_jsonmatch.reporting.run_model.span_trees import kept_tree

    def base() -> Any:
        return scorer.scored(read())

    def mine() -> Any:
        trace = read()
        result = scorer.scored(trace)
        return json.dumps(kept_tree(trace, result.fields, result.parts, "short"))

    return mine, base, lambda: len(mine())


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--spans", type=int, default=100_000)
    parser.add_argument("--runs", type=int, default=7)
    args = parser.parse_args(argv)
    from pytest_jsonmatch.engine.agents.agent_scorers import RunScorer
    from pytest_jsonmatch.engine.reading.trace_spans import read_trace

    with tempfile.TemporaryDirectory(prefix="jm-bench-trees-") as tmp:
        long, many = Path(tmp) / "long.jsonl", Path(tmp) / "many.jsonl"
        case = write_long(long, args.spans)
        wanted = case["calls"][:: max(1, len(case["calls"]) // 10)][:10]
        scorer = RunScorer(case["answer"], wanted, None, "field_f1", {"mode": "superset"}, {})
        mine, base, size = _pair(lambda: read_trace(long), scorer)
        m, b, _ = _abba(mine, base, args.runs)
        print(_rows(f"one run of {case['spans']:,} spans", m, b, size(), "200 spans kept"))
        cases = write_many(many, args.spans)
        chosen = len(cases) // 2 + 9
        short = cases[chosen]
        scorer = RunScorer(
            short["answer"], short["calls"], None, "field_f1", {"mode": "superset"}, {}
        )
        mine, base, size = _pair(
            lambda: read_trace(many, attribute=f"session.id=s{chosen}"), scorer
        )
        m, b, _ = _abba(mine, base, args.runs)
        print(_rows(f"a run of 10 spans out of {args.spans:,}", m, b, size(), "every span kept"))


if __name__ == "__main__":
    main()
