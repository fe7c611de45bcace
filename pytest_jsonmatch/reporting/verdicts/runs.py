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

:func:`compare_runs` gives the comparison as plain data, and the ``cell_*`` and row functions
say what every rendering shows of it; text.py, markdown.py and html.py render it
(``render_runs_*``: a whole page; ``runs_*``: the sections a run's report shows of its named
targets, versus.py), escaping every value that came from a report (run names, case ids,
field paths).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TypedDict, TypeGuard

from ..run_model.comparisons import Comparison
from ..run_model.report_types import (
    ComparisonDict,
    DifferenceDict,
    Disagreement,
    FieldRow,
    FlakyRow,
    Latency,
    PartialCase,
    Rows,
    RunRow,
    RunsComparison,
    ValidCount,
)
from .baseline import CaseScores, cases_of
from .case_matching import MIN_SHARED, match_cases
from .changes import change_text, interval_text, printed_change
from .money import money
from .reliability import CaseRepeats, case_repeats
from .stats import mcnemar_exact, paired_difference, percentile

SAME = 1e-9  # two case scores closer than this are the same (float noise of a mean)
DISAGREEMENTS = 10  # cases listed where the runs disagree most
PARTIAL_NAMED = 20  # cases named that only some runs have (text and Markdown)
USAGE_KEYS = ("input_tokens", "output_tokens", "cost", "judge_cost")


class RunData(TypedDict):
    """What a run is compared by: its comparisons and how its fields are grouped (a whole
    report as load_report gives it, or one target's part of a run: versus.py)."""

    comparisons: Rows[ComparisonDict]
    group_by: str


@dataclass(frozen=True)
class Run:
    """One run to compare: its name, its file, its data."""

    name: str
    path: str
    report: RunData


# -- the comparison as data (see compare_runs) ----------------------------------------------


def compare_runs(runs: Sequence[Run]) -> RunsComparison:
    """The runs compared (see the module docstring), as plain data:

    - ``runs``: per run its ``name``, ``path``, ``cases`` (the shared cases its figures are over), ``overall``
      (mean case score over the shared cases), ``passed`` (shared cases that passed),
      ``difference`` from the first run (PairedDifference.to_dict; None for the first),
      ``better``/``worse``/``same`` (shared cases against the first run; None for the
      first), ``latency`` and ``usage`` (None when its comparisons carry none);
    - ``shared``: the shared case ids; ``partial``: each case only some runs have, with the
      names of the runs that have it;
    - ``fields``: per (group, field path) the run's mean over the shared cases in which
      every run holds it (``cases`` of them: the columns side by side are over one set)
      (None when none does), and the paired difference from the first run over the shared
      cases that hold it in both;
    - ``disagreements``: the shared cases with the largest spread (max - min) of case
      scores, largest first, ties by case id; cases on which every run agrees left out;
    - ``flaky`` (only when a shared case has two scored runs or more in some run): per run
      the shared cases whose runs disagree, and the ones that became flaky or stopped being
      against the first run (see flaky_rows).
    """
    comparisons = [_comparisons(run.report) for run in runs]
    per_run, keys = _paired([_cases_of(c, run.report) for c, run in zip(comparisons, runs)])
    names = [run.name for run in runs]
    all_ids = set().union(*(cases.keys() for cases in per_run))
    shared = sorted(set.intersection(*(set(cases) for cases in per_run))) if per_run else []
    partial: list[PartialCase] = [
        {"case_id": case_id, "runs": [n for n, cases in zip(names, per_run) if case_id in cases]}
        for case_id in sorted(all_ids - set(shared))
    ]
    first = per_run[0]
    out_runs = []
    for index, (run, cases) in enumerate(zip(runs, per_run)):
        entry: RunRow = {
            "name": run.name,
            "path": run.path,
            "cases": len(shared),  # (a case only some runs have is in no number)
            "overall": _mean(cases[c].mean for c in shared),
            "passed": sum(cases[c].passed for c in shared),
            "difference": None,
            "better": None,
            "worse": None,
            "same": None,
            "pass_to_fail": None,
            "fail_to_pass": None,
            "mcnemar_p": None,
            "latency": None,
            "usage": None,
            "valid": None,
        }
        if index > 0:
            deltas = [cases[c].mean - first[c].mean for c in shared]
            better, worse = sum(d > SAME for d in deltas), sum(d < -SAME for d in deltas)
            entry["difference"] = paired_difference(deltas).to_dict()
            entry["better"], entry["worse"] = better, worse
            entry["same"] = len(deltas) - better - worse
            # pass/fail flips against the first run, and McNemar's exact p, as diff gives them
            flips = (
                sum(first[c].passed and not cases[c].passed for c in shared),
                sum(cases[c].passed and not first[c].passed for c in shared),
            )
            entry["pass_to_fail"], entry["fail_to_pass"] = flips
            entry["mcnemar_p"] = mcnemar_exact(*flips)
        entry["latency"], entry["usage"], entry["valid"] = _figures(
            run.report, set(shared), keys[index]
        )
        out_runs.append(entry)
    data: RunsComparison = {
        "runs": out_runs,
        "shared": shared,
        "partial": partial,
        "fields": _fields(per_run, shared),
        "disagreements": _disagreements(per_run, shared),
    }
    tallies = [
        {key.get(case_id, case_id): runs_of for case_id, runs_of in case_repeats(c).items()}
        for key, c in zip(keys, comparisons)
    ]
    flaky = flaky_rows(names, tallies, shared)
    if flaky is not None:
        data["flaky"] = flaky
    return data


