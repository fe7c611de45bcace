"""The named targets of one run side by side, and the gate that holds each candidate to the
reference target.

A session with several targets (``jsonmatch_targets``) scores each ``input:`` case once per
target: the case ``c1`` of one file is ``c1[today]`` and ``c1[cheap]``. Split by target, with
the ``[name]`` taken off each case id (``Comparison.pair_id``), every target is a run of the
same suite, and the targets are compared exactly as ``jsonmatch compare-runs`` compares saved
runs (runs.py): over the cases both answered, each target's paired difference from the
reference with its 95% interval, McNemar's p on pass/fail flips, per-field rows, the cases
they disagree on most, latency and usage. Cases that give ``actual:`` run once, under no
target, and take no part.

The gate (``jsonmatch_reference``) holds each other target to the reference by the rules a
saved baseline is held by (gates.py: ``max_drop``, statistical or strict, and
``max_case_drop``), the reference's cases standing for the baseline's; and by limits on
latency and cost, each either a ratio of the reference's figure (``1.2x``) or an absolute one
(``2.5s``, ``0.50``).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from ...engine.core.errors import ConfigError, did_you_mean
from ...engine.core.slotted import HashedSlotted
from .gates import GateDecision, GateSettings, decision_of, unscored_failure
from .money import money

if TYPE_CHECKING:  # the settings load with the session; the comparison, once it compares
    from ..run_model.aggregate import GroupBy, RepeatRule
    from ..run_model.comparisons import Comparison
    from ..run_model.report_types import Report, RunRow, TargetsDict
    from .runs import Run

LIMIT_KEYS = ("latency_p95", "cost", "total_cost")


class Limit(HashedSlotted):
    """A ceiling on a target's figure: ``value`` itself, or ``value`` times the reference's
    (``ratio``)."""

    __slots__ = ("value", "ratio")

    def __init__(self, *, value: float, ratio: bool) -> None:
        self.value, self.ratio = value, ratio

    def text(self, unit: str) -> str:
        return f"{self.value:g}x" if self.ratio else f"{self.value:g}{unit}"


class VersusSettings(HashedSlotted):
    """Which target the others are compared with (empty: the first that ran, and no gate),
    and the limits on each other target's p95 latency and total cost. (It and Limit are
    Slotted, not dataclasses: every golden session's report imports them.)"""

    __slots__ = ("reference", "latency_p95", "cost", "total_cost", "what")

    def __init__(
        self,
        *,
        reference: str = "",
        latency_p95: Limit | None = None,
        cost: Limit | None = None,  # the target's calls
        total_cost: Limit
        | None = None,  # the target's calls and the judge's requests for its cases
        what: str = "jsonmatch_reference",  # the setting, as messages name it
    ) -> None:
        self.reference, self.latency_p95, self.cost = reference, latency_p95, cost
        self.total_cost, self.what = total_cost, what

    @property
    def gated(self) -> bool:
        return bool(self.reference)


def parse_reference(text: str, what: str = "jsonmatch_reference") -> VersusSettings:
    """``NAME [latency_p95=1.2x|2.5s] [cost=1.5x|0.50]``; ConfigError naming ``what``."""
    words = text.split()
    if not words:
        return VersusSettings(what=what)
    if "=" in words[0]:
        raise ConfigError(
            f"{what}: the reference target's name comes first, then "
            f"{', '.join(k + '=' for k in LIMIT_KEYS)}; not {words[0]!r}"
        )
    limits: dict[str, Limit] = {}
    for word in words[1:]:
        key, sep, value = word.partition("=")
        if not sep or key not in LIMIT_KEYS:
            raise ConfigError(
                f"{what}: expected latency_p95=LIMIT, cost=LIMIT or total_cost=LIMIT after the "
                f"reference's name, not {word!r}{did_you_mean(key, LIMIT_KEYS)}"
            )
        if key in limits:
            raise ConfigError(f"{what}: {key} given twice")
        limits[key] = _limit(value, "s" if key == "latency_p95" else "", f"{what}: {key}")
    return VersusSettings(
        reference=words[0],
        latency_p95=limits.get("latency_p95"),
        cost=limits.get("cost"),
        total_cost=limits.get("total_cost"),
        what=what,
    )


