"""What is recorded of each comparison: plain data that crosses the xdist wire and fills the
JSON report.

A comparison belongs to a case. Its ``case_id`` is stable across runs and machines: the test's
node id (for a golden case, the case file's path from the root dir and ``::case-id``), with
``#k`` appended for the k-th further comparison a test makes (``test_x.py::test_y#1``). A case
repeated N times is N comparisons with one case id and repeat indices 0..N-1.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping, Sequence
from enum import Enum
from typing import TYPE_CHECKING, Literal, Protocol, cast

from ...engine.core.errors import shown
from ...engine.core.slotted import HashedSlotted
from ...engine.core.values import MISSING
from ...engine.results.field_results import (
    BATCH_ERROR,
    HALLUCINATION,
    PartScore,
)
from .reported_fields import ReportedField
from .shown_values import NOTHING_SHOWN
from .shown_values import Shown as Shown  # (a comparison's; its importers take it from here)

if TYPE_CHECKING:
    from ...engine.results.field_results import (
        FieldResult,
        MatchResult,
        PartName,
    )
    from .report_types import (
        CallDict,
        ComparisonDict,
        ConformanceDict,
        FieldDict,
        JSONValue,
        JudgeDict,
        PartDict,
        QuarantineDict,
        SpanTreeDict,
    )

# Where a comparison's output came from: given in the case (actual, actual_file), a live call
# of the target, or a replayed recording.
SOURCES = ("case", "live", "replayed")


class Status(str, Enum):
    """How a comparison (or a case) ended. Each member is its value, a plain string, to
    everything that writes it: ``str``, ``format`` and f-strings give the value, as does
    ``json.dumps`` (a ``str`` subclass), so every rendering reads as it would with the
    string alone. (``enum.StrEnum`` behaves so, but needs Python 3.11; 3.10 is supported.)"""

    PASSED = "passed"
    FAILED = "failed"
    ERROR = "error"
    XFAILED = "xfailed"
    XPASSED = "xpassed"
    SIMULATOR = "simulator"  # a conversation its simulated user spoiled: not the agent's verdict

    def __str__(self) -> str:
        return self.value

    def __format__(self, spec: str) -> str:
        return self.value.__format__(spec)


PASSED, FAILED, ERROR = Status.PASSED, Status.FAILED, Status.ERROR
XFAILED, XPASSED = Status.XFAILED, Status.XPASSED
SIMULATOR = Status.SIMULATOR


if TYPE_CHECKING:  # (for type checkers: made at run time, a Protocol is a class built by typing)

    class TestOutcome(Protocol):
        """What a comparison's status depends on in the report of the test phase it was made in
        (pytest's ``TestReport``; an xfail-marked test's has ``wasxfail`` too)."""

        @property
        def when(self) -> str | None: ...
        @property
        def passed(self) -> bool: ...
        @property
        def failed(self) -> bool: ...
        @property
        def longrepr(self) -> object: ...


STATUSES = tuple(Status)
# Comparisons made in xfail-marked tests are reported apart, outside every aggregate.
EXPECTED_TO_FAIL = frozenset({XFAILED, XPASSED})
# ...and so are conversations a simulated user spoiled (engine/agents/simulated_user.py):
# neither the agent's pass nor its failure. These two are what no aggregate counts.
UNCOUNTED = EXPECTED_TO_FAIL | {SIMULATOR}

# How much of the expected and actual values a report keeps: ``short`` cuts each to
# VALUE_LIMIT characters of compact JSON, ``full`` keeps them whole, ``none`` leaves them out.
ValueMode = Literal["short", "full", "none"]
VALUE_MODES: tuple[ValueMode, ...] = ("short", "full", "none")
VALUE_LIMIT = 200


# How many of an answer's schema violations a comparison keeps (all are counted).
VIOLATIONS_KEPT = 20


class ReportedConformance(HashedSlotted):
    """Whether a comparison's answer was valid against its schema, as recorded: its first
    VIOLATIONS_KEPT violations as (path, field path, keyword), how many it had (``total``), and whether
    the invalid answer failed the comparison (the setting that makes invalid answers fail)."""

    __slots__ = ("violations", "total", "fails")

    def __init__(
        self,
        violations: tuple[tuple[str, str, str], ...] = (),
        total: int = 0,
        fails: bool = False,
    ) -> None:
        self.violations, self.total, self.fails = violations, total, fails

    @property
    def valid(self) -> bool:
        return self.total == 0

    def to_dict(self) -> ConformanceDict:
        out: ConformanceDict = {
            "valid": self.valid,
            "count": self.total,
            "violations": [
                {"path": p, "field_path": f, "keyword": k} for p, f, k in self.violations
            ],
        }
        if self.fails:
            out["fails"] = True
        return out

    @classmethod
    def from_dict(cls, data: ConformanceDict) -> ReportedConformance:
        return cls(
            tuple(
                (str(v["path"]), str(v["field_path"]), str(v["keyword"]))
                for v in data["violations"]
            ),
            int(data["count"]),
            bool(data.get("fails", False)),
        )


def pair_id(case_id: str, target: str) -> str:
    """``case_id`` without the ``[target]`` a named target's test id holds (its last)."""
    suffix = f"[{target}]"
    if target and suffix in case_id:
        at = case_id.rindex(suffix)
        return case_id[:at] + case_id[at + len(suffix) :]
    return case_id