def _comparisons(report: RunData) -> list[Comparison]:
    return [Comparison.from_dict(c) for c in report["comparisons"]]


def _cases_of(comparisons: Sequence[Comparison], report: RunData) -> dict[str, CaseScores]:
    return cases_of(comparisons, group_by=report.get("group_by", "metric"))


def _cases(report: RunData) -> dict[str, CaseScores]:
    return _cases_of(_comparisons(report), report)


def flaky_rows(
    names: Sequence[str], tallies: Sequence[Mapping[str, CaseRepeats]], shared: Sequence[str]
) -> list[FlakyRow] | None:
    """Per run, its shared cases whose scored runs disagree, and against the first run the
    shared cases that became flaky and the ones that stopped being: of those with two scored
    runs or more in both runs (a case scored once there says nothing of whether it was
    flaky), as the baseline's comparison counts them (reliability_gates.py). None when no
    shared case has two scored runs in any run: nothing was repeated to compare."""
    if not any(_repeated(t, c) for t in tallies for c in shared):
        return None
    first = tallies[0]
    rows: list[FlakyRow] = []
    for index, (name, tally) in enumerate(zip(names, tallies)):
        row: FlakyRow = {
            "run": name,
            "flaky": [c for c in shared if c in tally and tally[c].flaky],
            "became_flaky": None,
            "no_longer_flaky": None,
        }
        if index > 0:
            both = [c for c in shared if _repeated(first, c) and _repeated(tally, c)]
            row["became_flaky"] = [c for c in both if tally[c].flaky and not first[c].flaky]
            row["no_longer_flaky"] = [c for c in both if first[c].flaky and not tally[c].flaky]
        rows.append(row)
    return rows


def _repeated(tally: Mapping[str, CaseRepeats], case_id: str) -> bool:
    """Whether the case has two scored runs or more in the run."""
    found = tally.get(case_id)
    return found is not None and found.scored >= 2


def _paired(
    own: Sequence[dict[str, CaseScores]],
) -> tuple[list[dict[str, CaseScores]], list[dict[str, str]]]:
    """Each run's cases under one key per case (case_matching.py): the first run's id, or, where
    runs of different targets pair across them, the case's id without its target (the runs
    are the targets: ``c1`` names the case in each); a case that pairs with none keeps its
    own. Also per run, each own id's key."""
    matchings = [match_cases(own[0], cases) for cases in own[1:]]
    across = {p.crossed[1] for p in matchings if p.crossed is not None}
    first = {
        case_id: (case.pair or case_id) if case.target in across else case_id
        for case_id, case in own[0].items()
    }
    keys = [first]
    for cases, matching in zip(own[1:], matchings):
        mine = matching.crossed[0] if matching.crossed is not None else None
        keys.append(
            {
                case_id: first[partner]
                if (partner := matching.pairs.get(case_id)) is not None
                else (case.pair or case_id)
                if case.target == mine
                else case_id
                for case_id, case in cases.items()
            }
        )
    per_run = [
        {key[case_id]: case for case_id, case in cases.items()} for key, cases in zip(keys, own)
    ]
    return per_run, keys


