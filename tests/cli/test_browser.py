"""The HTML report in a real headless Chromium (Debian's chromium-headless-shell, driven by
Playwright): it loads offline with no console error, shows the report's numbers, its filters
hide what they should, and hostile values stay text. One browser for every check."""

from __future__ import annotations

import contextlib
import json
import os
import shutil

import pytest

from pytest_jsonmatch.reporting.render.html import render_html
from tests.helpers.reports import held

from .hostile import SCRIPT, TEXTAREA, hostile_report

pytestmark = pytest.mark.slow  # (CONTRIBUTING.md: the inner loop leaves it out)

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
def chromium():
    """The module's one browser: (``load(path)``, the URLs every page requested)."""
    with offline_browser() as (load, requests):
        yield load, requests


@pytest.fixture(scope="module")
def page_of(tmp_path_factory, chromium):
    folder = tmp_path_factory.mktemp("html")
    load, requests = chromium

    def open_page(report: dict, name: str):
        path = folder / name
        path.write_text(render_html(report), encoding="utf-8")
        return (*load(path), requests)

    return open_page


def test_the_report_in_a_browser(page_of):
    report = hostile_report()
    page, problems, requests = page_of(report, "hostile.html")
    assert problems == []
    assert all(url.startswith("file://") for url in requests), requests
    # nothing hostile ran
    assert page.evaluate("window.hacked") is None
    # one script runs (ours); the cases' data block is not run
    assert page.evaluate("document.querySelectorAll('script:not([type])').length") == 1
    assert page.evaluate("document.querySelectorAll('script').length") == 2
    assert page.evaluate("document.querySelectorAll('img').length") == 0
    # the hostile values are on the page, as text
    assert SCRIPT in page.text_content("header") and "inv-<b>2</b>" in page.text_content("#cases")
    page.click("details.case.failed summary")
    text = page.text_content("#case-rows")
    assert SCRIPT in text and TEXTAREA.replace('"', '\\"') in text  # the value shown as JSON
    page.click("details.case.failed summary")  # closed again
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
    # best first: by mean score, highest first; the unscored case (0) last
    page.select_option("#case-order", "best")
    assert page.evaluate(visible) == ["inv-1", "inv-<b>2</b>", "inv-3"]
    page.select_option("#case-order", "worst")
    page.select_option("#metric-filter", "structural_f1")
    assert page.evaluate(visible) == ["inv-3"]
    page.select_option("#metric-filter", "")
    page.select_option("#field-filter", "note")
    assert page.evaluate(visible) == ["inv-<b>2</b>"]
    assert page.inner_text("#shown-count") == "1 of 3 cases shown"
    # a case opens to expected and actual side by side, with its pairings
    page.select_option("#field-filter", "")
    assert page.locator("details.case[open]").count() == 0
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
    report = held(proc.stdout)  # as the reader holds it: fields made from their rows
    page, problems, _ = page_of(report, "pair.html")
    assert problems == []
    # one case, open; n matches (1) and name does not (0): F1 = 0.5
    assert page.inner_text("[data-figure=overall]") == "0.5000"
    assert page.locator("details.case[open]").count() == 1
    assert "</textarea>" in page.inner_text("details.case")


def test_the_valid_column_and_an_answers_violations_in_the_same_browser(page_of):
    from pytest_jsonmatch.dataset import Pair, ScoreSettings, comparison_of
    from pytest_jsonmatch.engine.match import match_json
    from pytest_jsonmatch.reporting.run_model.aggregate import summarize
    from pytest_jsonmatch.reporting.verdicts.gates import GateSettings, decision_of
    from pytest_jsonmatch.reporting.verdicts.report import build_report

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
    report = build_report(summary, comparisons, decision_of(summary, GateSettings()), None, {})
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
    bad.locator("summary").click()
    note = bad.locator("p.conformance.invalid").text_content()
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
  document.querySelectorAll("details.case:not([open]) > summary").forEach(function (s) {
    s.click();
  });
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
    from pytest_jsonmatch.reporting.run_model.comparisons import STATUSES
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
    assert note.is_visible()  # BADGE_COLOURS opened every case (by a click on each)
    assert note.inner_text() == (
        "The answer was cut off at line 1, column 88, after 87 characters of its JSON value, "
        "and scored closed: what it wrote is scored (the value it was writing as far as it "
        "got), the fields past the cut count as omitted, and schema violations the cut made "
        "are not counted."
    )


