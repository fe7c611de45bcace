"""A dataset's comparisons (and cases) written as report lines, straight from the engine's
field results.

A dataset's JSON report holds every comparison with every field (10,000 invoices: 260,000
fields, most of the report's 44 MB). :func:`comparison_line` writes one comparison's line as
``json_line(comparison_dict(...))`` writes it, byte for byte, without a dict per field: each
field's text is put together from pieces ``json`` writes itself (its string escaping, and
the numbers as ``repr`` gives them, which is what ``json.dumps`` writes for them), the
path, field path and status of a field once per distinct path (they repeat from record to
record). A value that is not a plain string, number, boolean or null, and a field with a
side missing or cut, is written by ``json.dumps`` as before.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from ..engine.core.values import MISSING
from ..engine.results.field_results import FieldResult
from .aggregate import CaseResult, group_key
from .records import VALUE_LIMIT, Comparison, _field_dict, _kept_fields, comparison_dict
from .report import case_dict
from .spool import json_line

_encode_str = json.encoder.encode_basestring  # what json.dumps(..., ensure_ascii=False) uses

# '{"path": P, "field_path": F, "status": S, "score": ' by (path, field path, status); a
# dataset's fields repeat their paths, so the cache stays small (cleared at _HEADS_KEPT).
_heads: dict[tuple[str, str, str], str] = {}
_HEADS_KEPT = 50_000


def comparison_line(comparison: Comparison, fields: Sequence[FieldResult], mode: str) -> str:
    """``json_line(comparison_dict(comparison, fields, mode))`` (see the module docstring)."""
    if mode == "none":  # no values: one json.dumps of the whole entry is quicker
        return json_line(comparison_dict(comparison, fields, mode))
    plain = _plain_entry(comparison, _fields_text(fields, mode))
    if plain is not None:
        return plain
    entry = comparison.to_dict()
    entry["fields"] = []
    # The first '"fields": []' of the entry's text is its key: the keys before it hold
    # numbers and strings, and a string's own quotes are escaped.
    return json_line(entry).replace('"fields": []', f'"fields": [{_fields_text(fields, mode)}]', 1)


def _plain_entry(c: Comparison, fields: str) -> str | None:
    """A dataset comparison's line as ``json_line`` writes ``c.to_dict()`` with ``fields``
    its fields' text, when the entry holds only strings, whole numbers and finite floats
    and no pairings, floors, call, cut, target or conformance (a dataset's usual entry);
    else None."""
    if (c.pairings or c.floor_failures or c.call is not None or c.truncated is not None
            or c.target or c.conformance is not None):
        return None
    numbers = (c.score, c.threshold, c.precision, c.recall, c.f1)
    strings = (c.case_id, c.nodeid, c.metric, c.status.value, c.error, c.file, c.source,
               c.recording)
    if not _plain(numbers, strings, (c.seq, c.repeat), c.line):
        return None
    case_id, nodeid, metric, status, error, file, source, recording = map(_encode_str, strings)
    score, threshold, precision, recall, f1 = map(float.__repr__, numbers)
    line = "null" if c.line is None else int.__repr__(c.line)
    return (f'{{"case_id": {case_id}, "nodeid": {nodeid}, "seq": {int.__repr__(c.seq)}, '
            f'"repeat": {int.__repr__(c.repeat)}, "metric": {metric}, "status": {status}, '
            f'"score": {score}, "threshold": {threshold}, "precision": {precision}, '
            f'"recall": {recall}, "f1": {f1}, "error": {error}, "file": {file}, '
            f'"line": {line}, "fields": [{fields}], "pairings": [], "floor_failures": [], '
            f'"source": {source}, "recording": {recording}}}')


def _fields_text(fields: Sequence[FieldResult], mode: str) -> str:
    """The fields as ``json_line`` writes the list of ``records._field_dict(kept)``,
    ``kept`` being what records._kept_fields keeps of each per ``mode`` (``short`` or
    ``full``), without the brackets."""
    cut = mode != "full"
    heads, text, encode = _heads, _text, _encode_str
    out = []
    for f in fields:
        # FieldResult: path, status, score, expected, actual, ..., field_path (7)
        expected, actual = f[3], f[4]
        e: str | None
        if type(expected) is str:
            e = encode(expected)
            # a field that matched holds the same string twice, most of the time
            a = e if actual == expected else (
                encode(actual) if type(actual) is str else text(actual))
        else:
            e = text(expected)
            a = encode(actual) if type(actual) is str else text(actual)
        if e is None or a is None or (cut and (len(e) > VALUE_LIMIT or len(a) > VALUE_LIMIT)):
            # a side missing, a container, a value cut: as records writes it
            out.append(json_line(_field_dict(next(_kept_fields((f,), mode, MISSING)))))
            continue
        key = (f[0], f[7], f[1])
        start = heads.get(key)
        if start is None:
            if len(heads) >= _HEADS_KEPT:
                heads.clear()
            path, field_path, status = f[0] or "$", f[7] or "$", f[1]
            start = heads[key] = (f'{{"path": {encode(path)}, "field_path": '
                                  f'{encode(field_path)}, "status": {encode(status)}, '
                                  f'"score": ')
        score = float(f[2])
        out.append(f'{start}{"1.0" if score == 1.0 else repr(score)}, "expected": {e}, '
                   f'"actual": {a}}}')
    return ", ".join(out)


def _text(value: Any) -> str | None:
    """A plain number, boolean or null's JSON text as ``json.dumps`` writes it; None for
    anything else (a container, a subclass, a side missing, a float that is not finite)."""
    kind = type(value)
    if kind is float:
        return float.__repr__(value) if value - value == 0.0 else None
    if kind is int:
        # an integer of more than 4,300 digits has no text (records describes it instead)
        return int.__repr__(value) if -_LONG_INT < value < _LONG_INT else None
    if kind is bool:
        return "true" if value else "false"
    return "null" if value is None else None


_LONG_INT = 10**200


def _plain(floats: tuple[Any, ...], strings: tuple[Any, ...], ints: tuple[Any, ...],
           line: Any) -> bool:
    """Whether a template writes these values as ``json`` does: finite floats, strings,
    whole numbers (not booleans), and a line that is a whole number or None."""
    return (all(type(x) is float and x - x == 0.0 for x in floats)
            and all(type(x) is str for x in strings)
            and all(type(x) is int for x in ints)
            and (line is None or type(line) is int))


def case_line(case: CaseResult, group_by: str) -> str:
    """``json_line(case_dict(case, group_by))``: from a template when the case holds only
    strings, whole numbers and finite floats and nothing optional (no answer cut, none
    checked against a schema, no named target), a dataset's usual case; else by the dict."""
    if case.truncated or case.checked or case.target:
        return json_line(case_dict(case, group_by))
    numbers = (case.threshold, case.mean, case.low, case.high, case.precision, case.recall,
               case.f1)
    group = group_key(case, group_by)
    strings = (case.case_id, case.metric, case.status.value, case.error, case.file, group)
    if not _plain(numbers, strings, (case.runs, case.passed_runs), case.line):
        return json_line(case_dict(case, group_by))
    case_id, metric, status, error, file, group = map(_encode_str, strings)
    threshold, mean, low, high, precision, recall, f1 = map(float.__repr__, numbers)
    line = "null" if case.line is None else int.__repr__(case.line)
    return (f'{{"case_id": {case_id}, "metric": {metric}, "status": {status}, '
            f'"threshold": {threshold}, "runs": {int.__repr__(case.runs)}, '
            f'"mean_score": {mean}, "min_score": {low}, "max_score": {high}, '
            f'"passed_runs": {int.__repr__(case.passed_runs)}, "precision": {precision}, '
            f'"recall": {recall}, "f1": {f1}, "file": {file}, "line": {line}, '
            f'"error": {error}, "group": {group}}}')
