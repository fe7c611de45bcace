"""A dataset's comparisons (and cases) written as report lines, straight from the engine's
field results.

A dataset's JSON report holds every comparison with every field (10,000 invoices: 261,000
fields). :func:`comparison_line` writes one comparison's line as the report stores it,
``json_line(stored_comparison(comparison_dict(...), heads, 0))`` byte for byte, without a
dict per field: each field a row of the chunk's table of heads (field_rows.py), and
:func:`case_line` a case's as ``json_line(case_dict(...))`` does. A line is put together
from texts ``json`` writes itself: its string escaping (``encode_basestring``, which takes
any ``str`` and refuses anything else), a float as ``float.__repr__`` gives it, a whole
number as ``int.__repr__`` does. A float's text is kept by its value, in a dict cleared
when it grows past a bound (``repr`` of a float is the costliest step of a line: about half
a microsecond for ``0.6538461538461539``; a comparison's scores and a field's values repeat
it), zeros left out (a negative zero equals 0.0 as a key).

Anything out of the ordinary takes the way records writes it: a field with a side missing,
a value cut (``short``), a container, an integer of 16 digits or more, a float that is not
finite, or a subclass, has its sides kept by ``records.kept_value`` (records' own rule); an
entry with pairings, floors, a call, a cut answer or a target, or a case with a cut answer
or a target, is written by ``json_line`` of its dict (an answer's conformance, a dataset's
with ``--schema``, is written into the line: ``encode_json`` of its dict, the entry's last
key; a case's two counts).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from math import copysign
from typing import TYPE_CHECKING, Any

from ...engine.core.slotted import Slotted
from ...engine.core.values import MISSING
from ...engine.results.field_results import MATCH
from .aggregate import case_dict, case_passes, group_key
from .comparisons import (
    FAILED,
    PASSED,
    SHORT_INT,
    SHORT_STR,
    Status,
    comparison_dict,
    kept_value,
)
from .field_rows import same_value, stored_comparison
from .spool import encode_json, json_line

if TYPE_CHECKING:
    from ...engine.results.field_results import FieldResult, MatchResult
    from .aggregate import CaseResult
    from .comparisons import (
        Comparison,
    )
    from .field_rows import Heads

_encode = json.JSONEncoder(ensure_ascii=False, allow_nan=False).encode

_encode_str = json.encoder.encode_basestring  # what json.dumps(..., ensure_ascii=False) uses

# A finite, non-zero float's text by its value.
_floats: dict[float, str] = {}
_FLOATS_KEPT = 16_384
# A status's JSON text by the status.
_STATUSES = {status: _encode_str(status.value) for status in Status}


def comparison_line(
    comparison: Comparison,
    fields: Sequence[FieldResult],
    mode: str,
    heads: Heads,
    rows: str | None = None,
) -> str:
    """``json_line(stored_comparison(comparison_dict(comparison, fields, mode), heads, 0))``
    (see the module docstring): the line of a chunk's comparison, its fields rows of the
    chunk's ``heads``; ``rows``: those rows' text, written already (row_writer.py; never
    with floor failures, whose heads say them)."""
    text = rows if rows is not None else fields_text(fields, mode, heads)
    if text is None or comparison.floor_failures:
        # fields with weights or floors: their rows' heads say them (records' own rule)
        return json_line(stored_comparison(comparison_dict(comparison, fields, mode), heads, 0))
    plain = _plain_entry(comparison, text)
    if plain is not None:
        return plain
    entry: dict[str, object] = {"heads": 0}
    entry.update(comparison.to_dict())
    entry["fields"] = []
    # The first '"fields": []' of the entry's text is its key: the keys before it hold
    # numbers and strings, and a string's own quotes are escaped.
    return json_line(entry).replace('"fields": []', f'"fields": [{text}]', 1)


def _plain_entry(c: Comparison, fields: str) -> str | None:
    """A dataset comparison's line as ``json_line`` writes ``c.to_dict()`` with ``fields``
    its fields' text, when the entry holds only strings, whole numbers and finite floats
    and no pairings, floors, call, cut or target (a dataset's usual entry; its conformance,
    the last key when there is one, written by ``encode_json``); else None."""
    if c.pairings or c.floor_failures or c.call is not None or c.truncated is not None or c.target:
        return None
    parts = _plain_parts(
        (c.case_id, c.nodeid, c.metric, c.error, c.file, c.source, c.recording),
        (c.score, c.threshold, c.precision, c.recall, c.f1),
        c.status,
        (c.seq, c.repeat, c.line),
    )
    if parts is None:
        return None
    end = (
        "}"
        if c.conformance is None
        else f', "conformance": {encode_json(c.conformance.to_dict())}}}'
    )
    return parts[0] + fields + parts[1] + end


def scored_lines(
    result: MatchResult,
    case_id: str,
    threshold: float,
    passed: bool,
    place: tuple[str, int | None],
    mode: str,
    heads: Heads,
    rows: str | None = None,
    group_by: str | None = None,
) -> tuple[str, str] | None:
    """The :func:`comparison_line` of the comparison a dataset records for ``result`` (its
    case ``case_id``, also its node id; its file and line ``place``; no field kept in it,
    ``scoring.comparison_of``), bare as a part keeps it (``spool.bare``: the spool writes
    its table's index), written without making that Comparison, and with
    ``group_by`` also the line of the pair's case (``case_line(one_run_case(result, ...),
    group_by)``; "" without), both from one set of texts: a one-run case's figures are its
    comparison's (its mean, low and high the score). None for an unusual result (a pairing,
    a floor failure, a cut answer or a conformance, a figure that is no float), before any
    of its fields is written: the caller makes its Comparison. ``rows``: the text of its
    fields' rows, written already (row_writer.py).
    The texts of a result's figures and of what a run's lines share are kept together, by
    the figures (zeros left out: a negative zero is found by 0.0), so that a usual pair's
    two lines are two templates filled."""
    if (
        result.pairings
        or result.floor_failures
        or result.truncated is not None
        or result.conformance is not None
        or type(threshold) is not float
        or type(case_id) is not str
    ):
        return None
    line_at = place[1]
    if line_at is None:
        line_text = "null"
    elif type(line_at) is int:
        line_text = repr(line_at)
    else:
        return None
    key = (result.metric, place[0], threshold, group_by)
    score, precision, recall, f1 = result.score, result.precision, result.recall, result.f1
    figures = (score, precision, recall, f1, passed)
    texts = _SCORED.get(key)
    found = (
        texts.get(figures)
        if texts is not None
        # (a figure that is no float, such as 1 or True, would find 1.0's texts)
        and type(score) is float
        and type(precision) is float
        and type(recall) is float
        and type(f1) is float
        else None
    )
    if found is None:
        found = _scored_texts(key, figures)
        if found is None:
            return None
    text = rows if rows is not None else fields_text(result.fields, mode, heads)
    if text is None:
        return None
    case = _encode_str(case_id)
    comparison_line = (
        f'"case_id": {case}, "nodeid": {case}, "seq": 0, "repeat": 0, '
        f'{found[0]}{line_text}, "fields": [{text}], "pairings": [], "floor_failures": [], '
        '"source": "case", "recording": ""}'
    )
    if group_by is None:
        return comparison_line, ""
    return comparison_line, f'{{"case_id": {case}, {found[1]}{line_text}{found[2]}'


# A result's score, precision, recall, F1 and whether it passed.
_Figures = tuple[float, float, float, float, bool]
# What a run's usual lines share (scored_lines): by (metric, file, threshold, group_by), the
# texts of the lines of a result's figures, kept while the run's figures repeat (a dataset's
# records have few field counts)
_SCORED: dict[tuple[object, object, float, str | None], dict[_Figures, tuple[str, ...]]]
_SCORED = {}
_SCORED_KEPT = 16_384


def _scored_texts(
    key: tuple[object, object, float, str | None], figures: _Figures
) -> tuple[str, ...] | None:
    """The texts of :func:`scored_lines` for a run's ``key`` and a result's ``figures``:
    the comparison line's text from its metric to its ``"line": ``, the case line's from its
    metric to its ``"line": `` and after its line number (empty without a ``group_by``),
    kept where no figure is zero; None where a figure is not a finite float, or the metric
    or the file not a string."""
    metric, file, threshold, group_by = key
    score, precision, recall, f1, passed = figures
    number = _float_text
    score_text, precision_text, recall_text, f1_text = (
        number(score),
        number(precision),
        number(recall),
        number(f1),
    )
    threshold_text = number(threshold)
    if (
        score_text is None
        or precision_text is None
        or recall_text is None
        or f1_text is None
        or threshold_text is None
        or type(metric) is not str
        or type(file) is not str
    ):
        return None
    metric_text, file_text = _encode_str(metric), _encode_str(file)
    comparison = (
        f'"metric": {metric_text}, "status": {_STATUSES[PASSED if passed else FAILED]}, '
        f'"score": {score_text}, "threshold": {threshold_text}, "precision": {precision_text}, '
        f'"recall": {recall_text}, "f1": {f1_text}, "error": "", "file": {file_text}, '
        '"line": '
    )
    found: tuple[str, ...] = (comparison,)
    if group_by is not None:
        # one_run_case's figures: its status by the score alone (no floor, no conformance
        # here), its mean and its precision, recall and F1 plus 0.0 (a negative zero made 0.0)
        status = PASSED if case_passes((score,), threshold) else FAILED
        plus = [number(value + 0.0) for value in (score, precision, recall, f1)]
        group = _encode_str(group_key(_Grouped(metric, file), group_by))
        found += (
            f'"metric": {metric_text}, "status": {_STATUSES[status]}, '
            f'"threshold": {threshold_text}, "runs": 1, "mean_score": {plus[0]}, '
            f'"min_score": {score_text}, "max_score": {score_text}, '
            f'"passed_runs": {int(passed)!r}, "precision": {plus[1]}, "recall": {plus[2]}, '
            f'"f1": {plus[3]}, "file": {file_text}, "line": ',
            f', "error": "", "group": {group}}}',
        )
    if threshold and score and precision and recall and f1:  # (-0.0 would find 0.0's texts)
        texts = _SCORED.get(key)
        if texts is None or len(texts) >= _SCORED_KEPT:
            if len(_SCORED) >= 64:
                _SCORED.clear()
            texts = _SCORED[key] = {}
        texts[figures] = found
    return found


class _Grouped(Slotted):
    """A dataset case's metric and file, as ``group_key`` reads a case (no target)."""

    __slots__ = ("metric", "file", "target")

    def __init__(self, metric: str, file: str) -> None:
        self.metric, self.file, self.target = metric, file, ""


