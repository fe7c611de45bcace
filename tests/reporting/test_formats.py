"""The one table of report formats (reporting/render/formats.py), pinned: every format is offered by
each outlet it names, and by no other (the plugin's report files, ``--format`` of the
commands that print a report, ``compare-runs --format``); it renders there; the decision
that a session builds its report whole reads the format's own flags. A throwaway format
registered here alone reaches every outlet it names: nothing else lists formats."""

from __future__ import annotations

import argparse
import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import IO

import pytest

from pytest_jsonmatch.cli.app import parser
from pytest_jsonmatch.reporting.render import formats
from pytest_jsonmatch.reporting.render.formats import FORMAT, REPORT_FILES, RUNS, Look, ReportFormat
from pytest_jsonmatch.reporting.render.report_files import ReportFiles
from pytest_jsonmatch.reporting.verdicts.report import load_report
from pytest_jsonmatch.session.setting_parts import SettingParts
from pytest_jsonmatch.session.setting_table import BY_NAME

from ..cli.run import jsonmatch_in_process

PRINTING = ("compare", "score", "report", "diff", "merge")  # the commands --format prints with


def _format_choices(command: str) -> tuple[str, ...]:
    commands = next(
        a for a in parser()._actions if isinstance(a, argparse._SubParsersAction)
    ).choices
    action = next(a for a in commands[command]._actions if a.dest == "format")
    return tuple(action.choices)


def _lines(fh: IO[str], report: object, look: Look) -> None:
    """The throwaway format: the report's keys and overall score, one line."""
    assert isinstance(report, dict)
    fh.write(json.dumps({"keys": sorted(report), "overall": report["overall"]}) + "\n")


def _runs_lines(fh: IO[str], data: object, look: Look) -> None:
    assert isinstance(data, dict)
    fh.write(json.dumps({"runs": [r["name"] for r in data["runs"]]}) + "\n")


@pytest.fixture
def lines_format() -> Iterator[ReportFormat]:
    fmt = ReportFormat(
        name="lines",
        write=_lines,
        offered_by=frozenset({REPORT_FILES, FORMAT, RUNS}),
        suffixes=(".lines",),
        all_cases=False,
        comparisons=False,
        failure="could not write the lines {path}: {exc}",
        describe="one line",
        write_runs=_runs_lines,
    )
    formats.register(fmt)
    try:
        yield fmt
    finally:
        formats.unregister("lines")


def _pair(folder: Path) -> tuple[str, str]:
    (folder / "a.json").write_text('{"id": 1, "name": "x"}', encoding="utf-8")
    (folder / "e.json").write_text('{"id": 1, "name": "y"}', encoding="utf-8")
    return str(folder / "a.json"), str(folder / "e.json")


def _two_runs(folder: Path, capsys: pytest.CaptureFixture[str]) -> tuple[str, str]:
    """Two saved reports of the same pair, for compare-runs."""
    actual, expected = _pair(folder)
    out = []
    for name in ("base", "new"):
        path = str(folder / f"{name}.json")
        done = jsonmatch_in_process(capsys, "compare", actual, expected, "-f", "json", "-o", path)
        assert done.returncode in (0, 1), done.stderr
        out.append(path)
    return out[0], out[1]


def test_the_table_orders_and_offers_the_built_in_formats():
    assert formats.offered(FORMAT) == ("text", "json", "html", "markdown")
    assert formats.offered(RUNS) == ("text", "html", "markdown")
    assert formats.offered(REPORT_FILES) == ("json", "html", "markdown")
    assert formats.suffix_list() == ".json, .html or .md"
    # a session writing a JSON or HTML file writes it though it compared nothing; Markdown not
    assert [n for n, f in formats.FORMATS.items() if f.written_empty] == ["json", "html"]
    assert formats.FORMATS[formats.STEP_SUMMARY].suffixes == (".md",)


def test_the_table_refuses_a_format_its_outlets_could_not_use():
    with pytest.raises(ValueError, match="registered already"):
        formats.register(formats.FORMATS["json"])
    with pytest.raises(ValueError, match="chosen by its suffix"):
        formats.register(ReportFormat(name="x", write=_lines, offered_by=frozenset({REPORT_FILES})))
    with pytest.raises(ValueError, match="write_runs"):
        formats.register(ReportFormat(name="x", write=_lines, offered_by=frozenset({RUNS})))
    with pytest.raises(ValueError, match="suffix of another"):
        formats.register(
            ReportFormat(
                name="x",
                write=_lines,
                offered_by=frozenset({REPORT_FILES}),
                suffixes=(".htm",),
            )
        )
    assert "x" not in formats.FORMATS


