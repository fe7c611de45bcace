"""A GitHub Actions workflow the docs show, run here as GitHub would run its job: on one
event, its steps in order, each ``if:`` judged, each ``run:`` by bash in the job's folder.

What GitHub's side gives, this runner gives too: the ``python``, ``python3`` and ``pytest``
commands are this test's interpreter (the steps that install are left out: the project is
installed already), ``gh`` is tests/helpers/fake_gh.py over the runs and artifacts this
runner recorded, and ``actions/upload-artifact`` keeps the file it names under the run's id.
``actions/checkout`` and ``actions/setup-python`` do nothing (the folder is the checkout).
Anything else (another action, an expression this runner cannot judge) fails the test that
ran it, so a workflow is never passed without being read.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from tests.helpers.plugin_cases import ARGS

FAKE_GH = Path(__file__).with_name("fake_gh.py")
INSTALLS = re.compile(r"^\s*(python3? -m )?pip install\b")
EXPRESSION = re.compile(r"\$\{\{\s*(.*?)\s*\}\}")
EVENT_TEST = re.compile(r"github\.event_name\s*(==|!=)\s*'([a-z_]+)'")
STATUS_CHECKS = {"always()", "success()", "failure()", "cancelled()"}
TOKENS = {"github.token", "secrets.GITHUB_TOKEN"}
BRANCHES = {"push": "main", "pull_request": "a-change"}  # the branch each event runs on


def workflow_in(page: Path, name: str) -> str:
    """The ```yaml block of ``page`` whose first line is ``# .github/workflows/<name>``."""
    text = page.read_text(encoding="utf-8")
    fence = re.compile(r"^```yaml\n(# \.github/workflows/(\S+)\n.*?)^```$", re.M | re.S)
    found = [block[1] for block in fence.finditer(text) if block[2] == name]
    assert len(found) == 1, f"{page.name} shows {len(found)} workflows {name!r}, not one"
    return found[0]


def load_workflow(text: str) -> dict[str, Any]:
    """The workflow as GitHub reads it: YAML 1.1 reads the key ``on`` as true."""
    workflow: dict[Any, Any] = yaml.safe_load(text)
    if True in workflow:
        workflow["on"] = workflow.pop(True)
    return workflow


def condition_holds(expression: str | None, event: str, failed: bool) -> bool:
    """A step's ``if:``: terms joined by ``&&``, each a status check or a test of
    ``github.event_name``; without a status check, ``success()`` is implied (GitHub's rule)."""
    if expression is None:
        return not failed
    inner = EXPRESSION.fullmatch(expression.strip())
    terms = [t.strip() for t in (inner[1] if inner else expression).split("&&")]
    holds = True
    checked = False
    for term in terms:
        test = EVENT_TEST.fullmatch(term)
        if test:
            holds &= (event == test[2]) == (test[1] == "==")
            continue
        assert term in STATUS_CHECKS, f"the runner cannot judge the condition {term!r}"
        checked = True
        holds &= {"always()": True, "success()": not failed, "failure()": failed}.get(term, False)
    return holds and (checked or not failed)


def runs_on(workflow: dict[str, Any], event: str) -> bool:
    """Whether the workflow runs on ``event`` (a push runs on main)."""
    triggers = workflow["on"]
    if isinstance(triggers, (str, list)):
        return event in ([triggers] if isinstance(triggers, str) else triggers)
    if event not in triggers:
        return False
    branches = (triggers[event] or {}).get("branches")
    return branches is None or BRANCHES[event] in branches


@dataclass
class Step:
    what: str  # the command, or the action
    ran: bool
    status: int = 0
    output: str = ""


@dataclass
class JobRun:
    run_id: int
    event: str
    steps: list[Step] = field(default_factory=list)

    @property
    def failed(self) -> bool:
        return any(step.ran and step.status != 0 for step in self.steps)

    def ran(self, pattern: str) -> Step:
        """The one step run whose command holds ``pattern``."""
        found = [s for s in self.steps if s.ran and re.search(pattern, s.what)]
        assert len(found) == 1, f"{len(found)} steps run match {pattern!r}: {self.steps}"
        return found[0]


class GitHub:
    """Runs jobs of one workflow file, keeping their runs and artifacts in ``home``."""

    def __init__(self, home: Path, workflow_file: str) -> None:
        self.home = home
        self.workflow_file = workflow_file
        self.state = home / "github"
        (self.state / "artifacts").mkdir(parents=True)
        self.bin = home / "bin"
        self.bin.mkdir()
        python = shlex.quote(sys.executable)
        shims = {
            "python": f'exec {python} "$@"',
            "python3": f'exec {python} "$@"',
            # the test dependencies' plugins left out, as in every inner session (ARGS): half a
            # second a session
            "pytest": f"exec {python} -m pytest {' '.join(ARGS)} " + '"$@"',
            "gh": f'exec {python} {shlex.quote(str(FAKE_GH))} "$@"',
        }
        for name, line in shims.items():
            shim = self.bin / name
            shim.write_text(f"#!/bin/sh\n{line}\n")
            shim.chmod(0o755)
        self.runs: list[dict[str, object]] = []

    def run(self, workflow: dict[str, Any], event: str, work: Path) -> JobRun:
        """The workflow's one job on ``event`` in the checkout ``work``, recorded as a
        completed run of this workflow file."""
        assert runs_on(workflow, event), f"the workflow does not run on {event}"
        (name, job), *others = workflow["jobs"].items()
        assert not others, f"a single job, not {len(others) + 1}"
        run = JobRun(len(self.runs) + 1, event)
        env = self.environment(workflow, job)
        for step in job["steps"]:
            if not condition_holds(step.get("if"), event, run.failed):
                run.steps.append(Step(step.get("run") or step["uses"], ran=False))
            elif "uses" in step:
                run.steps.append(self._action(step, run, work))
            else:
                run.steps.append(self._command(step, env, work))
        self._record(run)
        return run

    def environment(self, workflow: dict[str, Any], job: dict[str, Any]) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_", "COLUMNS"))}
        env.update(
            PATH=f"{self.bin}{os.pathsep}{env.get('PATH', '')}",
            COLUMNS="80",
            GITHUB_ACTIONS="true",
            GITHUB_STEP_SUMMARY=str(self.home / "step-summary.md"),
            FAKE_GH_STATE=str(self.state),
            FAKE_GH_PERMISSIONS=json.dumps(job.get("permissions", workflow.get("permissions"))),
        )
        return env

    def _command(self, step: dict[str, Any], env: dict[str, str], work: Path) -> Step:
        command = step["run"]
        if INSTALLS.match(command):
            return Step(command, ran=False)
        assert not EXPRESSION.search(command), f"a command holds an expression: {command!r}"
        step_env = {**env, **{k: _value(v) for k, v in (step.get("env") or {}).items()}}
        done = subprocess.run(
            ["bash", "-e", "-c", command],  # GitHub's shell for a step that names none
            cwd=work,
            env=step_env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            timeout=120,
        )
        return Step(command, ran=True, status=done.returncode, output=done.stdout)

    def _action(self, step: dict[str, Any], run: JobRun, work: Path) -> Step:
        action = step["uses"].partition("@")[0]
        if action in ("actions/checkout", "actions/setup-python"):
            return Step(step["uses"], ran=True)
        assert action == "actions/upload-artifact", f"the runner has no action {action!r}"
        name, path = step["with"]["name"], step["with"]["path"]
        kept = self.state / "artifacts" / str(run.run_id) / name
        kept.mkdir(parents=True)
        if (work / path).is_file():  # else GitHub warns (if-no-files-found: warn)
            shutil.copy2(work / path, kept / Path(path).name)
        return Step(f"{step['uses']} {name}: {path}", ran=True)

    def _record(self, run: JobRun) -> None:
        self.runs.append(
            {
                "databaseId": run.run_id,
                "workflow": self.workflow_file,
                "headBranch": BRANCHES[run.event],
                "event": run.event,
                "status": "completed",
                "conclusion": "failure" if run.failed else "success",
            }
        )
        (self.state / "runs.json").write_text(json.dumps(self.runs), encoding="utf-8")


def _value(text: object) -> str:
    """An ``env:`` value: the job's token stands for ``${{ github.token }}``."""

    def token(found: re.Match[str]) -> str:
        assert found[1] in TOKENS, f"the runner cannot judge the expression {found[0]!r}"
        return "a-token-of-this-run"

    return EXPRESSION.sub(token, str(text))
