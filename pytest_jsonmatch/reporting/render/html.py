"""The report as one self-contained HTML page: inline CSS and script, no network (a
Content-Security-Policy forbids any), opened from disk.

The summary (gates, figures, metrics, histogram, per-field tables, the baseline, targets) is
rendered here, in Python, with every value from the data escaped (``html.escape``): a model
output holding ``<script>`` or ``</textarea>`` is text on the page, and a control or format
character (a right-to-left override) is its escape, ``\\u202e``. Every case is embedded as
data (html_cases.py: one JSON block, ``<`` escaped, which no browser runs), written as
the cases are read, and listed by the page's script (html_script.py), which makes only the
rows in view and sets every value as text, never as markup. The script sorts the field
tables, filters the cases (text in the id, failed only, by metric, by field) and orders
them (worst first, best first, by case id).
"""

from __future__ import annotations

import base64
import hashlib
import io
from collections.abc import Iterable, Mapping, Sequence
from html import escape
from typing import IO
from urllib.parse import quote

from ..run_model.report_types import (
    BaselineSectionDict,
    CaseDict,
    GatesDict,
    MetricTallyDict,
    Report,
    ReportHead,
    RunInfo,
    RunsComparison,
    TargetsDict,
)
from ..verdicts.runs import (
    DISAGREEMENTS,
    FLAKY_TITLE,
    cell_change,
    cell_flips,
    cell_interval,
    cell_latency,
    cell_score,
    cell_spread,
    cell_usage,
    cell_valid,
    field_changes_of,
    field_label,
    flaky_line,
    grouped,
    has_costs,
    headline,
    runs_header,
)
from .baseline_tables import ChangedRow, baseline_fields, changed_rows, mean_change
from .html_cases import write_case_data
from .html_script import CASES_CSS, CASES_SCRIPT
from .html_transcript import TRANSCRIPT_CSS
from .listing import field_rows, never_scored_line, valid_share_text
from .runs_chart import difference_chart
from .tables import page_text

BINS = 10  # histogram bins over [0, 1]
# the statuses no aggregate counts (run_model/comparisons.py's UNCOUNTED), left out of the histogram
UNCOUNTED_STATUSES = ("xfailed", "xpassed", "simulator")


def render_html(report: Report) -> str:
    """The page of a report (a run, or one pair), as text (see :func:`write_html`)."""
    out = io.StringIO()
    write_html(out, report)
    return out.getvalue()


def write_html(fh: IO[str], report: Report) -> None:
    """The page of a report written to ``fh``: the summary sections, then every case as
    data (html_cases.py) read a case at a time from the report's ``cases`` and
    ``comparisons`` (lists, or spools read from disk: nothing holds them all), then the
    page's script, which lists them (html_script.py)."""
    blocked = {b["case_id"]: b["gate"] for b in report["gates"].get("blocked", [])}
    sections = [
        _verdict(report["gates"]),
        _figures(report),
        _metrics_table(report["metrics"]),
        _calls(report),
        _histogram(c for c in report["cases"] if c["status"] not in UNCOUNTED_STATUSES),
        _fields_section(report),
        _baseline(report.get("baseline"), report["gates"]),
        _targets(report.get("targets")),
        _cases_section(report),
    ]
    head, tail = _page(
        "jsonmatch report",
        _run_line(report.get("run") or {}),
        _CSS + _CHART_CSS + CASES_CSS + TRANSCRIPT_CSS,
        _SCRIPT,
        [*sections, _DATA_MARK],
    ).split(_DATA_MARK)
    fh.write(head)
    fh.write('<script type="application/json" id="case-data">')
    reliability = report.get("reliability")
    flaky = set(reliability["flaky"]) if reliability else set()
    write_case_data(fh, report["cases"], report["comparisons"], blocked, flaky)
    fh.write("</script>")
    fh.write(tail)


_DATA_MARK = "\x00cases\x00"  # where the data block goes in the page (no section holds NUL)


def _page(title: str, header: str, css: str, script: str, sections: list[str]) -> str:
    """One self-contained page: its ``title``, the ``header`` line under it, inline ``css``,
    the ``sections`` of its main part and its one ``script``, admitted by its hash (the
    Content-Security-Policy allows nothing else: no network, no other script)."""
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en">',
        "<head>",
        '<meta charset="utf-8">',
        f'<meta http-equiv="Content-Security-Policy" content="{content_security_policy(script)}">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>{title}</title>",
        f"<style>{css}</style>",
        "</head>",
        "<body>",
        f"<header><h1>{title}</h1>{header}</header>",
        "<main>",
        *sections,
        "</main>",
        f"<script>{script}</script>",
        "</body>",
        "</html>",
    ]
    return "\n".join(p for p in parts if p) + "\n"


