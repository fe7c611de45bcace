"""Every printed figure of a report's renderings, each with what it is a figure of.

A figure is read as ``(output, key, text)``: ``key`` names the quantity the same way whatever
output printed it, so that two prints of one quantity can be held against each other. The
keys:

- ``("overall",)``, ``("count",)``: the run's overall score and its number of cases;
- ``("metric", name, column)``: a row of the per-metric table;
- ``("field", group, path, column)``: a row of a group's field table (``group`` as the report
  names it: ``field_f1 [large]``);
- ``("case", case_id, "score")``: a case's score (the failed-cases table, the case list, the
  changed cases' "after", the targets' disagreement table), and ``("baseline case", case_id,
  "score")`` its baseline score;
- ``("baseline", item)``: the baseline line (``change``, ``base``, ``now``, ``95% interval``,
  ``detectable``, ``McNemar p``, ``shared``);
- ``("baseline field", group, path, column)``: a row of the fields-against-the-baseline table;
- ``("target", name, column)``, ``("targets", "shared")``: the targets table;
- ``("target field", path, column)``: the targets' per-field table (a difference's 95%
  interval as ``"<column> interval"``).

Tables are read by their header row, so a column is the same key in the terminal's aligned
text, Markdown's pipes and HTML's cells (the few headers the terminal shortens are mapped back,
``_COLUMNS``). Prose and the gates' messages are read by the patterns below. Only cells that
hold a digit are figures.
"""

from __future__ import annotations

import html
import json
import re
from collections.abc import Iterator
from html.parser import HTMLParser

Figure = tuple[str, tuple[str, ...], str]

NUMBER = r"\d\.\d{4}"
SIGNED = r"[+-]\d\.\d{4}"
INTERVAL = rf"{SIGNED} to {SIGNED}"
_COLUMNS = {
    "halluc.": "hallucination",
    "prec": "precision",
    "pass": "passed",
    "fail": "failed",
    "error": "errors",
    "changed most": "case",
}


def _column(name: str) -> str:
    name = _COLUMNS.get(name, name)
    return re.sub(r" - ", " − ", name)  # the terminal writes the minus of "small − large" as -


def _group(heading: str) -> str:
    """``fields of metric field_f1 [large]`` / ``metric field_f1 [large]``: the group."""
    return re.sub(r"^(?:fields of )?metric ", "", heading.strip(), flags=re.IGNORECASE)


def table_figures(
    output: str, context: str, header: list[str], row: list[str], notes: dict[str, str]
) -> Iterator[Figure]:
    """The figures of one table row, by the header's shape; ``context`` is the heading the
    table stands under, ``notes`` a cell's title by its column (HTML)."""
    header = [_column(h) for h in header]
    cells = dict(zip(header, row))
    first = header[0]
    label = row[0]

    def each(*key: str) -> Iterator[Figure]:
        for column, text in cells.items():
            if column not in (first, "chart") and re.search(r"\d", text):
                yield output, (*key, column), text

    if first == "metric":
        yield from each("metric", label)
    elif first == "field" and "match" in header:
        yield from each("field", _group(context), label)
    elif first == "field" and "base" in header:
        group = cells.pop("group", None) or _group(context)
        yield from each("baseline field", group, label)
    elif first == "case" and "before" in header:
        if re.search(NUMBER, cells["before"]):
            yield output, ("baseline case", label, "score"), cells["before"]
            yield output, ("case", label, "score"), cells["after"]
        yield output, ("baseline case change", label), cells["change"]
    elif first == "case" and "spread" in header:
        for column in header[1:-1]:
            yield output, ("case", f"{label}[{column}]", "score"), cells[column]
        yield output, ("spread", label), cells["spread"]
    elif first == "case" and "where" in header:
        yield output, ("case", label, "score"), cells["score"]
    elif first == "target":
        yield from each("target", label)
    elif first == "field" and "cases" in header:
        yield from each("target field", label)
        for column, note in notes.items():
            if (found := re.fullmatch(rf"95% interval ({INTERVAL})", note)) is not None:
                yield output, ("target field", label, f"{column} interval"), found[1]
        # an HTML chart: each bar's title and the chart's label name a difference
        chart = cells.get("chart", "")
        for found in re.finditer(rf"(\S+) − (\S+): ({SIGNED})", chart):
            yield output, ("target field", label, f"{found[1]} − {found[2]}"), found[3]
        said = re.fullmatch(r"difference from (\S+), scale .*?: (.*)", notes.get("chart", ""))
        if said is not None:
            for found in re.finditer(rf"(\S+) ({SIGNED})", said[2]):
                yield output, ("target field", label, f"{found[1]} − {said[1]}"), found[2]


