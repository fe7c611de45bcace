"""``jsonmatch compare-runs`` names the cases that became flaky, and the ones that stopped
being, between runs of repeated golden cases: the reports written by real pytest sessions
(pytester), compared in this process.

Each case's runs answer, in turn, the letters ``answers.json`` gives its input (x matches
the expected ``b``, y does not, E raises: a run that cannot be scored, after which a golden
case stops). At threshold 1 a run passes only with x. Five runs a case:

    case           run A (base)           run B (new)            run C (same as A)
    three-of-five  xxyxy: 3 of 5, flaky   x: 5 of 5              xxyxy: flaky
    steady         x: 5 of 5              xxxxy: 4 of 5, flaky   x
    never          y: 0 of 5              y: 0 of 5              y
    cut            xE: 1 scored (stops)   xy...: flaky           xE: 1 scored
    once           run once: not repeated

B against A: steady became flaky, three-of-five stopped being; cut is flaky in B but was
scored once in A, which says nothing of whether it was flaky there: named in neither list.
C against A: nothing changed.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from pytest_jsonmatch.reporting.verdicts.report import load_report
from pytest_jsonmatch.reporting.verdicts.runs import Run, compare_runs
from pytest_jsonmatch.reporting.verdicts.versus import runs_of_report
from tests.helpers.plugin_cases import ALTERNATING_TARGET, ARGS

CASES = """
threshold: 1
cases:
  - {id: three-of-five, repeat: 5, expected: {a: 1, b: x}, input: a}
  - {id: steady, repeat: 5, expected: {a: 1, b: x}, input: b}
  - {id: never, repeat: 5, expected: {a: 1, b: x}, input: c}
  - {id: cut, repeat: 5, expected: {a: 1, b: x}, input: d}
  - {id: once, expected: {a: 1, b: x}, input: e}
"""
BASE = {"a": "xxyxy", "b": "x", "c": "y", "d": "xE", "e": "x"}
NEW = {"a": "x", "b": "xxxxy", "c": "y", "d": "xy", "e": "x"}
F = "c.jsonmatch.yaml::"


def _reports(pytester) -> dict[str, Path]:
    """base.json, new.json and same.json, each written by a session of the five cases."""
    pytester.makeconftest(ALTERNATING_TARGET)
    pytester.makefile(".jsonmatch.yaml", c=CASES)
    out = {}
    for name, answers in (("base", BASE), ("new", NEW), ("same", BASE)):
        (pytester.path / "answers.json").write_text(json.dumps(answers))
        pytester.runpytest_inprocess(*ARGS, f"--jsonmatch-report={name}.json")
        out[name] = pytester.path / f"{name}.json"
    return out


def test_the_cases_that_became_flaky_and_stopped_being(pytester, jsonmatch_main):
    paths = _reports(pytester)
    runs = [
        Run(name, str(path), load_report(str(path)))
        for name, path in (("base", paths["base"]), ("new", paths["new"]), ("same", paths["same"]))
    ]
    # each report's own reliability section agrees on which of its cases are flaky
    assert runs[0].report["reliability"]["flaky"] == [f"{F}three-of-five"]
    assert runs[1].report["reliability"]["flaky"] == [f"{F}cut", f"{F}steady"]
    data = compare_runs(runs)
    assert data["flaky"] == [
        {
            "run": "base",
            "flaky": [f"{F}three-of-five"],
            "became_flaky": None,
            "no_longer_flaky": None,
        },
        {
            "run": "new",
            "flaky": [f"{F}cut", f"{F}steady"],
            "became_flaky": [f"{F}steady"],  # cut: one scored run in base, so not named
            "no_longer_flaky": [f"{F}three-of-five"],
        },
        {
            "run": "same",
            "flaky": [f"{F}three-of-five"],
            "became_flaky": [],
            "no_longer_flaky": [],
        },
    ]
    result = jsonmatch_main(
        "compare-runs", str(paths["base"]), str(paths["new"]), str(paths["same"])
    )
    assert result.returncode == 0, result.stderr
    tail = result.stdout.splitlines()[-4:]
    assert tail == [
        "Flaky cases (a case whose scored runs disagree: some passed, some failed):",
        "  base.json: 1 flaky",
        f"  new.json: 2 flaky; became flaky against base.json (1): {F}steady; "
        f"stopped being (1): {F}three-of-five",
        "  same.json: 1 flaky; against base.json, none became flaky or stopped being",
    ]


def test_markdown_and_html_name_them_too(pytester, jsonmatch_main, tmp_path):
    paths = _reports(pytester)
    base, new = str(paths["base"]), str(paths["new"])
    result = jsonmatch_main(
        "compare-runs", base, new, "--name", "A", "--name", "B", "-f", "markdown"
    )
    assert result.returncode == 0, result.stderr
    flaky = result.stdout.split("### Flaky cases")[1]
    assert flaky.splitlines()[2:4] == [
        "- A: 1 flaky",
        f"- B: 2 flaky; became flaky against A (1): {F}steady; stopped being (1): {F}three-of-five",
    ]
    page = tmp_path / "runs.html"
    args = ("compare-runs", base, new, "--name", "A", "--name", "<B>", "-f", "html")
    assert jsonmatch_main(*args, "-o", str(page)).returncode == 0
    html = page.read_text(encoding="utf-8")
    items = re.findall(r'<li data-run="([^"]*)">(.*?)</li>', html.split('id="flaky"')[1])
    assert items == [
        ("A", "A: 1 flaky"),
        (
            "&lt;B&gt;",
            f"&lt;B&gt;: 2 flaky; became flaky against A (1): {F}steady; "
            f"stopped being (1): {F}three-of-five",
        ),
    ]


def test_runs_without_repeated_cases_say_nothing_of_flakiness(pytester):
    pytester.makeconftest(ALTERNATING_TARGET)
    pytester.makefile(".jsonmatch.yaml", c="expected: {a: 1, b: x}\ninput: a\n")
    (pytester.path / "answers.json").write_text(json.dumps(BASE))
    pytester.runpytest_inprocess(*ARGS, "--jsonmatch-report=r.json")
    report = load_report(str(pytester.path / "r.json"))
    data = compare_runs([Run("a", "r.json", report), Run("b", "r.json", report)])
    assert "flaky" not in data
    assert runs_of_report(report, "r.json") == []  # (no named targets either)