def _calls(report: Report) -> str:
    """The calls of the target: latency p50, p95, max, total; retries, failures, usage."""
    from ..verdicts.report import call_lines, target_order

    comparisons = report["comparisons"]
    listed = comparisons if isinstance(comparisons, (list, tuple)) else []  # (else spooled)
    lines = call_lines(listed, target_order(report), report["run"].get("judge"))
    if not lines:
        return ""
    judged = lines[-1].startswith("judge:")  # (call_lines puts the judge's line last)
    if not judged:
        heading = "Calls of the target"
    elif len(lines) == 1:
        heading = "The judge"
    else:
        heading = "Calls of the target and the judge"
    return (
        f'<section class="calls"><h2>{heading}</h2>'
        + "".join(f"<p>{_e(line)}</p>" for line in lines)
        + "</section>"
    )


def content_security_policy(script: str) -> str:
    """The page's policy: nothing from the network, inline styles, and only the one script
    the page ships, by its hash: markup that data slipped in (an inline ``<script>``, an
    ``onerror`` attribute) would not run even if escaping ever failed."""
    digest = base64.b64encode(hashlib.sha256(script.encode("utf-8")).digest()).decode("ascii")
    return (
        f"default-src 'none'; style-src 'unsafe-inline'; script-src 'sha256-{digest}'; "
        f"img-src data:; base-uri 'none'; form-action 'none'"
    )


def _e(value: object) -> str:
    """A value as text in the page: control and format characters as their escapes
    (``page_text``: no right-to-left override turns a value around), markup escaped, and line
    breaks as character references, so that no line of the page (printed to standard output
    by ``jsonmatch report``) starts with data (a GitHub workflow command begins a line with
    ``::``; a carriage return is written as its escape already)."""
    return escape(page_text(str(value)), quote=True).replace("\n", "&#10;")


def _num(value: float | None) -> str:
    return "–" if value is None else f"{value:.4f}"


def _run_line(run: RunInfo) -> str:
    bits = []
    if run.get("time"):
        bits.append(f"run {_e(run['time'])}")
    if run.get("command"):
        bits.append("<code>" + _e(" ".join(map(str, run["command"]))) + "</code>")
    if run.get("git_commit"):
        bits.append(f"commit <code>{_e(str(run['git_commit'])[:12])}</code>")
    if run.get("plugin_version"):
        bits.append(f"pytest-jsonmatch {_e(run['plugin_version'])}")
    return f'<p class="run">{" · ".join(bits)}</p>' if bits else ""


def _verdict(gates: GatesDict) -> str:
    if gates.get("not_judged"):
        return (
            f'<section class="verdict" id="verdict"><strong>Gates not judged</strong>: '
            f"{_e(gates['not_judged'])}</section>"
        )
    passed = gates.get("passed", True)
    out = [
        f'<section class="verdict {"ok" if passed else "bad"}" id="verdict">',
        f"<strong>{'Gates passed' if passed else 'Gates FAILED'}</strong>",
    ]
    items = [f"<li>{_e(f)}</li>" for f in gates.get("failures", [])]
    items += [f'<li class="warn">warning: {_e(w)}</li>' for w in gates.get("warnings", [])]
    if passed:
        items += [f"<li>passed: {_e(c)}</li>" for c in gates.get("checked", [])]
    if items:
        out.append("<ul>" + "".join(items) + "</ul>")
    out.append("</section>")
    return "\n".join(out)


def _figures(report: ReportHead) -> str:
    cards = [
        ("overall score", _num(report["overall"]), "overall"),
        ("cases", str(report["count"]), "count"),
        ("could not be scored", str(report["errors"]), "errors"),
    ]
    if report.get("xfailed") or report.get("xpassed"):
        cards.append(("xfailed / xpassed", f"{report['xfailed']} / {report['xpassed']}", "xfail"))
    if spoiled := report.get("simulator", 0):  # (neither the agent's pass nor its failure)
        cards.append(("spoiled by the simulated user", str(spoiled), "simulator"))
    body = "".join(
        f'<div class="card"><div class="big" data-figure="{key}">{_e(value)}</div>'
        f"<div>{_e(label)}</div></div>"
        for label, value, key in cards
    )
    return f'<section class="figures">{body}</section>'