def message_figures(output: str, line: str) -> Iterator[Figure]:
    """The figures of a line of prose: a gate's message, the baseline line, a headline."""
    drop = re.search(
        rf"(?:target (?P<t>\S+) against (?P<ref>\S+): )?(?:field (?P<path>\S+) "
        rf"\((?P<group>[^()]*)\): mean|overall) score dropped by (?P<drop>{NUMBER}) "
        rf"\((?P<b>{NUMBER}) -> (?P<a>{NUMBER}) over (?P<n>\d+) shared cases?\)(?P<rest>.*)",
        line,
    )
    if drop is not None:
        t, ref, path, rest = drop["t"], drop["ref"], drop["path"], drop["rest"]
        change = "+0.0000" if drop["drop"] == "0.0000" else f"-{drop['drop']}"
        interval = re.search(rf"95% interval ({INTERVAL})", rest)
        p = re.search(rf"\(p = ({NUMBER})\)", rest)
        holm = re.search(rf"(?:Holm-adjusted p = |raises p to )({NUMBER})", rest)
        detect = re.search(rf"can only detect drops of ({NUMBER})", rest)
        if t is None and path is None:
            key: tuple[str, ...] = ("baseline",)
            named = {"base": drop["b"], "now": drop["a"], "change": change, "shared": drop["n"]}
            named |= {"95% interval": interval[1]} if interval else {}
            named |= {"detectable": detect[1]} if detect else {}
        elif t is None:
            key = ("baseline field", drop["group"], path)
            named = {"base": drop["b"], "now": drop["a"], "change": change, "cases": drop["n"]}
            named |= {"95% interval": interval[1]} if interval else {}
            named |= {"p": p[1]} if p else {}
            named |= {"Holm p": holm[1]} if holm else {}
        elif path is None:
            yield output, ("target", ref, "score"), drop["b"]
            yield output, ("targets", "shared"), drop["n"]
            key = ("target", t)
            named = {"score": drop["a"], f"vs {ref}": change}
            named |= {"95% interval": interval[1]} if interval else {}
        else:
            key = ("target field", path)
            named = {ref: drop["b"], t: drop["a"], f"{t} − {ref}": change, "cases": drop["n"]}
            named |= {f"{t} − {ref} interval": interval[1]} if interval else {}
        for column, text in named.items():
            yield output, (*key, column), text
    for found in re.finditer(
        rf"(?:target (?P<t>\S+) against (?P<ref>\S+): )?case (?P<case>\S+) dropped from "
        rf"(?P<b>{NUMBER}) to (?P<a>{NUMBER})",
        line,
    ):
        if found["t"] is None:
            yield output, ("baseline case", found["case"], "score"), found["b"]
            yield output, ("case", found["case"], "score"), found["a"]
        else:
            yield output, ("case", f"{found['case']}[{found['ref']}]", "score"), found["b"]
            yield output, ("case", f"{found['case']}[{found['t']}]", "score"), found["a"]
    for found in re.finditer(
        rf"field (\S+) \(([^()]*)\): mean score ({NUMBER}) is below its floor ({NUMBER})", line
    ):
        yield output, ("field", found[2], found[1], "score"), found[3]
        yield output, ("floor", found[2], found[1]), found[4]
    for found in re.finditer(rf"\b((?:jsonmatch_)?max_(?:case_)?drop) ({NUMBER})", line):
        yield output, ("setting", found[1]), found[2]
    said = re.search(
        rf"[Mm]ean change \**({SIGNED})\** \(({NUMBER}) (?:->|→) ({NUMBER})\)"
        rf"(?:, 95% interval ({INTERVAL}))?",
        line,
    )
    if said is not None:
        yield output, ("baseline", "change"), said[1]
        yield output, ("baseline", "base"), said[2]
        yield output, ("baseline", "now"), said[3]
        if said[4]:
            yield output, ("baseline", "95% interval"), said[4]
        detect = re.search(rf"(?:detectable drop|could detect is) ({NUMBER})", line)
        if detect is not None:
            yield output, ("baseline", "detectable"), detect[1]
    for found in re.finditer(rf"mean change ({SIGNED}) over (\d+) shared case", line):
        yield output, ("baseline", "change"), found[1]
        yield output, ("baseline", "shared"), found[2]
    if (found := re.search(rf"McNemar p = ({NUMBER})", line)) is not None:
        yield output, ("baseline", "McNemar p"), found[1]
    if found := re.search(rf"^[Oo]verall score \**({NUMBER})\** over (\d+) cases", line):
        yield output, ("overall",), found[1]
        yield output, ("count",), found[2]
    if (found := re.search(r"held to \**(\S+?)\**,? over (\d+) shared case", line)) is not None:
        yield output, ("targets", "shared"), found[2]


