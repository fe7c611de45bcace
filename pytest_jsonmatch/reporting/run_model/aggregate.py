"""A run's aggregates: per case, per metric, per field, overall.

Every comparison that was attempted counts. A comparison that could not be scored is an
``error`` with score 0; comparisons made in xfail-marked tests (``xfailed``, ``xpassed``)
are counted apart and left out of every aggregate, and so are conversations their simulated
user spoiled (``simulator``: neither the agent's pass nor its failure). A case repeated N times counts once, with
the mean of its runs; its per-field counts take every run.

Sums are exact (engine.results.ExactSum), so partial aggregates (xdist workers, worker
processes of the command line) merge in any order into the same numbers as one pass.
"""

from __future__ import annotations

import posixpath
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from itertools import chain
from operator import attrgetter
from typing import TYPE_CHECKING, Literal, Protocol

from ...engine.core.slotted import HashedSlotted, Slotted
from ...engine.results.field_results import (
    ExactSum,
    FieldAggregate,
    count_fields,
    field_tables,
)
from .comparisons import (
    ERROR,
    EXPECTED_TO_FAIL,
    FAILED,
    PASSED,
    SIMULATOR,
    UNCOUNTED,
    VIOLATIONS_KEPT,
    XFAILED,
)

if TYPE_CHECKING:
    from ...engine.results.field_results import (
        FieldResult,
        MatchResult,
        Tally,
    )
    from .comparisons import (
        Comparison,
        Status,
    )
    from .report_types import (
        CaseDict,
        CaseResultDict,
        MetricTallyDict,
        ValidShareDict,
    )
    from .reported_fields import ReportedField

RepeatRule = Literal["mean", "all", "majority"]
GroupBy = Literal["metric", "file", "folder"]
REPEAT_RULES: tuple[RepeatRule, ...] = ("mean", "all", "majority")
GROUP_BY: tuple[GroupBy, ...] = ("metric", "file", "folder")
SCORE_EPSILON = 1e-9  # float noise tolerated when a score meets its threshold


def case_passes(scores: Sequence[float], threshold: float, rule: str = "mean") -> bool:
    """Whether a case run len(scores) times passes: its mean score meets the threshold
    (``mean``), every run does (``all``), or more than half do (``majority``)."""
    limit = threshold - SCORE_EPSILON
    if len(scores) == 1:  # every rule reads one run alike
        return scores[0] >= limit
    if rule == "all":
        return all(score >= limit for score in scores)
    if rule == "majority":
        return sum(score >= limit for score in scores) * 2 > len(scores)
    total = ExactSum()
    for score in scores:
        total.add(score)
    return total.value / len(scores) >= limit


class CaseResult(HashedSlotted):
    """A case over all its runs (one run unless it repeats)."""

    __slots__ = (
        "case_id",
        "metric",
        "threshold",
        "status",
        "runs",
        "mean",
        "low",
        "high",
        "passed_runs",
        "precision",
        "recall",
        "f1",
        "file",
        "line",
        "error",
        "truncated",
        "checked",
        "valid",
        "violated",
        "target",
        "undecided",
        "quarantine",
    )

    def __init__(
        self,
        case_id: str,
        metric: str,
        threshold: float,
        status: Status,
        runs: int,
        mean: float,
        low: float,
        high: float,
        passed_runs: int,
        precision: float,
        recall: float,
        f1: float,
        file: str,
        line: int | None,
        error: str,
        truncated: int = 0,  # runs whose answer was cut off and scored closed (partial credit)
        checked: int = 0,  # runs whose answer was checked against a schema
        valid: int = 0,  # of them, the valid ones
        # the places (field path, keyword) each invalid run broke, each once per run
        violated: tuple[tuple[str, str], ...] = (),
        target: str = "",  # the named target whose outputs the runs scored
        undecided: int = 0,  # runs the judge left undecided (each an error: undecided_verdicts.py)
        quarantine: tuple[str, str] | None = None,  # (reason, until): quarantined, it gates nothing
    ) -> None:
        self.case_id, self.metric, self.threshold, self.status = case_id, metric, threshold, status
        self.runs, self.mean, self.low, self.high = runs, mean, low, high
        self.passed_runs, self.precision, self.recall, self.f1 = passed_runs, precision, recall, f1
        self.file, self.line, self.error = file, line, error
        self.truncated = truncated
        self.checked, self.valid, self.violated = checked, valid, violated
        self.target, self.undecided, self.quarantine = target, undecided, quarantine

    @property
    def counted(self) -> bool:
        return self.status not in UNCOUNTED and self.quarantine is None

    def to_dict(self) -> CaseResultDict:
        out: CaseResultDict = {
            "case_id": self.case_id,
            "metric": self.metric,
            "status": self.status.value,
            "threshold": self.threshold,
            "runs": self.runs,
            "mean_score": self.mean,
            "min_score": self.low,
            "max_score": self.high,
            "passed_runs": self.passed_runs,
            "precision": self.precision,
            "recall": self.recall,
            "f1": self.f1,
            "file": self.file,
            "line": self.line,
            "error": self.error,
        }
        if self.truncated:
            out["truncated"] = self.truncated
        if self.checked:
            out["conformance"] = {"checked": self.checked, "valid": self.valid}
        if self.target:
            out["target"] = self.target
        if self.undecided:
            out["undecided"] = self.undecided
        if self.quarantine is not None:
            from .comparisons import quarantine_dict

            out["quarantine"] = quarantine_dict(self.quarantine)
        return out


