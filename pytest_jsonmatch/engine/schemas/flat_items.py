"""The node of an array's elements that are objects of plain scalars, inferred in the pass
that checks them (field_f1 without a schema, an expected array the door has not read).

``eval_schema.checked_items`` checks an unread array's elements (``plain_within``), then
infers their node (``inferred_items``: ``infer_node``'s general loop, with a task per
container). For elements that are all objects of plain scalars, the commonest array of an
extracted record, the node is a property per key, in the order the keys first occur, each
the shared leaf of its first value that is not null (of a string where every value is
null): here one loop over the elements reads that and makes the door's checks of them as
it goes. An array its first keys were met in before is left to ``checked_items``, which
keeps such nodes by their skeleton; the first sighting is counted here as it counts it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..comparing.registry import Binder, Registry
from ..core.values import JsonValue
from ..reading.intake import MAX_KEYS
from .eval_schema import _SIGHTED, KEEP_ITEMS, SchemaNode, _leaf_table, _shared_leaf, _sighted

# The switch of this fast path (docs/architecture.md, "Fast paths"): False leaves every
# unread array's elements to checked_items.
FLAT_ITEMS = True

# the scalar types the door passes as they are whatever their value (a float must also be
# finite)
_PLAIN_EXACT = frozenset({str, int, bool, type(None)})


def flat_items(
    elements: Sequence[JsonValue], registry: Registry | Binder, levels: int
) -> SchemaNode | None:
    """``checked_items(elements, registry, levels)`` where every element is an object of
    plain scalars (within the door's bound on keys, each key a string, each float finite)
    and the first one's keys are met for the first time; None for any other elements
    (nothing checked or counted: ``checked_items`` takes them)."""
    if not FLAT_ITEMS or levels < 2 or not elements:
        return None
    first: Any = elements[0]  # (read by its type: a dict's keys, below)
    if type(first) is not dict or (KEEP_ITEMS and tuple(first) in _SIGHTED):
        return None
    table = _leaf_table(registry)
    props: dict[str, SchemaNode | None] = {}
    element: Any  # (read by its type, as the door reads it)
    for element in elements:
        if type(element) is not dict or len(element) > MAX_KEYS:
            return None
        for key, value in element.items():
            kind = type(value)
            if type(key) is not str or not (
                kind in _PLAIN_EXACT or (kind is float and value - value == 0.0)
            ):
                return None
            if value is None:
                if key not in props:
                    props[key] = None  # (its place kept: a later value may name its type)
            elif props.get(key) is None:
                props[key] = table[kind]
    if KEEP_ITEMS:
        _sighted(first)  # (inferred_items counts the first sighting so)
    # a key null in every element: infer_node's string leaf (the leaf table's for a lone
    # object, whose values it reads from the table; else the one a task of nulls finds)
    string = table[type(None)] if len(elements) == 1 else None
    for key, leaf in props.items():
        if leaf is None:
            string = string or _shared_leaf("string", registry)
            props[key] = string
    node = SchemaNode(
        type="object",
        properties=props,  # type: ignore[arg-type]  # (each key's leaf set above)
        default_comparator=_shared_leaf("object", registry).default_comparator,
    )
    return node.seal()
