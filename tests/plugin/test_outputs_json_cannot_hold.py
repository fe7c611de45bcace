"""A target's output (or a case's input) that holds what JSON cannot (NaN, an infinity, a
set, a key that is not text, another object) is written into every report in JSON's terms
(reporting/run_model/comparisons.py ``json_form``), marked ``output_not_json`` /
``input_not_json``: the report is written, is strict JSON, and every reader of a saved report
takes it back (the schema, ``jsonmatch report``, ``jsonmatch diff``, a baseline)."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema

from pytest_jsonmatch.cli.app import main
from pytest_jsonmatch.reporting.run_model.validation import schema
from pytest_jsonmatch.reporting.verdicts.baseline import load_baseline
from tests.helpers.plugin_cases import ARGS, write
from tests.helpers.reports import held

TARGET = """\
class Opaque:
    def __repr__(self):
        return "Opaque()"

def extract(given):
    if given == "odd":
        return {"x": float("nan"), "y": float("inf"), "s": {2, 1}}
    return {"name": given["text"], 3: "k", (1, 2): "t", "z": -float("inf"), "o": Opaque(), "b": b"\\x00"}
"""
CASES = """\
cases:
  - {id: odd, input: odd, expected: {x: 1, y: 2, s: [1, 2]}}
  - {id: keys, input: {text: keys, v: .nan, w: -.inf}, expected: {name: keys}}
"""
REPORTS = ("--jsonmatch-report=r.json", "--jsonmatch-report=r.md", "--jsonmatch-report=r.html")


def _strict(text: str) -> object:
    """JSON text read by the strict rules: NaN and the infinities are not JSON."""

    def refuse(constant: str) -> None:
        raise ValueError(f"not JSON: {constant}")

    return json.loads(text, parse_constant=refuse)


def test_an_output_json_cannot_hold_is_written_in_json_s_terms_in_every_report(pytester):
    write(pytester, "llm.py", TARGET)
    write(pytester, "pytest.ini", "[pytest]\npythonpath = .\njsonmatch_target = llm:extract\n")
    write(pytester, "golden/c.jsonmatch.yaml", CASES)
    result = pytester.runpytest_inprocess(*ARGS, *REPORTS, "--junitxml=j.xml")
    assert "could not write" not in result.stdout.str()
    result.stdout.fnmatch_lines(["report written to *r.json"])
    text = (pytester.path / "r.json").read_text(encoding="utf-8")
    data = _strict(text)
    jsonschema.validate(data, schema())
    keys, odd = held(text)["comparisons"]  # (sorted by case id)
    assert odd["output"] == {"x": "NaN", "y": "Infinity", "s": [1, 2]}
    assert odd["output_not_json"] is True and "input_not_json" not in odd
    assert "output_cut" not in odd  # rewritten, not cut
    assert keys["input"] == {"text": "keys", "v": "NaN", "w": "-Infinity"}
    assert keys["input_not_json"] is True
    # a key that is not text: its JSON text; any other object: its repr
    assert keys["output"] == {
        "name": "keys",
        "3": "k",
        "[1,2]": "t",
        "z": "-Infinity",
        "o": "Opaque()",
        "b": "b'\\x00'",
    }
    for name in ("r.md", "r.html", "j.xml"):  # the other writers took the same comparisons
        assert (pytester.path / name).is_file(), name
    html = (pytester.path / "r.html").read_text(encoding="utf-8")
    assert "NaN" in html and "Infinity" in html
    # every reader of a saved report takes it back
    report = Path(pytester.path, "r.json")
    assert load_baseline(str(report)).path == str(report)
    # (both cases could not be scored: the gates fail, and each command says so by its status)
    assert main(["report", str(report), "-f", "text", "--color", "never"]) == 1
    assert main(["report", str(report), "-f", "json", "-o", str(pytester.path / "again.json")]) == 1
    again = _strict((pytester.path / "again.json").read_text(encoding="utf-8"))
    assert [c["output"] for c in again["comparisons"]] == [c["output"] for c in data["comparisons"]]
    assert main(["diff", str(report), str(report), "-f", "text", "--color", "never"]) == 1
