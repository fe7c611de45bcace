"""The door: every value is read once, before any comparison, into plain JSON the walk can
trust (with one exception, below).

Plain JSON here means ``dict`` with ``str`` keys, ``list``, ``str``, ``int``, finite
``float``, ``bool`` and ``None``, nested at most :data:`MAX_DEPTH` levels, without cycles.
A value that already is plain JSON (what ``json.loads`` returns, and what most callers pass)
is checked and passed through as it is. Otherwise a plain copy is made: tuples become lists,
other mappings dicts, subclasses of ``str``, ``int`` and ``float`` (enums, ``numpy.float64``)
their base values, numpy scalars and arrays the Python values they hold, a pydantic model
what its ``model_dump(mode="json")`` gives and a dataclass instance its fields (at any
depth: a list of models, a model inside a mapping). What has no JSON
meaning is a ParseError naming the path and the side: NaN and the infinities, keys that are
not strings, values of other types (a ``set``, ``bytes``, a ``datetime``), a value that
contains itself, and nesting beyond the limit.

A caller that has read a side itself may hand it over as :class:`Read` (the dataset
reader's gold records, decoded from JSON text by the strict decoder). Sides may skip
the door: the actual side of a record ``evaluate_records`` scores from
its tallies is checked by the walk as it reads it (walking/walk.py, ``Walk.read``), with
``plain_within``; what it cannot take as it is raises ``Unread``, and that record is read
here after all. Its gold records may be too, where their schema is inferred from them
(``Walk.read_expected``; one the door would change or refuse raises ``Reread``, and every
gold record is read here first).

Fields the ``ignore`` option names are never refused: read as JSON where they can be, described
where they cannot (``_Converter.lenient``).
"""

import os
import reprlib
from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Any, NamedTuple, Protocol, TypeGuard, cast

from ..core.depth import MAX_DEPTH as MAX_DEPTH
from ..core.depth import SHALLOW
from ..core.errors import ParseError
from ..core.numbers import whole_in
from ..core.paths import display_path, index_segment, key_segment
from ..core.values import JsonObject, JsonValue

if TYPE_CHECKING:
    from _typeshed import DataclassInstance


def _max_keys() -> int:
    """How many keys one object may hold (a record of millions of keys costs minutes and
    gigabytes to walk): 100,000, or the whole number in the environment variable
    JSONMATCH_MAX_KEYS, which the command line's workers and pytest-xdist's inherit."""
    text = os.environ.get("JSONMATCH_MAX_KEYS", "").strip()
    if not text:
        return 100_000
    keys = whole_in(text, 1, 10**9)
    if keys is None:
        raise ParseError(
            f"JSONMATCH_MAX_KEYS must be a whole number of keys from 1 to 1000000000, not "
            f"{text[:40]!r}"
        )
    return keys


MAX_KEYS = _max_keys()

Skip = Callable[[str], bool]


if TYPE_CHECKING:  # (for type checkers: made at run time, a Protocol is a class built by typing)

    class _Model(Protocol):
        """A pydantic model instance, as duck typing finds it (pydantic is never imported)."""

        def model_dump(self, *, mode: str) -> object: ...


def as_data(value: object, side: str) -> object:
    """``value`` itself, or the data a pydantic model (``model_dump(mode="json")``, found
    by duck typing: pydantic is never imported) or a dataclass instance (its fields) holds.
    The door reads the rest; this lets the parser take a model given as a whole side."""
    if type(value) in _PLAIN_SIDES:
        return value
    if _is_model(value):
        return _dump(value, side, "")
    if _is_dataclass_instance(value):
        return _fields_of(value)
    return value


_PLAIN_SIDES = frozenset({dict, list, str, bytes})


def _is_model(value: object) -> "TypeGuard[_Model]":
    return (
        not isinstance(value, type)
        and callable(getattr(value, "model_dump", None))
        and callable(getattr(type(value), "model_json_schema", None))
    )


def _is_dataclass_instance(value: object) -> "TypeGuard[DataclassInstance]":
    # what dataclasses.is_dataclass reads, without importing dataclasses (and inspect) into
    # every run: only a run given a dataclass instance needs the module
    return not isinstance(value, type) and hasattr(type(value), "__dataclass_fields__")


