"""What scoring produces: one FieldResult per scored field, a MatchResult per comparison,
a RunResult over many records, and the arithmetic shared by every metric.

Accounting (every metric): TP is the sum of scores over match and mismatch; precision =
TP / (match + mismatch + hallucination); recall = TP / (match + mismatch + omission); a
zero denominator gives 1.0; F1 is their harmonic mean, 0 when both are 0. With field
weights, each field counts for its weight instead of 1 (TP sums weight times score).
Skipped fields and fields a batch comparator could not score (``batch_error``) count nowhere.
"""

from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from itertools import chain
from operator import attrgetter, countOf, itemgetter
from typing import (
    TYPE_CHECKING,
    Any,
    Literal,
    NamedTuple,
    Protocol,
    TypeVar,
    get_args,
    overload,
)

from ..core.cut_off import Truncation
from ..core.slotted import HashedSlotted, Slotted
from ..core.values import JsonObject, JsonValue
from ..core.violations import Conformance

MATCH, MISMATCH, OMISSION, HALLUCINATION, SKIPPED, BATCH_ERROR = (
    "match",
    "mismatch",
    "omission",
    "hallucination",
    "skipped",
    "batch_error",
)
STATUSES = (MATCH, MISMATCH, OMISSION, HALLUCINATION, SKIPPED, BATCH_ERROR)
# a field's status: slot 1 of a FieldResult and of a tally alike
STATUS_OF = itemgetter(1)
# Tolerance for float noise when a score meets its threshold (0.1 + 0.2 style sums).
SCORE_EPSILON = 1e-9


class FieldResult(NamedTuple):
    """One scored field (immutable; a NamedTuple, the cheapest record to build, because a
    comparison makes one per field).

    ``path`` is the instance path on the expected side (``items[0].sku``; the actual side's
    index for a hallucinated element); ``actual_path`` is set when array pairing put the
    actual value at another index. ``field_path`` folds indices away (``items[].sku``).
    ``weight``: what the field counts for in precision and recall (1 unless ``fields`` or
    ``x-eval-weight`` says otherwise). ``compared``: the two values the comparator saw, when
    the field's transforms changed them (None: ``expected`` and ``actual`` themselves).
    """

    path: str
    status: str
    score: float
    expected: Any  # JSON values, or MISSING (reporting/ reads them by their type's tag)
    actual: Any
    comparator: str
    reason: str = ""
    field_path: str = ""
    actual_path: str | None = None
    weight: float = 1.0
    compared: tuple[JsonValue, JsonValue] | None = None

    @property
    def display_path(self) -> str:
        return self.path or "$"


def tally(field_path: str, status: str, score: float) -> "Tally":
    """What a field counts for, where nothing else of it is needed (the tally form of the
    generated scorers, walking/generated_scorers.py): (field path, status, score), the key the
    per-field tables count fields by, its status and score in a FieldResult's slots 1
    and 2, so that precision_recall reads both alike.

    One object per value (``_CANONICAL``): a Counter hashes each tally it counts, then
    compares it with the key it finds, and a key that *is* the tally is equal at once,
    where an equal tuple is compared item by item (its path's characters, its score). A
    run's first records take the general walk, before their shapes' scorers are compiled,
    so its Counter's keys are those records' tallies, and the scorers' constants must be
    the same objects: counting 2,000 invoices' 52,000 tallies took 77 M instructions with
    equal tuples, 36 M with these (docs/performance.md)."""
    made = (field_path, status, score)
    found = _CANONICAL.get(made)
    if found is not None:
        return found
    if len(_CANONICAL) < MAX_CANONICAL:
        _CANONICAL[made] = made
    return made


# Every tally made by ``tally`` so far, by value, up to MAX_CANONICAL of them: a schema's
# fields with their usual statuses and scores are a few hundred; past the bound (field
# paths the data invents, scores of every value) a tally is made as it is, and counts the
# same, only found more slowly.
_CANONICAL: "dict[Tally, Tally]" = {}
MAX_CANONICAL = 1 << 14


def as_tallies(fields: list[Any]) -> "list[Tally]":
    """A tally-form walk's fields as tallies alone: any FieldResult among them (the general
    walk's) replaced by its tally (``fields`` holds both, whatever WalkOutput declares). A Counter counts these in C as they are: they are the
    per-field tables' keys already."""
    if set(map(type, fields)) <= _TUPLE:
        return fields
    return [fr if type(fr) is tuple else tally(fr[7], fr[1], fr[2]) for fr in fields]


