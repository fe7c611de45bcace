"""Values with nothing to compare against: what one side has and the other lacks (omissions
and hallucinations, one per leaf), and values whose shapes disagree (an object against a
list, a container against a scalar).
"""

from __future__ import annotations

from typing import Any

from ..comparing.field_spec import FieldSpec
from ..configuring.walk_config import WalkConfig
from ..core.paths import Where
from ..core.values import (
    ARRAY,
    MISSING,
    NULL,
    OBJECT,
    SCALAR_TYPES,
    JsonObject,
    JsonValue,
    json_equal,
    json_type,
)
from ..results.field_results import (
    HALLUCINATION,
    MATCH,
    MISMATCH,
    OMISSION,
    FieldResult,
    FloorFailure,
    WalkOutput,
    tally,
)
from ..schemas.eval_schema import SchemaNode

# False: a walk that writes rows (row_scorers.py) leaves every one-sided leaf a FieldResult,
# made into its row by the writer afterwards (one_sided_rows, extra_leaf)
ONE_SIDED_ROWS = True
# The switch of one_sided's plain scalar taken in one step, its field or none (docs/
# architecture.md, "Fast paths"): without the loop's stack, its lookup of what earlier
# calls kept and its leaf test, none of which decides anything for a scalar. False sends
# every value through the loop.
SCALAR_ONE_SIDED = True

_new = tuple.__new__
_ROW_SCALARS = frozenset({str, int, float, bool})

# a value still to visit: the value, where it sits, its schema node, its depth. (The value, a
# JSON value, is read by the tag json_type names, which mypy cannot follow; a cast per value
# would cost on this path: it is left dynamically typed.)
_Pending = tuple[Any, Where, SchemaNode | None, int]

# What one_sided found for a value, by (the value's id, its path, its field path, its schema
# node's id, its depth, the status): the value itself (its id is only good while it lives),
# and the fields and floors found. See LoneLeaves.
_Found = tuple[Any, list[FieldResult], list[FloorFailure]]


class LoneLeaves:
    """The one-sided leaves of lone elements found while walking candidate pairs, kept for
    the record's walk.

    Under Hungarian (or similarity) alignment a candidate pair is walked to be scored, and a
    pair that scores 0 is not kept: both elements are then lone, and their leaves are walked
    again, one side at a time. Nested arrays do this at every level, and each level's lone
    element holds the lone elements the candidate walk one level down has just walked: the
    same values, at the same paths, walked once per level above them (arrays 200 deep:
    quadratic in depth). The candidate walks keep here what they found for their lone
    elements, and one_sided takes it where it meets the same value at the same place."""

    __slots__ = ("found",)

    def __init__(self) -> None:
        self.found: dict[tuple[int, str, str, int, int, str], _Found] = {}


def one_sided(
    out: WalkOutput,
    cfg: WalkConfig,
    value: JsonValue,
    where: Where,
    node: SchemaNode | None,
    status: str,
    depth: int,
    lone: LoneLeaves | None = None,
    keep: bool = False,
) -> None:
    """Every leaf under ``value`` becomes an ``status`` (omission or hallucination), in
    document order. Without recursion: a value one side alone has may hold fields the door
    did not measure (ignored ones, named here on the other side's path), nested deeper than
    the stack the walk was given.

    ``lone``: what earlier calls kept (LoneLeaves); a container found there, the same value
    at the same place, is taken as found. ``keep``: keep what this call finds there."""
    if SCALAR_ONE_SIDED and type(value) in SCALAR_TYPES and not keep:
        # (a plain scalar, kept nowhere: the loop's one step for it, without its stack:
        # no container to look up or descend into, so its leaf test decides nothing)
        spec = cfg.spec_at(where.path, node) if depth else None
        if (spec is None or not spec.skip) and (
            value is not None or not _null_is_absent(cfg, node)
        ):
            _one_sided_leaf(out, value, where, spec, status)
        return
    found = lone.found if lone is not None else None
    first_field, first_floor = len(out.fields), len(out.floors)
    key = (id(value), where.path, where.field, id(node), depth, status)
    stack: list[_Pending] = [(value, where, node, depth)]
    while stack:
        current, where, node, depth = stack.pop()
        if found and type(current) in (dict, list):
            known = found.get((id(current), where.path, where.field, id(node), depth, status))
            if known is not None and known[0] is current:
                out.fields.extend(known[1])
                out.floors.extend(known[2])
                continue
        spec = cfg.spec_at(where.path, node) if depth else None
        if spec is not None and spec.skip:
            continue
        tag = json_type(current)
        if not cfg.is_leaf(node, current, depth):
            if tag == OBJECT and not (
                cfg.schema_driven and node is not None and node.type not in (None, OBJECT)
            ):
                stack.extend(reversed(_object_children(cfg, current, where, node, depth)))
                continue  # (reversed: popped in document order)
            if tag == ARRAY and (current or not cfg.schema_driven):
                items = cfg.items_of(node, current)
                stack.extend(
                    (child, where.element(i), items, depth + 1)
                    for i, child in reversed(list(enumerate(current)))
                )
                continue
        if tag == NULL and _null_is_absent(cfg, node):
            continue  # an absent null, or a null object: no field
        _one_sided_leaf(out, current, where, spec, status)
    if keep and found is not None:
        found[key] = (value, out.fields[first_field:], out.floors[first_floor:])