def listed_in_summary(case: CaseResult) -> bool:
    """Whether the text summary names ``case`` (reporting/render/text.py lists the cases run more
    than once, those that could not be scored and those scored from an answer cut off): a
    run whose only report is that summary keeps the report lines of these cases alone."""
    return (
        case.runs > 1
        or case.status in (ERROR, SIMULATOR)
        or case.truncated > 0
        or case.quarantine is not None
    )


def case_result(runs: Sequence[Comparison], rule: str = "mean") -> CaseResult:
    """One case from its runs: an error when a run could not be scored (a run the judge left
    undecided among them, whatever status it was saved with), xfailed/xpassed as its test
    was, failed when a run's answer broke its schema under ``invalid_fails`` or a field scored
    below its ``min_score`` (its test failed, whatever the score), else passed or failed by
    ``rule`` (see :func:`case_passes`)."""
    if ONE_RUN and len(runs) == 1:
        return _one_run(runs[0])
    if len(runs) > 1:
        runs = sorted(runs, key=lambda c: c.repeat)
    first = runs[0]
    scores = [c.score for c in runs]
    undecided = [c for c in runs if c.undecided]
    errors = [c.error for c in runs if c.status == ERROR or c.undecided]
    # an answer that could not be read carries a conformance too: it is not valid
    checked = [c.conformance for c in runs if c.conformance is not None]
    if first.status in EXPECTED_TO_FAIL:
        status = first.status
    elif any(c.status == SIMULATOR for c in runs):  # (its runs stopped there: none counts)
        status = SIMULATOR
    elif errors:
        status = ERROR
    elif any(c.fails for c in checked):  # an invalid answer failed its run, whatever its score
        status = FAILED
    elif any(c.floor_failures for c in runs):  # a field below its min_score failed its run
        status = FAILED
    elif len(runs) == 1 and first.status == FAILED:  # its test failed, whatever its score
        status = FAILED
    else:
        status = PASSED if case_passes(scores, first.threshold, rule) else FAILED
    return CaseResult(
        first.case_id,
        first.metric,
        first.threshold,
        status,
        len(runs),
        _mean(scores),
        min(scores),
        max(scores),
        sum(c.status == PASSED for c in runs),
        _mean([c.precision for c in runs]),
        _mean([c.recall for c in runs]),
        _mean([c.f1 for c in runs]),
        first.file,
        first.line,
        errors[0] if errors else "",
        sum(c.truncated is not None for c in runs),
        len(checked),
        sum(c.valid for c in checked),
        tuple(
            place for c in checked for place in dict.fromkeys((f, k) for _, f, k in c.violations)
        ),
        first.target,
        len(undecided),
        first.quarantine,
    )


# False: a case run once is built as a case of several runs is (the switch of this fast
# path: docs/architecture.md)
ONE_RUN = True


