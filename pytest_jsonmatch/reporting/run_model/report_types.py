"""The JSON report's shape as types: what report.py writes, what a saved report holds once
validation.py has checked it against the shipped schema, and what every rendering reads.

Each TypedDict is one object of ``report.schema.json`` (the schema says what each value
means); keys a report may leave out sit in a ``total=False`` base class. Nothing here runs:
these are dicts at run time.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any, Literal, Protocol, TypeVar, Union

if TYPE_CHECKING:
    from typing import TypedDict

    from ...engine.results.field_results import PartName
else:

    class TypedDict:
        """At run time each shape below is a name and nothing more (nothing makes, checks or
        inspects one: a report is plain dicts), so a plain class stands for
        ``typing.TypedDict``, whose processing of every annotation took about 10 ms of
        each command's start-up."""

        def __init_subclass__(cls, total: bool = True, **kwargs: Any) -> None:
            super().__init_subclass__(**kwargs)


# A JSON value as ``json.loads`` gives it: the expected and actual values a report keeps.
# (Union, not |: the forward references are strings, which | cannot join at run time)
JSONValue = Union[None, bool, int, float, str, list["JSONValue"], dict[str, "JSONValue"]]  # noqa: UP007

_Row = TypeVar("_Row", covariant=True)


class Rows(Protocol[_Row]):
    """A report's cases or comparisons: a list, or a spool on disk (spool.py) that a large
    run writes them to. Either can be read any number of times and has a length."""

    def __iter__(self) -> Iterator[_Row]: ...

    def __len__(self) -> int: ...


class RunInfo(TypedDict, total=False):
    time: str
    plugin_version: str
    python: str
    command: list[str]
    git_commit: str | None
    complete: bool  # False: the run stopped early (a partial run's report)
    stopped: str  # why, and how many of its tests ran
    worker_deaths: list[WorkerDeathDict]  # under xdist, each worker that died
    shard: ShardDict  # the run is this shard of a split suite (shards.py)
    shards: int  # the run was merged from this many shards' reports (jsonmatch merge)
    settings: RunSettingsDict  # the settings that decided its scores and verdict (provenance.py)
    provenance: ProvenanceDict  # what its scores were made from (provenance.py)
    # what the LLM judge did over a run whose comparisons carry no figures of their own
    # (jsonmatch score: a chunk's records are judged in one batch)
    judge: JudgeDict


class RunSettingsDict(TypedDict, total=False):
    """Each setting that decides a run's scores and verdict, as text its reader parses."""

    fail_under: str
    field_floors: list[str]
    max_drop: str
    max_case_drop: str
    min_valid: str
    pass_k: str
    min_pass_hat_k: str
    min_pass_at_k: str
    max_pass_drop: str
    judge_ac1: str
    judge_kappa: str
    judge_false_accept: str
    judge_position: str
    reference: str
    targets: list[str]
    baseline: str
    repeat: str
    defaults: str  # the case defaults (metric, threshold, options, invalid_fails) as JSON


class ProvenanceDict(TypedDict, total=False):
    """What a run's scores were made from: the golden case files (path -> SHA-256) and a
    digest over them, the folder settings files and schema files (path -> SHA-256), each
    target's recording fingerprint, the judge's fingerprint and its setup, and (a run that
    refused outbound connections) the hosts it allowed."""

    golden: dict[str, str]
    golden_digest: str
    folder_settings: dict[str, str]
    schemas: dict[str, str]
    targets: dict[str, TargetFingerprintDict]
    judge: str
    judge_setup: JudgeSetupDict
    quarantine: QuarantineRecordDict
    calibration: CalibrationSummaryDict
    offline: OfflineDict


class OfflineDict(TypedDict):
    """A run that refused outbound connections (``block_network`` of jsonmatch_record): the
    hosts it allowed, as written."""

    allowed: list[str]


class QuarantineRecordDict(TypedDict):
    """The quarantine file a run read (jsonmatch_quarantine): as given, its SHA-256, the day
    its dates were judged on (YYYY-MM-DD) and a line for each entry expired by then."""

    file: str
    sha256: str
    today: str
    expired: list[str]