def _dump(model: "_Model", side: str, path: str) -> object:
    try:
        return model.model_dump(mode="json")
    except Exception as exc:  # noqa: BLE001 - the model's own failure, named with its place
        raise ParseError(
            f"{display_path(path)}: {type(model).__name__}.model_dump(mode='json') "
            f"failed in {side}: {type(exc).__name__}: {exc}"
        ) from None


def _fields_of(instance: "DataclassInstance") -> dict[str, object]:
    """A dataclass instance's fields, by name (its values are read by the door)."""
    import dataclasses

    return {f.name: getattr(instance, f.name) for f in dataclasses.fields(instance)}


def read_json(value: object, side: str, skip: Skip | None = None) -> tuple[JsonValue, int]:
    """``value`` as plain JSON, and how deeply it nests (0 for a scalar). ``side`` names the
    input in errors (``expected``, ``actual``); ``skip(path)`` says which fields are never refused."""
    kind = type(value)
    if kind is dict or kind is list:
        depth = _plain_depth(value, _FAST_DEPTH)
        if depth >= 0:
            return cast(JsonValue, value), depth  # (plain JSON, as _plain_depth found it)
    elif kind in _PLAIN_SCALARS or (
        kind is float and cast(float, value) - cast(float, value) == 0.0
    ):
        return cast(JsonValue, value), 0  # (a plain scalar: its type was read above)
    return _Converter(side, skip).convert(value)


class Read(NamedTuple):
    """A side its caller has read as the door would: plain JSON, nested at most ``depth``
    levels (a bound, never more than SHALLOW), no object holding more than MAX_KEYS keys.
    The dataset reader hands the engine its gold records so (``depth_from_text``): the
    door's pass over them would only find what their text already showed."""

    value: JsonValue
    depth: int


def depth_from_text(text: str) -> int:
    """For a value one of the project's JSON decoders made of ``text`` (they make plain JSON
    only: string keys, finite floats): a bound on how deeply it nests when its text shows
    that the door would pass it as it is, else -1. The bound is the count of ``{`` and
    ``[`` (strings may hold more: a bound still); it must be within SHALLOW; and the text
    must be too short for an object of more than MAX_KEYS keys (each key takes at least 4
    characters, ``"":0``)."""
    if len(text) >= 4 * MAX_KEYS:
        return -1
    bound = text.count("{") + text.count("[")
    return bound if bound <= SHALLOW else -1


class Unread(Exception):
    """A value the walk met on a side it reads without the door (``plain_within`` said no):
    the comparison is made again with that side read through the door, which names what is
    wrong or makes a plain copy (match.py)."""


class Reread(Exception):
    """A gold record ``evaluate_records`` handed to the walk unread (``Entry.reads_gold``)
    that the door would not pass as it is (it makes a plain copy, or refuses it): the run
    starts again with every gold record read through the door first, as with the route
    off, so that its schema is inferred from what the door makes of them (match.py, the
    only place that catches it)."""


def plain_within(value: Any, levels: int) -> bool:
    """Whether ``value`` is plain JSON (the door would pass it as it is) nested at most
    ``levels`` levels deep (a scalar: 0). ``value`` is dynamically typed: the walk asks
    of every value it reads unread, and the dispatch on its type, which mypy cannot follow,
    takes no cast."""
    kind = type(value)
    if kind is dict or kind is list:
        return levels > 0 and _plain_depth(value, levels) >= 0
    return kind in _PLAIN_SCALARS or (kind is float and value - value == 0.0)


# Plain values are checked by a recursive function up to this depth; deeper or unusual
# values take the converter, which needs no recursion.
_FAST_DEPTH = 100
_PLAIN_SCALARS = frozenset({str, int, bool, type(None)})  # (a float must also be finite)