def case_id_of(nodeid: str, seq: int) -> str:
    """The stable id of a test's ``seq``-th comparison (0-based)."""
    return nodeid if seq == 0 else f"{nodeid}#{seq}"


# the start of a comparison's ``recording`` when its output was scored but not recorded
NOT_RECORDED = "not recorded: "


class Comparison(HashedSlotted):
    """One recorded comparison (see the module docstring for ``case_id``), built by keyword
    only: most of its fields are numbers or strings a call by position could swap unseen."""

    __slots__ = (
        "case_id",
        "nodeid",
        "metric",
        "score",
        "threshold",
        "status",
        "precision",
        "recall",
        "f1",
        "seq",
        "repeat",
        "error",
        "file",
        "line",
        "fields",
        "pairings",
        "floor_failures",
        "field_rules",
        "source",
        "recording",
        "call",
        "judge",
        "truncated",
        "conformance",
        "target",
        "undecided",
        "quarantine",
        "shown",
        "by",
        "parts",
        "repeats",
        "trace",
    )
    _unhashed = frozenset({"call", "judge", "by", "trace"})  # mappings: equal or not, never hashed

    case_id: str
    nodeid: str
    metric: str
    score: float
    threshold: float
    status: Status
    precision: float
    recall: float
    f1: float
    seq: int
    repeat: int
    error: str
    file: str  # the case file or test module, from the root dir
    line: int | None  # 1-based, where the case starts (golden cases)
    fields: tuple[ReportedField, ...]
    pairings: tuple[tuple[str, int, int, float], ...]
    floor_failures: tuple[tuple[str, float, float], ...]
    # the fields that count for other than 1 or scored below their floor, each (its index
    # in ``fields``, its weight, the floor it scored below or None): kept apart from
    # ``fields``, because most comparisons have none (:func:`field_rules`)
    field_rules: tuple[FieldRule, ...]
    source: str  # where the output came from: the case itself, a live call, a replay
    # "recorded", or "stale" (re-recorded), when this run wrote a recording; "not recorded:
    # WHY" when the output was scored but could not be kept as one (NOT_RECORDED)
    recording: str
    # what the target's call took: latency_s, attempts, input_tokens, output_tokens, cost,
    # failed (None: no call; for a replayed output, the recorded call's figures)
    call: Mapping[str, object] | None
    # what the LLM judge did for this comparison: requests, attempts, items sent, equal,
    # reused, not judged, tokens, cost, latency (None: no field was judged)
    judge: Mapping[str, object] | None
    # where the answer was cut off, (line, column, chars), when it was scored closed for
    # partial credit (the ``truncated: close`` option); None for a whole answer
    truncated: tuple[int, int, int] | None
    # whether the answer was valid against the comparison's schema (None: no schema given)
    conformance: ReportedConformance | None
    # the named target that made the output (empty: the session's one target, or none); a
    # case's comparisons under two targets are the same case id but its ``[target]`` suffix
    target: str
    # fields the judge (a batch comparator) left undecided: such a comparison is an error,
    # scored 0, and no gate passes while any comparison of a run is undecided (gates.py)
    undecided: int
    # (reason, until YYYY-MM-DD) of a quarantined case (reporting/verdicts/quarantine.py): it is
    # reported, but counts in no aggregate and no gate; None: not quarantined
    quarantine: tuple[str, str] | None
    # the case's input and the output, as a reviewer reads them beside the fields
    shown: Shown
    # who decided the fields that neither a rule (a missing or extra field: comparator "")
    # nor plain equality ("exact") did: comparator name -> the indexes of its fields (None:
    # not recorded, as in a dataset's report)
    by: Mapping[str, tuple[int, ...]] | None
    parts: tuple[PartScore, ...]  # an agent's reply's or run's: a merge rescores it by them
    repeats: int | None  # the runs its case was asked for, where it repeats (None: once)
    # the span tree of a run read from a trace (span_trees.py; None: the output was no trace)
    trace: SpanTreeDict | None

    def __init__(
        self,
        *,
        case_id: str,
        nodeid: str,
        metric: str,
        score: float,
        threshold: float,
        status: Status,
        precision: float = 0.0,
        recall: float = 0.0,
        f1: float = 0.0,
        seq: int = 0,
        repeat: int = 0,
        error: str = "",
        file: str = "",
        line: int | None = None,
        fields: tuple[ReportedField, ...] = (),
        pairings: tuple[tuple[str, int, int, float], ...] = (),
        floor_failures: tuple[tuple[str, float, float], ...] = (),
        field_rules: tuple[FieldRule, ...] = (),
        source: str = "case",
        recording: str = "",
        call: Mapping[str, object] | None = None,
        judge: Mapping[str, object] | None = None,
        truncated: tuple[int, int, int] | None = None,
        conformance: ReportedConformance | None = None,
        target: str = "",
        undecided: int = 0,
        quarantine: tuple[str, str] | None = None,
        shown: Shown = NOTHING_SHOWN,
        by: Mapping[str, tuple[int, ...]] | None = None,
        parts: tuple[PartScore, ...] = (),
        repeats: int | None = None,
        trace: SpanTreeDict | None = None,
    ) -> None:
        self.case_id, self.nodeid, self.metric = case_id, nodeid, metric
        self.score, self.threshold, self.status = score, threshold, status
        self.precision, self.recall, self.f1 = precision, recall, f1
        self.seq, self.repeat, self.error = seq, repeat, error
        self.file, self.line = file, line
        self.fields, self.pairings = fields, pairings
        self.floor_failures, self.field_rules = floor_failures, field_rules
        self.source, self.recording, self.call, self.judge = source, recording, call, judge
        self.truncated, self.conformance = truncated, conformance
        self.target, self.undecided, self.quarantine = target, undecided, quarantine
        self.shown, self.by = shown, by
        self.parts, self.repeats = parts, repeats
        self.trace = trace

    @property
    def pair_id(self) -> str:
        """The case id without its target's ``[name]``: what pairs one target's comparison of
        a case with another's."""
        return pair_id(self.case_id, self.target)

    @property
    def counted(self) -> bool:
        """Whether the comparison counts in aggregates and gates (not an xfail test's, not a
        conversation its simulated user spoiled, not a quarantined case's)."""
        return self.status not in UNCOUNTED and self.quarantine is None

    @classmethod
    def of_result(
        cls,
        result: MatchResult,
        *,
        case_id: str,
        nodeid: str,
        threshold: float,
        passed: bool,
        values: ValueMode | None,
        seq: int = 0,
        repeat: int = 0,
        file: str = "",
        line: int | None = None,
        source: str = "case",
        recording: str = "",
        call: Mapping[str, object] | None = None,
        target: str = "",
        invalid_fails: bool = False,
        judge: Mapping[str, object] | None = None,
        shown: Shown = NOTHING_SHOWN,
        by: Mapping[str, tuple[int, ...]] | None = None,
        repeats: int | None = None,
        trace: SpanTreeDict | None = None,
    ) -> Comparison:
        """The record of a scored comparison; its fields' values kept per ``values`` (None:
        no field kept, for a run that reports none). ``invalid_fails``: an answer that breaks
        its schema failed the comparison."""
        return cls(
            case_id=case_id,
            nodeid=nodeid,
            metric=result.metric,
            score=float(result.score),
            threshold=threshold,
            status=PASSED if passed else FAILED,
            precision=float(result.precision),
            recall=float(result.recall),
            f1=float(result.f1),
            seq=seq,
            repeat=repeat,
            file=file,
            line=line,
            source=source,
            recording=recording,
            call=call,
            judge=judge,
            target=target,
            shown=shown,
            by=by,
            parts=result.parts,
            repeats=repeats,
            trace=trace,
            fields=reported_fields(result.fields, values, MISSING) if values else (),
            field_rules=field_rules(
                result.fields, {f.path or "$": f.min_score for f in result.floor_failures}
            )
            if values
            else (),
            pairings=tuple(
                (p.path, p.expected_index, p.actual_index, float(p.score)) for p in result.pairings
            ),
            floor_failures=tuple(
                (f.path or "$", float(f.min_score), float(f.score)) for f in result.floor_failures
            ),
            truncated=None
            if (cut := result.truncated) is None
            else (cut.line, cut.column, cut.chars),
            conformance=None
            if (c := result.conformance) is None
            else ReportedConformance(
                tuple((v.path, v.field_path, v.keyword) for v in c.violations[:VIOLATIONS_KEPT]),
                c.total,
                invalid_fails and not c.valid,
            ),
        )

    def with_status(self, status: Status) -> Comparison:
        return self.replace(status=status)

    def with_test_outcome(self, report: TestOutcome) -> Comparison:
        """A comparison in an xfail-marked test takes the test's outcome; one that failed in a
        test function that passed was expected to (the test caught it: ``pytest.raises``); a
        golden case of one run failed by more than its score (a strict path typo) fails."""
        if report.when != "call":
            return self
        if hasattr(report, "wasxfail"):
            return self.with_status(XPASSED if report.passed else XFAILED)
        if report.failed and str(report.longrepr).startswith("[XPASS(strict)]"):
            return self.with_status(XPASSED)
        python = self.file.endswith(".py")
        if report.failed and self.status is PASSED and not python and self.repeats is None:
            return self.with_status(FAILED)
        if report.passed and python and self.status in (FAILED, ERROR):
            return self.with_status(XFAILED)
        return self

    def to_dict(self) -> ComparisonDict:
        out: ComparisonDict = {
            "case_id": self.case_id,
            "nodeid": self.nodeid,
            "seq": self.seq,
            "repeat": self.repeat,
            "metric": self.metric,
            "status": self.status.value,
            "score": self.score,
            "threshold": self.threshold,
            "precision": self.precision,
            "recall": self.recall,
            "f1": self.f1,
            "error": self.error,
            "file": self.file,
            "line": self.line,
            "fields": _ruled([_field_dict(f) for f in self.fields], self.field_rules),
            "pairings": [
                {"path": p, "expected_index": i, "actual_index": j, "score": s}
                for p, i, j, s in self.pairings
            ],
            "floor_failures": [
                {"path": p, "min_score": m, "score": s} for p, m, s in self.floor_failures
            ],
            "source": self.source,
            "recording": self.recording,
        }
        if self.call is not None:
            # the figures as the caller measured them (plugin/runner.py's CallFigures)
            out["call"] = cast("CallDict", dict(self.call))
        if self.judge is not None:
            out["judge"] = cast("JudgeDict", dict(self.judge))
        if self.truncated is not None:
            line, column, chars = self.truncated
            out["truncated"] = {"line": line, "column": column, "chars": chars}
        if self.target:
            out["target"] = self.target
        if self.conformance is not None:
            out["conformance"] = self.conformance.to_dict()
        if self.undecided:
            out["undecided"] = self.undecided
        if self.quarantine is not None:
            out["quarantine"] = quarantine_dict(self.quarantine)
        if self.by is not None:
            out["by"] = {name: list(indexes) for name, indexes in self.by.items()}
        _write_runs_and_parts(self, out)
        self.shown.write(out)
        return out

    @classmethod
    def from_dict(cls, data: ComparisonDict) -> Comparison:
        """A comparison from a report's entry (or its wire form under xdist); an unknown
        status is a ValueError."""
        return cls(
            case_id=str(data["case_id"]),
            nodeid=str(data["nodeid"]),
            metric=str(data["metric"]),
            score=float(data["score"]),
            threshold=float(data["threshold"]),
            status=Status(data["status"]),
            precision=float(data.get("precision", 0.0)),
            recall=float(data.get("recall", 0.0)),
            f1=float(data.get("f1", 0.0)),
            seq=int(data.get("seq", 0)),
            repeat=int(data.get("repeat", 0)),
            error=str(data.get("error", "")),
            file=str(data.get("file", "")),
            line=data.get("line"),
            fields=tuple(_field_record(f) for f in data.get("fields", ())),
            field_rules=_rules_of_dicts(data.get("fields", ())),
            pairings=tuple(
                (p["path"], int(p["expected_index"]), int(p["actual_index"]), float(p["score"]))
                for p in data.get("pairings", ())
            ),
            floor_failures=tuple(
                (f["path"], float(f["min_score"]), float(f["score"]))
                for f in data.get("floor_failures", ())
            ),
            source=str(data.get("source", "case")),
            recording=str(data.get("recording", "")),
            call=dict(call) if isinstance(call := data.get("call"), Mapping) else None,
            judge=dict(judge) if isinstance(judge := data.get("judge"), Mapping) else None,
            truncated=None
            if (cut := data.get("truncated")) is None
            else (int(cut["line"]), int(cut["column"]), int(cut["chars"])),
            conformance=None
            if (conf := data.get("conformance")) is None
            else ReportedConformance.from_dict(conf),
            target=str(data.get("target", "")),
            undecided=undecided_of(data),
            quarantine=quarantine_of(data.get("quarantine")),
            by=None
            if (by := data.get("by")) is None
            else {str(name): tuple(map(int, at)) for name, at in by.items()},
            shown=Shown.read(data),
            parts=parts_of(data),
            repeats=None if (k := data.get("repeats")) is None else int(k),
            trace=data.get("trace"),
        )


