"""An object's scalar leaves scored in the object's own loop (``Walk.obj``'s fast path).

Most fields of most records are scalar leaves that need no per-field settings: a call per
field through ``Walk.node`` and ``Walk.leaf`` would be most of their cost. The walk's
configuration says when that holds (``WalkConfig.inline_plan``); here each such field is
scored where the loop meets it, and every other key goes its general way
(``Walk.key_of_object``), in the expected object's key order, so that the fields come out
as the general loop makes them.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Protocol

from ..configuring.walk_config import InlinePlan
from ..core.paths import KEY_FORMS, Where, key_forms
from ..core.values import MISSING, SCALAR_TYPES, JsonObject, JsonValue
from ..results.field_results import MATCH, MISMATCH, FieldResult, WalkOutput
from ..schemas.eval_schema import SchemaNode

# The general way of one key of an object (walk.Walk.key_of_object): the key, its value,
# the other side's value (or MISSING), the object's place, its schema's properties, depth.
KeyOfObject = Callable[[str, JsonValue, object, Where, dict[str, SchemaNode] | None, int], None]

if TYPE_CHECKING:  # (for type checkers: made at run time, a Protocol is a class built by typing)

    class ObjectWalk(Protocol):
        """What of a walk (walk.Walk) the loop uses: its output, and the general way of a key."""

        out: WalkOutput

        @property
        def key_of_object(self) -> KeyOfObject: ...


# The switch of this fast path (docs/architecture.md, "Fast paths"): False sends every key
# of an object through Walk.node, as the general loop does.
INLINE_LEAVES = True

# FieldResults built with tuple.__new__, as the walk builds them (see walk.py)
_new = tuple.__new__


def inline_keys(
    walk: ObjectWalk,
    expected: JsonObject,
    actual: JsonObject,
    where: Where,
    props: dict[str, SchemaNode] | None,
    depth: int,
    plan: InlinePlan,
) -> None:
    """Each key of ``expected`` scored: a scalar leaf the plan has a comparator for here,
    any other key (and every key a rule names: the plan's last part) as the general loop
    scores it."""
    by_type, scalars_only, by_key, equal_one, general = plan
    path, field, actual_path = where
    at_path, at_field = (1 if path else 0), (1 if field else 0)
    same_field = field == path
    known_forms, append = KEY_FORMS.get, walk.out.fields.append
    for key, value in expected.items():
        other = actual.get(key, MISSING)
        if general is not None and key in general:
            walk.key_of_object(key, value, other, where, props, depth)
            continue
        if other is not MISSING:
            kind = type(value)
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
                        score = comparator.score(value, other)
                        status = MATCH if score >= 1.0 else MISMATCH
            if comparator is not None:
                forms = known_forms(key) or key_forms(key)
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
        walk.key_of_object(key, value, other, where, props, depth)
