"""Array elements as columns: each flattened field's values, with the elements they came from.

Pair scoring (pair_scores.py) scores a column for every element pair in one call, so the
elements of an array are first taken apart into columns here. structural_f1 flattens nested
objects and leaves nested arrays out of the similarity; field_f1 flattens exactly the fields
its walk would score, and gives up (None: score by walking each pair) on anything deeper.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Callable, Sequence
from typing import Any, TypeAlias, cast

from ..core.paths import key_segment
from ..core.values import JsonArray, JsonObject, JsonValue
from ..schemas.eval_schema import SchemaNode

# (element indices, values) of one field; a column's key is the field's path inside an
# element ("sku", "dims.w", "[0]" for an element that is itself an array, "" for a scalar).
Column: TypeAlias = "tuple[list[int], list[Cell]]"
# every column, and each element's number of fields
Columns = tuple[dict[str, Column], list[int]]
# per column, the one Python type of its values (None: mixed)
Kinds = dict[str, "type | None"]
# whether an ``ignore`` rule names the field at a path relative to the element (``dims.w``)
Skip = Callable[[str], bool]


class Unknown:
    """A field the schema does not know, standing in a flattened element (it counts as one
    hallucination, whatever it holds)."""

    __slots__ = ("value",)

    def __init__(self, value: JsonValue) -> None:
        self.value = value


# A column's value: a field's JSON value, or the stand-in of a field the schema does not know.
Cell: TypeAlias = JsonValue | Unknown


def from_flat(flat: Sequence[dict[str, Cell]]) -> Columns:
    """Flattened elements ({field: value} each) as columns. Elements with the same fields
    in the same order, the usual case, transpose in one step."""
    sizes = [len(element) for element in flat]
    if flat:
        keys = list(flat[0])
        if all(len(element) == len(keys) and list(element) == keys for element in flat):
            index = list(range(len(flat)))  # shared by the columns: read, never changed
            return {
                key: (index, list(values))
                for key, values in zip(keys, zip(*[element.values() for element in flat]))
            }, sizes
    cols: dict[str, Column] = {}
    for i, element in enumerate(flat):
        for path, value in element.items():
            col = cols.setdefault(path, ([], []))
            col[0].append(i)
            col[1].append(value)
    return cols, sizes


def columns_between(columns: Columns, start: int, stop: int) -> Columns:
    """The columns of elements ``start`` to ``stop`` (excluded) only, each value still under
    its element's index in the whole array (indices in a column ascend)."""
    cols, sizes = columns
    part: dict[str, Column] = {}
    for rel, (index, values) in cols.items():
        lo, hi = bisect_left(index, start), bisect_left(index, stop)
        if lo < hi:
            part[rel] = (index[lo:hi], values[lo:hi])
    return part, sizes[start:stop]


# -- structural_f1 ---------------------------------------------------------------------------


def similarity_columns(
    elements: Sequence[JsonValue], kinds: Kinds, skip: Skip | None = None
) -> Columns:
    """structural_f1's columns: every scalar field of every element (nested objects flatten;
    nested arrays are compared after pairing and take no part; a null counts as absent).
    The scalar fields of object elements, most fields of most arrays, are gathered by key in
    one loop: a key names the same field in every element. ``skip(rel)`` names the fields an
    ``ignore`` rule leaves out: neither counted nor read (an ignored value may be anything)."""
    cols: dict[str, Column] = {}
    by_key: dict[str, list[Any]] = {}  # key -> [indices, values, type or None if mixed]
    sizes = []
    for i, element in enumerate(elements):
        if type(element) is not dict:
            sizes.append(_collect(element, "", i, cols, kinds, skip))
            continue
        count = 0
        for key, child in element.items():
            if skip is not None and skip(key_segment("", key)):
                continue
            kind = type(child)
            if kind is str or kind is int or kind is bool or kind is float:
                slot = by_key.get(key)
                if slot is None:
                    by_key[key] = [[i], [child], kind]
                else:
                    slot[0].append(i)
                    slot[1].append(child)
                    if slot[2] is not kind:
                        slot[2] = None
                count += 1
            elif child is not None:
                count += _collect(child, key_segment("", key), i, cols, kinds, skip)
        sizes.append(count)
    # a top-level key's path ('sku', '["unit price"]') is never a nested field's path
    # ('dims.w') nor a whole element's ('', '[0]'): the two sets of columns are disjoint
    for key, (index, values, kind) in by_key.items():
        rel = key_segment("", key)
        cols[rel] = (index, values)
        kinds[rel] = kind
    return cols, sizes


