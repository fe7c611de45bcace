"""The HTML report without a browser: one file, nothing from the network, every value
escaped; every case and every field of every comparison in its data, exactly; the
histogram's counts."""

from __future__ import annotations

import json
import re

from pytest_jsonmatch.reporting.render.html import histogram_counts, render_html

from .hostile import SCRIPT, TEXTAREA, hostile_report
from .html_data import case_ids, page_data, reconstructed, run_case_ids


def test_values_are_escaped_and_only_our_script_runs():
    page = render_html(hostile_report())
    # ours at the end, and the data block, which no browser runs
    assert page.count("<script>") == 1 and page.count("</script>") == 2
    assert page.count('<script type="application/json" id="case-data">') == 1
    assert SCRIPT not in page and TEXTAREA not in page and "<img" not in page
    # the header's command is escaped markup; in the data block no "<" stands at all
    assert "&lt;script&gt;window.hacked = 1&lt;/script&gt;" in page
    start = page.index('id="case-data">') + len('id="case-data">')
    block = page[start : page.index("</script>", start)]
    assert "<" not in block and "\\u003cscript>window.hacked = 1\\u003c/script>" in block
    data = json.loads(block)  # and it reads back to the values
    assert case_ids(data) == ["inv-1", "inv-3", "inv-<b>2</b>"]
    fields = {f["path"]: f for run in reconstructed(data) for f in run}
    assert fields["note"]["expected"] == TEXTAREA and fields["vendor"]["actual"] == SCRIPT
    assert json.dumps([SCRIPT]) in fields  # the hallucinated key, in its path


def test_the_page_is_self_contained():
    page = render_html(hostile_report())
    assert "default-src 'none'" in page  # the CSP: no request leaves the page
    assert not re.search(r"""(src|href)=["']?(https?:)?//""", page)
    assert "<link" not in page and "@import" not in page


def test_histogram_bins():
    # ten bins of 0.1; 1.0 lands in the last, 0.1 in the second, 0.0999 in the first
    assert histogram_counts([0.0, 0.0999, 0.1, 0.55, 0.95, 1.0]) == [2, 1, 0, 0, 0, 1, 0, 0, 0, 2]


def test_never_scored_fields_left_out_of_the_table():
    from tests.reporting.statuses import every_status_report

    page = render_html(every_status_report())
    fields = page[page.index("<h2>Per field</h2>") : page.index('<section id="cases">')]
    assert re.findall(r'<tr data-field="([^"]*)"', fields) == ["extra", "total", "name"]
    assert '<p class="hint never-scored">2 fields never scored: id, meta.</p>' in fields


def test_every_case_and_every_field_verdict_is_in_the_data():
    # no case is left out (the page once held the 2000 lowest), and each comparison's
    # fields read back from the compact rows exactly: place, status, score (to the 4
    # decimals the page prints), both values
    from tests.reporting.statuses import every_status_report, truncated_report

    for report in (every_status_report(), truncated_report(), hostile_report()):
        data = page_data(render_html(report))
        assert case_ids(data) == [c["case_id"] for c in report["cases"]]
        assert run_case_ids(data) == [c["case_id"] for c in report["comparisons"]]
        assert reconstructed(data) == [
            [
                {
                    **{k: v for k, v in f.items() if k in ("expected", "actual")},
                    "path": f["path"],
                    "field_path": f["field_path"],
                    "status": f["status"],
                    "score": round(f["score"], 4),
                    "expected_cut": bool(f.get("expected_cut")),
                    "actual_cut": bool(f.get("actual_cut")),
                }
                for f in c["fields"]
            ]
            for c in report["comparisons"]
        ]


def test_a_comparison_names_its_case_by_index_where_the_orders_agree_else_by_id():
    # cases inv-1, inv-3, inv-<b>2</b>; their comparisons in that order are named 0, 1, 2;
    # in another order (inv-3, inv-1, inv-<b>2</b>) those out of step are named by id (the
    # cases are read one further at each new id)
    report = hostile_report()
    assert [c["case_id"] for c in report["comparisons"]] == ["inv-1", "inv-3", "inv-<b>2</b>"]
    assert [r[0] for r in page_data(render_html(report))["runs"]] == [0, 1, 2]
    first, second, third = report["comparisons"]
    report["comparisons"] = [second, first, third]
    data = page_data(render_html(report))
    # inv-3 meets case 0 (inv-1): by id; inv-1 is case 0; inv-<b>2</b> meets case 1: by id
    assert [r[0] for r in data["runs"]] == ["inv-3", 0, "inv-<b>2</b>"]
    assert run_case_ids(data) == ["inv-3", "inv-1", "inv-<b>2</b>"]
    report["comparisons"] = [first, second, third]
    # the plugin's ids (file::name) are written as the name after their file's index
    report["cases"] = [{**c, "case_id": f"{c['file']}::{c['case_id']}"} for c in report["cases"]]
    for c in report["comparisons"]:
        c["case_id"] = f"{c['file']}::{c['case_id']}"
    data = page_data(render_html(report))
    assert data["cases"][0][0] == ["inv-1"] and data["strings"][data["cases"][0][4]] == "data.jsonl"
    assert run_case_ids(data) == [c["case_id"] for c in report["comparisons"]]
