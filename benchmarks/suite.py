"""The generated YAML suite: N one-case ``*.jsonmatch.yaml`` files, and a minimal collector.

Both runs see the same files with the same flags (``pytest -q -p no:cacheprovider``). The
plugin run collects them through pytest-jsonmatch; the minimal run adds ``-p no:jsonmatch -p
jm_minimal``, a ten-line plugin doing the essential work only: one item per file, the file
read with the C safe loader, ``actual == expected``.
"""

from __future__ import annotations

import copy
import os
import random
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import yaml
from corpus import corpus

MINIMAL_PLUGIN = """\
import pytest
import yaml

_LOADER = yaml.CSafeLoader


def pytest_collect_file(file_path, parent):
    if file_path.name.endswith(".jsonmatch.yaml"):
        return CaseFile.from_parent(parent, path=file_path)


class CaseFile(pytest.File):
    def collect(self):
        with open(self.path, "rb") as f:
            data = yaml.load(f, Loader=_LOADER)
        yield CaseItem.from_parent(self, name=self.path.name, data=data)


class CaseItem(pytest.Item):
    def __init__(self, *, data, **kw):
        super().__init__(**kw)
        self.data = data

    def runtest(self):
        assert self.data["actual"] == self.data["expected"]
"""


def write_suite(root: Path, n: int, seed: int = 4321) -> Path:
    """``root/cases/`` with ``n`` case files (pairs that pass: actual equals expected, so
    ``==`` and every metric agree), ``root/pytest.ini`` to pin the rootdir, and
    ``root/plugins/jm_minimal.py``."""
    (root / "cases").mkdir(parents=True, exist_ok=True)
    (root / "plugins").mkdir(exist_ok=True)
    (root / "pytest.ini").write_text("[pytest]\n")
    (root / "plugins" / "jm_minimal.py").write_text(MINIMAL_PLUGIN)
    rng = random.Random(seed)
    pairs = corpus(min(n, 500), seed=seed)
    for i in range(n):
        _, expected = pairs[i % len(pairs)]
        doc = {"expected": expected, "actual": copy.deepcopy(expected)}  # no YAML aliases
        if rng.random() < 0.5:
            doc["metric"] = rng.choice(("field_match", "json_similarity", "field_f1"))
        sub = root / "cases" / f"d{i // 1000:02d}"
        sub.mkdir(exist_ok=True)
        text = yaml.dump(doc, Dumper=yaml.CSafeDumper, sort_keys=False, allow_unicode=True)
        assert "&id" not in text
        (sub / f"case_{i:05d}.jsonmatch.yaml").write_text(text)
    return root


BASE_ARGS = ["-q", "-p", "no:cacheprovider"]
# A quick run (run.py --quick, the smoke test's) leaves hypothesis's plugin out of every
# session, each side of each row alike: it is this project's test dependency, not the
# user's, and its imports are half of each session's start (a second of every quick run's
# few). A full run times the sessions with every plugin the environment has.
QUICK_ARGS = ["-p", "no:hypothesispytest"]
# Bytecode is cached as in a normal install (some sandboxes set PYTHONDONTWRITEBYTECODE, which
# would make every session recompile the plugin), but outside the source tree.
PYCACHE = Path(tempfile.gettempdir()) / "jm-bench-pycache"


def _env() -> dict[str, str]:
    env = dict(os.environ)
    for var in ("PYTEST_ADDOPTS", "PYTEST_XDIST_WORKER", "PYTHONDONTWRITEBYTECODE"):
        env.pop(var, None)
    env["PYTHONPYCACHEPREFIX"] = str(PYCACHE)
    return env


def _run(root: Path, extra: list[str], env: dict[str, str]) -> tuple[float, float, int, str]:
    wall, cpu, rc, tail, _ = _run_measured(root, extra, env)
    return wall, cpu, rc, tail


def _run_measured(
    root: Path, extra: list[str], env: dict[str, str]
) -> tuple[float, float, int, str, int]:
    """One pytest session over ``root/cases``: wall and CPU seconds, exit status, the end of
    its output, and its peak resident memory in bytes (the operating system's accounting of
    that one process, ``os.wait4``)."""
    cmd = [sys.executable, "-m", "pytest", *BASE_ARGS, *extra, "cases"]
    with tempfile.TemporaryFile("w+") as out:
        t0 = time.perf_counter()
        proc = subprocess.Popen(cmd, cwd=root, env=env, stdout=out, stderr=subprocess.STDOUT)
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - t0
        proc.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        text = out.read()
    cpu = usage.ru_utime + usage.ru_stime
    return wall, cpu, proc.returncode, text[-4000:], usage.ru_maxrss * 1024  # (Linux: kB)


def run_suite(root: Path, variant: str, quick: bool = False) -> tuple[float, float, int, str]:
    """Wall time and CPU time (user + system, of the child process) of one ``pytest`` run of
    the suite: ``variant`` is "plugin" or "minimal"."""
    env = _env()
    base = QUICK_ARGS if quick else []
    if variant == "plugin":
        return _run(root, base, env)
    env["PYTHONPATH"] = os.pathsep.join(
        filter(None, [str(root / "plugins"), env.get("PYTHONPATH", "")])
    )
    return _run(root, [*base, "-p", "no:jsonmatch", "-p", "jm_minimal"], env)


def suite_peak(root: Path, variant: str, quick: bool = False) -> tuple[int, int, str]:
    """:func:`run_suite`'s session, measured for its peak resident memory: (bytes, exit
    status, the end of its output)."""
    env = _env()
    base = QUICK_ARGS if quick else []
    if variant == "plugin":
        _, _, rc, tail, peak = _run_measured(root, base, env)
        return peak, rc, tail
    env["PYTHONPATH"] = os.pathsep.join(
        filter(None, [str(root / "plugins"), env.get("PYTHONPATH", "")])
    )
    _, _, rc, tail, peak = _run_measured(
        root, [*base, "-p", "no:jsonmatch", "-p", "jm_minimal"], env
    )
    return peak, rc, tail


def run_plugin(root: Path, extra: list[str], quick: bool = False) -> tuple[float, float, int, str]:
    """:func:`run_suite`'s plugin run with ``extra`` flags (a report: report_bench.py)."""
    return _run(root, [*(QUICK_ARGS if quick else []), *extra], _env())


PLAIN_TESTS = 200  # the tests of the project that does not use the plugin


def write_plain_project(root: Path, n: int = PLAIN_TESTS) -> Path:
    """``root`` holding ``pytest.ini`` and ``test_plain.py``: ``n`` tests that never use
    the plugin (a project that merely has it installed)."""
    (root / "pytest.ini").write_text("[pytest]\n")
    (root / "test_plain.py").write_text(
        "".join(f"def test_{i}():\n    assert {i} + 1 == {i + 1}\n\n" for i in range(n))
    )
    return root


def run_startup(
    root: Path, with_plugin: bool, quick: bool = False
) -> tuple[float, float, int, str]:
    """Wall time and CPU time (user + system, of the child process) of ``pytest -q -p
    no:cacheprovider`` running the project in ``root``."""
    env = _env()
    extra = [] if with_plugin else ["-p", "no:jsonmatch"]
    cmd = [sys.executable, "-m", "pytest", *BASE_ARGS, *(QUICK_ARGS if quick else []), *extra]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, cwd=root, env=env, capture_output=True, text=True)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, proc.returncode, proc.stdout[-2000:] + proc.stderr[-2000:]
