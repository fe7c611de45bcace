"""Object scorers generated per schema node: the walk's object loop, specialised once.

For a schema-driven metric (``field_f1``), what the walk does with an object's fields
depends on the schema node and on which keys the expected object has, in which order: which
are plain leaves and their comparators, which the schema does not know, which go down the
general walk (objects, arrays, leaves with transforms, values missing on one side). The
walk asks the same questions of every record. Here they are answered once per node and
*key shape* (the expected object's keys, in order, and whether its path is at the root):
the answer is a small Python function, generated as source text and compiled, that scores
a record's object in straight-line code. It does exactly what ``Walk.obj`` does for that
shape, field for field and in the same order (the result's sums run in field order), and
calls the general walk for everything it does not inline.

A function's source text depends only on the shape's structure (how many keys, which kind
each, the path flags), not on the keys or comparators themselves, which it receives as
constants: one compilation serves every node of that structure. Print it with
:func:`scorer_source` (docs/performance.md shows how).

Each structure has three forms. The *full* form appends a FieldResult per field. The *tally*
form (a walk with ``tally`` set, for :func:`~pytest_jsonmatch.engine.match.evaluate_records`)
appends for each leaf it scores itself only a *tally*: what a record's score and the
per-field tables read of a FieldResult, (field path, status, score), its status and score
in a FieldResult's slots (``field_results.tally``). The field paths are constants of the
function (a tally scorer is made per node, shape *and* field path), so a field that matches
appends a tally made once, the one object ``field_results.tally`` gives for that value.
What it hands to the general walk still becomes FieldResults.
The record's FieldResults are made by walking it again in full form, when asked for
(results/field_results.py, ``MatchResult.fields``). The *row* form (a walk whose ``tally`` is
a :class:`~.row_scorers.RowForm`) is the tally form that also appends each leaf's row of the
JSON report before its tally (row_scorers.py).

Used only when the metric is schema-driven, no ``ignore``/``fields`` rule is set and the
object is not empty; anything else takes ``Walk.obj`` as it is. A shape is compiled once
it recurs (:func:`sightings`), and a process spends at most ``COMPILE_BUDGET`` seconds
compiling: the shapes are the data's, and a shape met once never pays for its function
(docs/performance.md). ``SPECIALISE = False``
turns the generated scorers off (the differential test compares both).
"""

from __future__ import annotations

from collections.abc import Callable
from time import perf_counter
from typing import Any

from ..comparing.field_spec import ORDERED, Align
from ..configuring.walk_config import WalkConfig
from ..core.paths import Where, key_forms
from ..core.values import ARRAY, MISSING, OBJECT, SCALAR_TYPES
from ..results.field_results import (
    MATCH,
    MISMATCH,
    SKIPPED,
    FieldResult,
)
from ..results.field_results import tally as make_tally
from ..schemas.eval_schema import SchemaNode
from .ordered_elements import ordered_elements
from .row_scorers import ROW_NAMES, RowForm, row_constants, row_header, row_leaf, row_unknown

_new = tuple.__new__
# The scalar types the door passes as they are whatever their value (a float must also be
# finite): an actual value of one, or a finite float, is taken as it is, without
# ``walk.read``
_EXACT = frozenset({str, int, bool, type(None)})

SPECIALISE = True  # False: every object takes the general walk

# What a key of a shape is: a plain leaf the scorer scores itself (its comparator declares
# that equal scalars score 1, and also that unequal scalars of one type score 0, or
# neither), a key the schema does not know, an object or an array aligned in order whose
# scorer it calls directly when both sides have that type, or a key whose value goes to
# the general walk.
PLAIN_EXACT, PLAIN_EQUAL_ONE, PLAIN = "plain_exact", "plain_equal_one", "plain"
UNKNOWN = "unknown"
_PLAIN_KINDS = (PLAIN, PLAIN_EQUAL_ONE, PLAIN_EXACT)
OBJECT_NODE, ORDERED_ARRAY, GENERAL = "object", "ordered_array", "general"

# Where an object sits, as a scorer is given it: a Where, or a plain tuple of its three
# fields (what the generated code passes on; a Where is made only for the general walk).
Place = tuple[str, str, "str | None"]

# (the walk, a walk.Walk, not imported: walk.py imports this module; expected, actual,
# where the object sits, its depth)
Scorer = Callable[[Any, dict[str, Any], dict[str, Any], Place, int], None]