def _one_run(run: Comparison) -> CaseResult:
    """:func:`case_result` of a case run once (most cases): the same figures, each read
    from its one run, without the lists and sums over runs (a session's end builds one for
    every case; tests/reporting/test_one_run_case.py holds the two equal)."""
    error = run.status == ERROR or run.undecided
    checked = run.conformance
    if run.status in UNCOUNTED:
        status = run.status
    elif error:
        status = ERROR
    elif checked is not None and checked.fails:  # an invalid answer failed its run
        status = FAILED
    elif run.floor_failures or run.status == FAILED:  # (a field below its floor; its test)
        status = FAILED
    else:
        # (case_passes of one score: every rule reads one run alike)
        status = PASSED if run.score >= run.threshold - SCORE_EPSILON else FAILED
    return CaseResult(
        run.case_id,
        run.metric,
        run.threshold,
        status,
        1,
        run.score + 0.0,  # (the exact sum of one float: itself, 0.0 for -0.0)
        run.score,
        run.score,
        int(run.status == PASSED),
        run.precision + 0.0,
        run.recall + 0.0,
        run.f1 + 0.0,
        run.file,
        run.line,
        run.error if error else "",
        int(run.truncated is not None),
        int(checked is not None),
        int(checked.valid) if checked is not None else 0,
        tuple(dict.fromkeys((f, k) for _, f, k in checked.violations))
        if checked is not None
        else (),
        run.target,
        int(bool(run.undecided)),
        run.quarantine,
    )


def one_run_case(
    result: MatchResult,
    *,
    case_id: str,
    threshold: float,
    file: str,
    line: int | None,
    invalid_fails: bool,
) -> CaseResult:
    """The case of one scored run, as ``case_result([Comparison.of_result(result, ...)])``
    makes it (tests/reporting/test_one_run_case.py holds the two equal) without the
    comparison: a dataset run that keeps no comparison builds its cases this way."""
    score = float(result.score)
    checked = result.conformance
    if checked is not None and invalid_fails and not checked.valid:
        status = FAILED  # an invalid answer failed its run, whatever its score
    elif result.floor_failures:  # a field below its min_score failed its run
        status = FAILED
    else:
        status = PASSED if score >= threshold - SCORE_EPSILON else FAILED
    violated: tuple[tuple[str, str], ...] = ()
    if checked is not None and checked.violations:
        violated = tuple(
            dict.fromkeys((v.field_path, v.keyword) for v in checked.violations[:VIOLATIONS_KEPT])
        )
    return CaseResult(
        case_id,
        result.metric,
        threshold,
        status,
        1,
        score + 0.0,
        score,
        score,
        int(result.passed(threshold, invalid_fails)),
        float(result.precision) + 0.0,
        float(result.recall) + 0.0,
        float(result.f1) + 0.0,
        file,
        line,
        "",
        int(result.truncated is not None),
        int(checked is not None),
        int(checked is not None and checked.valid),
        violated,
        "",
        0,  # (a result with undecided fields is scored as an error: undecided_verdicts.py)
    )


def _mean(values: Sequence[float]) -> float:
    if len(values) == 1:  # what the exact sum of one float gives: itself (0.0 for -0.0)
        return values[0] + 0.0
    total, count = ExactSum(), 0
    for value in values:
        total.add(value)
        count += 1
    return total.value / count if count else 0.0


_MEANS = ("score", "precision", "recall", "f1")
_METRIC, _STATUS, _MEAN = attrgetter("metric"), attrgetter("status"), attrgetter("mean")
_CHECKED, _VALID, _VIOLATED = attrgetter("checked"), attrgetter("valid"), attrgetter("violated")
_UNDECIDED = attrgetter("undecided")
# what each of _MEANS sums of a case
_MEANS_OF_A_CASE = tuple(zip(_MEANS, map(attrgetter, ("mean", "precision", "recall", "f1"))))
VIOLATED_SHOWN = 10  # the places broken most that a metric's tally names


