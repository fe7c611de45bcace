"""The compare-runs page in a real headless Chromium (as test_browser.py drives it): it loads
offline with no console error, and clicking a header sorts its table."""

from __future__ import annotations

import os

import pytest

from pytest_jsonmatch.reporting.report import load_report
from pytest_jsonmatch.reporting.runs import Run, compare_runs, render_runs_html

from .test_browser import FLAGS, _browser_path
from .test_compare_runs import make_runs


@pytest.fixture(scope="module")
def page(tmp_path_factory):
    sync_api = pytest.importorskip("playwright.sync_api") if not os.environ.get("CI") else \
        __import__("playwright.sync_api", fromlist=["sync_playwright"])
    executable = _browser_path()
    folder = tmp_path_factory.mktemp("runs-html")
    reports = make_runs(folder)
    data = compare_runs([Run(name, str(path), load_report(path)) for name, path in reports.items()])
    path = folder / "runs.html"
    path.write_text(render_runs_html(data), encoding="utf-8")
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=executable, args=FLAGS)
        context = browser.new_context(offline=True, java_script_enabled=True)
        requests: list[str] = []
        context.on("request", lambda r: requests.append(r.url))
        opened = context.new_page()
        problems: list[str] = []
        opened.on("console", lambda m: problems.append(f"{m.type}: {m.text}")
                  if m.type in ("error", "warning") else None)
        opened.on("pageerror", lambda e: problems.append(f"pageerror: {e}"))
        opened.goto(path.as_uri())
        opened.wait_for_load_state("load")
        yield opened, problems, requests
        browser.close()


def _column(page, table: str, col: int) -> list[str]:
    return page.eval_on_selector_all(f"#{table} tbody tr",
                                     f"rows => rows.map(r => r.children[{col}].textContent)")


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
