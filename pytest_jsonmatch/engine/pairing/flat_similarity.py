"""structural_f1's pair scores of a few flat object elements, a whole pair at a time, in code
generated once per plan of columns, instead of column by column.

pair_scores.py scores an array's elements the general way: each element flattened into
columns, each column scored for every pair by its comparator's all-pairs form (``add_scores``)
into a table of sums, then each sum divided by the pair's union of fields. For a handful of
elements that bookkeeping (columns, their types, a call per column) costs more than the
comparisons themselves. Here, where every element on both sides is an object of plain
scalars, or every one a plain scalar (its element's one field, as the general path reads
it), nulls counting as absent as there, each element is read once into a row of its
values prepared for their comparator (a text's token mask, a number as a float, an equality
key), and one generated function scores every pair in straight-line code, a column after
another in the general path's order (the order the expected elements first show the keys),
so each pair's sum is the same sum of the same floats, to the bit. Its union, the
uniform scale (every element with the same k fields: the sums are returned with scale k)
and the divisions are pair_scores' own.

The comparators read here are the all-pairs forms they name: Jaccard's token masks
(``all_pairs.jaccard_pairs``, a one-token text being the mask of one token), equal keys
(``all_pairs.EqualPairs``) and structeval's threshold numbers (``all_pairs.WithinPairs``);
a trusted comparator without an all-pairs form (structeval's evaluators by kind of number)
is called per pair, as the general path calls it. Anything else takes the general path: a
nested value, a key whose values differ in type, a comparator of another all-pairs form, an
integer no float holds, a schema, a rule, a judge. The
generated text is printable (:func:`plan_source`). ``SPECIALISE = False`` turns this off
(the differential tests compare both).

On structural_f1's unread walk, two arrays of flat objects are checked for the door and
surveyed for their shapes in one pass (``checked_shapes``, from walking/unread_sides.py),
and the shapes are handed to ``similarity_rows`` for those two arrays: the door's pass and
a second for the shapes were one each. An array of fewer than MIN_PAIRS pairs is then
scored here too where a plan of its shapes is kept with its code written (a dataset's short
arrays of a repeated shape): its rows cost less than the general path's columns, and it
never lays out a plan or counts a sighting, so a one-off array pays nothing for it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, TypeAlias

from ..comparing import all_pairs
from ..comparing.comparators import BoundComparator
from ..configuring.walk_config import WalkConfig
from ..core.numbers import FLOAT_SAFE
from ..core.values import JsonValue
from ..reading import intake
from ..schemas.eval_schema import SchemaNode
from . import plan_rows, shape_runs

SPECIALISE = True  # False: every array takes pair_scores' column scores

# Below this many element pairs the general path's columns cost less than surveying both
# sides and laying out a plan here: an array this small is scored here only by a plan kept
# for its shapes, with its code written, where its shapes come from the door's pass
MIN_PAIRS = 9
MAX_COLUMNS = 24  # a wider plan takes the general path
MAX_SCORERS = 512  # generated functions kept; a plan past them takes the general path
# A plan's code is written the WRITE_AT-th time an array of it is met: writing it costs a
# few tenths of a millisecond, what it saves on some thirty arrays, so a plan met a few times
# (an assertion's array of a shape of its own) takes the general path, and one met again and
# again (a dataset's, a suite's repeated shape) its code. MAX_SIGHTINGS bounds the plans
# counted.
WRITE_AT = 16
MAX_SIGHTINGS = 4096

# the JSON type of a plain scalar, by its Python type (a null is absent; anything else sends
# the array the general way)
_TAG = {str: "string", int: "number", float: "number", bool: "boolean"}
_MIXED = ""  # a key whose values are of several types

# A column's form: what its prepared values are and how a pair of them scores. _SCORE: a
# call of the comparator per pair (one with no all-pairs form: structeval's evaluators by
# kind of number); _SCORE_EQUAL: the same, equal values of one type scoring 1 without it.
# (the names are plan_rows.py's, whose loop tells them apart by identity)
_JACCARD, _EQUAL, _WITHIN = plan_rows.JACCARD, plan_rows.EQUAL, plan_rows.WITHIN
_SCORE, _SCORE_EQUAL = plan_rows.SCORE, plan_rows.SCORE_EQUAL
# A plan: each shared column's form and whether every element on both sides holds it; and
# whether every element has exactly those fields (the sums are returned with scale k).
Plan: TypeAlias = "tuple[tuple[tuple[str, bool], ...], bool]"
# ``read(elements, keys, constants, masks, bits)``: each element's row of prepared values,
# or None (a number no float holds); ``scores(rows_e, rows_a, sizes_e, sizes_a, constants)``:
# the rows of pair scores. ``constants``: each column's (an equality key function, a
# threshold's t and ``within``, a comparator's ``score``), in column order.
Reader: TypeAlias = Callable[
    [Sequence[JsonValue], list[str], tuple[Any, ...], dict[str, Any], dict[str, int]],
    "list[tuple[Any, ...]] | None",
]
Scorer: TypeAlias = Callable[
    [list[tuple[Any, ...]], list[tuple[Any, ...]], list[int], list[int], tuple[Any, ...]],
    list[list[float]],
]
_FUNCTIONS: dict[Plan, tuple[Reader, Scorer]] = {}
_SIGHTINGS: dict[Plan, int] = {}  # plans met, not yet written: how many times
# An element's shape: its keys in order and its values' types
Shape: TypeAlias = "tuple[tuple[object, ...], tuple[type, ...]]"
# Both sides' shapes as one key, and each side's elements' numbers of fields (``_shapes``)
Shaped: TypeAlias = "tuple[tuple[tuple[Shape, ...], tuple[Shape, ...]], list[int], list[int]]"
# Plans laid out (``_laid_out``) by both sides' shapes (``_shapes``), with the policy and
# the flag they were laid out under (a configuration's: its own table, checked by
# identity); None where the general path scores such arrays. At most MAX_SIGHTINGS kept.
_KEPT: dict[object, tuple[object, bool, tuple[list[str], tuple[object, ...], Plan] | None]] = {}
_NONE = type(None)
_SCALAR_TYPES = frozenset({str, int, float, bool, _NONE})  # (a null: absent)
# What a kept plan's key may hold, so that _KEPT stays small whatever an answer holds (an
# array of elements of many keys, or of as many shapes as elements, is laid out afresh
# each time, not kept): shapes a side, keys an element
_KEPT_SHAPES = 16
_KEPT_KEYS = 2 * MAX_COLUMNS


def similarity_rows(
    cfg: WalkConfig,
    items: SchemaNode | None,
    expected: Sequence[JsonValue],
    actual: Sequence[JsonValue],
) -> tuple[list[list[float]], float] | None:
    """The pair scores of two non-empty arrays as pair_scores' small form gives them (rows
    of sums and their scale), or None where the general path must score them. The caller
    keeps to a few elements (pair_scores.SMALL_PAIRS). A plan whose code is not written
    (met fewer than WRITE_AT times, or an array of fewer than MIN_PAIRS pairs, which never
    counts as a sighting) is carried out by plan_rows.py's loop: the same rows, for less
    than the general path's columns (``plan_rows.INTERPRET``; off, such arrays take the
    general path). Scalar elements are scored by the loop from their types alone. An array
    of fewer than MIN_PAIRS pairs whose shapes were handed over (``checked_shapes``) with a
    plan kept for them is read by that plan's code, without a survey."""
    if not SPECIALISE or items is not None or cfg.rules or cfg.batch_policy or cfg.skip_patterns:
        return None
    small = len(expected) * len(actual) < MIN_PAIRS
    looped = plan_rows.INTERPRET  # (a plan without its code written: read by the loop)
    if type(expected[0]) is not dict:  # scalars: each is its element's one field, path ""
        if looped:
            return _scalar_rows(cfg, expected, actual)
        if small:
            return None
        expected, actual = [{"": v} for v in expected], [{"": v} for v in actual]
        shaped = None
    elif (handed := _handed) is not None and handed[0] is expected and handed[1] is actual:
        shaped = handed[2]  # (the slot read once: see _handed)
    elif small:
        if not looped:
            return None
        shaped = None  # (a small array's plan is laid out each time, never kept)
    else:
        shaped = _shapes(expected, actual)
    policy = cfg.type_policy
    equal_one = cfg.every_type_scores_equal_one
    kept = _KEPT.get(shaped[0]) if shaped is not None else None
    if kept is not None and kept[0] is policy and kept[1] is equal_one:
        _, _, laid = kept
        if laid is None:
            return None
        keys, given, plan = laid
        sizes_e, sizes_a = shaped[1], shaped[2]  # type: ignore[index]
    elif small and not looped:
        return None  # (a plan is laid out for an array of MIN_PAIRS pairs or more only)
    else:
        seen_e = _survey(expected)
        seen_a = _survey(actual) if seen_e is not None else None
        if seen_e is None or seen_a is None:
            return None
        sizes_e, sizes_a = seen_e[2], seen_a[2]
        laid = _laid_out(seen_e, seen_a, policy, equal_one)
        if shaped is not None and not small:
            if len(_KEPT) >= MAX_SIGHTINGS:
                _KEPT.clear()
                _FIRSTS.clear()
            _KEPT[shaped[0]] = (policy, equal_one, laid)
            if laid is not None and shaped[0][0]:  # (an empty object's shape is not listed)
                _FIRSTS.add(shaped[0][0][0])
        if laid is None:
            return None
        keys, given, plan = laid
    found = _FUNCTIONS.get(plan)
    if found is None:
        if small:  # (not a sighting: a plan's code is written for larger arrays)
            return (
                _looped(plan, keys, given, expected, actual, sizes_e, sizes_a) if looped else None
            )
        sightings = _SIGHTINGS.get(plan, 0) + 1
        if sightings < WRITE_AT or len(_FUNCTIONS) >= MAX_SCORERS:
            if len(_SIGHTINGS) < MAX_SIGHTINGS:
                _SIGHTINGS[plan] = sightings
            return (
                _looped(plan, keys, given, expected, actual, sizes_e, sizes_a) if looped else None
            )
        found = _FUNCTIONS[plan] = _compiled(plan)
        _SIGHTINGS.pop(plan, None)
    read, scores = found
    masks: dict[str, Any] = {}
    bits: dict[str, int] = {}
    rows_e = read(expected, keys, given, masks, bits)
    rows_a = read(actual, keys, given, masks, bits) if rows_e is not None else None
    if rows_e is None or rows_a is None:
        return None
    return scores(rows_e, rows_a, sizes_e, sizes_a, given), float(len(keys)) if plan[1] else 1.0