class MetricTally(Slotted):
    """Per metric, over counted cases: how many, how they ended, and exact sums of their
    mean score, precision, recall and F1."""

    __slots__ = (
        "cases",
        "passed",
        "failed",
        "errors",
        "sums",
        "checked",
        "valid",
        "violated",
        "undecided",
        "undecided_why",
    )

    cases: int
    passed: int
    failed: int
    errors: int
    sums: dict[str, ExactSum]
    # answers checked against a schema, the valid ones, and per (field path, keyword) how
    # many answers broke it
    checked: int
    valid: int
    violated: dict[tuple[str, str], int]
    # runs the judge left undecided, and the message of one of them (the least in sort
    # order: the same whichever order the tallies are merged in)
    undecided: int
    undecided_why: str

    def __init__(
        self,
        cases: int = 0,
        passed: int = 0,
        failed: int = 0,
        errors: int = 0,
        sums: dict[str, ExactSum] | None = None,
        checked: int = 0,
        valid: int = 0,
        violated: dict[tuple[str, str], int] | None = None,
        undecided: int = 0,
        undecided_why: str = "",
    ) -> None:
        self.cases, self.passed, self.failed, self.errors = cases, passed, failed, errors
        self.sums = {k: ExactSum() for k in _MEANS} if sums is None else sums
        self.checked, self.valid = checked, valid
        self.violated = {} if violated is None else violated
        self.undecided, self.undecided_why = undecided, undecided_why

    def add(self, case: CaseResult) -> None:
        self.add_all((case,))

    def add_all(self, cases: Sequence[CaseResult]) -> None:
        """Count ``cases``, a figure at a time (each count an integer, each sum exact: the
        same tally in any grouping)."""
        statuses = Counter(map(_STATUS, cases))
        passed, errors = statuses[PASSED], statuses[ERROR]
        self.cases += len(cases)
        self.passed += passed
        self.errors += errors
        self.failed += len(cases) - passed - errors
        self.checked += sum(map(_CHECKED, cases))
        self.valid += sum(map(_VALID, cases))
        if any(map(_UNDECIDED, cases)):
            for case in cases:
                if case.undecided:
                    self._undecided(case.undecided, case.error)
        if any(map(_VIOLATED, cases)):
            for case in cases:
                for place in case.violated:
                    self.violated[place] = self.violated.get(place, 0) + 1
        for name, read in _MEANS_OF_A_CASE:
            self.sums[name].extend(map(read, cases))

    def merge(self, other: MetricTally) -> None:
        """Add another tally of the same metric (associative and order-independent)."""
        self.cases += other.cases
        self.passed += other.passed
        self.failed += other.failed
        self.errors += other.errors
        for name in _MEANS:
            self.sums[name].merge(other.sums[name])
        self.checked += other.checked
        self.valid += other.valid
        if other.undecided:
            self._undecided(other.undecided, other.undecided_why)
        for place, answers in other.violated.items():
            self.violated[place] = self.violated.get(place, 0) + answers

    def _undecided(self, runs: int, why: str) -> None:
        """Count ``runs`` left undecided, one of them saying ``why``."""
        self.undecided += runs
        if why and (not self.undecided_why or why < self.undecided_why):
            self.undecided_why = why

    def mean(self, name: str) -> float:
        return self.sums[name].value / self.cases if self.cases else 1.0

    @property
    def valid_share(self) -> float | None:
        """The share of checked answers valid against their schema (None: none checked)."""
        return self.valid / self.checked if self.checked else None

    def conformance(self) -> ValidShareDict:
        """The valid share, and the places broken most (most answers first, then by path)."""
        most = sorted(self.violated.items(), key=lambda kv: (-kv[1], kv[0]))[:VIOLATED_SHOWN]
        return {
            "checked": self.checked,
            "valid": self.valid,
            "share": self.valid / self.checked if self.checked else 1.0,
            "violated": [
                {"field_path": path, "keyword": keyword, "answers": answers}
                for (path, keyword), answers in most
            ],
        }

    def to_dict(self) -> MetricTallyDict:
        out: MetricTallyDict = {
            "count": self.cases,
            "passed": self.passed,
            "failed": self.failed,
            "errors": self.errors,
            "mean_score": self.mean("score"),
            "precision": self.mean("precision"),
            "recall": self.mean("recall"),
            "f1": self.mean("f1"),
        }
        if self.checked:
            out["conformance"] = self.conformance()
        if self.undecided:
            out["undecided"] = self.undecided
        return out