def _metrics_table(metrics: Mapping[str, MetricTallyDict]) -> str:
    # the share of answers valid against their schema: a column only when a schema was given
    valid = any("conformance" in m for m in metrics.values())
    rows, shares = [], []
    for name, m in metrics.items():
        share = m.get("conformance")
        cell = f'<td class="valid">{_num(share["share"]) if share else "-"}</td>' if valid else ""
        rows.append(
            f'<tr data-metric="{_e(name)}"><td>{_e(name)}</td><td>{m["count"]}</td>'
            f"<td>{m['passed']}</td><td>{m['failed']}</td><td>{m['errors']}</td>"
            f'<td class="score">{_num(m["mean_score"])}</td><td>{_num(m["precision"])}</td>'
            f"<td>{_num(m['recall'])}</td><td>{_num(m['f1'])}</td>{cell}</tr>"
        )
        if share:
            shares.append(
                f'<li data-metric="{_e(name)}">{_e(name)}: {_e(valid_share_text(share))}</li>'
            )
    listed = f'<ul class="conformance">{"".join(shares)}</ul>' if shares else ""
    return (
        '<section><h2>Per metric</h2><table id="metrics"><thead><tr><th>metric</th>'
        "<th>cases</th><th>passed</th><th>failed</th><th>errors</th><th>score</th>"
        "<th>precision</th><th>recall</th><th>F1</th>"
        + (
            '<th title="the share of answers valid against their schema">valid</th>'
            if valid
            else ""
        )
        + "</tr></thead><tbody>"
        + "".join(rows)
        + "</tbody></table>"
        + listed
        + "</section>"
    )


def histogram_counts(scores: Iterable[float]) -> list[int]:
    """Case scores in BINS equal bins over [0, 1]; a score of 1 falls in the last bin."""
    counts = [0] * BINS
    for score in scores:
        counts[min(BINS - 1, max(0, int(score * BINS)))] += 1
    return counts


def _histogram(cases: Iterable[CaseDict]) -> str:
    counts = histogram_counts(c["mean_score"] for c in cases)
    top = max(counts) or 1
    w, h, pad = 40, 120, 20
    bars = []
    for i, n in enumerate(counts):
        bar_h = round(h * n / top)
        x, y = pad + i * w, pad + h - bar_h
        label = f"{i / BINS:.1f}–{(i + 1) / BINS:.1f}"
        bars.append(
            f'<g class="bin" data-bin="{i}" data-count="{n}"><title>{label}: {n} '
            f"case{'' if n == 1 else 's'}</title>"
            f'<rect x="{x + 2}" y="{y}" width="{w - 4}" height="{bar_h}"></rect>'
            f'<text x="{x + w / 2}" y="{y - 4}" text-anchor="middle">{n}</text></g>'
        )
    ticks = "".join(
        f'<text x="{pad + i * w}" y="{pad + h + 14}" text-anchor="middle">{i / BINS:.1f}</text>'
        for i in range(BINS + 1)
    )
    width = pad * 2 + BINS * w
    return (
        f'<section><h2>Case scores</h2><svg id="histogram" role="img" '
        f'aria-label="histogram of case scores" width="{width}" height="{h + pad * 2 + 10}" '
        f'viewBox="0 0 {width} {h + pad * 2 + 10}">'
        f'<line x1="{pad}" y1="{pad + h}" x2="{width - pad}" y2="{pad + h}"></line>'
        + "".join(bars)
        + ticks
        + "</svg></section>"
    )


