"""The HTML page's list of cases: its CSS and script, as text html.py writes into the page.

The script reads the cases from the page's data block (html_cases.py) and keeps in the
document only the rows near the viewport (a virtual list): each row is made when it is
scrolled to, or found by a filter, and removed when it leaves; a case's fields are made
when it is opened. Filters (failed only, metric, field, text in the case id) and orders
(worst first, best first, by case id) go over every case. A link ``#case=ID`` (the
baseline's table) opens and shows its case. A trajectory (an agent's run's part, or a
comparison by the trajectory metric) is shown step by step, where the data's ``steps`` puts
its rows: under a heading per step, the step and the row where the run left the expected
path marked; a conversation (``transcript``) turn by turn (html_transcript.py); a run read
from a trace (``spans``) with its span tree under its rows (html_spans.py). Every value
goes into the page as text (``textContent``), never as markup.
"""

from __future__ import annotations

from .html_spans import SPANS_CSS, SPANS_SCRIPT
from .html_transcript import TRANSCRIPT_SCRIPT

CASES_CSS = (
    """
#case-rows { position: relative; }
#case-rows > details.case { position: absolute; left: 0; right: 0; margin: 0; }
details.case > summary { white-space: nowrap; overflow: hidden; text-overflow: ellipsis; }
details.case.current { outline: 2px solid #0969da; }
#case-find { width: 16em; }
table.side-by-side tr.step td { font-weight: 600; background: #f6f8fa; }
table.side-by-side tr.off-path td { outline: 2px solid #cf222e; outline-offset: -2px; }
"""
    + SPANS_CSS
)

