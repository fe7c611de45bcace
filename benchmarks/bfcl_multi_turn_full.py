"""BFCL's multi-turn verdict, the complete differential run: every entry of the four
multi-turn categories (base, miss_func, miss_param, long_context) with every kind of model
output that tests/helpers/bfcl_multi_turn_entries.py makes, through BFCL's own
``multi_turn_checker`` and through ``bfcl_multi_turn_verdict``. Prints, per category and
kind, how many were checked, how many BFCL found valid, and how many verdicts (valid or not,
and BFCL's error type) differ; the entries left out (an environment that does not import
here) are counted. The test suite runs the same set with each turn compared too
(tests/engine/bfcl/test_bfcl_multi_turn.py); this is the verdicts alone, run by hand:

    python benchmarks/bfcl_multi_turn_full.py

The reference is BFCL's checker on each check in a fresh process (a child forked for it, from
a process that imported bfcl-eval and never ran it): its classes keep state from entry to
entry, so its verdicts in one process depend on what ran before. Then the times, each phase
alone, CPU time of every process it used (the children's counted when they are reaped) and
wall time:

- BFCL's checker in this one process, every check in turn (its verdicts not used);
- BFCL's checker, a fresh process per check: the whole (forks included), and its checker's
  own CPU time inside each child;
- ``bfcl_multi_turn_verdict``: this process and its fork server with the children it forks
  (each entry is executed in a child of its own; the server is closed at the end, so that
  its time is counted).

BFCL is no dependency: ``pip install --no-deps bfcl-eval``.
"""

from __future__ import annotations

import collections
import resource
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from pytest_jsonmatch import bfcl_multi_turn_verdict  # noqa: E402
from pytest_jsonmatch.engine.bfcl import bfcl_isolation  # noqa: E402
from tests.helpers.bfcl_multi_turn_entries import (  # noqa: E402
    CATEGORIES,
    KINDS,
    FreshChecks,
    entries,
    loadable,
    output,
    theirs,
)


def _timed(work: Callable[[], Any]) -> tuple[Any, float, float]:
    """``work()``'s value, its CPU time (this process and its reaped children) and wall time."""

    def cpu() -> float:
        mine = resource.getrusage(resource.RUSAGE_SELF)
        children = resource.getrusage(resource.RUSAGE_CHILDREN)
        return mine.ru_utime + mine.ru_stime + children.ru_utime + children.ru_stime

    start, wall = cpu(), time.perf_counter()
    value = work()
    return value, cpu() - start, time.perf_counter() - wall


def _ours(checks: list[tuple[Any, ...]]) -> list[tuple[object, str]]:
    out = []
    for entry, truth, turns in checks:
        verdict = bfcl_multi_turn_verdict(entry, turns, truth)
        out.append((verdict.valid, verdict.problem))
    bfcl_isolation._SERVER.close()  # (its time and its children's counted now)
    return out


def main() -> int:
    counts: collections.Counter[tuple[str, str, str]] = collections.Counter()
    checks, where = [], []
    for category in CATEGORIES:
        for entry, truth in entries(category):
            if not loadable(entry):
                counts[(category, "*", "left out")] += 1
                continue
            for kind in KINDS:
                checks.append((entry, truth, output(entry, truth, kind)))
                where.append((category, kind))
    _, inline_cpu, inline_wall = _timed(lambda: [theirs(e, o, t) for e, t, o in checks])
    fresh, fresh_cpu, fresh_wall = _timed(lambda: FreshChecks(checks, turns=False).result())
    ours, ours_cpu, ours_wall = _timed(lambda: _ours(checks))
    differ = []
    for (entry, _, _), (category, kind), bfcl, mine in zip(checks, where, fresh, ours):
        expected = tuple(bfcl["verdict"])
        counts[(category, kind, "checked")] += 1
        counts[(category, kind, "valid")] += expected[0] is True
        if mine != expected:
            counts[(category, kind, "differ")] += 1
            differ.append((entry["id"], kind, *expected, *mine))
    print(f"{'category':<14}{'kind':<13}{'checked':>8}{'valid':>7}{'differ':>7}")
    for category in CATEGORIES:
        for kind in KINDS:
            row = [counts[(category, kind, what)] for what in ("checked", "valid", "differ")]
            print(f"{category:<14}{kind:<13}{row[0]:>8}{row[1]:>7}{row[2]:>7}")
        print(f"{category:<14}{'(left out)':<13}{counts[(category, '*', 'left out')]:>8}")
    n = max(len(checks), 1)
    print(f"checks: {len(checks)}; verdicts that differ: {len(differ)}")
    checker_cpu = sum(item["cpu"] for item in fresh)
    for side, cpu, wall in (
        ("bfcl, one process", inline_cpu, inline_wall),
        ("bfcl, a fresh process each", fresh_cpu, fresh_wall),
        ("bfcl, its checker in each", checker_cpu, None),
        ("ours (a child each)", ours_cpu, ours_wall),
    ):
        walls = f"; {wall:.1f} s wall, {wall / n * 1000:.2f} ms a check" if wall else ""
        print(f"{side}: {cpu:.1f} s CPU, {cpu / n * 1000:.2f} ms a check{walls}")
    for item in differ[:20]:
        print("differs:", *item)
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
