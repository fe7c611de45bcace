"""docs/integrations.md runs: each ```python block whose framework is installed is run in a
fresh interpreter, offline, in an empty folder, and prints the ```text block after it (its
lines, in order; deepeval adds progress lines of its own between them).

These blocks show no ``>>>`` and no top-level ``assert``, so tests/docs/test_examples.py,
which runs where the frameworks may be missing, leaves them to this test."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from ..test_layout import _without_parents, graph
from .frameworks import installed

pytestmark = pytest.mark.slow  # (CONTRIBUTING.md: the inner loop leaves it out)

ROOT = Path(__file__).resolve().parents[2]
PAGE = ROOT / "docs" / "integrations.md"
BLOCK = re.compile(
    r"^```python\n(?P<code>.*?)^```\n\nprints\n\n```text\n(?P<shown>.*?)^```", re.M | re.S
)
FRAMEWORK = re.compile(r"^from pytest_jsonmatch\.integrations\.(\w+) import", re.M)
EXAMPLES = [
    (m["code"], m["shown"], FRAMEWORK.search(m["code"])[1])
    for m in BLOCK.finditer(PAGE.read_text(encoding="utf-8"))
]


def test_there_is_one_example_per_framework():
    assert sorted(framework for _, _, framework in EXAMPLES) == [
        "deepeval",
        "inspect_ai",
        "pydantic_evals",
    ]


@pytest.mark.parametrize("code, shown, framework", EXAMPLES, ids=[f for _, _, f in EXAMPLES])
def test_the_example_prints_what_the_page_shows(code, shown, framework, tmp_path):
    assert installed(framework)  # conftest.py deselects the frameworks not installed
    env = {
        name: value
        for name, value in os.environ.items()
        if not name.startswith(("DEEPEVAL_", "PYTEST_", "OPENAI_", "INSPECT_"))
    }
    env.update(
        DEEPEVAL_TELEMETRY_OPT_OUT="1",
        DEEPEVAL_DISABLE_DOTENV="1",
        DEEPEVAL_HOME=str(tmp_path / "home"),
        PYTHONPATH=str(ROOT),
        XDG_DATA_HOME=str(tmp_path / "data"),
        XDG_CACHE_HOME=str(tmp_path / "cache"),
    )
    work = tmp_path / "work"
    work.mkdir()
    proc = subprocess.run(
        [sys.executable, "-c", code], cwd=work, env=env, capture_output=True, text=True, timeout=300
    )
    assert proc.returncode == 0, proc.stderr
    printed = [line.rstrip() for line in proc.stdout.splitlines()]
    wanted = [line.rstrip() for line in shown.splitlines()]
    found = iter(printed)
    missing = [line for line in wanted if not any(line == got for got in found)]
    assert missing == [], f"the example printed:\n{proc.stdout}"


def test_the_integrations_import_only_the_engine_each_other_and_what_a_target_returns():
    # the layering tests/test_layout.py holds the other layers to, for this one; and what a
    # target returns (calls/: the client loop's AgentRun is a TargetResult)
    allowed = ("pytest_jsonmatch.engine", "pytest_jsonmatch.integrations", "pytest_jsonmatch.calls")
    wrong = [
        f"{module} imports {target}"
        for module, targets in graph().items()
        if module.startswith("pytest_jsonmatch.integrations")
        for target in _without_parents(module, targets)
        if not target.startswith(allowed)
    ]
    assert wrong == []
    assert any(m.startswith("pytest_jsonmatch.integrations.") for m in graph())