class Summary(Slotted):
    """A run's aggregates (see the module docstring)."""

    __slots__ = (
        "cases",
        "metrics",
        "fields",
        "groups",
        "group_by",
        "overall",
        "xfailed",
        "xpassed",
        "spoiled",
    )

    cases: dict[str, CaseResult]
    metrics: dict[str, MetricTally]
    fields: dict[str, FieldAggregate]
    groups: dict[str, dict[str, FieldAggregate]]
    group_by: str
    overall: float | None
    xfailed: int
    xpassed: int
    spoiled: int  # conversations their simulated user spoiled (counted nowhere else)

    def __init__(
        self,
        cases: dict[str, CaseResult],
        metrics: dict[str, MetricTally],
        fields: dict[str, FieldAggregate],
        groups: dict[str, dict[str, FieldAggregate]],
        group_by: str,
        overall: float | None,
        xfailed: int,
        xpassed: int,
        spoiled: int = 0,
    ) -> None:
        self.cases, self.metrics = cases, metrics
        self.fields, self.groups, self.group_by = fields, groups, group_by
        self.overall, self.xfailed, self.xpassed = overall, xfailed, xpassed
        self.spoiled = spoiled

    @property
    def count(self) -> int:
        """Cases counted in the aggregates."""
        return sum(m.cases for m in self.metrics.values())

    @property
    def errors(self) -> int:
        return sum(m.errors for m in self.metrics.values())

    @property
    def undecided(self) -> int:
        """Counted runs the judge left undecided: no gate passes while there is one."""
        return sum(m.undecided for m in self.metrics.values())

    @property
    def undecided_why(self) -> str:
        """The message of one run the judge left undecided (empty: none was)."""
        return min((m.undecided_why for m in self.metrics.values() if m.undecided_why), default="")


