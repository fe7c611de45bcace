"""The HTML report without a browser: one file, nothing from the network, every value
escaped; the histogram's counts."""

from __future__ import annotations

import re

from pytest_jsonmatch.reporting.html import histogram_counts, render_html

from .hostile import SCRIPT, TEXTAREA, hostile_report


def test_values_are_escaped_and_only_our_script_runs():
    page = render_html(hostile_report())
    assert page.count("<script>") == 1 and page.count("</script>") == 1  # ours, at the end
    assert SCRIPT not in page and TEXTAREA not in page and "<img" not in page
    assert "&lt;script&gt;window.hacked = 1&lt;/script&gt;" in page
    # the note's value is shown as JSON: its quotes are backslashed, then escaped
    assert r"&lt;/textarea&gt;&lt;img src=x onerror=\&quot;window.hacked = 2\&quot;&gt;" in page
    assert "inv-&lt;b&gt;2&lt;/b&gt;" in page


def test_the_page_is_self_contained():
    page = render_html(hostile_report())
    assert "default-src 'none'" in page  # the CSP: no request leaves the page
    assert not re.search(r"""(src|href)=["']?(https?:)?//""", page)
    assert "<link" not in page and "@import" not in page


def test_histogram_bins():
    # ten bins of 0.1; 1.0 lands in the last, 0.1 in the second, 0.0999 in the first
    assert histogram_counts([0.0, 0.0999, 0.1, 0.55, 0.95, 1.0]) == [2, 1, 0, 0, 0, 1, 0, 0, 0, 2]


def test_cases_worst_first_and_never_scored_fields_left_out_of_the_table():
    from tests.reporting.statuses import every_status_report

    page = render_html(every_status_report())
    ids = re.findall(r'<span class="case-id">([^<]*)</span>', page)
    # unscored first, then by mean score; the xfail-marked ones (counted apart) last
    assert ids == ["c-error", "d-low", "b-fail", "g-near", "a-pass", "e-xfail", "f-xpass"]
    by_id = [int(n) for n in re.findall(r'data-order-id="(\d+)"', page)]
    assert [ids[by_id.index(k)] for k in range(len(ids))] == sorted(ids)
    fields = page[page.index("<h2>Per field</h2>") : page.index('<section id="cases">')]
    assert re.findall(r'<tr data-field="([^"]*)"', fields) == ["extra", "total", "name"]
    assert '<p class="hint never-scored">2 fields never scored: id, meta.</p>' in fields


def test_only_the_lowest_cases_are_kept_worst_first():
    from tests.reporting.statuses import every_status_report

    page = render_html(every_status_report(), max_cases=3)
    assert re.findall(r'<span class="case-id">([^<]*)</span>', page) == [
        "c-error",
        "d-low",
        "b-fail",
    ]
    assert "Showing the 3 lowest-scoring of 7 cases" in page
