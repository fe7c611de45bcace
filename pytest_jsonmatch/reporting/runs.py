"""Several saved runs side by side (``jsonmatch compare-runs``): over the cases every run
scored, each run's overall and per-field scores, its paired difference from the first run
with the 95% interval ``diff`` gives (stats.paired_difference), its wins and losses case by
case against the first run, and the cases where the runs disagree most.

Cases are read as a baseline reads them (baseline.cases_of: repeats averaged, xfail-marked
comparisons left out). A case that only some runs scored is counted and named, never
averaged into any number. Latency and cost are shown when a report's comparisons carry them
(``latency_s`` and ``usage`` with ``input_tokens``, ``output_tokens``, ``cost``; or the same
figures in the comparison's ``call``), over the shared cases' comparisons, and left out when
no run has them.

:func:`compare_runs` gives the comparison as plain data; :func:`render_runs_text`,
:func:`render_runs_markdown` and :func:`render_runs_html` render it, escaping every value
that came from a report (run names, case ids, field paths).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from html import escape as html_escape
from typing import TypedDict, TypeGuard

from .baseline import CaseScores, cases_of
from .html import SORTABLE_SCRIPT, content_security_policy
from .markdown import escape as md_escape
from .money import money
from .records import Comparison
from .runs_chart import difference_chart
from .shapes import DifferenceDict, Report
from .stats import paired_difference
from .tables import escape_controls, guarded, table, wrap

SAME = 1e-9  # two case scores closer than this are the same (float noise of a mean)
DISAGREEMENTS = 10  # cases listed where the runs disagree most
PARTIAL_NAMED = 20  # cases named that only some runs have (text and Markdown)
USAGE_KEYS = ("input_tokens", "output_tokens", "cost")


@dataclass(frozen=True)
class Run:
    """One saved report to compare: its name, its file, its data (as load_report gives it)."""

    name: str
    path: str
    report: Report


# -- the comparison as data (see compare_runs) ----------------------------------------------


class Latency(TypedDict):
    mean_s: float
    total_s: float
    count: int


class RunRow(TypedDict):
    name: str
    path: str
    cases: int
    overall: float | None
    passed: int
    difference: DifferenceDict | None
    better: int | None
    worse: int | None
    same: int | None
    latency: Latency | None
    usage: dict[str, float] | None  # a key of USAGE_KEYS -> its sum


class PartialCase(TypedDict):
    case_id: str
    runs: list[str]


class FieldRow(TypedDict):
    group: str
    path: str
    scores: list[float | None]
    differences: list[DifferenceDict | None]


class Disagreement(TypedDict):
    case_id: str
    scores: list[float]
    spread: float


class RunsComparison(TypedDict):
    runs: list[RunRow]
    shared: list[str]
    partial: list[PartialCase]
    fields: list[FieldRow]
    disagreements: list[Disagreement]


def compare_runs(runs: Sequence[Run]) -> RunsComparison:
    """The runs compared (see the module docstring), as plain data:

    - ``runs``: per run its ``name``, ``path``, ``cases`` (counted cases it has), ``overall``
      (mean case score over the shared cases), ``passed`` (shared cases that passed),
      ``difference`` from the first run (PairedDifference.to_dict; None for the first),
      ``better``/``worse``/``same`` (shared cases against the first run; None for the
      first), ``latency`` and ``usage`` (None when its comparisons carry none);
    - ``shared``: the shared case ids; ``partial``: each case only some runs have, with the
      names of the runs that have it;
    - ``fields``: per (group, field path) the run's mean over the shared cases that hold it
      (None when none does), and the paired difference from the first run over the shared
      cases that hold it in both;
    - ``disagreements``: the shared cases with the largest spread (max - min) of case
      scores, largest first, ties by case id; cases on which every run agrees left out.
    """
    per_run = [_cases(run.report) for run in runs]
    names = [run.name for run in runs]
    all_ids = set().union(*(cases.keys() for cases in per_run))
    shared = sorted(set.intersection(*(set(cases) for cases in per_run))) if per_run else []
    partial: list[PartialCase] = [
        {"case_id": case_id, "runs": [n for n, cases in zip(names, per_run) if case_id in cases]}
        for case_id in sorted(all_ids - set(shared))]
    first = per_run[0]
    out_runs = []
    for index, (run, cases) in enumerate(zip(runs, per_run)):
        entry: RunRow = {
            "name": run.name, "path": run.path, "cases": len(cases),
            "overall": _mean(cases[c].mean for c in shared),
            "passed": sum(cases[c].passed for c in shared),
            "difference": None, "better": None, "worse": None, "same": None,
            "latency": None, "usage": None}
        if index > 0:
            deltas = [cases[c].mean - first[c].mean for c in shared]
            better, worse = sum(d > SAME for d in deltas), sum(d < -SAME for d in deltas)
            entry["difference"] = paired_difference(deltas).to_dict()
            entry["better"], entry["worse"] = better, worse
            entry["same"] = len(deltas) - better - worse
        entry["latency"], entry["usage"] = _costs(run.report, set(shared))
        out_runs.append(entry)
    return {"runs": out_runs, "shared": shared, "partial": partial,
            "fields": _fields(per_run, shared), "disagreements": _disagreements(per_run, shared)}


def _cases(report: Report) -> dict[str, CaseScores]:
    comparisons = [Comparison.from_dict(c) for c in report["comparisons"]]
    return cases_of(comparisons, group_by=report.get("group_by", "metric"))


def _mean(values: Iterable[float]) -> float | None:
    items = list(values)
    return math.fsum(items) / len(items) if items else None


def _fields(per_run: Sequence[Mapping[str, CaseScores]], shared: Sequence[str]) -> list[FieldRow]:
    """Per (group of the case in the first run, field path): each run's mean over the shared
    cases holding the field, and each later run's paired difference from the first."""
    keys = sorted({(per_run[0][c].group, path) for c in shared for cases in per_run
                   for path in cases[c].fields})
    rows: list[FieldRow] = []
    for group, path in keys:
        held = [c for c in shared if per_run[0][c].group == group]
        scores = [_mean(cases[c].fields[path] for c in held if path in cases[c].fields)
                  for cases in per_run]
        differences: list[DifferenceDict | None] = [None]
        for cases in per_run[1:]:
            both = [cases[c].fields[path] - per_run[0][c].fields[path] for c in held
                    if path in cases[c].fields and path in per_run[0][c].fields]
            differences.append(paired_difference(both).to_dict() if both else None)
        rows.append({"group": group, "path": path, "scores": scores, "differences": differences})
    return rows