def _scalar_rows(
    cfg: WalkConfig, expected: Sequence[JsonValue], actual: Sequence[JsonValue]
) -> tuple[list[list[float]], float] | None:
    """``similarity_rows`` of two arrays of scalar elements, each its element's one field
    (path ""), by plan_rows.py's loop: the plan ``_survey`` and ``_laid_out`` would give
    such elements, found from their types alone. None (the general path) where the values
    are not plain scalars of one JSON type on both sides (a null is absent), or where every
    value of a side is null."""
    tag = ""
    full = True
    for values in (expected, actual):
        for v in values:
            found = _TAG.get(type(v))
            if found is None:
                if v is not None:
                    return None  # a container: the general path
                full = False
            elif found != tag:
                if tag:
                    return None  # values of several types: scored by type, the general way
                tag = found
    if not tag or (not full and (_all_null(expected) or _all_null(actual))):
        return None
    form = _form(cfg.type_policy.get(tag), cfg.every_type_scores_equal_one)
    if form is None:
        return None
    scores = plan_rows.scalar_scores(form[0], expected, actual, form[1])
    return (scores, 1.0) if scores is not None else None


def _all_null(values: Sequence[JsonValue]) -> bool:
    return all(v is None for v in values)


def _looped(
    plan: Plan,
    keys: list[str],
    given: tuple[object, ...],
    expected: Sequence[JsonValue],
    actual: Sequence[JsonValue],
    sizes_e: list[int],
    sizes_a: list[int],
) -> tuple[list[list[float]], float] | None:
    """``similarity_rows``' answer from a plan without its code: the same rows, by
    plan_rows.py's loop."""
    forms, uniform = plan
    columns = plan_rows.columns(forms, keys, given)
    masks: dict[str, tuple[int, int]] = {}
    bits: dict[str, int] = {}
    rows_e = plan_rows.rows(columns, expected, masks, bits)
    rows_a = plan_rows.rows(columns, actual, masks, bits) if rows_e is not None else None
    if rows_e is None or rows_a is None:
        return None
    found = plan_rows.scores(columns, uniform, rows_e, rows_a, sizes_e, sizes_a)
    return found, float(len(keys)) if uniform else 1.0