def _fields_section(report: ReportHead) -> str:
    groups = report["groups"]
    out = [
        '<section><h2>Per field</h2><p class="hint">Click a column to sort; click a field '
        "to show only the cases that have it.</p>"
    ]
    for key, fields in groups.items():
        if not fields:
            continue
        if len(groups) > 1 or report["group_by"] != "metric":
            out.append(f"<h3>{_e(report['group_by'])} {_e(key)}</h3>")
        header = ["field", "score", "match", "mismatch", "omission", "hallucination"]
        rows = []
        ordered, unscored = field_rows(fields)  # a field never scored has no score to show
        judged = any(agg.get("batch_error") for _, agg in ordered)  # a judge left some
        header += ["not judged"] if judged else []
        for path, agg in ordered:
            cells = [
                f'<td><a href="#cases" class="field-link" data-field="{_e(path)}">'
                f"{_e(path)}</a></td>",
                f'<td data-sort="{agg["mean_score"]!r}">{_num(agg["mean_score"])}</td>',
            ]
            cells += [
                f'<td data-sort="{agg[k]}">{agg[k]}</td>'
                for k in ("match", "mismatch", "omission", "hallucination")
            ]
            if judged:
                n = agg.get("batch_error", 0)
                cells.append(f'<td data-sort="{n}">{n}</td>')
            rows.append(f'<tr data-field="{_e(path)}">' + "".join(cells) + "</tr>")
        if rows:
            out.append(
                '<table class="fields sortable"><thead><tr>'
                + "".join(f'<th data-col="{i}" tabindex="0">{h}</th>' for i, h in enumerate(header))
                + "</tr></thead><tbody>"
                + "".join(rows)
                + "</tbody></table>"
            )
        if unscored:
            out.append(f'<p class="hint never-scored">{never_scored_line(unscored, _e)}.</p>')
    out.append("</section>")
    return "\n".join(out)


def _baseline(baseline: BaselineSectionDict | None, gates: GatesDict) -> str:
    if not baseline:
        return ""
    lines = [
        f"<p>Baseline {_e(baseline['path'])}: {baseline['shared']} shared cases, "
        f"{len(baseline['added'])} added, {len(baseline['removed'])} removed.</p>"
    ]
    if baseline.get("unscored"):
        unscored = baseline.get("unscored", [])
        lines.append(f"<p>{len(unscored)} not compared: they could not be scored.</p>")
    if baseline.get("paired"):
        lines.append(f"<p>{_e(baseline.get('paired', ''))}.</p>")
    mean = mean_change(baseline, ", ", "smallest detectable drop")
    if mean is not None:
        change, before, after, interval = mean
        text = f"Mean change <strong>{change}</strong> ({_num(before)} → {_num(after)}){interval}"
        lines.append(
            f"<p>{text}. Pass → fail {baseline['pass_to_fail']}, fail → pass "
            f"{baseline['fail_to_pass']} (exact McNemar p = "
            f"{baseline['mcnemar_p']:.4f}).</p>"
        )
    changed, hidden = changed_rows(baseline, gates, 50)
    if changed:
        rows = []
        for c in changed:
            name = _e(c.case_id)
            link = f'<a href="#case={_e(quote(c.case_id, safe=""))}" class="case-link">{name}</a>'
            gate = (
                "" if c.gate is None else f'<span class="badge failed">failed: {_e(c.gate)}</span>'
            )
            cells = "".join(f"<td>{cell}</td>" for cell in [link, *c.figures, gate])
            rows.append(f'<tr data-case="{name}">{cells}</tr>')
        header = "".join(f"<th>{h}</th>" for h in ChangedRow.header("case", "gate"))
        lines.append(
            f'<table class="changed"><thead><tr>{header}</tr></thead><tbody>{"".join(rows)}'
            "</tbody></table>"
        )
        if hidden:
            lines.append(f'<p class="hint">{hidden} more changed cases in the JSON report.</p>')
    lines.append(_field_changes(baseline, gates))
    return '<section id="baseline"><h2>Against the baseline</h2>' + "".join(lines) + "</section>"


def _field_changes(baseline: BaselineSectionDict, gates: GatesDict) -> str:
    """Each field before and after, on the numbers its gate uses (now - base = change)."""
    fields = baseline_fields(baseline, gates, None)
    if not fields.rows:
        return ""
    grouped = len(baseline["groups"]) > 1
    header = fields.header(grouped)
    body = []
    for r in fields.rows:
        figures = fields.cells(r)
        # the figures sorted by: the count, and the scores and change as numbers
        keys = [figures[0], repr(r.before), repr(r.after), repr(r.change)]
        cells = [
            f"<td>{_e(r.path)}</td>",
            *([f"<td>{_e(r.group)}</td>"] if grouped else []),
            *(f'<td data-sort="{key}">{cell}</td>' for key, cell in zip(keys, figures)),
            *(f"<td>{cell}</td>" for cell in figures[len(keys) :]),
        ]
        body.append(f'<tr data-field="{_e(r.path)}">' + "".join(cells) + "</tr>")
    return (
        f'<h3>Fields against the baseline</h3><p class="hint">The mean of each field\'s '
        f"per-case scores over the shared cases that hold it; Holm's correction across "
        f"{fields.tested} rows.</p>"
        '<table class="field-changes sortable"><thead><tr>'
        + "".join(f'<th data-col="{i}" tabindex="0">{h}</th>' for i, h in enumerate(header))
        + "</tr></thead><tbody>"
        + "".join(body)
        + "</tbody></table>"
    )