def too_few_shared(runs: Sequence[Run]) -> list[str]:
    """Each later run that shares with the first fewer cases than a comparison needs
    (case_matching.MIN_SHARED of its cases of the targets both ran; none is always too few), in
    words naming both counts and why the ids differ."""
    own = [_cases(run.report) for run in runs]
    out = []
    for run, cases in zip(runs[1:], own[1:]):
        matching = match_cases(own[0], cases)
        shared, compared = len(matching.pairs), len(matching.compared)
        if shared == 0 or shared < MIN_SHARED * compared - 1e-9:
            first = f"run {runs[0].name}"
            out.append(
                f"run {run.name} shares {shared} of its {compared} "
                f"case{'' if compared == 1 else 's'} with {first}, fewer than the "
                f"{MIN_SHARED:.0%} a comparison needs: {matching.why(first)}"
            )
    return out


def _mean(values: Iterable[float]) -> float | None:
    items = list(values)
    return math.fsum(items) / len(items) if items else None


def _fields(per_run: Sequence[Mapping[str, CaseScores]], shared: Sequence[str]) -> list[FieldRow]:
    """Per (group of the case in the first run, field path): each run's mean over the shared
    cases holding the field, and each later run's paired difference from the first."""
    keys = sorted(
        {
            (per_run[0][c].group, path)
            for c in shared
            for cases in per_run
            for path in cases[c].fields
        }
    )
    rows: list[FieldRow] = []
    for group, path in keys:
        # side by side, every column over the same cases: those of the group in which every
        # run that has the field holds it (a score over 36 cases beside one over 33 compares
        # nothing); a run that never has it shows none
        group_cases = [c for c in shared if per_run[0][c].group == group]
        having = [any(path in cases[c].fields for c in group_cases) for cases in per_run]
        held = [
            c
            for c in group_cases
            if all(path in cases[c].fields for cases, has in zip(per_run, having) if has)
        ]
        scores = [
            _mean(cases[c].fields[path] for c in held) if has else None
            for cases, has in zip(per_run, having)
        ]
        differences: list[DifferenceDict | None] = [None]
        for cases, has in zip(per_run[1:], having[1:]):
            both = (
                [cases[c].fields[path] - per_run[0][c].fields[path] for c in held]
                if has and having[0]
                else []
            )
            differences.append(paired_difference(both).to_dict() if both else None)
        rows.append(
            {
                "group": group,
                "path": path,
                "cases": len(held),
                "scores": scores,
                "differences": differences,
            }
        )
    return rows


def _disagreements(
    per_run: Sequence[Mapping[str, CaseScores]], shared: Sequence[str]
) -> list[Disagreement]:
    rows: list[Disagreement] = []
    for case_id in shared:
        scores = [cases[case_id].mean for cases in per_run]
        spread = max(scores) - min(scores)
        if spread > SAME:
            rows.append({"case_id": case_id, "scores": scores, "spread": spread})
    rows.sort(key=lambda r: (-r["spread"], r["case_id"]))
    return rows


def _figures(
    report: RunData, shared: set[str], keys: Mapping[str, str]
) -> tuple[Latency | None, dict[str, float] | None, ValidCount | None]:
    """Latency (mean, p50, p95, total and count of the comparisons that carry ``latency_s``;
    the percentiles interpolated as NumPy's default does), usage (sums of what ``usage``
    carries) and the answers valid against their schema, over the counted comparisons of the
    shared cases."""
    latencies: list[float] = []
    sums: dict[str, list[float]] = {}
    checked = valid = 0
    for comparison in report["comparisons"]:
        # read as a plain mapping: a comparison may carry latency_s and usage of its own
        c: Mapping[str, object] = comparison
        case = keys.get(str(c.get("case_id")), "")  # as the comparison keys it
        if case not in shared or c.get("status") in ("xfailed", "xpassed", "simulator"):
            continue
        conformance = c.get("conformance")
        if isinstance(conformance, Mapping):
            checked += 1
            valid += conformance.get("valid") is True
        # top-level latency_s and usage, or the figures of the target's call (``call``)
        call = c.get("call")
        figures: Mapping[str, object] = call if isinstance(call, Mapping) else {}
        latency = c.get("latency_s", figures.get("latency_s"))
        if _is_number(latency):
            latencies.append(float(latency))
        usage = c.get("usage")
        spent: Mapping[str, object] = usage if isinstance(usage, Mapping) else figures
        judged = c.get("judge")  # what the LLM judge's requests for it cost, apart
        if isinstance(judged, Mapping) and _is_number(judged.get("cost")):
            sums.setdefault("judge_cost", []).append(float(judged["cost"]))
        if spent:
            for key in USAGE_KEYS[:3]:
                value = spent.get(key)
                if _is_number(value):
                    sums.setdefault(key, []).append(float(value))
    mean: Latency | None = None
    if latencies:
        ordered = sorted(latencies)
        mean = {
            "mean_s": math.fsum(latencies) / len(latencies),
            "total_s": math.fsum(latencies),
            "count": len(latencies),
            "p50_s": percentile(ordered, 50),
            "p95_s": percentile(ordered, 95),
        }
    return (
        mean,
        {key: math.fsum(values) for key, values in sums.items()} or None,
        {"checked": checked, "valid": valid} if checked else None,
    )


