"""What ``--help`` says: the options of ``jsonmatch score`` in groups, and only settings of
the plugin that exist."""

from __future__ import annotations

import argparse
import re

import pytest

from pytest_jsonmatch.cli import app
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


def _helps(command: str) -> list[str]:
    """The top help and ``command``'s, as ``jsonmatch`` lays them out now."""
    top = app.parser(command)
    sub = next(a for a in top._actions if isinstance(a, argparse._SubParsersAction))
    return [top.format_help(), sub.choices[command].format_help()]


@pytest.mark.parametrize("columns", [None, "40", "100", "0", "-3", "wide"])
@pytest.mark.parametrize("command", [*COMMANDS, "merge"])
def test_help_is_laid_out_as_argparse_lays_it_out(monkeypatch, command: str, columns) -> None:
    """The command line's formatter finds the help's width without shutil
    (cli/app.py:_help_width): its help is argparse's own formatter's, character for
    character, whatever COLUMNS says (a number, none, or one argparse ignores)."""
    if columns is None:
        monkeypatch.delenv("COLUMNS", raising=False)
    else:
        monkeypatch.setenv("COLUMNS", columns)
    ours = _helps(command)
    monkeypatch.setattr(app, "_Formatter", argparse.HelpFormatter)
    theirs = _helps(command)
    assert ours == theirs
    if columns == "40":  # (the width matters: 40 columns lay the help out otherwise than 100)
        monkeypatch.setenv("COLUMNS", "100")
        assert theirs != _helps(command)
