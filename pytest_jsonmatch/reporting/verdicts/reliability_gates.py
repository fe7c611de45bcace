"""The gates of repeated cases (reliability.py), and their figures against a baseline.

- ``min_pass_hat_k`` and ``min_pass_at_k``: the run's pass^k and pass@k (the mean over its
  repeated cases) must reach the floor. A floor that finds no repeated case with k scored
  runs fails: a gate on a figure nobody measured would pass whatever the model does.
- A given ``pass_k`` above a repeated case's runs fails the run, naming the case: the figure
  at that k cannot be estimated from fewer runs, and a smaller k would be a different figure.
- ``max_pass_drop``: against a baseline, pass^k and pass@k are paired over the shared
  repeated cases that have k scored runs on both sides (each side's estimate at this run's
  k), and a drop is judged by the rule of the mean (gates.py: statistical by default, or
  strict), in the same words.

The baseline's shared cases that became flaky, or stopped being, are listed either way.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..run_model.comparisons import SIMULATOR, XFAILED, Comparison
from ..run_model.report_types import ReliabilityBaselineDict, ReliabilityChangeDict, ReliabilityDict
from .gate_settings import GateSettings
from .gates import (
    GateDecision,
    dropped_text,
    held_text,
    hold_floor,
    rule_on_drop,
    uncounted_why,
)
from .reliability import (
    CaseRepeats,
    Estimate,
    FieldPasses,
    Reliability,
    figures_of,
    reliability,
)
from .stats import PairedDifference, paired_difference

if TYPE_CHECKING:  # (a baseline's reader is imported by whoever reads a baseline)
    from .baseline import BaselineComparison

SHOWN_CASES = 5  # cases a failure or a warning names before "and N more"


@dataclass(frozen=True)
class Change:
    """One figure against the baseline: its mean over the paired cases before and after."""

    before: float | None
    after: float | None
    difference: PairedDifference

    def to_dict(self) -> ReliabilityChangeDict:
        return {
            "before": self.before,
            "after": self.after,
            "difference": self.difference.to_dict(),
        }


@dataclass(frozen=True)
class ReliabilityChange:
    """This run's repeated cases against the baseline's."""

    shared: int
    pass_hat: Change
    pass_at: Change
    became_flaky: tuple[str, ...]
    no_longer_flaky: tuple[str, ...]

    def to_dict(self) -> ReliabilityBaselineDict:
        return {
            "shared": self.shared,
            "pass_hat_k": self.pass_hat.to_dict(),
            "pass_at_k": self.pass_at.to_dict(),
            "became_flaky": list(self.became_flaky),
            "no_longer_flaky": list(self.no_longer_flaky),
        }


def _partners(comparison: BaselineComparison) -> dict[str, str]:
    """Each shared case of this run with the baseline's id of it (case_matching.py)."""
    if comparison.matching is not None:
        return dict(comparison.matching.pairs)
    return {d.case_id: d.case_id for d in comparison.cases}


def against_baseline(
    now: Reliability, comparison: BaselineComparison, base_runs: Mapping[str, CaseRepeats]
) -> ReliabilityChange:
    """pass^k and pass@k paired over the shared repeated cases with k scored runs on both
    sides, at this run's k; the shared cases whose flakiness changed (of those with two
    scored runs or more on both sides)."""
    partners = _partners(comparison)
    hats: list[tuple[float, float]] = []
    ats: list[tuple[float, float]] = []
    became: list[str] = []
    steadied: list[str] = []
    for figures in now.cases:
        partner = partners.get(figures.runs.case_id)
        base = base_runs.get(partner) if partner is not None else None
        if base is None:
            continue
        then = figures_of(base, now.k)
        if figures.pass_hat is not None and then.pass_hat is not None:
            hats.append((then.pass_hat, figures.pass_hat))
        if figures.pass_at is not None and then.pass_at is not None:
            ats.append((then.pass_at, figures.pass_at))
        if min(base.scored, figures.runs.scored) >= 2 and base.flaky != figures.runs.flaky:
            (became if figures.runs.flaky else steadied).append(figures.runs.case_id)
    return ReliabilityChange(len(hats), _change(hats), _change(ats), tuple(became), tuple(steadied))


def _change(pairs: Sequence[tuple[float, float]]) -> Change:
    if not pairs:
        return Change(None, None, paired_difference([]))
    before = sum(b for b, _ in pairs) / len(pairs)
    after = sum(a for _, a in pairs) / len(pairs)
    return Change(before, after, paired_difference([a - b for b, a in pairs]))


def reliability_section(
    comparisons: Sequence[Comparison],
    gates: GateSettings,
    group_by: str,
    against: BaselineComparison | None = None,
    decision: GateDecision | None = None,
    passes: FieldPasses | None = None,
) -> ReliabilityDict | None:
    """The report's ``reliability`` (None: no case ran more than once), judged into
    ``decision`` where one is given (a run that judges its gates); its per-field figures
    from the comparisons' field records, or from ``passes`` where they keep none."""
    found = reliability(comparisons, gates.pass_k or 0, group_by, passes)
    change = None
    if found is not None and against is not None and against.baseline.runs:
        change = against_baseline(found, against, against.baseline.runs)
    if decision is not None:
        hold_reliability(found, change, gates, decision, _uncounted(comparisons))
    if found is None:
        return None
    section = found.to_dict()
    if change is not None:
        section["baseline"] = change.to_dict()
    return section


