"""Repeated cases: how many times an ``input`` case's target runs (or how many runs of one
scenario a trace case's file holds: ``trace: {..., runs: each}``), and whether its runs pass
together (by the session's rule: the ``mean`` score, ``all`` runs or a ``majority``)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from ..engine.core.errors import ConfigError, JsonMatchError
from ..engine.core.numbers import whole_in
from ..engine.core.slotted import HashedSlotted

if TYPE_CHECKING:  # the reporting stage loads once a case is judged (start-up stays light)
    from ..reporting.run_model.aggregate import RepeatRule
    from .case_files import GoldenCase


MAX_REPEAT = 1000


class RepeatSettings(HashedSlotted):
    """The session's runs of every ``input`` case (None: once, unless a case says) and the
    rule its runs pass by. (Slotted, not a dataclass: every golden session makes one.)"""

    __slots__ = ("count", "rule")

    def __init__(self, *, count: int | None = None, rule: RepeatRule = "mean") -> None:
        self.count, self.rule = count, rule

    def runs_of(self, case: GoldenCase) -> int:
        """How many times the case's target runs: only ``input`` cases repeat; a case's own
        ``repeat:`` wins over the session's. A trace case with ``runs: each`` runs once for
        each run its trace file holds (:func:`traced_runs`)."""
        if case.source != "input":
            return traced_runs(case)
        if case.repeat is not None:
            return case.repeat
        return self.count or 1

    def passes(self, scores: Sequence[float], threshold: float) -> bool:
        from ..reporting.run_model.aggregate import case_passes

        return case_passes(scores, threshold, self.rule)

    def failure_summary(self, scores: Sequence[float], threshold: float) -> str:
        """The first line of a repeated case's failure: the rule, the mean, the runs."""
        passed = sum(score >= threshold - 1e-9 for score in scores)
        mean = sum(scores) / len(scores)
        return (
            f"repeated case failed ({self.rule}): mean score {mean:.4f} over {len(scores)} "
            f"runs, {passed}/{len(scores)} at or above threshold {threshold:.4f} "
            f"(runs: {', '.join(f'{s:.4f}' for s in scores)})"
        )

    @classmethod
    def parse(cls, parts: Sequence[tuple[str, str]]) -> RepeatSettings:
        """``N``, ``RULE`` or ``N RULE`` from each ``(text, name)`` in turn, a later one's
        parts overriding an earlier one's (a flag's over the ini's)."""
        count: int | None = None
        rule: RepeatRule = "mean"  # the default rule, as above
        for text, what in parts:
            words = text.replace(",", " ").split()
            if words:  # the rules' names live with the reporting stage they choose for
                from ..reporting.run_model.aggregate import REPEAT_RULES
            for word in words:
                named = [r for r in REPEAT_RULES if r == word]
                runs = whole_in(word, 1, MAX_REPEAT)
                if runs is not None:
                    count = runs
                elif named:
                    rule = named[0]
                else:
                    raise ConfigError(
                        f"{what} must be a whole number of runs from 1 to "
                        f"{MAX_REPEAT} and/or a rule ({', '.join(REPEAT_RULES)}), "
                        f"not {text!r}"
                    )
        return cls(count=count, rule=rule)


def traced_runs(case: GoldenCase) -> int:
    """The runs of a trace case with ``runs: each``: as many as its trace file holds of the
    runs its ``trace:`` selects (read once, by the case's expectations); 1 for any other case
    whose output is not its target's. Where the file cannot be read, or the case's
    ``repeat:`` (its own, or its file's or folder's) asks for another count than the file
    holds, 1: that one run is then the case's error, raised as it is read
    (``AgentExpectations.read_actual``). The session's ``jsonmatch_repeat`` is for targets
    called again: a trace's runs are those it holds."""
    from .agent_expectations import AgentExpectations

    agent = case.agent
    if not (isinstance(agent, AgentExpectations) and agent.each and case.actual_file):
        return 1
    try:
        count = len(agent.traced_runs(case.actual_file))
    except JsonMatchError:
        return 1
    if case.repeat is not None and count != case.repeat:
        selected = ", ".join(f"{k}={v!r}" for k, v in (agent.trace or {}).items())
        agent.refuse_runs(
            f"trace file {str(case.actual_file)!r} holds {count} run{'s' * (count != 1)} "
            f"{'that ' + selected + ' selects' if selected else 'of the scenario'}, but "
            f"repeat: asks for {case.repeat}: a trace case with runs: each is repeated once "
            f"for each run its file holds; give repeat: {count} (or none), or the runs "
            f"missing from the file"
        )
        return 1
    return count
