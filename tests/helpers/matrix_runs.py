"""The paths of the case-path matrix (tests/plugin/test_case_path_matrix.py): each runs the
matrix suite (tests/helpers/matrix_suite.py) one way, in real pytest and ``jsonmatch``
processes, in a copy of the suite of its own, and keeps what it ended with (an ``Outcome``).

Every runner takes a ``Workspace`` (one session configuration of the suite, built once, and
the one-process run it is held to) and returns the ``Outcome``. The paths run once, for the
whole module; the cells only read their outcomes.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tests.helpers.matrix_suite import CASE_FILES, SUITE_OF, TODAY
from tests.helpers.reports import read

# the inner sessions leave out what tests/helpers/plugin_cases.ARGS leaves out, and anyio's
# plugin, which the suite does not use (each session starts a little faster)
PYTEST = (
    sys.executable,
    "-m",
    "pytest",
    "-p",
    "no:cacheprovider",
    "-p",
    "no:hypothesispytest",
    "-p",
    "no:benchmark",
    "-p",
    "no:anyio",
)
JSONMATCH = (sys.executable, "-m", "pytest_jsonmatch")
STEP_TIMEOUT = 180  # seconds one process may take: a hang fails its path, never the session
SHARDS = 3
# what an outer run (CI, a GitHub runner, an xdist worker) sets that would change the inner ones
_OUTER = ("CI", "GITHUB_ACTIONS", "GITHUB_STEP_SUMMARY", "NO_COLOR", "FORCE_COLOR")


@dataclass(frozen=True)
class Step:
    """One process a path ran: its arguments, exit status and what it printed."""

    argv: tuple[str, ...]
    code: int
    out: str
    err: str


@dataclass
class Outcome:
    """What a path ended with: its processes, the JSON report it ends with (as the reader
    holds it; None where none was written), other reports it made by name, and texts it
    printed or rendered by name."""

    steps: list[Step] = field(default_factory=list)
    folder: Path | None = None
    report: Any = None
    reports: dict[str, Any] = field(default_factory=dict)
    texts: dict[str, str] = field(default_factory=dict)

    def step(self, name: str) -> Step:
        """The step whose arguments hold ``name`` (a flag or a command), the last such."""
        return [s for s in self.steps if any(name in a for a in s.argv)][-1]


def environment() -> dict[str, str]:
    """The inner processes' environment: the outer run's, without what CI runners, pytest and
    xdist set for the outer run, with the suite's fixed day (the quarantine's dates)."""
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in _OUTER and not k.startswith(("PYTEST_", "COV_"))
    }
    env.update(JSONMATCH_TODAY=TODAY, COLUMNS="80", PYTHONDONTWRITEBYTECODE="1")
    return env


class Workspace:
    """One session configuration of the suite: its pristine files (``pristine``), a scratch
    folder for the paths' copies, and the one-process run the paths are held to (set once it
    ran)."""

    def __init__(self, suite: str, pristine: Path, scratch: Path) -> None:
        self.suite, self.pristine, self.scratch = suite, pristine, scratch
        self.reference = Outcome()
        self.outcomes: dict[str, Future[Outcome]] = {}

    @property
    def kinds(self) -> list[str]:
        return [kind for kind in CASE_FILES if SUITE_OF[kind] == self.suite]

    def copy(self, name: str) -> Path:
        """A fresh copy of the suite for one path (each writes reports, recordings, case
        files of its own)."""
        folder = self.scratch / name
        shutil.copytree(self.pristine, folder)
        return folder

    def run(self, folder: Path, argv: tuple[str, ...], into: Outcome) -> Step:
        done = subprocess.run(
            argv,
            cwd=folder,
            env=environment(),
            capture_output=True,
            text=True,
            timeout=STEP_TIMEOUT,
            check=False,
        )
        step = Step(argv, done.returncode, done.stdout, done.stderr)
        into.steps.append(step)
        return step

    def pytest(self, folder: Path, into: Outcome, *args: str) -> Step:
        return self.run(folder, (*PYTEST, *args), into)

    def jsonmatch(self, folder: Path, into: Outcome, *args: str) -> Step:
        return self.run(folder, (*JSONMATCH, *args), into)


def _report(folder: Path, name: str) -> Any:
    path = folder / name
    return read(path) if path.is_file() else None


# -- the runners, one per path ---------------------------------------------------------------


def one_process(ws: Workspace) -> Outcome:
    """The whole suite in one process, every report format written: the run every other
    path is held to."""
    out, folder = Outcome(), ws.copy("one")
    step = ws.pytest(
        folder,
        out,
        "--jsonmatch-report=r.json",
        "--jsonmatch-report=r.md",
        "--jsonmatch-report=r.html",
        "--junitxml=junit.xml",
    )
    out.report = _report(folder, "r.json")
    out.texts["terminal"] = step.out
    for name, file in (("markdown", "r.md"), ("html", "r.html"), ("junit", "junit.xml")):
        out.texts[name] = (folder / file).read_text(encoding="utf-8")
    out.folder = folder
    return out


def workers(ws: Workspace) -> Outcome:
    """The whole suite under pytest-xdist, two workers."""
    out, folder = Outcome(), ws.copy("xdist")
    ws.pytest(folder, out, "-n", "2", "--jsonmatch-report=r.json")
    out.report = _report(folder, "r.json")
    return out


def shards_merged(ws: Workspace) -> Outcome:
    """Three shards as docs/ci.md's workflow runs them (pytest-split's ``--splits 3 --group
    i`` beside ``--jsonmatch-shard i/3``), then ``jsonmatch merge``."""
    out, folder = Outcome(), ws.copy("shards")
    names = []
    for i in range(1, SHARDS + 1):
        name = f"shard-{i}.json"
        ws.pytest(
            folder,
            out,
            *("--splits", str(SHARDS), "--group", str(i)),
            f"--jsonmatch-shard={i}/{SHARDS}",
            f"--jsonmatch-report={name}",
        )
        out.reports[name] = _report(folder, name)
        names.append(name)
    step = ws.jsonmatch(folder, out, "merge", *names, "-o", "run.json")
    out.report = _report(folder, "run.json") if step.code in (0, 1) else None
    return out


def record_replay(ws: Workspace) -> Outcome:
    """Recorded once (target outputs and the judge's verdicts), then replayed only."""
    out, folder = Outcome(), ws.copy("replay")
    ws.pytest(folder, out, "--jsonmatch-record=once", "--jsonmatch-report=recorded.json")
    out.reports["recorded"] = _report(folder, "recorded.json")
    ws.pytest(folder, out, "--jsonmatch-record=none", "--jsonmatch-report=r.json")
    out.report = _report(folder, "r.json")
    return out


def update_rerun(ws: Workspace) -> Outcome:
    """``--jsonmatch-update=all`` writes the outputs into the case files, then the suite runs
    again: ``report`` is the update's run, ``reports["rerun"]`` the run after it."""
    out, folder = Outcome(), ws.copy("update")
    step = ws.pytest(folder, out, "--jsonmatch-update=all", "--jsonmatch-report=u.json")
    out.texts["update"] = step.out
    out.report = _report(folder, "u.json")
    ws.pytest(folder, out, "--jsonmatch-report=r.json")
    out.reports["rerun"] = _report(folder, "r.json")
    out.texts["rerun"] = str(folder / "r.json")
    return out


def baseline_diff(ws: Workspace) -> Outcome:
    """The suite held to the one-process run's report as its baseline, then ``jsonmatch
    diff`` of the two reports."""
    out, folder = Outcome(), ws.copy("baseline")
    shutil.copy(Path(ws.reference.folder) / "r.json", folder / "base.json")
    step = ws.pytest(folder, out, "--jsonmatch-baseline=base.json", "--jsonmatch-report=r.json")
    out.texts["terminal"] = step.out
    out.report = _report(folder, "r.json")
    diff = ws.jsonmatch(folder, out, "diff", "base.json", "r.json", "--format", "json")
    out.texts["diff"] = diff.out
    return out


def compare_runs(ws: Workspace) -> Outcome:
    """``jsonmatch compare-runs`` of the one-process run and the run after the update (the
    cases the update rewrote are the ones that moved), every disagreeing case listed (-v);
    a run with named targets is also compared within itself."""
    out = Outcome()
    rerun = ws.outcomes["update"].result()
    folder = Path(ws.reference.folder)
    shutil.copy(rerun.texts["rerun"], folder / "after.json")
    step = ws.jsonmatch(
        folder,
        out,
        "compare-runs",
        "r.json",
        "after.json",
        "-v",
        "--name",
        "one",
        "--name",
        "after",
    )
    out.texts["runs"] = step.out
    out.reports["after"] = rerun.reports["rerun"]
    if ws.reference.report.get("targets"):
        out.texts["targets"] = ws.jsonmatch(folder, out, "compare-runs", "r.json", "-v").out
    return out


compare_runs.after = "update"  # type: ignore[attr-defined]


def report_json(ws: Workspace) -> Outcome:
    """The saved report rendered again as JSON by ``jsonmatch report``."""
    out, folder = Outcome(), Path(ws.reference.folder)
    step = ws.jsonmatch(folder, out, "report", "r.json", "--format", "json", "-o", "again.json")
    out.report = _report(folder, "again.json") if step.code in (0, 1) else None
    return out


def report_text(ws: Workspace) -> Outcome:
    """The saved report rendered as text by ``jsonmatch report``."""
    out, folder = Outcome(), Path(ws.reference.folder)
    step = ws.jsonmatch(folder, out, "report", "r.json", "--format", "text", "--color", "never")
    out.texts["text"] = step.out
    return out


def rendered(name: str) -> Callable[[Workspace], Outcome]:
    """A format the one-process run wrote itself (``--jsonmatch-report=r.md``, ``r.html``,
    ``--junitxml``, the terminal summary)."""

    def runner(ws: Workspace) -> Outcome:
        return Outcome(texts={name: ws.reference.texts[name]})

    runner.__name__ = f"rendered_{name}"
    return runner


def part_of_suite(ws: Workspace) -> Outcome:
    """The suite run in two parts, each naming its kinds' case files (docs/ci.md, Field
    floors: a run that names case files rather than folders is part of the suite): each
    part's report by its file's name, and ``texts[kind]`` the name of the part that ran it."""
    out, folder = Outcome(), ws.copy("part")
    halves = [ws.kinds[0::2], ws.kinds[1::2]]
    for n, kinds in enumerate(h for h in halves if h):
        name = f"part-{n}.json"
        files = (f"golden/{k}/cases.yaml" for k in kinds)
        ws.pytest(folder, out, *files, f"--jsonmatch-report={name}")
        out.reports[name] = _report(folder, name)
        out.texts.update(dict.fromkeys(kinds, name))
    return out


Runner = Callable[[Workspace], Outcome]


def run_all(workspaces: list[Workspace], runners: dict[str, Runner], width: int = 2) -> None:
    """Every path of every workspace, ``width`` processes at a time: the one-process runs
    first (the others are held to them), then the rest; a path that needs another's outcome
    waits for it (compare-runs reads the update's re-run)."""
    with ThreadPoolExecutor(max_workers=width) as pool:
        for ws, done in [(ws, pool.submit(runners["one_process"], ws)) for ws in workspaces]:
            ws.reference = done.result()
        # the paths that wait for another's outcome last, so that the one they wait for is
        # running or done before any worker waits
        later = sorted(runners, key=lambda name: hasattr(runners[name], "after"))
        for name in later:
            for ws in workspaces:
                if name != "one_process":
                    ws.outcomes[name] = pool.submit(runners[name], ws)
        for ws in workspaces:
            for future in ws.outcomes.values():
                future.exception()