def _plain_parts(
    texts: tuple[str, str, str, str, str, str, str],
    figures: tuple[float, float, float, float, float],
    status: Status,
    numbers: tuple[int, int, int | None],
) -> tuple[str, str] | None:
    """A plain entry's text before its fields and after them, up to its conformance: the
    entry's (case id, node id, metric, error, file, source, recording), (score,
    threshold, precision, recall, f1), status and (seq, repeat, line); None when a
    figure is not a finite float, a text not a string or a number not a whole one."""
    number = _float_text
    score, threshold, precision, recall, f1 = map(number, figures)
    status_text = _STATUSES.get(status)
    seq, repeat, line_at = numbers
    if (
        score is None
        or threshold is None
        or precision is None
        or recall is None
        or f1 is None
        or status_text is None
        or type(seq) is not int
        or type(repeat) is not int
        or not (line_at is None or type(line_at) is int)
    ):
        return None
    try:
        case_id, nodeid, metric, error, file, source, recording = map(_encode_str, texts)
    except TypeError:  # a value that is not a string
        return None
    line = "null" if line_at is None else repr(line_at)
    return (
        f'{{"heads": 0, "case_id": {case_id}, "nodeid": {nodeid}, "seq": {seq!r}, '
        f'"repeat": {repeat!r}, "metric": {metric}, "status": {status_text}, '
        f'"score": {score}, "threshold": {threshold}, "precision": {precision}, '
        f'"recall": {recall}, "f1": {f1}, "error": {error}, "file": {file}, '
        f'"line": {line}, "fields": [',
        f'], "pairings": [], "floor_failures": [], "source": {source}, "recording": {recording}',
    )


