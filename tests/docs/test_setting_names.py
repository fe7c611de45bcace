"""Every setting a text names is one the plugin has (issue 51, item 10): the command line's
``--help`` of each sub-command, and the README's count of settings against the table of
docs/ci.md and the plugin's own list."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from pytest_jsonmatch.plugin.settings import SETTINGS

REPO = Path(__file__).resolve().parents[2]
KNOWN = {f"jsonmatch_{setting.name}" for setting in SETTINGS}
COMMANDS = ("compare", "score", "report", "diff", "compare-runs")


@pytest.mark.parametrize("command", COMMANDS)
def test_the_help_names_only_settings_the_plugin_has(command):
    done = subprocess.run(
        [sys.executable, "-m", "pytest_jsonmatch", command, "--help"],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    # a help text wraps its lines: join them before looking for names
    named = set(re.findall(r"\bjsonmatch_[a-z_]+", " ".join(done.stdout.split())))
    assert named <= KNOWN, f"{command} --help names {sorted(named - KNOWN)}"


def test_the_readme_counts_the_settings_docs_ci_md_lists():
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    ci = (REPO / "docs" / "ci.md").read_text(encoding="utf-8")
    (count,) = re.findall(r"there are (\d+), all in one table", readme)
    (listed,) = re.findall(r"These are all\s+of them \((\d+)\)", ci)
    table = ci[ci.index("These are all") :].split("\n\n")[1]  # the table after that line
    rows = re.findall(r"^\| `([a-z_]+)` \|", table, re.MULTILINE)
    assert int(count) == int(listed) == len(SETTINGS)
    assert set(rows) == {setting.name for setting in SETTINGS}


def test_golden_cases_md_says_how_client_retries_hide_429s_and_how_to_turn_them_off():
    text = " ".join((REPO / "docs" / "golden-cases.md").read_text(encoding="utf-8").split())
    assert "Retries the client makes itself are hidden from the runner." in text
    for client in ("openai.OpenAI(max_retries=0)", "anthropic.Anthropic(max_retries=0)"):
        assert client in text
    assert "the summary says `0 retried`" in text
