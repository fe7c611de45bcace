"""The fields of an array's chosen pairs of flat objects, made where the pairs are chosen
(structural_f1's ``similarity`` pairing), instead of by a second walk of each pair.

Once ``choose_pairs`` has paired two arrays, the walk walks each chosen pair (walk.py,
``Walk._walk_pairs``): for an element of no schema node, under a configuration without
rules or leaf depth, two objects go to the walk's inline loop (``Walk.obj``, then
``inline_leaves.inline_keys`` and ``Walk._extra_keys``), which scores each key where it
meets it. For objects of scalars that loop is a few lookups a key, and the walk around it
(a ``Where``, the object's plan, its dispatch) costs as much again a pair. Here each chosen
pair of objects is scored as that loop scores it, in the same order with the same values,
comparators, paths and statuses: the expected object's keys in its order (a key both hold:
equal values of one type scoring 1 where the type's comparator says equal values do,
else the comparator's score; a scalar the answer lacks: its omission, none for a null
where nulls count as absent), then the answer's keys the expected one lacks
(hallucinations, where extras count). A pair holding anything that loop would hand on (a
nested value, a value its plan has no comparator for) is left out, for the walk to walk
it: this module vouches only for pairs it scored whole.

Its fields go to ``walked``, the table of pairs whose walk is already known, which
``_walk_pairs`` takes as they are. ``CHOSEN_FIELDS = False`` turns this off (the
differential tests compare both).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from ..comparing.comparators import BoundComparator
from ..configuring.walk_config import WalkConfig
from ..core.paths import KEY_FORMS, Where, key_forms
from ..core.values import MISSING, SCALAR_TYPES, JsonValue
from ..results.field_results import (
    HALLUCINATION,
    MATCH,
    MISMATCH,
    OMISSION,
    FieldResult,
    WalkOutput,
)
from ..schemas.eval_schema import SchemaNode
from .assignment import Assignment

CHOSEN_FIELDS = True  # False: every chosen pair is walked (Walk._walk_pairs)

# FieldResults built with tuple.__new__, as the walk builds them (walk.py)
_new = tuple.__new__
_known_forms = KEY_FORMS.get  # (a key's path forms, where they were made before)
# a one-sided field's last three slots (no actual path, weight 1, no transformed values)
_ONE_SIDED_TAIL = (None, 1.0, None)
# what a chosen pair's walk holds besides its fields: no pairings, no floors (never
# written: _walk_pairs only reads them)
_NOTHING: list[object] = []


class _PairFields(WalkOutput):
    """A chosen pair's walk as this module makes it: its fields alone (made by
    ``_pair_fields``: no lists for the pairings and floors it has none of)."""

    __slots__ = ()


_alloc = object.__new__
# an index's path suffix, made once for the first indices
_INDEX = tuple(f"[{k}]" for k in range(64))


def _pair_fields(fields: list[FieldResult]) -> WalkOutput:
    out = _alloc(_PairFields)
    out.fields = fields
    out.pairings = out.floors = _NOTHING  # type: ignore[assignment]
    return out


def chosen_fields(
    cfg: WalkConfig,
    expected: Sequence[JsonValue],
    actual: Sequence[JsonValue],
    where: Where,
    items: SchemaNode | None,
    chosen: Assignment,
    walked: dict[tuple[int, int], WalkOutput],
) -> Assignment:
    """``chosen`` as it is, the fields of its pairs of flat objects not yet walked put in
    ``walked`` (the array at ``where``, schema ``items``; see ``_policies``)."""
    pairs = chosen[0]
    # (an array whose first chosen element is no object: its elements are walked)
    if not (CHOSEN_FIELDS and pairs and type(expected[pairs[0][0]]) is dict):
        return chosen
    policies = _policies(cfg, items, where)
    if policies is None:
        return chosen
    (by_type, equal_one), null_absent, extras = policies, cfg.null_absent, cfg.count_extras
    path, field, moved = where.path, where.field + "[]", where.actual
    side = path if moved is None else moved
    # each key's (form below a parent, field path): the same for every element
    named: dict[str, tuple[str, str]] = {}
    for i, j, _ in pairs:
        e, a = expected[i], actual[j]
        if type(e) is not dict or type(a) is not dict or (i, j) in walked:
            continue
        at = path + (_INDEX[i] if i < 64 else f"[{i}]")
        at_actual = (
            side + (_INDEX[j] if j < 64 else f"[{j}]") if moved is not None or i != j else None
        )
        fields: list[FieldResult] = []
        append = fields.append
        for key, value in e.items():
            kind = type(value)
            known = named.get(key)
            if known is None:
                below = (_known_forms(key) or key_forms(key))[1]
                known = named[key] = (below, field + below)
            below, key_field = known
            other = a.get(key, MISSING)
            if other is MISSING:
                if kind not in SCALAR_TYPES:
                    break  # (a container the answer lacks: walked its general way)
                if value is not None or not null_absent:
                    append(_one_sided(at + below, OMISSION, value, MISSING, key_field))
                continue
            if (
                kind is type(other)
                and (comparator := equal_one.get(kind)) is not None
                and value == other
            ):
                status, score = MATCH, 1.0
            else:
                comparator = None if type(other) not in SCALAR_TYPES else by_type.get(kind)
                if comparator is None:
                    break  # (a nested value, or one no comparator of the plan takes)
                if (
                    kind is type(other)
                    and kind in SCALAR_TYPES
                    and value == other
                    and (comparator.equal_one)
                ):
                    status, score = MATCH, 1.0
                else:
                    score = comparator.score(value, other)
                    status = MATCH if score >= 1.0 else MISMATCH
            append(
                _new(
                    FieldResult,
                    (
                        at + below,
                        status,
                        score,
                        value,
                        other,
                        comparator.name,
                        "",
                        key_field,
                        None if at_actual is None else at_actual + below,
                        1.0,
                        None,
                    ),
                )
            )
        else:
            if (
                extras
                and not a.keys() <= e.keys()
                and not _extra_keys(
                    e, a, at if at_actual is None else at_actual, field, null_absent, fields
                )
            ):
                continue
            walked[i, j] = _pair_fields(fields)
    return chosen


def _policies(
    cfg: WalkConfig, items: SchemaNode | None, where: Where
) -> tuple[Mapping[type, BoundComparator], Mapping[type, BoundComparator]] | None:
    """The comparators by Python type, and those of them that score equal values 1, of the
    walk's inline loop for an element of the array at ``where`` (schema ``items``); None
    where the walk would not hand its objects to that loop as this module scores them (a
    schema node, rules, a leaf depth)."""
    if items is not None or cfg.rules or cfg.schema_driven or cfg.leaf_depth is not None:
        return None
    plan = cfg.inline_plan(None, False, where.path)
    if plan is None:
        return None
    by_type, scalars_only, by_key, equal_one, general = plan
    if by_key is not None or general is not None or not scalars_only:
        return None  # (not the plan of an object without a node: the walk's own way)
    return by_type, equal_one


def _one_sided(path: str, status: str, expected: object, actual: object, field: str) -> FieldResult:
    """An omission or a hallucination, as the walk makes it (``one_sided``)."""
    made: FieldResult = _new(
        FieldResult, (path, status, 0.0, expected, actual, "", "", field) + _ONE_SIDED_TAIL
    )
    return made


def _extra_keys(
    expected: dict[str, JsonValue],
    actual: dict[str, JsonValue],
    base: str,
    field: str,
    null_absent: bool,
    fields: list[FieldResult],
) -> bool:
    """The hallucinations of the keys only ``actual`` holds (the element named ``base`` on
    the answer's side), as ``Walk._extra_keys`` makes them; False where one is a nested
    value (the pair is walked)."""
    found: list[FieldResult] = []
    for key, value in actual.items():
        if key in expected:
            continue
        if type(value) not in SCALAR_TYPES:
            return False
        if value is not None or not null_absent:
            below = (_known_forms(key) or key_forms(key))[1]
            found.append(_one_sided(base + below, HALLUCINATION, MISSING, value, field + below))
    fields.extend(found)
    return True