MAX_SHAPES = 64  # per node; an object of any other shape takes the general walk
MAX_KEYS = 256  # a wider object takes it too (its function would take long to compile)
MAX_FACTORIES = 1024  # compiled structures kept for the process
_FACTORIES: dict[tuple[Any, ...], Callable[..., Scorer]] = {}  # by structure
# Seconds of compiling a process may spend on scorers: the shapes are the data's (an expected
# value of hundreds of wide objects, each with its keys in another order, asks for a
# structure each, at 40-75 ms a 256-key one), so past this every new structure takes the
# general walk, with the same result; the structures compiled already serve on.
COMPILE_BUDGET = 1.0
_spent = [0.0]  # seconds spent compiling scorers so far


# A scorer's form: False (full), True (tally) or a RowForm (rows and tallies).
Form = bool | RowForm


def compiles(cfg: WalkConfig) -> bool:
    """Whether objects under this configuration may take generated scorers."""
    return (
        SPECIALISE
        and cfg.schema_driven
        and not cfg.rules
        and cfg.leaf_depth is None
        and cfg.array_mode == "align"
    )


def scorer_for(
    node: SchemaNode, expected: dict[str, Any], where: Place, cfg: WalkConfig, tally: Form = False
) -> Scorer | None:
    """The scorer of ``expected``'s shape under ``node`` (made on first use), in tally form
    when ``tally`` (in row form when it is a RowForm), or None when the node keeps MAX_SHAPES others already or the object has
    more than MAX_KEYS keys."""
    if len(expected) > MAX_KEYS:
        return None
    path, field, actual_path = where
    align = cfg.default_align
    # (of the alignment, only its mode decides a kind: see child_kind; a str hashes in C;
    # a tally scorer's field paths are its constants: it is kept per field path)
    shape = (
        tuple(expected),
        not path,
        not field,
        field == path,
        actual_path is None,
        cfg.count_extras,
        align.mode,
        field if tally else None,
        tally if type(tally) is RowForm else None,
    )
    scorers = node.scorers
    found = scorers.get(shape)
    if type(found) is not int:
        if found is not None or len(scorers) >= MAX_SHAPES:
            return found
        found = 0
    # a shape is counted until it has been met often enough to pay for its function (a
    # wider one costs more to compile): a shape met once, as in data whose objects each
    # order their keys their own way, is never compiled
    if found + 1 < sightings(len(expected)):
        scorers[shape] = found + 1
        return None
    made = _make(node, shape, align)
    if made is not None:
        scorers[shape] = made
    return made


# How many times a shape is met, at the least, before its scorer is compiled: a small
# shape's function takes about 1.4 ms to compile, more than the general loop spends on a
# few meetings of it, so a run of a few records (``jsonmatch score`` of one invoice: four
# line items) compiles nothing; a dataset's shapes recur thousands of times. (The tests
# that hold both paths to the same result set it lower, to reach the compiled one.)
MIN_SIGHTINGS = 8


def sightings(width: int) -> int:
    """How many times a shape of ``width`` keys is met before its scorer is compiled:
    ``MIN_SIGHTINGS``, and once more for every 8 keys (a 256-key function takes 40-75 ms to
    compile)."""
    return MIN_SIGHTINGS + width // 8


def _kinds(node: SchemaNode, keys: tuple[str, ...], align: Align) -> tuple[str, ...]:
    props = node.properties or {}
    plain = node.plain_by_key
    return tuple(
        _plain_kind(plain[k])
        if k in plain
        else UNKNOWN
        if k not in props
        else child_kind(props[k], align)
        for k in keys
    )


def _plain_kind(comparator: Any) -> str:
    if not comparator.equal_one:
        return PLAIN
    return PLAIN_EXACT if comparator.unequal_zero else PLAIN_EQUAL_ONE


def child_kind(child: SchemaNode, align: Align) -> str:
    """OBJECT_NODE or ORDERED_ARRAY where the general walk, given both sides of the node's
    type, goes straight to ``Walk.obj`` or to pairing by index; else GENERAL."""
    spec = child.spec
    if spec.skip or spec.comparator is not None or child.is_leaf:
        return GENERAL
    if child.type == OBJECT and child.properties is not None:
        return OBJECT_NODE
    if (
        child.type == ARRAY
        and ((spec.align if spec.align is not None else None) or align).mode == "ordered"
    ):
        return ORDERED_ARRAY
    return GENERAL