def fields_text(fields: Sequence[FieldResult], mode: str, table: Heads) -> str | None:
    """The fields as ``json_line`` writes their rows (``field_rows.Heads.row`` of
    ``records._field_dict(kept)``, ``kept`` being what ``records._kept_fields`` keeps of
    each per ``mode``), without the brackets: the rows made as lists and written by one
    call of the encoder. A match scoring 1.0 whose two values are one usual leaf kept whole
    (most fields) is found by its path alone (``Heads.matched``). None, when a field counts
    for other than 1 (its head says its weight: ``records.comparison_dict`` writes it); a
    head may then have been added to the table, which any later row may use."""
    found, known, matched = table.found, table.known, table.matched
    keep, full = mode != "none", mode == "full"
    rows: list[tuple[int, object] | list[object]] = []
    append = rows.append
    values: tuple[Any, ...]
    for field in fields:
        expected = field[3]
        kind = type(expected)
        if (
            keep
            and kind is type(field[4])
            and expected == field[4]
            and field[1] == MATCH
            and field[2] == 1.0
            and field[9] == 1.0
            and (
                (kind is str and (full or len(expected) <= SHORT_STR))
                or (kind is int and -SHORT_INT < expected < SHORT_INT)
                or kind is bool
                or expected is None
                or (
                    kind is float
                    and expected - expected == 0.0
                    and (expected or copysign(1.0, expected) == copysign(1.0, field[4]))
                )
            )
        ):
            head = matched.get(field[0])
            if head is None or head[0] != field[7]:
                head = (field[7], found(field[0], field[7], MATCH, "=", 1.0)[0])
                matched[field[0]] = head
            append((head[1], expected))
            continue
        path, status, score, expected, actual, _, _, field_path, _, weight, _ = field
        if weight != 1.0:
            return None
        if not keep:
            sides, values = "", ()
        else:
            kind = type(expected)
            if kind is type(actual) and (
                (kind is str and (full or (len(expected) <= SHORT_STR >= len(actual))))
                or (
                    kind is int
                    and -SHORT_INT < expected < SHORT_INT
                    and -SHORT_INT < actual < SHORT_INT
                )
                or kind is bool
                or expected is None
                or (kind is float and expected - expected == 0.0 and actual - actual == 0.0)
            ):
                # both usual leaves, kept whole; a float's sign is its own (-0.0 == 0.0)
                if expected == actual and (kind is not float or repr(expected) == repr(actual)):
                    sides, values = "=", (expected,)
                else:
                    sides, values = "ea", (expected, actual)
            else:
                sides, values = _sides(expected, actual, mode)
        got = known.get((path, field_path, status, sides, score))
        if got is None or (not score and copysign(1.0, score) < 0.0):
            got = found(path, field_path, status, sides, score)
        append([got[0], float(score), *values] if got[1] else [got[0], *values])
    return _encode(rows)[1:-1]


