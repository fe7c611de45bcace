"""The schema ``evaluate_records`` infers from all gold records, built one record at a time.

For a schema-driven metric (``field_f1``) without a schema, ``evaluate_records`` infers one
schema from every expected record together: at each path the first value that is not null
decides the type, an object's fields are the union of the keys of all objects found there
(in order of first appearance), and an array's items are inferred from the elements of all
arrays found there. A :class:`SchemaSketch` keeps exactly that and nothing more: one small
prototype value whose inferred schema is the one all the records would give. Sketches merge
in order (``a.merge(b)`` is ``a``'s records followed by ``b``'s): the merge is associative,
so partitions of a dataset may be sketched apart and merged left to right.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

from ..engine.core.depth import call_with_depth
from ..engine.reading.intake import read_json
from ..engine.schemas.eval_schema import infer_schema

_UNSET = object()


class SchemaSketch:
    """A prototype of the gold records seen so far (see the module docstring)."""

    __slots__ = ("prototype", "depth")

    def __init__(self) -> None:
        self.prototype: Any = _UNSET
        self.depth = 0  # how deeply the prototype nests (at most as deep as a record)

    def add(self, record: Any, skip: Callable[[str], bool] | None = None) -> None:
        """Take one gold record (a parsed JSON value); ``skip`` tells the paths the run's
        ``ignore`` leaves unread (as ``evaluate_records`` leaves them)."""
        value, depth = read_json(record, "expected", skip)
        shape = call_with_depth(depth, lambda: _shape(value))
        self.depth = max(self.depth, depth)
        self.prototype = call_with_depth(self.depth, lambda: _merge(self.prototype, shape))

    def merge(self, later: SchemaSketch) -> SchemaSketch:
        """Take the records another sketch saw, as if they came after this one's; returns
        self."""
        if later.prototype is not _UNSET:
            self.depth = max(self.depth, later.depth)
            self.prototype = call_with_depth(self.depth, lambda: _merge(self.prototype,
                                                                        later.prototype))
        return self

    @classmethod
    def of(cls, records: Iterable[Any], skip: Callable[[str], bool] | None = None) -> SchemaSketch:
        sketch = cls()
        for record in records:
            sketch.add(record, skip)
        return sketch

    @classmethod
    def merged(cls, sketches: Iterable[SchemaSketch]) -> SchemaSketch:
        """Sketches merged left to right into a new one."""
        total = cls()
        for sketch in sketches:
            total.merge(sketch)
        return total

    def schema(self) -> dict[str, Any]:
        """The inferred schema, as ``infer_schema`` writes it (a mapping for ``schema=``)."""
        return call_with_depth(self.depth, lambda: infer_schema(
            [] if self.prototype is _UNSET else [self.prototype]))


def _shape(value: Any) -> Any:
    """The part of a value inference reads: containers kept, scalars by type only."""
    if isinstance(value, Mapping):
        return {key: _shape(item) for key, item in value.items()}
    if isinstance(value, list):
        merged: Any = _UNSET
        for item in value:
            merged = _merge(merged, _shape(item))
        return [] if merged is _UNSET else [merged]
    if isinstance(value, str):
        return ""
    return value  # None, a boolean or a number: its type is all that counts, and it is small


def _merge(first: Any, later: Any) -> Any:
    """``first``'s shape with what ``later`` adds: the first non-null value decides the
    type; objects gain keys, arrays pool their elements."""
    if first is _UNSET or first is None:
        return later if later is not _UNSET else first
    if later is _UNSET or later is None:
        return first
    if isinstance(first, dict):
        if isinstance(later, dict):
            out = dict(first)
            for key, item in later.items():
                out[key] = _merge(out[key], item) if key in out else item
            return out
        return first
    if isinstance(first, list):
        if isinstance(later, list) and later:
            return [_merge(first[0], later[0])] if first else list(later)
        return first
    return first
