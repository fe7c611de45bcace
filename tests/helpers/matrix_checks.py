"""The cells of the case-path matrix (tests/plugin/test_case_path_matrix.py): what a path's
outcome (tests/helpers/matrix_runs.py) must show of a row, against the one-process run.

A row is a kind of case (its figures: its cases, its comparisons and their field rows, its
folder's field tables, its repeated cases' pass^k, the gate lines that name it) or a whole
run of one session configuration (the overall score, the metrics, every field table, the
gates, the reliability figures, the targets' comparison). Each check gives the problems it
found, as lines; a cell holds when there are none.
"""

from __future__ import annotations

import copy
import dataclasses
import json
import re
import xml.etree.ElementTree as ET
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from tests.cli.html_data import case_ids, page_data
from tests.helpers.matrix_runs import Outcome, Step
from tests.helpers.printed_figures import (
    html_figures,
    markdown_figures,
    text_figures,
)


@dataclass(frozen=True)
class Row:
    """A row of the matrix: a kind of case (``kind``, its folder in the suite), or the whole
    run of a session configuration (``kind`` None). ``updated``: the cases
    ``--jsonmatch-update=all`` rewrites, each with the score it has in the run after."""

    suite: str
    kind: str | None = None
    updated: Mapping[str, float] = field(default_factory=dict)

    @property
    def group(self) -> str:
        return f"golden/{self.kind}"

    def holds(self, item: Mapping[str, Any]) -> bool:
        """Whether a case or comparison of a report is this row's."""
        return self.kind is None or str(item.get("file", "")).startswith(self.group + "/")

    def names(self, line: str) -> bool:
        """Whether a gate's line is about this row's kind (its folder's table or a case)."""
        return self.kind is None or f"({self.group})" in line or f"{self.group}/" in line


Problems = list[str]
Check = Callable[[Row, Outcome, Outcome], Problems]

# What differs between two honest runs of one suite: times, where an output came from (a live
# call or a recording), and the judge's traffic (a replay asks it nothing).
_VOLATILE = ("duration_s", "source", "recording", "judge")
# Lines that say a part of the run was silently left out: none may appear in a whole run.
SILENT_SKIP = ("not held", "matched no scored field", "names no case", "never scored", "too few")


def _comparison(c: Mapping[str, Any]) -> dict[str, Any]:
    out = {k: v for k, v in c.items() if k not in _VOLATILE}
    if isinstance(out.get("call"), dict):
        out["call"] = {k: v for k, v in out["call"].items() if k != "latency_s"}
    return out