_TUPLE = {tuple}


class Pairing(NamedTuple):
    """How array pairing matched elements: expected index -> actual index, with the pair's
    score (a NamedTuple, like FieldResult: one per paired element)."""

    path: str
    expected_index: int
    actual_index: int
    score: float


class FloorFailure(HashedSlotted):
    """A field scored below its ``min_score``."""

    __slots__ = (
        "path",
        "min_score",
        "score",
    )

    path: str
    min_score: float
    score: float

    def __init__(
        self,
        path: str,
        min_score: float,
        score: float,
    ) -> None:
        self.path, self.min_score, self.score = path, min_score, score


class WalkOutput:
    """What one walk finds, in the order it finds it: the fields (document order), the array
    pairings, and the fields that scored below their ``min_score``."""

    __slots__ = ("fields", "pairings", "floors")

    def __init__(self) -> None:
        self.fields: list[FieldResult] = []
        self.pairings: list[Pairing] = []
        self.floors: list[FloorFailure] = []


def precision_recall(fields: "Iterable[FieldResult | Tally]") -> tuple[float, float]:
    """(precision, recall) of a list of fields (or their tallies: status and score in the
    same slots), per the accounting above, in one pass."""
    tp = 0.0
    compared = omitted = invented = 0
    for fr in fields:
        status = fr[1]
        if status == MATCH or status == MISMATCH:
            compared += 1
            tp += fr[2]
        elif status == OMISSION:
            omitted += 1
        elif status == HALLUCINATION:
            invented += 1
    p_den, r_den = compared + invented, compared + omitted
    return (tp / p_den if p_den else 1.0), (tp / r_den if r_den else 1.0)


def weighted_precision_recall(fields: Iterable[FieldResult]) -> tuple[float, float]:
    """precision_recall with each field counting for its ``weight``: TP is the sum of
    weight times score over match and mismatch, the denominators sums of weights. The
    weights are divided by the largest first: the ratios are the same, and weights near the
    float limit (1e308) cannot add up to infinity and give inf / inf."""
    fields = list(fields)
    largest = max((fr.weight for fr in fields), default=1.0)
    scale = largest if largest > 1.0 else 1.0
    tp = compared = omitted = invented = 0.0
    for fr in fields:
        status, weight = fr.status, fr.weight / scale
        if status == MATCH or status == MISMATCH:
            compared += weight
            tp += weight * fr.score
        elif status == OMISSION:
            omitted += weight
        elif status == HALLUCINATION:
            invented += weight
    p_den, r_den = compared + invented, compared + omitted
    return (tp / p_den if p_den else 1.0), (tp / r_den if r_den else 1.0)


def f_beta(precision: float, recall: float, beta: float = 1.0) -> float:
    b2 = beta * beta
    if b2 > 1.0:
        # divided through by beta squared, so that a beta whose square is infinite gives the
        # limit (recall) instead of inf / inf
        inv = 1.0 / b2
        den = precision + inv * recall
        return (1.0 + inv) * precision * recall / den if den > 0 else 0.0
    den = b2 * precision + recall
    return (1 + b2) * precision * recall / den if den > 0 else 0.0


# which part of an agent's output a part of a result scores: its answer, one reply's calls,
# a run's trajectory, the end state the run left, a conversation's tau2-bench verdict and
# its rubric judged over the transcript (in this order where several are given)
PartName = Literal["answer", "calls", "trajectory", "state", "tau2", "rubric"]
PART_NAMES: tuple[PartName, ...] = get_args(PartName)
# what a part other than the answer is called in the label of a result made of parts
_LABEL_WORDS = {
    "calls": "tool_calls",
    "trajectory": "trajectory",
    "state": "state",
    "tau2": "tau2",
    "rubric": "rubric",
}


def parts_label(names: Iterable[PartName], answer_metric: str) -> str:
    """The metric a result made of the parts ``names`` is labelled by, the one place it is
    made: the answer's metric, ``tool_calls``, ``trajectory`` and ``state`` for the parts
    given (``field_f1+trajectory+state``). A label to read, never to parse: what a result
    is made of is its ``parts``."""
    return "+".join(answer_metric if n == "answer" else _LABEL_WORDS[n] for n in names)


