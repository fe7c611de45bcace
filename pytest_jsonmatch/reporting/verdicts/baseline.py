"""A run held against a saved report, case by case.

Only the cases both runs scored are compared (an ``-k`` subset against a full baseline
compares the subset); cases only one run has are counted and named, and so are the cases
both hold that one of them could not score (a target that raised, a judge that was down):
an outage is reported once, as unscored cases, and never also as their scores dropping. Each shared case gives
a paired difference (now minus baseline, of its mean score over repeats); the aggregate and
per-field deltas are means of those differences, so a case that did not change moves
nothing. See stats.py for the interval, the detectable drop and the tests.

Per-field deltas are computed within each group of the run's tables (its metric, file or
folder, as ``jsonmatch_report``'s ``group_by=`` says), over the shared cases of that group:
the delta in a table's row is the change of that row's own number, never a field pooled
across tables.
"""

from __future__ import annotations

import json
import math
import os
import shlex
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import NoReturn

from ...engine.core.errors import ConfigError
from ...engine.reading.user_files import read_regular_text
from ...engine.results.field_results import ExactSum
from ..run_model.aggregate import SCORE_EPSILON, CaseResult, case_result, group_key
from ..run_model.comparisons import ERROR, PASSED, Comparison, pair_id
from ..run_model.validation import REPORT_VERSION, ReportError, check_comparisons
from .case_matching import CaseMatch, match_cases
from .reliability import CaseRepeats, case_repeats
from .stats import ALPHA, PairedDifference, holm_adjusted, mcnemar_exact, paired_difference

MAX_BASELINE_BYTES = 256 * 1024 * 1024


class BaselineError(ReportError):
    """A baseline file that cannot be read as a jsonmatch report."""


@dataclass(frozen=True)
class CaseScores:
    """What a comparison needs of one case: its mean score, whether it passed, and the mean
    score of each field path in it."""

    mean: float
    passed: bool
    fields: Mapping[str, float]
    group: str = ""  # the table the case's fields are in (aggregate.group_key)
    file: str = ""
    line: int | None = None
    target: str = ""  # the named target whose outputs the case scored (empty: none)
    pair: str = ""  # the case id without its target (case_matching.py); empty: the id itself
    scored: bool = True  # False: it could not be scored (a target or a judge that failed)

    @property
    def where(self) -> str:
        """``file:line`` where the case starts (a golden case, a test function, a JSONL
        record), as a message names it; empty when the run recorded no line."""
        return f"{self.file}:{self.line}" if self.file and self.line else ""


def case_scores(
    case: CaseResult, runs: Iterable[Comparison], group_by: str = "metric"
) -> CaseScores:
    sums: dict[str, tuple[ExactSum, int]] = {}
    for run in runs:
        for record in run.fields:
            if record.status in ("match", "mismatch", "omission", "hallucination"):
                total, count = sums.get(record.field_path, (None, 0))
                if total is None:
                    total = ExactSum()
                total.add(record.score)
                sums[record.field_path] = (total, count + 1)
    return CaseScores(
        case.mean,
        case.status == PASSED,
        {path: total.value / count for path, (total, count) in sorted(sums.items())},
        group_key(case, group_by),
        case.file,
        case.line,
        case.target,
        pair_id(case.case_id, case.target),
        case.status != ERROR,
    )


def cases_of(
    comparisons: Iterable[Comparison], repeat_rule: str = "mean", group_by: str = "metric"
) -> dict[str, CaseScores]:
    """Every counted case of a run (xfail-marked ones left out), by its case id (a named
    target's case with its ``[target]``, as everywhere else), each with the group its fields
    are tabled under (``group_by``), its target and its id without it: two runs pair their
    cases by those (case_matching.py), whatever targets each ran."""
    by_case: dict[str, list[Comparison]] = {}
    for comparison in comparisons:
        by_case.setdefault(comparison.case_id, []).append(comparison)
    out = {}
    for case_id, runs in sorted(by_case.items()):
        case = case_result(runs, repeat_rule)
        if case.counted:
            out[case_id] = case_scores(case, runs, group_by)
    return out


@dataclass(frozen=True)
class CaseKey:
    """What case matching reads of a case a run did not count (case_matching.py)."""

    target: str
    pair: str


def uncounted_of(comparisons: Iterable[Comparison]) -> dict[str, CaseKey]:
    """The cases a run compared but did not count (quarantined, marked xfail), by case id:
    held against another run, such a case is set aside, neither added nor removed
    (case_matching.py)."""
    return {c.case_id: CaseKey(c.target, c.pair_id) for c in comparisons if not c.counted}


@dataclass(frozen=True)
class Baseline:
    """A saved report's cases."""

    path: str
    version: int
    cases: Mapping[str, CaseScores]
    reference: str = ""  # the run's reference target, where it named one
    # the report of a run that did not finish, accepted as such: it lacks cases on purpose,
    # so only a baseline sharing no case at all fails the share rule (case_matching.MIN_SHARED)
    partial: bool = False
    # the run's ``run.provenance`` as saved (provenance.py reads it as it may be)
    provenance: object = None
    # each case's runs by outcome, for pass^k and pass@k against it (reliability.py)
    runs: Mapping[str, CaseRepeats] = field(default_factory=dict)
    # the cases the saved run compared but did not count: set aside (case_matching.py)
    uncounted: Mapping[str, CaseKey] = field(default_factory=dict)


