"""docs/cli.md's Dask example, run as written on Dask's local scheduler (worker processes):
the same numbers, to the last bit, as jsonmatch score on the same pairs."""

from __future__ import annotations

import contextlib
import io
import json
import re

from .run import ROOT, jsonmatch
from .test_score import dataset, write_jsonl


def dask_example() -> str:
    text = (ROOT / "docs" / "cli.md").read_text(encoding="utf-8")
    found = re.search(r"<!-- dask-example[^>]*-->\n```python\n(.*?)```", text, re.S)
    assert found, "docs/cli.md lost its Dask example"
    return found.group(1)


def test_the_dask_example_gives_the_single_process_numbers(tmp_path, monkeypatch):
    gold, pred = dataset(1000, seed=5)
    write_jsonl(
        tmp_path / "pairs.jsonl", [{"expected": g, "actual": p} for g, p in zip(gold, pred)]
    )
    monkeypatch.chdir(tmp_path)
    out = io.StringIO()
    namespace: dict = {}
    with contextlib.redirect_stdout(out):
        exec(compile(dask_example(), "docs/cli.md", "exec"), namespace)  # noqa: S102
    assert namespace["pairs"].npartitions > 1  # the example really is partitioned
    summary = namespace["summary"]

    proc = jsonmatch(
        "score",
        str(write_jsonl(tmp_path / "g.jsonl", gold)),
        str(write_jsonl(tmp_path / "p.jsonl", pred)),
        "--threshold",
        "0.8",
        "--format",
        "json",
    )
    report = json.loads(proc.stdout)
    assert summary.overall == report["overall"]  # exact, not approximately
    assert (summary.count, summary.errors) == (report["count"], report["errors"])
    assert (summary.count, summary.errors) == (
        1000,
        sum(isinstance(p, str) and p.startswith("Sorry") for p in pred),
    )
    assert {name: t.to_dict() for name, t in summary.metrics.items()} == report["metrics"]
    assert {path: f.to_dict() for path, f in summary.fields.items()} == report["fields"]
    assert f"overall {report['overall']:.4f} over 1000 records" in out.getvalue()
