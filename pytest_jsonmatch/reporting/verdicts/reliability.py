"""Repeated cases as a measure of reliability: pass@k and pass^k, per case and over a run.

A case run n times whose runs could all be scored, c of them passed (each run by its own
status: its score against its threshold, floors and schema), gives two unbiased estimates
of what k fresh runs would do:

- pass@k = 1 - C(n - c, k) / C(n, k): the chance that at least one of k runs passes;
- pass^k = C(c, k) / C(n, k): the chance that all k runs pass (tau-bench's estimator).

Both are exact: the binomial coefficients are whole numbers, divided once into the nearest
float. A run that could not be scored (a target that raised, a judge that was down: status
``error``) is neither a success nor a failure: it is counted apart, and the estimates use
the scored runs only. Over a run, each figure is the mean over the repeated cases that have
at least k scored runs, with a percentile bootstrap interval over those cases (a fixed
seed and number of resamples, the cases in id order: a run split into shards or xdist
workers gives the same interval as one process). Cases whose runs disagree (some passed,
some failed) are flaky.

Per field (its ``field_path``, the per-field tables' key), a run of a case passes the field
when every row of that field scored against an expected value (status match, mismatch or
omission: a hallucinated field is not a field of the case, a skipped one was not scored)
matched. Over the repeated cases that have the field (a row of it in one of their scored
runs), n is the case's scored runs and c those in which the field passed; the field's pass^k
and pass@k are the means over those cases with k scored runs, with the same interval. They
need the comparisons' field records: a session that counted its fields as it went and kept
none (reporting/verdicts/field_counts.py) has no per-field figures, and its section says why.

k is ``jsonmatch_gates pass_k=K``; left at 0 it is the fewest runs of a repeated case whose
runs were all scored (the summary says so). A given k above the runs of a repeated case that
ran all of them is a usage error naming the case; a case with fewer than k scored runs
because some could not be scored is left out of the figures and named. Nothing is cut
silently to a smaller k.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from ...engine.results.field_results import MATCH, MISMATCH, OMISSION
from ..run_model.aggregate import group_key
from ..run_model.comparisons import ERROR, PASSED, SIMULATOR, Comparison
from ..run_model.report_types import (
    EstimateDict,
    ReliabilityCaseDict,
    ReliabilityDict,
    ReliabilityFieldDict,
)
from .stats import CONFIDENCE, percentile

RESAMPLES = 2000  # bootstrap resamples of the cases: the interval's bounds to about 0.01
SEED = 63  # the bootstrap's fixed seed: one suite gives one interval, whoever computes it
_CELLS = 1 << 20  # resampled values drawn at a time (memory: 8 MiB of indices)
# the statuses of a field scored against an expected value: the fields of a case
_EXPECTED = frozenset((MATCH, MISMATCH, OMISSION))
# Of each case (by id), each field path scored against an expected value, with the scored
# runs in which the field passed: made from kept field records (matched_fields) or counted
# as a session's comparisons are recorded (field_counts.FieldCounts.passes).
FieldPasses = Mapping[str, Mapping[str, int]]


@dataclass(frozen=True)
class CaseRepeats:
    """A case's repeats by outcome: passed, failed, or not scored (counted apart); ``runs``
    counts them all, as the report does."""

    case_id: str
    passed: int
    failed: int
    unscored: int
    metric: str = ""
    file: str = ""
    target: str = ""

    @property
    def runs(self) -> int:
        return self.passed + self.failed + self.unscored

    @property
    def scored(self) -> int:
        return self.passed + self.failed

    @property
    def flaky(self) -> bool:
        """Whether its scored runs disagree: some passed, some failed."""
        return self.passed > 0 and self.failed > 0


def case_repeats(comparisons: Iterable[Comparison]) -> dict[str, CaseRepeats]:
    """Every counted case's runs (xfail-marked and quarantined ones left out, and a
    conversation its simulated user spoiled in any run), by case id, in id order."""
    counts: dict[str, list[int]] = {}
    first: dict[str, Comparison] = {}
    comparisons = list(comparisons)
    spoiled = {c.case_id for c in comparisons if c.status == SIMULATOR}
    for comparison in comparisons:
        if not comparison.counted or comparison.case_id in spoiled:
            continue
        tally = counts.setdefault(comparison.case_id, [0, 0, 0])
        first.setdefault(comparison.case_id, comparison)
        if comparison.status == PASSED:
            tally[0] += 1
        elif comparison.status == ERROR:
            tally[2] += 1
        else:
            tally[1] += 1
    return {case_id: _repeats_of(first[case_id], counts[case_id]) for case_id in sorted(counts)}


def _repeats_of(first: Comparison, tally: Sequence[int]) -> CaseRepeats:
    passed, failed, unscored = tally
    return CaseRepeats(
        first.case_id, passed, failed, unscored, first.metric, first.file, first.target
    )


def _check(n: int, c: int, k: int) -> None:
    if not 0 <= c <= n or not 1 <= k <= n:
        raise ValueError(f"pass@k needs 0 <= c <= n and 1 <= k <= n, not n={n}, c={c}, k={k}")


def pass_at_k(n: int, c: int, k: int) -> float:
    """The unbiased estimate of pass@k from n scored runs, c of them passed."""
    _check(n, c, k)
    total = math.comb(n, k)
    return (total - math.comb(n - c, k)) / total


def pass_hat_k(n: int, c: int, k: int) -> float:
    """The unbiased estimate of pass^k (every one of k runs passes) from n runs, c passed."""
    _check(n, c, k)
    return math.comb(c, k) / math.comb(n, k)


@dataclass(frozen=True)
class Estimate:
    """A run's figure: the mean over ``cases`` cases and its bootstrap interval (None with
    fewer than two cases: there is no spread between cases to resample)."""

    mean: float
    low: float | None
    high: float | None
    cases: int

    def to_dict(self) -> EstimateDict:
        return {"mean": self.mean, "low": self.low, "high": self.high, "cases": self.cases}


def estimate(values: Sequence[float]) -> Estimate | None:
    """The mean of per-case values with its percentile bootstrap interval (None: no case)."""
    if not values:
        return None
    mean = math.fsum(values) / len(values)
    if len(values) < 2:
        return Estimate(mean, None, None, len(values))
    if min(values) == max(values):  # every resample gives that value
        return Estimate(mean, values[0], values[0], len(values))
    means = sorted(_resampled_means(values))
    tail = 100 * (1 - CONFIDENCE) / 2
    low, high = percentile(means, tail), percentile(means, 100 - tail)
    # a bound is a mean of values in [0, 1]; float noise never carries it past the mean
    return Estimate(mean, min(max(low, 0.0), mean), max(min(high, 1.0), mean), len(values))


def _resampled_means(values: Sequence[float]) -> list[float]:
    """The means of RESAMPLES resamples of ``values`` with replacement, from the fixed
    seed, drawn a block of resamples at a time."""
    import numpy as np

    data = np.asarray(values, dtype=float)
    rng = np.random.default_rng(SEED)
    size = len(values)
    block = max(1, _CELLS // size)
    means: list[float] = []
    for start in range(0, RESAMPLES, block):
        rows = min(block, RESAMPLES - start)
        picks = rng.integers(0, size, size=(rows, size))
        means.extend(float(m) for m in data[picks].mean(axis=1))
    return means


@dataclass(frozen=True)
class CaseFigures:
    """A repeated case's runs and, where it has k scored runs, its two estimates."""

    runs: CaseRepeats
    pass_hat: float | None
    pass_at: float | None

    def to_dict(self) -> ReliabilityCaseDict:
        r = self.runs
        return {
            "case_id": r.case_id,
            "runs": r.runs,
            "scored": r.scored,
            "passed": r.passed,
            "unscored": r.unscored,
            "pass_hat_k": self.pass_hat,
            "pass_at_k": self.pass_at,
            "flaky": r.flaky,
        }