def remembered(
    cache: dict[tuple[str, ...], Scorer],
    node: SchemaNode,
    expected: dict[str, Any],
    where: Place,
    cfg: WalkConfig,
    tally: Form = False,
) -> Scorer | None:
    """``scorer_for``, kept in ``cache`` by the object's keys: a call site's own cache, where
    everything else the shape holds (the path flags, the field path, the configuration's,
    the form) is the same for every object met there. Only scorers are kept (at most
    MAX_SHAPES a node makes)."""
    found = scorer_for(node, expected, where, cfg, tally)
    if found is not None:
        cache[tuple(expected)] = found
    return found


def _elements_are_objects(node: SchemaNode | None) -> bool:
    """Whether an array node's elements are objects the schema describes, each scored by
    its scorer (``ordered_elements``; the alignment does not decide an object's kind)."""
    items = node.items if node is not None else None
    return items is not None and child_kind(items, ORDERED) == OBJECT_NODE


def _make(node: SchemaNode, shape: tuple[Any, ...], align: Align) -> Scorer | None:
    keys, at_root, field_at_root, same_field, same_actual, count_extras, _, field, form = shape
    if not all(type(k) is str for k in keys):
        # (an expected side not read by the door, walk_counted: a scorer found by its keys
        # vouches that the object's keys are strings; the general walk reads any other)
        return None
    kinds = _kinds(node, keys, align)
    structure = (
        kinds,
        at_root,
        field_at_root,
        same_field,
        same_actual,
        count_extras,
        field is not None,
        None if form is None else form.keep,
        # (the row form: each key's schema type, tested for first)
        () if form is None else _types(node, keys),
    )
    factory = _FACTORIES.get(structure)
    if factory is None:
        if _spent[0] >= COMPILE_BUDGET:  # the budget is spent: the general walk
            return None
        if len(_FACTORIES) >= MAX_FACTORIES:  # records of ever new structures: start over
            _FACTORIES.clear()
        start = perf_counter()
        namespace: dict[str, Any] = {}
        exec(compile(_source(*structure), "<jsonmatch scorer>", "exec"), namespace)  # noqa: S102
        factory = _FACTORIES[structure] = namespace["make"]
        _spent[0] += perf_counter() - start
    props = node.properties or {}
    comparators = [node.plain_by_key.get(k) for k in keys]
    forms = tuple(key_forms(k) for k in keys)
    # (tally form) each key's field path, as the full form writes it
    field_paths = tuple(field + f[1] if field else f[0] for f in forms) if field is not None else ()
    return factory(
        keys=keys,
        forms=forms,
        field_paths=field_paths,
        names=tuple(c.name if c is not None else "" for c in comparators),
        scores=tuple(c.score if c is not None else None for c in comparators),
        nodes=tuple(props.get(k) for k in keys),
        props=node.properties,
        objects=tuple(_elements_are_objects(props.get(k)) for k in keys),
        MISSING=MISSING,
        SCALARS=SCALAR_TYPES,
        EXACT=_EXACT,
        MATCH=MATCH,
        MISMATCH=MISMATCH,
        SKIPPED=SKIPPED,
        FieldResult=FieldResult,
        Where=Where,
        new=tuple.__new__,
        remembered=remembered,
        ordered_elements=ordered_elements,
        tally=make_tally,
        **(row_constants(form) if form is not None else dict.fromkeys(ROW_NAMES)),
    )


def _types(node: SchemaNode, keys: tuple[str, ...]) -> tuple[str | None, ...]:
    """Each key's schema type, as ``node`` declares it (None: not one type)."""
    props = node.properties or {}
    return tuple(props[k].type if k in props else None for k in keys)


