"""BFCL's multi-turn verdict, the complete differential run: every entry of the four
multi-turn categories (base, miss_func, miss_param, long_context) with every kind of model
output that tests/helpers/bfcl_multi_turn_entries.py makes, through BFCL's own
``multi_turn_checker`` and through ``bfcl_multi_turn_verdict``. Prints, per category and
kind, how many were checked, how many BFCL found valid, and how many verdicts (valid or not, and BFCL's error type) differ; the
entries left out (an environment that does not import here) are counted; and each side's
CPU time per check. The test suite runs a share of these (tests/engine/agents/
test_bfcl_multi_turn.py); this is the whole set, run by hand:

    python benchmarks/bfcl_multi_turn_full.py

BFCL is no dependency: ``pip install --no-deps bfcl-eval``.
"""

from __future__ import annotations

import collections
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from pytest_jsonmatch import bfcl_multi_turn_verdict  # noqa: E402
from tests.helpers.bfcl_multi_turn_entries import (  # noqa: E402
    CATEGORIES,
    KINDS,
    entries,
    loadable,
    output,
    theirs,
)


def main() -> int:
    counts: collections.Counter[tuple[str, str, str]] = collections.Counter()
    spent = {"bfcl": 0.0, "ours": 0.0}
    differ = []
    for category in CATEGORIES:
        for entry, truth in entries(category):
            if not loadable(entry):
                counts[(category, "*", "left out")] += 1
                continue
            for kind in KINDS:
                turns = output(entry, truth, kind)
                start = time.process_time()
                expected, problem = theirs(entry, turns, truth)
                middle = time.process_time()
                verdict = bfcl_multi_turn_verdict(entry, turns, truth)
                spent["bfcl"] += middle - start
                spent["ours"] += time.process_time() - middle
                counts[(category, kind, "checked")] += 1
                counts[(category, kind, "valid")] += expected is True
                if (verdict.valid, verdict.problem) != (expected, problem):
                    counts[(category, kind, "differ")] += 1
                    differ.append((entry["id"], kind, expected, problem, verdict.valid))
    checks = sum(n for (_, _, what), n in counts.items() if what == "checked")
    print(f"{'category':<14}{'kind':<13}{'checked':>8}{'valid':>7}{'differ':>7}")
    for category in CATEGORIES:
        for kind in KINDS:
            row = [counts[(category, kind, what)] for what in ("checked", "valid", "differ")]
            print(f"{category:<14}{kind:<13}{row[0]:>8}{row[1]:>7}{row[2]:>7}")
        print(f"{category:<14}{'(left out)':<13}{counts[(category, '*', 'left out')]:>8}")
    print(f"checks: {checks}; verdicts that differ: {len(differ)}")
    for side, seconds in spent.items():
        print(f"{side}: {seconds:.1f} s CPU, {seconds / max(checks, 1) * 1000:.2f} ms a check")
    for item in differ[:20]:
        print("differs:", *item)
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