def _collect(
    value: JsonValue,
    rel: str,
    i: int,
    cols: dict[str, Column],
    kinds: Kinds,
    skip: Skip | None = None,
) -> int:
    """Add element ``i``'s fields under ``rel`` to ``cols``; return how many there are."""
    kind = type(value)
    if kind is dict or kind is list:
        if kind is list and rel:
            return 0
        # an element that is itself an array: its items, by index, are its fields
        children = (
            ((key_segment(rel, key), child) for key, child in cast(JsonObject, value).items())
            if kind is dict
            else ((f"[{k}]", child) for k, child in enumerate(cast(JsonArray, value)))
        )
        return sum(
            _collect(child, child_rel, i, cols, kinds, skip)
            for child_rel, child in children
            if skip is None or not skip(child_rel)
        )
    if value is None:
        return 0
    col = cols.get(rel)
    if col is None:
        cols[rel] = ([i], [value])
        kinds[rel] = kind
    else:
        col[0].append(i)
        col[1].append(value)
        if kinds[rel] is not kind:
            kinds[rel] = None
    return 1


# -- field_f1 --------------------------------------------------------------------------------


def f1_columns(
    elements: Sequence[JsonValue], items: SchemaNode | None, side: str, skip: Skip | None = None
) -> Columns | None:
    """field_f1's columns: scalars, and objects whose fields are scalars, flatten to exactly
    the fields the walk would score; None when anything needs a walk of its own. ``skip``
    as for :func:`similarity_columns`."""
    flat_all: list[dict[str, Cell]] = []
    for element in elements:
        flat: dict[str, Cell] = {}
        if not _flatten_f1(element, items, flat, side, skip):
            return None
        flat_all.append(flat)
    return from_flat(flat_all)


def _flatten_f1(
    value: JsonValue, items: SchemaNode | None, out: dict[str, Cell], side: str, skip: Skip | None
) -> bool:
    if items is not None and items.is_leaf:  # the walk compares each element whole
        comparator = items.spec.comparator
        if comparator is not None and comparator.batch:
            return False
        out[""] = value
        return True
    kind = type(value)
    if kind is list:
        return False
    if kind is not dict:
        if items is not None:
            return False  # a scalar where the schema has a container: shape rules apply
        out[""] = value
        return True
    if items is None or items.properties is None:
        return False
    value = cast(JsonObject, value)  # (a dict: its type was read above)
    if skip is None:
        return _flatten_planned(value, _plan(items), out, side)
    props = items.properties
    for key, child in value.items():
        if skip is not None and skip(key_segment("", key)):
            continue  # ignored on both sides, wherever the schema has it
        node = props.get(key)
        if node is None:
            if side == "expected":
                return False  # skipped here, and it hides the same key on the other side
            out[key_segment("", key)] = Unknown(child)
            continue
        if node.skip:
            continue
        comparator = node.spec.comparator
        if not node.is_leaf or (comparator is not None and comparator.batch):
            return False
        if comparator is None and type(child) in (dict, list):
            return False
        out[key_segment("", key)] = child
    return True


# What _flatten_f1 decides for a key of an element's schema node, once per node (without
# ``ignore`` rules, which name fields by path): the key's column (its path in the element)
# and whether a container there needs a walk (the field has no comparator of its own);
# _WALK: the element needs a walk of its own; _SKIP: the field is never scored.
_WALK, _SKIP = "walk", "skip"
# per key: _WALK, _SKIP, or (the column, whether a container there needs a walk); the
# values are left dynamically typed: _flatten_planned, per field of every element, tells
# a column from a marker by identity, which mypy cannot follow, and a cast there would cost
_Plan: TypeAlias = dict[str, Any]


def _plan(items: SchemaNode) -> _Plan:
    plan = cast("_Plan | None", items.plans.get("flatten"))  # (kept by this function alone)
    if plan is None:
        plan = {}
        for key, node in (items.properties or {}).items():
            comparator = node.spec.comparator
            if node.skip:
                plan[key] = _SKIP
            elif not node.is_leaf or (comparator is not None and comparator.batch):
                plan[key] = _WALK
            else:
                plan[key] = (key_segment("", key), comparator is None)
        items.plans["flatten"] = plan
    return plan


def _flatten_planned(value: JsonObject, plan: _Plan, out: dict[str, Cell], side: str) -> bool:
    """_flatten_f1 of an object element, its schema's answers read from ``plan``."""
    for key, child in value.items():
        found = plan.get(key)
        if found is None:  # a key the schema does not know
            if side == "expected":
                return False
            out[key_segment("", key)] = Unknown(child)
        elif found is _WALK:
            return False
        elif found is not _SKIP:
            rel, whole_only = found
            if whole_only and type(child) in (dict, list):
                return False
            out[rel] = child
    return True
