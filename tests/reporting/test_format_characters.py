"""Invisible format characters from data (a right-to-left override, U+202E, and the other
bidirectional controls, zero-width joiners, a soft hyphen: Unicode's category Cf) and control
characters reach no page a reviewer reads: the Markdown report, the step summary (the same
Markdown, appended to ``$GITHUB_STEP_SUMMARY``) and the HTML page (its markup and its data
block) write each as its escape, ``\\u202e``, as the terminal does (engine/core/errors.py
``printable``: one rule for every output). Without it a field's name or value could show
reversed (``"total \\u202e1-- "`` reads as ``total  --1``) on the page that decides a merge."""

from __future__ import annotations

import json
import unicodedata

from pytest_jsonmatch.dataset import Pair, ScoreSettings, comparison_of
from pytest_jsonmatch.engine.match import match_json
from pytest_jsonmatch.reporting.render.html import render_html, render_runs_html
from pytest_jsonmatch.reporting.render.markdown import (
    escape,
    render_markdown,
    render_runs_markdown,
)
from pytest_jsonmatch.reporting.run_model.aggregate import summarize
from pytest_jsonmatch.reporting.run_model.comparisons import ERROR, Comparison
from pytest_jsonmatch.reporting.verdicts.gates import GateSettings, decision_of
from pytest_jsonmatch.reporting.verdicts.report import build_report
from pytest_jsonmatch.reporting.verdicts.runs import Run, compare_runs
from tests.cli.html_data import case_ids, page_data, reconstructed
from tests.helpers.plugin_cases import ARGS, write

RLO = "\u202e"  # right-to-left override
# every bidirectional control, a zero-width joiner, a soft hyphen, a BOM, an ESC and a DEL
HIDDEN = "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200e\u200f\u061c"
HIDDEN += "\u200d\u00ad\ufeff\x1b\x7f"
ZERO_WIDTH_SPACE = "\u200b"  # the project's own break of a link or a workflow command


def _raw(text: str) -> list[str]:
    """The characters of ``text`` no page may hold raw: controls (but a line's end and a
    tab) and format characters (but the project's own zero-width space)."""
    return sorted(
        {
            c
            for c in text
            if (unicodedata.category(c) == "Cf" and c != ZERO_WIDTH_SPACE)
            or (unicodedata.category(c) == "Cc" and c not in "\n\t")
        }
    )


def _report() -> dict:
    """Two cases of a data set (its ids as given, as ``jsonmatch score`` keeps them): one
    whose id, keys and values hold every hidden character, one that could not be scored,
    its error quoting them."""
    settings = ScoreSettings("field_f1", 0.9, {}, "full")
    case_id = f"inv {RLO}1-- {HIDDEN}"
    expected = {"total": 10, "note": "ok", "items": [{"sku": "A"}]}
    actual = {f"total {RLO}1-- ": 10, "note": f"x{HIDDEN}y", "items": [{"sku": f"B{RLO}"}]}
    comparison = comparison_of(
        Pair(case_id, expected, actual, case_id, f"data{RLO}.jsonl", 1),
        match_json(actual, expected),
        settings,
    )
    error = Comparison(
        case_id=f"err {RLO}",
        nodeid=f"err {RLO}",
        metric="field_f1",
        score=0.0,
        threshold=0.9,
        status=ERROR,
        error=f"no JSON object found in actual: 'x{HIDDEN}'",
    )
    summary = summarize([comparison, error])
    return build_report(
        summary,
        [comparison, error],
        decision_of(summary, GateSettings(fail_under=0.9)),
        None,
        {"command": ["jsonmatch", f"score {RLO}x"]},
    )


def test_markdown_writes_every_hidden_character_as_its_escape():
    page = render_markdown(_report(), full=True)
    assert _raw(page) == []
    # the hallucinated key where it shows: "\u202e" as six characters, its backslash escaped
    # for Markdown (as the path's brackets are), so that the page reads "\u202e"
    assert r'\["total \\u202e1-- "\]' in page
    assert r"| inv \\u202e1-- \\u202a\\u202b" in page  # the case id
    # markup is escaped after, and a link broken after: by the project's own zero-width space
    assert escape(f"a{RLO}*b https://x") == r"a\\u202e\*b https:" + "\u200b//x"


def test_the_html_page_holds_no_hidden_character_in_its_markup_nor_its_data():
    report = _report()
    page = render_html(report)
    assert _raw(page) == []  # the bytes of the page, markup and data block alike
    data = page_data(page)
    # read back, the data shows each hidden character as its escape: the page's script puts
    # the text it reads on the page as it is
    assert case_ids(data) == ["err \\u202e", f"inv \\u202e1-- {_escaped(HIDDEN)}"]
    fields = {f["path"]: f for run in reconstructed(data) for f in run}
    assert fields["note"]["actual"] == f"x{_escaped(HIDDEN)}y"
    assert fields["items[0].sku"]["actual"] == "B\\u202e"
    assert '["total \\u202e1-- "]' in fields  # the hallucinated key, in its path


def test_the_runs_comparison_pages_hold_no_hidden_character():
    report = json.loads(json.dumps(_report()))  # (as a report file reads back)
    runs = [Run(f"base {RLO}", f"a{RLO}.json", report), Run("new", "n.json", report)]
    data = compare_runs(runs)
    # the run's name as each page shows it: "\u202e" (Markdown's source escapes its backslash)
    for render, shown in (
        (render_runs_markdown, r"base \\u202e"),
        (render_runs_html, r"base \u202e"),
    ):
        page = render(data)
        assert _raw(page) == [], render.__name__
        assert shown in page, render.__name__


def _escaped(text: str) -> str:
    """``text`` as the pages show it: each character by its escape (all hidden here)."""
    return "".join(f"\\x{ord(c):02x}" if ord(c) < 0x100 else f"\\u{ord(c):04x}" for c in text)


def test_a_session_writes_no_hidden_character_to_its_pages_or_the_step_summary(
    pytester, monkeypatch
):
    summary = pytester.path / "step-summary.md"
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    pytester.makeini("[pytest]\njsonmatch_golden = golden\n")
    write(
        pytester,
        "golden/c.jsonmatch.yaml",
        f'cases:\n  - {{id: a, actual: {{"total {RLO}1-- ": 1, a: "x{RLO}"}}, '
        'expected: {a: "y"}}\n',
    )
    result = pytester.runpytest_inprocess(
        *ARGS, "--jsonmatch-report=out/r.md", "--jsonmatch-report=out/r.html"
    )
    result.assert_outcomes(failed=1)
    for path in (pytester.path / "out" / "r.md", pytester.path / "out" / "r.html", summary):
        text = path.read_text(encoding="utf-8")
        assert _raw(text) == [], path.name
        assert "\\u202e1-- " in text, path.name  # (in Markdown, after its own backslash)
    assert RLO not in result.stdout.str()  # as the terminal already showed it
