"""Pair scores of flat object elements whose fields all compare by equality: counted, in
code generated once per element shape, instead of scored column by column.

Under field_f1's Hungarian alignment, the pair score of two elements is the F1 of their
fields. With extract-eval's default comparators (``exact``; ``numeric`` without a
tolerance), a field scores 1 when its two values are equal JSON and 0 otherwise, so a
pair's summed field scores are the number of its equal fields, and choosing the pairs needs
only those counts. pair_scores.py finds the same sums the general way (each element
flattened into columns, each column scored for every pair by its comparator's all-pairs
form); for a handful of elements that bookkeeping costs far more than the comparisons.

Elements of one *shape* (every element on both sides with the keys of the first expected
one) take two functions generated once per number of keys: ``read`` takes a side's elements
into tuples of their values in the shape's key order, and ``count`` counts the equal fields
of every pair in straight-line code; a pair's score is then its count over k, which is how
pair_scores returns them too (the sums, with the scale k). Elements of several shapes (a
field left out, one the schema does not know added) are counted from sets of their items,
and scored as pair_scores scores them; where only the actual side's elements leave keys
out or add some, they are read against the expected side's shape and counted by the same
``count``, each pair's F1 made from its count and the two numbers of fields. Either way the rows and scale are pair_scores' own to
the bit (sums of 1.0 in any order are the same float), so the assignment that follows
(assignment.assign) chooses the same pairs with the same scores. Booleans are read as
stand-ins equal only to themselves: JSON's ``true`` is not 1.

Anything else takes pair_scores.py's general path: a key the schema does not know in
expected, a nested value, a field with another comparator, a transform or ``x-eval-skip``,
any per-field rule, a judge. Print the generated text with :func:`counter_source`.
``SPECIALISE = False`` turns all of this off (the differential test compares both).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TypeAlias, cast

from ..comparing import all_pairs
from ..configuring.walk_config import WalkConfig
from ..core.values import JsonObject, JsonValue
from ..schemas.eval_schema import SchemaNode
from . import assignment
from .pair_scores import SMALL_PAIRS, pair_value

SPECIALISE = True  # False: every array takes the general pair scores

# A value as read for counting: a plain scalar, or a stand-in (_Stand).
Read: TypeAlias = "str | int | float | None | _Stand"
Row: TypeAlias = tuple[Read, ...]
# An element's (key, value) items, values read as for counting (_item_sets).
Items: TypeAlias = "frozenset[tuple[str, JsonValue | _Stand]]"
# ``read(elements, keys)``: each element's values in the order of ``keys``, or None when an
# element is not an object of exactly those keys with plain scalar values; ``count(rows_e,
# rows_a)``: per (expected, actual) pair, how many values are equal, as a float.
Reader = Callable[[Sequence[JsonValue], tuple[str, ...]], "list[Row] | None"]
Counter = Callable[[list[Row], list[Row]], list[list[float]]]
# ``read_apart(elements, keys, fields, known)``: _rows_apart's answer; ``f1(rows_e, rows_a,
# sizes, k)``: each pair's F1 from its count of equal values (see _source)
ApartReader = Callable[
    [Sequence[JsonValue], tuple[str, ...], frozenset[str], frozenset[str]],
    "tuple[list[Row], list[int]] | None",
]
F1Rows = Callable[[list[Row], list[Row], list[int], int], list[list[float]]]
Functions = tuple[Reader, Counter, ApartReader, F1Rows]

MAX_KEYS = 32  # a wider shape is counted from sets (no function of its own)
_FACTORIES: dict[int, Functions] = {}  # by number of keys: the text depends on nothing else
_PLAN = "equal_fields"  # in SchemaNode.plans: (the keys of fields compared by equality, every key)

# The scalars whose Python ``==`` is JSON equality within and across them (1 == 1.0 as JSON
# numbers); a boolean is read as a stand-in, anything else sends the array the general way.
_PLAIN = frozenset({str, int, float, type(None)})


class _Stand:
    """A value as read for counting, equal only to itself: a JSON boolean (``True == 1``
    in Python), or the value of a field the schema does not know (it matches nothing)."""

    __slots__ = ("name",)

    def __init__(self, name: str) -> None:
        self.name = name

    def __repr__(self) -> str:
        return self.name


_TRUE, _FALSE, _UNKNOWN = _Stand("true"), _Stand("false"), _Stand("unknown")
_MISSING = _Stand("missing")  # a key of the shape the element lacks: never a plain scalar


def counted_pairs(
    cfg: WalkConfig,
    items: SchemaNode | None,
    expected: Sequence[JsonValue],
    actual: Sequence[JsonValue],
    path: str,
) -> assignment.Assignment | None:
    """The optimal pairing of two non-empty arrays (elements ``items``, at ``path``) under
    field_f1's Hungarian alignment, when their elements are flat objects whose fields all
    compare by equality; else None (the general path). The answer is array_pairs' own: an
    in-order copy pairs in order when identical elements are sure to score 1, anything else
    is assigned from the pair scores."""
    if not (
        SPECIALISE
        and cfg.schema_driven
        and not cfg.rules
        and not cfg.batch_policy
        and items is not None
        and len(expected) * len(actual) <= SMALL_PAIRS
    ):
        return None
    if items.properties is None:  # (elements compared whole: a plain leaf's, by equality)
        if items.plain is None or items.plain.add_scores is not all_pairs.exact_pairs:
            return None
        return _scalar_pairs(cfg, items, expected, actual, path)
    if items.is_leaf or type(expected[0]) is not dict:
        return None
    # (kept under _PLAN by this function alone)
    plan = cast("tuple[frozenset[str], frozenset[str]] | None", items.plans.get(_PLAN))
    if plan is None:
        plan = items.plans[_PLAN] = _plan(items.properties)
    fields, known = plan
    keys = tuple(expected[0])
    if 0 < len(keys) <= MAX_KEYS and fields.issuperset(keys):
        read, count, _, f1 = _functions(len(keys))
        rows_e = read(expected, keys)
        rows_a = read(actual, keys) if rows_e is not None else None
        if rows_e is not None and rows_a is not None:
            if rows_e == rows_a and (
                _distinct(rows_e) or cfg.identical_elements_score_one(items, path)
            ):
                return _in_order(len(expected))
            if len(rows_e) == 1 == len(rows_a):  # (one each: _assigned's answer)
                equal = count(rows_e, rows_a)[0][0]
                return ([(0, 0, equal / len(keys))], [], []) if equal > 0.0 else ([], [0], [0])
            return _assigned(count(rows_e, rows_a), len(keys))
        apart = _rows_apart(actual, keys, fields, known) if rows_e is not None else None
        if rows_e is not None and apart is not None:  # (expected of one shape, actual not)
            rows_a, sizes = apart
            scores = f1(rows_e, rows_a, sizes, len(keys))
            if len(scores) == 1 == len(scores[0]):  # (one each: assign's answer)
                return ([(0, 0, scores[0][0])], [], []) if scores[0][0] > 0.0 else ([], [0], [0])
            return assignment.assign(scores, 0.0, scale=1.0)
    sets_e = _item_sets(expected, fields, None)
    sets_a = _item_sets(actual, fields, known) if sets_e is not None else None
    if sets_e is None or sets_a is None:
        return None
    if sets_e == sets_a and cfg.identical_elements_score_one(items, path):
        return _in_order(len(expected))
    # (objects, every one: _item_sets read them)
    objects_e, objects_a = (
        cast("Sequence[JsonObject]", expected),
        cast("Sequence[JsonObject]", actual),
    )
    scores, scale = _set_scores(objects_e, objects_a, sets_e, sets_a)
    return assignment.assign(scores, 0.0, scale=scale)


def _scalar_pairs(
    cfg: WalkConfig,
    items: SchemaNode,
    expected: Sequence[JsonValue],
    actual: Sequence[JsonValue],
    path: str,
) -> assignment.Assignment | None:
    """``counted_pairs`` of elements compared whole by equality (a leaf ``items``, such as
    field_f1 infers for an array of scalars), every element a plain scalar: a pair's score
    is 1.0 where its two values are equal JSON, else 0.0, as pair_scores.py finds it (the
    element's one column, scale 1: every element has that one field); None for anything
    else (a container element). ``items``: an ``equality_field``."""
    rows_e = _scalar_rows(expected)
    rows_a = _scalar_rows(actual) if rows_e is not None else None
    if rows_e is None or rows_a is None:
        return None
    if len(rows_e) == 1 == len(rows_a):  # (one each: _matched's answer, or _assigned's)
        return _in_order(1) if rows_e == rows_a else ([], [0], [0])
    if rows_e == rows_a and (_distinct(rows_e) or cfg.identical_elements_score_one(items, path)):
        return _in_order(len(expected))
    matched = _matched(rows_e, rows_a)
    if matched is not None:
        return matched
    return _assigned([[float(x == y) for y in rows_a] for x in rows_e], 1)


def _matched(rows_e: list[Read], rows_a: list[Read]) -> assignment.Assignment | None:
    """The pairing of scalar elements scored 1.0 where equal, 0.0 otherwise, where no value
    occurs twice on a side: each pair of equal values is the one 1.0 of its line and of
    its column, so every optimal pairing takes all of them (together they reach the
    largest total) and any other pair it makes scores 0.0 and is dropped; what is left is
    the solver's answer whichever way it breaks its ties. None where a value repeats (ties
    among pairs of equal values: the solver's choice) or an expected value is not equal to
    itself (a NaN, which a lookup by identity would pair)."""
    column = {y: j for j, y in enumerate(rows_a)}
    if len(column) != len(rows_a) or len(set(rows_e)) != len(rows_e):
        return None
    kept: list[tuple[int, int, float]] = []
    lone_e: list[int] = []
    for i, x in enumerate(rows_e):
        if x != x:
            return None
        j = column.get(x)
        if j is None:
            lone_e.append(i)
        else:
            kept.append((i, j, 1.0))
    if len(kept) == len(rows_a):
        return kept, lone_e, []
    used = {j for _, j, _ in kept}
    return kept, lone_e, [j for j in range(len(rows_a)) if j not in used]


def _scalar_rows(elements: Sequence[JsonValue]) -> list[Read] | None:
    """Scalar elements read for counting (a boolean as its stand-in), or None where one is
    not a plain scalar."""
    rows: list[Read] = []
    read: Read
    for element in elements:
        kind = type(element)
        if kind in _PLAIN:
            read = element  # type: ignore[assignment]  # (a plain scalar: its type was read)
        elif kind is bool:
            read = _TRUE if element else _FALSE
        else:
            return None
        rows.append(read)
    return rows


def equality_field(node: SchemaNode) -> bool:
    """Whether the walk and the pair scores compare the field of schema ``node`` by JSON
    equality alone: a plain leaf (no transform, not skipped, not a judge) whose comparator's
    all-pairs form is equality of scalars (``exact``, and ``numeric`` without a tolerance,
    whose scores are 1 for equal JSON and 0 otherwise)."""
    return node.plain is not None and node.plain.add_scores is all_pairs.exact_pairs


def _plan(props: dict[str, SchemaNode]) -> tuple[frozenset[str], frozenset[str]]:
    # (equality_field written out: a node made for one array, as an inferred one often is,
    # pays for this once per array)
    exact = all_pairs.exact_pairs
    fields = [
        key
        for key, node in props.items()
        if node.plain is not None and node.plain.add_scores is exact
    ]
    return frozenset(fields), frozenset(props)


def _assigned(counts: list[list[float]], k: int) -> assignment.Assignment:
    """``assignment.assign(counts, 0.0, scale=k)`` for counts of equal fields, when each line
    of the shorter side has one best partner above 0, none shared (dominant_pairs' pairing,
    read from whole numbers: a best count that occurs once in its line is clear of the others
    by 1 or more, far beyond the margin); anything else is assign's, as it was."""
    n, m = len(counts), len(counts[0])
    lines = counts if n <= m else [list(column) for column in zip(*counts)]
    partners: list[int] = []
    taken: set[int] = set()
    for line in lines:
        best = max(line)
        at = line.index(best)
        if best <= 0.0 or at in taken or line.count(best) > 1:
            return assignment.assign(counts, 0.0, scale=float(k))
        partners.append(at)
        taken.add(at)
    if n <= m:  # every expected element paired
        return (
            [(i, j, line[j] / k) for i, (j, line) in enumerate(zip(partners, lines))],
            [],
            [j for j in range(m) if j not in taken],
        )
    return (
        sorted((i, j, line[i] / k) for j, (i, line) in enumerate(zip(partners, lines))),
        [i for i in range(n) if i not in taken],
        [],
    )


def _distinct(rows: list[Row] | list[Read]) -> bool:
    """Whether no two rows are equal: then a copy in order pairs in order whatever the
    comparators give equal values, so ``identical_elements_score_one`` need not be asked.
    Each row's count against its own copy is the most it can be, every field, and against
    any other row at least one less; so each line's best is its copy's, alone, and
    ``_assigned`` pairs every row with its copy at 1.0, as ``_in_order`` does."""
    return len(set(rows)) == len(rows)


def _in_order(n: int) -> assignment.Assignment:
    """Each element with its copy (see array_pairs._identical)."""
    return [(i, i, 1.0) for i in range(n)], [], []


# -- one shape: generated functions -----------------------------------------------------------


def _functions(k: int) -> Functions:
    found = _FACTORIES.get(k)
    if found is None:
        namespace: dict[str, object] = {}
        exec(compile(_source(k), "<jsonmatch pair counter>", "exec"), namespace)  # noqa: S102
        make = cast("Callable[..., Functions]", namespace["make"])  # (_source's)
        found = _FACTORIES[k] = make(_PLAIN, _TRUE, _FALSE, _MISSING)
    return found


def _source(k: int) -> str:
    """The text of a factory ``make(...)`` returning ``read``, ``count``, ``read_apart``
    and ``f1`` for k keys."""
    xs = "".join(f"x{i}, " for i in range(k))
    ys = "".join(f"y{i}, " for i in range(k))
    lines = [
        "def make(PLAIN, TRUE, FALSE, MISSING):",
        "",
        "    def read(elements, keys):",
        f"        # each element an object of exactly these {k} keys, its values plain scalars",
        f"        ({''.join(f'k{i}, ' for i in range(k))}) = keys",
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
    equal = " + ".join(f"(x{i} == y{i})" for i in range(k))
    lines += [
        f"            rows.append(({xs}))",
        "        return rows",
        "",
        "    def count(rows_e, rows_a):",
        "        # per pair, how many values are equal (a float: the sum of their scores of 1.0)",
        f"        return [[float({equal})",
        f"                 for ({ys}) in rows_a]",
        f"                for ({xs}) in rows_e]",
        "",
        "    def read_apart(elements, keys, fields, known):",
        "        # _rows_apart: each element's values of these keys (MISSING for one it lacks),",
        "        # its size; its other keys checked (a field's value plain, no other known key)",
        f"        ({''.join(f'k{i}, ' for i in range(k))}) = keys",
        "        rows = []",
        "        sizes = []",
        "        for element in elements:",
        "            if type(element) is not dict:",
        "                return None",
    ]
    for i in range(k):
        lines += [
            f"            x{i} = element.get(k{i}, MISSING)",
            f"            if type(x{i}) not in PLAIN and x{i} is not MISSING:",
            f"                if type(x{i}) is not bool:",
            "                    return None",
            f"                x{i} = TRUE if x{i} else FALSE",
        ]
    lacking = "".join(f" or x{i} is MISSING" for i in range(k))
    lines += [
        "            size = len(element)",
        f"            if size != {k}{lacking}:  # (a key of its own: checked)",
        "                for key, value in element.items():",
        "                    if key in keys:",
        "                        continue",
        "                    if key in fields:",
        "                        if type(value) not in PLAIN and type(value) is not bool:",
        "                            return None",
        "                    elif key in known:",
        "                        return None",
        f"            rows.append(({xs}))",
        "            sizes.append(size)",
        "        return rows, sizes",
        "",
        "    def f1(rows_e, rows_a, sizes, k):",
        "        # each pair's F1 from its count, k fields expected and sizes[j] in actual",
        "        # element j: pair_value(count, 0, k, size, 'f1') written out, the same",
        "        # operations in the same order (a call per pair would cost more)",
        "        out = []",
        f"        for ({xs}) in rows_e:",
        "            row = []",
        f"            for ({ys}), size in zip(rows_a, sizes):",
        f"                tp = float({equal})",
        "                precision = tp / size if size else 1.0",
        "                recall = tp / k",
        "                total = precision + recall",
        "                row.append(2 * precision * recall / total if total > 0 else 0.0)",
        "            out.append(row)",
        "        return out",
        "",
        "    return read, count, read_apart, f1",
        "",
    ]
    return "\n".join(lines)


def counter_source(keys: tuple[str, ...]) -> str:
    """The generated source of the functions that count the equal fields of elements with
    ``keys`` (the text is the same for any k keys)."""
    return f"# the pair counts of elements with keys {keys!r}\n" + _source(len(keys))


# -- several shapes: sets of items ------------------------------------------------------------


def _rows_apart(
    elements: Sequence[JsonValue],
    keys: tuple[str, ...],
    fields: frozenset[str],
    known: frozenset[str],
) -> tuple[list[Row], list[int]] | None:
    """The actual side's elements read against the one shape of the expected side (``keys``),
    where some element leaves a key out or adds one: each element's values in the order of
    ``keys`` (a stand-in equal to nothing for a key it lacks), and its number of fields.
    A pair's count of equal values and the two numbers of fields are what ``_item_sets``'
    sets give (their intersection, their sizes), so its F1 is ``_set_scores``' to the bit.
    None where ``_item_sets`` gives None: an element not an object, a field compared by
    equality holding something other than a plain scalar, a key the schema knows that is
    not such a field."""
    return _functions(len(keys))[2](elements, keys, fields, known)  # (its generated form)


def _item_sets(
    elements: Sequence[JsonValue], fields: frozenset[str], known: frozenset[str] | None
) -> list[Items] | None:
    """Each element's (key, value) items, values read as for counting; None when an element
    is not an object, has a value that is not a plain scalar, or a key that is not a field
    compared by equality. ``known``: on the actual side, the schema's keys (a key it does
    not know stands in with a value that matches nothing: one hallucinated field)."""
    out = []
    for element in elements:
        if type(element) is not dict:
            return None
        items: list[tuple[str, JsonValue | _Stand]] = []
        value: JsonValue | _Stand
        for key, value in element.items():
            if key not in fields:
                if known is None or key in known:
                    return None
                value = _UNKNOWN
            elif type(value) not in _PLAIN:
                if type(value) is not bool:
                    return None
                value = _TRUE if value else _FALSE
            items.append((key, value))
        out.append(frozenset(items))
    return out


def _set_scores(
    expected: Sequence[JsonObject],
    actual: Sequence[JsonObject],
    sets_e: list[Items],
    sets_a: list[Items],
) -> tuple[list[list[float]], float]:
    """pair_scores.pair_matrix_small's rows and scale for these elements: when every element
    has the same k fields, the counts with scale k; else each pair's F1 from its count and
    the two elements' numbers of fields."""
    keys = expected[0].keys()
    if keys and all(element.keys() == keys for element in (*expected, *actual)):
        return [[float(len(x & y)) for y in sets_a] for x in sets_e], float(len(keys))
    return [
        [pair_value(float(len(x & y)), 0, len(x), len(y), "f1") for y in sets_a] for x in sets_e
    ], 1.0
