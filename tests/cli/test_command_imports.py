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

from pytest_jsonmatch.cli.app import COMMANDS, parser
from pytest_jsonmatch.engine.core.gc_pause import COMMAND_THRESHOLDS

from .run import ROOT

# (``compiled``: what the command compiled from text other than a module's source: typing
# compiles a type written as a string, and the first compile of a process builds the types
# of the parser's syntax trees, about 5% of a one-record command's instructions)
_RUN_THEN_LIST = (
    "import contextlib, io, json, sys\n"
    "compiled = []\n"
    "def _seen(event, args):\n"
    "    # (a module's source, and the text of __new__ collections.namedtuple evaluates,\n"
    "    # which is parsed without building any tree type, aside)\n"
    "    if event == 'compile':\n"
    "        text, name = str(args[0]), str(args[1])\n"
    "        if not name.endswith('.py') and 'lambda _cls' not in text:\n"
    "            compiled.append(text[:80])\n"
    "sys.addaudithook(_seen)\n"
    "from pytest_jsonmatch.cli import main\n"
    "out = io.StringIO()\n"
    "with contextlib.redirect_stdout(out):\n"
    "    try:\n"
    "        status = main(sys.argv[1:])\n"
    "    except SystemExit as exc:  # --help\n"
    "        status = exc.code\n"
    "print(json.dumps({'status': status, 'out': out.getvalue(), 'modules': sorted(sys.modules),\n"
    "                  'compiled': compiled}))\n"
)

