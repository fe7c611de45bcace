"""Every kind of case through every path (issue 73, item 1): one golden suite holding each
kind of case (tests/helpers/matrix_suite.py), run once per path in real pytest and
``jsonmatch`` processes (tests/helpers/matrix_runs.py), and a cell per kind and path that
holds the path's figures of the kind to the one-process run's, figure by figure, and its
outcome to be clean: no refusal of an honest input, no warning of a silent skip, the exit
status its report says (tests/helpers/matrix_checks.py).

The rows are the kinds of case (KINDS) and, per session configuration, the whole run (its
overall score, metrics, field tables, gates, reliability and targets: one kind's seam in a
run-wide figure reddens that row, not every kind's). The columns are the paths (PATHS). A new
kind is a folder in the suite and a line of KINDS; a new path a runner, a check and a line of
PATHS; the product makes their cells, and ``test_the_tables_are_complete`` refuses a kind
without its case file or a path without its runner.

The cells that are red today are marked in RED, each with its reason: a strict xfail, so
that a fix turns the cell into an XPASS failure, and the mark must then go.
"""

from __future__ import annotations

import fcntl
import os
import pickle
from collections.abc import Iterator
from dataclasses import dataclass, field

import pytest

from tests.helpers import matrix_checks as checks
from tests.helpers import matrix_runs as runs
from tests.helpers.http_models import serving
from tests.helpers.judge_server import JudgeServer
from tests.helpers.matrix_suite import (
    CASE_FILES,
    SAME_MEANING,
    SUITE_OF,
    SUITES,
    build,
    trace_file,
)

pytestmark = pytest.mark.slow  # (CONTRIBUTING.md: the inner loop leaves it out)


@dataclass(frozen=True)
class Kind:
    """A kind of case: what it is, and the cases ``--jsonmatch-update=all`` rewrites, each
    (its test's name) with its score in the run after the update."""

    what: str
    updated: dict[str, float] = field(default_factory=dict)


# The rows: each kind's folder in the suite (matrix_suite.CASE_FILES). The scores after the
# update, worked out by hand:
KINDS = {
    "plain": Kind("a plain `actual`", {"misread": 1.0}),
    "input": Kind("`input` through a target", {"invented": 1.0}),
    # wrong_date: its answer rewritten (3 rows, all match); its call keeps the wrong date
    # (3 rows, 2 match): (3 * 1 + 3 * 2/3) / 6 = 5/6. chatty: its answer rewritten (the
    # note: 1 row); its call keeps the seat made up (4 rows, F1 6/7): (1 + 4 * 6/7) / 5 = 31/35
    "reply": Kind(
        "a reply: `expected` and `expected_calls`", {"wrong_date": 5 / 6, "chatty": 31 / 35}
    ),
    # cancel, a tool-only reply, is left as it is (an update writes no `expected:` into it,
    # and a reply's `expected_calls` are never rewritten); weather: its calls rewritten
    "tool_only": Kind("a tool-only reply", {"weather": 1.0}),
    # rome: its answer was right already, so an update has nothing to write (the run and
    # the state are never rewritten): it scores 8/11 after, as before, and is not updated
    "run": Kind("a run: `expected_run`, `expected_state` and `expected`"),
    "judged": Kind("a field the `semantic` judge decides", {"different": 1.0}),
    # flaky's first run scores 1.0: update=all leaves the case as it is
    "repeated": Kind("a repeated case (`repeat: 3`, pass^k)"),
    "quarantined": Kind("a quarantined case", {"vat_split": 1.0}),
    # the fields the xfail names are never written: known is left as it is; regressed has
    # its date rewritten and still fails at flight_number alone, an expected failure (2/3)
    "xfail_fields": Kind("an xfail that names its fields", {"regressed": 2 / 3}),
    # the reference's outputs are written: zeta[base] 1.0; zeta[cand] (vendor matches, its
    # total does not, the note now expected is omitted): precision 1/2, recall 1/3, F1 0.4
    "targets": Kind(
        "named targets with a reference (model comparison)", {"zeta[base]": 1.0, "zeta[cand]": 0.4}
    ),
    # a conversation's update writes each turn's expected answer (never its steps nor the
    # state). misread_order: turn 1's answer takes the order the agent read (4312); after,
    # turn 0's answer (1 row) and turn 1's (2 rows) match, turn 1's step (2 rows: its name
    # matches, its order not) 1 of 2, the state (1 row) wrong: (1 + 2 + 1 + 0) / 6 = 2/3
    "conversation": Kind(
        "a scripted conversation: its turns and its end state", {"misread_order": 2 / 3}
    ),
    # rome: its answer rewritten from the run its trace holds ({city: Rome, temp: 3}); its
    # step was right already: 1.0 after. oslo and bergen (its tool failed, its step and
    # answer as expected) were right: left as they are
    "trace": Kind("a run read from a trace file (`actual_file` with `trace:`)", {"rome": 1.0}),
    # each case's first run (Oslo's) scores 1.0 and neither gives expected: left as they are
    "scenario": Kind("a scenario's runs in one trace file (`runs: each`, pass^k)"),
}


@dataclass(frozen=True)
class Path:
    """A path: how the suite is run (its runner) and what its cell holds (its check)."""

    what: str
    runner: runs.Runner
    check: checks.Check