def _write_runs_and_parts(comparison: Comparison, out: ComparisonDict) -> None:
    """What a comparison records, where it has them, of its case's runs (``repeats``) and
    of its parts (an agent's reply or run): the merge of shards' reports counts and
    rescores by them (reporting/verdicts/shard_checks.py)."""
    if comparison.parts:
        out["parts"] = [_part_dict(p) for p in comparison.parts]
    if comparison.repeats is not None:
        out["repeats"] = comparison.repeats
    if comparison.trace is not None:
        out["trace"] = comparison.trace


def _part_dict(part: PartScore) -> PartDict:
    """A part as a report writes it, its turn where it is a conversation turn's."""
    out: PartDict = {
        "name": part.name,
        "metric": part.metric,
        "rows": part.rows,
        "score": part.score,
    }
    if part.turn is not None:
        out["turn"] = part.turn
    return out


def parts_of(data: ComparisonDict) -> tuple[PartScore, ...]:
    """A report's parts of a comparison read back (none: ()). A report written before parts
    were named names each by what scored it and where it stands: ``tool_calls``' part is
    the calls, ``trajectory``'s the trajectory, a part of any other metric the answer where
    it comes first and the end state after (a run scored by its end state alone, one part,
    reads as its answer: such a report does not say which it was)."""
    return tuple(
        PartScore(
            p.get("name") or _UNNAMED.get(str(p["metric"]), "state" if k else "answer"),
            str(p["metric"]),
            int(p["rows"]),
            float(p["score"]),
            None if (turn := p.get("turn")) is None else int(turn),
        )
        for k, p in enumerate(data.get("parts", ()))
    )