def baseline_setting(text: str, what: str) -> tuple[str, bool]:
    """The baseline setting: (the report's path, whether a partial run's report is allowed).

    The path is the whole text but for a last word ``partial``, so that a path with spaces
    needs no quotes (``my reports/base.json partial``); it may be quoted as a shell quotes
    it (``"my reports/base.json" partial``), and a path that is itself an existing file
    ending in `` partial`` is read as that file."""
    text = text.strip()
    if text[:1] in ("'", '"'):
        try:
            words = shlex.split(text)
        except ValueError as exc:
            raise ConfigError(f"{what}: {exc} in {text!r}") from None
        if len(words) == 1 or (len(words) == 2 and words[1] == "partial"):
            return words[0], len(words) == 2
        raise ConfigError(f"{what} is a path and optionally 'partial', not {text!r}")
    head, _, last = text.rpartition(" ")
    if last == "partial" and head.strip() and not os.path.isfile(text):
        return head.strip(), True
    return text, False


def load_baseline(path: str | os.PathLike[str], allow_partial: bool = False) -> Baseline:
    """Read a report written by ``--jsonmatch-report`` (version 4) to compare against. The
    report of a run that stopped early is refused unless ``allow_partial``: its missing cases
    would silently leave this run's cases unchecked."""
    shown = os.fspath(path)
    text = read_report_text(shown)
    try:
        data: object = json.loads(text, parse_constant=refuse_not_a_number)
    except ValueError as exc:
        raise BaselineError(f"the baseline {shown} is not valid JSON: {exc}") from None
    where = f"the baseline {shown}"
    version = data.get("version") if isinstance(data, dict) else None
    if type(version) is int and version != REPORT_VERSION:
        raise BaselineError(f"{where}: $.version: not a version-{REPORT_VERSION} jsonmatch report")
    if (
        type(version) is not int
        or not isinstance(data, dict)
        or not isinstance(data.get("comparisons"), list)
    ):
        raise BaselineError(
            f"{where} is not a jsonmatch report "
            f"(no 'version' {REPORT_VERSION} with a 'comparisons' list)"
        )
    run = data.get("run")
    if isinstance(run, dict) and run.get("complete") is False and not allow_partial:
        stopped = run.get("stopped") or "it stopped early"
        raise BaselineError(
            f"{where} is the report of a partial run ({stopped}): hold this run "
            f"against a complete run's report, or allow a partial baseline "
            f"(--jsonmatch-baseline='PATH partial'; jsonmatch diff --partial)"
        )
    # the only part a baseline is read for, held to the shipped schema
    entries = check_comparisons(data["comparisons"], data.get("field_heads"), where, BaselineError)
    try:
        comparisons = [Comparison.from_dict(entry) for entry in entries]
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        raise BaselineError(
            f"the baseline {shown} is not a jsonmatch report: a comparison lacks or mistypes {exc}"
        ) from None
    for comparison in comparisons:
        if not 0.0 <= comparison.score <= 1.0:
            raise BaselineError(
                f"the baseline {shown} holds a score outside [0, 1] "
                f"({comparison.score!r} for {comparison.case_id})"
            )
    cases = cases_of(comparisons)
    if not cases:
        # a gate held against nothing would pass whatever this run does
        raise BaselineError(
            f"the baseline {shown} holds no case a run can be held against "
            f"(no comparisons, or every one xfail-marked)"
        )
    targets = data.get("targets")
    reference = targets.get("reference") if isinstance(targets, dict) else None
    return Baseline(
        shown,
        version,
        cases,
        reference if isinstance(reference, str) else "",
        isinstance(run, dict) and run.get("complete") is False,
        run.get("provenance") if isinstance(run, dict) else None,
        case_repeats(comparisons),
        {k: v for k, v in uncounted_of(comparisons).items() if k not in cases},
    )


def refuse_not_a_number(name: str) -> NoReturn:
    """Refuses NaN and the infinities where a report is parsed (json.loads' parse_constant):
    no renderer prints one and no gate can compare one."""
    raise ValueError(f"{name} is not a number a report can hold")


def read_report_text(path: str, what: str = "baseline") -> str:
    """A saved report's text (``what`` names its use in errors): a regular file of bounded
    size (a FIFO or a device would block or never end), UTF-8."""
    return read_regular_text(path, what, BaselineError, limit=MAX_BASELINE_BYTES)


@dataclass(frozen=True)
class CaseDelta:
    case_id: str
    before: float
    after: float
    where: str = ""  # file:line of the case in this run

    @property
    def delta(self) -> float:
        return self.after - self.before