def _cases_section(report: ReportHead) -> str:
    """The filters and the list the script fills with every case (html_script.py)."""
    metrics = "".join(f'<option value="{_e(m)}">{_e(m)}</option>' for m in report["metrics"])
    return (
        '<section id="cases"><h2>Cases</h2>'
        '<div class="filters"><label>case id <input type="search" id="case-find" '
        'placeholder="part of a case id"></label> '
        '<label><input type="checkbox" id="failed-only"> failed and unscored only</label> '
        '<label>metric <select id="metric-filter"><option value="">all</option>'
        f"{metrics}</select></label> "
        '<label>field <select id="field-filter"><option value="">any</option></select></label> '
        '<label>order <select id="case-order"><option value="worst">failing first</option>'
        '<option value="best">best first</option><option value="id">by case id</option>'
        '</select></label> <span id="shown-count"></span></div>'
        '<p class="hint">Click a case to open it. Every case of the run is here, listed as '
        "you scroll.</p>"
        "<noscript><p>The cases are listed by the page's script; the JSON report holds "
        "them too.</p></noscript>"
        '<div id="case-rows"></div></section>'
    )


# what both pages are framed in: the page, its header, headings and (sortable) tables
_FRAME_CSS = """
:root { --ok: #1a7f37; --bad: #cf222e; --warn: #9a6700; --muted: #57606a; --line: #d0d7de; }
* { box-sizing: border-box; }
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; margin: 0; color: #1f2328; }
header { background: #24292f; color: #fff; padding: 12px 24px; }
header h1 { margin: 0; font-size: 20px; }
header .run { margin: 4px 0 0; color: #d0d7de; font-size: 12px; }
main { padding: 8px 24px 40px; max-width: 1400px; }
h2 { font-size: 17px; border-bottom: 1px solid var(--line); padding-bottom: 4px; }
table { border-collapse: collapse; margin: 6px 0; }
th, td { border: 1px solid var(--line); padding: 3px 8px; text-align: right; vertical-align: top; }
th:first-child, td:first-child { text-align: left; }
thead th { background: #f6f8fa; }
table.sortable th { cursor: pointer; user-select: none; }
table.sortable th.asc::after { content: " ▲"; } table.sortable th.desc::after { content: " ▼"; }
.hint { color: var(--muted); font-size: 12px; }
"""

_CSS = (
    _FRAME_CSS
    + """
header code { color: #fff; }
.verdict { padding: 8px 12px; border-radius: 6px; margin: 12px 0; }
.verdict.ok { background: #dafbe1; } .verdict.bad { background: #ffebe9; }
.verdict ul { margin: 4px 0 0; } .warn { color: var(--warn); }
.figures { display: flex; gap: 12px; flex-wrap: wrap; }
.card { border: 1px solid var(--line); border-radius: 6px; padding: 8px 16px; min-width: 140px; }
.card .big { font-size: 24px; font-weight: 600; }
#histogram rect { fill: #54aeff; } #histogram line { stroke: #57606a; }
#histogram text { font-size: 11px; fill: #1f2328; }
.muted { color: var(--muted); font-size: 12px; }
.filters { margin: 8px 0; display: flex; gap: 16px; flex-wrap: wrap; align-items: center; }
details.case { border: 1px solid var(--line); border-radius: 6px; margin: 4px 0; }
details.case > summary { padding: 6px 10px; cursor: pointer; }
details.case[open] > summary { border-bottom: 1px solid var(--line); }
.case-body { padding: 6px 10px; overflow-x: auto; }
.case-id { font-family: ui-monospace, monospace; }
.case-score { font-weight: 600; margin: 0 6px; }
.badge { display: inline-block; border-radius: 10px; padding: 0 8px; font-size: 12px; color: #fff; background: var(--muted); }
.badge.passed, .badge.match { color: #fff; background: var(--ok); }
.badge.failed, .badge.error, .badge.omission, .badge.hallucination { color: #fff; background: var(--bad); }
.badge.mismatch { color: #fff; background: var(--warn); }
.badge.xfailed, .badge.skipped, .badge.simulator { color: #fff; background: var(--muted); }
.badge.xpassed { color: #fff; background: #8250df; }
.badge.batch_error { color: #fff; background: #953800; }
.badge.truncated { color: #fff; background: #9a6700; margin-right: 6px; }
.badge.invalid { color: #fff; background: #953800; margin-right: 6px; }
.badge.flaky { color: #fff; background: #8250df; margin-right: 6px; }
.badge.quarantined { color: #fff; background: #57606a; margin-right: 6px; }
p.conformance.invalid { color: var(--bad); }
.badge.gate { color: #fff; background: var(--bad); margin-right: 6px; }
p.truncated-note { color: #9a6700; }
table.side-by-side td, table.side-by-side th { text-align: left; }
table.side-by-side td.score { text-align: right; }
tr.match td.path { border-left: 4px solid var(--ok); }
tr.mismatch td.path { border-left: 4px solid var(--warn); }
tr.omission td.path, tr.hallucination td.path { border-left: 4px solid var(--bad); }
pre.value { margin: 0; white-space: pre-wrap; word-break: break-word; max-width: 520px; font-size: 12px; }
pre.cut::after { content: " (cut)"; color: var(--muted); }
.missing { color: var(--muted); font-style: italic; }
p.error { color: var(--bad); }
.hidden { display: none; }
tr.field-active td { background: #fff8c5; }
"""
)