def _laid_out(
    seen_e: tuple[dict[str, str], dict[str, int], list[int]],
    seen_a: tuple[dict[str, str], dict[str, int], list[int]],
    policy: Mapping[str, BoundComparator],
    equal_one: bool,
) -> tuple[list[str], tuple[object, ...], Plan] | None:
    """From both sides' surveys: the shared keys in column order, their constants and the
    plan; None where the general path must score the pairs (a key whose values differ in
    type, a comparator of another form, too many columns)."""
    (tags_e, counts_e, sizes_e), (tags_a, counts_a, sizes_a) = seen_e, seen_a
    n, m = len(sizes_e), len(sizes_a)
    keys: list[str] = []
    forms: list[tuple[str, bool]] = []
    constants: list[object] = []
    by_tag: dict[str, tuple[str, tuple[object, ...]]] = {}
    for key, tag in tags_e.items():
        other = tags_a.get(key)
        if other is None:
            continue  # on one side only: in the union, never scored
        if tag is _MIXED or other != tag:
            return None  # values of several types: scored by type, the general way
        form = by_tag.get(tag)
        if form is None:
            form = _form(policy.get(tag), equal_one)
            if form is None:
                return None
            by_tag[tag] = form
        keys.append(key)
        forms.append((form[0], counts_e[key] == n and counts_a[key] == m))
        constants.extend(form[1])
    k = len(keys)
    if k > MAX_COLUMNS:
        return None
    uniform = (
        k > 0 and all(full for _, full in forms) and sizes_e.count(k) == n and sizes_a.count(k) == m
    )
    return keys, tuple(constants), (tuple(forms), uniform)