# The columns.
PATHS = {
    "one_process": Path("one pytest process", runs.one_process, checks.check_one_process),
    "xdist": Path("pytest -n 2", runs.workers, checks.check_same),
    "shards_merged": Path(
        "three shards (pytest-split) and jsonmatch merge", runs.shards_merged, checks.check_merge
    ),
    "record_replay": Path("recorded, then replayed", runs.record_replay, checks.check_replay),
    "update": Path("--jsonmatch-update=all, then a run", runs.update_rerun, checks.check_update),
    "baseline_diff": Path(
        "a baseline and jsonmatch diff", runs.baseline_diff, checks.check_baseline
    ),
    "compare_runs": Path("jsonmatch compare-runs", runs.compare_runs, checks.check_compare_runs),
    "json": Path("jsonmatch report --format json", runs.report_json, checks.check_report_json),
    "markdown": Path("the Markdown report", runs.rendered("markdown"), checks.check_markdown),
    "html": Path("the HTML report", runs.rendered("html"), checks.check_html),
    "junit": Path("JUnit XML", runs.rendered("junit"), checks.check_junit),
    "text": Path("jsonmatch report --format text", runs.report_text, checks.check_text),
    "terminal": Path("the terminal summary", runs.rendered("terminal"), checks.check_terminal),
    "part": Path("a run of part of the suite", runs.part_of_suite, checks.check_part),
}

# The rows: every kind, and the whole run of each session configuration.
ROWS = {
    **{kind: checks.Row(SUITE_OF[kind], kind, k.updated) for kind, k in KINDS.items()},
    **{f"{suite} run": checks.Row(suite) for suite in SUITES},
}

# The cells red today, each with why (issue 73's items, or a seam this matrix found): none
# now. A cell found red is listed here, each with its reason, until its fix lands.
RED: dict[tuple[str, str], str] = {}


def _cells() -> Iterator[object]:
    for row in ROWS:
        for path in PATHS:
            reason = RED.get((row, path))
            marks = [pytest.mark.xfail(strict=True, reason=reason)] if reason else []
            yield pytest.param(row, path, marks=marks, id=f"{row}-{path}")


@pytest.fixture(scope="module")
def outcomes(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, runs.Outcome]]:
    """Every path run once over the suite, once for the whole session: under xdist the first
    worker to ask runs them and leaves them pickled where the others read them (each worker
    running them all would double the module's cost)."""
    shared = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        shared = shared.parent  # (the workers' base folders share their parent)
    done = shared / "case-path-matrix.pickle"
    with open(shared / "case-path-matrix.lock", "a+b") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # (the others wait while the first runs them)
        if done.exists():
            with open(done, "rb") as handle:
                found: dict[str, dict[str, runs.Outcome]] = pickle.load(handle)
            return found
        made = _run_every_path(tmp_path_factory)
        with open(done.with_suffix(".part"), "wb") as handle:
            pickle.dump(made, handle)
        done.with_suffix(".part").replace(done)
        return made


def _run_every_path(
    tmp_path_factory: pytest.TempPathFactory,
) -> dict[str, dict[str, runs.Outcome]]:
    """Every path run over the suite, the judge's server up while they run."""
    judge = JudgeServer()
    judge.same.update(frozenset(pair) for pair in SAME_MEANING)
    root = tmp_path_factory.mktemp("matrix")
    workspaces = []
    with serving(judge):
        for suite in SUITES:
            (root / suite).mkdir()
            workspaces.append(
                runs.Workspace(suite, build(root / "suites", suite, judge.url), root / suite)
            )
        runs.run_all(workspaces, {name: p.runner for name, p in PATHS.items()})
    return {
        ws.suite: {"one_process": ws.reference} | {n: f.result() for n, f in ws.outcomes.items()}
        for ws in workspaces
    }


@pytest.mark.parametrize(("row", "path"), list(_cells()))
def test_cell(outcomes: dict[str, dict[str, runs.Outcome]], row: str, path: str) -> None:
    """One kind (or whole run) through one path: its figures there are the one-process
    run's, and the path's outcome is clean (matrix_checks says, per path, what that means)."""
    suite = outcomes[ROWS[row].suite]
    problems = PATHS[path].check(ROWS[row], suite["one_process"], suite[path])
    assert problems == [], "\n".join(problems)


def test_the_tables_are_complete(tmp_path) -> None:
    """Every kind has its case file in the suite (and every case file a kind); every path a
    runner and a check; every red cell is a cell; every case the update table names is a
    case of its kind."""
    assert list(KINDS) == list(CASE_FILES)
    for suite in SUITES:
        folder = build(tmp_path, suite, "http://127.0.0.1:9/v1")
        held = sorted(p.parent.name for p in (folder / "golden").glob("*/cases.yaml"))
        assert held == sorted(k for k in KINDS if SUITE_OF[k] == suite)
    # the trace kind's file: the same bytes every build (ids and clock counted)
    assert (tmp_path / SUITE_OF["trace"] / "golden/trace/traces/weather.jsonl").read_text() == (
        trace_file()
    )
    for name, path in PATHS.items():
        assert callable(path.runner) and callable(path.check), name
        assert getattr(path.runner, "after", "one_process") in PATHS, name  # what it waits for
    assert len({p.runner for p in PATHS.values()}) == len(PATHS)
    assert set(RED) <= {(row, path) for row in ROWS for path in PATHS}
    for kind, k in KINDS.items():
        for case in k.updated:
            assert f"- id: {case.split('[')[0]}\n" in CASE_FILES[kind], (kind, case)
