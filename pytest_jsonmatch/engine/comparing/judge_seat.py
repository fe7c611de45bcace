"""The LLM judge's seat in the registry: the judge the ``semantic`` comparator asks, how it
is configured and run, and what it did for one comparison (:class:`JudgeTab`).

:class:`JudgeSeat` is the part of ``registry.Registry`` that holds the judge; its module
(semantic.py) loads only when a judge is configured.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from typing import TYPE_CHECKING, Final

from ..core.errors import ComparatorError, ConfigError
from ..core.values import JsonObject
from .comparators import BoundComparator, check_params

if TYPE_CHECKING:  # the judge's module loads when a judge is configured
    from ..judge import JudgeFigures, JudgeSettings, Memory, SemanticJudge, Through, Transport


class _Keep(enum.Enum):
    KEEP = "keep"


_KEEP: Final = _Keep.KEEP  # configure_judge: an argument left out keeps its current value


class JudgeSeat:
    """The judge's settings, transport, runner and memory, and the judge made from them."""

    _judge_settings: JudgeSettings | None
    _judge_transport: Transport | None
    _judge_through: Through | None
    _judge_memory: Memory | None
    _judge: SemanticJudge | None
    _bound: dict[tuple[str, object], BoundComparator]
    generation: int

    def configure_judge(
        self,
        settings: JudgeSettings | str | None | _Keep = _KEEP,
        *,
        transport: Transport | None | _Keep = _KEEP,
    ) -> None:
        """Set up the judge the ``semantic`` comparator asks: ``settings`` (a
        :class:`JudgeSettings`, or its text form ``"model=gpt-4o-mini endpoint=..."``; None
        turns the judge off) and ``transport`` (``fn(JudgeRequest) -> JudgeReply``; None:
        the standard library's HTTP client). An argument left out keeps its value, so a
        conftest may hand its own transport to the judge a setting configured."""
        if settings is not _KEEP:
            if isinstance(settings, str):
                from ..judge import judge_settings_from_text

                settings = judge_settings_from_text(settings, "configure_judge")
            elif settings is not None:
                from ..judge import JudgeSettings

                if not isinstance(settings, JudgeSettings):
                    raise ConfigError(
                        f"configure_judge: settings must be a JudgeSettings, its text form "
                        f"or None, not {type(settings).__name__}"
                    )
            self._judge_settings = settings
        if transport is not _KEEP:
            if transport is not None and not callable(transport):
                raise ConfigError(
                    f"configure_judge: transport must be callable, not {type(transport).__name__}"
                )
            self._judge_transport = transport
        self._judge = None
        self._bound.clear()
        self.generation += 1

    def run_judge_through(self, through: Through | None, memory: Memory | None = None) -> None:
        """Route every judge request through ``through(request, transport) -> reply``: the
        layer that runs the judge (its runner's concurrency, timeout, retries, rate limit);
        ``memory``: the verdicts it replays and records (kept when the judge is configured
        again: they are keyed by each judge's fingerprint)."""
        self._judge_through, self._judge_memory = through, memory
        self._judge = None

    @property
    def judge_through(self) -> Through | None:
        """The layer that runs the judge's requests (its runner: ``run_judge_through``), which
        other requests of the judge's kind join (a simulated user's); None: none does."""
        return self._judge_through

    @property
    def judge(self) -> SemanticJudge | None:
        """The judge the ``semantic`` comparator asks (None: none is configured); made on
        first use, kept until the judge is configured again."""
        if self._judge is None and self._judge_settings is not None:
            from ..judge import SemanticJudge

            self._judge = SemanticJudge(
                self._judge_settings, self._judge_transport, self._judge_through, self._judge_memory
            )
        return self._judge

    def judge_tab(self, ahead: JudgeFigures | None = None, case: str | None = None) -> JudgeTab:
        """What the judge does for one comparison, counted while the ``with`` block runs in
        this thread; ``ahead``: the requests its case was judged with ahead of it; ``case``:
        the case it scores (a golden case's test id), whose verdicts these become."""
        return JudgeTab(self.judge if self._judge_settings is not None else None, ahead, case)

    def _bind_semantic(self, params: Mapping[str, object] | None) -> BoundComparator:
        check_params("semantic", params, set())
        if self._judge_settings is None:
            raise ConfigError(
                "comparator 'semantic' needs a judge: set jsonmatch_judge (pytest), "
                "--judge (the jsonmatch command) or call configure_judge() (Python)"
            )

        def unusable(e: object, a: object) -> float:
            raise ComparatorError("comparator 'semantic' cannot score one field alone")

        return BoundComparator("semantic", unusable, batch=True, params={}, trusted=False)


class JudgeTab:
    """See :meth:`Registry.judge_tab`."""

    def __init__(
        self, judge: SemanticJudge | None, ahead: JudgeFigures | None, case: str | None = None
    ) -> None:
        self.judge, self.ahead, self.case = judge, ahead, case
        self.tab: JudgeFigures | None = None

    def __enter__(self) -> JudgeTab:
        if self.judge is not None:
            self.tab = self.judge.open_tab(self.case)
        return self

    def __exit__(self, *exc: object) -> None:
        if self.judge is not None:
            self.judge.close_tab()

    def figures(self) -> JsonObject | None:
        """The comparison's figures as its report keeps them (None: nothing was judged)."""
        tab = self.tab
        if tab is None:
            return None
        if self.ahead is not None:  # the same fields, read ahead: its figures, and any
            from dataclasses import replace  # (only where a judge read ahead)

            ahead = replace(self.ahead)  # request the comparison had to send itself
            ahead.merge(tab, read=False)
            tab = ahead
        return tab.to_dict() if tab.used else None