def _source(
    kinds: tuple[str, ...],
    at_root: bool,
    field_at_root: bool,
    same_field: bool,
    same_actual: bool,
    count_extras: bool,
    tally: bool = False,
    keep: bool | None = None,
    types: tuple[str | None, ...] = (),
) -> str:
    """The text of a factory ``make(...)`` returning the scorer of one structure, in full
    or in tally form, or (``keep`` not None: rows with values or without) in row form."""
    n = len(kinds)
    rows = keep is not None
    lines = [
        "def make(keys, forms, field_paths, names, scores, nodes, props, objects, MISSING, SCALARS,",
        "         EXACT, MATCH, MISMATCH, SKIPPED, FieldResult, Where, new, remembered,",
        f"         ordered_elements, tally, {', '.join(ROW_NAMES)}):",
        f"    ({''.join(f'k{i}, ' for i in range(n))}) = keys",
    ]
    if rows:
        lines.append(
            "    seen = [None, None]  # the rows' table (its token), its row starts by path"
        )
    for i, kind in enumerate(kinds):
        lines += _key_constants(i, kind, at_root, field_at_root, same_field, same_actual, tally)
        if rows and kind in _PLAIN_KINDS:  # (a row names the comparator of a FieldResult)
            lines.append(f"    name{i} = names[{i}]")
    # (the full form below a field path of its own, as an array's elements are: each key's
    # field path made once for the field path met, which the array's elements share; kept
    # as one tuple, replaced whole, so that a walk in another thread reads one or the other)
    kept_fields = not (same_field or field_at_root or tally or rows)
    if kept_fields:
        lines.append("    fields_met = [(None,)]  # (the field path met last, its keys' paths)")
    lines += _score_header(n, at_root, same_field, same_actual, count_extras, tally, rows)
    if kept_fields:
        lines += [
            "        fp = fields_met[0]",
            "        if fp[0] is not field:",
            f"            fp = fields_met[0] = (field, {''.join(f'field + f{i}, ' for i in range(n))})",
        ]
    if rows:
        lines += row_header(n)
    for i, kind in enumerate(kinds):
        child = f"p{i}" if at_root else f"path + p{i}"
        if same_field:
            fld = "cp"
        elif field_at_root:
            fld = f"f{i}"
        else:
            fld = f"fp[{i + 1}]" if kept_fields else f"field + f{i}"
        act = "None" if same_actual else f"actual_path + a{i}"
        lines.append(f"        # keys[{i}]: {kind}")
        if rows and kind in (*_PLAIN_KINDS, UNKNOWN):
            place = (child, child if same_field else fld, act)
            lines += (
                row_unknown(i, *place, count_extras)
                if kind == UNKNOWN
                else row_leaf(
                    i,
                    (kind != PLAIN, kind == PLAIN_EXACT),
                    place,
                    count_extras,
                    bool(keep),
                    types[i] if types else None,
                )
            )
        elif tally and kind in (*_PLAIN_KINDS, UNKNOWN):
            lines += _tally_leaf(i, kind, child, child if same_field else fld, act, count_extras)
        else:
            lines += [f"        o = get(k{i}, MISSING)", f"        cp = {child}"]
            lines += _full_key(i, kind, fld, act, count_extras, "walk.tally" if rows else tally)
    if count_extras:
        lines += [
            f"        if len(actual) + missing > {n}:  # keys expected does not have",
            "            walk._extra_keys(expected, walk.read(actual, depth), new(Where, where), props,",
            "                             depth)",
        ]
    lines += ["", "    return score", ""]
    return "\n".join(lines)


def _key_constants(
    i: int,
    kind: str,
    at_root: bool,
    field_at_root: bool,
    same_field: bool,
    same_actual: bool,
    tally: bool,
) -> list[str]:
    """The factory's lines binding key ``i``'s constants (its tally entries, path segments,
    comparator, node and caches) as the scorer's closure variables."""
    lines = []
    if tally and kind in (*_PLAIN_KINDS, UNKNOWN):
        lines.append(f"    fp{i} = field_paths[{i}]")
        if kind in (PLAIN_EQUAL_ONE, PLAIN_EXACT):  # a match's entry, made once
            lines.append(f"    hit{i} = tally(fp{i}, MATCH, 1.0)")
        if kind == PLAIN_EXACT:  # and a mismatch's, between values of one type
            lines.append(f"    miss{i} = tally(fp{i}, MISMATCH, 0.0)")
        elif kind == UNKNOWN:
            lines.append(f"    skipped{i} = tally(fp{i}, SKIPPED, 0.0)")
    # the key's path segment where this object's path is (root or below a parent)
    lines.append(f"    p{i} = forms[{i}][{0 if at_root else 1}]")
    if not same_field:
        lines.append(f"    f{i} = forms[{i}][{0 if field_at_root else 1}]")
    if not same_actual:
        lines.append(f"    a{i} = forms[{i}][1]")
    if kind in _PLAIN_KINDS:  # (a tally names no comparator)
        lines.append(
            f"    score{i} = scores[{i}]"
            if tally
            else f"    name{i}, score{i} = names[{i}], scores[{i}]"
        )
    if kind != UNKNOWN:
        lines.append(f"    node{i} = nodes[{i}]")
    if kind in (OBJECT_NODE, ORDERED_ARRAY):
        lines.append(f"    cache{i} = {{}}  # the scorers of the objects met here, by keys")
    if kind == ORDERED_ARRAY:
        lines.append(f"    objects{i} = objects[{i}]  # whether its elements are objects")
    return lines