# What neither `jsonmatch score` of a small dataset nor `compare` needs before it knows it
# does: the other commands, the report renderers other than text, a baseline's and a split
# run's readers, the schema machinery beyond the loader (conformance compiler, `regex`, and
# `referencing`, for a schema without a $ref), the judge, the metrics not used (tool_calls
# with BFCL's readers), BFCL's fast paths, the pytest layer, worker processes and what sends
# work to them (pickle), network clients, exact arithmetic (fractions, decimal: only for
# integers past a float's range), a `git` process for a commit that text output does
# not show (subprocess, platform), and threads (only a value nested past SHALLOW levels is
# compared in a thread of its own: engine/core/depth.py).
_NEITHER = (
    "pytest_jsonmatch.cli.saved_reports",
    "pytest_jsonmatch.cli.merge",
    "pytest_jsonmatch.cli.compare_runs",
    "pytest_jsonmatch.reporting.render.html",
    "pytest_jsonmatch.reporting.render.html_cases",
    "pytest_jsonmatch.reporting.render.markdown",
    "pytest_jsonmatch.reporting.verdicts.runs",
    "pytest_jsonmatch.reporting.verdicts.baseline",
    "pytest_jsonmatch.reporting.verdicts.versus",
    "pytest_jsonmatch.reporting.verdicts.provenance",
    "pytest_jsonmatch.reporting.verdicts.shards",
    # pass^k and pass@k: only for a run that repeated a case or holds a floor on them
    "pytest_jsonmatch.reporting.verdicts.reliability",
    "pytest_jsonmatch.reporting.verdicts.reliability_gates",
    "pytest_jsonmatch.engine.schemas.conformance",
    "pytest_jsonmatch.engine.schemas.conformance_code",
    "pytest_jsonmatch.engine.schemas.patterns",
    "pytest_jsonmatch.engine.judge.semantic",
    "pytest_jsonmatch.engine.judge.judge_settings",
    "pytest_jsonmatch.engine.judge.http_transport",
    "pytest_jsonmatch.engine.bfcl.bfcl_fast_pass",
    "pytest_jsonmatch.engine.bfcl.bfcl_java_js",
    "pytest_jsonmatch.engine.bfcl.bfcl_rules",
    "pytest_jsonmatch.engine.tool_calls.expected_calls",
    "pytest_jsonmatch.engine.reading.agent_messages",
    "pytest_jsonmatch.engine.bfcl.bfcl_checker",
    "pytest_jsonmatch.engine.tool_calls",
    "pytest_jsonmatch.engine.metrics.json_similarity",
    "pytest_jsonmatch.engine.metrics.field_match",
    "pytest_jsonmatch.plugin",
    "pytest_jsonmatch.calls",
    "pytest_jsonmatch.cases",
    # a trace as compare's ACTUAL: its reader and its options' module, only when one is given
    "pytest_jsonmatch.cli.trace_compare",
    "pytest_jsonmatch.engine.reading.trace_spans",
    # arrays too large for one matrix; structeval's --config; what only a repeated case, a
    # called target or a file written needs
    "pytest_jsonmatch.engine.pairing.blockwise",
    "pytest_jsonmatch.cli.structeval",
    "pytest_jsonmatch.engine.metrics.structural_f1",
    "pytest_jsonmatch.reporting.render.reliability_text",
    "pytest_jsonmatch.reporting.verdicts.stats",
    "pytest_jsonmatch.reporting.run_model.atomic",
    # the report's TypedDicts are types for mypy: each module imports them for checking only
    "pytest_jsonmatch.reporting.run_model.report_types",
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
    "hashlib",
    "fractions",
    "decimal",
    "subprocess",
    "platform",
    "threading",
    # dates: only a date comparator reads them (the report's time is written by time)
    "datetime",
    # the command line's classes are written out (engine/core/slotted.py): a dataclass
    # compiles its methods at import, and the module itself loads inspect, dis and ast
    "dataclasses",
    "inspect",
)
# score of two JSONL files by position: besides, not the streaming reader of folders, arrays
# and pairing by id (nor its progress bar's count, made on a terminal only)
NOT_FOR_SCORE = (
    *_NEITHER,
    "pytest_jsonmatch.cli.compare",
    "pytest_jsonmatch.cli.record_pairs",
    "pytest_jsonmatch.cli.datasets",
)
# compare: besides, nothing of a dataset's reading, spooling or workers
NOT_FOR_COMPARE = (
    *_NEITHER,
    "pytest_jsonmatch.cli.score",
    "pytest_jsonmatch.cli.datasets",
    "pytest_jsonmatch.cli.parallel",
    "pytest_jsonmatch.dataset.chunk_work",
    "pytest_jsonmatch.dataset.spans",
    "pytest_jsonmatch.reporting.run_model.spool",
    "pytest_jsonmatch.engine.schemas.loading",
    "tempfile",
)
# --help: the list of commands, and nothing that runs one
NOT_FOR_HELP = (
    *NOT_FOR_COMPARE,
    "pytest_jsonmatch.cli.compare",
    "pytest_jsonmatch.engine.match",
    "pytest_jsonmatch.engine.metrics",
    "pytest_jsonmatch.dataset",
    "pytest_jsonmatch.reporting.verdicts.report",
    "pytest_jsonmatch.reporting.run_model.aggregate",
)


def _fresh_interpreter() -> tuple[list[str], dict[str, str]]:
    """The command line and environment of an interpreter that starts as an installed
    wheel's user's does: ``-S`` leaves the site folders' ``.pth`` files unread (an editable
    install's finder imports pathlib, and more, before anything runs, which would hide
    what the package itself imports), and the site folders and the checkout are put on the
    path instead."""
    import site

    folders = [str(ROOT), *site.getsitepackages()]
    if site.ENABLE_USER_SITE and site.getusersitepackages():
        folders.append(site.getusersitepackages())
    environ = dict(os.environ)
    environ["PYTHONPATH"] = os.pathsep.join(filter(None, (*folders, environ.get("PYTHONPATH"))))
    return [sys.executable, "-S"], environ


def _stdlib_floor(needed: str = "argparse, json, pathlib, re, sys, typing") -> set[str]:
    """What the standard library modules every command needs (argparse, json, pathlib, re,
    typing) import themselves in a fresh interpreter of this version: not the command's to
    avoid (Python 3.10's pathlib imports urllib.parse, 3.12's does not)."""
    code = f"import {needed}; print(json.dumps(list(sys.modules)))"
    argv, environ = _fresh_interpreter()
    proc = subprocess.run(
        [*argv, "-c", code], capture_output=True, text=True, check=True, env=environ
    )
    return set(json.loads(proc.stdout))


