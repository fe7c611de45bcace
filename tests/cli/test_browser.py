"""The HTML report in a real headless Chromium (Debian's chromium-headless-shell, driven by
Playwright): it loads offline with no console error, shows the report's numbers, its filters
hide what they should, and hostile values stay text. One browser for every check."""

from __future__ import annotations

import contextlib
import json
import os
import shutil

import pytest

from pytest_jsonmatch.reporting.html import render_html

from .hostile import SCRIPT, TEXTAREA, hostile_report

# Debian's package installs the wrapper first and the binary second; chromium works too.
CANDIDATES = (
    "/usr/bin/chromium-headless-shell",
    "/usr/lib/chromium/chromium-headless-shell",
    "/usr/bin/chromium",
)
FLAGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def _browser_path() -> str:
    chosen = os.environ.get("JSONMATCH_CHROMIUM") or next(
        (p for p in CANDIDATES if shutil.which(p)), None
    )
    if chosen is None:
        message = (
            "no Chromium found (apt-get install chromium-headless-shell, or set "
            "JSONMATCH_CHROMIUM); .ci/run installs it"
        )
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)
    return chosen


@contextlib.contextmanager
def offline_browser():
    """One headless Chromium with an offline context: (``load(path)`` -> (page, the console's
    errors and warnings), the URLs every page requested)."""
    sync_api = (
        pytest.importorskip("playwright.sync_api")
        if not os.environ.get("CI")
        else __import__("playwright.sync_api", fromlist=["sync_playwright"])
    )
    executable = _browser_path()
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=executable, args=FLAGS)
        context = browser.new_context(offline=True, java_script_enabled=True)
        requests: list[str] = []
        context.on("request", lambda r: requests.append(r.url))

        def load(path):
            page = context.new_page()
            problems: list[str] = []
            page.on(
                "console",
                lambda m: (
                    problems.append(f"{m.type}: {m.text}")
                    if m.type in ("error", "warning")
                    else None
                ),
            )
            page.on("pageerror", lambda e: problems.append(f"pageerror: {e}"))
            page.goto(path.as_uri())
            page.wait_for_load_state("load")
            return page, problems

        try:
            yield load, requests
        finally:
            browser.close()


@pytest.fixture(scope="module")
def page_of(tmp_path_factory):
    folder = tmp_path_factory.mktemp("html")
    with offline_browser() as (load, requests):

        def open_page(report: dict, name: str):
            path = folder / name
            path.write_text(render_html(report), encoding="utf-8")
            return (*load(path), requests)

        yield open_page