def _score_header(
    n: int,
    at_root: bool,
    same_field: bool,
    same_actual: bool,
    count_extras: bool,
    tally: bool,
    rows: bool = False,
) -> list[str]:
    """The scorer's first lines: its signature, a comment saying which structure it scores,
    the names its key steps share and the expected object's values, unpacked."""
    about = (
        f"an object of {n} keys at the {'root' if at_root else 'path given'}; field path "
        f"{'the same' if same_field else 'its own'}; actual path "
        f"{'the same' if same_actual else 'its own'}; "
        f"{'row form: a row and a tally per leaf' if rows else 'tally form: a tally per leaf' if tally else 'full form'}"
    )
    lines = [
        "",
        "    def score(walk, expected, actual, where, depth):",
        f"        # {about}",
        "        path, field, actual_path = where",
        "        append = walk.out.fields.append",
        "        get = actual.get",
        "        below = depth + 1",
        f"        ({''.join(f'v{i}, ' for i in range(n))}) = expected.values()",
    ]
    if count_extras:  # the keys of this object actual lacks: it holds others iff it is longer
        lines.append("        missing = 0")
    return lines


def _full_key(
    i: int, kind: str, fld: str, act: str, count_extras: bool, tally: bool | str
) -> list[str]:
    """Key ``i``'s lines in the full form (and, in the tally form, for a key that is not a
    leaf), after ``o`` (its actual value) and ``cp`` (its path) are set."""
    if kind in _PLAIN_KINDS:
        return _full_plain(i, kind, fld, act, count_extras)
    if kind == UNKNOWN:
        return [
            f"        append(FieldResult(cp, SKIPPED, 0.0, v{i}, walk.read(o, below), '', "
            f"'not in the schema', {fld}, {act}))",
            *(["        missing += o is MISSING"] if count_extras else []),
        ]
    at = f"(cp, {fld}, {act})"
    general = (
        f"walk.node(walk.read_expected(v{i}, below), walk.read(o, below), new(Where, at), "
        f"node{i}, below)"
    )
    if kind == OBJECT_NODE:
        return [
            f"        at = {at}",
            f"        if type(v{i}) is dict and type(o) is dict and v{i}:",
            f"            inner = cache{i}.get(tuple(v{i})) or remembered(cache{i}, node{i}, v{i}, at, "
            f"walk.cfg, {tally})",
            "            if inner is not None:",
            f"                inner(walk, v{i}, o, at, below)",
            "            else:",
            f"                walk.obj(walk.read_expected(v{i}, below), walk.read(o, below), "
            f"new(Where, at), node{i}, below)",
            "        else:",
            f"            {general}",
            *(["            missing += o is MISSING"] if count_extras else []),
        ]
    if kind == ORDERED_ARRAY:
        return [
            f"        at = {at}",
            f"        if type(v{i}) is list and type(o) is list and (v{i} or o):",
            f"            ordered_elements(walk, v{i}, o, at, node{i}, below, cache{i}, objects{i},",
            "                             remembered)",
            "        else:",
            f"            {general}",
            *(["            missing += o is MISSING"] if count_extras else []),
        ]
    return [
        f"        walk.node(walk.read_expected(v{i}, below), walk.read(o, below), "
        f"new(Where, {at}), node{i}, below)",
        *(["        missing += o is MISSING"] if count_extras else []),
    ]


# A plain leaf's actual value as the full form hands it to the comparator: as it is where the
# door would pass it so (read() would hand it back), else read
_TAKEN = "o if type(o) in EXACT or (type(o) is float and o - o == 0.0) else walk.read(o, below)"