class PartScore(NamedTuple):
    """What a result made of parts (:func:`combined`) keeps of each: which part it is
    (``name``), the metric that scored it, how many of the result's rows are its (they
    follow the rows of the parts before it), and its headline score. Enough to make the
    result's score again from its rows, by :func:`combined` itself (a merge of shards'
    reports does), and to find a part's rows without reading the result's label or paths;
    ``turn``, the user turn of a conversation the part is of (None: no turn's: a reply's or
    a run's part, a conversation's end state)."""

    name: PartName
    metric: str
    rows: int
    score: float
    turn: int | None = None


# What makes a result's fields when they are first read (``MatchResult.fields``), called
# with the result so that it can check what it makes against the result's scores; kept in
# the result's __dict__ under this name until then.
MakeFields = Callable[["MatchResult"], "tuple[FieldResult, ...]"]
MAKE_FIELDS = "_make_fields"


class _MadeFields:
    """``MatchResult.fields``: the instance's own where it has them (a class attribute
    without ``__set__`` gives way to the instance's ``__dict__``); else made when first
    read, by the ``MakeFields`` waiting there (or being made by another thread: the first
    made is kept). A descriptor rather than ``__getattr__``: a class with ``__getattr__``
    has every attribute read of its instances take the slow lookup (about 20 ns more a
    read in CPython 3.11), and a dataset's run reads a result's figures many times."""

    @overload
    def __get__(self, result: None, owner: type[Any]) -> "_MadeFields": ...
    @overload
    def __get__(self, result: "MatchResult", owner: type[Any]) -> tuple[FieldResult, ...]: ...
    def __get__(
        self, result: "MatchResult | None", owner: type[Any]
    ) -> "tuple[FieldResult, ...] | _MadeFields":
        if result is None:
            return self
        state = result.__dict__
        make = state.get(MAKE_FIELDS)
        if make is not None:
            state.setdefault("fields", make(result))
            state.pop(MAKE_FIELDS, None)
        if "fields" in state:
            made: tuple[FieldResult, ...] = state["fields"]
            return made
        raise AttributeError(f"{owner.__name__!r} object has no attribute 'fields'")

    if TYPE_CHECKING:  # (never called: an instance's own value is set in its __dict__)

        def __set__(self, result: "MatchResult", value: tuple[FieldResult, ...]) -> None: ...


