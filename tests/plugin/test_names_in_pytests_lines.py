"""What pytest prints itself of a golden case (its test id: the case file's path and the case's
id) and what a target's exception says hold the rule of docs/errors.md, "Security": no line
can start a GitHub Actions workflow command, hold ``##[``, or carry a raw control character.

pytest prints a node id raw (the progress lines, the failure header, the short summary), so a
case id or a file path that could break the rule is refused at collection; the plugin's own
text (a failure, the annotations under GitHub Actions) is escaped. Real pytest sessions, under
the options that change what pytest prints, each run in this process (``pytester.inline_run``,
no other plugin loaded, as ``PYTEST_DISABLE_PLUGIN_AUTOLOAD`` leaves it) with its terminal
output taken whole, as CI reads it: every character, carriage returns included (pytester's
own reading splits the text into lines, which drops them)."""

from __future__ import annotations

import pytest

from pytest_jsonmatch.reporting.render import github
from tests.plugin.test_text_safety import _workflow_commands

pytestmark = pytest.mark.slow  # (CONTRIBUTING.md: the inner loop leaves it out)

# how pytest is asked to print: the default (short summary), the progress line of each test,
# and the --tb styles that print a failure otherwise
STYLES = {"default": [], "v": ["-v"], "line": ["--tb=line"], "native": ["--tb=native", "-rA"]}
CASE = "actual: {a: 1}\nexpected: {a: 2}\n"