def text_figures(output: str, text: str) -> Iterator[Figure]:
    """The terminal's lines: aligned tables (columns two spaces apart or more) and prose."""
    context = ""
    header: list[str] | None = None
    for line in text.splitlines():
        cells = re.split(r"\s{2,}", line.strip())
        if header is not None and len(cells) >= len(header) and line.strip():
            # (a changed case's row may end with the gate it failed: a cell beyond the header)
            yield from table_figures(output, context, header, cells[: len(header)], {})
            continue
        header = None
        first = cells[0]
        if len(cells) > 2 and first in ("metric", "field", "target", "case", "changed most"):
            header = cells
            continue
        if re.fullmatch(r"(fields of )?(metric|folder|file) \S+( \[[^\]]+\])?", line.strip()):
            context = line.strip()
        yield from message_figures(output, line)


def markdown_figures(output: str, text: str) -> Iterator[Figure]:
    """Markdown's lines: pipe tables (under the last heading) and prose, unescaped."""
    lines = [re.sub(r"\\(.)", r"\1", line) for line in text.splitlines()]
    context = ""
    header: list[str] | None = None
    for i, line in enumerate(lines):
        if line.startswith("#"):
            context = line.lstrip("#").strip()
        if line.startswith("|"):
            cells = [c.strip() for c in line.strip("|").split(" | ")]
            if i + 1 < len(lines) and lines[i + 1].startswith("| ---"):
                header = cells
            elif header is not None and not line.startswith("| ---"):
                yield from table_figures(output, context, header, cells, {})
            continue
        header = None
        yield from message_figures(output, line)


