"""A case has one id in every place, whatever targets a run selected, and a baseline that
shares too few cases fails (issue 51, item 1; reporting/verdicts/case_matching.py).

Against real parts: the two HTTP "models" of test_targets.py on 127.0.0.1, called through
httpx by the targets; ``jsonmatch diff`` and ``compare-runs`` run as the user runs them."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

pytest.importorskip("httpx")

from tests.helpers.http_models import serving
from tests.helpers.plugin_cases import ARGS
from tests.plugin.golden.test_targets import (
    CHEAP_DELAY,
    TODAY_DELAY,
    _Model,
    _report,
    _run,
    _suite,
)

pytestmark = pytest.mark.slow  # (CONTRIBUTING.md: the inner loop leaves it out)


@pytest.fixture
def models():
    """The models of test_targets.py: ``today`` right every time, ``cheap`` lowercasing
    ACME and Zeta."""
    servers = {"today": _Model(TODAY_DELAY), "cheap": _Model(CHEAP_DELAY, {"ACME", "Zeta"})}
    with serving(*servers.values()):
        yield servers


def _cli(pytester, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "pytest_jsonmatch", *args],
        cwd=pytester.path,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_a_one_target_run_pairs_with_that_targets_cases_of_a_two_target_baseline(pytester, models):
    _suite(pytester, models)
    _run(pytester)  # both targets: the baseline
    (pytester.path / "main.json").write_text((pytester.path / "r.json").read_text())
    result = _run(pytester, "--jsonmatch-targets=today", "--jsonmatch-baseline=main.json")
    # today's 4 cases and the given answer, each paired with the baseline's own
    result.assert_outcomes(passed=5)
    assert result.ret == 0
    report = _report(pytester)
    section = report["baseline"]
    assert (section["compared"], section["shared"]) == (5, 5)
    assert (section["added"], section["removed"]) == ([], [])
    assert section["paired"] == (
        "4 of the baseline's cases of target cheap not compared (the other run did not run it)"
    )
    # the ids the report's cases carry are those of the baseline section and the gate lines
    ids = {c["case_id"] for c in report["cases"]}
    assert "inv.jsonmatch.yaml::c1[today]" in ids
    assert section["changed"] == []
    assert any("over 5 shared cases" in line for line in report["gates"]["checked"])


def test_a_two_target_run_pairs_the_target_a_one_target_baseline_ran(pytester, models):
    _suite(pytester, models, "jsonmatch_reference = today\njsonmatch_gates = max_case_drop=1\n")
    _run(pytester, "--jsonmatch-targets=cheap")
    (pytester.path / "main.json").write_text((pytester.path / "r.json").read_text())
    _run(pytester, "--jsonmatch-baseline=main.json")
    section = _report(pytester)["baseline"]
    assert (section["shared"], section["added"], section["removed"]) == (5, [], [])
    assert section["paired"] == (
        "4 of this run's cases of target today not compared (the other run did not run it)"
    )


def test_a_baseline_sharing_no_case_fails_the_gate_and_says_why(pytester, models):
    _suite(pytester, models)
    _run(pytester, "--jsonmatch-targets=today")
    (pytester.path / "main.json").write_text((pytester.path / "r.json").read_text())
    # the same suite from a moved case file: no id is shared
    (pytester.path / "inv.jsonmatch.yaml").rename(pytester.path / "moved.jsonmatch.yaml")
    result = _run(pytester, "--jsonmatch-targets=today", "--jsonmatch-baseline=main.json")
    result.assert_outcomes(passed=5)
    assert result.ret == 1  # every test passed: the gate fails the run
    at = result.outlines.index("FAILED: jsonmatch gates: 1 failure")
    assert result.outlines[at + 1].endswith(
        "main.json shares 0 of this run's 5 cases, fewer than the 50% a "
        "verdict against it needs: the case ids differ, e.g. this run's "
        "'moved.jsonmatch.yaml::c1[today]' and the baseline's "
        "'inv.jsonmatch.yaml::c1[today]' (case files moved, renamed, or collected from "
        "another folder?)"
    )
    assert not any("gates passed" in line for line in result.outlines)
    # jsonmatch diff and compare-runs of the two reports say so too, and exit 1
    diff = _cli(pytester, "diff", "main.json", "r.json")
    assert diff.returncode == 1, diff.stdout + diff.stderr
    assert "shares 0 of this run's 5 cases" in diff.stdout
    runs = _cli(pytester, "compare-runs", "main.json", "r.json")
    assert runs.returncode == 1
    assert (
        "jsonmatch compare-runs: run r.json shares 0 of its 5 cases with run main.json, "
        "fewer than the 50% a comparison needs" in runs.stderr
    )


def test_targets_run_apart_pair_in_diff_across_their_targets(pytester, models):
    _suite(pytester, models)
    for name in ("today", "cheap"):
        pytester.runpytest_inprocess(
            *ARGS, f"--jsonmatch-targets={name}", f"--jsonmatch-report={name}.json"
        )
    diff = _cli(pytester, "diff", "today.json", "cheap.json", "-f", "json", "--max-drop", "1")
    assert diff.stdout, diff.stderr
    section = json.loads(diff.stdout)["baseline"]
    assert (section["shared"], section["compared"]) == (5, 5)
    assert section["paired"] == "this run's target cheap paired with the baseline's target today"


def test_a_jsonmatch_score_report_pairs_with_a_pytest_report_by_its_id_field(pytester):
    # the same two cases, scored by pytest from a case file and by jsonmatch score from
    # JSONL records whose "id" holds the pytest case id (docs/ci.md says so)
    (pytester.path / "inv.jsonmatch.yaml").write_text(
        "cases:\n"
        '  - id: a\n    expected: {vendor: ACME}\n    actual: \'{"vendor": "ACME"}\'\n'
        '  - id: b\n    expected: {vendor: Blue}\n    actual: \'{"vendor": "Blue"}\'\n'
    )
    pytester.runpytest_inprocess(*ARGS, "--jsonmatch-report=main.json").assert_outcomes(passed=2)
    gold = [
        {"id": f"inv.jsonmatch.yaml::{c}", "vendor": v} for c, v in (("a", "ACME"), ("b", "Blue"))
    ]
    pred = [dict(gold[0]), {**gold[1], "vendor": "blue"}]
    for name, records in (("gold.jsonl", gold), ("pred.jsonl", pred)):
        (pytester.path / name).write_text("".join(json.dumps(r) + "\n" for r in records))
    scored = _cli(
        pytester, "score", "gold.jsonl", "pred.jsonl", "--id-field", "id", "--report", "s.json"
    )
    assert scored.returncode in (0, 1), scored.stderr
    diff = _cli(pytester, "diff", "main.json", "s.json", "-f", "json", "--max-drop", "1")
    section = json.loads(diff.stdout)["baseline"]
    assert (section["shared"], section["added"], section["removed"]) == (2, [], [])