@dataclass(frozen=True)
class FieldFigures:
    """A field's pass^k and pass@k: the means over the ``cases`` repeated cases that have it
    (those with k scored runs: each estimate's own ``cases``)."""

    cases: int
    pass_hat: Estimate | None
    pass_at: Estimate | None

    def to_dict(self) -> ReliabilityFieldDict:
        return {
            "pass_hat_k": None if self.pass_hat is None else self.pass_hat.to_dict(),
            "pass_at_k": None if self.pass_at is None else self.pass_at.to_dict(),
            "cases": self.cases,
        }


@dataclass(frozen=True)
class Reliability:
    """A run's repeated cases at one k: each case's figures, the run's, each group's and each
    named target's; the cases k could not be applied to."""

    k: int
    given: bool  # k was set (pass_k); else the fewest runs of a repeated case
    cases: tuple[CaseFigures, ...]
    pass_hat: Estimate | None
    pass_at: Estimate | None
    groups: Mapping[str, tuple[Estimate | None, Estimate | None]]
    targets: Mapping[str, tuple[Estimate | None, Estimate | None]]
    too_few_runs: tuple[str, ...]  # a given k above the case's runs: a usage error
    too_few_scored: tuple[str, ...]  # k runs or more, fewer than k of them scored
    fields: Mapping[str, FieldFigures]  # each field's figures, by field path in order

    @property
    def flaky(self) -> tuple[str, ...]:
        return tuple(f.runs.case_id for f in self.cases if f.runs.flaky)

    @property
    def unscored(self) -> int:
        return sum(f.runs.unscored for f in self.cases)

    def to_dict(self) -> ReliabilityDict:
        out: ReliabilityDict = {
            "k": self.k,
            "k_given": self.given,
            "interval": f"percentile bootstrap over cases, {RESAMPLES} resamples, seed {SEED}",
            "repeated": len(self.cases),
            "pass_hat_k": None if self.pass_hat is None else self.pass_hat.to_dict(),
            "pass_at_k": None if self.pass_at is None else self.pass_at.to_dict(),
            "unscored_runs": self.unscored,
            "flaky": list(self.flaky),
            "too_few_runs": list(self.too_few_runs),
            "too_few_scored": list(self.too_few_scored),
            "groups": {key: _pair_dict(pair) for key, pair in self.groups.items()},
            "targets": {key: _pair_dict(pair) for key, pair in self.targets.items()},
            "cases": [f.to_dict() for f in self.cases],
        }
        out["fields"] = {path: f.to_dict() for path, f in self.fields.items()}
        return out


