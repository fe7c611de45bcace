"""The report as GitHub-flavoured Markdown: for a job summary (``GITHUB_STEP_SUMMARY``) or a
pull-request comment. Every value from the data is escaped, so a model's output cannot
inject markup, links or HTML.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence, Set

from ...engine.results.field_results import HALLUCINATION, MISMATCH, OMISSION
from ..run_model.report_types import (
    BaselineSectionDict,
    CaseDict,
    ComparisonDict,
    FieldDeltaDict,
    FieldTable,
    GatesDict,
    ReliabilityDict,
    Report,
    ReportHead,
    RunsComparison,
    TargetsDict,
)
from ..verdicts.changes import (
    metric_cells,
    regressed_first,
)
from ..verdicts.runs import (
    DISAGREEMENTS,
    FLAKY_TITLE,
    PARTIAL_NAMED,
    cell_score,
    cell_spread,
    field_table,
    flaky_line,
    headline,
    run_rows,
)
from .baseline_tables import ChangedRow, baseline_fields, changed_rows, mean_change
from .listing import field_figures, field_rows, never_scored_line, valid_share_text, worst_first
from .tables import page_text

WORST_CASES = 10
FIELD_ROWS = 15
_SPECIAL = re.compile(r"([\\`*_{}\[\]<>()#+!|~])")


def escape(text: object) -> str:
    """Text safe inside a Markdown table cell: one line, control and format characters as
    their escapes (``page_text``: no right-to-left override turns a value around), markup
    characters escaped, no bare URL GitHub would turn into a link (a zero-width space, put
    in after, breaks ``://`` and ``www.``), and no ``@name`` it would turn into a mention
    of a user or a team (a zero-width space put in after the ``@``, which breaks an e-mail
    address's link as well)."""
    plain = page_text(" ".join(str(text).split()), keep="")
    plain = _SPECIAL.sub(r"\\\1", plain).replace("&", "&amp;")
    return _AUTOLINK.sub(_broken, plain)


# what GitHub's Markdown links by itself: "scheme://", "www.", and "@" before a name (a
# mention, "@octocat", "@acme/admins"; an e-mail address's domain): a login or an
# organisation starts with a letter or a digit
_AUTOLINK = re.compile(r"(?i)(?<=[a-z0-9]):/|www\.|@(?=[a-z0-9])")


def _broken(match: re.Match[str]) -> str:
    """The link's start with a zero-width space in it: before the last character of ``://``
    and ``www.``; after an ``@`` (one put before it would leave ``@name`` whole, and a
    mention needs only a non-word character before the ``@``)."""
    found = match.group(0)
    return found + "\u200b" if found == "@" else found[:-1] + "\u200b" + found[-1]


MARKER = "<!-- jsonmatch-report -->"


def render_markdown(report: Report, full: bool = False) -> str:
    parts = ["## jsonmatch", "", _verdict(report), "", *_metrics(report), "", _overall(report)]
    from ..verdicts.report import call_lines, target_order

    # (a dataset run's comparisons stay in their spool: only the run's judge figures then)
    comparisons = report["comparisons"]
    listed = comparisons if isinstance(comparisons, (list, tuple)) else []
    calls = call_lines(listed, target_order(report), report["run"].get("judge"))
    parts += [f"\n{escape(line)}" for line in calls]
    worst = _worst_cases(report, full)
    if worst:
        parts += ["", "### Cases that failed or could not be scored", "", *worst]
    cut = _truncated_cases(report, full)
    if cut:
        parts += ["", "### Answers cut off, scored closed for partial credit", "", *cut]
    baseline = report.get("baseline")
    if baseline:
        listed = report["cases"] if isinstance(report["cases"], (list, tuple)) else []
        against = _baseline(baseline, report["gates"], full, listed)
        parts += ["", "### Against the baseline", "", *against]
    targets = report.get("targets")
    if targets:
        parts += _targets(targets, full)
    reliable = report.get("reliability")
    if reliable:
        parts += ["", f"### Repeated cases at k = {reliable['k']}", "", *_reliability(reliable)]
    for key, fields in report["groups"].items():
        if fields:
            title = (
                "### Fields"
                if len(report["groups"]) == 1 and report["group_by"] == "metric"
                else f"### Fields of {report['group_by']} {escape(key)}"
            )
            changes = baseline["groups"].get(key, {}) if baseline else {}
            parts += ["", title, "", *_fields(fields, full, changes)]
    # an HTML comment, invisible once rendered: a pull-request comment action finds the
    # comment that holds it (find-comment's body-includes) and updates that one
    parts += ["", MARKER]
    return "\n".join(parts) + "\n"


def _reliability(section: ReliabilityDict) -> list[str]:
    """pass^k and pass@k over the run, and each repeated case with the flaky ones marked."""
    k = section["k"]
    rows = []
    for name, figure in ((f"pass^{k}", section["pass_hat_k"]), (f"pass@{k}", section["pass_at_k"])):
        if figure is None:
            rows.append([escape(name), "0", "-", "-"])
            continue
        low, high = figure["low"], figure["high"]
        interval = "-" if low is None or high is None else f"{low:.4f} to {high:.4f}"
        rows.append([escape(name), str(figure["cases"]), f"{figure['mean']:.4f}", interval])
    lines = _table(["figure", "cases", "mean", "95% interval"], rows)
    cases = [
        [
            escape(case["case_id"]),
            f"{case['passed']}/{case['scored']}",
            str(case["unscored"]),
            "-" if case["pass_hat_k"] is None else f"{case['pass_hat_k']:.4f}",
            "-" if case["pass_at_k"] is None else f"{case['pass_at_k']:.4f}",
            "flaky" if case["flaky"] else "",
        ]
        for case in section["cases"]
    ]
    header = ["case", "passed", "unscored", escape(f"pass^{k}"), escape(f"pass@{k}"), ""]
    return [*lines, "", *_table(header, cases, "lrrrrl")]


def _table(header: Sequence[str], rows: Sequence[Sequence[str]], align: str = "") -> list[str]:
    """A table; ``align`` has a letter per column, ``l`` for text and ``r`` for numbers
    (default: text first, numbers after)."""
    letters = align or "l" + "r" * (len(header) - 1)
    rule = ["---" if letter == "l" else "---:" for letter in letters]
    return [
        "| " + " | ".join(header) + " |",
        "| " + " | ".join(rule) + " |",
        *["| " + " | ".join(row) + " |" for row in rows],
    ]


def _verdict(report: ReportHead) -> str:
    gates = report["gates"]
    if gates.get("not_judged"):
        return f"**Gates: not judged**: {escape(gates['not_judged'])}"
    lines = ["**Gates: passed**" if gates["passed"] else "**Gates: FAILED**"]
    lines += [f"- {escape(f)}" for f in gates["failures"]]
    lines += [f"- warning: {escape(w)}" for w in gates["warnings"]]
    if gates["passed"]:
        lines += [f"- passed: {escape(c)}" for c in gates.get("checked", [])]
    return "\n".join(lines)


def _metrics(report: ReportHead) -> list[str]:
    # the share of answers valid against their schema: a column only when a schema was given
    metrics = report["metrics"]
    valid = any("conformance" in m for m in metrics.values())
    rows = [
        [
            escape(name),
            *metric_cells(m),
        ]
        + ([f"{share['share']:.4f}" if (share := m.get("conformance")) else "-"] if valid else [])
        for name, m in metrics.items()
    ]
    shares = [
        f"- schema, {escape(name)}: {valid_share_text(share, escape)}"
        for name, m in metrics.items()
        if (share := m.get("conformance"))
    ]
    return _table(
        ["metric", "cases", "passed", "failed", "errors", "score", "precision", "recall", "F1"]
        + (["valid"] if valid else []),
        rows,
    ) + (["", *shares] if shares else [])


def _overall(report: ReportHead) -> str:
    if report["overall"] is None:
        return "No case was counted."
    text = f"Overall score **{report['overall']:.4f}** over {report['count']} cases"
    if report["errors"]:
        text += f", {report['errors']} of which could not be scored (counted as 0)"
    if report["xfailed"] or report["xpassed"]:
        text += (
            f"; {report['xfailed']} xfailed and {report['xpassed']} xpassed, not counted "
            f"(expected to fail: xfail-marked, or caught by the test)"
        )
    if spoiled := report.get("simulator", 0):
        text += (
            f"; {spoiled} conversation{'' if spoiled == 1 else 's'} spoiled by "
            f"{'its' if spoiled == 1 else 'their'} simulated user, not counted (neither the "
            f"agent's pass nor its failure)"
        )
    return text + "."


def _worst_cases(report: Report, full: bool) -> list[str]:
    # worst first: those that could not be scored, then by mean score, then by id; a case a
    # gate failed is here too, whatever its own status, with the gate that failed it
    blocked = {b["case_id"]: b["gate"] for b in report["gates"].get("blocked", [])}
    bad = worst_first(
        c for c in report["cases"] if c["status"] in ("failed", "error") or c["case_id"] in blocked
    )
    if not bad:
        return []  # no section of an empty table
    shown = bad if full else bad[:WORST_CASES]
    failing = failing_fields(report["comparisons"], {case["case_id"] for case in shown})
    rows = []
    for case in shown:
        where = case["file"] + (f":{case['line']}" if case["line"] else "")
        checked = case.get("conformance")
        invalid = checked is not None and checked["valid"] < checked["checked"]
        below = case["mean_score"] < case["threshold"]
        named = failing.get(case["case_id"])
        reason = case["error"] or (
            f"score below threshold {case['threshold']:.4f}" + (f": {named}" if named else "")
            if case["status"] == "failed" and (below or not invalid)
            else ""
        )
        if invalid:
            said = "the answer breaks its schema"
            reason = f"{reason}; {said}" if reason else said
        if case["case_id"] in blocked:
            gate = f"failed the gate {blocked[case['case_id']]} (dropped against the baseline)"
            reason = f"{reason}; {gate}" if reason else gate
        if case.get("truncated"):
            reason += "; the answer was cut off (scored closed)"
        rows.append(
            [escape(case["case_id"]), escape(where), f"{case['mean_score']:.4f}", escape(reason)]
        )
    lines = _table(["case", "where", "score", "why"], rows, "llrl")
    if len(bad) > len(shown):
        lines.append(f"\n{len(bad) - len(shown)} more in the JSON report.")
    return lines


FIELDS_NAMED = 3  # the failing fields a case's "why" names; the rest are counted
COSTLY = frozenset({MISMATCH, OMISSION, HALLUCINATION})  # the statuses that cost points


def failing_fields(comparisons: Iterable[ComparisonDict], case_ids: Set[str]) -> dict[str, str]:
    """For each case of ``case_ids``, the fields that cost it points, in words: the lowest
    scored first, each with its status (``rebook_flight.date mismatch,
    issue_refund.currency omission and 2 more``); a field wrong in several runs is named once.
    A case whose comparisons kept no fields is not in the result."""
    found: dict[str, dict[tuple[str, str], float]] = {}
    for comparison in comparisons:
        case_id = comparison["case_id"]
        if case_id not in case_ids:
            continue
        wrong = found.setdefault(case_id, {})
        for field in comparison.get("fields", ()):
            if field["status"] in COSTLY:
                key = (field["path"], field["status"])
                wrong[key] = min(field["score"], wrong.get(key, 1.0))
    out = {}
    for case_id, wrong in found.items():
        if not wrong:
            continue
        ranked = sorted(wrong.items(), key=lambda kv: (kv[1], kv[0]))
        words = [f"{path} {status}" for (path, status), _ in ranked[:FIELDS_NAMED]]
        more = len(ranked) - len(words)
        out[case_id] = ", ".join(words) + (f" and {more} more" if more else "")
    return out


def _truncated_cases(report: Report, full: bool) -> list[str]:
    """The cases scored from an answer cut off inside its JSON value (``truncated: close``):
    what it wrote was scored, the fields past the cut count as omitted."""
    cut = worst_first(c for c in report["cases"] if c.get("truncated"))
    shown = cut if full else cut[:WORST_CASES]
    rows = [
        [
            escape(case["case_id"]),
            escape(case["file"] + (f":{case['line']}" if case["line"] else "")),
            f"{case['mean_score']:.4f}",
            f"{case.get('truncated', 0)} of {case['runs']}",
        ]
        for case in shown
    ]
    lines = _table(["case", "where", "score", "runs cut off"], rows, "llrr") if rows else []
    if len(cut) > len(shown):
        lines.append(f"\n{len(cut) - len(shown)} more in the JSON report.")
    return lines


def _baseline(
    baseline: BaselineSectionDict, gates: GatesDict, full: bool, cases: Iterable[CaseDict] = ()
) -> list[str]:
    """The run against its baseline (``cases``: the cases the report lists, whose
    quarantined ones are counted apart: neither added nor removed)."""
    quarantined = sum("quarantine" in case for case in cases)
    lines = [
        f"Baseline {escape(baseline['path'])}: {baseline['shared']} shared cases, "
        f"{len(baseline['added'])} added, {len(baseline['removed'])} removed"
        + (f", {quarantined} quarantined (not compared)." if quarantined else ".")
    ]
    if baseline.get("unscored"):
        lines[0] += f" {len(baseline.get('unscored', []))} not compared: they could not be scored."
    if baseline.get("paired"):
        lines[0] += f" {escape(baseline.get('paired', ''))}."
    mean = mean_change(baseline, "; ", "the smallest drop this run could detect is")
    if mean is not None:
        change, before, after, interval = mean
        text = f"Mean change **{change}** ({before:.4f} -> {after:.4f}){interval}"
        lines += [
            "",
            text + ".",
            "",
            f"Pass -> fail: {baseline['pass_to_fail']}, fail -> pass: "
            f"{baseline['fail_to_pass']} (exact McNemar p = {baseline['mcnemar_p']:.4f}).",
        ]
    lines += _changed_cases(baseline, gates, full)
    lines += _field_changes(baseline, gates, full)
    return lines


def _changed_cases(baseline: BaselineSectionDict, gates: GatesDict, full: bool) -> list[str]:
    """The table of the cases whose score changed against the baseline, with the gate each
    failed (the worst only, unless ``full``)."""
    changed, hidden = changed_rows(baseline, gates, None if full else WORST_CASES)
    if not changed:
        return []
    rows = [
        [escape(c.case_id), *c.figures, "" if c.gate is None else f"failed: {escape(c.gate)}"]
        for c in changed
    ]
    lines = ["", *_table(ChangedRow.header("case", "gate"), rows, "lrrrl")]
    if hidden:
        lines.append(f"\n{hidden} more changed cases in the JSON report.")
    return lines


def _field_changes(baseline: BaselineSectionDict, gates: GatesDict, full: bool) -> list[str]:
    """The table of each field's mean score against the baseline, with its interval and
    p-values (the most changed only, unless ``full``)."""
    fields = baseline_fields(baseline, gates, None if full else FIELD_ROWS)
    if not fields.rows:
        return []
    grouped = len(baseline["groups"]) > 1
    lines = [
        "",
        f"Fields against the baseline: the mean of each field's per-case scores "
        f"over the shared cases that hold it (Holm's correction across {fields.tested} "
        f"rows).",
        "",
    ]
    lines += _table(
        fields.header(grouped),
        [
            [escape(r.path), *([escape(r.group)] if grouped else []), *fields.cells(r)]
            for r in fields.rows
        ],
        "l" + ("l" if grouped else "") + "rrrrrrr",
    )
    if fields.hidden:
        lines.append(f"\n{fields.hidden} more fields in the JSON report.")
    return lines


def _fields(
    fields: FieldTable, full: bool, changes: Mapping[str, FieldDeltaDict] | None = None
) -> list[str]:
    """A group's field table, worst first (against a baseline, ``changes``, the fields that
    dropped first: changes.regressed_first)."""
    worst, unscored = field_rows(fields)  # a field never scored has no score to show
    worst = regressed_first(worst, changes)
    shown = worst if full else worst[:FIELD_ROWS]
    judged = any(agg.get("batch_error") for _, agg in worst)  # a judge left some undecided
    header = ["field", "score", "match", "mismatch", "omission", "hallucination"]
    header += ["not judged"] if judged else []
    rows = [[escape(path), *field_figures(agg, judged)] for path, agg in shown]
    lines = _table(header, rows) if rows else []
    if len(worst) > len(shown):
        lines.append(f"\n{len(worst) - len(shown)} more fields in the JSON report.")
    if unscored:
        line = never_scored_line(unscored, escape, None if full else FIELD_ROWS) + "."
        lines.append(f"\n{line}" if lines else line)
    return lines


# -- runs side by side: compare-runs, and a run's named targets -----------------------------


def runs_parts(
    data: RunsComparison, full: bool = False, level: str = "###", word: str = "runs"
) -> list[str]:
    """The tables of a runs comparison (reporting/verdicts/runs.py) as Markdown, under headings of
    ``level``: each run (or target: ``word``) against the first, cases only some have, per
    field, and where they disagree most."""
    names = [escape(r["name"]) for r in data["runs"]]
    header, rows = run_rows(data, word=word[:-1])
    # the run's name is data; every other cell is a number this module wrote
    parts = _table([escape(h) for h in header], [[escape(row[0]), *row[1:]] for row in rows])
    if data["partial"]:
        shown = data["partial"] if full else data["partial"][:PARTIAL_NAMED]
        parts += ["", f"{level} Cases only some {word} have", ""]
        parts += [
            f"- {escape(p['case_id'])} (in {', '.join(map(escape, p['runs']))})" for p in shown
        ]
        if len(shown) < len(data["partial"]):
            parts.append(f"- … and {len(data['partial']) - len(shown)} more")
    if data["fields"]:
        head, body = field_table(data, names, "−")
        parts += [
            "",
            f"{level} Per field",
            "",
            *_table(head, [[escape(row[0]), *row[1:]] for row in body]),
        ]
    parts += ["", f"{level} Where the {word} disagree most", ""]
    if data["disagreements"]:
        rows_d = data["disagreements"] if full else data["disagreements"][:DISAGREEMENTS]
        parts += _table(
            ["case", *names, "spread"],
            [
                [
                    escape(r["case_id"]),
                    *(cell_score(s) for s in r["scores"]),
                    cell_spread(r),
                ]
                for r in rows_d
            ],
        )
    else:
        parts.append(f"Every shared case scores the same in every {word[:-1]}.")
    if "flaky" in data:
        first = escape(data["runs"][0]["name"])
        limit = None if full else PARTIAL_NAMED
        parts += ["", f"{level} {FLAKY_TITLE}", ""]
        parts += [f"- {flaky_line(row, first, limit, escape)}" for row in data["flaky"]]
    return parts


def render_runs_markdown(data: RunsComparison, full: bool = False) -> str:
    """``jsonmatch compare-runs`` as Markdown."""
    parts = ["## jsonmatch compare-runs", "", escape(headline(data)) + ".", ""]
    parts += [f"- **{escape(r['name'])}**: {escape(r['path'])}" for r in data["runs"]]
    return "\n".join([*parts, "", *runs_parts(data, full)]) + "\n"


def _targets(targets: TargetsDict, full: bool) -> list[str]:
    """A run's named targets side by side (versus.py), each against the reference."""
    shared = len(targets["shared"])
    held = "held to" if targets["gated"] else "against"
    return [
        "",
        "### Targets",
        "",
        f"Each target {held} **{escape(targets['reference'])}**, over {shared} shared "
        f"case{'' if shared == 1 else 's'}: paired difference with its 95% interval, "
        f"pass/fail flips with McNemar's p.",
        "",
        *runs_parts(targets, full, "####", "targets"),
    ]
