"""A dataset's comparisons written as report lines, straight from the engine's field results.

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
from .records import Comparison, _field_dict, _kept_fields
from .spool import json_line

_encode_str = json.encoder.encode_basestring  # what json.dumps(..., ensure_ascii=False) uses
_float_text = float.__repr__
_int_text = int.__repr__

# '{"path": P, "field_path": F, "status": S, "score": ' by (path, field path, status); a
# dataset's fields repeat their paths, so the cache stays small (cleared at _HEADS_KEPT).
_heads: dict[tuple[str, str, str], str] = {}
_HEADS_KEPT = 50_000


def comparison_line(comparison: Comparison, fields: Sequence[FieldResult], mode: str) -> str:
    """``json_line(comparison_dict(comparison, fields, mode))`` (see the module docstring)."""
    entry: dict[str, Any] = dict(comparison.to_dict())
    keys = list(entry)
    at = keys.index("fields")
    head = json_line({key: entry[key] for key in keys[:at]})
    tail = json_line({key: entry[key] for key in keys[at + 1:]})
    written = ", ".join(_field_text(kept) for kept in _kept_fields(fields, mode, MISSING))
    return f'{head[:-1]}, "fields": [{written}], {tail[1:]}'


def _field_text(kept: tuple[str, str, str, float, Any, Any, str]) -> str:
    """A kept field (records._kept_fields) as ``json_line(records._field_dict(kept))``."""
    path, field_path, status, score, expected, actual, present = kept
    if present != "ea":
        return json_line(_field_dict(kept))
    e, a = _value_text(expected), _value_text(actual)
    if e is None or a is None:
        return json_line(_field_dict(kept))
    key = (path, field_path, status)
    start = _heads.get(key)
    if start is None:
        if len(_heads) >= _HEADS_KEPT:
            _heads.clear()
        start = _heads[key] = (f'{{"path": {_encode_str(path)}, "field_path": '
                               f'{_encode_str(field_path)}, "status": {_encode_str(status)}, '
                               f'"score": ')
    return f'{start}{_float_text(score)}, "expected": {e}, "actual": {a}}}'


def _value_text(value: Any) -> str | None:
    """A plain scalar's JSON text as ``json.dumps`` writes it; None for anything else (a
    container, a subclass, a float that is not finite: left to ``json.dumps``)."""
    kind = type(value)
    if kind is str:
        return _encode_str(value)  # type: ignore[no-any-return]
    if value is None:
        return "null"
    if kind is bool:
        return "true" if value else "false"
    if kind is int:
        return _int_text(value)
    if kind is float and value - value == 0.0:
        return _float_text(value)
    return None
