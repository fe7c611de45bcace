"""One number, one print (issue 51, item 4): every output of one run (the terminal summary
with the gates' verdict, the Markdown summary, the HTML page, the JSON report and the gates'
messages it carries) is rendered and read back figure by figure (tests/helpers/
printed_figures.py), and each quantity printed more than once is printed one way. A 95%
interval is printed around the printed change beside it (reporting/verdicts/changes.py,
``printed_interval``): the change lies within its bounds, and an interval with no spread
prints both bounds equal to it.

The run: two named targets, ``large`` the reference, three cases each, against a baseline of
the same suite, with a field floor and ``max_drop`` 0.01 so that every gate prints. Scores are
chosen so that exact and printed figures round apart:

- large, each case: ``vendor`` 1.0, ``total`` 0.50006 in the baseline and 0.46533 now. The
  field's change is printed from the printed means, 0.4653 - 0.5001 = -0.0348, while the
  exact difference -0.03473 rounds to -0.0347; every case moved alike, so the interval has
  no spread.
- small now, each case: ``vendor`` 1.0, ``total`` 0.40008: case score (1 + 0.40008) / 2 =
  0.70004 ("0.7000") against large's (1 + 0.46533) / 2 = 0.732665 ("0.7327"): printed
  change -0.0327, exact -0.032625 (-0.0326), no spread. Its ``total`` against large's:
  0.4001 - 0.4653 = -0.0652 printed, exact -0.06525 (a float a hair below, "-0.0653").
- small in the baseline varies case by case (``total`` 0.9, 0.8, 0.6; ``vendor`` 1.0, 0.5,
  1.0), so the baseline's overall and small's field rows have a spread.
"""

from __future__ import annotations

import re
from collections import defaultdict
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pytest_jsonmatch.reporting.render.report_files import ReportFiles
from pytest_jsonmatch.reporting.render.text import render_text
from pytest_jsonmatch.reporting.run_model.comparisons import (
    FAILED,
    PASSED,
    Comparison,
    ReportedField,
)
from pytest_jsonmatch.reporting.verdicts.baseline import load_baseline
from pytest_jsonmatch.reporting.verdicts.changes import (
    interval_text,
    printed_change,
    printed_interval,
)
from pytest_jsonmatch.reporting.verdicts.gates import GateSettings, parse_floors
from pytest_jsonmatch.reporting.verdicts.report import conclude, write_report
from pytest_jsonmatch.reporting.verdicts.versus import VersusSettings
from tests.helpers.printed_figures import (
    INTERVAL,
    html_figures,
    json_figures,
    markdown_figures,
    text_figures,
    visible,
)

TARGETS = ("large", "small")
BASELINE = {
    "large": [{"vendor": 1.0, "total": 0.50006}] * 3,
    "small": [
        {"vendor": 1.0, "total": 0.9},
        {"vendor": 0.5, "total": 0.8},
        {"vendor": 1.0, "total": 0.6},
    ],
}
NOW = {
    "large": [{"vendor": 1.0, "total": 0.46533}] * 3,
    "small": [{"vendor": 1.0, "total": 0.40008}] * 3,
}


def _comparison(case: str, target: str, fields: dict[str, float]) -> Comparison:
    score = sum(fields.values()) / len(fields)
    case_id = f"m.yaml::{case}[{target}]"
    return Comparison(
        case_id=case_id,
        nodeid=case_id,
        metric="field_f1",
        score=score,
        threshold=0.5,
        status=PASSED if score >= 0.5 else FAILED,
        precision=score,
        recall=score,
        f1=score,
        error="",
        file="m.yaml",
        target=target,
        fields=tuple(
            ReportedField(p, p, "match" if v == 1.0 else "mismatch", v) for p, v in fields.items()
        ),
    )


def _run(spec: dict[str, list[dict[str, float]]]) -> list[Comparison]:
    return [
        _comparison(f"c{i}", target, fields)
        for target, rows in spec.items()
        for i, fields in enumerate(rows, start=1)
    ]