class MatchResult(HashedSlotted):
    """The outcome of one comparison: the metric's headline ``score`` in [0, 1], precision,
    recall and F1 from the field statuses, and every field in document order. ``truncated``
    says where the answer was cut off when it was scored closed (the ``truncated="close"``
    option: partial credit for what was written in full); None for a whole answer.

    A record of ``evaluate_records`` may make its ``fields`` when they are first read: it
    was scored from counts (match.py), and walking it again gives its fields, checked
    against its scores. Everything else is there from the start, in the instance's
    ``__dict__`` (where the fields wait to be made: the class has no slots of its own).
    """

    _fields = (
        "metric",
        "score",
        "precision",
        "recall",
        "f1",
        "fields",
        "pairings",
        "floor_failures",
        "truncated",
        "conformance",
        "error",
        "parts",
    )

    metric: str
    score: float
    precision: float
    recall: float
    f1: float
    fields = _MadeFields()
    pairings: tuple[Pairing, ...]
    floor_failures: tuple[FloorFailure, ...]
    truncated: Truncation | None
    # whether the actual value is valid against the schema the comparison was given (None:
    # no schema given): a column beside the score, never part of it
    conformance: Conformance | None
    # why a record of evaluate_records could not be scored (its answer cut off or holding
    # no JSON): scored 0 with no fields, as the command line scores it; empty: it was scored
    error: str
    # the parts a result of several was made of (:func:`combined`), in the order of their
    # rows; () for a result of one metric
    parts: tuple[PartScore, ...]

    def __init__(
        self,
        metric: str,
        score: float,
        precision: float,
        recall: float,
        f1: float,
        fields: tuple[FieldResult, ...],
        pairings: tuple[Pairing, ...] = (),
        floor_failures: tuple[FloorFailure, ...] = (),
        truncated: Truncation | None = None,
        conformance: Conformance | None = None,
        error: str = "",
        parts: tuple[PartScore, ...] = (),
    ) -> None:
        self.metric, self.score = metric, score
        self.precision, self.recall, self.f1 = precision, recall, f1
        self.fields, self.pairings, self.floor_failures = fields, pairings, floor_failures
        self.truncated, self.conformance = truncated, conformance
        self.error, self.parts = error, parts

    @classmethod
    def unscored(cls, metric: str, error: str) -> "MatchResult":
        """A record that could not be scored: score 0, no fields, and why (``error``)."""
        return cls(metric, 0.0, 0.0, 0.0, 0.0, (), error=error)

    @classmethod
    def _build(
        cls,
        metric: str,
        score: float,
        precision: float,
        recall: float,
        f1: float,
        fields: tuple[FieldResult, ...] | MakeFields,
        pairings: tuple[Pairing, ...],
        floor_failures: tuple[FloorFailure, ...],
        conformance: Conformance | None = None,
    ) -> "MatchResult":
        """A result, as the engine makes one per comparison: its attributes set one by one
        in the order of a dict made whole (each store fills the instance's own values,
        about half the cost of building that dict and handing it over as ``__dict__``).
        ``fields`` may be a ``MakeFields`` that makes them when they are first read."""
        self = object.__new__(cls)
        self.metric = metric
        self.score = score
        self.precision = precision
        self.recall = recall
        self.f1 = f1
        self.pairings = pairings
        self.floor_failures = floor_failures
        self.truncated = None
        self.conformance = conformance
        self.error = ""
        self.parts = ()
        if type(fields) is tuple or isinstance(fields, tuple):  # (no call for a tuple)
            self.fields = fields
        else:
            self.__dict__[MAKE_FIELDS] = fields
        return self

    def with_conformance(self, conformance: Conformance | None) -> "MatchResult":
        """This result with ``conformance`` (fields not made yet are made when first read,
        as here)."""
        other = object.__new__(type(self))
        other.__dict__.update(self.__dict__)
        other.__dict__["conformance"] = conformance
        return other

    def __getstate__(self) -> dict[str, object]:
        """What pickle and copy keep: the fields made, never the way to make them."""
        self.fields  # noqa: B018 - made now when not yet made
        return self.__dict__

    def passed(self, threshold: float | None = 1.0, require_valid: bool = False) -> bool:
        """True when the score reaches ``threshold`` (1.0 when None), no field is below its
        ``min_score``, and every field could be scored (no ``batch_error``); with
        ``require_valid``, also when the answer is valid against the schema given."""
        limit = 1.0 if threshold is None else float(threshold)
        return (
            self.score >= limit - SCORE_EPSILON
            and not self.floor_failures
            and not self.batch_errors
            and not (require_valid and self.conformance is not None and not self.conformance.valid)
        )

    @property
    def batch_errors(self) -> int:
        """How many fields a batch comparator (an LLM judge) could not score: status
        ``batch_error``, left out of precision and recall; their ``reason`` says why."""
        if MAKE_FIELDS in self.__dict__:
            return 0  # fields made on demand: only where no judge scores any (match.py)
        # (counted in C: passed() reads it for every comparison, a golden case's three times)
        return countOf(map(STATUS_OF, self.fields), BATCH_ERROR)

    @property
    def counts(self) -> dict[str, int]:
        out = dict.fromkeys(STATUSES, 0)
        for fr in self.fields:
            out[fr.status] += 1
        return out

    def to_dict(self) -> JsonObject:
        return {
            "metric": self.metric,
            "score": self.score,
            "precision": self.precision,
            "recall": self.recall,
            "f1": self.f1,
            "fields": [
                {
                    "path": f.display_path,
                    "field_path": f.field_path or "$",
                    "status": f.status,
                    "score": f.score,
                }
                for f in self.fields
            ],
            **({"truncated": self.truncated.to_dict()} if self.truncated is not None else {}),
            **({"conformance": self.conformance.to_dict()} if self.conformance is not None else {}),
            **({"error": self.error} if self.error else {}),
            **({"parts": [_part_dict(p) for p in self.parts]} if self.parts else {}),
        }


class Part(Slotted):
    """One part of a result made of several: which it is (``name``), its headline
    ``score``, its rows at the paths they take in the whole table, the ``metric`` that
    scored it, and the conversation's ``turn`` it is of (None: no turn's)."""

    __slots__ = ("name", "score", "fields", "metric", "turn")

    def __init__(
        self,
        name: PartName,
        score: float,
        fields: Sequence[FieldResult],
        metric: str,
        turn: int | None = None,
    ) -> None:
        self.name, self.score = name, score
        self.fields, self.metric, self.turn = fields, metric, turn