def _reaches_every_outlet(
    fmt: ReportFormat, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``fmt`` is offered where it says, not elsewhere, and renders in each place."""
    for command in PRINTING:
        assert (fmt.name in _format_choices(command)) == (FORMAT in fmt.offered_by), command
    assert (fmt.name in _format_choices("compare-runs")) == (RUNS in fmt.offered_by)
    actual, expected = _pair(tmp_path)
    if FORMAT in fmt.offered_by:
        out = tmp_path / f"out-{fmt.name}"
        done = jsonmatch_in_process(
            capsys, "compare", actual, expected, "--format", fmt.name, "-o", str(out)
        )
        assert done.returncode == 1, done.stderr  # x against y: below the threshold
        assert out.read_text(encoding="utf-8"), fmt.name
    if RUNS in fmt.offered_by:
        base, new = _two_runs(tmp_path, capsys)
        done = jsonmatch_in_process(capsys, "compare-runs", base, new, "--format", fmt.name)
        assert done.returncode == 0, done.stderr
        assert done.stdout, fmt.name
    # a report file is chosen by each of its suffixes, upper case too, and written
    for suffix in fmt.suffixes:
        files = ReportFiles.parse([f"r{suffix.upper()}"], "jsonmatch_report", tmp_path)
        assert files.paths == {fmt.name: str(tmp_path / f"r{suffix.upper()}")}
    if REPORT_FILES in fmt.offered_by:
        assert fmt.suffixes[0] in formats.suffix_list()
        files = ReportFiles.parse([f"written{fmt.suffixes[0]}"], "jsonmatch_report", tmp_path)
        report = load_report(_two_runs(tmp_path, capsys)[0])
        assert files.write(report) == []
        assert (tmp_path / f"written{fmt.suffixes[0]}").read_text(encoding="utf-8")
        # the session builds its report whole exactly when the format needs it
        parts = SettingParts(given_reports=files)
        assert (parts.writes_reports, files.written_empty) == (fmt.whole, fmt.written_empty)


@pytest.mark.parametrize("name", list(formats.FORMATS))
def test_every_format_reaches_the_outlets_it_names(name, tmp_path, capsys):
    _reaches_every_outlet(formats.FORMATS[name], tmp_path, capsys)


def test_the_plugins_help_lists_every_report_file():
    text = BY_NAME["report"].help
    for name in formats.offered(REPORT_FILES):
        fmt = formats.FORMATS[name]
        assert f"{fmt.suffixes[0]} ({fmt.describe})" in text


def test_a_format_registered_alone_reaches_every_outlet(lines_format, tmp_path, capsys):
    _reaches_every_outlet(lines_format, tmp_path, capsys)
    actual, expected = _pair(tmp_path)
    done = jsonmatch_in_process(capsys, "compare", actual, expected, "-f", "lines")
    assert {"cases", "comparisons", "gates"} <= set(json.loads(done.stdout)["keys"])
    assert formats.suffix_list() == ".json, .html, .md or .lines"
    # it reads no case: a session writing only it keeps its report partial; with Markdown,
    # which reads every case, whole
    alone = ReportFiles(paths={"lines": "x.lines"})
    assert not SettingParts(given_reports=alone).writes_reports
    both = ReportFiles(paths={"lines": "x.lines", "markdown": "y.md"})
    assert SettingParts(given_reports=both).writes_reports


def test_a_format_registered_alone_is_a_report_file_of_the_plugin(lines_format, pytester):
    pytester.makepyfile("""
        from pytest_jsonmatch import assert_json_match

        def test_one():
            assert_json_match({"a": 1}, {"a": 1})
    """)
    result = pytester.runpytest_inprocess("-p", "no:cacheprovider", "--jsonmatch-report=r.lines")
    result.assert_outcomes(passed=1)
    written = json.loads((pytester.path / "r.lines").read_text(encoding="utf-8"))
    assert written["overall"] == 1.0


def test_the_docs_name_every_format_of_each_outlet():
    # the docs are written by hand: a format added to the table fails here until they say it
    docs = Path(__file__).resolve().parents[2] / "docs"
    cli = (docs / "cli.md").read_text(encoding="utf-8")
    lists = [set(m.split("|")) for m in re.findall(r"--format ([a-z]+(?:\|[a-z]+)+)", cli)]
    assert set().union(*lists) == set(formats.offered(FORMAT))
    (runs,) = re.findall(r"\[--format ([a-z|]+)\] \[-o OUT\] \[-v\]", cli)  # compare-runs
    assert set(runs.split("|")) == set(formats.offered(RUNS))
    ci = (docs / "ci.md").read_text(encoding="utf-8")
    (row,) = [line for line in ci.splitlines() if line.startswith("| `report` |")]
    suffixes = re.findall(r"`(\.[a-z]+)`", row.split("by its suffix:")[1])
    assert suffixes == [formats.FORMATS[n].suffixes[0] for n in formats.offered(REPORT_FILES)]
