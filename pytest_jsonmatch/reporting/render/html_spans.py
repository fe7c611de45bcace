"""A run read from a trace, on the HTML page: its span tree as the page data holds it
(:func:`spans_of`, read from a comparison's ``trace``) and the script and CSS that show it
(:data:`SPANS_SCRIPT`, part of html_script.py's, :data:`SPANS_CSS`).

The tree is shown under the comparison's field rows: each span a line, indented by its
level, with its name, what it was (a model call, a tool and which, an agent), its start and
duration, an error marked with what failed; a span that gave a scored step names the step's
row as a link to it (the row is brought into view and marked), the span that gave the answer
links to the answer's first row; the attributes the reader read fold under it. Every text
is data, set on the page as text (``textContent``): a trace's names and attributes are what
its producer wrote, and nothing of them becomes markup.

The page data's ``spans`` (html_cases.py): ``[total, cut, spans]``: ``total`` the run's
spans, ``cut`` what the report left out in words ("" for nothing), ``spans`` each ``[level,
name, start_ms, duration_ms, error, message, what, rows, attributes, evaluated]``: ``error``
1 for a failed span, ``what`` its step's kind in words ("" for a span that is no step),
``rows`` ``[[field index, label]]`` (a step's head row, the answer's first row),
``attributes`` their JSON text ("" for none), ``evaluated`` 1 on the span the run is
evaluated as.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence

from ..run_model.comparisons import parts_of
from ..run_model.report_types import ComparisonDict, SpanDict

_WHAT = {"chat": "model call", "execute_tool": "tool", "invoke_agent": "agent"}


def spans_of(run: ComparisonDict) -> list[object] | None:
    """The span tree of a comparison as the page data holds it; None where it keeps none."""
    tree = run.get("trace")
    if tree is None:
        return None
    spans = tree["spans"]
    fields = run["fields"]
    first_row: dict[str, int] = {}
    for k, field in enumerate(fields):
        first_row.setdefault(field["path"], k)
    answer = _answer_row(run)
    levels = _levels(spans)
    shown: list[object] = []
    for span in spans:
        rows: list[object] = [
            [first_row[head], head] for head in span.get("rows", ()) if head in first_row
        ]
        if span.get("answer") and answer is not None:
            rows.append([answer, "the answer"])
        operation = span.get("operation", "")
        what = _WHAT.get(operation, operation)
        if span.get("tool"):
            what += f" {span['tool']}"
        attributes = span.get("attributes")
        shown.append(
            [
                levels[span["span_id"]],
                span["name"],
                span["start_ms"],
                span["duration_ms"],
                1 if span["status"] == "error" else 0,
                span.get("message", ""),
                what,
                rows,
                json.dumps(attributes, ensure_ascii=False, indent=1) if attributes else "",
                1 if span["span_id"] == tree["span_id"] else 0,
            ]
        )
    return [tree["total"], _cut_words(tree.get("cut", {})), shown]


def _answer_row(run: ComparisonDict) -> int | None:
    """The first row of the comparison's answer part (None: it scored no answer)."""
    start = 0
    parts = parts_of(run)
    if sum(part.rows for part in parts) != len(run["fields"]):
        return None
    for part in parts:
        if part.name == "answer":
            return start if part.rows else None
        start += part.rows
    return None


def _levels(spans: Sequence[SpanDict]) -> dict[str, int]:
    """Each span's level in the tree the kept spans make (a span whose parent is not kept:
    0), walked without recursion; a parent link met again (a cycle, in a report written
    otherwise than this project writes) ends the walk there."""
    parent = {span["span_id"]: span["parent_id"] for span in spans}
    level: dict[str, int] = {}
    for span in spans:
        line: list[str] = []
        seen: set[str] = set()
        at: str | None = span["span_id"]
        while at is not None and at in parent and at not in level and at not in seen:
            seen.add(at)
            line.append(at)
            at = parent[at]
        base = level.get(at, -1) if at is not None else -1
        for offset, span_id in enumerate(reversed(line), 1):
            level[span_id] = base + offset
    return level


def _cut_words(cut: Mapping[str, int]) -> str:
    said = []
    if cut.get("spans"):
        said.append(f"{cut['spans']:,} spans left out")
    if cut.get("attributes"):
        said.append(f"{cut['attributes']:,} attributes left out")
    if cut.get("values"):
        said.append(f"{cut['values']:,} values cut short")
    return ", ".join(said)


SPANS_CSS = """
.span-tree { margin: 8px 0; }
.span-tree ul.spans { list-style: none; margin: 4px 0; padding: 0; font-size: 13px; }
.span-tree li.span { border-left: 3px solid var(--line); margin: 2px 0; padding: 1px 6px; }
.span-tree li.span.scored { border-left-color: #0969da; }
.span-tree li.span.failed-span { border-left-color: #cf222e; background: #fff1f0; }
.span-tree .span-name { font-family: ui-monospace, monospace; }
.span-tree .span-error { color: #cf222e; margin-left: 6px; }
.span-tree a.span-row { margin-left: 6px; font-family: ui-monospace, monospace; }
.span-tree details.span-attributes > summary { color: var(--muted); font-size: 12px; }
table.side-by-side tr.linked td { outline: 2px solid #0969da; outline-offset: -2px; }
"""

# The span tree's part of the page's script (html_script.py puts it inside its own, where
# node and badge are): a run read from a trace, its spans as an indented list under its rows.
SPANS_SCRIPT = r"""
  // A run read from a trace (the page data's "spans", html_spans.py): each span a line,
  // indented by its level; a span that gave a scored step links to its row (rows: the
  // comparison's table rows, in order; a step's heading rows are not fields).
  function spanTreeOf(t, rows, body) {
    var fieldRowsOnly = rows.filter(function (tr) { return !tr.classList.contains("step"); });
    var box = node("details", "span-tree");
    box.open = true;
    var said = "span tree: " + t[2].length + " of " + t[0] + " spans" + (t[1] ? " (" + t[1] + ")" : "");
    box.appendChild(node("summary", "", said));
    var list = node("ul", "spans");
    t[2].forEach(function (s) {
      var li = node("li", "span" + (s[4] ? " failed-span" : "") + (s[7].length ? " scored" : ""));
      li.style.paddingLeft = (6 + 18 * s[0]) + "px";
      li.appendChild(node("span", "span-name", s[1]));
      var about = (s[6] ? s[6] + ", " : "") + "at " + num(s[2], 3) + " ms, " + num(s[3], 3) + " ms";
      li.appendChild(node("span", "muted", " (" + about + ")"));
      if (s[9]) { li.appendChild(badge("evaluated", "the span the run's evaluation is parented to")); }
      if (s[4]) { li.appendChild(node("span", "span-error", "error" + (s[5] ? ": " + s[5] : ""))); }
      s[7].forEach(function (r) {
        var a = node("a", "span-row", r[1]);
        a.href = "#";
        a.setAttribute("data-row", String(r[0]));
        a.addEventListener("click", function (e) {
          e.preventDefault();
          var tr = fieldRowsOnly[r[0]];
          if (!tr) { return; }
          rows.forEach(function (each) { each.classList.remove("linked"); });
          tr.classList.add("linked");
          tr.scrollIntoView({block: "center"});
        });
        li.appendChild(a);
      });
      if (s[8]) {
        var d = node("details", "span-attributes");
        d.appendChild(node("summary", "", "attributes read"));
        d.appendChild(node("pre", "value", s[8]));
        li.appendChild(d);
      }
      list.appendChild(li);
    });
    box.appendChild(list);
    body.appendChild(box);
  }
"""