def _part_dict(part: PartScore) -> dict[str, JsonValue]:
    """A part as ``to_dict`` writes it: its turn only where it has one."""
    out: dict[str, JsonValue] = part._asdict()
    if part.turn is None:
        del out["turn"]
    return out


# the statuses a row counts for in precision and recall, and so in the parts' weights
_COUNTED = frozenset({MATCH, MISMATCH, OMISSION, HALLUCINATION})


def counted_rows(fields: Iterable[FieldResult]) -> int:
    """How many of ``fields`` count in precision and recall: a part's weight in
    :func:`combined`."""
    return sum(1 for fr in fields if fr.status in _COUNTED)


def combined(
    parts: Sequence[Part],
    main: MatchResult | None = None,
    floor_failures: tuple[FloorFailure, ...] | None = None,
    label: str | None = None,
) -> MatchResult:
    """The parts as one result (docs/metrics.md, "An agent's reply: answer and calls"):
    their rows in order; the score their headlines weighted by counted rows (1.0 where no
    row counts); precision, recall and F1 from all rows; ``main``'s (the answer's)
    pairings, cut and conformance, and its floors unless ``floor_failures`` gives them all;
    what each part was (:class:`PartScore`) in ``parts``; its metric ``label``, or the
    parts' (:func:`parts_label`)."""
    if label is None:
        answer = next((p.metric for p in parts if p.name == "answer"), "")
        label = parts_label([p.name for p in parts], answer)
    weights = [counted_rows(part.fields) for part in parts]
    total = sum(weights)
    score = sum(w * p.score for w, p in zip(weights, parts)) / total if total else 1.0
    fields = tuple(fr for part in parts for fr in part.fields)
    if any(fr.weight != 1.0 for fr in fields):
        precision, recall = weighted_precision_recall(fields)
    else:
        precision, recall = precision_recall(fields)
    if floor_failures is None:
        floor_failures = () if main is None else main.floor_failures
    return MatchResult(
        label,
        min(max(score, 0.0), 1.0),
        precision,
        recall,
        f_beta(precision, recall),
        fields,
        () if main is None else main.pairings,
        floor_failures,
        None if main is None else main.truncated,
        None if main is None else main.conformance,
        parts=tuple(PartScore(p.name, p.metric, len(p.fields), p.score, p.turn) for p in parts),
    )


class ExactSum:
    """A sum of floats that does not depend on the order of its terms. Every finite float is
    an exact binary fraction, so each term is added exactly (as an integer count of 2**-1074
    units) and the total is rounded once when read: partial sums merged in any grouping, by
    xdist workers or worker processes, give the same bits as one pass.

    ``add`` only notes a term; the terms noted are counted into the units when these are
    read (or every PENDING terms), each distinct value once with how many times it came
    (``add_times``): a run's scores repeat (1.0 above all), and a count of 2**-1074 units
    is an integer of over a thousand bits, slow to add to one term at a time."""

    __slots__ = ("_units", "_pending")
    _ONE = 1 << 1074  # every finite float is a whole number of 2**-1074
    PENDING = 1024

    def __init__(self, units: int = 0) -> None:
        self._units = units
        self._pending: list[float] = []

    def add(self, value: float) -> None:
        pending = self._pending
        pending.append(value)
        if len(pending) >= self.PENDING:
            self._count_pending()

    def extend(self, values: Iterable[float]) -> None:
        """``add`` each of ``values``."""
        pending = self._pending
        pending.extend(values)
        if len(pending) >= self.PENDING:
            self._count_pending()

    def _count_pending(self) -> None:
        pending, self._pending = self._pending, []
        for value, times in Counter(pending).items():  # (0.0 and -0.0 add nothing alike)
            self.add_times(value, times)

    def __getstate__(self) -> tuple[int]:
        # (a worker's sums travel counted: the counting is done where the terms were
        # noted, in parallel, not where the parts merge; a tuple, never a false state,
        # which the oldest pickle protocols would not restore)
        return (self.units,)

    def __setstate__(self, state: tuple[int]) -> None:
        self._units, self._pending = state[0], []

    @property
    def units(self) -> int:
        """The exact sum, in units of 2**-1074."""
        if self._pending:
            self._count_pending()
        return self._units

    def merge(self, other: "ExactSum") -> None:
        """Add the terms of ``other`` (counted or only noted there; ``other`` unchanged)."""
        self._units += other._units
        self.extend(other._pending)

    @property
    def value(self) -> float:
        return self.units / self._ONE

    def add_times(self, value: float, times: int) -> None:
        """Add ``value`` ``times`` times (exactly what that many ``add`` calls add)."""
        if value == 1.0:
            self._units += times * self._ONE
        elif value != 0.0:
            # a float's denominator is a power of two, 2**k with k <= 1074: the units are
            # the numerator times 2**(1074 - k)
            numerator, denominator = float(value).as_integer_ratio()
            self._units += (times * numerator) << (1075 - denominator.bit_length())

    @classmethod
    def of(cls, value: float) -> "ExactSum":
        total = cls()
        total.add(value)
        return total