def _pair_dict(pair: tuple[Estimate | None, Estimate | None]) -> dict[str, EstimateDict | None]:
    hat, at = pair
    return {
        "pass_hat_k": None if hat is None else hat.to_dict(),
        "pass_at_k": None if at is None else at.to_dict(),
    }


def repeated(runs: Mapping[str, CaseRepeats]) -> list[CaseRepeats]:
    """The cases run more than once, in id order."""
    return [r for r in runs.values() if r.runs > 1]


def chosen_k(cases: Sequence[CaseRepeats], given: int) -> int:
    """The k of a run: the one given, else the fewest runs of a repeated case whose runs
    were all scored. A golden case stops at its first run that could not be scored, so the
    runs of one that did say nothing of how many it was asked for; only when every repeated
    case has such a run do they decide."""
    if given > 0:
        return given
    whole = [r.runs for r in cases if not r.unscored]
    return min(whole or [r.runs for r in cases])


def short_of(runs: CaseRepeats, k: int) -> bool:
    """Whether k is more than the case was run: it ran every run it was asked for (none
    could not be scored) and still fewer than k. A usage error where k was given."""
    return not runs.unscored and runs.runs < k


def figures_of(runs: CaseRepeats, k: int) -> CaseFigures:
    """A case's estimates at k (None where it has fewer than k scored runs)."""
    if runs.scored < k:
        return CaseFigures(runs, None, None)
    return CaseFigures(
        runs, pass_hat_k(runs.scored, runs.passed, k), pass_at_k(runs.scored, runs.passed, k)
    )