def _shapes(expected: Sequence[JsonValue], actual: Sequence[JsonValue]) -> Shaped | None:
    """Each side's distinct element shapes (an object's keys and its values' types) in the
    order first met, as one key, and each side's elements' numbers of fields (values not
    null): all that ``_survey`` reads of a side, so that a plan laid out once serves every
    pair of arrays of those shapes (``_KEPT``). None where an element is not an object of
    plain scalars (``_survey`` then says so), or where the shapes are more than a kept key
    holds (``_KEPT_SHAPES``, ``_KEPT_KEYS``: the plan is then laid out and not kept)."""
    found_e = _side_shapes(expected)
    found_a = _side_shapes(actual) if found_e is not None else None
    if found_e is None or found_a is None:
        return None
    return (found_e[0], found_a[0]), found_e[1], found_a[1]


def _side_shapes(elements: Sequence[JsonValue]) -> tuple[tuple[Shape, ...], list[int]] | None:
    shapes: list[Shape] = []
    sizes: list[int] = []
    keys_met: tuple[object, ...] = ()
    types_met: tuple[type, ...] = ()
    size = 0
    element: Any  # (read by its type)
    for element in elements:
        if type(element) is not dict:
            return None
        keys = tuple(element)
        types = tuple(map(type, element.values()))
        if keys != keys_met or types != types_met:  # (the last element's shape: common)
            shape = (keys, types)
            if shape not in shapes:
                if (
                    not _SCALAR_TYPES.issuperset(types)
                    or len(keys) > _KEPT_KEYS
                    or len(shapes) == _KEPT_SHAPES
                ):
                    return None
                shapes.append(shape)
            keys_met, types_met = keys, types
            size = len(types) - types.count(_NONE)
        sizes.append(size)
    return tuple(shapes), sizes


# The first expected element's shape of every plan kept (``_KEPT``): an array of fewer
# than MIN_PAIRS pairs is scored here only by a kept plan, so where its first element's
# shape is none of these, ``checked_shapes`` leaves it to the door at once (an assertion's
# small array of a shape of its own pays no pass for shapes no plan has)
_FIRSTS: set[Shape] = set()
# The shapes of the two arrays ``checked_shapes`` last checked, for their pair scores:
# (expected, actual, what ``_shapes`` gives of them); None once they are walked. One slot,
# read once and taken only for the very arrays it names: where walks run in several threads,
# a walk whose shapes another replaced finds its arrays' shapes itself (or, for an array of
# fewer than MIN_PAIRS pairs, takes the general path), never another's.
_handed: tuple[Sequence[JsonValue], Sequence[JsonValue], Shaped] | None = None