def _uncounted(comparisons: Sequence[Comparison]) -> str:
    """Why the run counted no case (gates.py ``uncounted_why``), or empty where it counted
    one: a floor with nothing to hold says so, rather than that nothing was repeated."""
    if any(c.counted for c in comparisons):
        return ""
    cases = {c.case_id: c for c in comparisons}.values()
    quarantined = sum(1 for c in cases if c.quarantine is not None)
    xfailed = sum(1 for c in cases if c.quarantine is None and c.status == XFAILED)
    spoiled = sum(1 for c in cases if c.quarantine is None and c.status == SIMULATOR)
    xpassed = len(cases) - quarantined - xfailed - spoiled
    return uncounted_why(quarantined, xfailed, xpassed, spoiled)


def hold_reliability(
    found: Reliability | None,
    change: ReliabilityChange | None,
    gates: GateSettings,
    decision: GateDecision,
    uncounted: str = "",
) -> None:
    """The reliability gates' failures, warnings and passes, into ``decision`` (``uncounted``:
    why the run counted no case, where it counted none)."""
    names = gates.names
    if found is not None and found.given and found.too_few_runs:
        decision.failures.append(
            f"{names.pass_k} {found.k} is more than the runs of "
            f"{_named(found.too_few_runs)}: pass^{found.k} and pass@{found.k} cannot be "
            f"estimated from fewer runs (repeat those cases {found.k} times or more, or "
            f"lower {names.pass_k})"
        )
    floors = [
        ("pass^", gates.min_pass_hat_k, names.min_pass_hat_k, found.pass_hat if found else None),
        ("pass@", gates.min_pass_at_k, names.min_pass_at_k, found.pass_at if found else None),
    ]
    if found is None and gates.part_of_suite:
        _not_held(gates, decision)
        return
    for symbol, floor, name, figure in floors:
        if floor is not None:
            _floor(symbol, floor, name, figure, found, decision, uncounted)
    if gates.min_pass_hat_k is not None or gates.min_pass_at_k is not None:
        if found is not None and found.too_few_scored:
            decision.warnings.append(
                f"{_named(found.too_few_scored)}: fewer than k = {found.k} scored runs, left "
                f"out of pass^{found.k} and pass@{found.k} (their unscored runs count as "
                f"neither success nor failure)"
            )
    if change is not None and gates.max_pass_drop is not None and found is not None:
        _drops(found.k, change, gates, decision)


def _not_held(gates: GateSettings, decision: GateDecision) -> None:
    """A run of part of the suite that ran no repeated case holds no floor of pass^k or
    pass@k: the repeated cases are in the part it did not run (as a field floor that matches
    none of its fields is skipped, gates.py). The floors given are named in one warning."""
    names = gates.names
    given = [
        f"{name} {floor:.4f}"
        for name, floor in (
            (names.min_pass_hat_k, gates.min_pass_hat_k),
            (names.min_pass_at_k, gates.min_pass_at_k),
        )
        if floor is not None
    ]
    if given:
        decision.warnings.append(
            f"{len(given)} gate{'' if len(given) == 1 else 's'} not held, as this run is part "
            f"of the suite ({gates.part_of_suite}) and ran no repeated case: {', '.join(given)}"
        )


def _named(cases: Sequence[str]) -> str:
    shown = ", ".join(cases[:SHOWN_CASES])
    more = len(cases) - SHOWN_CASES
    head = f"case{'' if len(cases) == 1 else 's'} "
    return head + shown + (f" and {more} more" if more > 0 else "")


def _floor(
    symbol: str,
    floor: float,
    name: str,
    figure: Estimate | None,
    found: Reliability | None,
    decision: GateDecision,
    uncounted: str = "",
) -> None:
    """The run's pass^k or pass@k (``symbol``) against its floor."""

    if found is None or figure is None:
        why = (
            uncounted or "no case was run more than once (repeat: N, --jsonmatch-repeat=N)"
            if found is None
            else f"no repeated case has k = {found.k} scored runs"
        )
        decision.failures.append(f"{name} {floor:.4f}: {why}: nothing to hold to it")
        return
    what = (
        f"{symbol}{found.k} {figure.mean:.4f} over {figure.cases} repeated "
        f"case{'' if figure.cases == 1 else 's'}"
    )
    hold_floor(what, figure.mean, floor, name, decision)


def _drops(k: int, change: ReliabilityChange, gates: GateSettings, decision: GateDecision) -> None:
    """pass^k and pass@k against the baseline, each by the rule of the mean (gates.rule_on_drop),
    its messages naming max_pass_drop."""
    from ..run_model.aggregate import SCORE_EPSILON

    limit = gates.max_pass_drop
    assert limit is not None
    # the mean's rule, in its words, naming this gate's setting and limit
    rule = gates.replace(
        max_drop=limit, names=gates.names.replace(max_drop=gates.names.max_pass_drop)
    )
    failed = len(decision.failures)
    for symbol, figure in (("pass^", change.pass_hat), ("pass@", change.pass_at)):
        diff = figure.difference
        if figure.before is None or figure.after is None:
            continue
        if -diff.mean > limit + SCORE_EPSILON:
            sides = (figure.before, figure.after)
            what = dropped_text(f"{symbol}{k}", *sides, diff.n, "repeated case")
            rule_on_drop(what, diff.clearly_below_zero, diff, sides, limit, rule, decision)
    if change.shared and len(decision.failures) == failed:
        hat = change.pass_hat
        assert hat.before is not None and hat.after is not None
        what = f"pass^{k} against the baseline ({gates.mode}): change"
        held = held_text(what, hat.before, hat.after, change.shared, "repeated case")
        decision.checked.append(f"{held}, {gates.names.max_pass_drop} {limit:.4f}")
    if not change.shared:
        decision.warnings.append(
            f"{gates.names.max_pass_drop} {limit:.4f}: no shared repeated case has k = {k} "
            f"scored runs in both runs: nothing to hold against the baseline"
        )
