"""A shard's report held to itself before its comparisons are merged.

A shard's report is a CI artifact; the merge judges the whole run from it. What the report
says of a comparison is re-derived from what the report also holds, and refused
(:class:`ShardError`, naming the shard's file and the case) where the two disagree:

- a comparison's precision and recall from its field rows and the weights they record, as
  every metric counts them (engine/results/field_results.py); its F1 from those two; its
  score from them by its metric's headline (recall, F1, or an F-beta, which lies between
  precision and recall: the beta is an option the report does not record); a comparison
  made of parts (an agent's reply or run: ``parts``) scores each part by its metric's
  headline of the part's rows, and the whole as the engine's own ``combined`` makes it of
  them (a conversation's parts are each turn's, its rows under ``turns[k]``, turn by turn,
  then its end state's); its status from its score, threshold, fields and the floors its
  rows record (a passed comparison has no field below its floor); the span tree of a run
  read from a trace (``trace``) from itself and its rows (span_trees.py's ``tree_problem``);
- a case's runs from the run's settings (``run.settings.repeat``) and the runs its
  comparisons record it was asked for (``repeats``, where it repeats or sets its own
  ``repeat:``); a shard written before comparisons recorded them has the case's own
  ``repeat:`` read from its case file in the merge's root instead; a case's status
  (``cases``) from its runs, by the run's repeat rule.
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path

from ...engine.core.errors import JsonMatchError, shown
from ...engine.results.field_results import (
    BATCH_ERROR,
    PART_NAMES,
    SCORE_EPSILON,
    FieldResult,
    Part,
    PartScore,
    combined,
    f_beta,
    precision_recall,
    weighted_precision_recall,
)
from ..run_model.aggregate import case_result
from ..run_model.comparisons import ERROR, PASSED, SIMULATOR, Comparison, pair_id
from ..run_model.span_trees import tree_problem


class ShardError(JsonMatchError):
    """Shard reports that are not the shards of one run (named, with what differs)."""


_TOLERANCE = SCORE_EPSILON  # float noise between two sums of the same scores


def _near(a: float, b: float) -> bool:
    return abs(a - b) <= _TOLERANCE


def _field_results(comparison: Comparison) -> list[FieldResult]:
    """A comparison's field rows as the engine's fields: path, status, score and the weight
    each row records (1 when none)."""
    weights = [1.0] * len(comparison.fields)
    for i, weight, _ in comparison.field_rules:
        weights[i] = weight
    return [
        FieldResult(f.path, f.status, f.score, None, None, "", weight=w)
        for f, w in zip(comparison.fields, weights)
    ]


def _precision_recall(rows: Sequence[FieldResult], weighted: bool) -> tuple[float, float]:
    """(precision, recall) of ``rows`` by the engine's own weighted sum when ``weighted``,
    else by its plain count."""
    return weighted_precision_recall(rows) if weighted else precision_recall(rows)


def rows_precision_recall(comparison: Comparison) -> tuple[float, float]:
    """(precision, recall) of a comparison's field rows as the engine counts them: each
    field for the weight its row records (1 when none), by the engine's own weighted sum
    (``weighted_precision_recall``) when any field has a weight, else by its plain count."""
    return _precision_recall(_field_results(comparison), bool(comparison.field_rules))


def _below_floor(comparison: Comparison) -> str:
    """The first field whose row records a floor it scored below, as a message names it
    ("" when none does)."""
    for i, _, floor in comparison.field_rules:
        field = comparison.fields[i]
        if floor is not None and field.score < floor:
            return f"field {shown(field.path)} scoring {field.score!r} below its floor {floor!r}"
    return ""


def _headline_fits(name: str, score: float, precision: float, recall: float) -> bool:
    """Whether ``score`` is the headline the metric ``name`` makes of ``precision`` and
    ``recall`` (the metric's own ``headline_score``)."""
    from ...engine.metrics import METRICS

    metric = METRICS.get(name)
    if metric is not None and metric.beta is None:  # recall or F1: no option decides it
        made = metric.headline_score(precision, recall, f_beta(precision, recall), {})
        return _near(score, made)
    # an F-beta of unknown beta, or a metric this process does not know: a weighted
    # harmonic mean of precision and recall (recall and F1 among them)
    low, high = sorted((precision, recall))
    return low - _TOLERANCE <= score <= high + _TOLERANCE


def _parts_disagreement(comparison: Comparison) -> str:
    """Why a comparison made of parts (an agent's reply or run) does not score as its parts
    make it ("" when it does): each part's score is its metric's headline of the part's
    rows, and the comparison's the engine's own :func:`combined` of the parts, the code
    that scored it."""
    c = comparison
    rows = _field_results(c)
    held = sum(part.rows for part in c.parts)
    if held != len(rows):
        return f"its {len(c.parts)} parts hold {held} field rows, not its {len(rows)}"
    names = [part.name for part in c.parts]
    if names != sorted(set(names), key=PART_NAMES.index) and not _turn_by_turn(c.parts, rows):
        return (
            f"its parts are named {', '.join(names)}: each once, in the order {PART_NAMES} "
            f"(a conversation's each once within a turn, its turns in order, its state last)"
        )
    parts: list[Part] = []
    start = 0
    for part in c.parts:
        mine, start = rows[start : start + part.rows], start + part.rows
        precision, recall = _precision_recall(mine, bool(c.field_rules))
        if not _headline_fits(part.metric, part.score, precision, recall):
            return (
                f"its {part.metric} part (part {len(parts) + 1}) scores {part.score!r}, not "
                f"what {part.metric} makes of the precision {precision!r} and recall "
                f"{recall!r} of its {part.rows} field rows"
            )
        parts.append(Part(part.name, part.score, mine, part.metric))
    made = combined(parts).score
    if not _near(c.score, made):
        return (
            f"score {c.score!r} is not what {c.metric} makes of its parts' scores "
            f"({', '.join(repr(p.score) for p in c.parts)}) weighted by their rows ({made!r})"
        )
    return ""


def _turn_by_turn(parts: Sequence[PartScore], rows: Sequence[FieldResult]) -> bool:
    """Whether ``parts`` are a conversation's (engine/agents/conversation_scoring.py): each
    turn's parts, each naming its turn, named once within it and in the order of
    PART_NAMES, every row of each under that turn's ``turns[k]``, the turns in order; then
    at most one ``state`` part, one ``tau2`` part and one ``rubric`` part, in that order,
    of no turn and their rows under none."""
    from ...engine.agents.conversation_scoring import TURNS

    def turn(path: str) -> int | None:
        head, bracket, rest = path.partition("[")
        index, close, _ = rest.partition("]")
        ok = head == TURNS and bool(bracket and close) and index.isdigit()
        return int(index) if ok else None

    placed: list[tuple[float, int]] = []
    start = 0
    for part in parts:
        mine, start = rows[start : start + part.rows], start + part.rows
        turns, rank = {turn(fr.path) for fr in mine}, PART_NAMES.index(part.name)
        if part.name in ("state", "tau2", "rubric"):  # (the whole conversation's: last)
            if part.turn is not None or turns - {None}:
                return False  # the state's rows are under no turn
            placed.append((math.inf, rank))
        elif part.turn is None or turns - {part.turn}:
            return False  # a turn's part names its turn and holds the rows of that turn
        else:
            placed.append((part.turn, rank))
    return any(at < math.inf for at, _ in placed) and all(a < b for a, b in zip(placed, placed[1:]))


def _spoiled_disagreement(c: Comparison) -> str:
    """Why a comparison marked as spoiled by its simulated user (counted nowhere) could not
    have been ("" when it could): only a conversation's, unscored, saying the simulator's
    fault (engine/agents/simulated_user.py begins each so)."""
    if "+turns" not in c.metric:
        return f"it is marked spoiled by a simulated user, yet its metric {c.metric!r} is no conversation's"
    if not c.error.startswith("simulator: "):
        return "it is marked spoiled by a simulated user, yet says no fault of the simulator"
    if c.fields or c.parts:
        return "it is marked spoiled by a simulated user, yet was scored"
    return ""


def score_disagreement(comparison: Comparison) -> str:
    """Why a comparison's figures are not what its field rows give ("" when they are)."""
    c = comparison
    if c.status == SIMULATOR and (why := _spoiled_disagreement(c)):
        return why
    if c.status in (ERROR, SIMULATOR):
        return "" if c.score == 0.0 else f"it could not be scored, yet scores {c.score!r}"
    precision, recall = rows_precision_recall(c)
    if not (_near(c.precision, precision) and _near(c.recall, recall)):
        weighted = " and the weights they record" if c.field_rules else ""
        return (
            f"precision {c.precision!r} and recall {c.recall!r} are not what its "
            f"{len(c.fields)} field rows{weighted} give ({precision!r}, {recall!r})"
        )
    if not _near(c.f1, f_beta(c.precision, c.recall)):
        return f"F1 {c.f1!r} is not that of its precision {c.precision!r} and recall {c.recall!r}"
    if c.parts:
        why = _parts_disagreement(c)
        if why:
            return why
    elif not _headline_fits(c.metric, c.score, c.precision, c.recall):
        return (
            f"score {c.score!r} is not what {c.metric} makes of its precision "
            f"{c.precision!r}, recall {c.recall!r} and F1 {c.f1!r}"
        )
    return _status_disagreement(c)


def _status_disagreement(c: Comparison) -> str:
    """Why a comparison marked passed could not have passed ("" when it could)."""
    if c.status != PASSED:
        return ""  # a failed (or xfail) comparison gives no gate anything it did not earn
    if c.score < c.threshold - SCORE_EPSILON:
        return f"it passed with score {c.score!r} below its threshold {c.threshold!r}"
    if c.floor_failures:
        return "it passed with a field below its floor"
    below = _below_floor(c)
    if below:
        return f"it passed with {below}"
    if any(f.status == BATCH_ERROR for f in c.fields):
        return "it passed with a field the judge could not score"
    if c.conformance is not None and c.conformance.fails:
        return "it passed with an answer that breaks its schema, which fails it"
    if c.error:
        return "it passed with an error"
    return ""


def check_comparisons(where: str, comparisons: Iterable[Comparison]) -> None:
    """Each comparison's figures re-derived from its rows (:func:`score_disagreement`)."""
    for c in comparisons:
        why = score_disagreement(c)
        if not why and c.trace is not None:  # (a run read from a trace: its span tree)
            why = tree_problem(c.trace, [f.path for f in c.fields])
        if why:
            raise ShardError(
                f"{where}: case {shown(c.case_id)} run {c.repeat}: {why}: the shard's "
                f"report does not agree with itself"
            )


def by_case(comparisons: Iterable[Comparison]) -> dict[str, list[Comparison]]:
    """The comparisons of each case, by case id, in the order given."""
    out: dict[str, list[Comparison]] = {}
    for c in comparisons:
        out.setdefault(c.case_id, []).append(c)
    return out


def session_runs(settings: Mapping[str, object]) -> int:
    """The runs of each ``input`` case the run's settings give (``repeat``: ``[N] RULE``)."""
    words = str(settings.get("repeat", "")).split()
    return int(words[0]) if words and words[0].isdigit() else 1


def _case_metric(settings: Mapping[str, object]) -> str:
    """The session's default metric, as the run recorded it (case files are read under it)."""
    try:
        defaults = json.loads(str(settings.get("defaults", "{}")))
    except ValueError:
        defaults = {}
    metric = defaults.get("metric") if isinstance(defaults, dict) else None
    return metric if isinstance(metric, str) else "field_f1"


# A golden case file read as each case's own repeat count (None: the case sets none; 1: a
# case with no input to repeat) and the SHA-256 of the bytes read, from (root, path, the
# session's default metric). The command that merges gives it: reading case files belongs
# to cases/, a stage above this one.
CaseFileReader = Callable[[Path, Path, str], tuple[dict[str, int | None], str | None]]


class OwnRepeats:
    """Each golden case's own ``repeat:``, read from its case file in the merge's ``root``,
    the file the shard ran (its SHA-256 is the one the shard's provenance records)."""

    def __init__(
        self,
        root: str,
        where: str,
        settings: Mapping[str, object],
        golden: object,
        read: CaseFileReader | None,
    ):
        self.root, self.where, self.read = Path(root).resolve(), where, read
        self.metric = _case_metric(settings)
        self.golden = golden if isinstance(golden, dict) else {}
        self._read: dict[str, dict[str, int | None]] = {}

    def of(self, c: Comparison) -> int | None:
        """The case's own ``repeat:`` (None: it sets none); ShardError when its case file
        cannot be read as the one the shard ran."""
        cases = self._read.get(c.file)
        if cases is None:
            cases = self._read[c.file] = self._load(c.file, c.case_id)
        name = pair_id(c.case_id, c.target).rpartition("::")[2]
        if name not in cases:
            raise ShardError(
                f"{self.where}: case {shown(c.case_id)}: its case file {shown(c.file)} in "
                f"{str(self.root)!r} has no case {shown(name)}"
            )
        return cases[name]

    def _load(self, file: str, case_id: str) -> dict[str, int | None]:
        why = f"{self.where}: case {shown(case_id)} ran a number of times other than the " + (
            "shard's settings give; its case file "
        )
        path = (self.root / file).resolve()
        if os.path.isabs(file) or not path.is_relative_to(self.root) or not path.is_file():
            raise ShardError(
                f"{why}{shown(file)}, which could say why, is not a file inside "
                f"{str(self.root)!r}: run merge from the shards' root dir"
            )
        if self.read is None:
            raise ShardError(f"{why}{shown(file)} cannot be read by this merge (no reader given)")
        try:
            repeats, sha256 = self.read(self.root, path, self.metric)
        except JsonMatchError as exc:
            raise ShardError(
                f"{why}{shown(file)} cannot be read: {exc}; the shard records no count of "
                f"the case's runs (comparisons[].repeats), as a report of an older "
                f"pytest-jsonmatch: run the shards with this version, whose reports merge "
                f"without their case files"
            ) from None
        if repeats and sha256 != self.golden.get(file):
            raise ShardError(
                f"{why}{shown(file)} in {str(self.root)!r} is not the one the shard ran "
                f"(run.provenance.golden records another SHA-256)"
            )
        return repeats


def check_runs(
    where: str,
    cases: Mapping[str, Sequence[Comparison]],
    settings: Mapping[str, object],
    own: OwnRepeats,
    complete: bool,
) -> None:
    """Each case run as many times as the settings and its own ``repeat:`` give: runs
    0..k-1, k the session's count for a golden case whose output comes from its target
    (unless its runs record another: ``repeats``, the runs it was asked for, as a trace
    case's record the runs its file holds; a shard that records none has the case's own
    ``repeat:`` read from its case file), one for any other;
    fewer only when its last run could not be scored (which ends a case) or the shard
    stopped early."""
    count = session_runs(settings)
    for case_id, runs in cases.items():
        indices = sorted(c.repeat for c in runs)
        if indices != list(range(len(runs))):
            raise ShardError(
                f"{where}: case {shown(case_id)}: its runs are numbered {_few(indices)}, "
                f"not 0 to {len(runs) - 1}"
            )
        first = runs[0]
        golden = not first.file.endswith(".py") and first.source in ("live", "replayed")
        # (a case file's: a trace case's runs, as many as its file holds, record theirs too)
        asked = None if first.file.endswith(".py") else _asked(where, case_id, runs)
        want = asked if asked is not None else count if golden else 1
        if golden and asked is None and len(runs) != want:
            own_count = own.of(first)  # (a shard written before runs recorded their count)
            want = own_count if own_count is not None else count
        last = max(runs, key=lambda c: c.repeat)
        short = len(runs) < want and (last.status == ERROR or not complete)
        if len(runs) != want and not short:
            raise ShardError(
                f"{where}: case {shown(case_id)} has {len(runs)} runs where the shard's "
                f"settings (run.settings.repeat {str(settings.get('repeat', ''))!r}) and its "
                f"case give {want}"
            )


def _asked(where: str, case_id: str, runs: Sequence[Comparison]) -> int | None:
    """The runs a case's comparisons record it was asked for (None: they record none);
    ShardError where its runs record different counts."""
    asked = {c.repeats for c in runs}
    if len(asked) > 1:
        said = ", ".join("none" if k is None else str(k) for k in sorted(asked, key=str))
        raise ShardError(
            f"{where}: case {shown(case_id)}: its runs record different counts of runs asked "
            f"for (repeats: {said})"
        )
    return asked.pop()


def _few(indices: Sequence[int]) -> str:
    text = ", ".join(map(str, indices[:8]))
    return text + (", ..." if len(indices) > 8 else "")


def check_cases(
    where: str,
    listed: Sequence[Mapping[str, object]],
    cases: Mapping[str, Sequence[Comparison]],
    rule: str,
) -> None:
    """Each case the shard lists (``cases``) as its runs make it: the same cases, each of
    the status and number of runs its comparisons give by the run's repeat ``rule``."""
    seen = set()
    for entry in listed:
        case_id = str(entry.get("case_id"))
        seen.add(case_id)
        runs = cases.get(case_id)
        if runs is None:
            raise ShardError(f"{where}: case {shown(case_id)} is listed but has no comparison")
        made = case_result(runs, rule)
        if entry.get("status") != made.status.value or entry.get("runs") != made.runs:
            raise ShardError(
                f"{where}: case {shown(case_id)} is listed as {shown(entry.get('status'))} "
                f"over {entry.get('runs')!r} runs; its comparisons make it {made.status.value} "
                f"over {made.runs}"
            )
    for case_id in cases:
        if case_id not in seen:
            raise ShardError(f"{where}: case {shown(case_id)} has comparisons but is not listed")