@pytest.fixture(scope="module")
def outputs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """Every output of the run, as the plugin writes them."""
    here: Path = tmp_path_factory.mktemp("figures")
    versus = VersusSettings(reference="large")
    report, _ = conclude(_run(BASELINE), GateSettings(), {}, targets=TARGETS, versus=versus)  # type: ignore[typeddict-item]
    write_report(here / "main.json", report)
    gates = GateSettings(max_drop=0.01, floors=parse_floors(["total=0.9"]))
    report, verdict = conclude(
        _run(NOW),
        gates,
        {},  # type: ignore[typeddict-item]
        targets=TARGETS,
        versus=versus,
        baseline=load_baseline(here / "main.json"),
    )
    assert not verdict.passed
    names = ["run.json", "run.md", "run.html"]
    assert ReportFiles.parse([str(here / n) for n in names], "reports", here).write(report) == []
    read = {n.split(".")[1]: (here / n).read_text(encoding="utf-8") for n in names}
    # the terminal: the summary and the verdict, wide enough that no line is wrapped
    return {"terminal": render_text(report, width=400, verbose=1), **read}


@pytest.fixture(scope="module")
def figures(outputs: dict[str, str]) -> dict[tuple[str, ...], dict[str, set[str]]]:
    """Each quantity's prints, by output."""
    found: dict[tuple[str, ...], dict[str, set[str]]] = defaultdict(lambda: defaultdict(set))
    read = (
        text_figures("terminal", outputs["terminal"]),
        markdown_figures("markdown", outputs["md"]),
        html_figures("html", outputs["html"]),
        json_figures("json", outputs["json"]),
    )
    for each in read:
        for output, key, text in each:
            found[key][output].add(text)
    return found


def test_every_figure_printed_twice_is_printed_one_way(figures):
    differ = {
        key: {output: sorted(texts) for output, texts in prints.items()}
        for key, prints in figures.items()
        if len(set().union(*prints.values())) > 1
    }
    assert differ == {}
    # the reading saw what this run prints, in every output (else an empty comparison passes)
    repeated = [key for key, prints in figures.items() if len(prints) > 1]
    assert len(repeated) >= 60
    for key, where in [
        (("baseline", "95% interval"), {"terminal", "markdown", "html", "json gates"}),
        (("baseline field", "field_f1 [large]", "total", "95% interval"), None),
        (("baseline field", "field_f1 [large]", "total", "change"), None),
        (("target", "small", "95% interval"), None),
        (("target", "small", "vs large"), None),
        (("target field", "total", "small − large"), None),
        (("target field", "total", "small − large interval"), None),
        (("field", "field_f1 [small]", "total", "score"), None),
        (("case", "m.yaml::c1[small]", "score"), None),
    ]:
        assert (where or {"terminal", "markdown", "html", "json gates"}) <= set(figures[key]), key


def test_every_printed_score_is_read_as_a_figure_of_something(outputs):
    """The reading above misses nothing: every four-decimal number a person sees in the
    terminal, the Markdown or the HTML (its text, titles and labels) is, sign aside, one the
    reader attributed to a quantity (a drop is read as its change)."""
    readers = {"terminal": text_figures, "md": markdown_figures, "html": html_figures}
    for output, read in readers.items():
        named = {
            number.lstrip("+-")
            for _, _, text in read(output, outputs[output])
            for number in re.findall(r"\d\.\d{4}", text)
        }
        shown = re.findall(r"(?<![\d.])\d\.\d{4}(?![\d])", visible(output, outputs[output]))
        assert len(shown) > 100
        assert sorted(set(shown) - named) == [], output


def test_the_figures_that_round_apart_print_the_printed_change(figures):
    def one(*key: str) -> str:
        (text,) = set().union(*figures[key].values())
        return text

    # no spread: both bounds are the printed change (not the exact one, rounded)
    assert one("baseline field", "field_f1 [large]", "total", "change") == "-0.0348"
    assert one("baseline field", "field_f1 [large]", "total", "95% interval") == (
        "-0.0348 to -0.0348"
    )
    assert one("target", "small", "vs large") == "-0.0327"
    assert one("target", "small", "95% interval") == "-0.0327 to -0.0327"
    assert one("target field", "total", "small − large") == "-0.0652"
    assert one("target field", "total", "small − large interval") == "-0.0652 to -0.0652"