def _limit(text: str, unit: str, what: str) -> Limit:
    ratio = text.endswith("x")
    number = text[:-1] if ratio else text[: -len(unit)] if unit and text.endswith(unit) else text
    try:
        value = float(number)
    except ValueError:
        value = math.nan
    if not math.isfinite(value) or value < 0 or (ratio and value == 0):
        raise ConfigError(
            f"{what} must be a ratio of the reference's (1.2x) or a number "
            f"{'of seconds (2.5s) ' if unit else ''}at or above 0, not {text!r}"
        )
    return Limit(value=value, ratio=ratio)


def by_target(comparisons: Sequence[Comparison]) -> dict[str, list[Comparison]]:
    """Each named target's comparisons, in the order the targets first appear, with case ids
    that pair across targets (``pair_id``); comparisons under no target are left out."""
    out: dict[str, list[Comparison]] = {}
    for comparison in comparisons:
        if comparison.target:
            out.setdefault(comparison.target, []).append(
                comparison.replace(case_id=comparison.pair_id)
            )
    return out


def target_runs(
    split: dict[str, list[Comparison]],
    names: Sequence[str],
    reference: str,
    group_by: str,
    where: str = "",
) -> list[Run]:
    """The targets as runs compare-runs compares, the reference first; ``where``: the report
    they come from, for their paths."""
    from .runs import Run

    order = [reference, *(n for n in names if n != reference and n in split)]
    return [
        Run(
            name,
            f"{where}target {name}",
            {"comparisons": [c.to_dict() for c in split[name]], "group_by": group_by},
        )
        for name in order
    ]


def runs_of_report(report: Report, path: str) -> list[Run]:
    """The named targets of a saved report as runs (its reference first, the others in its
    order), for ``jsonmatch compare-runs REPORT.json``; none when it has fewer than two."""
    from ..run_model.comparisons import Comparison

    split = by_target([Comparison.from_dict(c) for c in report["comparisons"]])
    section = report.get("targets")
    names = [r["name"] for r in section["runs"]] if section else list(split)
    names += [n for n in split if n not in names]
    if len(split) < 2:
        return []
    reference = names[0] if names[0] in split else next(iter(split))
    return target_runs(split, names, reference, report.get("group_by", "metric"), f"{path}: ")


def side_by_side(
    split: dict[str, list[Comparison]],
    names: Sequence[str],
    reference: str,
    gated: bool,
    group_by: str,
) -> TargetsDict:
    """The targets compared as compare-runs compares runs, the reference first."""
    from .runs import compare_runs

    data = compare_runs(target_runs(split, names, reference, group_by))
    return {**data, "reference": reference, "gated": gated}


def targets_section(
    comparisons: Sequence[Comparison],
    names: Sequence[str],
    settings: VersusSettings,
    gates: GateSettings,
    *,
    group_by: GroupBy,
    repeat_rule: RepeatRule,
    decision: GateDecision,
) -> TargetsDict | None:
    """The run's targets side by side (None: fewer than two ran). What the gates find goes
    into ``decision``: each target's overall score against ``fail_under`` (a pooled score
    could hide a target below it), and, with a reference set, each other target held to it."""
    from ..run_model.aggregate import summarize
    from ..run_model.validation import REPORT_VERSION
    from .baseline import Baseline, cases_of, compare, uncounted_of

    split = by_target(comparisons)
    ran = [name for name in names if name in split]
    summaries = {name: summarize(split[name], group_by, repeat_rule) for name in ran}
    for name in ran:  # a target's cases unscored beyond the share: it passes no gate
        failure = unscored_failure(
            summaries[name].errors, summaries[name].count, f"target {name}: "
        )
        if failure:
            decision.failures.append(failure)
    if gates.fail_under is not None or gates.min_valid is not None:
        for name in ran:
            _add(
                decision,
                f"target {name}: ",
                decision_of(
                    summaries[name],
                    GateSettings(
                        fail_under=gates.fail_under,
                        min_valid=gates.min_valid,
                        names=gates.names,
                        part_of_suite=gates.part_of_suite,  # (a target that counted no case)
                    ),
                    unscored=False,
                ),
                name,
            )
    if settings.gated and settings.reference not in split:
        decision.warnings.append(
            f"{settings.what}: the reference target {settings.reference!r} did not run in this "
            f"session (targets that ran: {', '.join(ran) or 'none'}): no target was held to it"
        )
        return side_by_side(split, ran, ran[0], False, group_by) if len(ran) > 1 else None
    if len(ran) < 2:
        return None
    reference = settings.reference if settings.gated else ran[0]
    data = side_by_side(split, ran, reference, settings.gated, group_by)
    if settings.gated:
        rows = {row["name"]: row for row in data["runs"]}
        base = Baseline(
            f"target {reference}",
            REPORT_VERSION,
            cases_of(split[reference], repeat_rule, group_by),
            uncounted=uncounted_of(split[reference]),
        )
        rules = GateSettings(
            max_drop=gates.max_drop,
            mode=gates.mode,
            max_case_drop=gates.max_case_drop,
            allow_regressions=gates.allow_regressions,
            names=gates.names,
        )
        for name in (n for n in ran if n != reference):
            said = f"target {name} against {reference}: "
            now = cases_of(split[name], repeat_rule, group_by)
            against = compare(now, base, uncounted=uncounted_of(split[name]))
            _add(
                decision,
                said,
                decision_of(
                    summaries[name], rules, against, label=f"reference {reference}", unscored=False
                ),
                name,
            )
            _limits(said, rows[name], rows[reference], settings, decision)
    return data