class Aggregates:
    """The mergeable part of a run's aggregates: per metric, per field, per group, overall,
    and the xfail-marked cases set apart. Built case by case (:meth:`add_case`) and combined
    with :meth:`merge`, which is associative and order-independent (every sum is exact and
    every count an integer): partial aggregates of any split of a run, made by xdist
    workers, worker processes or a cluster, merge into the numbers of one pass."""

    __slots__ = ("group_by", "metrics", "overall", "groups", "xfailed", "xpassed", "spoiled")

    def __init__(self, group_by: str = "metric") -> None:
        self.group_by = group_by
        self.metrics: dict[str, MetricTally] = {}
        self.overall = ExactSum()
        # per group, per field: each case's fields are counted once, in its group's table
        self.groups: dict[str, dict[str, FieldAggregate]] = {}
        self.xfailed = 0
        self.xpassed = 0
        self.spoiled = 0  # conversations their simulated user spoiled

    @property
    def count(self) -> int:
        """Cases counted in the aggregates."""
        return sum(m.cases for m in self.metrics.values())

    @property
    def fields(self) -> dict[str, FieldAggregate]:
        """Per field over every counted case: the groups' tables merged (a new dict of new
        aggregates). Every case is in exactly one group, so this is each field counted once."""
        out: dict[str, FieldAggregate] = {}
        for fields in self.groups.values():
            _merge_fields(out, fields)
        return out

    def add_case(self, case: CaseResult, runs: Iterable[Comparison]) -> None:
        """Count one case (its CaseResult and the comparisons it was made of)."""
        self.add_case_fields(case, [record for run in runs for record in run.fields])

    def add_case_fields(
        self, case: CaseResult, fields: Iterable[ReportedField] | Iterable[FieldResult]
    ) -> None:
        """Count one case, given the fields of its runs: recorded fields, or the engine's
        FieldResults (anything with ``field_path``, ``status`` and ``score``)."""
        self.add_cases([(case, fields)])

    def add_cases(
        self, cases: Iterable[tuple[CaseResult, Iterable[ReportedField] | Iterable[FieldResult]]]
    ) -> None:
        """Count cases, each given with the fields of its runs (see :meth:`add_case_fields`);
        the fields of a group's cases are counted in one pass (as many as one at a time
        count, in the same order: a path's first field first)."""
        grouped: dict[str, list[Iterable[ReportedField] | Iterable[FieldResult]]] = {}
        for case, fields in cases:
            if self._count(case):
                grouped.setdefault(group_key(case, self.group_by), []).append(fields)
        for key, parts in grouped.items():
            # (the engine's root field is "" where a record's is "$"; a skipped field's path
            # is listed, with nothing counted)
            count_fields(
                self.groups.setdefault(key, {}), chain.from_iterable(parts), skipped_too=True
            )

    def add_tallied_cases(self, cases: Sequence[CaseResult], tallies: Mapping[Tally, int]) -> None:
        """Count cases of one group whose fields were counted together, in order, by (field
        path, status, score) (the engine's ``count_records``): the same aggregates as
        :meth:`add_cases` with their fields. ValueError when the cases fall in several
        groups (their fields cannot be told apart)."""
        keys = {group_key(case, self.group_by) for case in cases if case.counted}
        if len(keys) > 1:
            raise ValueError(f"the tallied cases fall in several groups: {sorted(keys)}")
        if self._count_all(cases):
            field_tables(tallies, self.groups.setdefault(keys.pop(), {}), skipped_too=True)

    def _count_all(self, cases: Sequence[CaseResult]) -> bool:
        """``_count`` of each case, a figure at a time where they are all counted and of one
        metric (a dataset's chunk); whether any was counted."""
        metrics = set(map(_METRIC, cases))
        if len(metrics) != 1 or not all(case.counted for case in cases):
            return any([self._count(case) for case in cases])  # noqa: C419 (each case counted)
        (metric,) = metrics
        tally = self.metrics.get(metric)
        if tally is None:
            tally = self.metrics[metric] = MetricTally()
        tally.add_all(cases)
        self.overall.extend(map(_MEAN, cases))
        return True

    def _count_each(self, cases: Iterable[CaseResult]) -> None:
        """``_count`` of each case, with the table of each counted one's group made (for its
        fields counted apart): the counted cases' figures added a metric at a time
        (``MetricTally.add_all``), the same integers and exact sums as one at a time."""
        by_metric: dict[str, list[CaseResult]] = {}
        for case in cases:
            if case.counted:
                by_metric.setdefault(case.metric, []).append(case)
                self.groups.setdefault(group_key(case, self.group_by), {})
            else:
                self._count(case)
        for metric, mine in by_metric.items():
            tally = self.metrics.get(metric)
            if tally is None:
                tally = self.metrics[metric] = MetricTally()
            tally.add_all(mine)
            self.overall.extend(map(_MEAN, mine))

    def _count(self, case: CaseResult) -> bool:
        """Count a case but its fields; False for an xfail-marked one (counted apart) or a
        quarantined one (listed, counted nowhere)."""
        if not case.counted:
            if case.quarantine is not None:
                return False
            if case.status == SIMULATOR:
                self.spoiled += 1
            elif case.status == XFAILED:
                self.xfailed += 1
            else:
                self.xpassed += 1
            return False
        tally = self.metrics.get(case.metric)
        if tally is None:
            tally = self.metrics[case.metric] = MetricTally()
        tally.add(case)
        self.overall.add(case.mean)
        return True

    def merge(self, other: Aggregates) -> Aggregates:
        """Add ``other`` (of the same ``group_by``) into this one; returns self."""
        if other.group_by != self.group_by:
            raise ValueError(
                f"cannot merge aggregates grouped by {other.group_by!r} into "
                f"aggregates grouped by {self.group_by!r}"
            )
        for name, tally in other.metrics.items():
            mine = self.metrics.get(name)
            if mine is None:
                mine = self.metrics[name] = MetricTally()
            mine.merge(tally)
        self.overall.merge(other.overall)
        for key, fields in other.groups.items():
            _merge_fields(self.groups.setdefault(key, {}), fields)
        self.xfailed += other.xfailed
        self.xpassed += other.xpassed
        self.spoiled += other.spoiled
        return self

    @classmethod
    def merged(cls, parts: Iterable[Aggregates], group_by: str = "metric") -> Aggregates:
        """One aggregate of many parts (a new object; the parts are left as they were)."""
        total = cls(group_by)
        for part in parts:
            total.merge(part)
        return total

    def summary(self, cases: Mapping[str, CaseResult] | None = None) -> Summary:
        """These aggregates as a Summary (dicts sorted by key), with ``cases`` by id (a run
        streamed case by case keeps none: pass nothing)."""
        counted = self.count
        fields = self.fields
        return Summary(
            dict(cases or {}),
            {k: self.metrics[k] for k in sorted(self.metrics)},
            {k: fields[k] for k in sorted(fields)},
            {
                key: {k: value[k] for k in sorted(value)}
                for key, value in sorted(self.groups.items())
            },
            self.group_by,
            self.overall.value / counted if counted else None,
            self.xfailed,
            self.xpassed,
            self.spoiled,
        )