def test_a_case_a_gate_failed_shows_that_gate_and_the_baseline_links_to_it(page_of):
    # tests/reporting/test_numbers_add_up.py's two runs: case b (threshold 0.5) passed with
    # 0.7, but dropped from 1.0 by 0.3, more than max_drop 0.05: the per-case gate fails it
    from pytest_jsonmatch.reporting.verdicts.report import build_report
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
    assert href == "#case=b"
    row.locator("a.case-link").click()
    assert page.evaluate("location.hash") == href
    # the link opens its case, marked, and scrolls it into view
    opened = page.locator("details.case.current[open]")
    assert opened.get_attribute("data-case") == "b" and opened.is_visible()
    assert "Failed the gate jsonmatch_gates max_drop" in opened.inner_text()
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


# -- a run of 10,000 cases: every case on the page, found, opened, reachable -----------------

LARGE = 10_000
EVERY_ROW = """async () => {
  // the list by case id, walked a viewport at a time: the ids of every row made
  var rows = document.getElementById("case-rows"), seen = new Set(), most = 0;
  var top = rows.getBoundingClientRect().top + window.scrollY;
  for (var y = top; y < top + rows.offsetHeight + innerHeight; y += innerHeight) {
    window.scrollTo(0, y);
    await new Promise(function (r) { requestAnimationFrame(function () { setTimeout(r, 0); }); });
    var made = rows.querySelectorAll("details.case");
    most = Math.max(most, made.length);
    made.forEach(function (d) { seen.add(d.getAttribute("data-case")); });
  }
  return {seen: Array.from(seen), most: most,
          elements: document.getElementsByTagName("*").length};
}"""


def _large_run(folder):
    """LARGE records scored by ``jsonmatch score --format html``: case ``c-K`` has a vendor,
    a number and two tags; every third prediction gets its number wrong (K + 1)."""
    from .run import jsonmatch

    gold, pred = folder / "gold.jsonl", folder / "pred.jsonl"
    with gold.open("w") as g, pred.open("w") as p:
        for k in range(LARGE):
            record = {"id": f"c-{k:05d}", "vendor": f"V{k % 7}", "n": k, "tags": ["a", "b"]}
            g.write(json.dumps(record) + "\n")
            if k % 3 == 0:
                record["n"] = k + 1
            p.write(json.dumps(record) + "\n")
    page = folder / "large.html"
    done = jsonmatch(
        "score",
        str(gold),
        str(pred),
        "--id-field",
        "id",
        "--format",
        "html",
        "-o",
        str(page),
        timeout=600,
    )
    assert done.returncode in (0, 1), done.stderr
    return page