def _disagreements(per_run: Sequence[Mapping[str, CaseScores]], shared: Sequence[str]
                   ) -> list[Disagreement]:
    rows: list[Disagreement] = []
    for case_id in shared:
        scores = [cases[case_id].mean for cases in per_run]
        spread = max(scores) - min(scores)
        if spread > SAME:
            rows.append({"case_id": case_id, "scores": scores, "spread": spread})
    rows.sort(key=lambda r: (-r["spread"], r["case_id"]))
    return rows


def _costs(report: Report, shared: set[str]) -> tuple[Latency | None, dict[str, float] | None]:
    """Latency (mean, total and count of the comparisons that carry ``latency_s``) and usage
    (sums of what ``usage`` carries) over the counted comparisons of the shared cases."""
    latencies: list[float] = []
    sums: dict[str, list[float]] = {}
    for comparison in report["comparisons"]:
        # read as a plain mapping: a comparison may carry latency_s and usage of its own
        c: Mapping[str, object] = comparison
        if c.get("case_id") not in shared or c.get("status") in ("xfailed", "xpassed"):
            continue
        # top-level latency_s and usage, or the figures of the target's call (``call``)
        call = c.get("call")
        figures: Mapping[str, object] = call if isinstance(call, Mapping) else {}
        latency = c.get("latency_s", figures.get("latency_s"))
        if _is_number(latency):
            latencies.append(float(latency))
        usage = c.get("usage")
        spent: Mapping[str, object] = usage if isinstance(usage, Mapping) else figures
        if spent:
            for key in USAGE_KEYS:
                value = spent.get(key)
                if _is_number(value):
                    sums.setdefault(key, []).append(float(value))
    mean: Latency | None = None
    if latencies:
        mean = {"mean_s": math.fsum(latencies) / len(latencies), "total_s": math.fsum(latencies),
                "count": len(latencies)}
    return mean, {key: math.fsum(values) for key, values in sums.items()} or None


