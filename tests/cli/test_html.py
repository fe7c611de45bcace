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