class JudgeSetupDict(TypedDict):
    """What the LLM judge is made of: its model, its endpoint (no user, password or query),
    its prompt template's file ('': the default) and the SHA-256 of its text, its token
    limit (None: the server's)."""

    model: str
    endpoint: str
    prompt_file: str
    prompt_sha256: str
    max_tokens: int | None


class CalibrationFigureDict(TypedDict):
    """One figure of the judge's calibration and its 95% bootstrap interval (None: undefined,
    a rate over no item)."""

    value: float | None
    low: float | None
    high: float | None


class CalibrationJudgeDict(TypedDict):
    """The judge a calibration measured: its model, fingerprint and token limit."""

    model: str
    fingerprint: str
    max_tokens: int | None


class CalibrationSummaryDict(TypedDict, total=False):
    """The judge's calibration a run was gated on (calibration_gates.py): where it came from
    (``file``, from the root dir; ``made``: ``stored`` or ``in the run``; ``missing``: why
    there was none), the judge it measured, the labels' path, digest and counts, why it is
    too small to say anything (None: it is not), and its figures with their intervals."""

    file: str
    made: str
    missing: str
    judge: CalibrationJudgeDict
    labels_path: str
    labels_digest: str
    labels: int
    same: int
    different: int
    min_labels: int
    too_small: str | None
    stale: str  # why a stored calibration no longer measures its labels (absent: it does)
    agreement: CalibrationFigureDict
    kappa: CalibrationFigureDict
    ac1: CalibrationFigureDict
    false_accept_rate: CalibrationFigureDict
    position: CalibrationFigureDict | None
    requests: int


class TargetFingerprintDict(TypedDict):
    """A target's recording fingerprint: its code and named files (name -> SHA-256), the
    declared value, and a digest of the three."""

    code: dict[str, str]
    files: dict[str, str]
    declared: JSONValue
    digest: str


class ShardDict(TypedDict):
    """Which shard of a split suite a run is: ``index`` (from 1) of ``count``."""

    index: int
    count: int


class WorkerDeathDict(TypedDict):
    """An xdist worker that died: the test it ran, the tests whose calls were in flight,
    and the verdict on the running test (calls/calls_in_flight.py)."""

    worker: str
    running: str
    calls_in_flight: list[str]
    verdict: Literal["blamed", "sent back", "lost", "had reported"]


class ViolatedDict(TypedDict):
    field_path: str
    keyword: str
    answers: int  # how many answers broke the keyword there


class ValidShareDict(TypedDict):
    checked: int  # answers checked against a schema (runs, not cases)
    valid: int
    share: float  # valid / checked
    violated: list[ViolatedDict]  # the places broken most, most answers first (at most 10)


class _MetricConformance(TypedDict, total=False):
    conformance: ValidShareDict  # only when some answer of the metric was given a schema
    undecided: int  # comparisons the judge left undecided (only when any)


class MetricTallyDict(_MetricConformance):
    count: int
    passed: int
    failed: int
    errors: int
    mean_score: float
    precision: float
    recall: float
    f1: float


class _FieldAggregateExtra(TypedDict, total=False):
    batch_error: int  # only when a batch comparator failed on the field


class FieldAggregateDict(_FieldAggregateExtra):
    mean_score: float
    score_sum: float
    scored: int
    match: int
    mismatch: int
    omission: int
    hallucination: int


FieldTable = dict[str, FieldAggregateDict]  # field path -> its aggregate


class QuarantineDict(TypedDict):
    reason: str  # why the case is quarantined
    until: str  # the last day it is (YYYY-MM-DD): it gates again from the day after


class CaseConformanceDict(TypedDict):
    checked: int  # runs whose answer was checked against a schema
    valid: int  # of them, the valid ones


class _CaseTruncated(TypedDict, total=False):
    truncated: int  # how many of its runs were cut off and scored closed (only when any)
    target: str  # the named target whose output the case scored (only when targets ran)
    conformance: CaseConformanceDict  # only when its answers were checked against a schema
    undecided: int  # how many of its runs the judge left undecided (only when any)
    quarantine: QuarantineDict  # only for a quarantined case: it gates nothing


class CaseResultDict(_CaseTruncated):
    case_id: str
    metric: str
    status: str
    threshold: float
    runs: int
    mean_score: float
    min_score: float
    max_score: float
    passed_runs: int
    precision: float
    recall: float
    f1: float
    file: str
    line: int | None
    error: str