def _is_number(value: object) -> TypeGuard[float]:
    """A finite JSON number (an int or a float, not a bool)."""
    return (type(value) is int or type(value) is float) and math.isfinite(value)


# -- what every rendering shows ------------------------------------------------------------------


def _score(value: float | None) -> str:
    return "–" if value is None else f"{value:.4f}"


def _signed(value: float | None) -> str:
    return "–" if value is None else f"{value:+.4f}"


def _interval(d: DifferenceDict | None) -> str:
    if d is None or d["low"] is None:
        return "–"
    return f"{d['low']:+.4f} to {d['high']:+.4f}"


def _latency(latency: Latency | None) -> str:
    return "–" if latency is None else f"{latency['mean_s']:.3f} s"


def _usage(usage: Mapping[str, float] | None, key: str) -> str:
    """One usage figure as every rendering shows it: tokens as whole numbers, the cost by
    money.money's rule."""
    if usage is None or key not in usage:
        return "–"
    value = usage[key]
    return money(value) if key == "cost" else f"{value:,.0f}"


def _runs_header(first: str, latency: bool, usage_keys: list[str]) -> list[str]:
    """The columns of the runs table (text, Markdown and HTML alike): ``first`` names the run
    the others are held against, as the caller writes it."""
    header = ["run", "cases", "score", "passed", f"vs {first}", "95% interval", "better", "worse",
              "same"]
    if latency:
        header.append("latency")
    return header + [{"input_tokens": "input tokens", "output_tokens": "output tokens",
                      "cost": "cost"}[k] for k in usage_keys]


def _has_costs(data: RunsComparison) -> tuple[bool, list[str]]:
    """Whether any run carries latency, and the usage keys any run carries (in order)."""
    latency = any(r["latency"] is not None for r in data["runs"])
    keys = [k for k in USAGE_KEYS if any(r["usage"] and k in r["usage"] for r in data["runs"])]
    return latency, keys


def _run_rows(data: RunsComparison, costs: bool = True) -> tuple[list[str], list[list[str]]]:
    """The runs table's header and rows (text, unescaped); ``costs``: with the latency and
    usage columns (when a run has them)."""
    latency, usage_keys = _has_costs(data) if costs else (False, [])
    header = _runs_header(data["runs"][0]["name"], latency, usage_keys)
    rows = []
    for r in data["runs"]:
        d = r["difference"]
        row = [r["name"], str(r["cases"]), _score(r["overall"]), str(r["passed"]),
               "–" if d is None else _signed(d["mean"]), _interval(d),
               *("–" if n is None else str(n) for n in (r["better"], r["worse"], r["same"]))]
        if latency:
            row.append(_latency(r["latency"]))
        row += [_usage(r["usage"], k) for k in usage_keys]
        rows.append(row)
    return header, rows


def _field_label(row: FieldRow, grouped: bool) -> str:
    return f"{row['group']}: {row['path']}" if grouped else row["path"]


def _grouped(data: RunsComparison) -> bool:
    return len({row["group"] for row in data["fields"]}) > 1


def _headline(data: RunsComparison) -> str:
    runs, shared, partial = data["runs"], len(data["shared"]), len(data["partial"])
    line = f"{len(runs)} runs over {shared} shared case{'' if shared == 1 else 's'}"
    if partial:
        line += (f"; {partial} case{'' if partial == 1 else 's'} only some runs have "
                 f"(left out of every number)")
    return line


def _partial_text(entry: PartialCase) -> str:
    return f"{entry['case_id']} (in {', '.join(entry['runs'])})"


# -- text -----------------------------------------------------------------------------------------