def _is_number(value: object) -> TypeGuard[float]:
    """A finite JSON number (an int or a float, not a bool)."""
    return (type(value) is int or type(value) is float) and math.isfinite(value)


# -- what every rendering shows ------------------------------------------------------------------


def cell_score(value: float | None) -> str:
    return "–" if value is None else f"{value:.4f}"


def cell_change(row: RunRow, first: RunRow) -> str:
    """A run's change from the first, as every table prints it: its printed score minus the
    first's, so that the row adds up and a gate quoting the drop quotes the same digits."""
    if row["difference"] is None or row["overall"] is None or first["overall"] is None:
        return "–"
    return change_text(first["overall"], row["overall"])


def field_changes_of(row: FieldRow) -> list[str]:
    """Each later run's change in a field row, from the printed scores (as cell_change)."""
    first = row["scores"][0]
    return [
        "–" if d is None or s is None or first is None else change_text(first, s)
        for d, s in zip(row["differences"][1:], row["scores"][1:])
    ]


def cell_spread(row: Disagreement) -> str:
    """How far apart the runs are on a case, from their printed scores (the largest printed
    minus the smallest), as the row beside it shows them."""
    return f"{printed_change(min(row['scores']), max(row['scores'])):.4f}"


def cell_interval(d: DifferenceDict | None, first: float | None, score: float | None) -> str:
    """A difference's 95% interval around the change printed beside it (from ``first`` to
    ``score``), by changes.printed_interval's rule."""
    if d is None:
        return "–"
    return interval_text(first, score, d["mean"], d["low"], d["high"], "–")


def cell_latency(latency: Latency | None) -> str:
    """Latency as ``p50 / p95 s``."""
    return "–" if latency is None else f"{latency['p50_s']:.3f} / {latency['p95_s']:.3f} s"


def cell_valid(row: RunRow) -> str:
    """Answers valid against their schema, ``valid/checked``."""
    counts = row["valid"]
    return "–" if counts is None else f"{counts['valid']}/{counts['checked']}"


def cell_flips(row: RunRow) -> str:
    """Pass/fail flips against the first run, ``down/up``, with McNemar's exact p."""
    if row["pass_to_fail"] is None or row["fail_to_pass"] is None or row["mcnemar_p"] is None:
        return "–"
    return f"{row['pass_to_fail']}/{row['fail_to_pass']} (p {row['mcnemar_p']:.3f})"


def cell_usage(usage: Mapping[str, float] | None, key: str) -> str:
    """One usage figure as every rendering shows it: tokens as whole numbers, the cost by
    money.money's rule."""
    if usage is None or key not in usage:
        return "–"
    value = usage[key]
    return money(value) if key in ("cost", "judge_cost") else f"{value:,.0f}"


def runs_header(
    first: str, latency: bool, usage_keys: list[str], word: str = "run", valid: bool = False
) -> list[str]:
    """The columns of the runs table (text, Markdown and HTML alike): ``first`` names the run
    the others are held against, as the caller writes it; ``word`` what a row is (a run, a
    target)."""
    header = [
        word,
        "cases",
        "score",
        "passed",
        f"vs {first}",
        "95% interval",
        "better",
        "worse",
        "same",
        "flips ↓/↑",
        *(["valid"] if valid else []),
    ]
    if latency:
        header.append("latency p50 / p95")
    return header + [
        {
            "input_tokens": "input tokens",
            "output_tokens": "output tokens",
            "cost": "cost",
            "judge_cost": "judge cost",
        }[k]
        for k in usage_keys
    ]