CASES_SCRIPT = r"""
(function () {
  "use strict";
  var holder = document.getElementById("case-data");
  var rowsEl = document.getElementById("case-rows");
  if (!holder || !rowsEl) { return; }
  var data = JSON.parse(holder.textContent);
  var S = data.strings, PLACES = data.places, SHAPES = data.shapes, FSTAT = data.field_statuses;
  var cases = data.cases, n = cases.length;
  var CODE = 8, HAS_SCORE = 1, HAS_EXPECTED = 2, HAS_ACTUAL = 4, SAME = 8, EXPECTED_CUT = 16,
      ACTUAL_CUT = 32, VALUE_TEXT = 64, USUAL = HAS_EXPECTED | HAS_ACTUAL | SAME;
  var byId = new Map();
  cases.forEach(function (c) {  // a plugin's case id, file::rest, put together again
    if (typeof c[0] !== "string") { c[0] = S[c[4]] + "::" + c[0][0]; }
  });
  cases.forEach(function (c, i) { byId.set(c[0], i); });
  var runsOf = [];
  data.runs.forEach(function (r) {
    var i = typeof r[0] === "number" ? r[0] : byId.get(r[0]);
    if (i === undefined) { return; }
    (runsOf[i] || (runsOf[i] = [])).push(r);
  });
  function extra(c) { return c[6] || {}; }
  function status(c) {
    var s = S[c[1]], gate = extra(c).gate;
    return gate && (s === "passed" || s === "xpassed") ? "failed" : s;
  }
  // numbers as Python's format(x, ".Nf") writes them: exact ties go to the even digit
  function num(x, digits) {
    if (x === null || x === undefined) { return "\u2013"; }
    var d = digits === undefined ? 4 : digits;
    var s = x.toFixed(d);
    if (x >= 0 && Math.abs(x) < 1e15) {
      var full = x.toFixed(40), dot = full.indexOf(".");
      if (/^50*$/.test(full.slice(dot + 1 + d))) {
        var cut = full.slice(0, dot + 1 + d).replace(/\.$/, "");
        if (+cut.charAt(cut.length - 1) % 2 === 0) { s = cut; }
      }
    }
    return s;
  }
  // case ids in code-point order, as Python sorts strings
  function cmpId(a, b) {
    if (a === b) { return 0; }
    var m = Math.min(a.length, b.length);
    for (var k = 0; k < m; k++) {
      var x = a.charCodeAt(k), y = b.charCodeAt(k);
      if (x !== y) {
        if (x >= 0xd800 && y >= 0xd800) { x = a.codePointAt(k); y = b.codePointAt(k); }
        return x < y ? -1 : 1;
      }
    }
    return a.length - b.length;
  }
  function rank(c) {  // listing.case_order's ranks: unscored, failing, passing, not counted
    var s = S[c[1]];
    return s === "error" ? 0 : s === "failed" ? 1
      : (s === "xfailed" || s === "xpassed" || s === "simulator") ? 3 : 2;
  }
  var orders = {};
  function order(name) {
    if (orders[name]) { return orders[name]; }
    var idx = new Array(n);
    for (var i = 0; i < n; i++) { idx[i] = i; }
    if (name === "id") {
      idx.sort(function (a, b) { return cmpId(cases[a][0], cases[b][0]); });
    } else if (name === "best") {  // the counted cases by mean score, highest first
      idx.sort(function (a, b) {
        var x = cases[a], y = cases[b];
        return ((rank(x) === 3) - (rank(y) === 3)) || (y[3] - x[3]) || (rank(x) - rank(y)) ||
          cmpId(x[0], y[0]);
      });
    } else {  // listing.case_order: unscored, then failing, then passing, each by mean
      // score; xfail-marked last
      idx.sort(function (a, b) {
        var x = cases[a], y = cases[b];
        return (rank(x) - rank(y)) || (x[3] - y[3]) || cmpId(x[0], y[0]);
      });
    }
    return (orders[name] = idx);
  }
  // each case's field paths, read from its comparisons when the field filter is first used
  var fieldSets = null;
  function fieldsOfCase(i) {
    var found = new Set();
    (runsOf[i] || []).forEach(function (r) {
      eachField(r, function (place) { found.add(PLACES[place][1]); });
    });
    return found;
  }
  function eachField(r, visit) {
    var places = typeof r[6] === "number" ? SHAPES[r[6]] : r[6], flat = r[7], k = 0;
    for (var f = 0; f < places.length; f++) {
      var place = places[f], code = flat[k], flags = Math.floor(code / CODE) ^ USUAL;
      var st = FSTAT[code % CODE], at = k + 1;
      var score = st === "match" ? 1 : 0;
      if (flags & HAS_SCORE) { score = flat[at]; at += 1; }
      var exp, act;
      if (flags & HAS_EXPECTED) { exp = flat[at]; at += 1; }
      if (flags & HAS_ACTUAL) {
        if (flags & SAME) { act = exp; } else { act = flat[at]; at += 1; }
      }
      visit(place, st, score, flags, exp, act);
      k = at;
    }
  }

  var findBox = document.getElementById("case-find");
  var failedOnly = document.getElementById("failed-only");
  var metricFilter = document.getElementById("metric-filter");
  var fieldFilter = document.getElementById("field-filter");
  var caseOrder = document.getElementById("case-order");
  var count = document.getElementById("shown-count");
  if (fieldFilter) {
    var paths = Array.from(new Set(PLACES.map(function (p) { return p[1]; }))).sort(cmpId);
    paths.forEach(function (p) {
      var o = document.createElement("option");
      o.value = p; o.textContent = p;
      fieldFilter.appendChild(o);
    });
  }

  var view = [], pos = new Int32Array(n).fill(-1);
  var opened = new Map();  // case index -> height added by its open body (px)
  var shown = new Map();   // case index -> its row in the document
  var ROW = 0, CLOSED = 0, GAP = 4, OVER = 12;

  function apply() {
    var text = findBox ? findBox.value.trim().toLowerCase() : "";
    var failed = failedOnly && failedOnly.checked;
    var metric = metricFilter ? metricFilter.value : "";
    var field = fieldFilter ? fieldFilter.value : "";
    if (field && !fieldSets) {
      fieldSets = new Array(n);
      for (var i = 0; i < n; i++) { fieldSets[i] = fieldsOfCase(i); }
    }
    var all = order(caseOrder ? caseOrder.value : "worst");
    view = [];
    pos.fill(-1);
    for (var k = 0; k < all.length; k++) {
      var c = cases[all[k]], st = status(c);
      if (failed && !(st === "failed" || st === "error")) { continue; }
      if (metric && S[c[2]] !== metric) { continue; }
      if (field && !fieldSets[all[k]].has(field)) { continue; }
      if (text && c[0].toLowerCase().indexOf(text) < 0) { continue; }
      pos[all[k]] = view.length;
      view.push(all[k]);
    }
    if (count) { count.textContent = view.length + " of " + n + " cases shown"; }
    shown.forEach(function (el) { el.remove(); });
    shown.clear();
    layout();
  }

  function openedInView() {
    var list = [];
    opened.forEach(function (add, i) { if (pos[i] >= 0) { list.push([pos[i], add]); } });
    return list.sort(function (a, b) { return a[0] - b[0]; });
  }
  function offsetOf(p, list) {
    var y = p * ROW;
    for (var k = 0; k < list.length && list[k][0] < p; k++) { y += list[k][1]; }
    return y;
  }
  function posAt(y, list) {
    var added = 0;
    for (var k = 0; k < list.length; k++) {
      var q = list[k][0];
      if (y < (q + 1) * ROW + added + list[k][1]) {
        return Math.min(q, Math.floor((y - added) / ROW));
      }
      added += list[k][1];
    }
    return Math.floor((y - added) / ROW);
  }

  function layout() {
    if (!ROW) {
      if (!n) { return; }
      var probe = makeRow(0);
      rowsEl.appendChild(probe);
      CLOSED = probe.offsetHeight;
      ROW = CLOSED + GAP;
      probe.remove();
    }
    var list = openedInView();
    rowsEl.style.height = offsetOf(view.length, list) + "px";
    var top = -rowsEl.getBoundingClientRect().top;
    var first = Math.max(0, posAt(Math.max(0, top), list) - OVER);
    var last = Math.min(view.length - 1, posAt(Math.max(0, top + window.innerHeight), list) + OVER);
    var keep = new Set();
    for (var p = first; p <= last; p++) { keep.add(view[p]); }
    shown.forEach(function (el, i) {
      if (!keep.has(i)) { el.remove(); shown.delete(i); }
    });
    var before = null;  // the rows kept in the document in the list's order
    for (p = first; p <= last; p++) {
      var i = view[p], el = shown.get(i);
      if (!el) {
        el = makeRow(i);
        shown.set(i, el);
      }
      var next = before ? before.nextSibling : rowsEl.firstChild;
      if (el !== next) { rowsEl.insertBefore(el, next); }
      el.style.top = offsetOf(p, list) + "px";
      before = el;
    }
  }
  var pending = false;
  function onScroll() {
    if (pending) { return; }
    pending = true;
    requestAnimationFrame(function () { pending = false; layout(); });
  }
  window.addEventListener("scroll", onScroll, { passive: true });
  window.addEventListener("resize", onScroll);

  function node(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) { e.className = cls; }
    if (text !== undefined) { e.textContent = text; }
    return e;
  }
  function badge(name, title, text) {
    var b = node("span", "badge " + name, text === undefined ? name : text);
    if (title) { b.title = title; }
    return b;
  }
  function makeRow(i) {
    var c = cases[i], x = extra(c), st = status(c);
    var d = node("details", "case " + st);
    d.setAttribute("data-status", st);
    d.setAttribute("data-metric", S[c[2]]);
    d.setAttribute("data-case", c[0]);
    d.setAttribute("data-score", String(c[3]));
    var s = node("summary");
    s.appendChild(badge(st));
    s.appendChild(document.createTextNode(" "));
    s.appendChild(node("span", "case-id", c[0]));
    s.appendChild(document.createTextNode(" "));
    s.appendChild(node("span", "case-score", num(c[3])));
    s.appendChild(document.createTextNode(" "));
    if (x.truncated) {
      s.appendChild(badge("truncated", "the answer was cut off and scored closed for partial credit"));
    }
    if (x.valid && x.valid[1] < x.valid[0]) {
      s.appendChild(badge("invalid", "an answer breaks its schema"));
    }
    if (x.gate) { s.appendChild(badge("gate", "the gate this case failed", "gate: " + x.gate)); }
    if (x.flaky) {
      s.appendChild(badge("flaky", "its runs disagree: some passed, some failed"));
    }
    if (x.quarantine) {
      s.appendChild(badge("quarantined", "quarantined until " + x.quarantine[1] +
        ", gates nothing: " + x.quarantine[0]));
    }
    var where = c[4] >= 0 ? S[c[4]] + (c[5] ? ":" + c[5] : "") : "";
    s.appendChild(node("span", "muted", S[c[2]] + (where ? " \u00b7 " + where : "")));
    d.appendChild(s);
    if (opened.has(i)) { d.open = true; d.appendChild(caseBody(i)); }
    return d;
  }

  function caseBody(i) {
    var c = cases[i], x = extra(c), body = node("div", "case-body");
    if (x.gate) {
      var g = node("p", "error gate-note", "Failed the gate " + x.gate + ": its score dropped " +
        "against the baseline by more than the gate allows (see ");
      var a = node("a", "", "Against the baseline");
      a.href = "#baseline";
      g.appendChild(a);
      g.appendChild(document.createTextNode(")."));
      body.appendChild(g);
    }
    if (x.error) { body.appendChild(node("p", "error", "could not be scored: " + x.error)); }
    if (x.runs) {
      body.appendChild(node("p", "", x.runs[0] + " runs: mean " + num(c[3]) + ", min " +
        num(x.runs[1]) + ", max " + num(x.runs[2]) + ", " + x.runs[3] + " passed"));
    }
    var runs = runsOf[i] || [];
    if (runs.length) { shownText(body, "input", (runs[0][8] || {}).input); }
    runs.forEach(function (r) { runBody(r, runs.length > 1, body); });
    return body;
  }

  function violations(places, total) {
    if (!total) { return "answer valid against its schema"; }
    var named = places.map(function (v) { return S[v[0]] + " " + S[v[1]]; }).join(", ");
    var more = total > places.length ? " and " + (total - places.length) + " more" : "";
    return "answer breaks its schema (" + total + " violation" + (total === 1 ? "" : "s") +
      "): " + named + more;
  }

  // the case's input and the model's output, folded: what a reviewer reads before the fields
  function shownText(body, label, text) {
    if (text === undefined) { return; }
    var d = node("details", "shown " + label);
    d.appendChild(node("summary", "", label));
    d.appendChild(node("pre", "value", text));
    body.appendChild(d);
  }

  function runBody(r, numbered, body) {
    var x = r[8] || {};
    var prf = r[5] || [r[3], r[3], r[3]];
    if (numbered) { body.appendChild(node("h4", "", "run " + r[1])); }
    shownText(body, "output", x.output);
    if (S[r[2]] === "error") { return; }
    var head = node("p", "", "score ");
    head.appendChild(node("strong", "", num(r[3])));
    head.appendChild(document.createTextNode(" (threshold " + num(r[4]) + "), precision " +
      num(prf[0]) + ", recall " + num(prf[1]) + ", F1 " + num(prf[2])));
    body.appendChild(head);
    if (x.cut) {
      body.appendChild(node("p", "truncated-note", "The answer was cut off at line " + x.cut[0] +
        ", column " + x.cut[1] + ", after " + x.cut[2].toLocaleString("en-US") +
        " characters of its JSON value, and scored closed: what it wrote is scored (the " +
        "value it was writing as far as it got), the fields past the cut count as omitted, " +
        "and schema violations the cut made are not counted."));
    }
    if (x.conformance) {
      var v = x.conformance;
      body.appendChild(node("p", "conformance " + (v[0] ? "valid" : "invalid"),
        violations(v[2], v[1])));
    }
    var rows = fieldRows(r, x);
    if (x.transcript) { transcriptOf(x.transcript, rows, body); }  // (html_transcript.py)
    else { body.appendChild(rows.length ? fieldTable(rows) : node("p", "", "no fields")); }
    if (x.spans) { spanTreeOf(x.spans, rows, body); }  // (html_spans.py)
    if (x.pairings) {
      var box = node("div", "pairings");
      box.appendChild(node("h4", "", "array pairings"));
      var ul = node("ul");
      x.pairings.forEach(function (p) {
        var li = node("li");
        li.appendChild(node("code", "", S[p[0]]));
        li.appendChild(document.createTextNode(": expected[" + p[1] + "] \u2194 actual[" + p[2] +
          "] (" + num(p[3], 2) + ")"));
        ul.appendChild(li);
      });
      box.appendChild(ul);
      body.appendChild(box);
    }
    if (x.floors) {
      var fl = node("ul");
      x.floors.forEach(function (f) {
        fl.appendChild(node("li", "", S[f[0]] + ": " + num(f[2]) + " below its min_score " +
          num(f[1])));
      });
      body.appendChild(fl);
    }
  }

  // a comparison's field rows (a trajectory's step headings among them, where it has steps)
  function fieldRows(r, x) {
    var rows = [], deciders = x.by ? decidersOf(x.by) : null, k = 0;
    var steps = {at: x.steps, heads: {}, off: null, head: null};
    if (x.steps) { x.steps[2].forEach(function (h) { steps.heads[h[0]] = h[1]; }); }
    eachField(r, function (place, st, score, flags, exp, act) {
      stepRow(steps, k, st, rows);
      var tr = node("tr", st);
      tr.setAttribute("data-field", PLACES[place][1]);
      tr.appendChild(node("td", "path", PLACES[place][0]));
      var b = node("td");
      b.appendChild(badge(st));
      tr.appendChild(b);
      tr.appendChild(node("td", "score", num(score)));
      tr.appendChild(valueCell(flags & HAS_EXPECTED, exp, flags & EXPECTED_CUT, flags));
      tr.appendChild(valueCell(flags & HAS_ACTUAL, act, flags & ACTUAL_CUT, flags));
      tr.appendChild(node("td", "by", deciders ? decider(deciders[k], st) : ""));
      k++;
      if (fieldFilter && fieldFilter.value && fieldFilter.value === PLACES[place][1]) {
        tr.className += " field-active";
      }
      if (steps.off === true) { steps.off = tr; tr.className += " off-path"; }
      rows.push(tr);
    });
    return rows;
  }
  function fieldTable(rows) {
    var table = node("table", "side-by-side"), hr = node("tr"), tbody = node("tbody");
    ["field", "status", "score", "expected", "actual", "decided by"].forEach(function (h) {
      hr.appendChild(node("th", "", h));
    });
    table.appendChild(node("thead")).appendChild(hr);
    rows.forEach(function (tr) { tbody.appendChild(tr); });
    table.appendChild(tbody);
    return table;
  }
  // A trajectory's rows (the page data's "steps", from the comparison's parts) shown step
  // by step: a heading row before each step's rows, and the first step with a row that is
  // not a match marked as where the run left the expected path, with that row.
  function stepRow(steps, k, st, rows) {
    if (!steps.at || k < steps.at[0] || k >= steps.at[1]) { return; }
    if (steps.heads.hasOwnProperty(k)) {
      steps.head = node("tr", "step");
      var td = node("td", "", steps.heads[k]);
      td.colSpan = 6;
      steps.head.appendChild(td);
      rows.push(steps.head);
    }
    if (st !== "match" && st !== "skipped" && steps.off === null) {
      steps.off = true;
      steps.head.className += " off-path";
      steps.head.firstChild.textContent += " (the run left the expected path here)";
    }
  }
  // field index -> the comparator that decided it, from a run's "by" (comparator -> indexes)
  function decidersOf(by) {
    var out = {};
    Object.keys(by).forEach(function (name) {
      by[name].forEach(function (k) { out[k] = name; });
    });
    return out;
  }
  // who decided a field, in a reviewer's words: the judge, a comparator, or a rule (a field
  // missing or extra; plain equality for the others). A run that did not record it (a
  // dataset's) leaves the column empty
  function decider(name, st) {
    if (name === "semantic") { return "judge"; }
    if (name) { return name; }
    if (st === "omission" || st === "hallucination") { return "rule"; }
    return (st === "match" || st === "mismatch") ? "exact" : "";
  }

  function valueCell(present, value, cut, flags) {
    var td = node("td");
    if (!present) {
      td.appendChild(node("span", "missing", "missing"));
    } else if (cut) {
      td.appendChild(node("pre", "value cut", value));
    } else {
      td.appendChild(node("pre", "value",
        (flags & VALUE_TEXT) ? value : JSON.stringify(value, null, 1)));
    }
    return td;
  }

  function setOpen(i, open) {
    var el = shown.get(i);
    if (open) {
      opened.set(i, 0);
      if (el && !el.querySelector(".case-body")) {
        el.open = true;
        el.appendChild(caseBody(i));
      }
      if (el) { opened.set(i, Math.max(0, el.offsetHeight - CLOSED)); }
    } else {
      opened.delete(i);
      if (el) {
        el.open = false;
        var b = el.querySelector(".case-body");
        if (b) { b.remove(); }
      }
    }
    layout();
  }
  // a case opened otherwise than by its summary (the browser's find, a script)
  rowsEl.addEventListener("toggle", function (e) {
    var d = e.target;
    if (d.parentNode !== rowsEl) { return; }
    var i = byId.get(d.getAttribute("data-case"));
    if (i !== undefined && d.open !== opened.has(i)) { setOpen(i, d.open); }
  }, true);
  rowsEl.addEventListener("click", function (e) {
    var s = e.target.closest ? e.target.closest("summary") : null;
    if (!s || s.parentNode.parentNode !== rowsEl) { return; }
    e.preventDefault();
    var i = byId.get(s.parentNode.getAttribute("data-case"));
    if (i !== undefined) { setOpen(i, !opened.has(i)); }
  });

  // #case=ID: the case shown (filters cleared when they hide it), opened and scrolled to
  function showCase(id) {
    var i = byId.get(id);
    if (i === undefined) { return false; }
    if (pos[i] < 0) {
      if (findBox) { findBox.value = ""; }
      if (failedOnly) { failedOnly.checked = false; }
      if (metricFilter) { metricFilter.value = ""; }
      if (fieldFilter) { fieldFilter.value = ""; }
      apply();
    }
    var list = openedInView();
    window.scrollTo(0, rowsEl.getBoundingClientRect().top + window.scrollY + offsetOf(pos[i], list));
    layout();
    if (!opened.has(i)) { setOpen(i, true); }
    shown.forEach(function (el) { el.classList.remove("current"); });
    var el = shown.get(i);
    if (el) { el.classList.add("current"); }
    return true;
  }
  function fromHash() {
    var h = location.hash;
    if (h.indexOf("#case=") === 0) { showCase(decodeURIComponent(h.slice(6))); }
  }
  window.addEventListener("hashchange", fromHash);

  [failedOnly, metricFilter, fieldFilter, caseOrder].forEach(function (el) {
    if (el) { el.addEventListener("change", apply); }
  });
  if (findBox) { findBox.addEventListener("input", apply); }
  document.querySelectorAll("a.field-link").forEach(function (a) {
    a.addEventListener("click", function () {
      if (fieldFilter) { fieldFilter.value = a.getAttribute("data-field"); apply(); }
    });
  });
  apply();
  if (n === 1) { setOpen(0, true); }
  fromHash();
  // (html_transcript.py's part)
  // (html_spans.py's part)
})();
""".replace("  // (html_transcript.py's part)\n", TRANSCRIPT_SCRIPT).replace(
    "  // (html_spans.py's part)\n", SPANS_SCRIPT
)