def _plain_depth(container: object, budget: int) -> int:
    """How deeply a dict or list nests when it is plain JSON within ``budget`` levels; else
    -1. One tight loop per container (an object's keys and values read in the same loop):
    this runs over every value of every comparison."""
    if budget == 0:
        return -1
    deepest = 0
    # (dynamically typed: the loops below dispatch on each child's type, on every value of
    # every comparison, where mypy cannot follow)
    child: Any
    if type(container) is dict:
        if len(container) > MAX_KEYS:
            return -1  # the converter says so, naming the path
        for key, child in container.items():
            if type(key) is not str:
                return -1
            kind = type(child)
            if kind in _PLAIN_SCALARS:
                continue
            if kind is float:
                if child - child == 0.0:
                    continue
                return -1
            if kind is not dict and kind is not list:
                return -1
            depth = _plain_depth(child, budget - 1)
            if depth < 0:
                return -1
            if depth > deepest:
                deepest = depth
        return deepest + 1
    children: Any = container
    for child in children:
        kind = type(child)
        if kind in _PLAIN_SCALARS:
            continue
        if kind is float:
            if child - child == 0.0:
                continue
            return -1
        if kind is not dict and kind is not list:
            return -1
        depth = _plain_depth(child, budget - 1)
        if depth < 0:
            return -1
        if depth > deepest:
            deepest = depth
    return deepest + 1


# the scalar types the door passes as they are (a float only when finite); a key's one type
_PLAIN_TYPES, _STR = frozenset({str, int, bool, type(None), float}), frozenset({str})


def plain_shapes(elements: Any) -> tuple[object, ...] | None:
    """Each element's shape, where the list ``elements`` is plain JSON two levels deep
    (``plain_within(elements, 2)``: objects of at most MAX_KEYS keys, all strings, of plain
    scalars, and plain scalars): a scalar's type, an object's keys in order and its values'
    types (an array's *skeleton*, eval_schema.inferred_items); else None. One pass, where
    the door's check and the skeleton took one each (an unread expected array's elements,
    their node kept by their skeleton). Where an object's value types are those of the
    object before it (elements of one shape are the common case), its size and the places
    of its floats are known already."""
    parts: list[object] = []
    types_met: object = None
    floats: tuple[int, ...] = ()  # where the floats are among the values of types_met
    element: Any  # (read by its type)
    for element in elements:
        kind = type(element)
        if kind is dict:
            values = tuple(element.values())
            types = tuple(map(type, values))
            if not _PLAIN_TYPES.issuperset(types):
                return None  # (a container below, or a value the door changes or refuses)
            if types != types_met:  # (plain types: equal only where they are the same)
                if len(types) > MAX_KEYS:
                    return None
                floats = tuple(i for i, t in enumerate(types) if t is float)
                types_met = types
            for i in floats:
                if values[i] - values[i] != 0.0:
                    return None
            keys = tuple(element)
            if not _STR.issuperset(map(type, keys)):  # (each time: a str subclass is equal)
                return None
            parts.append((keys, types))
        elif kind in _PLAIN_TYPES and (kind is not float or element - element == 0.0):
            parts.append(kind)
        else:
            return None
    return tuple(parts)