# the part a metric that scores one part of an agent's output and no other scores
_UNNAMED: dict[str, PartName] = {"tool_calls": "calls", "trajectory": "trajectory"}


def trajectory_rows(metric: str, parts: Sequence[PartScore], rows: int) -> range:
    """The rows (of ``rows``) a trajectory scored: every row of a comparison the
    ``trajectory`` metric made alone, or those of its trajectory part, read from its parts
    (each part's rows follow those of the parts before it); none (an empty range) where it
    has no such part, or where the rows are not the parts' (a report that keeps no fields)."""
    if not parts:
        return range(rows if metric == "trajectory" else 0)
    start = 0
    for part in parts if sum(part.rows for part in parts) == rows else ():
        if part.name == "trajectory":
            return range(start, start + part.rows)
        start += part.rows
    return range(0)


def quarantine_dict(mark: tuple[str, str]) -> QuarantineDict:
    """A quarantine's (reason, until) as a report writes it."""
    return {"reason": mark[0], "until": mark[1]}


def quarantine_of(data: QuarantineDict | None) -> tuple[str, str] | None:
    """A report's quarantine read back (None: not quarantined)."""
    return None if data is None else (str(data["reason"]), str(data["until"]))


FieldRule = tuple[int, float, "float | None"]  # (index in fields, weight, floor failed)