def _null_is_absent(cfg: WalkConfig, node: SchemaNode | None) -> bool:
    """A null one side alone holds makes no field: nulls count as absent, or the schema
    has an object there (a null object)."""
    return cfg.null_absent or (cfg.schema_driven and node is not None and node.type == OBJECT)


def one_sided_rows(
    out: WalkOutput,
    cfg: WalkConfig,
    value: JsonValue,
    where: Where,
    node: SchemaNode | None,
    status: str,
    depth: int,
    rows: Any,
) -> None:
    """``one_sided`` for an element one side lacks, in a walk that writes rows (``rows``:
    its row writer, row_scorers.Rows; None: one_sided itself). An object walked member by
    member has each plain member written as its row then its tally, the row the writer
    would have made of the member's FieldResult (``RowWriter.one_sided``), its head made in
    the same order; a member the row cannot vouch for (a spec that skips it or sets a
    floor, a null that may count as absent, a container, a value the report cuts) is left
    to ``one_sided``, as is any other value."""
    if (
        rows is None
        or not ONE_SIDED_ROWS
        or type(value) is not dict
        or not value
        or cfg.is_leaf(node, value, depth)
        or (cfg.schema_driven and node is not None and node.type not in (None, OBJECT))
    ):
        one_sided(out, cfg, value, where, node, status, depth)
        return
    spec = cfg.spec_at(where.path, node) if depth else None
    if spec is not None and spec.skip:
        return
    # (rows and tallies among the fields: the row form's, read by its writer)
    fields: list[Any] = out.fields
    below = depth + 1
    for child, at, sub, _ in _object_children(cfg, value, where, node, depth):
        kind = type(child)
        if kind in _ROW_SCALARS or (child is None and not _null_is_absent(cfg, sub)):
            spec = cfg.spec_at(at.path, sub)
            if spec is None or (not spec.skip and spec.min_score is None):
                text = rows.one_sided(at.path, at.field, status, child)
                if text is not None:
                    fields += (text, tally(at.field, status, 0.0))
                    continue
        one_sided(out, cfg, child, at, sub, status, below)


def lacking_key(
    walk: Any, value: JsonValue, where: Where, node: SchemaNode | None, depth: int
) -> None:
    """``walk.node(value, MISSING, ...)`` for a key actual lacks, in a walk that writes rows
    (the row form's plain keys: row_scorers.row_leaf): a plain value is written as its row
    then its tally, an object's plain members as ``one_sided_rows`` writes them; a key a
    spec skips, or a value the row cannot vouch for, takes the walk's own way."""
    cfg = walk.cfg
    spec = cfg.spec_at(where.path, node) if cfg.rules else (node.spec if node is not None else None)
    if not ONE_SIDED_ROWS or (spec is not None and (spec.skip or spec.min_score is not None)):
        walk.node(value, MISSING, where, node, depth)
    elif type(value) in _ROW_SCALARS:
        text = walk.rows.one_sided(where.path, where.field, OMISSION, value)
        if text is None:
            walk.node(value, MISSING, where, node, depth)
        else:
            fields: list[Any] = walk.out.fields  # (the row form's: a row, then its tally)
            fields += (text, tally(where.field, OMISSION, 0.0))
    else:
        one_sided_rows(walk.out, cfg, value, where, node, OMISSION, depth, walk.rows)