def render_runs_text(data: RunsComparison, width: int = 100, verbose: int = 0) -> str:
    names = [r["name"] for r in data["runs"]]
    clean = escape_controls
    lines = wrap("compare-runs: " + _headline(data), width)
    lines += [clean(f"  {r['name']}: {r['path']}") for r in data["runs"]]
    header, rows = _run_rows(data, costs=False)
    lines += ["", *table([[clean(c) for c in row] for row in [header, *rows]], width)]
    latency, usage_keys = _has_costs(data)
    if latency or usage_keys:
        head = ["run", *(["latency"] if latency else []),
                *(k.replace("_", " ") for k in usage_keys)]
        body = [[clean(r["name"]), *([_latency(r["latency"])] if latency else []),
                 *(_usage(r["usage"], k) for k in usage_keys)] for r in data["runs"]]
        lines += ["", "Latency (mean per comparison) and usage (summed), over the shared cases:",
                  *table([head, *body], width)]
    if data["partial"]:
        limit = None if verbose else PARTIAL_NAMED
        shown = data["partial"][:limit]
        lines += ["", "Cases only some runs have:"]
        lines += [clean("  " + _partial_text(p)) for p in shown]
        if len(shown) < len(data["partial"]):
            lines.append(f"  ... and {len(data['partial']) - len(shown)} more (-v lists them)")
    if data["fields"]:
        grouped = _grouped(data)
        head = ["field", *names, *(f"{n} - {names[0]}" for n in names[1:])]
        body = [[clean(_field_label(f, grouped)), *(_score(s) for s in f["scores"]),
                 *(_signed(d["mean"]) if d else "–" for d in f["differences"][1:])]
                for f in data["fields"]]
        lines += ["", "Per field (mean over the shared cases that hold it):",
                  *table([[clean(h) for h in head], *body], width)]
    lines += ["", "Where the runs disagree most:"]
    limit = None if verbose else DISAGREEMENTS
    if data["disagreements"]:
        head = ["case", *names, "spread"]
        body = [[clean(r["case_id"]), *(_score(s) for s in r["scores"]), _score(r["spread"])]
                for r in data["disagreements"][:limit]]
        lines += table([[clean(h) for h in head], *body], width)
    else:
        lines.append("  every shared case scores the same in every run")
    return "\n".join(guarded(lines)) + "\n"


# -- Markdown -------------------------------------------------------------------------------------


def _md_table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> list[str]:
    rule = ["---", *["---:"] * (len(header) - 1)]
    return ["| " + " | ".join(header) + " |", "| " + " | ".join(rule) + " |",
            *["| " + " | ".join(row) + " |" for row in rows]]


def render_runs_markdown(data: RunsComparison, full: bool = False) -> str:
    names = [md_escape(r["name"]) for r in data["runs"]]
    parts = ["## jsonmatch compare-runs", "", md_escape(_headline(data)) + ".", ""]
    parts += [f"- **{md_escape(r['name'])}**: {md_escape(r['path'])}" for r in data["runs"]]
    header, rows = _run_rows(data)
    # the run's name is data; every other cell is a number this module wrote
    parts += ["", *_md_table([md_escape(h) for h in header],
                             [[md_escape(row[0]), *row[1:]] for row in rows])]
    if data["partial"]:
        shown = data["partial"] if full else data["partial"][:PARTIAL_NAMED]
        parts += ["", "### Cases only some runs have", ""]
        parts += [f"- {md_escape(p['case_id'])} (in {', '.join(map(md_escape, p['runs']))})"
                  for p in shown]
        if len(shown) < len(data["partial"]):
            parts.append(f"- … and {len(data['partial']) - len(shown)} more")
    if data["fields"]:
        grouped = _grouped(data)
        head = ["field", *names, *(f"{n} − {names[0]}" for n in names[1:])]
        body = [[md_escape(_field_label(f, grouped)), *(_score(s) for s in f["scores"]),
                 *(_signed(d["mean"]) if d else "–" for d in f["differences"][1:])]
                for f in data["fields"]]
        parts += ["", "### Per field", "", *_md_table(head, body)]
    parts += ["", "### Where the runs disagree most", ""]
    if data["disagreements"]:
        rows_d = data["disagreements"] if full else data["disagreements"][:DISAGREEMENTS]
        parts += _md_table(["case", *names, "spread"],
                           [[md_escape(r["case_id"]), *(_score(s) for s in r["scores"]),
                             _score(r["spread"])] for r in rows_d])
    else:
        parts.append("Every shared case scores the same in every run.")
    return "\n".join(parts) + "\n"


# -- HTML -----------------------------------------------------------------------------------------


def _e(value: object) -> str:
    """A value as text in the page, as html.py writes it: markup escaped, line breaks as
    character references (no line of the page starts with data)."""
    return html_escape(str(value), quote=True).replace("\r", "&#13;").replace("\n", "&#10;")


