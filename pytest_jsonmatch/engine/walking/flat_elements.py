"""The chosen pairs of an array of flat objects, each pair's fields made by code generated
once per expected element shape (``plain_pairs``' fast path for structural_f1's arrays).

``inline_leaves.plain_pairs`` walks each chosen pair of objects by the inline loop
(``inline_keys``), which asks of every key what the expected value's type, the plan's
comparators and the answer's value make of it. Where both arrays came through
``flat_similarity.checked_shapes`` (structural_f1's unread arrays of flat objects: every
element checked for the door and an object of plain scalars) and every expected element has
one shape (its keys in order, its values' types), those questions have one answer per key
for the whole array, and for every later array of that shape under the same plan. Here that
answer is written out once per shape as a small function: for each key in order, the
answer's value of the expected value's exact type scores as the loop scores it (equal
values 1 where the type's comparator says equal values score 1, else the comparator's
score), an answer that lacks the key makes the loop's omission (none for a null where nulls
count as absent), and any other answer's value goes through ``inline_keys`` itself, on that
key alone. So the fields are the loop's, in its order, to the bit; the answer's keys the
expected element lacks are left to the caller, as ``plain_pairs`` leaves them.

The code text depends only on the shape's structure (how many keys, for each whether its
type's comparator scores equal values 1, whether it has a comparator, whether an omission
is made): the keys, comparators and names are its constants, so no value of the data is in
it (printable: ``pair_source``). A shape's code is written the ``WRITE_AT``-th time an
array of it is met: a one-off array's shape never pays for its compilation.
``FLAT_ELEMENTS = False`` turns this off (the differential tests compare both).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from ..configuring.walk_config import InlinePlan
from ..core.paths import KEY_FORMS, new_key_forms
from ..core.values import MISSING, JsonValue
from ..pairing import flat_similarity
from ..results.field_results import MATCH, MISMATCH, OMISSION, FieldResult

# The switch of this fast path (docs/architecture.md, "Fast paths"): False walks every
# chosen pair of objects by inline_keys.
FLAT_ELEMENTS = True

WRITE_AT = 4  # a shape's code is written the WRITE_AT-th time an array of it is met
MAX_SHAPES = 256  # shapes kept (counted or written); past them the table starts again
MAX_KEYS = 48  # a wider element's shape is walked by inline_keys (checked_shapes' bound)

_new = tuple.__new__

# A pair's fields (``pair_source``'s ``pair``): append, the expected and the actual element,
# the element's path, its actual path (None: the same), the field paths of the shape's keys
# (``field_paths``), then what the general way of a key needs: the walk, the element's
# field path, the depth below, the loop (inline_leaves.Loop).
PairFields = Callable[..., None]
# By shape: the plan and null rule it was made under, and its function, or how many times
# it was met before it is written (an int)
_KEPT: dict[object, tuple[InlinePlan, bool, PairFields | int]] = {}
_FACTORIES: dict[tuple[tuple[bool, bool, bool], ...], Callable[..., PairFields]] = {}
# Field paths made (``field_paths``), by a shape's keys and the array's field path
_PATHS: dict[tuple[tuple[str, ...], str], tuple[str, ...]] = {}


def pair_fields(
    expected: Sequence[JsonValue],
    actual: Sequence[JsonValue],
    loop: Any,
    general: Callable[..., None],
) -> PairFields | None:
    """The function that makes the fields of a chosen pair of ``expected``'s and
    ``actual``'s elements under the inline loop's ``loop`` (inline_leaves.Loop), where both
    arrays are those ``checked_shapes`` last checked, every expected element has one shape,
    the loop takes every key of it here (no rule, no comparators by key, keys taken as
    ``direct``, neither side unread) and the shape's code is written; else None
    (``inline_keys`` walks each pair). ``general(walk, key, value, actual, path, field,
    actual_path, depth, loop)``: a key's general way, the inline loop on that key alone
    (inline_leaves.key_alone)."""
    plan, _, null_absent, unread, unread_expected, direct, _ = loop
    if unread or unread_expected or not direct or plan[2] is not None or plan[4] is not None:
        return None
    handed = flat_similarity._handed
    if not FLAT_ELEMENTS or handed is None or handed[0] is not expected or handed[1] is not actual:
        return None
    shapes = handed[2][0][0]
    if len(shapes) != 1:
        return None
    shape = shapes[0]
    kept = _KEPT.get(shape)
    if kept is not None and kept[0] is plan and kept[1] is null_absent:
        found = kept[2]
        if type(found) is not int:
            return found  # type: ignore[return-value]
        met = found + 1
    else:
        if not shape[0] or len(shape[0]) > MAX_KEYS:
            return None
        met = 1
    if len(_KEPT) >= MAX_SHAPES and shape not in _KEPT:
        _KEPT.clear()
    if met < WRITE_AT:
        _KEPT[shape] = (plan, null_absent, met)
        return None
    made = _made(shape, plan, null_absent, general)
    _KEPT[shape] = (plan, null_absent, made)
    return made


def field_paths(keys: tuple[str, ...], field: str) -> tuple[str, ...]:
    """Each key's field path below the element field path ``field`` (not empty), made once
    for a shape's keys below one array (``_PATHS``)."""
    found = _PATHS.get((keys, field))
    if found is None:
        found = tuple(field + (KEY_FORMS.get(key) or new_key_forms(key))[1] for key in keys)
        if len(_PATHS) >= MAX_SHAPES:
            _PATHS.clear()
        _PATHS[keys, field] = found
    return found