def extra_leaf(out: WalkOutput, rows: Any, where: Where, value: JsonValue, reason: str) -> None:
    """A value only actual has, as one field (a hallucination scoring 0, ``reason`` its
    reason): in a walk that writes rows (``rows``: its row writer), its row then its tally
    where the writer can write its row now; else its FieldResult."""
    if rows is not None and ONE_SIDED_ROWS:
        text = rows.one_sided(where.path, where.field, HALLUCINATION, value)
        if text is not None:
            written: list[Any] = out.fields  # (the row form's: a row, then its tally)
            written += (text, tally(where.field, HALLUCINATION, 0.0))
            return
    found = (
        where.path,
        HALLUCINATION,
        0.0,
        MISSING,
        value,
        "",
        reason,
        where.field,
        None,
        1.0,
        None,
    )
    out.fields.append(_new(FieldResult, found))


def _object_children(
    cfg: WalkConfig, value: JsonObject, where: Where, node: SchemaNode | None, depth: int
) -> list[_Pending]:
    """An object's members to visit, in document order, less (when the metric is
    schema-driven) those its schema node does not know: they are not scored."""
    props = node.properties if node is not None else None
    children: list[_Pending] = []
    for key, child in value.items():
        if cfg.schema_driven and props is not None and key not in props:
            continue
        children.append(
            (child, where.key(key), props.get(key) if props is not None else None, depth + 1)
        )
    return children


def _one_sided_leaf(
    out: WalkOutput, value: JsonValue, where: Where, spec: FieldSpec | None, status: str
) -> None:
    """A leaf one side alone has: its FieldResult, scoring 0, and the floor it fails when
    it is an omission of a field whose ``min_score`` is above 0."""
    expected, actual = (value, MISSING) if status == OMISSION else (MISSING, value)
    # (FieldResult's own defaults written out: built as the walk builds them, see walk.py)
    found = (where.path, status, 0.0, expected, actual, "", "", where.field, None, 1.0, None)
    out.fields.append(_new(FieldResult, found))
    if (
        status == OMISSION
        and spec is not None
        and spec.min_score is not None
        and spec.min_score > 0
    ):
        out.floors.append(FloorFailure(where.path, spec.min_score, 0.0))


def shape_mismatch(
    out: WalkOutput,
    cfg: WalkConfig,
    expected: JsonValue,
    actual: JsonValue,
    where: Where,
    node: SchemaNode | None,
    depth: int,
) -> None:
    """A container on one side, something else (or the other kind of container) on the
    other. Schema-driven, the two values are one field, compared whole, a null side standing
    for an absent container (its other side's leaves one-sided). Else a scalar expected is
    wrong (an absent null: the container's leaves are hallucinated), and with extras counted
    so are the container's other leaves; a container expected has each leaf missing (its
    reason naming what actual holds), and with extras counted actual's leaves hallucinated."""
    type_e, type_a = json_type(expected), json_type(actual)
    fields = out.fields
    if cfg.schema_driven:
        if type_e == NULL or type_a == NULL:
            if type_e != type_a:  # (both null: no field)
                side, status = (actual, HALLUCINATION) if type_e == NULL else (expected, OMISSION)
                one_sided(out, cfg, side, where, node, status, depth)
        elif json_equal(expected, actual):
            fields.append(
                FieldResult(
                    where.path, MATCH, 1.0, expected, actual, "", "", where.field, where.actual
                )
            )
        else:
            fields.append(_mismatch(expected, actual, where))
    elif type_e not in (OBJECT, ARRAY):
        if type_e == NULL and cfg.null_absent:
            one_sided(out, cfg, actual, where, node, HALLUCINATION, depth)
            return
        fields.append(_mismatch(expected, actual, where))
        if cfg.count_extras:
            before = len(fields)
            one_sided(out, cfg, actual, where, node, HALLUCINATION, depth)
            if len(fields) > before:
                # one actual leaf already stands against the expected scalar as the mismatch:
                # the first by path, so that the actual side's key order changes nothing
                del fields[min(range(before, len(fields)), key=lambda i: fields[i].path)]
    else:
        before = len(fields)
        one_sided(out, cfg, expected, where, node, OMISSION, depth)
        for i in range(before, len(fields)):
            fields[i] = fields[i]._replace(actual=actual, reason=f"actual holds {type_a} here")
        if cfg.count_extras:
            one_sided(out, cfg, actual, where, node, HALLUCINATION, depth)


def _mismatch(expected: JsonValue, actual: JsonValue, where: Where) -> FieldResult:
    """The two values as one mismatched field, the reason naming both types."""
    reason = f"expected {json_type(expected)}, got {json_type(actual)}"
    return FieldResult(
        where.path, MISMATCH, 0.0, expected, actual, "", reason, where.field, where.actual
    )