def _merge_fields(into: dict[str, FieldAggregate], other: Mapping[str, FieldAggregate]) -> None:
    for path, aggregate in other.items():
        mine = into.get(path)
        if mine is None:
            mine = into[path] = FieldAggregate()
        mine.merge(aggregate)


def case_aggregates(
    case: CaseResult, runs: Iterable[Comparison], group_by: str = "metric"
) -> Aggregates:
    """The aggregates of one case: the unit every run's aggregates are merged from."""
    part = Aggregates(group_by)
    part.add_case(case, runs)
    return part


def summarize(
    comparisons: Iterable[Comparison],
    group_by: str = "metric",
    repeat_rule: str = "mean",
    counted: Mapping[str, Mapping[Tally, int]] | None = None,
    keep: Callable[[CaseResult], bool] | None = None,
) -> Summary:
    """Aggregate a run's comparisons (see the module docstring): each case counted into one
    Aggregates (the same numbers as each case's aggregates merged, without a part per case).

    With ``counted``, the comparisons keep no field records: their fields were counted as
    they were recorded, per group by (field path, status, score) (field_counts.py), each
    into the table of its own group, when it counted. A case's runs share its metric, file and target (one test made them) and its
    test's outcome, so this is the case's group, counted or not: a case whose runs differ in
    either is a ValueError, since its fields cannot be told apart. ``keep`` says which cases
    the summary keeps (None: all of them)."""
    by_case: dict[str, list[Comparison]] = {}
    for comparison in comparisons:
        by_case.setdefault(comparison.case_id, []).append(comparison)
    total = Aggregates(group_by)
    kept: dict[str, CaseResult] = {}
    cases: list[CaseResult] = []  # (with counts: counted below, a metric at a time)
    for case_id in sorted(by_case):
        runs = by_case[case_id]
        case = case_result(runs, repeat_rule)
        if keep is None or keep(case):
            kept[case_id] = case
        if counted is None:
            total.add_case(case, runs)
            continue
        if len(runs) > 1:
            _check_counted(case, runs, group_by)
        cases.append(case)
    total._count_each(cases)
    for key, tallies in (counted or {}).items():  # (a field only ever skipped: listed)
        field_tables(tallies, total.groups.setdefault(key, {}), skipped_too=True)
    return total.summary(kept)


def _check_counted(case: CaseResult, runs: Iterable[Comparison], group_by: str) -> None:
    """ValueError unless every run of ``case`` was counted as the case is (see summarize)."""
    key = group_key(case, group_by)
    for run in runs:
        if run.counted != case.counted or group_key(run, group_by) != key:
            raise ValueError(
                f"the runs of case {case.case_id!r} fall in several per-field "
                f"tables, or count and do not: their fields cannot be counted "
                f"as they are recorded"
            )


if TYPE_CHECKING:  # (for type checkers: made at run time, a Protocol is a class built by typing)

    class Grouped(Protocol):
        """What a case's group is read from: a CaseResult, or one of its comparisons."""

        @property
        def metric(self) -> str: ...
        @property
        def file(self) -> str: ...
        @property
        def target(self) -> str: ...


def group_key(case: Grouped, group_by: str) -> str:
    """The group a case's fields are tabled under: its metric, its file, or its folder; with
    its target's name after it (``field_f1 [cheap]``) when a named target made its output."""
    if group_by == "file":
        key = case.file or "(no file)"
    elif group_by == "folder":
        key = posixpath.dirname(case.file) or "."
    else:
        key = case.metric
    return f"{key} [{case.target}]" if case.target else key


def case_dict(case: CaseResult, group_by: str) -> CaseDict:
    """A case as the report lists it."""
    return {**case.to_dict(), "group": group_key(case, group_by)}
