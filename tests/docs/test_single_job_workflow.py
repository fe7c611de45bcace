"""The README's single-job GitHub Actions workflow, copied and run as written (issue 75,
item 2): its steps in order on a push to main, then on pull requests, each ``run:`` by bash
with the real pytest and the README's gate line, ``gh`` answered from the runs this test made
(tests/helpers/workflow_runs.py).

The scenario is the issue's: twelve golden support e-mails; main's run keeps its report; a
pull request that makes ``sentiment`` wrong in 3 of them (1.00 -> 0.75, every test still
passing) fails, one that changes nothing passes, and one that more than doubles the suite
fails the overlap rule with a message that says what to do, which the committed-baseline
recipe then does.
"""

from __future__ import annotations

import copy
import json
import re
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.helpers import reports
from tests.helpers.workflow_runs import (
    GitHub,
    JobRun,
    condition_holds,
    load_workflow,
    runs_on,
    workflow_in,
)

# five pytest sessions, about 2 s each (CONTRIBUTING.md: the inner loop leaves it out)
pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
CI = ROOT / "docs" / "ci.md"
WORKFLOW_FILE = "golden.yml"
NEW_BASELINE = "A suite that more than doubles"  # docs/ci.md's section, as the message names it


def readme_gate_line() -> str:
    """The ``jsonmatch_gates`` line of the README's ini block: the gate its reader copies."""
    (line,) = re.findall(r"^jsonmatch_gates = .*$", README.read_text(encoding="utf-8"), re.M)
    return line


def emails(count: int = 12, wrong_sentiment: int = 0) -> str:
    """A golden file of support e-mails, its answers right but for ``sentiment`` in the
    first ``wrong_sentiment`` cases: each such case still passes its threshold."""
    lines = ["threshold: 0.8", "cases:"]
    for k in range(count):
        expected = {
            "customer": {"name": f"Customer {k}"},
            "order_id": f"ORD-{1000 + k}",
            "items": [{"sku": f"SKU-{k % 5}", "qty": 1 + k % 3}],
            "refund_amount": 10.0 + k,
            "sentiment": "negative",
        }
        actual = {**expected, "sentiment": "positive" if k < wrong_sentiment else "negative"}
        lines += [
            f"  - id: email-{k:02d}",
            f"    expected: {json.dumps(expected)}",
            f"    actual: {json.dumps(json.dumps(actual))}",
        ]
    return "\n".join(lines) + "\n"


def checkout(where: Path, golden: str) -> Path:
    """A repository as the reader has it: pytest.ini with the README's gate line, one golden
    file."""
    (where / "golden").mkdir(parents=True)
    (where / "pytest.ini").write_text(
        f"[pytest]\njsonmatch_golden = golden\n{readme_gate_line()}\n", encoding="utf-8"
    )
    (where / "golden" / "support.yaml").write_text(golden, encoding="utf-8")
    return where


@pytest.fixture(scope="module")
def workflow() -> dict[str, Any]:
    return load_workflow(workflow_in(README, WORKFLOW_FILE))


@pytest.fixture(scope="module")
def github(tmp_path_factory: pytest.TempPathFactory, workflow: dict[str, Any]) -> GitHub:
    """GitHub after one push to main: its run kept main's report as an artifact."""
    home = tmp_path_factory.mktemp("github")
    github = GitHub(home, WORKFLOW_FILE)
    main = github.run(workflow, "push", checkout(home / "main", emails()))
    assert not main.failed, main.steps
    assert (github.state / "artifacts" / "1").is_dir()
    return github


def pull_request(github: GitHub, workflow: dict[str, Any], work: Path, golden: str) -> JobRun:
    return github.run(workflow, "pull_request", checkout(work, golden))


def test_the_workflow_runs_on_pull_requests_and_main_with_the_token_gh_needs(
    workflow: dict[str, Any],
):
    assert runs_on(workflow, "pull_request") and runs_on(workflow, "push")
    assert workflow["permissions"] == {"contents": "read", "actions": "read"}
    (job,) = workflow["jobs"].values()
    uploads = [s for s in job["steps"] if s.get("uses", "").startswith("actions/upload-artifact")]
    (upload,) = uploads
    # main keeps its report even when its tests fail, and only main uploads one
    assert condition_holds(upload["if"], "push", failed=True)
    assert not condition_holds(upload["if"], "pull_request", failed=False)
    # the pull request asks for that artifact of this workflow's runs on main
    download = next(s for s in job["steps"] if "gh run download" in s.get("run", ""))
    assert f"--name {upload['with']['name']}" in download["run"]
    assert f"--workflow {WORKFLOW_FILE}" in download["run"]
    assert "GH_TOKEN" in {**job.get("env", {}), **download.get("env", {})}