def test_every_case_of_a_large_run_can_be_found_opened_and_reached(tmp_path, chromium):
    page_path = _large_run(tmp_path)
    assert page_path.stat().st_size <= 5_000_000  # the bound for 10,000 cases
    load, requests = chromium
    page, problems = load(page_path)
    page.set_viewport_size({"width": 1280, "height": 3000})
    assert problems == []
    assert all(url.startswith("file://") for url in requests), requests
    assert page.inner_text("#shown-count") == f"{LARGE} of {LARGE} cases shown"
    # only the rows in view are made: a few dozen of the 10,000
    assert page.locator("details.case").count() < 200
    # the last case by id, found by the filter and opened: its number is wrong (9999 is
    # a multiple of 3): expected 9999, actual 10000; its vendor matched
    page.fill("#case-find", "c-09999")
    assert page.inner_text("#shown-count") == f"1 of {LARGE} cases shown"
    last = page.locator("details.case")
    assert last.locator(".case-id").inner_text() == "c-09999"
    last.locator("summary").click()
    assert last.get_attribute("open") is not None
    row = last.locator("tr[data-field='n'] td")
    # (who decided, the last column: a dataset's report does not record it, so it is empty)
    assert row.all_inner_texts() == ["n", "mismatch", "0.0000", "9999", "10000", ""]
    assert last.locator("tr[data-field='vendor'] td").all_inner_texts() == [
        "vendor",
        "match",
        "1.0000",
        '"V3"',  # 9999 % 7 = 3
        '"V3"',
        "",
    ]
    # worst first over every case: a case whose number is wrong (3 of 4 fields: 0.75)
    page.fill("#case-find", "")
    first = "document.querySelector('#case-rows details.case .case-id').textContent"
    assert page.evaluate(first) == "c-00000"
    page.select_option("#case-order", "best")
    assert page.evaluate(first) == "c-00001"  # 1.0, the lowest id of those
    page.check("#failed-only")
    assert page.inner_text("#shown-count") == f"{(LARGE + 2) // 3} of {LARGE} cases shown"
    page.uncheck("#failed-only")
    # every case reachable by scrolling the list, by id; never more than a few screens
    # of rows in the document
    page.select_option("#case-order", "id")
    walked = page.evaluate(EVERY_ROW)
    assert sorted(walked["seen"]) == [f"c-{k:05d}" for k in range(LARGE)]
    assert walked["most"] < 200 and walked["elements"] < 2000
    assert problems == []


def test_numbers_show_as_python_writes_them(page_of):
    # the page gets values as JSON; a browser reads 1.0 as 1 and prints 1e-05 as 0.00001:
    # such values travel as their text, so each cell shows what json.dumps writes
    from pytest_jsonmatch.dataset import Pair, ScoreSettings, comparison_of
    from pytest_jsonmatch.engine.match import match_json
    from pytest_jsonmatch.reporting.run_model.aggregate import summarize
    from pytest_jsonmatch.reporting.verdicts.gates import GateSettings, decision_of
    from pytest_jsonmatch.reporting.verdicts.report import build_report

    expected = {"a": 1.0, "b": 1e-05, "c": 1e16, "d": 0.5, "e": 2**60 + 1, "f": 3786.13}
    actual = {"a": 2, "b": 0.00002, "c": 1e21, "d": 0.25, "e": 2**60, "f": 3786.14, "g": [1.5]}
    settings = ScoreSettings("field_f1", 0.5, {}, "full")
    comparison = comparison_of(
        Pair("n", expected, actual, "n", "d.jsonl", 1), match_json(actual, expected), settings
    )
    summary = summarize([comparison])
    report = build_report(summary, [comparison], decision_of(summary, GateSettings()), None, {})
    page, problems, _ = page_of(report, "numbers.html")
    assert problems == [] and page.locator("details.case[open]").count() == 1
    cells = page.locator("table.side-by-side tbody tr").evaluate_all(
        "rows => rows.map(r => [r.getAttribute('data-field'),"
        " Array.from(r.querySelectorAll('td')).slice(3, 5).map(c => c.textContent)])"
    )

    def shown(value):
        return json.dumps(value, ensure_ascii=False, indent=1)

    assert cells == [
        [key, [shown(expected[key]) if key in expected else "missing", shown(actual[key])]]
        for key in sorted(set(expected) | set(actual), key=list(actual).index)
    ]


def test_a_reviewer_sees_failing_cases_first_with_input_output_and_who_decided(page_of):
    from tests.reporting.statuses import reviewer_report

    page, problems, _ = page_of(reviewer_report(), "reviewer.html")
    assert problems == []
    # refund failed at 0.86, greeting passed at 0.67: the failing case comes first
    assert page.locator("details.case .case-id").all_inner_texts() == ["refund", "greeting"]
    page.click("details.case.failed summary")
    case = page.locator("details.case.failed")
    assert case.locator("details.shown.input pre").text_content() == (
        '{\n "message": "Refund my flight"\n}'
    )
    assert case.locator("details.shown.output pre").text_content() == '{"pnr": "X1"}'
    rows = case.locator("table.side-by-side tbody tr")
    decided = {
        r.locator("td.path").inner_text(): r.locator("td.by").inner_text() for r in rows.all()
    }
    assert decided == {"pnr": "exact", "reply_summary": "judge", "currency": "rule"}