class FieldAggregate(Slotted):
    """Per field path over many comparisons: how often each status occurred and the sum of the
    scores (kept exactly, so that aggregates merge in any order to the same numbers)."""

    __slots__ = (
        "scored",
        "match",
        "mismatch",
        "omission",
        "hallucination",
        "batch_error",
        "total",
    )
    _uncompared = frozenset({"total"})

    scored: int
    match: int
    mismatch: int
    omission: int
    hallucination: int
    batch_error: int  # occurrences a batch comparator could not score (not in the mean)
    total: ExactSum

    def __init__(
        self,
        scored: int = 0,
        match: int = 0,
        mismatch: int = 0,
        omission: int = 0,
        hallucination: int = 0,
        batch_error: int = 0,
        total: ExactSum | None = None,
    ) -> None:
        self.scored, self.match, self.mismatch = scored, match, mismatch
        self.omission, self.hallucination, self.batch_error = omission, hallucination, batch_error
        self.total = ExactSum() if total is None else total

    @property
    def score_sum(self) -> float:
        return self.total.value

    @property
    def mean_score(self) -> float:
        return self.total.value / self.scored if self.scored else 1.0

    # names the struct-extract-eval reference uses
    @property
    def matches(self) -> int:
        return self.match

    @property
    def mismatches(self) -> int:
        return self.mismatch

    @property
    def omissions(self) -> int:
        return self.omission

    @property
    def hallucinations(self) -> int:
        return self.hallucination

    @property
    def batch_errors(self) -> int:
        return self.batch_error

    def add(self, fr: "Counted") -> None:
        """Count one field: anything with ``status`` and ``score`` (a FieldResult, or a
        report's recorded field)."""
        status = fr.status
        if status == MATCH:
            self.match += 1
        elif status == MISMATCH:
            self.mismatch += 1
        elif status == OMISSION:
            self.omission += 1
        elif status == HALLUCINATION:
            self.hallucination += 1
        else:
            if status == BATCH_ERROR:
                self.batch_error += 1
            return
        self.scored += 1
        self.total.add(fr.score)

    def add_times(self, status: str, score: float, times: int) -> None:
        """Count ``times`` fields of this status and score (what as many ``add`` calls of
        such a field count)."""
        if status == MATCH:
            self.match += times
        elif status == MISMATCH:
            self.mismatch += times
        elif status == OMISSION:
            self.omission += times
        elif status == HALLUCINATION:
            self.hallucination += times
        else:
            if status == BATCH_ERROR:
                self.batch_error += times
            return
        self.scored += times
        self.total.add_times(score, times)

    def merge(self, other: "FieldAggregate") -> None:
        """Add another aggregate of the same field (associative and order-independent)."""
        self.scored += other.scored
        self.match += other.match
        self.mismatch += other.mismatch
        self.omission += other.omission
        self.hallucination += other.hallucination
        self.batch_error += other.batch_error
        self.total.merge(other.total)

    def to_dict(self) -> JsonObject:
        out: JsonObject = {
            "mean_score": self.mean_score,
            "score_sum": self.score_sum,
            "scored": self.scored,
            "match": self.match,
            "mismatch": self.mismatch,
            "omission": self.omission,
            "hallucination": self.hallucination,
        }
        if self.batch_error:  # only when it happened: reports without batch errors keep their form
            out["batch_error"] = self.batch_error
        return out

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> "FieldAggregate":
        return cls(
            scored=int(data["scored"]),
            match=int(data["match"]),
            mismatch=int(data["mismatch"]),
            omission=int(data["omission"]),
            hallucination=int(data["hallucination"]),
            batch_error=int(data.get("batch_error", 0)),
            total=ExactSum.of(float(data["score_sum"])),
        )


