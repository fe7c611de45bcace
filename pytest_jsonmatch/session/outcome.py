"""One attempted comparison, as a test hands it to its session's channel (channel.py), and
the record it becomes (reporting/run_model/comparisons.py's Comparison). Every outcome is built by
:meth:`Outcome.of`, from the run's :class:`~pytest_jsonmatch.calls.produced.Produced` output.

Its own module so that a session that never compares does not build it.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping
from typing import TYPE_CHECKING, TypedDict, cast

from ..engine.core.slotted import Slotted

if TYPE_CHECKING:
    from ..calls.call_figures import CallFigures
    from ..calls.produced import OutputSource, Produced, Recorded
    from ..engine.reading.trace_spans import Trace
    from ..engine.results.field_results import MatchResult
    from ..reporting.run_model.comparisons import Comparison, Shown, ValueMode
    from ..reporting.run_model.report_types import SpanTreeDict


class _Where(TypedDict):
    """What a comparison's record says of its test, run and output, scored or not."""

    case_id: str
    nodeid: str
    threshold: float
    seq: int
    repeat: int
    repeats: int | None
    file: str
    line: int | None
    source: str
    recording: str
    call: Mapping[str, object] | None
    judge: Mapping[str, object] | None
    target: str
    shown: Shown
    trace: SpanTreeDict | None


class Outcome(Slotted):
    """One attempted comparison: its MatchResult and verdict, or (``result`` None) the
    one-line reason it could not be scored. ``repeat`` is the run's index when a case runs
    several times; ``call`` is what the target's call for this output took (None: no call).
    (Slotted, not a dataclass: one is made for each comparison.)"""

    __slots__ = (
        "metric",
        "threshold",
        "result",
        "passed",
        "error",
        "repeat",
        "source",
        "recording",
        "call",
        "judge",
        "unread",
        "undecided",
        "input",
        "output",
        "repeats",
        "spoiled",
        "trace",
    )

    def __init__(
        self,
        *,
        metric: str,
        threshold: float,
        result: MatchResult | None = None,
        passed: bool = False,
        error: str = "",
        repeat: int = 0,
        source: OutputSource = "case",  # the output came from the case, a live call, or a replay
        recording: Recorded = "",  # "recorded" or "stale" when this run wrote a recording
        call: CallFigures | None = None,
        judge: Mapping[str, object] | None = None,  # what the LLM judge did (None: nothing)
        # an answer checked against no schema because it could not be read: "cut off" or
        # "unreadable" (a keyword of its conformance: such an answer is not valid); "": none
        unread: str = "",
        # fields the judge left undecided (the error says which and why): 0 for any other error
        undecided: int = 0,
        # the case's input (None: none) and the output as the target gave it (None: none, or
        # the case's own), which the reports show a reviewer beside the fields
        input: object = None,
        output: object = None,
        # how many runs the case was asked for, where it repeats or sets its own (None: once)
        repeats: int | None = None,
        # the error is its simulated user's fault (a conversation it spoiled), not the agent's
        spoiled: bool = False,
        # the output where it was a run read from a trace (engine/reading/trace_spans.py):
        # its span tree goes into the record
        trace: Trace | None = None,
    ) -> None:
        self.metric, self.threshold, self.result, self.passed = metric, threshold, result, passed
        self.error, self.repeat, self.source, self.recording = error, repeat, source, recording
        self.call, self.judge, self.unread, self.undecided = call, judge, unread, undecided
        self.input, self.output, self.repeats = input, output, repeats
        self.spoiled = spoiled
        self.trace = trace

    @classmethod
    def of(
        cls,
        produced: Produced,
        *,
        metric: str,
        threshold: float,
        repeat: int,
        judge: Mapping[str, object] | None = None,
        result: MatchResult | None = None,
        passed: bool = False,
        error: str = "",
        unread: str = "",
        undecided: int = 0,
        spoiled: bool = False,
    ) -> Outcome:
        """Run ``repeat``'s outcome: scored (``result``, ``passed``) or not (``error``), its
        output's source, recording and call taken from ``produced``."""
        # (an output read from a trace: a session that read none never loaded its reader)
        traces = sys.modules.get("pytest_jsonmatch.engine.reading.trace_spans")
        traced = traces is not None and isinstance(produced.output, traces.Trace)
        return cls(
            metric=metric,
            threshold=threshold,
            result=result,
            passed=passed,
            error=error,
            repeat=repeat,
            source=produced.source,
            recording=produced.recording,
            call=produced.call,
            judge=judge,
            unread=unread,
            undecided=undecided,
            input=produced.input,
            # the model's output (a live call's or a recording's); a case's own is in its file
            output=produced.output if produced.source != "case" else None,
            repeats=produced.repeats,
            spoiled=spoiled,
            trace=cast("Trace", produced.output) if traced else None,
        )

    def comparison(
        self,
        *,
        nodeid: str,
        seq: int,
        file: str,
        line: int | None,
        target: str,
        values: ValueMode | None,
        invalid_fails: bool,
    ) -> Comparison:
        """The record of this outcome: the ``seq``-th comparison of the test ``nodeid``,
        reported at ``file``:``line``, of the named ``target``'s output (empty: none); the
        fields of a scored one kept per ``values``, or none at all (None: a session that
        counts them as they are recorded, reporting/verdicts/field_counts.py). A call's figures are
        kept for a live or replayed output only. ``invalid_fails``: an answer that breaks
        its schema failed."""
        from ..reporting.run_model.comparisons import Comparison, Shown, case_id_of, decided_by

        where: _Where = {
            "case_id": case_id_of(nodeid, seq),
            "nodeid": nodeid,
            "threshold": self.threshold,
            "seq": seq,
            "repeat": self.repeat,
            "repeats": self.repeats,
            "file": file,
            "line": line,
            "source": self.source,
            "recording": self.recording,
            "call": self.call.to_dict()
            if self.call is not None and self.source != "case"
            else None,
            "judge": self.judge,
            "target": target,
            "shown": Shown.of(self.input, self.output, values),
            "trace": self._tree(values),
        }
        if self.result is None:
            return self._unscored(where)
        return Comparison.of_result(
            self.result,
            passed=self.passed,
            values=values,
            invalid_fails=invalid_fails,
            by=decided_by(self.result.fields) if values and values != "none" else None,
            **where,
        )

    def _tree(self, values: ValueMode | None) -> SpanTreeDict | None:
        """The span tree of an output read from a trace, marked with the rows of the steps
        its spans gave (none where it was not scored); None for any other output."""
        trace = self.trace
        if trace is None:
            return None
        from ..reporting.run_model.span_trees import kept_tree

        result = self.result
        return kept_tree(
            trace, result.fields if result else (), result.parts if result else (), values
        )

    def _unscored(self, where: _Where) -> Comparison:
        """The record of an outcome that could not be scored: an error, scoring 0 (or, where
        its simulated user spoiled it, ``simulator``: counted nowhere); an answer that could
        not be read is held invalid by its conformance."""
        from ..reporting.run_model.comparisons import (
            ERROR,
            SIMULATOR,
            Comparison,
            ReportedConformance,
        )

        unread = ReportedConformance((("", "(answer)", self.unread),), 1) if self.unread else None
        return Comparison(
            metric=self.metric,
            score=0.0,
            status=SIMULATOR if self.spoiled else ERROR,
            error=self.error,
            conformance=unread,
            undecided=self.undecided,
            **where,
        )