def test_the_report_in_a_browser(page_of):
    report = hostile_report()
    page, problems, requests = page_of(report, "hostile.html")
    assert problems == []
    assert all(url.startswith("file://") for url in requests), requests
    # nothing hostile ran
    assert page.evaluate("window.hacked") is None
    assert page.evaluate("document.querySelectorAll('script').length") == 1
    assert page.evaluate("document.querySelectorAll('img').length") == 0
    # the hostile values are on the page, as text
    text = page.text_content("body")
    assert SCRIPT in text and "inv-<b>2</b>" in text
    assert TEXTAREA.replace('"', '\\"') in text  # the value shown as JSON
    # the numbers are the report's
    assert page.inner_text("[data-figure=overall]") == f"{report['overall']:.4f}"
    assert page.inner_text("[data-figure=count]") == str(report["count"])
    assert page.inner_text("[data-figure=errors]") == "1"
    row = page.locator("#metrics tr[data-metric=field_f1] td")
    m = report["metrics"]["field_f1"]
    assert row.all_inner_texts() == [
        "field_f1",
        str(m["count"]),
        str(m["passed"]),
        str(m["failed"]),
        str(m["errors"]),
        f"{m['mean_score']:.4f}",
        f"{m['precision']:.4f}",
        f"{m['recall']:.4f}",
        f"{m['f1']:.4f}",
    ]
    # histogram: every case in a bin, the bins' counts as computed from the report
    bins = page.evaluate(
        "Array.from(document.querySelectorAll('#histogram .bin'))"
        ".map(g => +g.getAttribute('data-count'))"
    )
    assert sum(bins) == report["count"] and len(bins) == 10
    assert page.locator("text=Gates FAILED").count() == 1
    # filters: failed only hides the passing case
    visible = (
        "Array.from(document.querySelectorAll('details.case')).filter(d => "
        "d.offsetParent !== null).map(d => d.querySelector('.case-id').textContent)"
    )
    assert [c["case_id"] for c in report["cases"]] == ["inv-1", "inv-3", "inv-<b>2</b>"]  # by id
    # worst first: the unscored case, then by mean score (0.5..., then 1)
    assert page.evaluate(visible) == ["inv-3", "inv-<b>2</b>", "inv-1"]
    page.check("#failed-only")
    assert page.evaluate(visible) == ["inv-3", "inv-<b>2</b>"]
    page.uncheck("#failed-only")
    # the order select lists them by case id, and worst first again
    page.select_option("#case-order", "id")
    assert page.evaluate(visible) == ["inv-1", "inv-3", "inv-<b>2</b>"]
    page.select_option("#case-order", "worst")
    assert page.evaluate(visible) == ["inv-3", "inv-<b>2</b>", "inv-1"]
    page.select_option("#metric-filter", "structural_f1")
    assert page.evaluate(visible) == ["inv-3"]
    page.select_option("#metric-filter", "")
    page.select_option("#field-filter", "note")
    assert page.evaluate(visible) == ["inv-<b>2</b>"]
    assert page.inner_text("#shown-count") == "1 of 3 cases shown"
    # a case opens to expected and actual side by side, with its pairings
    page.select_option("#field-filter", "")
    page.click("details.case.failed summary")
    case = page.locator("details.case.failed")
    assert case.locator("tr[data-field='vendor'] .badge").inner_text() == "mismatch"
    assert "expected[0] ↔ actual[1]" in case.inner_text()
    # the per-field table sorts: by field name, ascending
    header = page.locator("table.fields th[data-col='0']")
    header.click()
    names = page.evaluate(
        "Array.from(document.querySelectorAll('table.fields tbody tr'))"
        ".map(r => r.getAttribute('data-field'))"
    )
    assert names == sorted(names)
    header.click()
    names_desc = page.evaluate(
        "Array.from(document.querySelectorAll('table.fields tbody tr'))"
        ".map(r => r.getAttribute('data-field'))"
    )
    assert names_desc == sorted(names, reverse=True)
    assert problems == []


def test_a_pair_report_in_the_same_browser(page_of, tmp_path):
    from .run import jsonmatch

    (tmp_path / "a.txt").write_text('Sure! {"name": "</textarea>", "n": 1}')
    (tmp_path / "e.json").write_text(json.dumps({"name": "x", "n": 1}))
    proc = jsonmatch("compare", str(tmp_path / "a.txt"), str(tmp_path / "e.json"), "-f", "json")
    report = json.loads(proc.stdout)
    page, problems, _ = page_of(report, "pair.html")
    assert problems == []
    # one case, open; n matches (1) and name does not (0): F1 = 0.5
    assert page.inner_text("[data-figure=overall]") == "0.5000"
    assert page.locator("details.case[open]").count() == 1
    assert "</textarea>" in page.inner_text("details.case")


