"""An object's scalar leaves scored in the object's own loop (``Walk.obj``'s fast path).

Most fields of most records are scalar leaves that need no per-field settings: a call per
field through ``Walk.node`` and ``Walk.leaf`` would be most of their cost. The walk's
configuration says when that holds (``WalkConfig.inline_plan``); here each such field is
scored where the loop meets it, and every other key goes its general way
(``Walk.key_of_object``), in the expected object's key order, so that the fields come out
as the general loop makes them.

In a walk whose actual side has not come through the door (``Walk.unread``: the unread
walk, walk.py), the loop checks what it takes of that side as the generated scorers do: a
value equal to and of the exact type of a plain expected scalar is plain; any other value
is read (``Walk.read``) before a comparator or the general walk takes it; an object below
is checked key by key by this same loop, its extra keys read with it. So an object walked
here needs no pass of the door over it first. Where the expected side is unread too
(``match_json``'s pair, ``Walk.unread_expected``), each of its keys must be a string, each
scalar the loop takes plain (a float finite), each object below within the door's bound on
keys and the walk's room, and anything the loop hands on is read whole first.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

from ..comparing.comparators import BoundComparator, score_at
from ..configuring.walk_config import InlinePlan, WalkConfig
from ..core.depth import SHALLOW
from ..core.paths import KEY_FORMS, KEY_FORMS_LIMIT, Where, new_key_forms
from ..core.values import MISSING, SCALAR_TYPES, JsonArray, JsonObject, JsonValue
from ..reading.intake import MAX_KEYS, Unread, plain_within
from ..results.field_results import (
    HALLUCINATION,
    MATCH,
    MISMATCH,
    OMISSION,
    FieldResult,
    WalkOutput,
)
from ..schemas.eval_schema import SchemaNode
from . import flat_elements
from .ordered_elements import INDEX_SUFFIXES
from .unpaired import LoneLeaves, one_sided

# The general way of one key of an object (walk.Walk.key_of_object): the key, its value,
# the other side's value (or MISSING), the object's place, its schema's properties, depth.
KeyOfObject = Callable[[str, JsonValue, object, Where, dict[str, SchemaNode] | None, int], None]

_Value = TypeVar("_Value")

if TYPE_CHECKING:  # (for type checkers: made at run time, a Protocol is a class built by typing)

    class ObjectWalk(Protocol):
        """What of a walk (walk.Walk) the loop uses: its output, and the general way of a key."""

        out: WalkOutput
        cfg: WalkConfig
        unread: bool
        unread_expected: bool

        def read(self, actual: _Value, depth: int) -> _Value: ...

        def read_expected(self, expected: _Value, depth: int) -> _Value: ...

        def refuse(self) -> None: ...

        @property
        def key_of_object(self) -> KeyOfObject: ...

        @property
        def key_read(self) -> KeyOfObject: ...

        def extras_read(
            self,
            expected: JsonObject,
            actual: JsonObject,
            where: Where,
            props: dict[str, SchemaNode] | None,
            depth: int,
        ) -> None: ...

        def obj(
            self,
            expected: JsonObject,
            actual: JsonObject,
            where: Where,
            node: SchemaNode | None,
            depth: int,
        ) -> None: ...

        def key_array(
            self, key: str, expected: JsonArray, actual: JsonArray, parent: Where, depth: int
        ) -> None: ...

        def node(
            self,
            expected: JsonValue,
            actual: JsonValue,
            where: Where,
            node: SchemaNode | None,
            depth: int,
        ) -> None: ...

        unread_of: object
        lone: LoneLeaves | None

        def read_whole(self, actual: _Value, depth: int) -> _Value: ...

        def index_array(
            self,
            key: str,
            expected: JsonArray,
            actual: JsonArray,
            parent: Where,
            depth: int,
            loop: Loop,
        ) -> None: ...

        def node_read(
            self,
            expected: JsonValue,
            actual: JsonValue,
            where: Where,
            items: SchemaNode | None,
            depth: int,
        ) -> None: ...


# The switch of this fast path (docs/architecture.md, "Fast paths"): False sends every key
# of an object through Walk.node, as the general loop does.
INLINE_LEAVES = True

# The switch of plain_pairs' scalar elements scored in its own loop (docs/architecture.md,
# "Fast paths"): False sends each pair of scalar elements through Walk.node and Walk.leaf.
SCALAR_ELEMENTS = True

# ... and of _node_less's arrays paired by index walked by index_array (False: by
# Walk.key_array, UnreadSides.unread_array and Walk._walk_pairs, to the same plain_pairs)
INDEX_ARRAYS = True

# The scalar types the door passes as they are whatever their value (a float must also be
# finite: it is read like a container)
_PLAIN_EXACT = frozenset({str, int, bool, type(None)})
_NO_COMPARATORS: dict[type, BoundComparator] = {}
_NO_WALKS: dict[tuple[int, int], WalkOutput] = {}  # (never written to: no pair walked before)
_SUFFIXES = len(INDEX_SUFFIXES)
# what an element's loop holds past its parent's plan, append, null rule and ``unread``
# (``index_array``): its expected side read, its keys taken as ``direct``, its objects
# below walked with its plan
_ELEMENT_LOOP = (False, True, True)

# FieldResults built with tuple.__new__, as the walk builds them (see walk.py)
_new = tuple.__new__
_known_forms = KEY_FORMS.get  # (a key's path forms, where they were made before)


# What inline_keys works out once for an object and every node-less object below it: the
# plan, the output's append, whether nulls count as absent, whether each side is unread,
# whether keys of more kinds are taken here (``direct``), and whether a node-less object
# below is walked by this loop with this plan
Loop = tuple[InlinePlan, Callable[[FieldResult], None], bool, bool, bool, bool, bool]


def inline_keys(
    walk: ObjectWalk,
    expected: JsonObject,
    actual: JsonObject,
    where: Where,
    props: dict[str, SchemaNode] | None,
    depth: int,
    plan: InlinePlan,
    loop: Loop | None = None,
) -> None:
    """Each key of ``expected`` scored: a scalar leaf the plan has a comparator for here, any
    other key (and each key a rule names: the plan's last part) its general way; where no
    node or rule gives a child a spec and it is not at the leaf depth (``direct``), an object
    or array on both sides by ``_node_less``, a scalar the answer lacks its omission (none
    for a null where nulls count as absent). ``loop``: the object above's, else loop_of's."""
    if loop is None:
        loop = loop_of(walk, props, depth, plan)
    plan, append, null_absent, unread, unread_e, direct, nested_plan = loop
    by_type, scalars_only, by_key, equal_one, general = plan
    path, field, actual_path = where
    at_path, at_field = (1 if path else 0), (1 if field else 0)
    same_field = field == path
    reading = unread or unread_e  # (a key handed on: read whole first, walk.key_read)
    for key, value in expected.items():
        kind = type(value)
        if unread_e and (type(key) is not str or (kind is float and value - value != 0.0)):  # type: ignore[operator]
            walk.refuse()
        other = actual.get(key, MISSING)
        # (a key a rule names goes its general way, below: ``direct`` is false then)
        if other is not MISSING and (general is None or key not in general):
            if (
                kind is type(other)
                and (comparator := equal_one.get(kind)) is not None
                and (value == other)
            ):
                status, score = MATCH, 1.0
            else:
                comparator = (
                    by_key.get(key)
                    if by_key is not None
                    else None
                    if scalars_only and type(other) not in SCALAR_TYPES
                    else by_type.get(kind)
                )
                if comparator is not None:
                    if (
                        kind is type(other)
                        and kind in SCALAR_TYPES
                        and value == other
                        and comparator.equal_one
                    ):
                        status, score = MATCH, 1.0
                    else:
                        if (
                            unread
                            and type(other) not in _PLAIN_EXACT
                            and (type(other) is not float or other - other != 0.0)
                        ):  # (a finite float is plain too: read() would hand it back)
                            other = walk.read(other, depth + 1)
                        if unread_e and kind not in SCALAR_TYPES:
                            value = walk.read_expected(value, depth + 1)
                        score = comparator.score(value, other)
                        status = MATCH if score >= 1.0 else MISMATCH
            if comparator is not None:
                if (forms := _known_forms(key)) is None:  # (new_key_forms, without its call)
                    if not (key.isascii() and key.isidentifier()):
                        forms = new_key_forms(key)
                    elif (forms := (key, "." + key)) and len(KEY_FORMS) < KEY_FORMS_LIMIT:
                        KEY_FORMS[key] = forms
                child_path = path + forms[at_path]
                append(
                    _new(
                        FieldResult,
                        (
                            child_path,
                            status,
                            score,
                            value,
                            other,
                            comparator.name,
                            "",
                            child_path if same_field else field + forms[at_field],
                            None if actual_path is None else actual_path + forms[1],
                            1.0,
                            None,
                        ),
                    )
                )
                continue
        elif direct and kind in SCALAR_TYPES:
            if value is not None or not null_absent:
                append(_omitted(key, value, path, field))
            continue
        if direct and type(other) is kind and (kind is list or (kind is dict and value)):
            _node_less(walk, key, value, other, where, depth + 1, loop if nested_plan else None)
            continue
        (walk.key_read if reading else walk.key_of_object)(key, value, other, where, props, depth)


def loop_of(
    walk: ObjectWalk, props: dict[str, SchemaNode] | None, depth: int, plan: InlinePlan
) -> Loop:
    """What inline_keys works out for an object at ``depth`` with ``props`` and ``plan``,
    which holds for every node-less object below it that ``_node_less`` hands back (apart
    from inline_keys, not a frame under it: a frame more under a deep array's walk moves
    where its frame stack's chunks are crossed, and the walk's time with it)."""
    cfg = walk.cfg
    direct = props is None and plan[4] is None and not cfg.rules and cfg.leaf_depth != depth + 1
    return (
        plan,
        walk.out.fields.append,
        cfg.null_absent,
        walk.unread,
        walk.unread_expected,  # (each key and scalar taken checked, the rest read)
        direct,
        direct and cfg.leaf_depth is None,  # (a node-less object's plan: Walk.obj's)
    )


def _omitted(key: str, value: JsonValue, path: str, field: str) -> FieldResult:
    """The omission of scalar ``key`` of the object at ``path`` (field path ``field``), the
    FieldResult ``one_sided`` makes of it."""
    forms = _known_forms(key) or new_key_forms(key)
    child = path + forms[1 if path else 0]
    child_field = child if field == path else field + forms[1 if field else 0]
    return _new(
        FieldResult, (child, OMISSION, 0.0, value, MISSING, "", "", child_field, None, 1.0, None)
    )


def _node_less(
    walk: ObjectWalk,
    key: str,
    expected: Any,
    actual: Any,
    parent: Where,
    depth: int,
    loop: Loop | None,
) -> None:
    """Key ``key`` of the object at ``parent``, an object on both sides (not empty in
    expected) or an array on both sides, that no node or rule reaches, at ``depth``: two
    arrays as ``Walk.key_array`` walks them; two objects as ``Walk.obj`` walks them: with
    ``loop`` (its parent's, whose plan is its own) by this loop, then its extra keys, else
    by Walk.obj. (The sides are typed Any: told apart by their type here, where a cast is a
    call per nested object.)"""
    if type(expected) is list:
        # (no local for the configuration: this frame lies under every level of a deep
        # array's walk, whose frame stack's chunks its size moves)
        if (
            loop is not None
            and INDEX_ARRAYS
            and walk.cfg.array_mode == "index"
            and not walk.cfg.schema_driven
        ):
            # (no node, rule or leaf depth reaches a key _node_less takes with a ``loop``:
            # its caller's ``direct`` and ``nested_plan``, nor the elements below it)
            walk.index_array(key, expected, actual, parent, depth, loop)
        else:
            walk.key_array(key, expected, actual, parent, depth)
        return
    gold: JsonObject = expected  # (the answer's object is ``actual``: the frame keeps its size)
    if walk.unread_expected and (len(gold) > MAX_KEYS or depth >= SHALLOW):
        walk.refuse()  # (past the door's bound on keys, or the walk's room: the door reads it)
    path, field, actual_path = parent
    forms = _known_forms(key) or new_key_forms(key)
    child_path = path + forms[1 if path else 0]
    where = _new(
        Where,
        (
            child_path,
            child_path if field == path else field + forms[1 if field else 0],
            None if actual_path is None else actual_path + forms[1],
        ),
    )
    if loop is None:
        walk.obj(gold, actual, where, None, depth)
        return
    inline_keys(walk, gold, actual, where, None, depth, loop[0], loop)
    if not actual.keys() <= gold.keys():
        answer_extras(walk, gold, actual, where, None, depth)


def index_array(
    walk: ObjectWalk,
    key: str,
    expected: JsonArray,
    actual: JsonArray,
    parent: Where,
    depth: int,
    loop: Loop,
) -> None:
    """``Walk.key_array`` of two arrays paired by index whose elements no node, rule or leaf
    depth reaches (json_similarity's: ``_node_less`` hands them here), at ``depth``, with
    its set-up worked out in one place (switch ``INDEX_ARRAYS``): an unread expected side
    read whole first; the pairs walked by ``plain_pairs``, an unread answer's elements
    checked where it takes them (``unread_of``), as ``UnreadSides.unread_array`` has them
    walked; then the expected elements past the answer's end, each its omissions, and the
    answer's past the expected side's end, read where unread and counted where extras
    count. Index pairs show no pairing. ``loop``: the parent object's (``_node_less``'s),
    whose plan and set-up the elements take, their expected side read."""
    if walk.unread_expected and not plain_within(expected, SHALLOW - depth):
        walk.refuse()  # (Walk.read_expected's check, without its call)
    path, field, actual_path = parent
    forms = _known_forms(key) or new_key_forms(key)
    child_path = path + forms[1 if path else 0]
    where = _new(
        Where,
        (
            child_path,
            child_path if field == path else field + forms[1 if field else 0],
            None if actual_path is None else actual_path + forms[1],
        ),
    )
    cfg, unread = walk.cfg, walk.unread
    common = min(len(expected), len(actual))
    unread_expected, outer = walk.unread_expected, walk.unread_of
    walk.unread_expected = False
    if unread:
        walk.unread_of = actual
    try:
        if common:
            pairs = range(common)
            element_loop = loop[:4] + _ELEMENT_LOOP
            plain_pairs(
                walk,
                zip(pairs, pairs, pairs),
                _NO_WALKS,
                expected,
                actual,
                where,
                depth,
                element_loop,
            )
        below, lone = depth + 1, walk.lone
        for i in range(common, len(expected)) if len(expected) > common else ():
            left = expected[i], where.element(i)
            one_sided(walk.out, cfg, *left, None, OMISSION, below, lone, False)
        for j in range(common, len(actual)) if len(actual) > common else ():
            extra = walk.read_whole(actual[j], below) if unread else actual[j]
            if cfg.count_extras:
                at = where.element(j, where.actual_path)
                one_sided(walk.out, cfg, extra, at, None, HALLUCINATION, below, lone, False)
    finally:
        walk.unread_expected, walk.unread_of = unread_expected, outer


def answer_extras(
    walk: ObjectWalk,
    expected: JsonObject,
    actual: JsonObject,
    where: Where,
    props: dict[str, SchemaNode] | None,
    depth: int,
) -> None:
    """The keys only ``actual`` has, once the inline loop has taken ``expected``'s (its
    callers ask first whether there are any): counted where the configuration counts them
    (``extras_read``), else, on an unread answer, checked as the door checks them
    (``extras_checked``)."""
    if walk.cfg.count_extras:
        walk.extras_read(expected, actual, where, props, depth)
    elif walk.unread:
        extras_checked(expected, actual, depth)


def extras_checked(expected: JsonObject, actual: JsonObject, depth: int) -> None:
    """The keys only ``actual`` has, of an unread answer's object at ``depth`` walked by a
    configuration under which they do not count (json_similarity's): never walked, but
    checked as the door checks them (``Unread`` where it would not pass them as they are:
    the object's size, every key a string, each such key's value plain within the walk's
    room), for the door reads the whole answer."""
    if len(actual) > MAX_KEYS:
        raise Unread
    levels = SHALLOW - depth - 1
    for key, value in actual.items():
        if type(key) is not str or (key not in expected and not plain_within(value, levels)):
            raise Unread


def plain_pairs(
    walk: ObjectWalk,
    scored: Iterable[tuple[int, int, float]],
    walked: dict[tuple[int, int], WalkOutput],
    expected: JsonArray,
    actual: JsonArray,
    where: Where,
    depth: int,
    loop: Loop | None = None,
) -> None:
    """``Walk._walk_pairs`` of an array whose elements no node, rule or leaf depth reaches
    (its ``plain`` arrays: structural_f1's, json_similarity's): each chosen pair of objects
    walked as ``Walk.obj`` walks it, by this loop with the plan and set-up it would work out
    for each (the same for every element: no node, no rule, no leaf depth), then its extra
    keys; a pair of plain scalars whose type the plan has a comparator for scored here, the
    FieldResult ``Walk.node`` and ``Walk.leaf`` make of it (switch ``SCALAR_ELEMENTS``; an
    answer's element checked as ``Walk.read`` checks it first: a value of a plain type, a
    float finite); any other pair as ``_walk_pairs`` walks it. ``loop``: the elements' own,
    where the caller has it (``index_array``), else worked out here. Apart from
    ``_walk_pairs``, whose frame a deep array's walk stacks at every level, and which keeps
    its size."""
    cfg = walk.cfg
    below = depth + 1
    if loop is None:
        plan = cfg.inline_plan(None, False, where.path)  # (no rule: every element's plan)
        loop = None if plan is None else loop_of(walk, None, below, plan)
    by_type = loop[0][0] if loop is not None and SCALAR_ELEMENTS else _NO_COMPARATORS
    fields = walk.out.fields
    path, field, moved = where
    side, field = path if moved is None else moved, field + "[]"
    n_e, n_a = len(expected), len(actual)
    longest = n_e if n_e > n_a else n_a  # (the first indices' text made once)
    index = INDEX_SUFFIXES if longest <= _SUFFIXES else [f"[{k}]" for k in range(longest)]
    # (flat objects whose expected elements share one shape: each pair's fields by the
    # shape's written code, flat_elements.py)
    if (
        loop is not None
        and not loop[3]  # (an unread answer's elements are checked as taken: not these)
        and (made := flat_elements.pair_fields(expected, actual, loop, key_alone))
    ):
        written_pairs(walk, made, scored, walked, expected, actual, where, depth, loop, index)
        return
    for i, j, _ in scored:
        found = walked.get((i, j)) if walked else None
        if found is not None:  # its walk is the one node() would do: take it as it is
            fields.extend(found.fields)
            walk.out.pairings.extend(found.pairings)
            walk.out.floors.extend(found.floors)
            continue
        e, a = expected[i], actual[j]
        # (the element's place as a plain tuple: a Where only where a call takes it)
        at = (path + index[i], field, side + index[j] if moved is not None or i != j else None)
        if type(e) is dict and type(a) is dict:
            element = _new(Where, at)
            if loop is None:  # (no plan: Walk.obj's general loop)
                walk.obj(e, a, element, None, below)
                continue
            inline_keys(walk, e, a, element, None, below, loop[0], loop)
            if not a.keys() <= e.keys():
                answer_extras(walk, e, a, element, None, below)
        elif (comparator := by_type.get(type(e))) is not None and (
            type(a) in _PLAIN_EXACT or (type(a) is float and a - a == 0.0)
        ):
            # (Walk.leaf's score: the comparator of the expected value's type, no spec, no
            # transform; equal values of one type score 1 where it says so)
            if type(e) is type(a) and e == a and comparator.equal_one:
                status, score = MATCH, 1.0
            else:
                score = score_at(comparator, e, a, at[0])
                status = MATCH if score >= 1.0 else MISMATCH
            fields.append(
                _new(
                    FieldResult,
                    (at[0], status, score, e, a, comparator.name, "", at[1], at[2], 1.0, None),
                )
            )
        elif actual is walk.unread_of:  # (unread elements: UnreadSides.unread_array)
            walk.node_read(e, a, _new(Where, at), None, below)
        else:
            walk.node(e, a, _new(Where, at), None, below)


def written_pairs(
    walk: ObjectWalk,
    made: flat_elements.PairFields,
    scored: Iterable[tuple[int, int, float]],
    walked: dict[tuple[int, int], WalkOutput],
    expected: Any,
    actual: Any,
    where: Where,
    depth: int,
    loop: Loop,
    index: Sequence[str],
) -> None:
    """``plain_pairs`` of two arrays of flat objects whose expected elements share one shape
    (``flat_elements.pair_fields``): each chosen pair's fields by ``made``, the shape's
    written code, then the answer's keys the expected element lacks, as ``plain_pairs``
    takes them. (The sides are typed Any: every element of both is a dict, checked by
    ``checked_shapes``.)"""
    out, below = walk.out, depth + 1
    add = out.fields.append
    path, field, moved = where
    side, field = path if moved is None else moved, field + "[]"
    paths = flat_elements.field_paths(tuple(expected[0]), field)
    for i, j, _ in scored:
        found = walked.get((i, j)) if walked else None
        if found is not None:  # its walk is the one node() would do: take it as it is
            out.fields.extend(found.fields)
            out.pairings.extend(found.pairings)
            out.floors.extend(found.floors)
            continue
        e, a = expected[i], actual[j]
        at_e = path + index[i]
        at_a = side + index[j] if moved is not None or i != j else None
        made(add, e, a, at_e, at_a, paths, walk, field, below, loop)
        if not a.keys() <= e.keys():
            answer_extras(walk, e, a, _new(Where, (at_e, field, at_a)), None, below)


def key_alone(
    walk: ObjectWalk,
    key: str,
    value: JsonValue,
    actual: JsonObject,
    path: str,
    field: str,
    actual_path: str | None,
    depth: int,
    loop: Loop,
) -> None:
    """Key ``key`` of the expected object at ``path`` (field path ``field``, holding
    ``value``) as this loop takes it, on that key alone: flat_elements.py's code hands here
    a key whose answer value is of a type it was not written for."""
    where = _new(Where, (path, field, actual_path))
    inline_keys(walk, {key: value}, actual, where, None, depth, loop[0], loop)
