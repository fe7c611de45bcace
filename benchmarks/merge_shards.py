"""Shard reports for ``jsonmatch merge``: a synthetic suite of CASES golden-like cases split
into SHARDS shards, each shard's report written by the real report writer (``conclude`` and
``write_report``, as a shard's session does), stamped ``run.shard`` and recording the
settings and provenance a shard's session records (``fail_under 0.5``, so that merge judges
it without an option, one case file, one target's fingerprint).

    python benchmarks/merge_shards.py OUT_DIR [CASES] [SHARDS]
    /usr/bin/time -v jsonmatch merge OUT_DIR/shard-*.json -o OUT_DIR/run.json
    /usr/bin/time -v jsonmatch report OUT_DIR/run.json -o /dev/null   (the baseline)

The comparisons are real ones (``match_json`` over small invoices, one field in three
changed in some cases), so each carries its field records as a shard's report does.
"""

from __future__ import annotations

import os
import sys

from pytest_jsonmatch import match_json
from pytest_jsonmatch.reporting.run_model.comparisons import Comparison
from pytest_jsonmatch.reporting.verdicts.gates import GateSettings
from pytest_jsonmatch.reporting.verdicts.provenance import (
    golden_provenance,
    settings_provenance,
    target_provenance,
)
from pytest_jsonmatch.reporting.verdicts.report import conclude, not_decided, run_info, write_report
from pytest_jsonmatch.reporting.verdicts.versus import VersusSettings

GATES = GateSettings(fail_under=0.5)


def _case(i: int) -> Comparison:
    expected = {"id": i, "vendor": f"v{i % 37}", "total": i * 1.5, "items": [{"sku": i % 11}]}
    actual = dict(expected)
    if i % 3 == 0:
        actual["vendor"] = "other"
    result = match_json(actual, expected, metric="field_f1")
    case_id = f"golden/suite.yaml::case-{i:05d}"
    return Comparison.of_result(
        result,
        case_id=case_id,
        nodeid=case_id,
        threshold=0.8,
        passed=result.score >= 0.8,
        values="short",
        file="golden/suite.yaml",
        line=1 + 6 * i,
    )


def main(out: str, cases: int = 10_000, shards: int = 10) -> None:
    os.makedirs(out, exist_ok=True)
    for index in range(1, shards + 1):
        comparisons = [_case(i) for i in range(index - 1, cases, shards)]
        run = run_info(["pytest"], None, (), (index, shards))
        run["settings"] = settings_provenance(
            gates=GATES,
            versus=VersusSettings(),
            targets=[],
            baseline="",
            repeat="mean",
            defaults={"metric": "field_f1", "threshold": 0.8, "options": {}},
        )
        run["provenance"] = {
            **golden_provenance({"golden/suite.yaml": "ab" * 32}),
            "targets": {"": target_provenance({"llm.py": "cd" * 32}, {}, {"model": "m"})},
        }
        report, _ = conclude(
            comparisons,
            GATES,
            run,
            not_decided_why=not_decided(0, (index, shards)),
        )
        write_report(os.path.join(out, f"shard-{index}.json"), report)


if __name__ == "__main__":
    main(sys.argv[1], *(int(a) for a in sys.argv[2:4]))