Tally = tuple[str, str, float]  # (field path, status, score): what a field is counted by
_Field = TypeVar("_Field")  # what count_fields counts: FieldResults, a report's fields


if TYPE_CHECKING:  # (for type checkers: made at run time, a Protocol is a class built by typing)

    class Counted(Protocol):
        """What FieldAggregate.add counts: a FieldResult, or a report's recorded field."""

        @property
        def status(self) -> str: ...

        @property
        def score(self) -> float: ...


def field_tables(
    tallies: Mapping[Tally, int],
    into: dict[str, FieldAggregate] | None = None,
    skipped_too: bool = False,
) -> dict[str, FieldAggregate]:
    """Per field path, the aggregates of fields counted by (field path, status, score), as
    many times as each occurred (see :func:`count_fields`)."""
    out: dict[str, FieldAggregate] = {} if into is None else into
    for (path, status, score), times in tallies.items():
        if status == SKIPPED and not skipped_too:
            continue
        key = path or "$"
        aggregate = out.get(key)
        if aggregate is None:
            aggregate = out[key] = FieldAggregate()
        aggregate.add_times(status, score, times)
    return out


def aggregate_fields(results: Iterable[MatchResult]) -> dict[str, FieldAggregate]:
    """Per field path (``items[].sku``): mean score, and how often each status occurred."""
    out: dict[str, FieldAggregate] = {}
    count_fields(out, chain.from_iterable(result.fields for result in results), TALLY_OF)
    return out


# what count_fields reads of a field: of anything, by name; of a FieldResult (or a tally,
# which has its slots), by position: (field path, status, score)
_ANY_FIELD = attrgetter("field_path", "status", "score")
TALLY_OF = itemgetter(7, 1, 2)


def count_fields(
    into: dict[str, FieldAggregate],
    fields: Iterable[_Field],
    read: Callable[[_Field], tuple[str, str, float]] = _ANY_FIELD,
    skipped_too: bool = False,
) -> None:
    """Count ``fields`` (anything with ``field_path``, ``status`` and ``score``: FieldResults,
    a report's recorded fields) into ``into``, per field path (the root's ``""`` as ``$``).
    Skipped fields count nowhere; with ``skipped_too`` their path still gets its (empty)
    aggregate, as a report's tables list it.

    Fields are tallied first by (field path, status, score), which ``Counter`` does in C,
    then each distinct triple is added as many times as it occurred: most fields of most
    records share a few such triples (a match scores 1, an omission 0). The aggregates and
    their order (a path's first field first) are those of counting one field at a time,
    since an exact sum does not depend on the order of its terms.
    """
    field_tables(Counter(map(read, fields)), into, skipped_too)


class RunResult(HashedSlotted):
    """Many records scored with one metric: macro means over records, and per-field totals."""

    __slots__ = (
        "metric",
        "records",
        "per_field",
    )

    metric: str
    records: tuple[MatchResult, ...]
    per_field: dict[str, FieldAggregate]

    def __init__(
        self,
        metric: str,
        records: tuple[MatchResult, ...],
        per_field: dict[str, FieldAggregate] | None = None,
    ) -> None:
        self.metric, self.records = metric, records
        self.per_field = {} if per_field is None else per_field

    def _mean(self, name: str) -> float:
        if not self.records:
            return 1.0
        total: float = sum(getattr(r, name) for r in self.records)
        return total / len(self.records)

    @property
    def mean_score(self) -> float:
        return self._mean("score")

    @property
    def mean_precision(self) -> float:
        return self._mean("precision")

    @property
    def mean_recall(self) -> float:
        return self._mean("recall")

    @property
    def mean_f1(self) -> float:
        return self._mean("f1")

    @property
    def total_records(self) -> int:
        return len(self.records)

    @property
    def total_fields(self) -> int:
        """Fields scored (skipped ones and batch errors left out)."""
        return sum(
            1 for r in self.records for f in r.fields if f.status not in (SKIPPED, BATCH_ERROR)
        )

    @property
    def total_omissions(self) -> int:
        return sum(1 for r in self.records for f in r.fields if f.status == OMISSION)

    @property
    def total_hallucinations(self) -> int:
        return sum(1 for r in self.records for f in r.fields if f.status == HALLUCINATION)

    @property
    def total_batch_errors(self) -> int:
        """Fields a batch comparator could not score, over every record."""
        return sum(r.batch_errors for r in self.records)