def _run(pytester, capsys, monkeypatch, *flags: str) -> tuple[int, str]:
    """pytest in ``pytester.path`` (golden cases in golden/, the target agent.py's, if any),
    under GitHub Actions (where pytest's short summary prints a failure's whole text): its
    status and everything it printed."""
    root = pytester.path
    target = "pythonpath = .\njsonmatch_target = agent:agent\n"
    (root / "pytest.ini").write_text(
        "[pytest]\njsonmatch_golden = golden\n" + (target if (root / "agent.py").exists() else "")
    )
    for name in ("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "GITHUB_ACTIONS", "CI"):
        monkeypatch.setenv(name, "1" if name.startswith("PYTEST") else "true")
    plugin = ["-p", "pytest_jsonmatch.plugin", "-p", "no:cacheprovider", "--color=no"]
    capsys.readouterr()  # (what came before is not the session's)
    status = pytester.inline_run(*plugin, *flags, no_reraise_ctrlc=True).ret
    printed = capsys.readouterr()
    return int(status), printed.out + printed.err


def _commands(out: str) -> list[str]:
    """The lines a runner would take for a workflow command, the plugin's own annotations
    (commands on purpose: each one line, checked apart) left out."""
    return [ln for ln in _workflow_commands(out) if not ln.startswith("::error file=")]


def _annotations(out: str) -> list[str]:
    return [ln for ln in out.splitlines() if ln.startswith("::error file=")]


def _clean(out: str) -> bool:
    """No raw escape, carriage return or bidirectional override anywhere."""
    return not any(c in out for c in "\x1b\r\u202e")


# -- F1: a case id holding the older command form -------------------------------------------


@pytest.mark.parametrize("style", STYLES)
def test_a_case_id_holding_the_older_command_form_is_refused(pytester, capsys, monkeypatch, style):
    (pytester.path / "golden").mkdir()
    (pytester.path / "golden" / "c.jsonmatch.yaml").write_text(
        'cases:\n  - {id: "x ##[error]INJECTED-BY-CASE-ID", actual: {a: 1}, expected: {a: 2}}\n'
    )
    status, out = _run(pytester, capsys, monkeypatch, *STYLES[style])
    assert status == pytest.ExitCode.INTERRUPTED, out  # a collection error, as '::' is
    assert (
        "golden/c.jsonmatch.yaml:2: case id must be a non-empty one-line string without '::'"
        " or '#\u200b#[', not 'x #\u200b#[error]INJECTED-BY-CASE-ID'"
    ) in out  # the id shown, broken
    assert _workflow_commands(out) == [] and _clean(out), out


# -- F2: a case file's path that pytest would print raw ---------------------------------------

NAMES = {
    "newline-and-escape": (
        "x\n::warning::INJECTED-BY-FILE-NAME\x1b[31m.jsonmatch.yaml",
        "golden/x\\x0a:\u200b:warning:\u200b:INJECTED-BY-FILE-NAME\\x1b[31m.jsonmatch.yaml",
    ),
    "older-form": (
        "y ##[error]INJECTED-BY-FILE-NAME.jsonmatch.yaml",
        "golden/y #\u200b#[error]INJECTED-BY-FILE-NAME.jsonmatch.yaml",
    ),
    "bidi-override": (
        "z\u202eINJECTED-BY-FILE-NAME.jsonmatch.yaml",
        "golden/z\\u202eINJECTED-BY-FILE-NAME.jsonmatch.yaml",
    ),
}


@pytest.mark.parametrize("style", STYLES)
@pytest.mark.parametrize("name", NAMES)
def test_a_case_file_whose_path_pytest_would_print_raw_fails_under_an_escaped_name(
    pytester, capsys, monkeypatch, name, style
):
    (pytester.path / "golden").mkdir()
    (pytester.path / "golden" / NAMES[name][0]).write_text(CASE)
    (pytester.path / "golden" / "good.jsonmatch.yaml").write_text(CASE)
    status, out = _run(pytester, capsys, monkeypatch, *STYLES[style])
    assert status == pytest.ExitCode.INTERRUPTED, out  # loud: the session stops
    shown = NAMES[name][1]
    assert f"ERROR collecting {shown}" in out or f"ERROR {shown}" in out, out
    assert f"{shown}:1: the case file's path is not one printable line" in out, out
    assert "1 error" in out
    assert _workflow_commands(out) == [] and _clean(out), out


def test_a_case_files_path_in_an_id_is_refused_at_every_level(pytester, capsys, monkeypatch):
    # the path from the root, folders included: a folder's name is in every test id below it
    folder = pytester.path / "golden" / "a\n::warning::INJECTED-BY-FOLDER"
    folder.mkdir(parents=True)
    (folder / "c.jsonmatch.yaml").write_text(CASE)
    status, out = _run(pytester, capsys, monkeypatch)
    assert status == pytest.ExitCode.INTERRUPTED, out
    assert "golden/a\\x0a:\u200b:warning:\u200b:INJECTED-BY-FOLDER/c.jsonmatch.yaml:1:" in out
    assert _workflow_commands(out) == [] and _clean(out), out


# -- F3: a target's exception -------------------------------------------------------------

AGENT = """\
def agent(inp):
    raise {kind}("upstream said: \\x1b[31m##[error]INJECTED-FROM-EXCEPTION\\u202e\\n::warning::X")
"""


@pytest.mark.parametrize("style", [*STYLES, "long"])
@pytest.mark.parametrize("kind", ["RuntimeError", "AssertionError"])
def test_a_targets_exception_text_starts_no_command_in_any_tb_style(
    pytester, capsys, monkeypatch, kind, style
):
    (pytester.path / "agent.py").write_text(AGENT.format(kind=kind))
    (pytester.path / "golden").mkdir()
    (pytester.path / "golden" / "c.jsonmatch.yaml").write_text(
        "cases:\n  - {id: raise, input: {k: 1}, expected: {a: 1}}\n"
    )
    status, out = _run(pytester, capsys, monkeypatch, *STYLES.get(style, ["--tb=long"]))
    assert status == pytest.ExitCode.TESTS_FAILED, out
    assert "INJECTED-FROM-EXCEPTION" in out  # the text is shown...
    assert _commands(out) == [] and _clean(out), out  # ...as no command
    # the plugin's annotation: one command, its message escaped
    (annotation,) = _annotations(out)
    assert "could not be scored" in annotation and "##[" not in annotation, annotation


# -- the annotation writer ----------------------------------------------------------------


def test_an_annotations_message_and_properties_escape_what_data_holds():
    # a report read back (a merged shard's, a saved one): anything may stand in its texts
    hostile = "x\x1b[31m ##[error]y\u202e\r\n::warning::z"
    report = {
        "cases": [
            {
                "status": "error",
                "file": f"golden/{hostile}.yaml",
                "line": 2,
                "case_id": f"golden/c.yaml::{hostile}",
                "metric": f"field_f1{hostile}",
                "error": f"RuntimeError: {hostile}",
            }
        ]
    }
    (line,) = github.annotations(report)  # type: ignore[arg-type]
    assert line.startswith("::error file=golden/x\\x1b[31m #\u200b#[error]y\\u202e%0D%0A")
    assert "##[" not in line and _clean(line) and "\n" not in line
    assert "%3A%3Awarning%3A%3Az" in line  # a property's colons, escaped as GitHub reads them
    assert line.endswith("RuntimeError: x\\x1b[31m #\u200b#[error]y\\u202e%0D%0A::warning::z")