def _made(
    shape: Any, plan: InlinePlan, null_absent: bool, general: Callable[..., None]
) -> PairFields:
    """The function of ``shape`` under ``plan``: its structure's factory (made once)
    given the shape's constants."""
    by_type, _, _, equal_one, _ = plan
    keys, types = shape
    structure: list[tuple[bool, bool, bool]] = []
    constants: list[object] = []
    for key, kind in zip(keys, types):
        same = equal_one.get(kind)
        comparator = by_type.get(kind)
        # (equal values of the type: 1 by equal_one's comparator, or by the plan's where it
        # says equal values score 1; unequal ones: the plan's comparator, if any)
        if same is not None:
            equal, name_equal = True, same.name
        elif comparator is not None and comparator.equal_one:
            equal, name_equal = True, comparator.name
        else:
            equal, name_equal = False, ""
        scored = comparator is not None
        omitted = not (kind is type(None) and null_absent)
        structure.append((equal, scored, omitted))
        below = (KEY_FORMS.get(key) or new_key_forms(key))[1]
        constants.append(
            (
                key,
                kind,
                below,
                name_equal,
                comparator.name if comparator is not None else "",
                comparator.score if comparator is not None else None,
            )
        )
    form = tuple(structure)
    factory = _FACTORIES.get(form)
    if factory is None:
        if len(_FACTORIES) >= MAX_SHAPES:
            _FACTORIES.clear()
        namespace: dict[str, Any] = {}
        # our own text, made from the structure alone: no value of the data is in it
        exec(compile(pair_source(form), "<jsonmatch flat elements>", "exec"), namespace)  # noqa: S102
        factory = _FACTORIES[form] = namespace["factory"]
    return factory(tuple(constants), _new, FieldResult, MATCH, MISMATCH, OMISSION, MISSING, general)


def pair_source(structure: tuple[tuple[bool, bool, bool], ...]) -> str:
    """The text of a shape's factory: ``factory(constants, ...)`` gives ``pair``, which
    appends a chosen pair's fields in key order (see the module's docstring). ``structure``:
    per key, whether equal values of its type score 1 without a call, whether it has a
    comparator, whether its omission is a field."""
    n = len(structure)
    names = [f"k{c}, t{c}, s{c}, q{c}, n{c}, score{c}" for c in range(n)]
    head = [
        "def factory(constants, new, FR, MATCH, MISMATCH, OMISSION, MISSING, general):",
        *(f"    {names[c]} = constants[{c}]" for c in range(n)),
        "",
        "    def pair(append, e, a, p, ap, fps, walk, field, below, loop):",
        f"        {', '.join(f'v{c}' for c in range(n))}, = e.values()",
        f"        {', '.join(f'f{c}' for c in range(n))}, = fps",
    ]
    body: list[str] = []
    for c, (equal, scored, omitted) in enumerate(structure):
        v, at = f"v{c}", f"p + s{c}"
        moved = f"None if ap is None else ap + s{c}"
        matched = f"append(new(FR, ({at}, MATCH, 1.0, {v}, w, q{c}, '', f{c}, {moved}, 1.0, None)))"
        scoring = [
            f"r = score{c}({v}, w)",
            f"append(new(FR, ({at}, MATCH if r >= 1.0 else MISMATCH, r, {v}, w, n{c}, '', "
            f"f{c}, {moved}, 1.0, None)))",
        ]
        general = f"general(walk, k{c}, {v}, a, p, field, ap, below, loop)"
        body.append(f"w = a.get(k{c}, MISSING)")
        if equal or scored:
            body.append(f"if type(w) is t{c}:")
            if equal and scored:
                body += [f"    if {v} == w:", f"        {matched}", "    else:"]
                body += ["        " + line for line in scoring]
            elif equal:  # (no comparator for unequal values: their general way)
                body += [
                    f"    if {v} == w:",
                    f"        {matched}",
                    "    else:",
                    f"        {general}",
                ]
            else:
                body += ["    " + line for line in scoring]
            body.append("elif w is MISSING:")
        else:
            body.append("if w is MISSING:")
        if omitted:
            body.append(
                f"    append(new(FR, ({at}, OMISSION, 0.0, {v}, MISSING, '', '', f{c}, None, "
                "1.0, None)))"
            )
        else:
            body.append("    pass")
        body += ["else:", f"    {general}"]
    return "\n".join([*head, *("        " + line for line in body), "", "    return pair", ""])