def has_costs(data: RunsComparison) -> tuple[bool, list[str]]:
    """Whether any run carries latency, and the usage keys any run carries (in order)."""
    latency = any(r["latency"] is not None for r in data["runs"])
    keys = [k for k in USAGE_KEYS if any(r["usage"] and k in r["usage"] for r in data["runs"])]
    return latency, keys


def run_rows(
    data: RunsComparison, costs: bool = True, word: str = "run"
) -> tuple[list[str], list[list[str]]]:
    """The runs table's header and rows (text, unescaped); ``costs``: with the latency and
    usage columns (when a run has them)."""
    latency, usage_keys = has_costs(data) if costs else (False, [])
    valid = any(r["valid"] for r in data["runs"])
    header = runs_header(data["runs"][0]["name"], latency, usage_keys, word, valid)
    rows = []
    for r in data["runs"]:
        d = r["difference"]
        row = [
            r["name"],
            str(r["cases"]),
            cell_score(r["overall"]),
            str(r["passed"]),
            cell_change(r, data["runs"][0]),
            cell_interval(d, data["runs"][0]["overall"], r["overall"]),
            *("–" if n is None else str(n) for n in (r["better"], r["worse"], r["same"])),
            cell_flips(r),
            *([cell_valid(r)] if valid else []),
        ]
        if latency:
            row.append(cell_latency(r["latency"]))
        row += [cell_usage(r["usage"], k) for k in usage_keys]
        rows.append(row)
    return header, rows


def field_label(row: FieldRow, by_group: bool) -> str:
    return f"{row['group']}: {row['path']}" if by_group else row["path"]


def grouped(data: RunsComparison) -> bool:
    return len({row["group"] for row in data["fields"]}) > 1


def field_table(
    data: RunsComparison, names: Sequence[str], minus: str
) -> tuple[list[str], list[list[str]]]:
    """The per-field table of the text and Markdown renderers: each run's score and each
    run's difference from the first (``minus`` is the sign each format writes); the
    header and the first column are raw text, for the renderer to escape."""
    by_group = grouped(data)
    head = ["field", "cases", *names, *(f"{n} {minus} {names[0]}" for n in names[1:])]
    body = [
        [
            field_label(f, by_group),
            str(f.get("cases", "–")),
            *(cell_score(s) for s in f["scores"]),
            *field_changes_of(f),
        ]
        for f in data["fields"]
    ]
    return head, body


def headline(data: RunsComparison) -> str:
    runs, shared, partial = data["runs"], len(data["shared"]), len(data["partial"])
    line = f"{len(runs)} runs over {shared} shared case{'' if shared == 1 else 's'}"
    if partial:
        line += (
            f"; {partial} case{'' if partial == 1 else 's'} only some runs have "
            f"(left out of every number)"
        )
    return line


FLAKY_TITLE = "Flaky cases (a case whose scored runs disagree: some passed, some failed)"


def flaky_line(
    row: FlakyRow, first: str, limit: int | None, escape: Callable[[str], str] = str
) -> str:
    """One run's flaky cases in words, as every rendering says them: how many, and against
    the first run (``first``, escaped by the caller) the ones that became flaky and the ones
    that stopped being, ``limit`` of each named (None: all); ``escape`` for names from the
    report."""
    count = len(row["flaky"])
    said = [f"{escape(row['run'])}: {count} flaky"]
    became, stopped = row["became_flaky"], row["no_longer_flaky"]
    if became is None or stopped is None:
        return said[0]
    if not became and not stopped:
        return f"{said[0]}; against {first}, none became flaky or stopped being"
    for what, cases in ((f"became flaky against {first}", became), ("stopped being", stopped)):
        if cases:
            shown = ", ".join(escape(c) for c in cases[:limit])
            more = len(cases) - len(cases[:limit])
            said.append(f"{what} ({len(cases)}): {shown}" + (f" and {more} more" if more else ""))
    return "; ".join(said)


def partial_text(entry: PartialCase) -> str:
    return f"{entry['case_id']} (in {', '.join(entry['runs'])})"