class _Converter:
    """Reads a value that is not plain JSON (or is deep) without recursion: an explicit
    stack of containers still open, each with its path, its depth and its plain copy."""

    def __init__(self, side: str, skip: Skip | None) -> None:
        self.side = side
        self.skip = skip

    def convert(self, value: object) -> tuple[JsonValue, int]:
        root: list[JsonValue] = [None]
        deepest = 0
        open_ids: set[int] = set()
        # (source value, path, depth, container receiving it, slot in that container);
        # an entry of None closes the container whose id is on the ``closing`` stack
        stack: list[Any] = [(value, "", 0, root, 0)]
        closing: list[int] = []
        while stack:
            entry = stack.pop()
            if entry is None:
                open_ids.discard(closing.pop())
                continue
            source, path, depth, target, slot = entry
            if _is_model(source):
                source = _dump(source, self.side, path)
            elif _is_dataclass_instance(source):
                source = _fields_of(source)
            elif _is_numpy(source):
                source = source.tolist()  # a numpy scalar or array: the Python value(s) it holds
            plain = self.scalar(source, path)
            if plain is not _CONTAINER:
                target[slot] = plain
                continue
            if id(source) in open_ids:
                raise ParseError(
                    f"{display_path(path)}: the value in {self.side} contains itself "
                    f"(a value that holds itself is not JSON)"
                )
            if depth >= MAX_DEPTH:
                raise ParseError(
                    f"{self.side}: values nest too deeply (more than {MAX_DEPTH:,} "
                    f"levels, at {display_path(path)[:60]}...)"
                )
            deepest = max(deepest, depth + 1)
            open_ids.add(id(source))
            closing.append(id(source))
            stack.append(None)
            target[slot] = self.open(source, path, depth, stack)
        return root[0], deepest

    def open(self, source: object, path: str, depth: int, stack: list[Any]) -> object:
        """The plain container for ``source``; its children are pushed to be read."""
        if isinstance(source, Mapping):
            if len(source) > MAX_KEYS:
                raise ParseError(
                    f"{display_path(path)}: an object of {len(source):,} keys in "
                    f"{self.side}, more than the {MAX_KEYS:,} one object may hold "
                    f"(the environment variable JSONMATCH_MAX_KEYS raises it)"
                )
            out: JsonObject = {}
            children: list[tuple[str, str | int]] = []
            for key, child in source.items():
                if type(key) is not str:
                    if not isinstance(key, str):
                        raise ParseError(
                            f"{display_path(path)}: key {key!r} in {self.side} is not "
                            f"a string (JSON keys are strings)"
                        )
                    key = str.__str__(key)
                out[key] = child
                children.append((key_segment(path, key), key))
            container: Any = out
        else:
            container = list(cast("Iterable[object]", source))  # (a list or a tuple)
            children = [(index_segment(path, index), index) for index in range(len(container))]
        for child_path, slot in reversed(children):  # the stack pops them in document order
            if self.skip is not None and self.skip(child_path):
                container[slot] = self.lenient(container[slot])
            else:
                stack.append((container[slot], child_path, depth + 1, container, slot))
        return container

    def lenient(self, value: object) -> JsonValue:
        """An ignored field's value: as plain JSON when it reads as JSON (a numpy value, a
        tuple), else a string that describes it. Ignored fields may hold anything, but what
        the walk holds must be JSON: a result shows them, and an actual array element
        ignored at its own index is read once pairing puts it beside another expected
        element (a value compared whole keeps an ignored element's place, never its content:
        WalkConfig.without_skipped_measured)."""
        try:
            return _Converter(self.side, None).convert(value)[0]
        except ParseError:
            return f"<not JSON: {_short_repr(value)}>"

    def scalar(self, value: object, path: str) -> object:
        """The plain scalar ``value`` stands for, or _CONTAINER for a mapping or an array."""
        kind = type(value)
        if kind is str or kind is int or kind is bool or value is None:
            return value
        if kind is float or isinstance(value, float):
            return self.finite(float.__float__(cast(float, value)), path)
        if (
            kind is dict
            or kind is list
            or kind is tuple
            or isinstance(value, (Mapping, list, tuple))
        ):
            return _CONTAINER
        if isinstance(value, str):
            return str.__str__(value)
        if isinstance(value, int):
            return int.__int__(value)
        raise ParseError(
            f"{display_path(path)}: {kind.__name__} in {self.side} is not a JSON value "
            f"({value!r:.60})"
        )

    def finite(self, number: float, path: str) -> float:
        if number - number == 0.0:
            return number
        raise ParseError(
            f"{display_path(path)}: {number!r} in {self.side} is not a JSON number "
            f"(NaN and Infinity are not JSON)"
        )


_CONTAINER = object()
_REPR = reprlib.Repr()  # bounded, whatever the value
_REPR.maxlevel, _REPR.maxstring, _REPR.maxother = 3, 40, 40


def _short_repr(value: object) -> str:
    """A value's repr, cut short in depth and length (a value that holds itself included)."""
    try:
        return _REPR.repr(value)
    except Exception:  # noqa: BLE001 - a __repr__ of the user's that fails: named by its type
        return type(value).__name__


def _is_numpy(value: object) -> bool:
    """A numpy scalar or array, recognised without importing numpy."""
    return type(value).__module__ == "numpy" and hasattr(value, "tolist")