def field_rules(
    fields: Sequence[FieldResult], floors: Mapping[str, float]
) -> tuple[FieldRule, ...]:
    """Each field that counts for other than 1 (its ``weight``) or scored below a floor of
    ``floors`` (by path; a hallucinated field has none, its path being the actual side's):
    (its index, weight, floor or None). What a report's rows record beside their values,
    so that a merge re-derives a comparison's figures and status from them."""
    out: list[FieldRule] = []
    for i, f in enumerate(fields):
        floor = floors.get(f[0] or "$") if floors and f[1] != HALLUCINATION else None
        if f[9] != 1.0 or floor is not None:
            out.append((i, float(f[9]), floor))
    return tuple(out)


def _ruled(fields: list[FieldDict], rules: Sequence[FieldRule]) -> list[FieldDict]:
    """``fields`` (a comparison's, as held) with the weight and floor of each of ``rules``."""
    for i, weight, floor in rules:
        field = fields[i]
        if weight != 1.0:
            field["weight"] = weight
        if floor is not None:
            field["min_score"] = floor
    return fields


def _rules_of_dicts(fields: Sequence[FieldDict]) -> tuple[FieldRule, ...]:
    """The rules (:func:`field_rules`) a comparison's held fields say."""
    return tuple(
        (i, float(f.get("weight", 1.0)), f.get("min_score"))
        for i, f in enumerate(fields)
        if "weight" in f or "min_score" in f
    )