@dataclass(frozen=True)
class FieldDelta:
    """One field's paired differences over the shared cases of one group that hold it;
    ``significant``: Holm's correction across every (group, field) row that has a p-value
    (``family`` of them) rejects "no change"; ``holm_p`` is the row's Holm-adjusted p-value
    (None with fewer than two cases); ``worse``: the cases whose score of the field dropped,
    most dropped first (a message names them)."""

    group: str
    path: str
    before: float
    after: float
    difference: PairedDifference
    significant: bool
    holm_p: float | None = None
    family: int = 0
    worse: tuple[str, ...] = ()


@dataclass(frozen=True)
class BaselineComparison:
    """This run against a baseline, over the cases both scored."""

    baseline: Baseline
    shared: int
    added: tuple[str, ...]
    removed: tuple[str, ...]
    before: float | None  # mean score of the shared cases in the baseline
    after: float | None  # and now
    difference: PairedDifference
    cases: tuple[CaseDelta, ...]  # every shared case, most dropped first
    fields: tuple[FieldDelta, ...]  # by group, then path
    worse: int  # pass -> fail
    better: int  # fail -> pass
    mcnemar_p: float
    matching: CaseMatch | None = None  # which case is which (None: built by hand, ids alike)
    # cases both runs hold that one of them could not score (this run's ids): not compared,
    # so that an outage reads as cases unscored, never as their scores dropping to 0
    unscored: tuple[str, ...] = ()

    @property
    def compared(self) -> int:
        """This run's cases that take part (of the targets both runs ran)."""
        return (
            self.shared + len(self.added) if self.matching is None else len(self.matching.compared)
        )


def compare(
    now: Mapping[str, CaseScores],
    baseline: Baseline,
    reference: str = "",
    uncounted: Mapping[str, CaseKey] | None = None,
) -> BaselineComparison:
    """Hold this run's cases against the baseline's (see the module docstring), paired by
    case_matching.py (``reference``: this run's reference target, where it has one;
    ``uncounted``: this run's cases it did not count, :func:`uncounted_of`: a case either run
    did not count is neither added nor removed)."""
    matching = match_cases(
        baseline.cases, now, baseline.reference, reference, uncounted, baseline.uncounted
    )
    # the baseline's cases under this run's ids: every message names a case one way
    base = {case_id: baseline.cases[partner] for case_id, partner in matching.pairs.items()}
    unscored = tuple(c for c in sorted(matching.pairs) if not (now[c].scored and base[c].scored))
    shared = sorted(set(matching.pairs) - set(unscored))
    deltas = [
        CaseDelta(case_id, base[case_id].mean, now[case_id].mean, now[case_id].where)
        for case_id in shared
    ]
    difference = paired_difference([d.delta for d in deltas])
    worse = sum(base[c].passed and not now[c].passed for c in shared)
    better = sum(now[c].passed and not base[c].passed for c in shared)
    return BaselineComparison(
        baseline,
        len(shared),
        matching.added,
        matching.removed,
        _mean_of(d.before for d in deltas),
        _mean_of(d.after for d in deltas),
        difference,
        tuple(sorted(deltas, key=lambda d: (d.delta, d.case_id))),
        _field_deltas(now, base, shared),
        worse,
        better,
        mcnemar_exact(worse, better),
        matching,
        unscored,
    )


def _field_deltas(
    now: Mapping[str, CaseScores], base: Mapping[str, CaseScores], shared: list[str]
) -> tuple[FieldDelta, ...]:
    """Per (group, field path): the paired differences of the shared cases of that group
    (the group is the case's in this run) that hold the field in both runs."""
    pairs: dict[tuple[str, str], list[tuple[float, float]]] = {}
    dropped: dict[tuple[str, str], list[tuple[float, str]]] = {}
    for case_id in shared:
        before, after = base[case_id].fields, now[case_id].fields
        for path in before.keys() & after.keys():
            key = (now[case_id].group, path)
            pairs.setdefault(key, []).append((before[path], after[path]))
            if after[path] < before[path] - SCORE_EPSILON:
                dropped.setdefault(key, []).append((after[path] - before[path], case_id))
    keys = sorted(pairs)
    differences = [paired_difference([a - b for b, a in pairs[k]]) for k in keys]
    testable = [(i, p) for i, d in enumerate(differences) if (p := d.p_value) is not None]
    # rejected exactly where holm() rejects; the adjusted p is what a message quotes
    adjusted = dict(zip((i for i, _ in testable), holm_adjusted([p for _, p in testable])))
    significant = {i for i, p in adjusted.items() if p <= ALPHA}
    return tuple(
        FieldDelta(
            group,
            path,
            _mean([b for b, _ in pairs[group, path]]),
            _mean([a for _, a in pairs[group, path]]),
            differences[i],
            i in significant,
            adjusted.get(i),
            len(testable),
            tuple(case_id for _, case_id in sorted(dropped.get((group, path), []))),
        )
        for i, (group, path) in enumerate(keys)
    )


def _mean_of(values: Iterable[float]) -> float | None:
    items = list(values)
    return _mean(items) if items else None


def _mean(items: list[float]) -> float:
    """The mean of some values (at least one)."""
    return math.fsum(items) / len(items)