def _sort_value(value: float | None) -> str:
    return "" if value is None else repr(float(value))


def _sortable(table_id: str, header: Sequence[str], rows: Sequence[str]) -> str:
    """A table the page's script sorts (click a header), as html.py's field tables."""
    return (f'<table id="{table_id}" class="sortable"><thead><tr>'
            + "".join(f'<th data-col="{i}" tabindex="0">{h}</th>' for i, h in enumerate(header))
            + "</tr></thead><tbody>" + "".join(rows) + "</tbody></table>")


def _num_cell(value: float | None, text: str | None = None) -> str:
    return f'<td data-sort="{_sort_value(value)}">{_score(value) if text is None else text}</td>'


def _html_runs(data: RunsComparison) -> str:
    latency, usage_keys = _has_costs(data)
    first = _e(data["runs"][0]["name"])
    header = _runs_header(first, latency, usage_keys)
    rows = []
    for r in data["runs"]:
        d = r["difference"]
        cells = [f'<td title="{_e(r["path"])}">{_e(r["name"])}</td>',
                 f'<td data-sort="{r["cases"]}">{r["cases"]}</td>', _num_cell(r["overall"]),
                 f'<td data-sort="{r["passed"]}">{r["passed"]}</td>',
                 _num_cell(None if d is None else d["mean"], "–" if d is None else _signed(d["mean"])),
                 f"<td>{_interval(d)}</td>"]
        cells += [f'<td data-sort="{"" if r[k] is None else r[k]}">{"–" if r[k] is None else r[k]}</td>'
                  for k in ("better", "worse", "same")]
        if latency:
            mean_s = None if r["latency"] is None else r["latency"]["mean_s"]
            cells.append(_num_cell(mean_s, _latency(r["latency"])))
        for k in usage_keys:
            value = None if r["usage"] is None else r["usage"].get(k)
            cells.append(_num_cell(value, _usage(r["usage"], k)))
        rows.append(f'<tr data-run="{_e(r["name"])}">' + "".join(cells) + "</tr>")
    return ('<section><h2>Runs</h2><p class="hint">Click a column to sort. Differences are '
            f"each run's mean change from {first} over the shared cases, with its 95% "
            "interval.</p>" + _sortable("runs", header, rows) + "</section>")


def _html_partial(data: RunsComparison) -> str:
    if not data["partial"]:
        return ""
    items = "".join(f"<li><code>{_e(p['case_id'])}</code> (in {_e(', '.join(p['runs']))})</li>"
                    for p in data["partial"])
    return (f'<section id="partial"><h2>Cases only some runs have ({len(data["partial"])})</h2>'
            "<p class=\"hint\">Left out of every number on this page.</p>"
            f"<ul>{items}</ul></section>")


def _html_fields(data: RunsComparison) -> str:
    if not data["fields"]:
        return ""
    names = [r["name"] for r in data["runs"]]
    escaped = [_e(n) for n in names]
    colours = [f"run-{i % len(_COLORS)}" for i in range(len(names))]
    grouped = _grouped(data)
    header = ["field", *escaped, *(f"{n} − {escaped[0]}" for n in escaped[1:]), "chart"]
    rows = []
    for f in data["fields"]:
        cells = [f"<td>{_e(_field_label(f, grouped))}</td>"]
        cells += [_num_cell(s) for s in f["scores"]]
        for d in f["differences"][1:]:
            mean = None if d is None else d["mean"]
            title = "" if d is None else f' title="95% interval {_interval(d)}"'
            cells.append(f'<td data-sort="{_sort_value(mean)}"{title}>{_signed(mean)}</td>')
        means = [None if d is None else d["mean"] for d in f["differences"]]
        cells.append(f'<td class="chart-cell">{difference_chart(means, escaped, colours)}</td>')
        rows.append(f'<tr data-field="{_e(f["path"])}">' + "".join(cells) + "</tr>")
    legend = "".join(f'<span class="key {c}"></span> {n} '
                     for c, n in zip(colours[1:], escaped[1:]))
    return ('<section><h2>Per field</h2><p class="hint">Mean over the shared cases that hold '
            f"the field. Click a column to sort. Chart: each run's difference from "
            f"{escaped[0]} in the field (the columns before it, drawn) as a bar from the zero "
            "line; each chart has a scale of its own, its ends and zero labelled; a dash: no "
            f"difference to draw (no shared case holds the field in both). Bars: {legend}</p>"
            + _sortable("fields", header, rows) + "</section>")