def test_every_printed_interval_holds_the_change_printed_beside_it(figures):
    changes = {
        ("baseline",): "change",
        ("target", "small"): "vs large",
    }
    checked = 0
    for key in figures:
        if not key[-1].endswith("interval"):
            continue
        row, column = key[:-1], key[-1]
        beside = changes.get(row) or (
            column.removesuffix(" interval") if column != "95% interval" else "change"
        )
        (interval,) = set().union(*figures[key].values())
        (change,) = set().union(*figures[(*row, beside)].values())
        assert re.fullmatch(INTERVAL, interval), (key, interval)
        low, high = (float(x) for x in interval.split(" to "))
        assert low <= float(change) <= high, (key, interval, change)
        checked += 1
    assert checked >= 7


def test_side_by_side_columns_state_their_case_count(outputs, figures):
    for output in ("terminal", "markdown", "html"):
        for key in [("target", t, "cases") for t in TARGETS] + [
            ("target field", path, "cases") for path in ("total", "vendor")
        ]:
            assert figures[key][output] == {"3"}, (output, key)
        assert figures[("targets", "shared")][output] == {"3"}, output


def test_an_interval_is_printed_around_the_printed_change():
    # no spread: 0.4653 - 0.5001 = -0.0348 both ends (the exact -0.03473 reads -0.0347)
    assert interval_text(0.50006, 0.46533, -0.03473, -0.03473, -0.03473) == ("-0.0348 to -0.0348")
    # margins 0.0100 below and 0.0200 above, laid off from the printed change
    assert printed_interval(0.50006, 0.46533, -0.03473, -0.04473, -0.01473) == (-0.0448, -0.0148)
    # a bound cut to an end of [-1, 1] stays there: 2/3 -> 1/3 prints -0.3334, and the upper
    # margin 1 + 1/3 rounds to 1.3333, which laid off would read +0.9999
    third = 1 / 3
    assert printed_interval(2 * third, third, -third, -1.0, 1.0) == (-1.0, 1.0)
    # an exact top just below zero (-0.000005) never prints above it: 0.5000 - 0.5000 prints
    # +0.0000, and its margin 0.000055 would lift the top to +0.0001
    assert printed_interval(0.50004, 0.49998, -0.00006, -0.0002, -0.000005) == (-0.0001, 0.0)
    assert interval_text(0.5, 0.4, -0.1, None, None) == "-"


@given(
    st.floats(0.0, 1.0),
    st.floats(0.0, 1.0),
    st.floats(0.0, 2.0),
    st.floats(0.0, 2.0),
)
def test_the_printed_change_lies_within_its_printed_interval(before, after, below, above):
    mean = after - before
    low, high = max(mean - below, -1.0), min(mean + above, 1.0)
    bottom, top = printed_interval(before, after, mean, low, high)
    change = printed_change(before, after)
    assert -1.0 <= bottom <= change <= top <= 1.0
    if below == above == 0.0:
        assert bottom == top == change
    if high < 0.0:
        assert top <= 0.0
    if low > 0.0:
        assert bottom >= 0.0


@pytest.mark.parametrize("where", ["mean", "low"])
def test_a_saved_report_holding_nan_is_refused_not_printed(outputs, tmp_path, where):
    """``jsonmatch report`` reads a saved report back: a NaN or an infinity in it (Python's
    json reads both) is refused as a baseline's is, naming the file, never printed as an
    interval or raised from inside the rounding."""
    from tests.cli.run import jsonmatch

    constant = {"mean": "NaN", "low": "-Infinity"}[where]
    text = re.sub(
        rf'("difference": \{{[^}}]*?"{where}": )[-0-9.e]+',
        rf"\g<1>{constant}",
        outputs["json"],
        count=1,
    )
    assert constant in text
    path = tmp_path / "evil.json"
    path.write_text(text, encoding="utf-8")
    done = jsonmatch("report", str(path), "--format", "text")
    assert done.returncode != 0 and done.stdout == ""
    assert f"{path} is not valid JSON: {constant} is not a number a report can hold" in done.stderr
    assert "Traceback" not in done.stderr
