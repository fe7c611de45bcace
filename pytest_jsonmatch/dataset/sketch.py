"""The schema ``evaluate_records`` infers from all gold records, built one record at a time.

For a schema-driven metric (``field_f1``) without a schema, ``evaluate_records`` infers one
schema from every expected record together: at each path the first value that is not null
decides the type, an object's fields are the union of the keys of all objects found there
(in order of first appearance), and an array's items are inferred from the elements of all
arrays found there. A :class:`SchemaSketch` keeps exactly that and nothing more: one small
prototype value whose inferred schema is the one all the records would give. Where one path
held values of several kinds (an object in one record, an array or a string in another),
the prototype keeps the first kind and the shapes of the objects and of the arrays seen
there (:class:`_Mixed`): a part sketched apart may be merged after one that had an object
or an array there first, and then its keys or items count. Sketches merge
in order (``a.merge(b)`` is ``a``'s records followed by ``b``'s): the merge is associative,
so partitions of a dataset may be sketched apart and merged left to right.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

from ..engine.core.depth import call_with_depth
from ..engine.reading.intake import read_json
from ..engine.schemas.eval_schema import infer_schema


class _Marker:
    """A sentinel of this module, pickled as a reference to itself: a sketch made in a
    worker process (``jsonmatch score -j N``) comes back holding the parent's sentinels, so
    that ``is UNSET`` still holds there."""

    __slots__ = ("name",)

    def __init__(self, name: str) -> None:
        self.name = name

    def __reduce__(self) -> str:
        return self.name

    def __repr__(self) -> str:
        return self.name


# A prototype's vocabulary, read by fitting.py too: UNSET (no value yet), and (below) the
# kind a path of several kinds first held, OBJECT or ARRAY; ``shape_parts`` takes a shape
# apart into what decides its type and the shapes of its objects and arrays.
UNSET = _Marker("UNSET")


class SchemaSketch:
    """A prototype of the gold records seen so far (see the module docstring)."""

    __slots__ = ("prototype", "depth")

    def __init__(self) -> None:
        self.prototype: Any = UNSET
        self.depth = 0  # how deeply the prototype nests (at most as deep as a record)

    def add(self, record: Any, skip: Callable[[str], bool] | None = None) -> None:
        """Take one gold record (a parsed JSON value); ``skip`` tells the paths the run's
        ``ignore`` leaves unread (as ``evaluate_records`` leaves them)."""
        value, depth = read_json(record, "expected", skip)
        self.depth = max(self.depth, depth)
        self.prototype = call_with_depth(self.depth, lambda: _absorb(self.prototype, value))

    def add_decoded(self, record: Any, depth: int) -> None:
        """Take one gold record decoded from JSON text, known to nest at most ``depth``
        levels, at most :data:`~pytest_jsonmatch.engine.core.depth.SHALLOW`, without the
        door: the door passes such a value through as it is, unless it holds what the door
        refuses (a number too large for a float, too many keys), which the run's scoring
        refuses in turn. ``depth`` counts as the depth."""
        self.depth = max(self.depth, depth)
        self.prototype = _absorb(self.prototype, record)

    def merge(self, later: SchemaSketch) -> SchemaSketch:
        """Take the records another sketch saw, as if they came after this one's; returns
        self."""
        if later.prototype is not UNSET:
            self.depth = max(self.depth, later.depth)
            # a copy of the other's prototype: this sketch's prototype is its own, changed
            # in place by later records
            self.prototype = call_with_depth(
                self.depth, lambda: _merge(self.prototype, _copy(later.prototype))
            )
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
        return call_with_depth(
            self.depth,
            lambda: infer_schema([] if self.prototype is UNSET else [_decided(self.prototype)]),
        )


class _Mixed:
    """The shape at a path whose values were of several kinds: ``first``, what the first
    value that was not null decides (a scalar's shape, or OBJECT or ARRAY), and the shapes
    of every object (``obj``) and every array (``arr``) seen there (UNSET: none)."""

    __slots__ = ("first", "obj", "arr")

    def __init__(self, first: Any, obj: Any, arr: Any) -> None:
        self.first, self.obj, self.arr = first, obj, arr


OBJECT, ARRAY = _Marker("OBJECT"), _Marker("ARRAY")  # the kind a _Mixed path's first value was


def _shape(value: Any) -> Any:
    """The part of a value inference reads: containers kept, scalars by type only."""
    if isinstance(value, Mapping):
        return {key: _shape(item) for key, item in value.items()}
    if isinstance(value, list):
        merged: Any = UNSET
        for item in value:
            merged = _merge(merged, _shape(item))
        return [] if merged is UNSET else [merged]
    if isinstance(value, str):
        return ""
    return value  # None, a boolean or a number: its type is all that counts, and it is small


def _absorb(first: Any, value: Any) -> Any:
    """``_merge(first, _shape(value))``, in place where the kinds agree: ``first`` (a
    prototype this sketch owns) gains what ``value`` adds. Most records add nothing, and
    then nothing is made."""
    if value is None:
        return None if first is UNSET else first
    if first is UNSET or first is None:
        return _shape(value)
    kind, value_kind = type(first), type(value)
    if kind is dict and value_kind is dict:
        for key, item in value.items():
            if key not in first:
                first[key] = _shape(item)
                continue
            old = first[key]
            # a scalar after a scalar changes nothing: the first one that was not null decides
            if old is None or type(old) in _CONTAINERS or type(item) is dict or type(item) is list:
                first[key] = _absorb(old, item)
        return first
    if kind is list and value_kind is list:
        if value:
            if not first:
                return _shape(value)
            element = first[0]
            for item in value:
                element = _absorb(element, item)
            first[0] = element
        return first
    if kind in _CONTAINERS or value_kind is dict or value_kind is list:
        return _merge(first, _shape(value))  # kinds that differ: kept apart (_Mixed)
    return first


_CONTAINERS = frozenset({dict, list, _Mixed})


def _merge(first: Any, later: Any) -> Any:
    """``first``'s shape with what ``later`` adds (neither is changed): the first non-null
    value decides the type; objects gain keys, arrays pool their elements, whatever the kind
    that decides."""
    kind_first, obj_first, arr_first = shape_parts(first)
    kind_later, obj_later, arr_later = shape_parts(later)
    kind = (
        kind_later
        if kind_first is UNSET or (kind_first is None and kind_later is not UNSET)
        else kind_first
    )
    obj, arr = _merge_objects(obj_first, obj_later), _merge_arrays(arr_first, arr_later)
    if kind is OBJECT and arr is UNSET:
        return obj
    if kind is ARRAY and obj is UNSET:
        return arr
    if kind is not OBJECT and kind is not ARRAY and obj is UNSET and arr is UNSET:
        return kind  # a scalar's shape, None or UNSET
    return _Mixed(kind, obj, arr)


def shape_parts(shape: Any) -> tuple[Any, Any, Any]:
    """(the kind that decides, the objects' shape, the arrays' shape) of a shape."""
    if type(shape) is _Mixed:
        return shape.first, shape.obj, shape.arr
    if type(shape) is dict:
        return OBJECT, shape, UNSET
    if type(shape) is list:
        return ARRAY, UNSET, shape
    return shape, UNSET, UNSET


def _merge_objects(first: Any, later: Any) -> Any:
    if first is UNSET or later is UNSET:
        return later if first is UNSET else first
    out = dict(first)
    for key, item in later.items():
        out[key] = _merge(out[key], item) if key in out else item
    return out


def _merge_arrays(first: Any, later: Any) -> Any:
    if first is UNSET or later is UNSET:
        return later if first is UNSET else first
    if not later:
        return first
    return [_merge(first[0], later[0])] if first else list(later)


def _copy(shape: Any) -> Any:
    """A shape made of new containers (its scalars are immutable)."""
    if type(shape) is dict:
        return {key: _copy(item) for key, item in shape.items()}
    if type(shape) is list:
        return [_copy(item) for item in shape]
    if type(shape) is _Mixed:
        return _Mixed(shape.first, _copy(shape.obj), _copy(shape.arr))
    return shape


def _decided(shape: Any) -> Any:
    """The plain value whose inferred schema a shape stands for: at a _Mixed path, the
    shape of the kind that decides."""
    if type(shape) is _Mixed:
        shape = (
            shape.obj
            if shape.first is OBJECT
            else shape.arr
            if shape.first is ARRAY
            else shape.first
        )
    if type(shape) is dict:
        return {key: _decided(item) for key, item in shape.items()}
    if type(shape) is list:
        return [_decided(item) for item in shape]
    return shape
