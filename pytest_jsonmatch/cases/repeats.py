"""Repeated cases: how many times an ``input`` case's target runs, and whether its runs pass
together (by the session's rule: the ``mean`` score, ``all`` runs or a ``majority``)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from ..engine.core.errors import ConfigError
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
        ``repeat:`` wins over the session's."""
        if case.source != "input":
            return 1
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