class CaseDict(CaseResultDict):
    group: str  # the field table the case is counted in


class _FieldValues(TypedDict, total=False):
    expected: JSONValue
    actual: JSONValue
    expected_cut: bool
    actual_cut: bool
    # what the field counts for in precision and recall, when not 1; and the floor
    # (``min_score``) it scored below, when it did: what a merge re-derives figures from
    weight: float
    min_score: float


class FieldDict(_FieldValues):
    path: str
    field_path: str
    status: str
    score: float


class PairingDict(TypedDict):
    path: str
    expected_index: int
    actual_index: int
    score: float


class FloorFailureDict(TypedDict):
    path: str
    min_score: float
    score: float


class _CallFinish(TypedDict, total=False):
    finish_reason: str  # why the model stopped, when the target reported it


class CallDict(_CallFinish):
    latency_s: float | None
    attempts: int
    input_tokens: int | None
    output_tokens: int | None
    cost: float | None
    failed: bool


class TruncatedDict(TypedDict):
    line: int  # where the cut answer ends (1-based)
    column: int
    chars: int  # how much of its JSON value was written


class ViolationDict(TypedDict):
    path: str  # where the answer breaks its schema (items[0].qty; $ for the root)
    field_path: str  # the same place as per-field tables name it (items[].qty)
    keyword: str  # the JSON Schema keyword broken (type, required, ...)


class _ConformanceFails(TypedDict, total=False):
    fails: bool  # only when the invalid answer failed the comparison (the setting says so)


class ConformanceDict(_ConformanceFails):
    valid: bool
    count: int  # how many violations the answer had
    violations: list[ViolationDict]  # the first 20 of them, in the order found


class JudgeDict(TypedDict):
    """What the LLM judge did for one comparison (engine/judge/semantic.py)."""

    requests: int  # requests sent for its fields (its own, or its case's judged ahead)
    attempts: int
    sent: int  # items those requests carried
    equal: int  # judged fields equal after their transforms: never sent
    reused: int  # answered from memory: asked before in the run, or recorded
    not_judged: int  # left undecided (batch_error)
    failed_requests: int
    input_tokens: int
    output_tokens: int
    cost: float | None
    latency_s: float


class _PartName(TypedDict, total=False):
    name: PartName  # which part it is (absent in a report written before parts were named)
    turn: int  # the conversation's user turn it is of (absent: no turn's)


class PartDict(_PartName):
    """One part of a comparison made of several (an agent's answer, calls, trajectory, end
    state): which it is, the metric that scored it, how many of the comparison's fields are
    its (after the parts before it) and its headline score."""

    metric: str
    rows: int
    score: float


class _SpanBase(TypedDict):
    span_id: str
    parent_id: str | None
    name: str
    kind: str
    start_ms: float
    duration_ms: float
    status: str  # ok, error


class SpanDict(_SpanBase, total=False):
    """One span of a kept tree (engine/reading/trace_tree.py says each key;
    span_trees.py its rows)."""

    message: str  # what failed (only where something did, or the span's status says)
    operation: str  # chat, execute_tool, invoke_agent: only for a step's span
    tool: str  # a tool call's tool
    tokens: list[int | None]  # [input, output]: a step that recorded any
    attributes: dict[str, object]  # the attributes the reader read, bounded
    rows: list[str]  # the rows of the steps it gave (their heads: run[2].refund)
    answer: bool  # only on the span that gave the answer scored


class _TreeBase(TypedDict):
    trace_id: str
    span_id: str | None  # the span the run is evaluated as: its agent's, else its root
    total: int  # the run's spans
    spans: list[SpanDict]


class SpanTreeDict(_TreeBase, total=False):
    cut: dict[str, int]  # what was left out: spans, attributes, values (only where any)


