"""Pair scores of flat object elements whose fields all compare by equality, generated once
per schema node and element shape.

Under field_f1's Hungarian alignment, the pair score of two elements is the F1 of their
fields. With extract-eval's default comparators (``exact``; ``numeric`` without a
tolerance), a field scores 1 when its two values are equal JSON and 0 otherwise; so for two
elements that both have the same k fields, the score is (equal fields) / k, and choosing the
pairs needs only those counts. pair_scores.py finds them the general way (each element
flattened into columns, each column scored for every pair by its comparator's all-pairs
form); for a handful of elements that bookkeeping costs far more than the comparisons.

Here, for an element node and a *shape* (the first expected element's keys, in order), a
pair of small functions is generated once: ``read`` takes one side's elements into tuples of
their values in that key order, refusing (None) any element of another shape or with a value
that is not a plain scalar, and ``count`` counts the equal fields of every pair in
straight-line code. Their rows, times the scale k, are exactly what pair_scores returns for
the same arrays (a sum of 1.0 per equal field, in whatever order, is the same float), so the
assignment that follows (assignment.assign) chooses the same pairs with the same scores, to
the bit. Booleans are read as stand-ins equal only to themselves: JSON's ``true`` is not 1.

Anything else (elements of other shapes, a key the schema does not know, a nested value, a
field with another comparator, a transform or an ``ignore``, any per-field rule, a judge)
takes pair_scores.py's general path. Print a function with :func:`counter_source`.
``SPECIALISE = False`` turns this off (the differential test compares both).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..comparing import all_pairs
from ..configuring.walk_config import WalkConfig
from ..schemas.eval_schema import SchemaNode
from . import assignment
from .pair_scores import SMALL_PAIRS

SPECIALISE = True  # False: every array takes the general pair scores

# One side's elements as tuples of their values in the shape's key order (None: an element
# of another shape or with a value that is not a plain scalar); and the rows of equal-field
# counts of every (expected, actual) pair.
Reader = Callable[[list[Any]], "list[tuple[Any, ...]] | None"]
Counter = Callable[[list[tuple[Any, ...]], list[tuple[Any, ...]]], list[list[float]]]
Shape = tuple[Reader, Counter]

MAX_KEYS = 32  # a wider element takes the general path
MAX_SHAPES = 16  # per node; elements of any other shape take the general path
_PLAN = "equal_fields"  # the node's shapes, in SchemaNode.plans
_FACTORIES: dict[int, Callable[..., Shape]] = {}  # by number of keys: the source depends on nothing else

# The scalars whose Python ``==`` is JSON equality within and across them (1 == 1.0 as JSON
# numbers); a boolean is read as a stand-in, anything else refuses the array.
_PLAIN = frozenset({str, int, float, type(None)})


class _Boolean:
    """A JSON boolean as read for counting: equal to itself only (``True == 1`` in Python)."""

    __slots__ = ("value",)

    def __init__(self, value: bool) -> None:
        self.value = value

    def __repr__(self) -> str:
        return "true" if self.value else "false"


_TRUE, _FALSE = _Boolean(True), _Boolean(False)
_MISSING = object()  # a key of the shape the element lacks: never a plain scalar


def counted_pairs(cfg: WalkConfig, items: SchemaNode | None, expected: list[Any],
                  actual: list[Any], path: str) -> assignment.Assignment | None:
    """The optimal pairing of two non-empty arrays under field_f1's Hungarian alignment
    (elements ``items``, at ``path``), when every element has the shape of the first expected
    one and every field of that shape compares by equality; else None (the general path).
    The answer is array_pairs' own: an in-order copy pairs in order when identical elements
    are sure to score 1, anything else is assigned from the counts."""
    if not (SPECIALISE and cfg.schema_driven and not cfg.rules and not cfg.batch_policy
            and items is not None and items.properties is not None and not items.is_leaf
            and len(expected) * len(actual) <= SMALL_PAIRS and type(expected[0]) is dict):
        return None
    keys = tuple(expected[0])
    shapes: dict[tuple[str, ...], Shape | None] | None = items.plans.get(_PLAN)
    if shapes is None:
        shapes = items.plans[_PLAN] = {}
    if keys in shapes:
        shape = shapes[keys]
    else:
        shape = _shape(items, keys)
        if len(shapes) < MAX_SHAPES:
            shapes[keys] = shape
    if shape is None:
        return None
    read, count = shape
    rows_e = read(expected)
    rows_a = read(actual) if rows_e is not None else None
    if rows_e is None or rows_a is None:
        return None
    if rows_e == rows_a and cfg.identical_elements_score_one(items, path):
        return [(i, i, 1.0) for i in range(len(expected))], [], []  # see array_pairs._identical
    return assignment.assign(count(rows_e, rows_a), 0.0, scale=float(len(keys)))


def equality_field(node: SchemaNode | None) -> bool:
    """Whether the walk and the pair scores compare the field of schema ``node`` by JSON
    equality alone: a plain leaf (no transform, not ignored, not a judge) whose comparator's
    all-pairs form is equality of scalars (``exact``, and ``numeric`` without a tolerance,
    whose scores are 1 for equal JSON and 0 otherwise)."""
    return node is not None and node.plain is not None and node.plain.add_scores is all_pairs.exact_pairs


def _shape(items: SchemaNode, keys: tuple[str, ...]) -> Shape | None:
    """The functions of elements with ``keys`` under ``items``, or None when a key is not
    a field compared by equality (or there are none, or too many)."""
    props = items.properties or {}
    if not 0 < len(keys) <= MAX_KEYS or not all(equality_field(props.get(key)) for key in keys):
        return None
    factory = _FACTORIES.get(len(keys))
    if factory is None:
        namespace: dict[str, Any] = {}
        exec(compile(_source(len(keys)), "<jsonmatch pair counter>", "exec"), namespace)  # noqa: S102
        factory = _FACTORIES[len(keys)] = namespace["make"]
    return factory(keys, _PLAIN, _TRUE, _FALSE, _MISSING)


def _source(k: int) -> str:
    """The text of a factory ``make(...)`` returning ``read`` and ``count`` for k keys."""
    xs = "".join(f"x{i}, " for i in range(k))
    ys = "".join(f"y{i}, " for i in range(k))
    lines = [
        "def make(keys, PLAIN, TRUE, FALSE, MISSING):",
        f"    ({''.join(f'k{i}, ' for i in range(k))}) = keys",
        "",
        "    def read(elements):",
        f"        # each element an object of exactly these {k} keys, its values plain scalars",
        "        rows = []",
        "        for element in elements:",
        f"            if type(element) is not dict or len(element) != {k}:",
        "                return None",
    ]
    for i in range(k):
        lines += [
            f"            x{i} = element.get(k{i}, MISSING)",
            f"            if type(x{i}) not in PLAIN:",
            f"                if type(x{i}) is not bool:",
            "                    return None",
            f"                x{i} = TRUE if x{i} else FALSE",
        ]
    lines += [
        f"            rows.append(({xs}))",
        "        return rows",
        "",
        "    def count(rows_e, rows_a):",
        "        # per pair, how many fields are equal (a float: the sum of their scores of 1.0)",
        "        return [[float(" + " + ".join(f"(x{i} == y{i})" for i in range(k)) + ")",
        f"                 for ({ys}) in rows_a]",
        f"                for ({xs}) in rows_e]",
        "",
        "    return read, count",
        "",
    ]
    return "\n".join(lines)


def counter_source(keys: tuple[str, ...]) -> str:
    """The generated source of the functions of elements with ``keys``."""
    return f"# the pair counts of elements with keys {keys!r}\n" + _source(len(keys))
