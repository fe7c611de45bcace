"""Running the command line as a user does: ``python -m pytest_jsonmatch`` in a subprocess,
with this checkout's package first on the path."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest_jsonmatch

ROOT = Path(pytest_jsonmatch.__file__).resolve().parents[1]


def jsonmatch(*args: str, cwd: Path | None = None, stdin: str | None = None,
              env: dict[str, str] | None = None, timeout: float = 120) -> subprocess.CompletedProcess:
    environ = dict(os.environ)
    environ["PYTHONPATH"] = os.pathsep.join(filter(None, (str(ROOT), environ.get("PYTHONPATH"))))
    environ.pop("NO_COLOR", None)
    environ.update(env or {})
    return subprocess.run([sys.executable, "-m", "pytest_jsonmatch", *args], cwd=cwd,
                          input=stdin, capture_output=True, text=True, timeout=timeout,
                          env=environ)


def one_error_line(proc: subprocess.CompletedProcess) -> str:
    """The single line a usage or input error prints (exit status 2, no traceback)."""
    assert proc.returncode == 2, (proc.returncode, proc.stdout, proc.stderr)
    assert "Traceback" not in proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, proc.stderr
    return lines[0]