def _html_disagreements(data: RunsComparison) -> str:
    names = [r["name"] for r in data["runs"]]
    out = ['<section id="disagreements"><h2>Where the runs disagree most</h2>']
    if not data["disagreements"]:
        out.append("<p>Every shared case scores the same in every run.</p>")
    else:
        rows = [f'<tr data-case="{_e(r["case_id"])}"><td>{_e(r["case_id"])}</td>'
                + "".join(_num_cell(s) for s in r["scores"]) + _num_cell(r["spread"]) + "</tr>"
                for r in data["disagreements"][:DISAGREEMENTS * 5]]
        out.append('<p class="hint">Shared cases by the spread of their scores (highest minus '
                   "lowest); click a column to sort.</p>")
        out.append(_sortable("disagreement", ["case", *(_e(n) for n in names), "spread"], rows))
    out.append("</section>")
    return "".join(out)


def render_runs_html(data: RunsComparison) -> str:
    """One self-contained page: inline CSS and the one sorting script (admitted by its hash,
    as html.py's page is), nothing fetched, every value from the reports escaped."""
    title = "jsonmatch compare-runs"
    runs = "".join(f"<li><strong>{_e(r['name'])}</strong> <code>{_e(r['path'])}</code></li>"
                   for r in data["runs"])
    parts = [
        "<!DOCTYPE html>", '<html lang="en">', "<head>", '<meta charset="utf-8">',
        f'<meta http-equiv="Content-Security-Policy" content="{content_security_policy(_SCRIPT)}">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>{title}</title>", f"<style>{_CSS}</style>", "</head>", "<body>",
        f"<header><h1>{title}</h1><p class=\"run\">{_e(_headline(data))}</p></header>",
        "<main>", f'<ul class="files">{runs}</ul>',
        _html_runs(data), _html_partial(data), _html_fields(data), _html_disagreements(data),
        "</main>", f"<script>{_SCRIPT}</script>", "</body>", "</html>",
    ]
    return "\n".join(p for p in parts if p) + "\n"


_COLORS = ("#0969da", "#bf3989", "#1a7f37", "#9a6700", "#8250df", "#cf222e", "#57606a", "#0a3069")

_CSS = """
:root { --muted: #57606a; --line: #d0d7de; }
* { box-sizing: border-box; }
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; margin: 0; color: #1f2328; }
header { background: #24292f; color: #fff; padding: 12px 24px; }
header h1 { margin: 0; font-size: 20px; }
header .run { margin: 4px 0 0; color: #d0d7de; font-size: 12px; }
main { padding: 8px 24px 40px; max-width: 1400px; }
h2 { font-size: 17px; border-bottom: 1px solid var(--line); padding-bottom: 4px; }
table { border-collapse: collapse; margin: 6px 0; }
th, td { border: 1px solid var(--line); padding: 3px 8px; text-align: right; vertical-align: middle; }
th:first-child, td:first-child { text-align: left; }
thead th { background: #f6f8fa; }
table.sortable th { cursor: pointer; user-select: none; }
table.sortable th.asc::after { content: " ▲"; } table.sortable th.desc::after { content: " ▼"; }
.hint { color: var(--muted); font-size: 12px; }
ul.files { padding-left: 18px; } ul.files code { color: var(--muted); }
svg.chart line.zero { stroke: #1f2328; } svg.chart line.tick { stroke: #d0d7de; }
svg.chart text { font-size: 10px; fill: #57606a; } svg.chart g.none text { font-size: 14px; }
td.chart-cell { padding: 2px 6px; } .chart-caption { color: var(--muted); font-size: 11px; }
.key { display: inline-block; width: 10px; height: 10px; }
""" + "".join(f".run-{i} rect {{ fill: {c}; }} .key.run-{i} {{ background: {c}; }}\n"
              for i, c in enumerate(_COLORS))

# html.py's sorting of tables, alone: the page has no filters
_SCRIPT = SORTABLE_SCRIPT  # the tables sort as the run report's do (html.py)
