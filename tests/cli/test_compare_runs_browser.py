"""The compare-runs page in a real headless Chromium (as test_browser.py drives it): it loads
offline with no console error, clicking a header sorts its table, and each field's chart
draws a difference of 0.13 between two runs large enough to see, on a labelled scale."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pytest_jsonmatch.reporting.render.html import render_runs_html
from pytest_jsonmatch.reporting.verdicts.report import load_report
from pytest_jsonmatch.reporting.verdicts.runs import Run, compare_runs

from .run import jsonmatch
from .test_browser import offline_browser
from .test_compare_runs import make_runs

pytestmark = pytest.mark.slow  # (CONTRIBUTING.md: the inner loop leaves it out)


@pytest.fixture(scope="module")
def open_page(tmp_path_factory):
    """``open_page(reports, name)``: the compare-runs page of ``reports`` (run name -> report
    file) written to a file and opened, with the console's errors and warnings and the URLs
    it requested. One browser for the module."""
    folder = tmp_path_factory.mktemp("runs-html")
    with offline_browser() as (load, requests):

        def opened(reports: dict[str, Path], name: str):
            runs = [Run(run, str(path), load_report(path)) for run, path in reports.items()]
            path = folder / name
            path.write_text(render_runs_html(compare_runs(runs)), encoding="utf-8")
            return (*load(path), requests)

        yield opened


@pytest.fixture(scope="module")
def page(open_page, tmp_path_factory):
    return open_page(make_runs(tmp_path_factory.mktemp("three-runs")), "runs.html")


def _column(page, table: str, col: int) -> list[str]:
    return page.eval_on_selector_all(
        f"#{table} tbody tr", f"rows => rows.map(r => r.children[{col}].textContent)"
    )


def test_the_page_loads_clean(page):
    opened, problems, requests = page
    assert problems == []
    assert all(url.startswith("file://") for url in requests), requests
    assert opened.evaluate("document.querySelectorAll('script').length") == 1
    assert _column(opened, "runs", 0) == ["base", "new", "third"]
    assert _column(opened, "runs", 2) == ["0.6250", "0.6250", "0.7500"]
    assert opened.evaluate("document.querySelectorAll('svg.chart').length") == 2


def test_sorting(page):
    opened = page[0]
    # the disagreement table, spread first: c4 1.0, c2 .5, c3 .5
    assert _column(opened, "disagreement", 0) == ["c4", "c2", "c3"]
    header = opened.locator("#disagreement th[data-col='1']")  # base: c4 1, c2 .5, c3 0
    header.click()
    assert _column(opened, "disagreement", 0) == ["c3", "c2", "c4"]
    assert header.get_attribute("class") == "asc"
    header.click()
    assert _column(opened, "disagreement", 0) == ["c4", "c2", "c3"]
    assert header.get_attribute("class") == "desc"
    opened.locator("#disagreement th[data-col='0']").click()  # by case id, as text
    assert _column(opened, "disagreement", 0) == ["c2", "c3", "c4"]
    # the runs table by score, a column of numbers
    opened.locator("#runs th[data-col='2']").click()
    assert _column(opened, "runs", 0)[-1] == "third"
    # the field table by the third run's score: n .5 before name 1
    opened.locator("#fields th[data-col='3']").click()
    assert _column(opened, "fields", 0) == ["n", "name"]
    opened.locator("#fields th[data-col='3']").press("Enter")
    assert _column(opened, "fields", 0) == ["name", "n"]


# -- the chart of a field: 0.98 against 0.85 ---------------------------------------------------

CASES = 100


def _scored(folder: Path, name: str, wrong: int, ignore: tuple[str, ...] = ()) -> Path:
    """A report of ``jsonmatch score`` over CASES records of two fields, ``v`` and ``w``: the
    first ``wrong`` predictions get ``v`` wrong (field ``v`` and the case score
    (CASES - wrong) / CASES), every ``w`` is right; ``ignore``: fields left out besides id."""
    gold, predictions = folder / "gold.jsonl", folder / f"{name}.jsonl"
    gold.write_text(
        "".join(json.dumps({"id": f"c{i:03}", "v": i, "w": "x"}) + "\n" for i in range(CASES)),
        encoding="utf-8",
    )
    predictions.write_text(
        "".join(
            json.dumps({"id": f"c{i:03}", "v": -1 if i < wrong else i, "w": "x"}) + "\n"
            for i in range(CASES)
        ),
        encoding="utf-8",
    )
    report = folder / f"{name}.json"
    proc = jsonmatch(
        "score",
        str(gold),
        str(predictions),
        "--id-field",
        "id",
        "--option",
        f"ignore={json.dumps(['id', *ignore])}",
        "--report",
        str(report),
    )
    assert proc.returncode in (0, 1), proc.stderr
    return report


# the chart of one field, measured as drawn: its labels (text and the y of their middle),
# its zero line, its bars and dashes, and its caption
_MEASURE = """row => {
    const svg = row.querySelector('svg.chart');
    const middle = box => box.top + box.height / 2;
    const labels = Array.from(svg.querySelectorAll('text.tick')).map(t => ({
        text: t.textContent, y: middle(t.getBoundingClientRect())}));
    const zero = svg.querySelector('line.zero').getBoundingClientRect();
    const bars = Array.from(svg.querySelectorAll('g.bar rect')).map(r => {
        const box = r.getBoundingClientRect();
        return {top: box.top, bottom: box.bottom, height: box.height, width: box.width};
    });
    const caption = row.querySelector('.chart-caption');
    return {labels, zero: zero.top + zero.height / 2, bars,
            dashes: Array.from(svg.querySelectorAll('g.none text')).map(t => ({
                text: t.textContent, y: middle(t.getBoundingClientRect())})),
            height: svg.getBoundingClientRect().height,
            caption: caption.innerText, captionHeight: caption.getBoundingClientRect().height,
            numbers: Array.from(svg.querySelectorAll('*')).flatMap(e => Array.from(e.attributes))
                .filter(a => ['x', 'y', 'x1', 'y1', 'x2', 'y2', 'width', 'height'].includes(a.name))
                .map(a => a.value)};
}"""


def _chart(page, field: str) -> dict:
    chart = page.eval_on_selector(f"#fields tr[data-field='{field}']", _MEASURE)
    assert not any(n in ("NaN", "Infinity", "-Infinity", "") for n in chart["numbers"]), chart
    return chart


def test_a_difference_of_013_fills_the_chart(open_page, tmp_path):
    reports = {"A": _scored(tmp_path, "A", wrong=2), "B": _scored(tmp_path, "B", wrong=15)}
    page, problems, requests = open_page(reports, "near.html")
    assert problems == []
    assert all(url.startswith("file://") for url in requests), requests
    # the table says 0.9800 and 0.8500, B - A -0.1300
    row = page.locator("#fields tr[data-field='v'] td").all_inner_texts()
    assert row[:5] == ["v", "100", "0.9800", "0.8500", "-0.1300"]  # the row's 100 cases
    chart = _chart(page, "v")
    # the scale, labelled on the chart: from -0.15 (the bottom) to 0 (the top, the zero line)
    labels = sorted(chart["labels"], key=lambda label: label["y"])
    assert [label["text"] for label in labels] == ["0", "-0.15"]
    top, bottom = labels[0]["y"], labels[1]["y"]
    drawable = bottom - top  # the scale spans the chart, less room for half a label
    assert drawable >= 0.75 * chart["height"]
    assert abs(chart["zero"] - top) < 1
    assert chart["caption"] == "difference from A" and chart["captionHeight"] > 0
    # one bar (B's), hanging from the zero line, its length -0.13 on that scale: most of the
    # chart, where a scale from 0 to 1 would have drawn bars 0.98 and 0.85 long
    (bar,) = chart["bars"]
    assert bar["width"] > 0
    assert abs(bar["top"] - chart["zero"]) < 1
    assert bar["height"] >= drawable / 3
    assert bar["height"] / drawable * 0.15 == pytest.approx(0.13, abs=0.005)
    # w is right in every case of both runs: no difference, no bar length, the scale still
    # labelled around zero
    flat = _chart(page, "w")
    assert [b["height"] for b in flat["bars"]] == [0]
    assert sorted(label["text"] for label in flat["labels"]) == ["+0.01", "-0.01", "0"]


def test_a_run_without_the_field_shows_a_dash(open_page, tmp_path):
    reports = {
        "A": _scored(tmp_path, "A", wrong=2),
        "B": _scored(tmp_path, "B", wrong=15),
        "C": _scored(tmp_path, "C", wrong=0, ignore=("v",)),
    }
    page, problems, _ = open_page(reports, "missing.html")
    assert problems == []
    row = page.locator("#fields tr[data-field='v'] td").all_inner_texts()
    assert row[:7] == ["v", "100", "0.9800", "0.8500", "–", "-0.1300", "–"]
    chart = _chart(page, "v")
    # B's bar as before; for C a dash, off the zero line where it would not be seen
    assert len(chart["bars"]) == 1 and chart["bars"][0]["height"] > 40
    (dash,) = chart["dashes"]
    assert dash["text"] == "–" and abs(dash["y"] - chart["zero"]) > 5