def _add(decision: GateDecision, said: str, found: GateDecision, target: str) -> None:
    """One target's decision added to the run's, each message after ``said`` (which target,
    against which), each case it names as the run names it."""
    decision.failures += [said + m for m in found.failures]
    decision.warnings += [said + m for m in found.warnings]
    decision.checked += [said + m for m in found.checked]
    decision.blocked += [(_target_case(case_id, target), gate) for case_id, gate in found.blocked]
    decision.quoted_cases += [_target_case(case_id, target) for case_id in found.quoted_cases]


def _target_case(pair_id: str, target: str) -> str:
    """A case id of the run (``file::c1[cheap]``) from its id without the target."""
    return f"{pair_id}[{target}]"


def _limits(
    said: str, row: RunRow, ref: RunRow, settings: VersusSettings, decision: GateDecision
) -> None:
    """The latency and cost limits, each a failure naming both figures and the limit, or a
    gate passed; a figure the targets did not report cannot pass."""
    what = settings.what
    if settings.latency_p95 is not None:
        limit = settings.latency_p95
        mine = row["latency"]["p95_s"] if row["latency"] else None
        theirs = ref["latency"]["p95_s"] if ref["latency"] else None
        _held(
            said,
            "latency p95",
            mine,
            theirs,
            limit,
            f"{what} latency_p95={limit.text('s')}",
            lambda v: f"{v:.3f} s",
            decision,
        )
    if settings.cost is not None:
        limit = settings.cost
        mine = (row["usage"] or {}).get("cost")
        theirs = (ref["usage"] or {}).get("cost")
        rule = f"{what} cost={limit.text('')}"
        _held(said, "total cost", mine, theirs, limit, rule, money, decision)
    if settings.total_cost is not None:  # the judge's requests for its cases counted too
        limit = settings.total_cost
        _held(
            said,
            "total cost with the judge's",
            _with_judge(row),
            _with_judge(ref),
            limit,
            f"{what} total_cost={limit.text('')}",
            money,
            decision,
        )


def _with_judge(row: RunRow) -> float | None:
    """A target's cost with its judge's (None: neither was reported)."""
    usage = row["usage"] or {}
    spent = [usage[k] for k in ("cost", "judge_cost") if k in usage]
    return sum(spent) if spent else None


def _held(
    said: str,
    figure: str,
    mine: float | None,
    theirs: float | None,
    limit: Limit,
    rule: str,
    shown: Callable[[float], str],
    decision: GateDecision,
) -> None:
    if mine is None or (limit.ratio and theirs is None):
        lacking = [
            who
            for who, figure_of, needed in (
                ("this target", mine, True),
                ("the reference", theirs, limit.ratio),
            )
            if needed and figure_of is None
        ]
        whose = (
            "neither this target nor the reference reported one"
            if len(lacking) == 2
            else f"{lacking[0]} reported none"
        )
        decision.failures.append(f"{said}{figure} cannot be checked: {whose} ({rule})")
        return
    ceiling, of = limit.value, ""
    if limit.ratio and theirs is not None:
        ceiling, of = limit.value * theirs, f" ({limit.value:g}x the reference's {shown(theirs)})"
    if mine > ceiling + 1e-12:
        decision.failures.append(
            f"{said}{figure} {shown(mine)} is above {shown(ceiling)}{of} ({rule})"
        )
    else:
        decision.checked.append(
            f"{said}{figure} {shown(mine)} is at most {shown(ceiling)}{of} ({rule})"
        )
