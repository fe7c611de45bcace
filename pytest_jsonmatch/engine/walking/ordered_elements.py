"""The elements of two arrays aligned by index, as the generated scorers walk them
(generated_scorers.py): what ``Walk.array`` does for a schema-driven node aligned in order,
each pair of elements in order, then the elements one side has past the other's end."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..core.paths import Where
from ..results.field_results import HALLUCINATION, OMISSION
from ..schemas.eval_schema import SchemaNode
from .unpaired import one_sided_rows

_new = tuple.__new__

# Where an object sits, as a scorer is given it (generated_scorers.Place), and a scorer
Place = tuple[str, str, "str | None"]
Scorer = Callable[[Any, dict[str, Any], dict[str, Any], Place, int], None]


# the path suffixes of the first elements of an array, made once
INDEX_SUFFIXES = tuple(f"[{i}]" for i in range(64))


def ordered_elements(
    walk: Any,
    expected: list[Any],
    actual: list[Any],
    where: Place,
    node: SchemaNode,
    depth: int,
    cache: dict[tuple[str, ...], Scorer],
    objects: bool,
    remembered: Callable[..., Scorer | None],
) -> None:
    """What ``Walk.array`` does for two arrays, not both empty, of a schema-driven node
    aligned by index: each pair of elements walked in order (an object element by its
    scorer, found in the call site's ``cache``, when ``objects``: the node's elements are
    objects the schema describes, ``remembered`` finding it: generated_scorers.remembered),
    then the omitted and the hallucinated elements."""
    cfg = walk.cfg
    items = node.items
    common = min(len(expected), len(actual))
    path, field, actual_path = where
    element_field = field + "[]"
    below = depth + 1
    index = INDEX_SUFFIXES if common <= len(INDEX_SUFFIXES) else [f"[{i}]" for i in range(common)]
    for i in range(common):
        e, a = expected[i], actual[i]
        at = (
            path + index[i],
            element_field,
            None if actual_path is None else actual_path + index[i],
        )
        if objects and type(e) is dict and type(a) is dict and e:
            scorer = cache.get(tuple(e)) or remembered(
                cache,
                items,
                e,
                at,
                cfg,
                walk.tally,
            )
            if scorer is not None:
                scorer(walk, e, a, at, below)
                continue
        walk.node(walk.read_expected(e, below), walk.read(a, below), _new(Where, at), items, below)
    if common < len(expected) or (common < len(actual) and cfg.count_extras):
        _unpaired_elements(walk, expected, actual, where, items, common, below)


def _unpaired_elements(
    walk: Any,
    expected: list[Any],
    actual: list[Any],
    where: Place,
    items: SchemaNode | None,
    common: int,
    below: int,
) -> None:
    """The elements past the ``common`` pairs of ``ordered_elements``: expected's omitted,
    then (when extras count) actual's hallucinated (in a walk that writes rows, their plain
    leaves as rows: unpaired.one_sided_rows)."""
    cfg, rows = walk.cfg, walk.rows
    whole = _new(Where, where)
    for i in range(common, len(expected)):
        element = walk.read_expected(expected[i], below)
        one_sided_rows(walk.out, cfg, element, whole.element(i), items, OMISSION, below, rows)
    if cfg.count_extras:
        for j in range(common, len(actual)):
            one_sided_rows(
                walk.out,
                cfg,
                walk.read(actual[j], below),
                whole.element(j, whole.actual_path),
                items,
                HALLUCINATION,
                below,
                rows,
            )