def undecided_of(data: ComparisonDict) -> int:
    """How many fields of a report's comparison the judge left undecided: the count it
    records, or, where it records none (a report written before the count was kept, or
    edited), its fields whose status is ``batch_error``; a counted comparison holding one
    was not decided, whatever its status says. ValueError for a count that is not a whole
    number >= 0."""
    recorded = data.get("undecided", 0)
    if isinstance(recorded, bool) or not isinstance(recorded, int) or recorded < 0:
        raise ValueError(f"undecided must be a whole number >= 0, not {shown(recorded)}")
    fields = data.get("fields", ())
    found = (
        sum(1 for f in fields if isinstance(f, Mapping) and f.get("status") == BATCH_ERROR)
        if isinstance(fields, list)
        else 0
    )
    return max(recorded, found)


def _field_dict(record: tuple[str, str, str, float, JSONValue, JSONValue, str]) -> FieldDict:
    path, field_path, status, score, expected, actual, present = record
    if present == "ea":  # most fields: both values, kept whole
        return {
            "path": path,
            "field_path": field_path,
            "status": status,
            "score": score,
            "expected": expected,
            "actual": actual,
        }
    out: FieldDict = {"path": path, "field_path": field_path, "status": status, "score": score}
    if "e" in present:
        out["expected"] = expected
        if "e!" in present:
            out["expected_cut"] = True
    if "a" in present:
        out["actual"] = actual
        if "a!" in present:
            out["actual_cut"] = True
    return out


def _field_record(data: FieldDict) -> ReportedField:
    present = ""
    if "expected" in data:
        present += "e!" if data.get("expected_cut") else "e"
    if "actual" in data:
        present += "a!" if data.get("actual_cut") else "a"
    return ReportedField(
        data["path"],
        data.get("field_path", data["path"]),
        data["status"],
        float(data["score"]),
        data.get("expected"),
        data.get("actual"),
        present,
    )


SHORT_INT = 10**15  # an integer of at most 15 digits: far below VALUE_LIMIT characters
# the longest string surely short enough: its JSON, every character escaped as \uXXXX (6)
# and two quotes, fits VALUE_LIMIT (6 * 33 + 2 = 200)
SHORT_STR = (VALUE_LIMIT - 2) // 6