def test_the_valid_column_and_an_answers_violations_in_the_same_browser(page_of):
    from pytest_jsonmatch.dataset import Pair, ScoreSettings, comparison_of
    from pytest_jsonmatch.engine.match import match_json
    from pytest_jsonmatch.reporting.aggregate import summarize
    from pytest_jsonmatch.reporting.gates import GateSettings, judge
    from pytest_jsonmatch.reporting.report import build_report

    schema = {
        "type": "object",
        "additionalProperties": False,
        "properties": {"vendor": {"type": "string"}, "total": {"type": "number"}},
    }
    settings = ScoreSettings("field_f1", 0.5, {"schema": schema}, "short")
    pairs = [
        ("ok", {"vendor": "A", "total": 1}, {"vendor": "A", "total": 1}),
        # a hostile key breaks additionalProperties: it must stay text
        ("bad", {"vendor": "A", "total": 1}, {"vendor": "A", "total": "1", SCRIPT: 1}),
    ]
    comparisons = [
        comparison_of(
            Pair(case_id, e, a, case_id, "d.jsonl", k + 1),
            match_json(a, e, schema=schema),
            settings,
        )
        for k, (case_id, e, a) in enumerate(pairs)
    ]
    summary = summarize(comparisons)
    report = build_report(summary, comparisons, judge(summary, GateSettings()), None, {})
    page, problems, _ = page_of(report, "conformance.html")
    assert problems == []
    assert page.locator("#metrics th").all_inner_texts()[-1] == "valid"
    # 1 of 2 answers valid
    assert page.locator("#metrics tr[data-metric=field_f1] td.valid").inner_text() == "0.5000"
    assert page.evaluate("window.hacked") is None
    listed = page.inner_text("ul.conformance")
    assert listed.startswith("field_f1: 1 of 2 answers valid (0.5000); broken most: ")
    assert SCRIPT in listed and "total type (1 answer)" in listed
    bad = page.locator("details.case", has_text="bad")
    assert bad.locator(".badge.invalid").count() == 1
    assert page.locator("details.case", has_text="ok").locator(".badge.invalid").count() == 0
    note = bad.locator("p.conformance.invalid").text_content()  # the case may be closed
    assert note.startswith("answer breaks its schema (2 violations): ")
    assert "total type" in note and SCRIPT in note


# -- every status badge readable, by the colours the browser computed ---------------------------

BADGE_COLOURS = """() => {
  function rgba(text) {
    var m = text.match(/^rgba?\\(([^)]*)\\)$/);
    if (!m) { return null; }
    var parts = m[1].split(/[\\s,\\/]+/).filter(Boolean).map(Number);
    return [parts[0], parts[1], parts[2], parts.length > 3 ? parts[3] : 1];
  }
  function background(el) {  // the first ancestor-or-self that paints one
    for (; el; el = el.parentElement) {
      var c = rgba(getComputedStyle(el).backgroundColor);
      if (c === null || c[3] > 0) { return [getComputedStyle(el).backgroundColor, c]; }
    }
    return ["white", [255, 255, 255, 1]];
  }
  document.querySelectorAll("details").forEach(function (d) { d.open = true; });
  return Array.from(document.querySelectorAll(".badge")).map(function (el) {
    var style = getComputedStyle(el), box = el.getBoundingClientRect();
    var bg = background(el);
    return {status: el.textContent, classes: el.className, color: style.color,
            rgb: rgba(style.color), background: bg[0], bg: bg[1], opacity: style.opacity,
            visible: box.width > 0 && box.height > 0};
  });
}"""


def _luminance(rgb) -> float:
    def channel(value: float) -> float:
        c = value / 255
        return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4

    r, g, b = (channel(v) for v in rgb[:3])
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast(a, b) -> float:
    """The WCAG 2 contrast ratio of two opaque sRGB colours."""
    high, low = sorted((_luminance(a), _luminance(b)), reverse=True)
    return (high + 0.05) / (low + 0.05)


def test_contrast_of_the_wcag_reference_colours():
    assert contrast((0, 0, 0), (255, 255, 255)) == 21.0
    assert round(contrast((118, 118, 118), (255, 255, 255)), 2) == 4.54  # #767676, just AA


def test_every_status_badge_is_readable(page_of):
    from pytest_jsonmatch.engine.results.field_results import STATUSES as FIELD_STATUSES
    from pytest_jsonmatch.reporting.records import STATUSES
    from tests.reporting.statuses import every_status_report

    page, problems, _ = page_of(every_status_report(), "statuses.html")
    badges = page.evaluate(BADGE_COLOURS)
    assert problems == []
    # every status a case can end with and every field status has a badge on the page
    assert {b["status"] for b in badges} == set(STATUSES) | set(FIELD_STATUSES)
    for badge in badges:
        assert badge["classes"] == f"badge {badge['status']}", badge
        assert badge["visible"] and badge["opacity"] == "1", badge
        assert badge["rgb"] is not None and badge["rgb"][3] == 1, badge  # opaque text
        assert badge["bg"] is not None and badge["bg"][3] == 1, badge  # an opaque pill
        ratio = contrast(badge["rgb"], badge["bg"])
        assert ratio >= 4.5, (
            f"{badge['status']}: {badge['color']} on {badge['background']} "
            f"has a contrast of {ratio:.2f}"
        )


