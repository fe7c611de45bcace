"""What the command line imports as it starts: each command what it uses, and no more.

A fresh interpreter runs the command (as ``python -m pytest_jsonmatch`` does, through
``main``) and then lists ``sys.modules``. These are lists of modules, not timings: a module
named here appearing on the path of ``jsonmatch compare`` or ``--help`` is a start-up cost
every user of the command pays, whatever the machine (docs/performance.md has the times).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from pytest_jsonmatch.cli.app import COMMAND_HELP, parser

from .run import ROOT

_RUN_THEN_LIST = (
    "import contextlib, io, json, sys\n"
    "from pytest_jsonmatch.cli import main\n"
    "out = io.StringIO()\n"
    "with contextlib.redirect_stdout(out):\n"
    "    try:\n"
    "        status = main(sys.argv[1:])\n"
    "    except SystemExit as exc:  # --help\n"
    "        status = exc.code\n"
    "print(json.dumps({'status': status, 'out': out.getvalue(), 'modules': sorted(sys.modules)}))\n"
)

# What none of the commands needs before it knows it does: the other commands, the report
# renderers other than text, a baseline's and a split run's readers, the schema machinery
# (loader with urllib, conformance compiler, `regex`), the judge, BFCL's fast paths, the
# dataset machinery, the pytest layer, worker processes, network clients.
NOT_FOR_COMPARE = (
    "pytest_jsonmatch.cli.score",
    "pytest_jsonmatch.cli.saved",
    "pytest_jsonmatch.cli.merge",
    "pytest_jsonmatch.cli.compare_runs",
    "pytest_jsonmatch.cli.datasets",
    "pytest_jsonmatch.cli.parallel",
    "pytest_jsonmatch.dataset.parts",
    "pytest_jsonmatch.dataset.spans",
    "pytest_jsonmatch.reporting.html",
    "pytest_jsonmatch.reporting.html_cases",
    "pytest_jsonmatch.reporting.markdown",
    "pytest_jsonmatch.reporting.runs",
    "pytest_jsonmatch.reporting.baseline",
    "pytest_jsonmatch.reporting.versus",
    "pytest_jsonmatch.reporting.provenance",
    "pytest_jsonmatch.reporting.shards",
    "pytest_jsonmatch.reporting.spool",
    "pytest_jsonmatch.engine.schemas.loading",
    "pytest_jsonmatch.engine.schemas.conformance",
    "pytest_jsonmatch.engine.schemas.conformance_code",
    "pytest_jsonmatch.engine.schemas.patterns",
    "pytest_jsonmatch.engine.comparing.semantic",
    "pytest_jsonmatch.engine.comparing.judge_http",
    "pytest_jsonmatch.engine.comparing.bfcl_fast",
    "pytest_jsonmatch.engine.metrics.bfcl_checker",
    "pytest_jsonmatch.plugin",
    "pytest_jsonmatch.calls",
    "pytest_jsonmatch.cases",
    "pytest",
    "regex",
    "referencing",
    "yaml",
    "numpy",
    "scipy",
    "rapidfuzz",
    "multiprocessing",
    "concurrent.futures",
    "pickle",
    "urllib.parse",
    "urllib.request",
    "http.client",
    "importlib.resources",
    "tempfile",
    "hashlib",
)
# --help: the list of commands, and nothing that runs one
NOT_FOR_HELP = (
    *NOT_FOR_COMPARE,
    "pytest_jsonmatch.cli.compare",
    "pytest_jsonmatch.engine.match",
    "pytest_jsonmatch.engine.metrics",
    "pytest_jsonmatch.dataset",
    "pytest_jsonmatch.reporting.report",
    "pytest_jsonmatch.reporting.aggregate",
)


def _run_in_fresh_interpreter(*args: str) -> dict[str, object]:
    environ = dict(os.environ)
    environ["PYTHONPATH"] = os.pathsep.join(filter(None, (str(ROOT), environ.get("PYTHONPATH"))))
    proc = subprocess.run(
        [sys.executable, "-c", _RUN_THEN_LIST, *args],
        capture_output=True,
        text=True,
        timeout=120,
        env=environ,
    )
    assert proc.returncode == 0, proc.stderr
    loaded: dict[str, object] = json.loads(proc.stdout.splitlines()[-1])
    return loaded


def test_compare_imports_only_what_it_uses(tmp_path: Path) -> None:
    actual, expected = tmp_path / "actual.json", tmp_path / "expected.json"
    actual.write_text('{"name": "ACME", "total": 12.5}')
    expected.write_text('{"name": "ACME", "total": 13}')
    run = _run_in_fresh_interpreter("compare", str(actual), str(expected))
    # it did score the pair: one field of two matches, F1 0.5
    # (the line may wrap after a long path: its words read together)
    said = " ".join(str(run["out"]).split())
    assert run["status"] == 1 and "field_f1 score 0.5000" in said, run["out"]
    modules = set(run["modules"])  # type: ignore[call-overload]
    assert "pytest_jsonmatch.engine.match" in modules  # (the list is read after the run)
    assert sorted(modules & set(NOT_FOR_COMPARE)) == []


def test_help_imports_no_command(tmp_path: Path) -> None:
    run = _run_in_fresh_interpreter("--help")
    assert run["status"] == 0 and "compare-runs" in str(run["out"])
    modules = set(run["modules"])  # type: ignore[call-overload]
    assert sorted(modules & set(NOT_FOR_HELP)) == []


def test_the_top_help_lists_each_command_as_its_module_does() -> None:
    """The commands not being run are listed from app.py's own lines: those lines and the
    help built from every command's module are the same."""
    assert parser("").format_help() == parser().format_help()
    full = parser()
    actions = [a for a in full._subparsers._group_actions if a.dest == "command"]  # type: ignore[union-attr]
    helps = {choice.dest: choice.help for choice in actions[0]._choices_actions}
    assert helps == COMMAND_HELP