# -- runs side by side: compare-runs, and a run's named targets ---------------------------


def _sort_value(value: float | None) -> str:
    return "" if value is None else repr(float(value))


def _sortable(table_id: str, header: Sequence[str], rows: Sequence[str]) -> str:
    """A table the page's script sorts (click a header), as html.py's field tables."""
    return (
        f'<table id="{table_id}" class="sortable"><thead><tr>'
        + "".join(f'<th data-col="{i}" tabindex="0">{h}</th>' for i, h in enumerate(header))
        + "</tr></thead><tbody>"
        + "".join(rows)
        + "</tbody></table>"
    )


def _num_cell(value: float | None, text: str | None = None) -> str:
    return (
        f'<td data-sort="{_sort_value(value)}">{cell_score(value) if text is None else text}</td>'
    )


def _html_runs(data: RunsComparison, ids: str = "", word: str = "run") -> str:
    latency, usage_keys = has_costs(data)
    first = _e(data["runs"][0]["name"])
    valid = any(r["valid"] for r in data["runs"])
    header = runs_header(first, latency, usage_keys, word, valid)
    rows = []
    for r in data["runs"]:
        d = r["difference"]
        cells = [
            f'<td title="{_e(r["path"])}">{_e(r["name"])}</td>',
            f'<td data-sort="{r["cases"]}">{r["cases"]}</td>',
            _num_cell(r["overall"]),
            f'<td data-sort="{r["passed"]}">{r["passed"]}</td>',
            _num_cell(None if d is None else d["mean"], cell_change(r, data["runs"][0])),
            f"<td>{cell_interval(d, data['runs'][0]['overall'], r['overall'])}</td>",
        ]
        cells += [
            f'<td data-sort="{"" if r[k] is None else r[k]}">{"–" if r[k] is None else r[k]}</td>'
            for k in ("better", "worse", "same")
        ]
        cells.append(_num_cell(r["mcnemar_p"], cell_flips(r)))
        if valid:
            share = None if r["valid"] is None else r["valid"]["valid"] / r["valid"]["checked"]
            cells.append(_num_cell(share, cell_valid(r)))
        if latency:
            p95 = None if r["latency"] is None else r["latency"]["p95_s"]
            cells.append(_num_cell(p95, cell_latency(r["latency"])))
        for k in usage_keys:
            value = None if r["usage"] is None else r["usage"].get(k)
            cells.append(_num_cell(value, cell_usage(r["usage"], k)))
        rows.append(f'<tr data-run="{_e(r["name"])}">' + "".join(cells) + "</tr>")
    title = word.capitalize() + "s"
    return (
        f'<section><h2>{title}</h2><p class="hint">Click a column to sort. Differences are '
        f"each {word}'s mean change from {first} over the shared cases, with its 95% "
        "interval; flips are cases that passed there and fail here (↓) and the other way "
        "(↑), with McNemar's exact p.</p>" + _sortable(ids + "runs", header, rows) + "</section>"
    )


