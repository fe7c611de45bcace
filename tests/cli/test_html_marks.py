"""The HTML report marks a flaky case and a quarantined one: read back from the page's data
block (tests/cli/html_data.py), the page written by a real session (pytester) with
repeated cases and a quarantine file, on a fixed clock (JSONMATCH_TODAY).

Each case's runs answer, in turn, the letters ``answers.json`` gives its input (x matches the
expected ``b``, y does not); at threshold 1 a run passes only with x:

    case     runs  answers  passed
    wobbly   4     xyxy     2 of 4: flaky
    steady   4     x        4 of 4
    held     1     y        0 of 1, quarantined (its runs cannot be flaky: it counts nowhere)
"""

from __future__ import annotations

import json

from tests.helpers.plugin_cases import ALTERNATING_TARGET, ARGS

from .html_data import page_data

CASES = """
threshold: 1
cases:
  - {id: wobbly, repeat: 4, expected: {a: 1, b: x}, input: a}
  - {id: steady, repeat: 4, expected: {a: 1, b: x}, input: b}
  - {id: held, expected: {a: 1, b: x}, input: c}
"""
ANSWERS = {"a": "xyxy", "b": "x", "c": "y"}
QUARANTINE = """
- case: c.jsonmatch.yaml::held
  reason: the model flips <b>, ticket 7
  until: 2026-05-31
"""


def test_a_flaky_case_and_a_quarantined_one_are_marked(pytester, monkeypatch):
    pytester.makeconftest(ALTERNATING_TARGET)
    pytester.makefile(".jsonmatch.yaml", c=CASES)
    (pytester.path / "answers.json").write_text(json.dumps(ANSWERS))
    (pytester.path / "q.yaml").write_text(QUARANTINE)
    pytester.makeini("[pytest]\njsonmatch_quarantine = q.yaml\n")
    monkeypatch.setenv("JSONMATCH_TODAY", "2026-05-01")
    pytester.runpytest_inprocess(*ARGS, "--jsonmatch-report=r.html", "--jsonmatch-report=r.json")
    assert json.loads((pytester.path / "r.json").read_text())["reliability"]["flaky"] == [
        "c.jsonmatch.yaml::wobbly"
    ]
    page = (pytester.path / "r.html").read_text(encoding="utf-8")
    data = page_data(page)
    # a case row is [case_id, status, metric, mean_score, file, line, extra?]; the plugin's
    # case ids are written as [the part after "file::"]
    extras = {row[0][0]: (row[6] if len(row) > 6 else {}) for row in data["cases"]}
    assert extras["wobbly"]["flaky"] == 1 and "quarantine" not in extras["wobbly"]
    assert "flaky" not in extras["steady"] and "quarantine" not in extras["steady"]
    assert extras["held"]["quarantine"] == ["the model flips <b>, ticket 7", "2026-05-31"]
    assert "flaky" not in extras["held"]
    # the reason is data: in the block its "<" is escaped, as every value's is
    assert "the model flips <b>" not in page and "flips \\u003cb>, ticket 7" in page
    # the page's script makes the marks, with the quarantine's date and reason as the title
    assert 'badge("flaky", "its runs disagree: some passed, some failed")' in page
    assert 'badge("quarantined", "quarantined until " + x.quarantine[1]' in page