def _kept_whole(value: JSONValue, full: bool) -> bool:
    """Whether a report keeps ``value`` whole without writing it out first: the usual leaves,
    whose JSON is surely short enough (or any string, ``full``)."""
    kind = type(value)
    return (
        value is None
        or kind is bool
        or kind is float
        or (type(value) is int and -SHORT_INT < value < SHORT_INT)
        or (type(value) is str and (full or len(value) <= SHORT_STR))
    )


def kept_value(value: JSONValue, mode: str) -> tuple[JSONValue, bool]:
    """``value`` as a report keeps it: whole (``full``, or short enough), or its compact JSON
    cut to VALUE_LIMIT characters with ``...`` (``short``), and whether it was cut. A value
    JSON cannot write (an integer of more than 4,300 digits) is described instead, in every
    mode."""
    if _kept_whole(value, mode == "full"):
        return value, False
    try:
        text = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    except (ValueError, RecursionError):  # an integer longer than Python writes as text
        # (4,300 digits), or a value nested deeper than json can write: described instead
        return shown(value, VALUE_LIMIT), True
    if mode == "full" or len(text) <= VALUE_LIMIT:
        return value, False
    return text[: VALUE_LIMIT - 3] + "...", True


def _kept(value: JSONValue, mode: str, full: bool) -> tuple[JSONValue, bool]:
    """:func:`kept_value`, the common leaves (:func:`_kept_whole`) answered first."""
    kind = type(value)
    if (
        value is None
        or kind is bool
        or kind is float
        or (kind is int and -SHORT_INT < value < SHORT_INT)  # type: ignore[operator]
        or (kind is str and (full or len(value) <= SHORT_STR))  # type: ignore[arg-type]
    ):
        return value, False
    return kept_value(value, mode)


def _kept_fields(
    fields: Sequence[FieldResult], mode: str, missing: object
) -> Iterator[tuple[str, str, str, float, JSONValue, JSONValue, str]]:
    """Each field's (path, field path, status, score, expected, actual, present), the values
    kept per ``mode``: once per field of every comparison a report keeps."""
    keep, full = mode != "none", mode == "full"
    for f in fields:
        # FieldResult: path, status, score, expected, actual, ..., field_path (7)
        present, expected, actual = "", None, None
        if keep:
            if f[3] is not missing:
                expected, cut = _kept(f[3], mode, full)
                present = "e!" if cut else "e"
            if f[4] is not missing:
                actual, cut = _kept(f[4], mode, full)
                present += "a!" if cut else "a"
        yield f[0] or "$", f[7] or "$", f[1], float(f[2]), expected, actual, present


# the comparators whose fields say nothing more about who decided them: a rule's (a field
# missing or extra) and plain equality's
_PLAIN_DECIDERS = frozenset({"", "exact"})


def decided_by(fields: Sequence[FieldResult]) -> dict[str, tuple[int, ...]]:
    """Who decided each field that neither a rule nor plain equality did: the comparator's
    name (``semantic`` is the LLM judge) -> the indexes of its fields, in order."""
    found: dict[str, list[int]] = {}
    for k, f in enumerate(fields):
        if f.comparator not in _PLAIN_DECIDERS:
            found.setdefault(f.comparator, []).append(k)
    return {name: tuple(at) for name, at in found.items()}


def reported_fields(
    fields: Sequence[FieldResult], mode: str, missing: object
) -> tuple[ReportedField, ...]:
    """FieldResults as FieldRecords, their values kept per ``mode`` (``missing`` is the
    engine's marker of an absent side)."""
    new = tuple.__new__  # a NamedTuple's own constructor costs more, once per field
    return tuple(new(ReportedField, kept) for kept in _kept_fields(fields, mode, missing))


def comparison_dict(
    comparison: Comparison, fields: Sequence[FieldResult], mode: str
) -> ComparisonDict:
    """``comparison.to_dict()`` of the comparison recorded with its fields ``fields`` (the
    engine's) kept per ``mode``: the same entry, written without a ReportedField per field
    (a report of a dataset writes each comparison once and keeps nothing else of it)."""
    out = comparison.to_dict()
    rules = field_rules(fields, {p: m for p, m, _ in comparison.floor_failures})
    out["fields"] = _ruled(
        [_field_dict(kept) for kept in _kept_fields(fields, mode, MISSING)], rules
    )
    return out