def _html_partial(data: RunsComparison, ids: str = "", word: str = "run") -> str:
    if not data["partial"]:
        return ""
    items = "".join(
        f"<li><code>{_e(p['case_id'])}</code> (in {_e(', '.join(p['runs']))})</li>"
        for p in data["partial"]
    )
    return (
        f'<section id="{ids}partial"><h2>Cases only some {word}s have ({len(data["partial"])})</h2>'
        '<p class="hint">Left out of every number on this page.</p>'
        f"<ul>{items}</ul></section>"
    )


def _html_fields(data: RunsComparison, ids: str = "", word: str = "run") -> str:
    if not data["fields"]:
        return ""
    names = [r["name"] for r in data["runs"]]
    escaped = [_e(n) for n in names]
    colours = [f"run-{i % len(_COLORS)}" for i in range(len(names))]
    by_group = grouped(data)
    header = [
        "field",
        "cases",
        *escaped,
        *(f"{n} − {escaped[0]}" for n in escaped[1:]),
        "chart",
    ]
    rows = []
    for f in data["fields"]:
        cells = [f"<td>{_e(field_label(f, by_group))}</td>"]
        cells.append(f'<td data-sort="{f.get("cases", 0)}">{f.get("cases", "–")}</td>')
        cells += [_num_cell(s) for s in f["scores"]]
        printed = field_changes_of(f)
        for d, s, shown in zip(f["differences"][1:], f["scores"][1:], printed):
            mean = None if d is None else d["mean"]
            interval = cell_interval(d, f["scores"][0], s)
            title = "" if d is None else f' title="95% interval {interval}"'
            cells.append(f'<td data-sort="{_sort_value(mean)}"{title}>{shown}</td>')
        means = [None if d is None else d["mean"] for d in f["differences"]]
        cells.append(
            f'<td class="chart-cell">{difference_chart(means, escaped, colours, printed)}</td>'
        )
        rows.append(f'<tr data-field="{_e(f["path"])}">' + "".join(cells) + "</tr>")
    legend = "".join(
        f'<span class="key {c}"></span> {n} ' for c, n in zip(colours[1:], escaped[1:])
    )
    return (
        '<section><h2>Per field</h2><p class="hint">Mean over the shared cases that hold '
        f"the field. Click a column to sort. Chart: each {word}'s difference from "
        f"{escaped[0]} in the field (the columns before it, drawn) as a bar from the zero "
        "line; each chart has a scale of its own, its ends and zero labelled; a dash: no "
        f"difference to draw (no shared case holds the field in both). Bars: {legend}</p>"
        + _sortable(ids + "fields", header, rows)
        + "</section>"
    )


def _html_disagreements(
    data: RunsComparison, ids: str = "", word: str = "run", limit: int | None = DISAGREEMENTS * 5
) -> str:
    names = [r["name"] for r in data["runs"]]
    out = [f'<section id="{ids}disagreements"><h2>Where the {word}s disagree most</h2>']
    if not data["disagreements"]:
        out.append(f"<p>Every shared case scores the same in every {word}.</p>")
    else:
        shown = data["disagreements"][:limit]
        rows = [
            f'<tr data-case="{_e(r["case_id"])}"><td>{_e(r["case_id"])}</td>'
            + "".join(_num_cell(s) for s in r["scores"])
            + _num_cell(r["spread"], cell_spread(r))
            + "</tr>"
            for r in shown
        ]
        agree = len(data["shared"]) - len(shown)
        out.append(
            '<p class="hint">Shared cases by the spread of their scores (highest minus '
            f"lowest); click a column to sort. {agree} other shared case"
            f"{' scores' if agree == 1 else 's score'} alike or "
            f"{'is' if agree == 1 else 'are'} not listed.</p>"
        )
        out.append(
            _sortable(ids + "disagreement", ["case", *(_e(n) for n in names), "spread"], rows)
        )
    out.append("</section>")
    return "".join(out)


def _html_flaky(data: RunsComparison, ids: str = "") -> str:
    """Each run's flaky shared cases and, against the first, those that became flaky or
    stopped being, every case named (nothing when no shared case ran twice)."""
    if "flaky" not in data:
        return ""
    first = _e(data["runs"][0]["name"])
    items = "".join(
        f'<li data-run="{_e(row["run"])}">{flaky_line(row, first, None, _e)}</li>'
        for row in data["flaky"]
    )
    return f'<section id="{ids}flaky"><h2>{FLAKY_TITLE}</h2><ul>{items}</ul></section>'


