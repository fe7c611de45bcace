"""Running the command line as a user does: ``python -m pytest_jsonmatch`` in a subprocess,
with this checkout's package first on the path; or, where the process itself is not what a
test is about, its ``main()`` called in the test's process (the ``jsonmatch_main`` fixture,
tests/cli/conftest.py)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

import pytest_jsonmatch

ROOT = Path(pytest_jsonmatch.__file__).resolve().parents[1]


def jsonmatch(
    *args: str,
    cwd: Path | None = None,
    stdin: str | None = None,
    env: dict[str, str] | None = None,
    timeout: float = 120,
) -> subprocess.CompletedProcess:
    environ = dict(os.environ)
    environ["PYTHONPATH"] = os.pathsep.join(filter(None, (str(ROOT), environ.get("PYTHONPATH"))))
    environ.pop("NO_COLOR", None)
    environ.update(env or {})
    return subprocess.run(
        [sys.executable, "-m", "pytest_jsonmatch", *args],
        cwd=cwd,
        input=stdin,
        capture_output=True,
        text=True,
        timeout=timeout,
        env=environ,
    )


def jsonmatch_in_process(
    capsys: pytest.CaptureFixture[str], *args: str
) -> subprocess.CompletedProcess:
    """``jsonmatch ARGS`` as :func:`jsonmatch` gives it (exit status, standard output and
    error), from ``pytest_jsonmatch.cli.main`` called in this process, its output read with
    ``capsys``: for a test of what a command does rather than of the process that runs it
    (the entry point, standard input, environment, workers), without an interpreter and its
    imports to start for each call."""
    from pytest_jsonmatch.cli import main

    capsys.readouterr()  # what was printed before is not this call's
    try:
        status = main(list(args))
    except SystemExit as exc:  # argparse's --help (0) and usage errors (2)
        status = exc.code if isinstance(exc.code, int) else int(exc.code is not None)
    out, err = capsys.readouterr()
    return subprocess.CompletedProcess(["jsonmatch", *args], status, out, err)


def one_error_line(proc: subprocess.CompletedProcess) -> str:
    """The single line a usage or input error prints (exit status 2, no traceback)."""
    assert proc.returncode == 2, (proc.returncode, proc.stdout, proc.stderr)
    assert "Traceback" not in proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, proc.stderr
    return lines[0]