class _Page(HTMLParser):
    """An HTML page as headings, tables (header, rows of cells with their titles) and the
    text of its paragraphs, list items and SVG titles."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tables: list[tuple[str, list[str], list[tuple[list[str], dict[str, str]]]]] = []
        self.prose: list[str] = []
        self.cards: dict[str, str] = {}
        self.case_scores: list[tuple[str, str]] = []
        self.case_lines: list[tuple[str, str]] = []  # prose inside a case, after its id
        self._heading = ""
        self._text: list[str] | None = None  # collecting a heading, cell, paragraph, title
        self._what = ""
        self._header: list[str] = []
        self._row: list[str] = []
        self._titles: dict[int, str] = {}
        self._in_head = False
        self._depth = 0
        self._skip = False
        self._case = ""
        self._figure = ""

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = {k: v or "" for k, v in attrs}
        if tag == "table":
            self._depth += 1
            self._skip = "side-by-side" in a.get("class", "")  # a case's fields: its own
            if self._depth == 1 and not self._skip:
                self.tables.append((self._heading, [], []))
                self._header = []
        elif tag == "thead":
            self._in_head = True
        elif tag == "tr":
            self._row, self._titles = [], {}
        elif tag in ("td", "th"):
            if "title" in a:
                self._titles[len(self._row)] = a["title"]
            self._start("cell")
        elif tag in ("h2", "h3"):
            self._start("heading")
        elif tag in ("p", "li", "title"):
            self._start("prose")
        elif tag == "svg" and "aria-label" in a:
            if self._text is not None and self._what == "cell":
                self._titles[len(self._row)] = a["aria-label"]
            else:
                self.prose.append(a["aria-label"])
        elif tag == "div" and "data-figure" in a:
            self._figure = a["data-figure"]
            self._start("card")
        elif tag == "span" and a.get("class") == "case-id":
            self._start("case")
        elif tag == "span" and a.get("class") == "case-score":
            self._start("score")

    def _start(self, what: str) -> None:
        if self._text is None or what == "cell":
            self._text, self._what = [], what

    def handle_data(self, data: str) -> None:
        if self._text is not None:
            self._text.append(data)

    def handle_endtag(self, tag: str) -> None:
        ends = {
            "cell": ("td", "th"),
            "heading": ("h2", "h3"),
            "prose": ("p", "li", "title"),
            "card": ("div",),
            "case": ("span",),
            "score": ("span",),
        }
        if self._text is not None and tag in ends[self._what]:
            text = " ".join(" ".join(self._text).split())
            what, self._text = self._what, None
            if what == "cell":
                self._row.append(text)
            elif what == "heading":
                self._heading = text
            elif what == "prose" and self._case:
                self.case_lines.append((self._case, text))
            elif what == "prose":
                self.prose.append(text)
            elif what == "card":
                self.cards[self._figure] = text
            elif what == "case":
                self._case = text
            else:
                self.case_scores.append((self._case, text))
        if tag == "thead":
            self._in_head = False
        elif tag == "tr" and self._depth == 1 and self.tables and self._row and not self._skip:
            if self._in_head:
                self._header = self._row
                self.tables[-1] = (self.tables[-1][0], self._row, [])
            else:
                notes = {self._header[i]: t for i, t in self._titles.items() if i > 0}
                self.tables[-1][2].append((self._row, notes))
        elif tag == "table":
            self._depth -= 1


def html_figures(output: str, page: str) -> Iterator[Figure]:
    parsed = _Page()
    parsed.feed(page)
    for heading, header, rows in parsed.tables:
        for cells, notes in rows:
            if header and len(cells) >= len(header) - 1:
                yield from table_figures(output, heading, header, cells, notes)
    for line in parsed.prose:
        yield from message_figures(output, html.unescape(line))
    if "overall" in parsed.cards:
        yield output, ("overall",), parsed.cards["overall"]
        yield output, ("count",), parsed.cards["count"]
    for case, score in parsed.case_scores:
        yield output, ("case", case, "score"), score
    for case, line in parsed.case_lines:
        said = re.fullmatch(
            rf"score ({NUMBER}) \(threshold ({NUMBER})\), precision ({NUMBER}), recall "
            rf"({NUMBER}), F1 ({NUMBER})",
            line,
        )
        if said is not None:
            for name, text in zip(
                ("score", "threshold", "precision", "recall", "F1"), said.groups()
            ):
                yield output, ("case", case, name), text


def visible(output: str, text: str) -> str:
    """What a reader of ``output`` sees: an HTML page's text, titles and labels (not its
    styles, scripts or sort keys)."""
    if output != "html":
        return text
    text = re.sub(r"<style.*?</style>|<script.*?</script>", "", text, flags=re.DOTALL)
    return html.unescape(re.sub(r' data-[a-z-]+="[^"]*"', "", text))


def json_figures(output: str, text: str) -> Iterator[Figure]:
    """The JSON report: its gates' messages as printed, and its scores as every output
    prints them (four decimals)."""
    report = json.loads(text)
    for kind in ("failures", "warnings", "checked"):
        for line in report["gates"].get(kind, []):
            yield from message_figures(f"{output} gates", line)
    yield output, ("overall",), f"{report['overall']:.4f}"
    yield output, ("count",), str(report["count"])
    for name, metric in report["metrics"].items():
        yield output, ("metric", name, "score"), f"{metric['mean_score']:.4f}"
    for group, fields in report["groups"].items():
        for path, field in fields.items():
            yield output, ("field", group, path, "score"), f"{field['mean_score']:.4f}"
    for case in report["cases"]:
        yield output, ("case", case["case_id"], "score"), f"{case['mean_score']:.4f}"
    baseline = report.get("baseline")
    if baseline:
        yield output, ("baseline", "base"), f"{baseline['before']:.4f}"
        yield output, ("baseline", "now"), f"{baseline['after']:.4f}"
        for group, fields in baseline["groups"].items():
            for path, d in fields.items():
                yield output, ("baseline field", group, path, "base"), f"{d['before']:.4f}"
                yield output, ("baseline field", group, path, "now"), f"{d['after']:.4f}"
    targets = report.get("targets")
    if targets:
        for run in targets["runs"]:
            yield output, ("target", run["name"], "score"), f"{run['overall']:.4f}"
            yield output, ("target", run["name"], "cases"), str(run["cases"])
        names = [run["name"] for run in targets["runs"]]
        for row in targets["fields"]:
            for name, score in zip(names, row["scores"]):
                yield output, ("target field", row["path"], name), f"{score:.4f}"