def test_a_case_scored_from_a_cut_answer_is_marked_and_says_where(page_of):
    from tests.reporting.statuses import truncated_report

    page, problems, _ = page_of(truncated_report(), "truncated.html")
    assert problems == []
    marked = page.locator("details.case:has(.badge.truncated) .case-id")
    assert marked.all_inner_texts() == ["cut-items"]  # the whole answer is not marked
    badges = [b for b in page.evaluate(BADGE_COLOURS) if b["status"] == "truncated"]
    assert len(badges) == 1 and badges[0]["visible"], badges
    assert contrast(badges[0]["rgb"], badges[0]["bg"]) >= 4.5, badges[0]
    note = page.locator("details.case:has(.badge.truncated) p.truncated-note")
    assert note.is_visible()  # BADGE_COLOURS opened every case
    assert note.inner_text() == (
        "The answer was cut off at line 1, column 88, after 87 characters of its JSON value, "
        "and scored closed: what it wrote is scored (the value it was writing as far as it "
        "got), the fields past the cut count as omitted, and schema violations the cut made "
        "are not counted."
    )


def test_a_case_a_gate_failed_shows_that_gate_and_the_baseline_links_to_it(page_of):
    # tests/reporting/test_numbers_add_up.py's two runs: case b (threshold 0.5) passed with
    # 0.7, but dropped from 1.0 by 0.3, more than max_drop 0.05: the per-case gate fails it
    from pytest_jsonmatch.reporting.report import build_report
    from tests.reporting.test_numbers_add_up import NOW, _judged

    summary, against, verdict = _judged(max_drop=0.05)
    report = build_report(summary, NOW, verdict, against)
    assert report["gates"]["blocked"] == [{"case_id": "b", "gate": "jsonmatch_gates max_drop"}]
    page, problems, _ = page_of(report, "gated.html")
    assert problems == []
    case = page.locator("details.case", has=page.locator(".case-id", has_text="b"))
    assert case.get_attribute("data-status") == "failed"
    assert case.locator("summary .badge").all_inner_texts() == [
        "failed",
        "gate: jsonmatch_gates max_drop",
    ]
    # the failed-only filter keeps it, and hides the cases that passed every gate
    page.check("#failed-only")
    visible = page.locator("details.case:not(.hidden) .case-id").all_inner_texts()
    assert visible == ["b"]
    page.uncheck("#failed-only")
    # the baseline's row of b links to the case, and says which gate failed it
    row = page.locator("#baseline table.changed tr[data-case=b]")
    assert row.locator("td").all_inner_texts() == [
        "b",
        "1.0000",
        "0.7000",
        "-0.3000",
        "failed: jsonmatch_gates max_drop",
    ]
    href = row.locator("a.case-link").get_attribute("href")
    assert page.locator(href).get_attribute("data-status") == "failed"
    row.locator("a.case-link").click()
    assert page.evaluate("location.hash") == href
    # each field before and after on the numbers its gate uses; now - base = change per row
    cells = page.locator("#baseline table.field-changes tbody tr").evaluate_all(
        "rows => rows.map(r => Array.from(r.cells, c => c.textContent))"
    )
    assert [c[:6] for c in cells] == [
        ["total", "field_f1", "3", "0.6667", "0.4667", "-0.2000"],
        ["vendor", "field_f1", "3", "1.0000", "1.0000", "+0.0000"],
        ["total", "field_match", "2", "1.0000", "1.0000", "+0.0000"],
    ]
    for c in cells:
        assert round(float(c[4]) - float(c[3]), 4) == float(c[5])