def render_runs_html(data: RunsComparison) -> str:
    """One self-contained page: inline CSS and the one sorting script (admitted by its hash,
    as html.py's page is), nothing fetched, every value from the reports escaped."""
    runs = "".join(
        f"<li><strong>{_e(r['name'])}</strong> <code>{_e(r['path'])}</code></li>"
        for r in data["runs"]
    )
    return _page(
        "jsonmatch compare-runs",
        f'<p class="run">{_e(headline(data))}</p>',
        _RUNS_PAGE_CSS,
        SORTABLE_SCRIPT,
        [
            f'<ul class="files">{runs}</ul>',
            _html_runs(data),
            _html_partial(data),
            _html_fields(data),
            _html_disagreements(data),
            _html_flaky(data),
        ],
    )


def _targets(targets: TargetsDict | None) -> str:
    """A run's named targets side by side (versus.py): each against the reference, per
    field with its chart, and the case x target matrix of the cases they disagree on, by
    spread (sortable by any target)."""
    if not targets:
        return ""
    shared = len(targets["shared"])
    held = "held to" if targets["gated"] else "compared with"
    lead = (
        f'<section id="targets"><h2>Targets</h2><p>Each target {held} '
        f"<strong>{_e(targets['reference'])}</strong> over {shared} shared "
        f"case{'' if shared == 1 else 's'}.</p></section>"
    )
    return "".join(
        [
            lead,
            _html_runs(targets, "targets-", "target"),
            _html_partial(targets, "targets-", "target"),
            _html_fields(targets, "targets-", "target"),
            _html_disagreements(targets, "targets-", "target", None),
            _html_flaky(targets, "targets-"),
        ]
    )


_COLORS = ("#0969da", "#bf3989", "#1a7f37", "#9a6700", "#8250df", "#cf222e", "#57606a", "#0a3069")

# the compare-runs page: the frame, its list of files, and the charts both pages draw
_RUNS_FRAME_CSS = (
    _FRAME_CSS
    + """
th, td { vertical-align: middle; }
ul.files { padding-left: 18px; } ul.files code { color: var(--muted); }
"""
)
_CHART_CSS = """
svg.chart line.zero { stroke: #1f2328; } svg.chart line.tick { stroke: #d0d7de; }
svg.chart text { font-size: 10px; fill: #57606a; } svg.chart g.none text { font-size: 14px; }
td.chart-cell { padding: 2px 6px; } .chart-caption { color: var(--muted); font-size: 11px; }
.key { display: inline-block; width: 10px; height: 10px; }
""" + "".join(
    f".run-{i} rect {{ fill: {c}; }} .key.run-{i} {{ background: {c}; }}\n"
    for i, c in enumerate(_COLORS)
)
_RUNS_PAGE_CSS = _RUNS_FRAME_CSS + _CHART_CSS

# Sorting every table.sortable by a click (or Enter) on a header cell, by its cells'
# data-sort numbers where they have them: shared by this page and the compare-runs page.
SORTABLE_SCRIPT = """
(function () {
  "use strict";
  function cellValue(row, col) {
    var cell = row.children[col];
    if (!cell) { return ""; }
    var v = cell.getAttribute("data-sort");
    if (v === null) { return cell.textContent; }
    if (v === "") { return Infinity; }
    return parseFloat(v);
  }
  document.querySelectorAll("table.sortable").forEach(function (table) {
    table.querySelectorAll("th").forEach(function (th) {
      function sort() {
        var col = parseInt(th.getAttribute("data-col"), 10);
        var asc = !th.classList.contains("asc");
        table.querySelectorAll("th").forEach(function (o) { o.classList.remove("asc", "desc"); });
        th.classList.add(asc ? "asc" : "desc");
        var body = table.tBodies[0];
        var rows = Array.prototype.slice.call(body.rows);
        rows.sort(function (a, b) {
          var x = cellValue(a, col), y = cellValue(b, col);
          var c = (typeof x === "number" && typeof y === "number") ? x - y : String(x).localeCompare(String(y));
          return asc ? c : -c;
        });
        rows.forEach(function (r) { body.appendChild(r); });
      }
      th.addEventListener("click", sort);
      th.addEventListener("keydown", function (e) { if (e.key === "Enter") { sort(); } });
    });
  });
})();
"""

_SCRIPT = SORTABLE_SCRIPT + CASES_SCRIPT