def checked_shapes(expected: Sequence[JsonValue], actual: Sequence[JsonValue], levels: int) -> bool:
    """Whether two arrays of a side the door has not read (structural_f1's unread walk:
    walking/unread_sides.py) are what the door passes as they are within ``levels`` levels,
    where every element is an object of plain scalars: string keys, at most _KEPT_KEYS of
    them (fewer than the door's bound), values of the plain scalar types, floats finite.
    One pass over each side makes the door's check and the shapes ``_shapes`` reads, which
    are then handed to ``similarity_rows`` for these two arrays (``forget_shapes`` once
    they are walked). False, and nothing handed, for any other arrays (the door then reads
    them whole: a nested value, a scalar element, too many shapes to keep, an array of
    fewer than MIN_PAIRS pairs whose first expected element no kept plan starts with)."""
    global _handed
    if levels < 2 or not SPECIALISE:
        return False
    if len(expected) * len(actual) < MIN_PAIRS:  # (taken only by a kept plan: see _FIRSTS)
        first: Any = expected[0] if expected else None
        if (
            type(first) is not dict
            or (tuple(first), tuple(map(type, first.values()))) not in _FIRSTS
        ):
            return False
    bound = min(_KEPT_KEYS, intake.MAX_KEYS)  # (read now: a test may set the door's bound)
    found_e = _checked_side(expected, bound)
    found_a = _checked_side(actual, bound) if found_e is not None else None
    if found_e is None or found_a is None:
        return False
    _handed = expected, actual, ((found_e[0], found_a[0]), found_e[1], found_a[1])
    return True


def forget_shapes() -> None:
    """The shapes ``checked_shapes`` handed over no longer held (nor their arrays)."""
    global _handed
    _handed = None


def _checked_side(
    elements: Sequence[JsonValue], bound: int
) -> tuple[tuple[Shape, ...], list[int]] | None:
    """``_side_shapes`` of a side, where its elements also pass the door's checks of a
    flat object (``intake._plain_depth``): at most ``bound`` keys, every key a ``str``
    (checked for each element: a key of a ``str`` subclass compares equal to a plain one),
    every float finite."""
    shapes: list[Shape] = []
    sizes: list[int] = []
    keys_met: tuple[object, ...] = ()
    types_met: tuple[type, ...] = ()
    floats: list[object] = []  # the keys of the floats among the values of types_met
    size = 0
    run: shape_runs.Run | None = None  # (the shape of types_met, where its code is written)
    asked = False  # (whether its run was asked for)
    element: Any  # (read by its type)
    i, end = 0, len(elements)
    # (the shape a side was last checked by, tried first: a dataset's arrays repeat one)
    last = shape_runs.last if shape_runs.SHAPE_RUNS else None
    if last is not None and len(last[1][0]) <= bound:
        i = last[0](elements, 0)
        if i:
            run, shape, size, floats_of = last
            sizes += [size] * i
            shapes.append(shape)
            keys_met, types_met = shape
            floats = list(floats_of)
            asked = True
    while i < end:
        if run is not None:  # (the elements after it that repeat its shape: shape_runs.py)
            took = run(elements, i)
            sizes += [size] * (took - i)
            i = took
            if i == end:
                break
        element = elements[i]
        i += 1
        if type(element) is not dict:
            return None
        types = tuple(map(type, element.values()))
        keys = tuple(element)
        for key in keys:
            if type(key) is not str:
                return None
        if keys != keys_met or types != types_met:  # (the last element's shape: common)
            shape = (keys, types)
            if shape not in shapes:
                if (
                    not _SCALAR_TYPES.issuperset(types)
                    or len(keys) > bound
                    or len(shapes) == _KEPT_SHAPES
                ):
                    return None
                shapes.append(shape)
            floats = []  # (by key: a shape of other keys has them elsewhere)
            if float in types:  # (a loop here, not a generator: its frame costs more)
                for key, kind in zip(keys, types):
                    if kind is float:
                        floats.append(key)
            keys_met, types_met = keys, types
            size = len(types) - types.count(_NONE)
            run, asked = None, False
        elif not asked and i < end:  # (the shape repeats, elements left: its run, if written)
            asked = True
            run = shape_runs.run_of(keys, types, size, floats)
        for key in floats:
            value = element[key]
            if value - value != 0.0:
                return None  # (not finite: the door names it)
        sizes.append(size)
    return tuple(shapes), sizes