def reliability(
    comparisons: Sequence[Comparison],
    given_k: int = 0,
    group_by: str = "metric",
    passes: FieldPasses | None = None,
) -> Reliability | None:
    """The run's repeated cases at k (``given_k``; 0: the fewest runs of a repeated case),
    or None when no case was run more than once. ``passes``: each case's field passes as
    counted while the comparisons were recorded (None: read from their field records)."""
    cases = repeated(case_repeats(comparisons))
    if not cases:
        return None
    k = chosen_k(cases, given_k)
    figures = tuple(figures_of(r, k) for r in cases)
    groups: dict[str, list[CaseFigures]] = {}
    targets: dict[str, list[CaseFigures]] = {}
    for f in figures:
        groups.setdefault(group_key(f.runs, group_by), []).append(f)
        if f.runs.target:
            targets.setdefault(f.runs.target, []).append(f)
    return Reliability(
        k,
        given_k > 0,
        figures,
        *_estimates(figures),
        {key: _estimates(group) for key, group in sorted(groups.items())},
        {key: _estimates(group) for key, group in sorted(targets.items())},
        tuple(r.case_id for r in cases if short_of(r, k)),
        tuple(r.case_id for r in cases if r.scored < k and not short_of(r, k)),
        field_figures(comparisons, cases, k, passes),
    )


def _estimates(figures: Sequence[CaseFigures]) -> tuple[Estimate | None, Estimate | None]:
    hats = [f.pass_hat for f in figures if f.pass_hat is not None]
    ats = [f.pass_at for f in figures if f.pass_at is not None]
    return estimate(hats), estimate(ats)


def matched_fields(
    comparisons: Iterable[Comparison], cases: Sequence[CaseRepeats]
) -> dict[str, dict[str, int]]:
    """Of each of ``cases`` (by case id), each field path scored against an expected value
    in one of its scored runs, with the scored runs in which the field passed."""
    wanted = {r.case_id for r in cases}
    matched: dict[str, dict[str, int]] = {}
    for comparison in comparisons:
        if comparison.counted and comparison.status != ERROR and comparison.case_id in wanted:
            tally = matched.setdefault(comparison.case_id, {})
            for path, passed in _passed_fields(comparison).items():
                tally[path] = tally.get(path, 0) + passed
    return matched


def _passed_fields(comparison: Comparison) -> dict[str, bool]:
    """Each field path of one run scored against an expected value: whether every row of
    it matched (a list's items fold into one path: all of them must match)."""
    return passed_fields((record.field_path, record.status) for record in comparison.fields)


def passed_fields(rows: Iterable[tuple[str, str]]) -> dict[str, bool]:
    """Of one run's field rows, each (field path, status): each field path scored against
    an expected value, and whether every row of it matched."""
    passed: dict[str, bool] = {}
    for path, status in rows:
        if status in _EXPECTED:
            passed[path] = passed.get(path, True) and status == MATCH
    return passed


def field_figures(
    comparisons: Iterable[Comparison],
    cases: Sequence[CaseRepeats],
    k: int,
    passes: FieldPasses | None = None,
) -> dict[str, FieldFigures]:
    """Each field's pass^k and pass@k over the repeated ``cases`` that have it, by field
    path in order (each case's values in case id order, as the run's figures are)."""
    matched = matched_fields(comparisons, cases) if passes is None else passes
    hats: dict[str, list[float]] = {}
    ats: dict[str, list[float]] = {}
    having: dict[str, int] = {}
    for runs in cases:
        for path, c in matched.get(runs.case_id, {}).items():
            having[path] = having.get(path, 0) + 1
            if runs.scored >= k:
                hats.setdefault(path, []).append(pass_hat_k(runs.scored, c, k))
                ats.setdefault(path, []).append(pass_at_k(runs.scored, c, k))
    return {
        path: FieldFigures(having[path], estimate(hats.get(path, [])), estimate(ats.get(path, [])))
        for path in sorted(having)
    }
