"""What ``--help`` says: the options of ``jsonmatch score`` in groups, and only settings of
the plugin that exist."""

from __future__ import annotations

import re

import pytest

from pytest_jsonmatch.plugin.settings import SETTINGS

from .run import jsonmatch

COMMANDS = ("compare", "score", "report", "diff", "compare-runs")


def test_score_groups_its_options_by_what_they_decide() -> None:
    out = jsonmatch("score", "--help", env={"COLUMNS": "100"}).stdout
    headings = re.findall(r"^([a-z]+):$", out, flags=re.MULTILINE)
    assert headings == ["options", "records", "scoring", "output", "gates"]
    # each option under the heading it belongs to
    sections = dict(zip(headings, re.split(r"^[a-z]+:$", out, flags=re.MULTILINE)[1:]))
    assert "--jobs" in sections["records"] and "--metric" in sections["scoring"]
    assert "--format" in sections["output"] and "--baseline" in sections["gates"]
    assert "--fail-under" in sections["gates"] and "--report" in sections["output"]


@pytest.mark.parametrize("command", COMMANDS)
def test_help_names_only_settings_that_exist(command: str) -> None:
    done = jsonmatch(command, "--help", env={"COLUMNS": "200"})
    assert done.returncode == 0, done.stderr
    named = set(re.findall(r"\bjsonmatch_([a-z_]+)", done.stdout))
    assert named <= {setting.name for setting in SETTINGS}, named