def _unwanted(modules: object, unwanted: tuple[str, ...]) -> list[str]:
    """Of the ``unwanted`` modules, those the command loaded beyond the standard library's
    own floor."""
    return sorted(set(modules) & set(unwanted) - _stdlib_floor())  # type: ignore[call-overload]


def _run_in_fresh_interpreter(*args: str, cwd: Path | None = None) -> dict[str, object]:
    argv, environ = _fresh_interpreter()
    proc = subprocess.run(
        [*argv, "-c", _RUN_THEN_LIST, *args],
        capture_output=True,
        text=True,
        timeout=120,
        env=environ,
        cwd=cwd,
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
    assert _unwanted(modules, NOT_FOR_COMPARE) == []
    # nor pathlib (with urllib.parse and ipaddress, on 3.10 and 3.11), difflib or copy: each
    # is imported where a YAML or schema file, a written file, a typo or a schema needs it;
    # nor shutil (with zlib, bz2 and lzma), which argparse imports for help's width alone
    bare = _stdlib_floor("argparse, json, re, sys, typing")
    assert {"pathlib", "difflib", "copy", "shutil"} & modules - bare == set()
    # and nothing compiled: no NamedTuple, TypedDict or type argument of its modules is a
    # string typing has to compile, and no generated code is made for one pair
    assert run["compiled"] == []


def test_score_of_one_record_imports_only_what_it_uses(tmp_path: Path) -> None:
    gold, pred = tmp_path / "gold.jsonl", tmp_path / "pred.jsonl"
    gold.write_text('{"id": 1, "vendor": {"name": "ACME"}, "items": [{"sku": "A1"}]}\n')
    pred.write_text('{"id": 1, "vendor": {"name": "ACME"}, "items": [{"sku": "B2"}]}\n')
    run = _run_in_fresh_interpreter("score", str(gold), str(pred))
    # scored with the schema all gold records give (id, vendor.name, items[].sku): two
    # fields of three match, F1 2/3
    assert "overall score 0.6667 over 1 case" in str(run["out"]), run["out"]
    modules = set(run["modules"])  # type: ignore[call-overload]
    assert "pytest_jsonmatch.engine.schemas.loading" in modules  # the sketched schema loaded
    assert _unwanted(modules, NOT_FOR_SCORE) == []
    # nor pathlib (a sketched schema is a mapping, read from no file), shutil, or tempfile:
    # a run this small keeps its cases in memory (reporting/run_model/spool.py)
    bare = _stdlib_floor("argparse, json, re, sys, typing")
    assert {"pathlib", "tempfile", "shutil"} & modules - bare == set()
    # nor anything compiled: a chunk of one record is tested against the guessed schema by
    # the sketch's walk, not by a test generated for it (dataset/fitting.py)
    assert run["compiled"] == []


def test_score_with_forked_workers_loads_no_process_pool(tmp_path: Path) -> None:
    """Forked workers are fed through pipes (cli/fork_pool.py): multiprocessing,
    concurrent.futures and the logging they load cost a run about 15 ms before its first
    worker started."""
    gold, pred = tmp_path / "gold.jsonl", tmp_path / "pred.jsonl"
    gold.write_text("".join(f'{{"id": {i}, "name": "n{i}"}}\n' for i in range(600)))
    pred.write_text("".join(f'{{"id": {i}, "name": "n{i % 2}"}}\n' for i in range(600)))
    run = _run_in_fresh_interpreter("score", str(gold), str(pred), "-j", "2")
    # records 0 and 1 match whole (1.0), the other 598 in one field of two (0.5):
    # (2 + 598 * 0.5) / 600 = 0.5017
    assert "overall score 0.5017 over 600 cases" in str(run["out"]), run["out"]
    modules = set(run["modules"])  # type: ignore[call-overload]
    assert "pytest_jsonmatch.cli.fork_pool" in modules
    unwanted = ("multiprocessing", "concurrent.futures", "logging", "threading")
    assert _unwanted(modules, unwanted) == []


def test_a_report_that_shows_the_commit_records_it(tmp_path: Path) -> None:
    """The JSON report records the commit of the working directory's repository (a
    ``git`` process); text output, which does not show it, starts none (the lists above)."""
    actual, expected = tmp_path / "actual.json", tmp_path / "expected.json"
    actual.write_text('{"name": "ACME"}')
    expected.write_text('{"name": "ACME"}')
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@example.com"]
    for step in (["init", "-q"], ["add", "actual.json"], ["commit", "-q", "-m", "one"]):
        subprocess.run([*git, *step], cwd=tmp_path, check=True, capture_output=True)
    commit = subprocess.run(
        ["git", "rev-parse", "HEAD"], cwd=tmp_path, capture_output=True, text=True, check=True
    ).stdout.strip()
    run = _run_in_fresh_interpreter(
        "compare", "actual.json", "expected.json", "--format", "json", cwd=tmp_path
    )
    assert json.loads(str(run["out"]))["run"]["git_commit"] == commit


def test_help_imports_no_command(tmp_path: Path) -> None:
    run = _run_in_fresh_interpreter("--help")
    assert run["status"] == 0 and "compare-runs" in str(run["out"])
    modules = set(run["modules"])  # type: ignore[call-overload]
    assert _unwanted(modules, NOT_FOR_HELP) == []
    assert run["compiled"] == []


_THRESHOLDS_SEEN = (
    "import gc, io, contextlib, json, sys\n"
    "start = gc.get_threshold()\n"
    "seen = {}\n"
    "def _seen(event, args):\n"
    "    if event == 'import' and args[0] in ('typing', 'pytest_jsonmatch.cli.app'):\n"
    "        seen.setdefault(args[0], gc.get_threshold())\n"
    "sys.addaudithook(_seen)\n"
    "preloaded = 'typing' in sys.modules  # (a site-packages .pth file may import it)\n"
    "from pytest_jsonmatch.__main__ import run\n"
    "sys.argv = ['jsonmatch', *sys.argv[1:]]\n"
    "with contextlib.redirect_stdout(io.StringIO()):\n"
    "    status = run()\n"
    "print(json.dumps({'status': status, 'seen': seen, 'after': gc.get_threshold(),\n"
    "                  'start': start, 'preloaded': preloaded}))\n"
)


def test_the_program_holds_the_collector_back_before_it_imports_the_command(
    tmp_path: Path,
) -> None:
    """The ``jsonmatch`` program (``__main__.run``, the console script's entry point) raises
    the collector's thresholds before the command's modules, typing among them, are imported:
    at Python's default their imports set off a pass over the second generation and about ten
    over the first, all finding nothing to free. The thresholds are as they were after it."""
    actual, expected = tmp_path / "actual.json", tmp_path / "expected.json"
    actual.write_text('{"name": "ACME"}')
    expected.write_text('{"name": "ACME"}')
    environ = dict(os.environ)
    environ["PYTHONPATH"] = os.pathsep.join(filter(None, (str(ROOT), environ.get("PYTHONPATH"))))
    proc = subprocess.run(
        [sys.executable, "-c", _THRESHOLDS_SEEN, "compare", str(actual), str(expected)],
        capture_output=True,
        text=True,
        timeout=120,
        env=environ,
    )
    assert proc.returncode == 0, proc.stderr
    run = json.loads(proc.stdout.splitlines()[-1])
    raised = list(COMMAND_THRESHOLDS)
    assert run["status"] == 0
    assert run["seen"]["pytest_jsonmatch.cli.app"] == raised
    # (typing too, unless the interpreter's start had imported it: the package's own
    # __init__ does not)
    assert run["preloaded"] or run["seen"]["typing"] == raised
    # (as the interpreter started: the test session's own are not the child's,
    # tests/conftest.py)
    assert run["after"] == run["start"] != raised


def test_the_top_help_lists_each_command_as_its_module_does() -> None:
    """The commands not being run are listed from app.py's own lines: those lines and the
    help built from every command's module are the same."""
    assert parser("").format_help() == parser().format_help()
    full = parser()
    actions = [a for a in full._subparsers._group_actions if a.dest == "command"]  # type: ignore[union-attr]
    helps = {choice.dest: choice.help for choice in actions[0]._choices_actions}
    assert helps == {name: command.help for name, command in COMMANDS.items()}


def test_a_command_being_run_builds_only_its_own_parsers() -> None:
    """The command line names the command, so no other's sub-parser is made (each costs
    argparse a parser, its help action and its translated words)."""
    for name, command in COMMANDS.items():
        actions = [a for a in parser(name)._subparsers._group_actions if a.dest == "command"]  # type: ignore[union-attr]
        same_module = {n for n, c in COMMANDS.items() if c.module == command.module}
        assert set(actions[0].choices) == same_module, name  # (report and diff share one)


_LOOK_UP_TOOL_CALLS = """
import sys
from pytest_jsonmatch.engine.metrics import REGISTRY, METRIC_NAMES, metric_named
from pytest_jsonmatch.engine.core.errors import ConfigError
loaded = lambda: "pytest_jsonmatch.engine.tool_calls.metric" in sys.modules
before = loaded()
try:  # a built-in name is refused before its module is loaded, as after
    REGISTRY.register_metric("tool_calls", metric_named("field_f1"))
except ConfigError as exc:
    refused = str(exc)
print(before, refused, metric_named("tool_calls").name, loaded(), list(REGISTRY.metrics))
print(list(METRIC_NAMES))
"""


def test_a_metric_module_loads_when_its_metric_is_looked_up() -> None:
    environ = dict(os.environ)
    environ["PYTHONPATH"] = os.pathsep.join(filter(None, (str(ROOT), environ.get("PYTHONPATH"))))
    proc = subprocess.run(
        [sys.executable, "-c", _LOOK_UP_TOOL_CALLS],
        capture_output=True,
        text=True,
        timeout=120,
        env=environ,
    )
    assert proc.returncode == 0, proc.stderr
    first, names = proc.stdout.splitlines()
    order = "['field_match', 'field_match_normalized', 'json_similarity', 'structural_f1', "
    order += "'field_f1', 'tool_calls', 'trajectory']"
    assert first == (
        "False metric 'tool_calls' is built in and cannot be replaced tool_calls True " + order
    )
    assert names == order


_FROZEN_AFTER = (
    "import gc, io, contextlib, sys\n"
    "from pytest_jsonmatch.cli import main\n"
    "with contextlib.redirect_stdout(io.StringIO()):\n"
    "    status = main({argv})\n"
    "print(status, gc.get_freeze_count() > 1000)\n"
)


def test_the_command_as_the_process_puts_its_modules_out_of_the_collectors_reach(
    tmp_path: Path,
) -> None:
    """``main()`` run as the program (this process's own command line) freezes what its
    imports made (cli/app.py, _loaded_for_good); called with an argument list, as inside
    another program, it freezes nothing."""
    actual, expected = tmp_path / "actual.json", tmp_path / "expected.json"
    actual.write_text('{"name": "ACME"}')
    expected.write_text('{"name": "ACME"}')
    environ = dict(os.environ)
    environ["PYTHONPATH"] = os.pathsep.join(filter(None, (str(ROOT), environ.get("PYTHONPATH"))))
    said = []
    for argv in ("", f"['compare', {str(actual)!r}, {str(expected)!r}]"):
        proc = subprocess.run(
            [sys.executable, "-c", _FROZEN_AFTER.format(argv=argv), "compare", actual, expected],
            capture_output=True,
            text=True,
            timeout=120,
            env=environ,
        )
        assert proc.returncode == 0, proc.stderr
        said.append(proc.stdout.split())
    # both passed (status 0); only the first froze anything
    assert said == [["0", "True"], ["0", "False"]]