def test_without_actions_read_a_pull_request_cannot_fetch_mains_report(
    github: GitHub, workflow: dict[str, Any], tmp_path: Path
):
    """The permission the README grants is the one the download needs (GitHub's answer
    without it), and a failed download stops the step before pytest runs."""
    bare = copy.deepcopy(workflow)
    bare["permissions"] = {"contents": "read"}
    run = pull_request(github, bare, tmp_path / "change", emails())
    fetch = run.ran("gh run download")
    assert fetch.status == 1
    assert "HTTP 403: Resource not accessible by integration" in fetch.output
    assert "passed" not in fetch.output  # pytest never ran


def test_a_pull_request_that_makes_a_field_worse_fails(
    github: GitHub, workflow: dict[str, Any], tmp_path: Path
):
    run = pull_request(github, workflow, tmp_path / "change", emails(wrong_sentiment=3))
    held = run.ran("--jsonmatch-baseline")
    assert held.status == 1, held.output
    assert "12 passed" in held.output  # every test passed: the gate failed the run
    assert "field sentiment (field_f1): mean score dropped by 0.2500 (1.0000 -> 0.7500" in (
        held.output
    )
    assert not any("upload-artifact" in s.what for s in run.steps if s.ran)


def test_a_pull_request_that_changes_nothing_passes(
    github: GitHub, workflow: dict[str, Any], tmp_path: Path
):
    run = pull_request(github, workflow, tmp_path / "change", emails())
    held = run.ran("--jsonmatch-baseline")
    assert not run.failed, held.output
    assert "12 cases shared, 0 added, 0 removed" in held.output


def test_a_suite_that_more_than_doubles_is_told_to_make_a_new_baseline_first(
    github: GitHub, workflow: dict[str, Any], tmp_path: Path
):
    run = pull_request(github, workflow, tmp_path / "change", emails(count=25))
    held = run.ran("--jsonmatch-baseline")
    assert held.status == 1, held.output
    said = " ".join(held.output.split())
    assert "shares 12 of this run's 25 cases, fewer than the 50%" in said
    assert "make a new baseline first" in said
    assert f"(docs/ci.md: {NEW_BASELINE.lower()})" in said
    # the recipe it points at, with a committed baseline: refreshed with the new cases, run
    # as the README shows it in a git checkout; CI's command then is the workflow's, which
    # the other pull requests here run against a baseline of every case they hold
    refresh, held_by_ci = committed_recipe()
    assert held_by_ci == held.what.splitlines()[-1].strip()
    work = tmp_path / "change"
    subprocess.run(["git", "init", "-q"], cwd=work, check=True, timeout=60)
    done = subprocess.run(
        ["bash", "-e", "-c", refresh],
        cwd=work,
        env=github.environment(workflow, {}),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, f"$ {refresh}\n{done.stdout}{done.stderr}"
    staged = subprocess.run(
        ["git", "diff", "--cached", "--name-only"], cwd=work, capture_output=True, text=True
    )
    assert staged.stdout.split() == ["jsonmatch-main.json"]
    assert len(reports.read(work / "jsonmatch-main.json")["comparisons"]) == 25
    # docs/ci.md's recipe quotes this message and gives this refresh
    section = CI.read_text(encoding="utf-8").split(f"### {NEW_BASELINE}", 1)[1]
    (quoted,) = re.findall(r"^```\n(baseline .*?)\n```$", section, re.M)
    assert quoted.split(" shares ", 1)[1] in said
    assert refresh in " ".join(section.split())


def committed_recipe() -> list[str]:
    """The README's committed-baseline commands: the refresh, then what CI runs."""
    text = README.read_text(encoding="utf-8")
    paragraph = text[text.index("Or commit the baseline") :].split("\n\n", 1)[0]
    spans = [" ".join(span.split()) for span in re.findall(r"`([^`]+)`", paragraph)]
    (refresh,) = [span for span in spans if "--jsonmatch-report=" in span]
    (held,) = [span for span in spans if "--jsonmatch-baseline=" in span]
    return [refresh, held]