def _case(c: Mapping[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in c.items() if k != "duration_s"}


def _targets(section: Any) -> Any:
    if not section:
        return section
    runs = [{k: v for k, v in r.items() if k != "latency"} for r in section["runs"]]
    return {**section, "runs": runs}


def figures(report: Any, row: Row) -> dict[str, Any]:
    """The row's figures in a report, by name."""
    if row.kind is None:
        keys = ("overall", "count", "errors", "xfailed", "xpassed", "group_by", "metrics")
        return {
            **{k: report.get(k) for k in keys},
            "fields": report["fields"],
            "groups": report["groups"],
            "reliability": report.get("reliability"),
            "gates": report["gates"],
            "targets": _targets(report.get("targets")),
        }
    ids = {c["case_id"] for c in report["cases"] if row.holds(c)}
    reliability = report.get("reliability") or {}
    return {
        "fields": {g: t for g, t in report["groups"].items() if g.split(" [")[0] == row.group},
        "cases": [_case(c) for c in report["cases"] if row.holds(c)],
        "comparisons": [_comparison(c) for c in report["comparisons"] if row.holds(c)],
        "reliability": {
            "groups": {
                g: v
                for g, v in reliability.get("groups", {}).items()
                if g.split(" [")[0] == row.group
            },
            "cases": [c for c in reliability.get("cases", []) if c["case_id"] in ids],
            "flaky": [i for i in reliability.get("flaky", []) if i in ids],
        },
        "gates": {
            k: [line for line in report["gates"].get(k, []) if row.names(line)]
            for k in ("failures", "warnings")
        },
    }


def differences(before: Any, after: Any, at: str = "") -> Iterator[str]:
    """Where two JSON values differ, by path, each with both values (cut short)."""
    if isinstance(before, dict) and isinstance(after, dict):
        for key in sorted(set(before) | set(after), key=str):
            yield from differences(
                before.get(key, "<absent>"), after.get(key, "<absent>"), f"{at}.{key}"
            )
    elif isinstance(before, list) and isinstance(after, list) and len(before) == len(after):
        for n, (b, a) in enumerate(zip(before, after)):
            yield from differences(b, a, f"{at}[{n}]")
    elif before != after:
        yield f"{at or '$'}: {json.dumps(before)[:160]} != {json.dumps(after)[:160]}"


def same_figures(
    reference: Any, report: Any, row: Row, what: str, skip: tuple[str, ...] = ()
) -> Problems:
    """The row's figures of ``report`` against the one-process run's, figure by figure."""
    if report is None:
        return [f"{what}: no report"]
    want, got = copy.deepcopy(figures(reference, row)), copy.deepcopy(figures(report, row))
    for key in skip:  # a figure this path changes on purpose (``gates``, ``gates.checked``)
        *outer, last = key.split(".")
        for side in (want, got):
            for name in outer:
                side = side.get(name) or {}
            side.pop(last, None)
    found = list(differences(want, got))
    return [f"{what}: {d}" for d in found[:12]] + (
        [f"{what}: ... and {len(found) - 12} more"] if len(found) > 12 else []
    )


def refusals(out: Outcome) -> Problems:
    """Every step that stopped short (exit status other than 0 or 1: a refusal, an internal
    error, a usage error), with the last lines it wrote to stderr."""
    problems = []
    for step in out.steps:
        if step.code not in (0, 1):
            said = step.err.strip().splitlines()[-1:] or step.out.strip().splitlines()[-2:]
            problems.append(f"{' '.join(step.argv[2:5])} ... exited {step.code}: {said}")
    return problems


def tests_failed(report: Any) -> bool:
    """Whether a test of a run failed: a case failed or could not be scored, and no
    quarantine covers it."""
    return any(
        c["status"] in ("failed", "error") and "quarantine" not in c for c in report["cases"]
    )


def failing(report: Any) -> bool:
    """Whether a run's pytest exit status must be 1: a test failed, or a gate did."""
    return tests_failed(report) or bool(report["gates"].get("failures"))


def exit_status(step: Step, report: Any, what: str) -> Problems:
    if report is None:
        return []
    want = 1 if failing(report) else 0
    return [] if step.code == want else [f"{what}: exit status {step.code}, not {want}"]


# -- the checks, one per kind of path --------------------------------------------------------


def check_one_process(row: Row, ref: Outcome, out: Outcome) -> Problems:
    """The run the others are held to: clean, and its figures of the row not trivial."""
    report = ref.report
    problems = refusals(ref) + exit_status(ref.steps[0], report, "one process")
    if row.kind is None:
        said = report["gates"]["warnings"] + report["gates"]["failures"]
        return problems + [
            f"a silent skip: {line}" for line in said if any(w in line for w in SILENT_SKIP)
        ]
    scores = [c["mean_score"] for c in report["cases"] if row.holds(c)]
    if not any(0 < s < 1 for s in scores):
        problems.append(f"no case of {row.kind} scores strictly between 0 and 1: {scores}")
    return problems


def check_same(row: Row, ref: Outcome, out: Outcome) -> Problems:
    """A path that ends with the report of the whole suite: the same figures, and every pytest
    run of it exiting as its report says."""
    problems = refusals(out) + same_figures(ref.report, out.report, row, "report")
    for step in out.steps:
        if step.argv[2] == "pytest":
            problems += exit_status(step, ref.report, "pytest")
    return problems


def check_merge(row: Row, ref: Outcome, out: Outcome) -> Problems:
    """Shards merged: each shard's exit status its tests' alone, merge judging the gates."""
    problems = refusals(out) + same_figures(ref.report, out.report, row, "merged")
    for step in out.steps[:-1]:
        name = next(a.split("=", 1)[1] for a in step.argv if a.startswith("--jsonmatch-report="))
        shard = out.reports[name]
        if shard is not None and step.code != int(tests_failed(shard)):
            problems.append(f"{name}: exit status {step.code}, not its tests' own")
    merge = out.steps[-1]
    want = 0 if ref.report["gates"]["passed"] else 1
    if merge.code in (0, 1) and merge.code != want:
        problems.append(f"merge exited {merge.code}, not {want} (the gates' verdict)")
    return problems


def check_replay(row: Row, ref: Outcome, out: Outcome) -> Problems:
    """Recorded then replayed: the same figures, and the replay asks neither the target nor
    the judge anything. A session that records reports each output as it records it, in its
    stable form (calls/stable_form.py: tool-call ids call_1, call_2...): the one-process
    run's outputs are held to it in that form."""
    ref = dataclasses.replace(ref, report=_stable_outputs(ref.report))
    problems = check_same(row, ref, out)
    problems += same_figures(ref.report, out.reports["recorded"], row, "recording run")
    for c in (out.report or {}).get("comparisons", []):
        if row.holds(c) and c["source"] not in ("replayed", "case"):
            problems.append(f"{c['case_id']}: replayed run's output is {c['source']!r}")
        if row.holds(c) and (c.get("judge") or {}).get("requests"):
            problems.append(f"{c['case_id']}: the replay asked the judge")
    return problems


def _stable_outputs(report: Any) -> Any:
    """``report`` with each comparison's output in the stable form a recording holds."""
    from pytest_jsonmatch.calls.stable_form import stable_form

    if report is None:
        return None
    report = copy.deepcopy(report)
    for comparison in report.get("comparisons", []):
        if comparison.get("output") is not None:
            comparison["output"] = stable_form(comparison["output"])
    return report


def _updated_ids(text: str) -> set[str]:
    """The cases an update run says it rewrote (``  FILE:LINE CASE`` under ``updated N``)."""
    lines = text.splitlines()
    start = next((n for n, line in enumerate(lines) if line.startswith("updated ")), len(lines))
    out = set()
    for line in lines[start + 1 :]:
        found = re.fullmatch(r"  (\S+):\d+ (\S+)", line)
        if found is None:
            break
        out.add(f"{found[1]}::{found[2]}")
    return out


def check_update(row: Row, ref: Outcome, out: Outcome) -> Problems:
    """``--jsonmatch-update=all``: its own run scored as any run (its gates not judged);
    then the run after it: the cases the row names rewritten and scoring as it says, every
    other comparison the one-process run's."""
    problems = refusals(out) + same_figures(ref.report, out.report, row, "update run", ("gates",))
    rerun = out.reports["rerun"]
    if rerun is None:
        return problems + ["no report of the run after the update"]
    if row.kind is None:
        gates = out.report["gates"] if out.report else {}
        if gates.get("failures") or not gates.get("not_judged"):
            problems.append(f"the update run judged its gates: {gates}")
        return problems + exit_status(out.steps[-1], rerun, "run after the update")
    named = {
        i.rsplit("::", 1)[1]
        for i in _updated_ids(out.texts["update"])
        if i.startswith(row.group + "/")
    }
    if named != {name.split("[")[0] for name in row.updated}:
        problems.append(f"the update rewrote {sorted(named)}, not those of {sorted(row.updated)}")
    before = {(c["case_id"], c["repeat"]): c for c in ref.report["comparisons"] if row.holds(c)}
    for c in rerun["comparisons"]:
        name = c["case_id"].rsplit("::", 1)[1]
        if not row.holds(c):
            continue
        if name in row.updated:
            want = row.updated[name]
            if abs(c["score"] - want) > 1e-12 or (c["status"] == "passed") != (
                want >= c["threshold"]
            ):
                problems.append(
                    f"{c['case_id']} after the update: {c['score']} {c['status']}, not {want}"
                )
            continue
        was = before.get((c["case_id"], c["repeat"]))
        if was is None:
            problems.append(f"{c['case_id']}: not in the one-process run")
            continue
        # (a rewritten value of several lines moves the cases below it: their lines differ)
        found = [d for d in differences(_comparison(was), _comparison(c)) if d[:6] != ".line:"]
        problems += [f"{c['case_id']} after the update: {d}" for d in found[:6]]
    return problems


def check_report_json(row: Row, ref: Outcome, out: Outcome) -> Problems:
    """The saved report rendered again as JSON: the same figures, and ``jsonmatch report``
    exiting as the gates' verdict says."""
    problems = check_same(row, ref, out)
    want = 0 if ref.report["gates"]["passed"] else 1
    code = out.steps[-1].code
    return problems + ([] if code == want else [f"jsonmatch report exited {code}, not {want}"])


def check_baseline(row: Row, ref: Outcome, out: Outcome) -> Problems:
    """Held to the one-process run's report: the same figures, its gates the same but for the
    baseline's own (checked) lines, nothing added, removed or changed; ``jsonmatch diff``
    says the same."""
    # the baseline's own lines are checked, and its pass^k change is reported, beside the rest
    skip = ("gates.checked", "reliability.baseline")
    problems = refusals(out) + same_figures(ref.report, out.report, row, "report", skip)
    problems += exit_status(out.steps[0], ref.report, "pytest")
    if out.report is None:
        return problems
    checked = out.report["gates"].get("checked", [])
    if row.kind is None and not set(ref.report["gates"]["checked"]) <= set(checked):
        problems.append(f"the baseline run checked {checked}")
    base, ids = (
        out.report.get("baseline") or {},
        {c["case_id"] for c in ref.report["cases"] if row.holds(c)},
    )
    for key in ("added", "removed"):
        problems += [f"baseline {key} {i}" for i in base.get(key, []) if i in ids]
    problems += [
        f"baseline changed {c['case_id']}" for c in base.get("changed", []) if c["case_id"] in ids
    ]
    diff = out.step("diff")
    if diff.code != 0:
        problems.append(f"jsonmatch diff exited {diff.code}: {diff.err.strip()[-200:]}")
    else:
        said = json.loads(out.texts["diff"]).get("baseline") or {}
        for key in ("added", "removed"):
            problems += [f"diff: {key} {i}" for i in said.get(key, []) if i in ids]
        problems += [
            f"diff: changed {c['case_id']}" for c in said.get("changed", []) if c["case_id"] in ids
        ]
    if row.kind is None:
        if (
            base.get("shared") != ref.report["count"]
            or (base.get("difference") or {}).get("mean") != 0
        ):
            said = {k: v for k, v in base.items() if k != "groups"}
            problems.append(f"baseline section: {json.dumps(said)[:300]}")
    return problems + said_quarantined(
        ref.report, out.texts["terminal"], row, "baseline run's summary"
    )


def said_quarantined(report: Any, text: str, row: Row, what: str) -> Problems:
    """Each quarantined case of the row is named on a line that says it is quarantined."""
    return [
        f"{what}: nothing says {c['case_id']} is quarantined"
        for c in report["cases"]
        if row.holds(c)
        and "quarantine" in c
        and not any("quarantined" in line and c["case_id"] in line for line in text.splitlines())
    ]


def check_part(row: Row, ref: Outcome, out: Outcome) -> Problems:
    """The suite run in parts: a kind's figures in the part that ran it are the one-process
    run's; a part's gates fail nothing the whole run does not, and warn only of what the
    whole run warns of or of what the part did not run."""
    problems = refusals(out)
    if row.kind is not None:
        # what the part says of the floors and quarantine entries it did not run is its own
        name = out.texts.get(row.kind, "no part")
        part = copy.deepcopy(out.reports.get(name))
        if part is not None:
            said = part["gates"]["warnings"]
            part["gates"]["warnings"] = [w for w in said if not _part_note(w)]
        return problems + same_figures(ref.report, part, row, name)
    whole = ref.report["gates"]
    for step in out.steps:
        name = next(a.split("=", 1)[1] for a in step.argv if a.startswith("--jsonmatch-report="))
        part = out.reports.get(name)
        if part is None:
            problems.append(f"{name}: no report")
            continue
        problems += exit_status(step, part, name)
        problems += [
            f"{name} fails: {f}" for f in part["gates"]["failures"] if f not in whole["failures"]
        ]
        problems += [
            f"{name} warns: {w}"
            for w in part["gates"]["warnings"]
            if w not in whole["warnings"] and not _part_note(w)
        ]
    return problems


def _part_note(line: str) -> bool:
    """Whether a gate's warning says what a run of part of the suite left out: floors it
    did not hold, quarantine entries it did not collect (docs/ci.md)."""
    return "as this run is part of the suite" in line or "not collected in this run" in line


_DISAGREE = "Where the runs disagree most:"


def _disagreements(text: str) -> dict[tuple[str, ...], str]:
    """The figures of compare-runs' table of the cases the runs disagree on."""
    start = text.find(_DISAGREE)
    if start < 0:
        return {}
    table = text[start:].split("\n\n")[0]
    return {key: value for _, key, value in text_figures("runs", table)}


def _counted(report: Any) -> dict[str, float]:
    """A report's cases as a comparison of runs reads them: xfail-marked and quarantined
    cases left out."""
    return {
        c["case_id"]: c["mean_score"]
        for c in report["cases"]
        if c["status"] not in ("xfailed", "xpassed") and "quarantine" not in c
    }


def _held_apart(
    scores: dict[str, dict[str, float]], printed: dict[tuple[str, ...], str], ids: set[str]
) -> Problems:
    """Each case of ``ids`` that every run scored: listed, with each run's score as its
    report says, where the runs' scores differ; not listed where they agree."""
    problems = []
    names = list(scores)
    for case in sorted(ids):
        if not all(case in scores[n] for n in names):
            continue
        want = {n: f"{scores[n][case]:.4f}" for n in names}
        got = {n: printed.get(("case", f"{case}[{n}]", "score")) for n in names}
        agree = max(scores[n][case] for n in names) - min(scores[n][case] for n in names) <= 1e-9
        if agree and any(got.values()):
            problems.append(f"{case}: listed as disagreeing, yet scored alike {want}")
        elif not agree and got != want:
            problems.append(f"{case}: listed as {got}, its reports say {want}")
    return problems


def check_compare_runs(row: Row, ref: Outcome, out: Outcome) -> Problems:
    """``compare-runs`` of the one-process run and the run after the update: every case of the
    row that moved is listed with both runs' scores, none that did not; each run's score over
    the shared cases as the reports give it. A run with named targets: its targets alike."""
    problems = refusals(out)
    after = out.reports["after"]
    scores = {"one": _counted(ref.report), "after": _counted(after)}
    ids = {c["case_id"] for c in ref.report["cases"] if row.holds(c)}
    problems += _held_apart(scores, _disagreements(out.texts["runs"]), ids)
    if "targets" in out.texts:
        by_target: dict[str, dict[str, float]] = {}
        for case, score in scores["one"].items():
            if case.endswith("]"):
                base, target = case[:-1].rsplit("[", 1)
                by_target.setdefault(target, {})[base] = score
        plain = {case.rsplit("[", 1)[0] for case in ids}
        problems += _held_apart(by_target, _disagreements(out.texts["targets"]), plain)
    if row.kind is None:
        shared = set(scores["one"]) & set(scores["after"])
        table = re.findall(r"^(\S+)\s+(\d+)\s+(\d\.\d{4})\s+\d+\s", out.texts["runs"], re.M)
        printed = {name: (cases, score) for name, cases, score in table}
        for name, values in scores.items():
            mean = sum(values[c] for c in shared) / len(shared)
            if printed.get(name) != (str(len(shared)), f"{mean:.4f}"):
                problems.append(
                    f"run {name}: (cases, score) printed {printed.get(name)}, not"
                    f" {(str(len(shared)), f'{mean:.4f}')}: the mean over the shared cases"
                )
    return problems


# -- the renderings ----------------------------------------------------------------------------

_GROUP = re.compile(r"^(?:fields of )?(?:metric|folder|file) ", re.IGNORECASE)


def printed_tables(found: dict[tuple[str, ...], str], report: Any, row: Row, what: str) -> Problems:
    """The row's field tables as printed: every scored field of every table of the row (each
    group of the run, for a whole run), its score and counts as the report says."""
    problems = []
    for group, table in report["groups"].items():
        if row.kind is not None and group.split(" [")[0] != row.group:
            continue
        for path, f in table.items():
            if f.get("mean_score") is None:
                continue
            want = {"score": f"{f['mean_score']:.4f}"} | {
                k: str(f[k]) for k in ("match", "mismatch", "omission", "hallucination")
            }
            got = {k: found.get(("field", group, path, k)) for k in want}
            if got != want:
                problems.append(
                    f"{what}: field {path} ({group}) printed {got}, the report says {want}"
                )
    return problems


def printed_run(found: dict[tuple[str, ...], str], report: Any, what: str) -> Problems:
    """The run's headline and its per-metric table as printed."""
    problems = []
    printed = (found.get(("overall",)), found.get(("count",)))
    if printed != (f"{report['overall']:.4f}", str(report["count"])):
        problems.append(f"{what}: overall and count printed {printed}, not the report's")
    for name, m in report["metrics"].items():
        want = {
            "cases": str(m["count"]),
            "passed": str(m["passed"]),
            "failed": str(m["failed"]),
            "score": f"{m['mean_score']:.4f}",
            "F1": f"{m['f1']:.4f}",
        }
        got = {k: found.get(("metric", name, k)) for k in want}
        if got != want:
            problems.append(f"{what}: metric {name} printed {got}, the report says {want}")
    return problems


def _found(figures: Iterator[tuple[str, tuple[str, ...], str]]) -> dict[tuple[str, ...], str]:
    out: dict[tuple[str, ...], str] = {}
    for _, key, text in figures:
        if key and key[0] == "field":
            key = ("field", _GROUP.sub("", key[1]), *key[2:])
        out.setdefault(key, text)
    return out


_REPEATED = re.compile(
    r"^(\S+::\S+)\s+(\d+)\s+(\d\.\d{4})\s+(\d\.\d{4})\s+(\d\.\d{4})\s+(\d+)/(\d+)$"
)


def printed_repeats(text: str, report: Any, row: Row, what: str) -> Problems:
    """The table of repeated cases as printed: each of the row's repeated cases, its runs,
    mean, lowest and highest score and passed runs as the report says."""
    rows = {m[1]: m.groups()[1:] for m in map(_REPEATED.match, text.splitlines()) if m}
    problems = []
    for c in report["cases"]:
        if row.holds(c) and c["runs"] > 1:
            want = (
                str(c["runs"]),
                f"{c['mean_score']:.4f}",
                f"{c['min_score']:.4f}",
                f"{c['max_score']:.4f}",
                str(c["passed_runs"]),
                str(c["runs"]),
            )
            printed = rows.get(c["case_id"])
            if printed != want:
                problems.append(f"{what}: repeated {c['case_id']} printed {printed}, not {want}")
    return problems


def _cases_listed(text: str, found: dict[tuple[str, ...], str], report: Any, row: Row) -> Problems:
    """The Markdown's table of the cases that failed or could not be scored: the worst of
    them, the rest counted (``N more in the JSON report``); each of the row's cases it lists
    with its score as the report says, and none of them left out that scored below one it
    lists."""
    bad = [c for c in report["cases"] if c["status"] in ("failed", "error")]
    listed = [c for c in bad if ("case", c["case_id"], "score") in found]
    more = re.search(r"^(\d+) more in the JSON report", text, re.M)
    problems = []
    if len(listed) + (int(more[1]) if more else 0) != len(bad):
        problems.append(f"markdown: lists {len(listed)} of {len(bad)} failed cases, {more}")
    cut = max((c["mean_score"] for c in listed), default=-1.0)
    for c in bad:
        printed = found.get(("case", c["case_id"], "score"))
        if row.holds(c) and (printed is not None or c["mean_score"] < cut):
            if printed != f"{c['mean_score']:.4f}":
                problems.append(f"markdown: case {c['case_id']} ({c['status']}) printed {printed}")
    return problems


def check_markdown(row: Row, ref: Outcome, out: Outcome) -> Problems:
    """The Markdown summary: the row's field tables, its cases that failed, what is
    quarantined; a whole run's headline and metrics."""
    report, text = ref.report, out.texts["markdown"]
    found = _found(markdown_figures("markdown", text))
    if row.kind is None:
        return printed_run(found, report, "markdown")
    plain = re.sub(r"\\(.)", r"\1", text)  # Markdown's escapes undone
    return (
        printed_tables(found, report, row, "markdown")
        + _cases_listed(plain, found, report, row)
        + said_quarantined(report, plain, row, "markdown")
    )


def check_html(row: Row, ref: Outcome, out: Outcome) -> Problems:
    """The HTML page: the row's field tables, and every case of the row in the page's data
    with its score, status and quarantine; a whole run's headline and metrics."""
    report, page = ref.report, out.texts["html"]
    found = _found(html_figures("html", page))
    if row.kind is None:
        return printed_run(found, report, "html")
    problems = printed_tables(found, report, row, "html")
    data = page_data(page)
    on_page = dict(zip(case_ids(data), data["cases"]))
    for c in report["cases"]:
        shown = on_page.get(c["case_id"]) if row.holds(c) else ()
        if shown is None:
            problems.append(f"html: case {c['case_id']} is not on the page")
        elif shown:
            extra = shown[6] if len(shown) > 6 else {}
            said = (shown[3], data["strings"][shown[1]], "quarantine" in extra)
            if said != (c["mean_score"], c["status"], "quarantine" in c):
                problems.append(f"html: case {c['case_id']} shown as {said}")
    return problems


def check_junit(row: Row, ref: Outcome, out: Outcome) -> Problems:
    """JUnit XML: each test of the row, its comparisons' scores and whether it failed; a whole
    run's gates test case failing as the gates did."""
    report = ref.report
    tests = {
        (t.get("classname"), t.get("name")): t
        for t in ET.fromstring(out.texts["junit"]).iter("testcase")
    }
    if row.kind is None:
        gates = tests.get(("jsonmatch", "gates"))
        failed = gates is not None and gates.find("failure") is not None
        return [] if failed != report["gates"]["passed"] else ["junit: the gates' verdict"]
    problems = []
    for c in report["cases"]:
        if not row.holds(c):
            continue
        file, name = c["case_id"].split("::", 1)
        test = tests.get((file.replace("/", "."), name))
        if test is None:
            problems.append(f"junit: no test case for {c['case_id']}")
            continue
        props = test.iter("property")
        scores = [float(p.get("value", "")) for p in props if p.get("name") == "jsonmatch_score"]
        want = [round(x["score"], 4) for x in report["comparisons"] if x["case_id"] == c["case_id"]]
        failed = test.find("failure") is not None
        if (scores, failed) != (want, c["status"] in ("failed", "error") and "quarantine" not in c):
            problems.append(f"junit: {c['case_id']} scores {scores} failed={failed}; report {want}")
    return problems


def _sections(text: str) -> dict[str, str]:
    """A terminal's failure sections: each header's title (``file::case (line N)``) and the
    headline under it; a title seen twice keeps both, joined."""
    out: dict[str, str] = {}
    lines = text.splitlines()
    for n, line in enumerate(lines[:-1]):
        found = re.fullmatch(r"_+ (.+) _+", line)
        if found is not None:
            out[found[1]] = (out.get(found[1], "") + "\n" + lines[n + 1]).strip()
    return out


def check_terminal(row: Row, ref: Outcome, out: Outcome) -> Problems:
    """The terminal summary: the row's field tables, each failed test's section (headed by
    its case id, its ``[target]`` with it, and line) with the case's score, the
    repeated cases, what is quarantined; a whole run's headline and metrics."""
    report, text = ref.report, out.texts["terminal"]
    found = _found(text_figures("terminal", text))
    if row.kind is None:
        return printed_run(found, report, "terminal")
    problems = printed_tables(found, report, row, "terminal")
    problems += printed_repeats(text, report, row, "terminal")
    sections = _sections(text)
    for c in report["cases"]:
        if row.holds(c) and c["status"] in ("failed", "error") and "quarantine" not in c:
            title = f"{c['case_id']} (line {c['line']})"
            if f"score {c['mean_score']:.4f}" not in sections.get(title, ""):
                problems.append(f"terminal: no section {title!r} with score {c['mean_score']:.4f}")
    return problems + said_quarantined(report, text, row, "terminal")


def check_text(row: Row, ref: Outcome, out: Outcome) -> Problems:
    """``jsonmatch report --format text``: the row's field tables, its repeated cases, what is
    quarantined; a whole run's headline and metrics, and the command exiting as the gates'
    verdict says."""
    report, text = ref.report, out.texts["text"]
    found = _found(text_figures("text", text))
    problems = refusals(out)
    if row.kind is None:
        want = 0 if report["gates"]["passed"] else 1
        code = out.steps[-1].code
        problems += [] if code == want else [f"jsonmatch report exited {code}, not {want}"]
        return problems + printed_run(found, report, "text")
    problems += printed_tables(found, report, row, "text")
    problems += printed_repeats(text, report, row, "text")
    return problems + said_quarantined(report, text, row, "text")
