"""Score a single field under an explicit schema, for the comparator and transform tests."""

from __future__ import annotations

from pytest_jsonmatch import match_json


def leaf(actual, expected, compare=None, transform=None, type_="string"):
    """Score one field `v` under an explicit schema; return (status, score)."""
    node = {"type": type_}
    if compare is not None:
        node["x-eval-compare"] = compare
    if transform is not None:
        node["x-eval-transform"] = transform
    schema = {"type": "object", "properties": {"v": node}}
    result = match_json({"v": actual}, {"v": expected}, metric="field_f1", schema=schema)
    (field,) = result.fields
    return field.status, field.score
