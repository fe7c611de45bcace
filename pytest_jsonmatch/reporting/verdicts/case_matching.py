"""Which case of one run is which case of another: how a run's cases match a baseline's,
a target's with the reference's, one saved run's with another's.

A case has one id everywhere (the test's node id; a named target's case carries its target,
``file::c1[large]``), and each case knows its target and its id without it (``pair``). Two
runs match their cases by (id without target, target):

- cases of no named target (``actual:`` cases, a session's single ``target``) pair by id;
- cases of a named target that both runs ran pair within that target;
- when the two runs share no named target and one of them has some, each side's chosen target
  (its only one, else its reference, else its first) pairs with the other's chosen one, or
  with the other's cases of no target, by id without target: a one-target run made apart,
  a run of a single ``target`` against a run of named targets.

Cases of a target the other run did not run take no part: they are counted apart, by
target, never as added or removed. Nor does a case that either run ran but did not count
(quarantined, marked xfail): it is set aside (``aside``), neither added nor removed, since it
is in both suites. The gate then holds the share of this run's cases that
found a partner (``MIN_SHARED``): a baseline that shares too few cases judges too little.
"""

from __future__ import annotations

import difflib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Protocol

# The least share of a run's cases (of the targets both runs ran) that must have a partner in
# the run it is held against: below it the baseline's verdict would speak for fewer cases than
# it leaves unchecked. No shared case at all always fails.
MIN_SHARED = 0.5


class Matchable(Protocol):
    """What case matching reads of a case (baseline.CaseScores)."""

    @property
    def target(self) -> str: ...
    @property
    def pair(self) -> str: ...


@dataclass(frozen=True)
class CaseMatch:
    """This run's cases against another's: ``pairs`` maps each of this run's case ids that has
    a partner to the partner's id; ``compared`` and ``base_compared`` are the cases of each
    side that take part (of the targets both ran); ``apart`` and ``base_apart`` count, per
    target, the cases that take no part; ``crossed`` names the two targets paired across,
    when they differ; ``aside`` names this run's cases that either run did not count, and
    ``base_aside`` the other run's, set aside (neither paired, added nor removed)."""

    pairs: dict[str, str]
    compared: tuple[str, ...]
    base_compared: tuple[str, ...]
    targets: tuple[str, ...]
    base_targets: tuple[str, ...]
    apart: dict[str, int] = field(default_factory=dict)
    base_apart: dict[str, int] = field(default_factory=dict)
    crossed: tuple[str, str] | None = None
    aside: tuple[str, ...] = ()
    base_aside: tuple[str, ...] = ()

    @property
    def added(self) -> tuple[str, ...]:
        return tuple(sorted(c for c in self.compared if c not in self.pairs))

    @property
    def removed(self) -> tuple[str, ...]:
        taken = set(self.pairs.values())
        return tuple(sorted(c for c in self.base_compared if c not in taken))

    def note(self, base: str = "the baseline") -> str:
        """What the matching left out or matched across, in words (empty: nothing)."""
        parts = []
        if self.crossed is not None:
            mine, theirs = self.crossed
            parts.append(
                f"this run's {_target_words(mine)} paired with {base}'s {_target_words(theirs)}"
            )
        for whose, apart in (("this run's", self.apart), (f"{base}'s", self.base_apart)):
            for target, count in sorted(apart.items()):
                parts.append(
                    f"{count} of {whose} case{'' if count == 1 else 's'} of target {target} "
                    f"not compared (the other run did not run it)"
                )
        return "; ".join(parts)

    def why(self, base: str = "the baseline") -> str:
        """Why few ids are shared: the targets each side ran, and a pair of ids that differ."""
        if self.targets != self.base_targets:
            return (
                f"this run's cases are of {_targets_words(self.targets)}, {base}'s of "
                f"{_targets_words(self.base_targets)}"
            )
        added, removed = self.added, self.removed
        if not removed:
            return (
                f"{base} lacks {len(added)} of this run's cases (new cases, or {base} ran a "
                f"subset of them)"
            )
        if not added:
            return f"this run lacks {len(removed)} of {base}'s cases"
        close = difflib.get_close_matches(added[0], removed, n=1, cutoff=0.0)
        return (
            f"the case ids differ, e.g. this run's {added[0]!r} and {base}'s "
            f"{(close or removed)[0]!r} (case files moved, renamed, or collected from "
            f"another folder?)"
        )


def _target_words(target: str) -> str:
    return f"target {target}" if target else "cases of no named target"


def _targets_words(targets: Sequence[str]) -> str:
    named = [t for t in targets if t]
    if not named:
        return "no named target"
    return f"target{'' if len(named) == 1 else 's'} {', '.join(named)}"


def targets_of(cases: Mapping[str, Matchable]) -> tuple[str, ...]:
    """The named targets of a run's cases, sorted."""
    return tuple(sorted({c.target for c in cases.values() if c.target}))


def match_cases(
    base: Mapping[str, Matchable],
    now: Mapping[str, Matchable],
    base_reference: str = "",
    reference: str = "",
    uncounted: Mapping[str, Matchable] | None = None,
    base_uncounted: Mapping[str, Matchable] | None = None,
) -> CaseMatch:
    """This run's cases (``now``) paired with ``base``'s by the rules of the module docstring;
    ``reference`` and ``base_reference`` name each side's reference target, where it has
    one; ``uncounted`` and ``base_uncounted`` are each side's cases it ran but did not count
    (quarantined, marked xfail): a case either side did not count takes no part on both."""
    base_targets, targets = targets_of(base), targets_of(now)
    common = set(base_targets) & set(targets)
    crossed: tuple[str, str] | None = None
    if common or not (base_targets or targets):
        take_base = take_now = common | {""}

        def key(case: Matchable) -> tuple[str, str]:
            return (case.pair, case.target)
    else:
        mine, theirs = _chosen(targets, reference), _chosen(base_targets, base_reference)
        take_now, take_base = {"", mine}, {"", theirs}
        crossed = (mine, theirs)

        def key(case: Matchable) -> tuple[str, str]:
            return (case.pair, "")

    # a case either run did not count is in both suites: set aside on both sides
    now_aside, base_aside = dict(uncounted or {}), dict(base_uncounted or {})
    aside = {key(c) for c in now_aside.values() if c.target in take_now}
    aside |= {key(c) for c in base_aside.values() if c.target in take_base}
    base_keys = {
        key(case): case_id
        for case_id, case in base.items()
        if case.target in take_base and key(case) not in aside
    }
    compared = tuple(
        case_id
        for case_id, case in now.items()
        if case.target in take_now and key(case) not in aside
    )
    pairs = {
        case_id: partner
        for case_id in compared
        if (partner := base_keys.get(key(now[case_id]))) is not None
    }
    return CaseMatch(
        pairs,
        compared,
        tuple(base_keys.values()),
        targets,
        base_targets,
        _apart(now, take_now),
        _apart(base, take_base),
        crossed,
        tuple(sorted(i for i, c in {**now, **now_aside}.items() if key(c) in aside)),
        tuple(sorted(i for i, c in {**base, **base_aside}.items() if key(c) in aside)),
    )


def _chosen(targets: Sequence[str], reference: str) -> str:
    """The target of a side that pairs across: the reference where it ran, else the first
    (empty: the side has no named target)."""
    if reference in targets:
        return reference
    return targets[0] if targets else ""


def _apart(cases: Mapping[str, Matchable], taken: set[str]) -> dict[str, int]:
    counts: dict[str, int] = {}
    for case in cases.values():
        if case.target not in taken:
            counts[case.target] = counts.get(case.target, 0) + 1
    return counts