def _survey(
    elements: Sequence[JsonValue],
) -> tuple[dict[str, str], dict[str, int], list[int]] | None:
    """Each key's type (``_MIXED`` when its values differ), in the order the elements first
    show the keys; how many elements hold each; each element's number of fields. None when
    an element is not an object of plain scalars (a container among scalar elements, which
    stand in objects of one key "", is not)."""
    tags: dict[str, str] = {}
    counts: dict[str, int] = {}
    sizes: list[int] = []
    for element in elements:
        if type(element) is not dict:
            return None
        size = 0
        for key, value in element.items():
            tag = _TAG.get(type(value))
            if tag is None:
                if value is None:
                    continue  # absent, as to the general path
                return None
            size += 1
            known = tags.get(key)
            if known is None:
                tags[key] = tag
                counts[key] = 1
            else:
                counts[key] += 1
                if known != tag:
                    tags[key] = _MIXED
        sizes.append(size)
    return tags, counts, sizes


def _form(
    comparator: BoundComparator | None, equal_one: bool
) -> tuple[str, tuple[object, ...]] | None:
    """A comparator's form and the constants its generated code reads (an equality key
    function; a threshold's t and ``within``; a comparator's ``score``); None where the
    general path's scores could differ (another all-pairs form, a comparator not trusted).
    ``equal_one``: every comparator of the metric's policy scores equal values 1, which the
    general path's call per pair takes without calling (``ColumnScorer._pair_score``)."""
    if comparator is None:
        return None
    add = comparator.add_scores
    if add is all_pairs.jaccard_pairs:
        return _JACCARD, ()
    if type(add) is all_pairs.EqualPairs:
        return _EQUAL, (add.key,)
    if type(add) is all_pairs.WithinPairs:
        return _WITHIN, (add.t, add.within)
    if add is None and comparator.trusted:
        return (_SCORE_EQUAL if equal_one else _SCORE), (comparator.score,)
    return None


# -- the generated code --------------------------------------------------------------------


def plan_source(plan: Plan) -> str:
    """The text of ``plan``'s two functions: ``read`` (a side's elements to rows of prepared
    values: a text's token mask and count, a bit per distinct lower-cased token numbered as
    met, as jaccard_pairs makes them, ``masks`` and ``bits`` shared by both sides; a number
    as the float _add_within reads; an equality key; None for an absent value) and
    ``scores`` (rows in, the rows of pair scores out: sums where the plan is uniform)."""
    forms, uniform = plan
    consts: list[str] = []
    reads: list[str] = []
    names_e: list[str] = []
    names_a: list[str] = []
    cells: list[str] = []
    full_count = sum(1 for _, full in forms if full)
    partial = full_count < len(forms)
    for c, (form, full) in enumerate(forms):
        x, y = f"x{c}", f"y{c}"
        value = f"element[k{c}]" if full else f"element.get(k{c})"
        slots, column_consts, prepared, cell = _column_code(c, form)
        names_e += [name.format("x") for name in slots]
        names_a += [name.format("y") for name in slots]
        consts += column_consts
        absent = " = ".join(name.format("x") for name in slots) + " = None"
        if full:
            reads += [f"v = {value}", *prepared]
        else:
            reads += [f"v = {value}", "if v is None:", f"    {absent}", "else:"]
            reads += ["    " + line for line in prepared]
            cell = [f"if {x} is not None and {y} is not None:", "    b += 1"] + [
                "    " + line for line in cell
            ]
        cells += cell
    if uniform:
        end = ["row.append(t)"]
    elif full_count and not partial:
        end = [f"row.append(t / (se - {full_count} + sa))"]
    else:
        cells = [f"b = {full_count}", *cells]
        end = ["u = se + sa - b", "row.append(t / u if u else 1.0)"]
    unpack_consts = [f"    {_tuple(consts)} = constants"] if consts else []
    if uniform:  # (the sums are returned as they are: no element's size is read)
        outer = [f"    for {_tuple(names_e)} in rows_e:"]
        inner = [f"        for {_tuple(names_a)} in rows_a:"]
    else:
        outer = [f"    for ({_tuple(names_e)}), se in zip(rows_e, sizes_e):"]
        inner = [f"        for ({_tuple(names_a)}), sa in zip(rows_a, sizes_a):"]
    zeros = [f"zero{c} = None" for c, (form, _) in enumerate(forms) if form == _WITHIN]
    # (a threshold's lower bound negated once a call, not once a pair)
    zeros += [f"lower{c} = -limit{c}" for c, (form, _) in enumerate(forms) if form == _WITHIN]
    keys = [f"k{c}" for c in range(len(forms))]
    return "\n".join(
        [
            "def read(elements, keys, constants, masks, bits):",
            *unpack_consts,
            *([f"    {_tuple(keys)} = keys"] if keys else []),
            "    rows = []",
            "    for element in elements:",
            *("        " + line for line in reads),
            f"        rows.append(({_tuple(names_e)}))",
            "    return rows",
            "",
            "",
            "def scores(rows_e, rows_a, sizes_e, sizes_a, constants):",
            *unpack_consts,
            *("    " + line for line in zeros),
            "    out = []",
            *outer,
            "        row = []",
            *inner,
            "            t = 0.0",
            *("            " + line for line in cells),
            *("            " + line for line in end),
            "        out.append(row)",
            "    return out",
            "",
        ]
    )


