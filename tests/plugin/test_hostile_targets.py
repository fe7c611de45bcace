"""What a careless or hostile target returns never breaks a run: usage figures are checked at
the door (a case error naming the field), and text holding lone surrogates (half of a UTF-16
pair, which UTF-8 cannot encode) is written escaped in every report format."""

from __future__ import annotations

import json

import jsonschema
import pytest

from pytest_jsonmatch.reporting.report import schema
from tests.helpers.plugin_cases import ARGS, write

REPORTS = ("--jsonmatch-report=out/r.json", "--jsonmatch-report=out/r.html",
           "--jsonmatch-report=out/r.md", "--junitxml=out/junit.xml")


def _report(pytester: pytest.Pytester) -> dict:
    data = json.loads((pytester.path / "out" / "r.json").read_text(encoding="utf-8"))
    jsonschema.validate(data, schema())
    return data


@pytest.mark.parametrize(("usage", "named"), [
    ("cost=float('nan')", "TargetResult.cost must be a finite number >= 0 or None, not nan"),
    ("cost=float('inf')", "TargetResult.cost must be a finite number >= 0 or None, not inf"),
    ("cost=10**400", "TargetResult.cost must be a finite number >= 0 or None, not an integer"),
    ("cost=-0.5", "TargetResult.cost must be a finite number >= 0 or None, not -0.5"),
    ("input_tokens='12'", "TargetResult.input_tokens must be a whole number >= 0 or None, "
                          "not '12'"),
    ("output_tokens=1.5", "TargetResult.output_tokens must be a whole number >= 0 or None, "
                          "not 1.5"),
    ("output_tokens=True", "TargetResult.output_tokens must be a whole number >= 0 or None, "
                           "not True"),
])
def test_usage_that_is_not_a_figure_is_a_case_error_naming_the_field(pytester, usage, named):
    write(pytester, "llm.py", f"""\
        from pytest_jsonmatch import TargetResult

        def extract(text):
            return TargetResult({{"name": text}}, {usage})
        """)
    write(pytester, "pytest.ini", "[pytest]\npythonpath = .\njsonmatch_target = llm:extract\n")
    write(pytester, "golden/c.jsonmatch.yaml", """\
        cases:
          - {id: bad-usage, input: ACME, expected: {name: ACME}}
        """)
    result = pytester.runpytest_inprocess(*ARGS, *REPORTS[:3])
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines([f"*case 'bad-usage': the target's {named}*"])
    assert "Traceback" not in result.stdout.str() and "INTERNALERROR" not in result.stdout.str()
    (comparison,) = _report(pytester)["comparisons"]
    assert comparison["status"] == "error" and named in comparison["error"]
    assert comparison["call"]["failed"] is True
    assert (pytester.path / "out" / "r.html").is_file() and (pytester.path / "out" / "r.md").is_file()


def test_lone_surrogates_are_written_escaped_in_every_format(pytester, monkeypatch):
    summary = pytester.path / "step-summary.md"
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    pytester.makepyfile(test_sur="""
        from pytest_jsonmatch import assert_json_match

        def test_sur():
            assert_json_match({"vendor": "AC\\ud800ME", "x\\udc00": 1}, {"vendor": "ACME"})
        """)
    result = pytester.runpytest_inprocess(*ARGS, *REPORTS)
    result.assert_outcomes(failed=1)
    out = result.stdout.str()
    assert "INTERNALERROR" not in out and "UnicodeEncodeError" not in out
    assert '["x\\udc00"]' in out  # the summary's field table shows the escape
    data = _report(pytester)
    # JSON holds the half as its escape, and reads back as the text the model gave
    assert [f["path"] for f in data["comparisons"][0]["fields"]] == ["vendor", '["x\udc00"]']
    for name in ("r.html", "r.md", "junit.xml"):
        text = (pytester.path / "out" / name).read_text(encoding="utf-8")  # valid UTF-8
        assert "\\udc00" in text or "\\\\udc00" in text or name == "junit.xml", name
    html = (pytester.path / "out" / "r.html").read_text(encoding="utf-8")
    assert "AC\\ud800ME" in html  # the value, shown with its escape where the half was
    assert "\\udc00" in summary.read_text(encoding="utf-8")