def _full_plain(i: int, kind: str, fld: str, act: str, count_extras: bool) -> list[str]:
    """A plain leaf's lines in the full form: a value actual lacks goes to the general walk;
    else it is scored here (equal scalars of one type without the comparator where its kind
    allows) and its FieldResult appended."""
    lines = [
        "        if o is MISSING:",
        f"            walk.node(v{i}, o, new(Where, (cp, {fld}, {act})), node{i}, below)",
        *(["            missing += 1"] if count_extras else []),
        "        else:",
    ]
    if kind != PLAIN:  # (the full form records the values: a mismatch asks)
        lines += [
            f"            kind = type(v{i})",
            f"            if kind is type(o) and kind in SCALARS and v{i} == o:",
            "                status, s = MATCH, 1.0",
            "            else:",
            f"                s = score{i}(v{i}, {_TAKEN})",
            "                status = MATCH if s >= 1.0 else MISMATCH",
        ]
    else:
        lines += [
            f"            s = score{i}(v{i}, {_TAKEN})",
            "            status = MATCH if s >= 1.0 else MISMATCH",
        ]
    return lines + [
        f"            append(new(FieldResult, (cp, status, s, v{i}, o, name{i}, "
        f"'', {fld}, {act}, 1.0, None)))"
    ]


def _tally_leaf(i: int, kind: str, child: str, fld: str, act: str, count_extras: bool) -> list[str]:
    """A plain or unknown key's lines in the tally form: its field path is the constant
    ``fp{i}``; its instance paths are written only where the general walk takes over."""
    if kind == UNKNOWN:  # (a tally is all it gives; its value is only checked)
        return [
            f"        o = get(k{i}, MISSING)",
            "        if o is not MISSING and walk.unread:",
            "            walk.read(o, below)",
            "        if walk.unread_expected:",
            f"            walk.read_expected(v{i}, below)",
            f"        append(skipped{i})",
            *(["        missing += o is MISSING"] if count_extras else []),
        ]
    lines = [
        f"        o = get(k{i}, MISSING)",
        "        if o is MISSING:",
        f"            walk.node(walk.read_expected(v{i}, below), o, "
        f"new(Where, ({child}, {fld}, {act})), node{i}, below)",
        *(["            missing += 1"] if count_extras else []),
    ]
    # (equal values of one scalar type: both finite, or both the same infinity, which the
    # door refuses on either side; unequal ones: either may be NaN or an infinity)
    if kind == PLAIN_EXACT:
        lines += [
            f"        elif type(v{i}) is type(o) and type(o) in SCALARS:",
            f"            if v{i} == o and (type(o) is not float or o - o == 0.0):",
            f"                append(hit{i})",
            f"            elif type(o) is not float or (o - o == 0.0 and v{i} - v{i} == 0.0):",
            f"                append(miss{i})",
            "            else:  # not a JSON number (NaN, an infinity): the door names it",
            "                walk.refuse()",
        ]
    elif kind == PLAIN_EQUAL_ONE:
        lines += [
            f"        elif (type(v{i}) is type(o) and type(o) in SCALARS and v{i} == o",
            "              and (type(o) is not float or o - o == 0.0)):",
            f"            append(hit{i})",
        ]
    return lines + [
        "        else:",
        f"            s = score{i}(walk.read_expected(v{i}, below), walk.read(o, below))",
        f"            append(tally(fp{i}, MATCH if s >= 1.0 else MISMATCH, s))",
    ]


def scorer_source(
    node: SchemaNode,
    keys: tuple[str, ...],
    at_root: bool = True,
    count_extras: bool = True,
    align: Align = ORDERED,
    tally: Form = False,
) -> str:
    """The generated source of the scorer of an object with ``keys`` (in this order) under
    ``node``, at the root or below a parent (of an object, not an array element), in full
    or in tally form, or in row form (``tally`` a RowForm)."""
    keep = tally.keep if type(tally) is RowForm else None
    types = _types(node, keys) if keep is not None else ()
    return f"# the scorer of keys {keys!r}\n" + _source(
        _kinds(node, keys, align),
        at_root,
        at_root,
        True,
        True,
        count_extras,
        bool(tally),
        keep,
        types,
    )