def _float_text(value: Any) -> str | None:
    """A finite float's JSON text (``float.__repr__``, which ``json`` writes), kept by
    value; None for anything else (not a float, a subclass, a float that is not finite)."""
    if type(value) is not float:
        return None
    text = _floats.get(value)
    if text is None:
        if value - value != 0.0:  # inf, -inf, nan
            return None
        text = repr(value)
        if value:  # -0.0 would be found by 0.0
            if len(_floats) >= _FLOATS_KEPT:
                _floats.clear()
            _floats[value] = text
    return text


def _sides(expected: Any, actual: Any, mode: str) -> tuple[str, tuple[Any, ...]]:
    """A field's ``sides`` and its row's values: each present side's value as records
    keeps it (``records.kept_value``, ``!`` after the side's letter for a value that was
    cut); one value for both sides when they are the same leaf, neither cut
    (``field_rows.same_value``)."""
    sides, values = "", []
    for letter, value in (("e", expected), ("a", actual)):
        if value is MISSING:
            continue
        kept, cut = kept_value(value, mode)
        values.append(kept)
        sides += letter + ("!" if cut else "")
    if sides == "ea" and same_value(values[0], values[1]):
        return "=", (values[0],)
    return sides, tuple(values)


# (metric, file, group) -> their texts in a case's line (case_line): a dataset's cases share them
_CASE_TEXTS: dict[tuple[object, object, object], tuple[str, str, str]] = {}


def case_line(case: CaseResult, group_by: str) -> str:
    """``json_line(case_dict(case, group_by))``: from a template when the case holds only
    strings, whole numbers and finite floats and nothing optional but a conformance count
    (no answer cut, no named target, no run left undecided), a dataset's usual case; else
    by the dict."""
    if (
        case.truncated
        or case.target
        or case.undecided
        or type(case.checked) is not int
        or type(case.valid) is not int
    ):
        return json_line(case_dict(case, group_by))
    number = _float_text
    threshold, mean, low, high = (
        number(case.threshold),
        number(case.mean),
        number(case.low),
        number(case.high),
    )
    precision, recall, f1 = number(case.precision), number(case.recall), number(case.f1)
    status = _STATUSES.get(case.status)
    if (
        threshold is None
        or mean is None
        or low is None
        or high is None
        or precision is None
        or recall is None
        or f1 is None
        or status is None
        or type(case.runs) is not int
        or type(case.passed_runs) is not int
        or not (case.line is None or type(case.line) is int)
    ):
        return json_line(case_dict(case, group_by))
    encode = _encode_str
    try:
        case_id, error = encode(case.case_id), encode(case.error)
        shared = (case.metric, case.file, group_key(case, group_by))
        texts = _CASE_TEXTS.get(shared)
        if texts is None:
            if len(_CASE_TEXTS) >= 64:
                _CASE_TEXTS.clear()
            texts = _CASE_TEXTS[shared] = (encode(shared[0]), encode(shared[1]), encode(shared[2]))
        metric, file, group = texts
    except TypeError:  # a value that is not a string
        return json_line(case_dict(case, group_by))
    line = "null" if case.line is None else repr(case.line)
    return (
        f'{{"case_id": {case_id}, "metric": {metric}, "status": {status}, '
        f'"threshold": {threshold}, "runs": {case.runs!r}, '
        f'"mean_score": {mean}, "min_score": {low}, "max_score": {high}, '
        f'"passed_runs": {case.passed_runs!r}, "precision": {precision}, '
        f'"recall": {recall}, "f1": {f1}, "file": {file}, "line": {line}, '
        f'"error": {error}, '
        + (
            f'"conformance": {{"checked": {case.checked!r}, "valid": {case.valid!r}}}, '
            if case.checked
            else ""
        )
        + f'"group": {group}}}'
    )