class _ComparisonCall(TypedDict, total=False):
    call: CallDict  # only when the target was called (or its call replayed)
    judge: JudgeDict  # only when a field of it was judged
    truncated: TruncatedDict  # only for an answer cut off and scored closed
    target: str  # the named target that made the output (only when targets ran)
    conformance: ConformanceDict  # only when the comparison was given a schema
    undecided: int  # fields the judge left undecided: the comparison is an error (only when any)
    quarantine: QuarantineDict  # only for a quarantined case's comparison: it gates nothing
    by: dict[str, list[int]]  # comparator -> its fields' indexes, not "" or exact (pytest runs)
    input: JSONValue  # the case's input, as values are kept (only when it has one)
    input_cut: bool  # only when the input was cut to 4,000 characters of compact JSON
    output: JSONValue  # the output as the target gave it, kept alike (only when there is one)
    output_cut: bool  # only when the output was cut alike
    input_not_json: bool  # only when the input held what JSON cannot: kept in its terms
    output_not_json: bool  # only when the output held what JSON cannot: kept in its terms
    parts: list[PartDict]  # only for a comparison made of parts (an agent's reply or run)
    repeats: int  # only for a case that repeats or sets its own repeat: the runs it was asked for
    trace: SpanTreeDict  # only where the output was a run read from a trace: its span tree


class ComparisonDict(_ComparisonCall):
    case_id: str
    nodeid: str
    seq: int
    repeat: int
    metric: str
    status: str
    score: float
    threshold: float
    precision: float
    recall: float
    f1: float
    error: str
    file: str
    line: int | None
    fields: list[FieldDict]
    pairings: list[PairingDict]
    floor_failures: list[FloorFailureDict]
    source: str
    recording: str


class BlockedCaseDict(TypedDict):
    case_id: str
    gate: str  # the setting of the per-case gate it failed


class QuotedFieldDict(TypedDict):
    group: str
    path: str


class QuotedDict(TypedDict):
    cases: list[str]
    fields: list[QuotedFieldDict]


class _GatesMarks(TypedDict, total=False):
    blocked: list[BlockedCaseDict]  # only when a per-case gate failed a case
    quoted: QuotedDict  # only when a failure or a warning quotes a case or a field row
    not_judged: str  # only when no gate was judged: why (an update run)


class GatesDict(_GatesMarks):
    passed: bool
    failures: list[str]
    warnings: list[str]
    checked: list[str]


class DifferenceDict(TypedDict):
    n: int
    mean: float
    low: float | None
    high: float | None
    se: float | None
    detectable: float | None
    p_value: float | None


class ChangedCaseDict(TypedDict):
    case_id: str
    where: str
    before: float
    after: float
    delta: float


class _FieldDeltaHolm(TypedDict, total=False):
    holm_p: float | None  # the Holm-adjusted p-value across the run's field rows


class FieldDeltaDict(_FieldDeltaHolm):
    before: float | None
    after: float | None
    difference: DifferenceDict
    significant: bool


class _BaselineMatching(TypedDict, total=False):
    compared: int  # this run's cases of the targets both runs ran (case_matching.py)
    paired: str  # cases left out or paired across targets, in words
    unscored: list[str]  # cases both runs hold that one could not score: not compared


class BaselineSectionDict(_BaselineMatching):
    path: str
    version: int
    shared: int
    added: list[str]
    removed: list[str]
    before: float | None
    after: float | None
    difference: DifferenceDict
    changed: list[ChangedCaseDict]
    groups: dict[str, dict[str, FieldDeltaDict]]  # group -> field path -> its change
    pass_to_fail: int
    fail_to_pass: int
    mcnemar_p: float


# -- repeated cases as a reliability measure (reliability.py) -----------------------------------


class EstimateDict(TypedDict):
    """A run's pass@k or pass^k: the mean over ``cases`` cases, its 95% bootstrap interval
    (null with fewer than two cases)."""

    mean: float
    low: float | None
    high: float | None
    cases: int


class ReliabilityCaseDict(TypedDict):
    case_id: str
    runs: int
    scored: int
    passed: int
    unscored: int
    pass_hat_k: float | None  # null: fewer than k scored runs
    pass_at_k: float | None
    flaky: bool


class ReliabilityChangeDict(TypedDict):
    """pass^k or pass@k against the baseline, paired over the shared repeated cases."""

    before: float | None
    after: float | None
    difference: DifferenceDict


class ReliabilityBaselineDict(TypedDict):
    shared: int  # shared repeated cases with k scored runs on both sides
    pass_hat_k: ReliabilityChangeDict
    pass_at_k: ReliabilityChangeDict
    became_flaky: list[str]
    no_longer_flaky: list[str]


