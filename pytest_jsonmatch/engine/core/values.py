"""The JSON value model: what type a value is and when two values are equal.

Values reach the comparison through the door (intake.py), so they are plain JSON: ``dict``
with string keys, ``list``, ``str``, ``int``, finite ``float``, ``bool`` and ``None``. Two
rules hold everywhere: a boolean is never a number (Python's ``True == 1`` does not leak into
scores), and numbers compare by value (``42`` equals ``42.0``).
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Mapping
from typing import Any, Final, TypeAlias, TypeGuard

from .errors import ParseError

NULL, BOOLEAN, NUMBER, STRING, ARRAY, OBJECT = (
    "null",
    "boolean",
    "number",
    "string",
    "array",
    "object",
)


class Missing:
    """The absence of a value (a key one side does not have), distinct from JSON null.

    ``MISSING`` is its one instance; annotate a place that may hold it as
    ``JsonValue | Missing`` (``MaybeJson``)."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "<missing>"

    def __bool__(self) -> bool:
        return False

    def __reduce__(self) -> str:
        return "MISSING"  # pickled and copied as the one sentinel, so ``is MISSING`` holds


MISSING: Final = Missing()

# A JSON value as the door hands it on: the type the engine's signatures use for values,
# instead of an unchecked type. Containers are invariant in their items, so a function that only
# reads a value may take the ``Mapping``/``Sequence`` forms below where a caller holds a
# narrower dict or list.
JsonScalar: TypeAlias = None | bool | int | float | str
JsonValue: TypeAlias = JsonScalar | list["JsonValue"] | dict[str, "JsonValue"]
JsonObject: TypeAlias = dict[str, JsonValue]
JsonArray: TypeAlias = list[JsonValue]
# A value, or the absence of one (a key that one side does not have).
MaybeJson: TypeAlias = JsonValue | Missing

# The JSON type of each Python type a plain JSON value can have.
TYPE_OF: dict[type, str] = {
    type(None): NULL,
    bool: BOOLEAN,
    int: NUMBER,
    float: NUMBER,
    str: STRING,
    list: ARRAY,
    dict: OBJECT,
}
# Python types of JSON scalars (exact types: the door turns subclasses into these).
SCALAR_TYPES = frozenset({str, int, float, bool, type(None)})


def schema_type(value: object) -> str:
    """A value's type as JSON Schema names it: ``integer`` for whole numbers (never a
    boolean), ``number`` for floats, ``null``, ``boolean``, ``string``, ``array``, ``object``."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, (list, tuple)):
        return "array"
    return "object"


def json_type(value: object) -> str:
    """The JSON type name of a value. Values from the door are plain; a custom transform may
    hand back a tuple or a mapping, read here as what it holds. Anything else is a ParseError."""
    tag = TYPE_OF.get(type(value))
    if tag is not None:
        return tag
    if isinstance(value, bool):
        return BOOLEAN
    if isinstance(value, (int, float)):
        return NUMBER
    if isinstance(value, str):
        return STRING
    if isinstance(value, Mapping):
        return OBJECT
    if isinstance(value, (list, tuple)):
        return ARRAY
    raise ParseError(f"{type(value).__name__} is not a JSON value ({value!r:.60})")


def is_number(value: object) -> TypeGuard[int | float]:
    """A JSON number: an int or a float, never a boolean."""
    kind = type(value)
    return (
        kind is int
        or kind is float
        or (isinstance(value, (int, float)) and not isinstance(value, bool))
    )


def json_equal(a: Any, b: Any, normalize: Callable[[str], str] | None = None) -> bool:
    """Deep JSON equality: types must agree (a boolean is not a number), numbers by value,
    arrays in order with the same length, objects with the same key set. ``normalize`` is
    applied to every string value (not to keys) before comparing. (``a`` and ``b``: any
    values, read by the type json_type names, which mypy cannot follow; a cast per call
    would cost time on this hot path.)"""
    ta, tb = json_type(a), json_type(b)
    if ta != tb:
        return False
    if ta == OBJECT:
        return len(a) == len(b) and all(
            key in b and json_equal(value, b[key], normalize) for key, value in a.items()
        )
    if ta == ARRAY:
        return len(a) == len(b) and all(json_equal(x, y, normalize) for x, y in zip(a, b))
    if ta == STRING and normalize is not None:
        return normalize(a) == normalize(b)
    return bool(a == b)


def canonical_key(value: Any) -> Hashable:
    """A hashable key under which JSON-equal values coincide (to bucket and pair values)."""
    tag = json_type(value)
    if tag == OBJECT:
        return (OBJECT, tuple(sorted((k, canonical_key(v)) for k, v in value.items())))
    if tag == ARRAY:
        return (ARRAY, tuple(canonical_key(v) for v in value))
    return (tag, value)
