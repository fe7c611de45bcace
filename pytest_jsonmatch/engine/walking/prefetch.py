"""Work per string done before the walk, for a whole record at once: the strings each
comparator with a ``prepare`` (``cosine``: embedding them) will see, handed to it in one call.

A string goes to the comparator that will score it: the field's own (``fields`` option or
schema), else the metric's comparator for strings; after the field's transforms, since
those are the values the comparator compares. Array elements are gathered at every index,
whatever pairing later chooses; a string missed here is prepared when it is first compared.
"""

from __future__ import annotations

from typing import Any

from ..comparing.comparators import BoundComparator
from ..configuring.walk_config import WalkConfig
from ..core.paths import index_segment, key_segment
from ..core.values import STRING
from ..schemas.eval_schema import SchemaNode


def prefetch_strings(cfg: WalkConfig, expected: Any, actual: Any) -> None:
    """Hand every comparator with a ``prepare`` the strings of both values it will score."""
    if not cfg.prepares:
        return
    found: dict[int, tuple[BoundComparator, dict[str, None]]] = {}
    for value in (expected, actual):
        _gather(cfg, value, "", cfg.schema, found)
    for comparator, strings in found.values():
        if strings and comparator.prepare is not None:
            comparator.prepare(list(strings))


def _gather(
    cfg: WalkConfig,
    value: Any,
    path: str,
    node: SchemaNode | None,
    found: dict[int, tuple[BoundComparator, dict[str, None]]],
) -> None:
    stack = [(value, path, node)]
    while stack:
        current, where, schema = stack.pop()
        kind = type(current)
        spec = (
            cfg.spec_at(where, schema)
            if cfg.rules
            else (schema.spec if schema is not None else None)
        )
        if spec is not None and spec.skip:
            continue  # never compared; and an ignored value may be anything, even hold itself
        if kind is dict:
            props = schema.properties if schema is not None else None
            stack.extend(
                (child, key_segment(where, key), props.get(key) if props else None)
                for key, child in reversed(current.items())
            )  # popped in document order
        elif kind is list:
            items = schema.items if schema is not None else None
            stack.extend(
                (child, index_segment(where, index), items)
                for index, child in reversed(list(enumerate(current)))
            )
        elif kind is str:
            comparator = spec.comparator if spec is not None else None
            if comparator is None and cfg.schema_driven and schema is not None:
                comparator = schema.default_comparator
            if comparator is None:
                comparator = cfg.type_policy.get(STRING)
            if comparator is None or comparator.prepare is None:
                continue
            text = current
            if spec is not None and spec.transform is not None:
                try:
                    text = spec.transform(current)
                except Exception:  # noqa: BLE001 - the walk reports a failing transform, named
                    continue
                if type(text) is not str:
                    continue
            found.setdefault(id(comparator), (comparator, {}))[1][text] = None