class ReliabilityFieldDict(TypedDict):
    """A field's pass^k and pass@k over the repeated cases that have it (``cases``; each
    estimate is over those of them with k scored runs)."""

    pass_hat_k: EstimateDict | None
    pass_at_k: EstimateDict | None
    cases: int


class _ReliabilityAgainst(TypedDict, total=False):
    baseline: ReliabilityBaselineDict  # only when the run was held against a baseline
    fields: dict[str, ReliabilityFieldDict]  # per field path


class ReliabilityDict(_ReliabilityAgainst):
    k: int
    k_given: bool
    interval: str
    repeated: int
    pass_hat_k: EstimateDict | None
    pass_at_k: EstimateDict | None
    unscored_runs: int
    flaky: list[str]
    too_few_runs: list[str]
    too_few_scored: list[str]
    groups: dict[str, dict[str, EstimateDict | None]]
    targets: dict[str, dict[str, EstimateDict | None]]
    cases: list[ReliabilityCaseDict]


# -- several runs, or several targets of one run, side by side (runs.py, versus.py) ---------


class Latency(TypedDict):
    mean_s: float
    total_s: float
    count: int
    p50_s: float
    p95_s: float


class ValidCount(TypedDict):
    checked: int  # answers checked against their schema
    valid: int  # of them, the valid ones


class RunRow(TypedDict):
    name: str
    path: str
    cases: int
    overall: float | None
    passed: int
    difference: DifferenceDict | None
    better: int | None
    worse: int | None
    same: int | None
    pass_to_fail: int | None
    fail_to_pass: int | None
    mcnemar_p: float | None
    latency: Latency | None
    usage: dict[str, float] | None  # input_tokens, output_tokens, cost -> its sum
    valid: ValidCount | None  # answers valid against their schema (None: none was checked)


class PartialCase(TypedDict):
    case_id: str
    runs: list[str]


class _FieldRowCases(TypedDict, total=False):
    cases: int  # the cases every score and difference of the row is over


class FieldRow(_FieldRowCases):
    group: str
    path: str
    scores: list[float | None]
    differences: list[DifferenceDict | None]


class Disagreement(TypedDict):
    case_id: str
    scores: list[float]
    spread: float


class FlakyRow(TypedDict):
    """A run's flaky cases among the shared ones (some scored runs passed, some failed), and
    against the first run the cases that became flaky or stopped being (None for the first;
    of the cases with two scored runs or more in both)."""

    run: str
    flaky: list[str]
    became_flaky: list[str] | None
    no_longer_flaky: list[str] | None


class _RunsFlaky(TypedDict, total=False):
    flaky: list[FlakyRow]  # only when a shared case has two scored runs or more in a run


class RunsComparison(_RunsFlaky):
    runs: list[RunRow]
    shared: list[str]
    partial: list[PartialCase]
    fields: list[FieldRow]
    disagreements: list[Disagreement]


class TargetsDict(RunsComparison):
    """The named targets of one run side by side, each against the ``reference`` (the first
    of ``runs``); ``gated``: whether the others were held to it."""

    reference: str
    gated: bool


class _AgainstBaseline(TypedDict, total=False):
    baseline: BaselineSectionDict  # only when the run was held against a baseline
    targets: TargetsDict  # only when named targets ran
    reliability: ReliabilityDict  # only when a case was run more than once
    # only when a simulated user spoiled a conversation: how many (counted nowhere else)
    simulator: int


class ReportSummary(_AgainstBaseline):
    """The aggregates a report opens with (its baseline, when it has one, comes last)."""

    version: int
    run: RunInfo
    overall: float | None
    count: int
    errors: int
    xfailed: int
    xpassed: int
    group_by: str
    metrics: dict[str, MetricTallyDict]
    fields: FieldTable
    groups: dict[str, FieldTable]


class ReportHead(ReportSummary):
    """A report without its cases and comparisons (spool.py writes those from disk)."""

    gates: GatesDict


class Report(ReportHead):
    """A whole report (see the module docstring)."""

    cases: Rows[CaseDict]
    comparisons: Rows[ComparisonDict]
