"""The example suite's outputs stay byte-identical: its terminal summary, JSON report (version
aside), JUnit XML and Markdown summary are compared with the files in
``tests/plugin/example_suite_outputs/``, after normalising only what varies from one run or
one machine to the next (see ``_normalise_*`` below).

The suite (``example_suite/``, recordings included) is copied into a temporary folder and run
once, in a subprocess, replaying its recordings: nothing is called live (sockets are refused
there) and nothing is written inside the copy (no new recording).

To regenerate the expected files after a change that is meant to change the outputs:

    JSONMATCH_REGEN_EXAMPLE_OUTPUTS=1 python3 -m pytest tests/plugin/test_example_suite_outputs.py

(the test then writes the files instead of comparing, and fails so that a regeneration is
never mistaken for a pass). Review the diff of ``tests/plugin/example_suite_outputs/``.
"""

from __future__ import annotations

import difflib
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import pytest_jsonmatch

REPO = Path(__file__).resolve().parents[2]
SUITE = REPO / "example_suite"
EXPECTED = Path(__file__).resolve().parent / "example_suite_outputs"
REGEN_VARIABLE = "JSONMATCH_REGEN_EXAMPLE_OUTPUTS"

# The command-line arguments of the run, beside `sys.executable -m pytest` (cwd: the copy).
# ONE place for them: the flags of the JSON report and of the Markdown summary may be renamed;
# change them here (and only here). {report}, {markdown} and {junit} are the output paths.
# No cache folder in the copy, no pytest-randomly reordering, no xdist (-n is not given), and
# the network guard (_NO_NETWORK_PLUGIN below) loaded.
ARGS = [
    # the folders and files in the order pytest 8 and later collect them, named so that
    # pytest 7 (which collects a folder's files before its subfolders) runs them alike
    "golden/invoices",
    "golden/products",
    "smoke.jsonmatch.yaml",
    "test_assertions.py",
    "-p",
    "no:cacheprovider",
    "-p",
    "no:randomly",
    "-p",
    "_jsonmatch_no_network",
    "--jsonmatch-report={report}",
    "--jsonmatch-report={markdown}",
    "--junitxml={junit}",
]

# The files compared, as named in EXPECTED.
TERMINAL, REPORT, MARKDOWN, JUNIT = "terminal.txt", "report.json", "summary.md", "junit.xml"

TMP = "<TMP>"  # what the run's temporary folder is replaced with

# Loaded in the subprocess with -p (see ARGS): a socket connection or a DNS look-up raises, so
# a case that called a live model instead of replaying its recording fails the run.
_NO_NETWORK_PLUGIN = """\
import sys

def _refuse(event, args):
    if event in ("socket.connect", "socket.getaddrinfo"):
        raise RuntimeError(f"the example suite tried the network: {event} {args!r}")

sys.addaudithook(_refuse)
"""

# Environment variables that change what the plugin or pytest print or write: CI ones
# (annotations, a step summary, updates refused), colour switches, and any PYTEST_* or
# JSONMATCH_* setting inherited from the outer run (xdist's worker variables, PYTEST_ADDOPTS).
_DROPPED = ("CI", "GITHUB_ACTIONS", "GITHUB_STEP_SUMMARY", "NO_COLOR", "FORCE_COLOR", "PY_COLORS")


def _environment(guard: Path) -> dict[str, str]:
    env = {
        name: value
        for name, value in os.environ.items()
        if name not in _DROPPED and not name.startswith(("PYTEST_", "JSONMATCH_"))
    }
    # the same copy of the package as this process, and the network guard, come first
    package_root = str(Path(pytest_jsonmatch.__file__).resolve().parents[1])
    env["PYTHONPATH"] = os.pathsep.join(
        [str(guard), package_root] + [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p]
    )
    env["COLUMNS"] = "100"  # a fixed terminal width: separator lines and progress columns
    env["PY_COLORS"] = "0"
    env["PYTHONDONTWRITEBYTECODE"] = "1"  # so that the copy stays byte-identical (see below)
    return env


def _snapshot(folder: Path) -> dict[str, bytes]:
    return {
        str(path.relative_to(folder)): path.read_bytes()
        for path in sorted(folder.rglob("*"))
        if path.is_file()
    }


def _run_example_suite(tmp_path: Path) -> dict[str, str]:
    suite = tmp_path / "example_suite"
    shutil.copytree(SUITE, suite, ignore=shutil.ignore_patterns("__pycache__", ".pytest_cache"))
    guard = tmp_path / "guard"
    guard.mkdir()
    (guard / "_jsonmatch_no_network.py").write_text(_NO_NETWORK_PLUGIN)
    out = tmp_path / "out"
    paths = {"report": out / REPORT, "markdown": out / MARKDOWN, "junit": out / JUNIT}
    args = [arg.format(**paths) for arg in ARGS]
    before = _snapshot(suite)

    completed = subprocess.run(
        [sys.executable, "-m", "pytest", *args],
        cwd=suite,
        env=_environment(guard),
        capture_output=True,
        timeout=300,
        check=False,
    )
    terminal = completed.stdout.decode("utf-8")
    assert completed.returncode == 0, terminal + completed.stderr.decode("utf-8", "replace")
    assert completed.stderr == b"", completed.stderr.decode("utf-8", "replace")
    # every input case replayed its recording: nothing recorded, nothing else written there
    after = _snapshot(suite)
    written = sorted(
        name for name in before.keys() | after.keys() if before.get(name) != after.get(name)
    )
    assert written == [], f"the run wrote into the example suite (a new recording?): {written}"

    roots = {str(tmp_path), str(tmp_path.resolve())}
    return {
        TERMINAL: _normalise_terminal(terminal, roots),
        REPORT: _normalise_report(paths["report"].read_text(encoding="utf-8")),
        MARKDOWN: _normalise_markdown(paths["markdown"].read_text(encoding="utf-8")),
        JUNIT: _normalise_junit(paths["junit"].read_text(encoding="utf-8")),
    }