def _column_code(c: int, form: str) -> tuple[list[str], list[str], list[str], list[str]]:
    """Column ``c``'s part of the generated code: the names of its slots in a row (``{}``
    for the side's letter), the constants it reads, the lines that prepare its value ``v``
    into the expected side's slots, and those that add a pair's score to ``t``."""
    x, y = f"x{c}", f"y{c}"
    if form == _JACCARD:
        prepared = [  # (a text met before is not split again)
            "found = masks.get(v)",
            "if found is None:",
            "    mask = 0",
            "    for token in v.lower().split():",
            "        bit = bits.get(token)",
            "        if bit is None:",
            "            bit = bits[token] = 1 << len(bits)",
            "        mask |= bit",
            "    found = masks[v] = (mask, mask.bit_count())",
            f"x{c}, xn{c} = found",
        ]
        cell = [  # (the shared tokens counted only where there are some)
            f"s = {x} & {y}",
            "if s:",
            "    s = s.bit_count()",
            f"    t += s / (xn{c} + yn{c} - s)",
            f"elif not xn{c} and not yn{c}:",
            "    t += 1.0",
        ]
        return [f"{{}}{c}", f"{{}}n{c}"], [], prepared, cell
    if form == _EQUAL:
        return [f"{{}}{c}"], [f"key{c}"], [f"x{c} = key{c}(v)"], [f"if {x} == {y}:", "    t += 1.0"]
    if form in (_SCORE, _SCORE_EQUAL):
        cell = [f"t += score{c}({x}, {y})"]
        if form == _SCORE_EQUAL:
            cell = [
                f"if {x} == {y} and type({x}) is type({y}):",
                "    t += 1.0",
                "else:",
                *("    " + line for line in cell),
            ]
        return [f"{{}}{c}"], [f"score{c}"], [f"x{c} = v"], cell
    prepared = [
        "if type(v) is float:",
        f"    x{c} = v",
        "elif FLOAT_LOW < v < FLOAT_SAFE:",
        f"    x{c} = float(v)",
        "else:",
        "    return None  # (no float holds it: the general path scores it exactly)",
    ]
    # |d| <= t as two comparisons, without a call (d is finite: the door passes no other
    # float; ``lower`` is -t); within(0.0), the score of equal numbers, asked once a call
    cell = [
        f"d = {x} - {y}",
        f"if lower{c} <= d <= limit{c}:",
        "    if d:",
        f"        t += within{c}(abs(d))",
        f"    elif zero{c} is not None:",
        f"        t += zero{c}",
        "    else:",
        f"        zero{c} = within{c}(0.0)",
        f"        t += zero{c}",
    ]
    return [f"{{}}{c}"], [f"limit{c}", f"within{c}"], prepared, cell


def _tuple(names: list[str]) -> str:
    """Names as a tuple's text (a trailing comma for one, an empty tuple for none)."""
    return ", ".join(names) + ("," if len(names) == 1 else "") if names else "()"


def _compiled(plan: Plan) -> tuple[Reader, Scorer]:
    # (the bounds of the integers a float holds, the lower one negated once)
    namespace: dict[str, Any] = {"FLOAT_SAFE": FLOAT_SAFE, "FLOAT_LOW": -FLOAT_SAFE}
    # our own text, made from the plan's forms alone: no value of the data is in it
    exec(compile(plan_source(plan), "<jsonmatch flat similarity>", "exec"), namespace)  # noqa: S102
    return namespace["read"], namespace["scores"]
