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


# Loaded by both variants when their memory is measured: the session's own peak resident
# memory (Linux: VmHWM, the high-water mark of this program's memory alone), written where
# JM_PEAK_FILE says.
PEAK_PLUGIN = """\
import os
import resource
import sys


def pytest_unconfigure(config):
    out = os.environ.get("JM_PEAK_FILE")
    if not out:
        return
    try:
        with open("/proc/self/status") as f:
            peak = next(int(line.split()[1]) * 1024 for line in f if line.startswith("VmHWM:"))
    except (OSError, StopIteration):  # not Linux: the process's own maximum (macOS: bytes)
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        peak *= 1 if sys.platform == "darwin" else 1024
    with open(out, "w") as f:
        f.write(str(peak))
"""


def write_suite(root: Path, n: int, seed: int = 4321) -> Path:
    """``root/cases/`` with ``n`` case files (pairs that pass: actual equals expected, so
    ``==`` and every metric agree), ``root/pytest.ini`` to pin the rootdir, and
    ``root/plugins/jm_minimal.py`` (and ``jm_peak.py``, see suite_peak)."""
    (root / "cases").mkdir(parents=True, exist_ok=True)
    (root / "plugins").mkdir(exist_ok=True)
    (root / "pytest.ini").write_text("[pytest]\n")
    (root / "plugins" / "jm_minimal.py").write_text(MINIMAL_PLUGIN)
    (root / "plugins" / "jm_peak.py").write_text(PEAK_PLUGIN)
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
    return _timed([sys.executable, "-m", "pytest", *BASE_ARGS, *extra, "cases"], root, env)


def _timed(cmd: list[str], root: Path, env: dict[str, str]) -> tuple[float, float, int, str]:
    """Wall time and CPU time (user + system) of ``cmd`` run in ``root``, its exit status
    and the end of its output."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, cwd=root, env=env, capture_output=True, text=True)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, proc.returncode, proc.stdout[-2000:] + proc.stderr[-2000:]


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
    status, the end of its output). The session reports its own (``jm_peak``, loaded by
    both variants): a child's ``ru_maxrss`` would count the parent's memory it started as."""
    env = _env()
    extra = [*(QUICK_ARGS if quick else []), "-p", "jm_peak"]
    if variant != "plugin":
        extra += ["-p", "no:jsonmatch", "-p", "jm_minimal"]
    env["PYTHONPATH"] = os.pathsep.join(
        filter(None, [str(root / "plugins"), env.get("PYTHONPATH", "")])
    )
    with tempfile.TemporaryDirectory(prefix="jm-bench-peak-") as tmp:
        env["JM_PEAK_FILE"] = str(Path(tmp) / "peak")
        _, _, rc, tail = _run(root, extra, env)
        found = Path(env["JM_PEAK_FILE"])
        peak = int(found.read_text()) if found.exists() else 0
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
    return _timed(cmd, root, env)
