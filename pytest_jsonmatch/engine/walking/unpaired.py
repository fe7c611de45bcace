"""Values with nothing to compare against: what one side has and the other lacks (omissions
and hallucinations, one per leaf), and values whose shapes disagree (an object against a
list, a container against a scalar).
"""

from __future__ import annotations

from typing import Any

from ..configuring.walk_config import WalkConfig
from ..core.paths import Where
from ..core.values import ARRAY, MISSING, NULL, OBJECT, json_equal, json_type
from ..results.field_results import (
    HALLUCINATION,
    MATCH,
    MISMATCH,
    OMISSION,
    FieldResult,
    FloorFailure,
    WalkOutput,
)
from ..schemas.eval_schema import SchemaNode


def one_sided(
    out: WalkOutput,
    cfg: WalkConfig,
    value: Any,
    where: Where,
    node: SchemaNode | None,
    status: str,
    depth: int,
) -> None:
    """Every leaf under ``value`` becomes an ``status`` (omission or hallucination), in
    document order. Without recursion: a value one side alone has may hold fields the door
    did not measure (ignored ones, named here on the other side's path), nested deeper than
    the stack the walk was given."""
    stack: list[tuple[Any, Where, SchemaNode | None, int]] = [(value, where, node, depth)]
    while stack:
        value, where, node, depth = stack.pop()
        spec = cfg.spec_at(where.path, node) if depth else None
        if spec is not None and spec.skip:
            continue
        tag = json_type(value)
        if not cfg.is_leaf(node, value, depth):
            if tag == OBJECT and not (
                cfg.schema_driven and node is not None and node.type not in (None, OBJECT)
            ):
                props = node.properties if node is not None else None
                children = []
                for key, child in value.items():
                    if cfg.schema_driven and props is not None and key not in props:
                        continue  # a field the schema does not know is not scored
                    children.append(
                        (
                            child,
                            where.key(key),
                            props.get(key) if props is not None else None,
                            depth + 1,
                        )
                    )
                stack.extend(reversed(children))  # popped in document order
                continue
            if tag == ARRAY and (value or not cfg.schema_driven):
                items = cfg.items_of(node, value)
                stack.extend(
                    (child, where.element(i), items, depth + 1)
                    for i, child in reversed(list(enumerate(value)))
                )
                continue
        if tag == NULL and (
            cfg.null_absent or (cfg.schema_driven and node is not None and node.type == OBJECT)
        ):
            continue  # an absent null, or a null object: no field
        expected, actual = (value, MISSING) if status == OMISSION else (MISSING, value)
        out.fields.append(
            FieldResult(where.path, status, 0.0, expected, actual, "", "", where.field)
        )
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
    expected: Any,
    actual: Any,
    where: Where,
    node: SchemaNode | None,
    depth: int,
) -> None:
    """A container on one side, something else (or the other kind of container) on the
    other."""
    type_e, type_a = json_type(expected), json_type(actual)
    reason = f"expected {type_e}, got {type_a}"
    if cfg.schema_driven:
        # one field, compared whole; a null side stands for an absent container
        if type_e == NULL and type_a == NULL:
            return
        if type_e == NULL:
            one_sided(out, cfg, actual, where, node, HALLUCINATION, depth)
        elif type_a == NULL:
            one_sided(out, cfg, expected, where, node, OMISSION, depth)
        elif json_equal(expected, actual):
            out.fields.append(
                FieldResult(
                    where.path, MATCH, 1.0, expected, actual, "", "", where.field, where.actual
                )
            )
        else:
            out.fields.append(
                FieldResult(
                    where.path,
                    MISMATCH,
                    0.0,
                    expected,
                    actual,
                    "",
                    reason,
                    where.field,
                    where.actual,
                )
            )
        return
    if type_e not in (OBJECT, ARRAY):
        # a scalar expected, a container found: the scalar is wrong
        if type_e == NULL and cfg.null_absent:
            one_sided(out, cfg, actual, where, node, HALLUCINATION, depth)
            return
        out.fields.append(
            FieldResult(
                where.path, MISMATCH, 0.0, expected, actual, "", reason, where.field, where.actual
            )
        )
        if cfg.count_extras:
            before = len(out.fields)
            one_sided(out, cfg, actual, where, node, HALLUCINATION, depth)
            if len(out.fields) > before:
                # one actual leaf already stands against the expected scalar as the mismatch:
                # the first by path, so that the actual side's key order changes nothing
                first = min(range(before, len(out.fields)), key=lambda i: out.fields[i].path)
                del out.fields[first]
        return
    # a container expected, something else found: each expected leaf is missing
    before = len(out.fields)
    one_sided(out, cfg, expected, where, node, OMISSION, depth)
    fields = out.fields
    for i in range(before, len(fields)):
        fields[i] = fields[i]._replace(actual=actual, reason=f"actual holds {type_a} here")
    if cfg.count_extras:
        one_sided(out, cfg, actual, where, node, HALLUCINATION, depth)