# -- normalisations: each replaces only what differs between two runs or two machines --------

_SEPARATOR = re.compile(r"^(?P<c>[=-])(?P=c)* (?P<text>.*?) (?P=c)+$")
# pytest's duration, on its last line: "in 1.25s", or "in 75.12s (0:01:15)"
_DURATION = re.compile(r"\bin \d+\.\d+s(?: \(\d+:\d\d:\d\d\))?")


def _normalise_terminal(text: str, roots: set[str]) -> str:
    """From pytest's "collected N items" line to the end. Before it, pytest's header names the
    platform, the Python and plugin versions and the rootdir: the machine's, not ours. In the
    rest: the temporary folder (the JUnit and report paths printed) becomes <TMP>; pytest's
    duration on its last line becomes "in <DURATION>". A separator line whose text changed so
    is re-padded to a fixed "=== text ===": its padding depended on the text's length."""
    lines = text.splitlines(keepends=True)
    start = next(i for i, line in enumerate(lines) if line.startswith("collected "))
    result = []
    for index in range(start, len(lines)):
        new = line = lines[index]
        for root in sorted(roots, key=len, reverse=True):
            new = new.replace(root, TMP)
        if index == len(lines) - 1:
            new = _DURATION.sub("in <DURATION>", new)
        if new != line:
            separator = _SEPARATOR.match(new.rstrip("\n"))
            if separator:
                c = separator["c"]
                new = f"{c * 3} {separator['text']} {c * 3}\n"
        result.append(new)
    return "".join(result)


def _after_blanks(text: str, at: int) -> int:
    while text[at] in " \t\n\r":
        at += 1
    return at


def _top_level_members(text: str) -> dict[str, tuple[int, int, int, int]]:
    """The top-level members of a JSON object, as written: key -> (start of the key, start of
    the value, end of the value, end of the member with its comma and the blanks after)."""
    decoder = json.JSONDecoder()
    members = {}
    at = _after_blanks(text, 0)
    assert text[at] == "{"
    at = _after_blanks(text, at + 1)
    while text[at] != "}":
        key_start = at
        key, at = decoder.raw_decode(text, at)
        at = _after_blanks(text, at)
        assert text[at] == ":"
        value_start = _after_blanks(text, at + 1)
        _, value_end = decoder.raw_decode(text, value_start)
        at = _after_blanks(text, value_end)
        if text[at] == ",":
            at = _after_blanks(text, at + 1)
        members[key] = (key_start, value_start, value_end, at)
    return members


def _normalise_report(text: str) -> str:
    """``version`` is removed (a refactor may raise it) and the value of ``run`` (the time, the
    command line with its temporary paths, the plugin and Python versions, the git commit)
    becomes "<RUN>". Everything else stays as written: indentation, key order, floats."""
    members = _top_level_members(text)
    _, run_start, run_end, _ = members["run"]
    text = text[:run_start] + '"<RUN>"' + text[run_end:]
    version_start, _, _, version_member_end = _top_level_members(text)["version"]
    return text[:version_start] + text[version_member_end:]


def _normalise_markdown(text: str) -> str:
    """Nothing: two runs on two machines write the same summary."""
    return text


# pytest's junitxml writes the time each test and the suite took, when, and on which host
_JUNIT_VARYING = re.compile(r'\b(time|timestamp|hostname)="[^"]*"')


def _normalise_junit(text: str) -> str:
    """The values of the ``time``, ``timestamp`` and ``hostname`` attributes become "<…>";
    the root element's name, which pytest 7 does not write, is left out."""
    text = text.replace('<testsuites name="pytest tests">', "<testsuites>")
    return _JUNIT_VARYING.sub(lambda m: f'{m[1]}="<{m[1].upper()}>"', text)


def _unified_diff(expected: str, actual: str, name: str) -> str:
    """A unified diff of the two texts. pytest writes JUnit XML on one line: for the diff
    only, it is cut after each tag (unless the texts differ in nothing else)."""

    def lines(text: str, cut: bool) -> list[str]:
        return (text.replace("><", ">\n<") if cut else text).splitlines(keepends=True)

    for cut in (True, False) if name.endswith(".xml") else (False,):
        diff = "".join(
            difflib.unified_diff(
                lines(expected, cut),
                lines(actual, cut),
                fromfile=f"expected/{name}",
                tofile=f"actual/{name}",
                n=2,
            )
        )
        if diff:
            return diff
    return f"{name}: the texts differ in their line endings only\n"


def test_example_suite_outputs_are_byte_identical(tmp_path):
    outputs = _run_example_suite(tmp_path)

    if os.environ.get(REGEN_VARIABLE):
        EXPECTED.mkdir(exist_ok=True)
        for name, text in outputs.items():
            (EXPECTED / name).write_bytes(text.encode("utf-8"))
        raise AssertionError(
            f"{REGEN_VARIABLE} is set: wrote {sorted(outputs)} into {EXPECTED}; "
            "review their diff and run again without it"
        )

    differences = []
    for name, actual in outputs.items():
        expected = (EXPECTED / name).read_bytes().decode("utf-8")
        if actual != expected:
            differences.append(_unified_diff(expected, actual, name))
    if differences:
        pytest.fail(
            f"the example suite's outputs changed ({REGEN_VARIABLE}=1 regenerates them):\n"
            + "\n".join(differences),
            pytrace=False,
        )
