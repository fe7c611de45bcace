"""Each keyword's check, made from the keyword's value as the compiler
(:mod:`~pytest_jsonmatch.engine.schemas.conformance`) meets it in a node: a closure that
appends the value's violations, and the step the written code (:mod:`conformance_code`)
reads of it (``("call", check)`` where it calls the closure).

The general keywords (``GENERAL``: ``enum``, ``const``, ``allOf``, ``anyOf``, ``oneOf``,
``not``) and ``type`` apply to any value; an object's and an array's keywords read together
(``BY_KIND``: properties with patternProperties, additionalProperties and required; the
dependencies; propertyNames; prefixItems with items; contains with its bounds) and the
simple ones of a kind (``SIMPLE``: the bounds, multipleOf, pattern, uniqueItems) only to
values of that kind, each called on that kind alone (``_joined`` and the written code choose
by the value's Python type). A maker reads the keyword's value through a
:class:`KeywordReader` (the compiler of conformance.py is one), which refuses a value of the
wrong shape as a SchemaError naming the schema, the node and the keyword.
"""

from __future__ import annotations

import math
import operator
from collections.abc import Callable, Mapping, Sized
from decimal import Decimal, localcontext
from typing import TYPE_CHECKING, TypeAlias, TypeVar, cast

from ..core.errors import JsonMatchError, SchemaError, shown
from ..core.values import JsonArray, JsonObject, JsonValue, canonical_key
from .conformance_code import SCALAR_TAGS, Check, Found, NodeKey, Place, Step
from .patterns import BoundedPattern, PatternError, compile_pattern

if TYPE_CHECKING:
    from .loading import SchemaResolver

T = TypeVar("T")


class KeywordReader:
    """What the keywords' makers read a node's keyword values with: each value checked (an
    error naming the schema, the node and the keyword) and a subschema compiled (by the
    compiler of conformance.py, which is one)."""

    origin: str  # the schema, as an error names it

    def fail(self, where: str, keyword: str, why: str) -> SchemaError:
        return SchemaError(
            f"{self.origin}: node {where}: {keyword} {why} (the "
            f"conformance check cannot compile it)"
        )

    def node(self, raw: object, resolver: SchemaResolver, where: str) -> Check:
        return self.compiled(raw, resolver, where)[0]

    def compiled(self, raw: object, resolver: SchemaResolver, where: str) -> tuple[Check, NodeKey]:
        """A subschema's check, and the key of its plan."""
        raise NotImplementedError

    def branches(
        self, value: JsonValue, resolver: SchemaResolver, where: str, keyword: str
    ) -> list[Check]:
        if not isinstance(value, list) or not value:
            raise self.fail(where, keyword, "must be a non-empty list of schemas")
        return [
            self.node(branch, resolver, f"{where}/{keyword}/{i}") for i, branch in enumerate(value)
        ]

    def mapping_of_schemas(
        self, value: JsonValue, resolver: SchemaResolver, where: str, keyword: str
    ) -> dict[str, tuple[Check, NodeKey]]:
        if value is None:
            return {}
        if not isinstance(value, Mapping):
            raise self.fail(where, keyword, "must be a mapping")
        return {
            name: self.compiled(child, resolver, f"{where}/{keyword}/{name}")
            for name, child in value.items()
        }

    def names(self, value: JsonValue, where: str, keyword: str) -> tuple[str, ...]:
        if not isinstance(value, list) or not all(isinstance(n, str) for n in value):
            raise self.fail(where, keyword, f"must be a list of property names, not {shown(value)}")
        return tuple(cast("list[str]", value))  # (each a str: checked above)

    def regex(self, pattern: JsonValue, where: str, keyword: str) -> BoundedPattern:
        if not isinstance(pattern, str):
            raise self.fail(where, keyword, f"must be a regular expression, not {shown(pattern)}")
        try:
            return compile_pattern(pattern, f"{where}/{keyword}", self.origin)
        except (PatternError, ValueError, OverflowError, RecursionError) as exc:
            raise self.fail(
                where, keyword, f"{pattern!r} is not a regular expression Python reads ({exc})"
            ) from None

    def count(self, value: JsonValue, where: str, keyword: str) -> int:
        if isinstance(value, float) and value.is_integer():
            value = int(value)
        if type(value) is not int or value < 0:
            raise self.fail(
                where, keyword, f"must be a whole number of at least 0, not {shown(value)}"
            )
        return value

    def number(self, value: JsonValue, where: str, keyword: str) -> int | float:
        if type(value) not in _NUMBER_TYPES or (type(value) is float and not math.isfinite(value)):
            raise self.fail(where, keyword, f"must be a number, not {shown(value)}")
        return cast("int | float", value)  # (an int or a float: checked above)


_NUMBER_TYPES = (int, float)

# A general keyword's check and step, made from its value (``GENERAL``); a kind's keyword's
# (``SIMPLE``), which reads no reference; the checks of keywords of one kind read together
# from the node (``BY_KIND``).
_General: TypeAlias = Callable[
    [KeywordReader, JsonValue, "SchemaResolver", str], tuple[Check, Step]
]
_Simple: TypeAlias = Callable[[KeywordReader, JsonValue, str], tuple[Check, Step]]
_Group: TypeAlias = Callable[
    [KeywordReader, Mapping[str, JsonValue], "SchemaResolver", str], list[tuple[Check, Step]]
]


def accept(value: JsonValue, place: Place, found: Found) -> None:
    return None


def refuse(value: JsonValue, place: Place, found: Found) -> None:
    found.append((place, "false"))


def called(check: Check) -> tuple[Check, Step]:
    """A keyword the generated code calls as its closure."""
    return check, ("call", check)


def passes(check: Check, value: JsonValue, place: Place) -> bool:
    found: Found = []
    check(value, place, found)
    return not found


def _kind_check(check: Callable[[T, Place, Found], None]) -> Check:
    """A check of one kind of value: ``conformance._joined`` (and the generated code) calls
    it only on that kind, chosen by the value's Python type (an object's on a dict, an
    array's on a list, a string's on a str, a number's on an int or a float)."""
    return cast(Check, check)


_TYPES: dict[str, tuple[type, ...]] = {
    "null": (type(None),),
    "boolean": (bool,),
    "integer": (int,),
    "number": (int, float),
    "string": (str,),
    "array": (list,),
    "object": (dict,),
}


def type_keyword(
    compiler: KeywordReader, value: JsonValue, where: str
) -> tuple[Check, frozenset[type], Step]:
    """The ``type`` check, the Python types it surely allows (a float may be an integer or
    not: it is left to the check), and its step."""
    names = [value] if isinstance(value, str) else value
    if not isinstance(names, list) or not all(isinstance(n, str) and n in _TYPES for n in names):
        raise compiler.fail(
            where, "type", f"must name JSON types ({', '.join(_TYPES)}), not {shown(value)}"
        )
    names = cast("list[str]", names)  # (each a type's name: checked above)
    allowed = frozenset(t for n in names for t in _TYPES[n])
    whole_floats = "integer" in names and "number" not in names

    def check(v: JsonValue, place: Place, found: Found) -> None:
        kind = type(v)
        if kind not in allowed and not (
            whole_floats and kind is float and cast(float, v).is_integer()
        ):
            found.append((place, "type"))

    return (check, allowed - {float} if whole_floats else allowed, ("type", allowed, whole_floats))


def equality_key(value: JsonValue) -> object:
    """The key under which JSON-equal values coincide (canonical_key's, a scalar's at once)."""
    tag = SCALAR_TAGS.get(type(value))
    if tag is not None:
        return tag, value
    try:
        return canonical_key(value)
    except (JsonMatchError, TypeError, RecursionError):  # a field ``ignore`` left unread
        return object()


def _enum(
    compiler: KeywordReader, value: JsonValue, resolver: SchemaResolver, where: str
) -> tuple[Check, Step]:
    if not isinstance(value, list):
        raise compiler.fail(where, "enum", "must be a list")
    keys = frozenset(equality_key(v) for v in value)

    def check(v: JsonValue, place: Place, found: Found) -> None:
        if equality_key(v) not in keys:
            found.append((place, "enum"))

    return check, ("enum", keys)


def _const(
    compiler: KeywordReader, value: JsonValue, resolver: SchemaResolver, where: str
) -> tuple[Check, Step]:
    key = equality_key(value)

    def check(v: JsonValue, place: Place, found: Found) -> None:
        if equality_key(v) != key:
            found.append((place, "const"))

    return check, ("const", key)


def _all_of(
    compiler: KeywordReader, value: JsonValue, resolver: SchemaResolver, where: str
) -> tuple[Check, Step]:
    parts = tuple(compiler.branches(value, resolver, where, "allOf"))

    def check(v: JsonValue, place: Place, found: Found) -> None:
        for part in parts:
            part(v, place, found)

    return called(check)


def _any_or_one(keyword: str) -> _General:
    def make(
        compiler: KeywordReader, value: JsonValue, resolver: SchemaResolver, where: str
    ) -> tuple[Check, Step]:
        parts = tuple(compiler.branches(value, resolver, where, keyword))

        def check(v: JsonValue, place: Place, found: Found) -> None:
            results: list[Found] = []
            for part in parts:
                mine: Found = []
                part(v, place, mine)
                if not mine and keyword == "anyOf":
                    return
                results.append(mine)
            if sum(not r for r in results) == 1:
                return  # oneOf: exactly one branch holds
            if not any(not r for r in results):
                # every branch fails: one branch that alone takes the value's type speaks
                typed = [r for r in results if (place, "type") not in r]
                if len(typed) == 1:
                    found.extend(typed[0])
                    return
            found.append((place, keyword))

        return called(check)

    return make


def _not(
    compiler: KeywordReader, value: JsonValue, resolver: SchemaResolver, where: str
) -> tuple[Check, Step]:
    inner = compiler.node(value, resolver, f"{where}/not")

    def check(v: JsonValue, place: Place, found: Found) -> None:
        if passes(inner, v, place):
            found.append((place, "not"))

    return called(check)


GENERAL: dict[str, _General] = {
    "enum": _enum,
    "const": _const,
    "allOf": _all_of,
    "anyOf": _any_or_one("anyOf"),
    "oneOf": _any_or_one("oneOf"),
    "not": _not,
}


def _members(
    compiler: KeywordReader, raw: Mapping[str, JsonValue], resolver: SchemaResolver, where: str
) -> list[tuple[Check, Step]]:
    """The check of an object's members (properties, patternProperties,
    additionalProperties, required), a step of its own where only named properties
    are."""
    named = compiler.mapping_of_schemas(raw.get("properties"), resolver, where, "properties")
    patterns = [
        (compiler.regex(p, where, "patternProperties"), check)
        for p, (check, _) in compiler.mapping_of_schemas(
            raw.get("patternProperties"), resolver, where, "patternProperties"
        ).items()
    ]
    extra = raw.get("additionalProperties")
    other = (
        None
        if extra is None or isinstance(extra, bool)
        else compiler.node(extra, resolver, f"{where}/additionalProperties")
    )
    required = compiler.names(raw.get("required", []), where, "required")
    if not (named or patterns or other is not None or required):
        return []
    check = _properties(
        {name: c for name, (c, _) in named.items()}, patterns, other, extra is False, required
    )
    if patterns or other is not None:
        return [called(check)]
    return [
        (
            check,
            (
                "properties",
                {name: key for name, (_, key) in named.items()},
                extra is False,
                required,
            ),
        )
    ]


def _properties(
    named: dict[str, Check],
    patterns: list[tuple[BoundedPattern, Check]],
    other: Check | None,
    closed: bool,
    required: tuple[str, ...],
) -> Check:
    """``properties``, ``patternProperties``, ``additionalProperties`` and ``required``: one
    pass over the object's keys."""

    def check(v: JsonObject, place: Place, found: Found) -> None:
        for key, child in v.items():
            known = named.get(key)
            if known is not None:
                known(child, (place, key), found)
            matched = False
            for pattern, schema in patterns:
                if pattern.search(key):
                    schema(child, (place, key), found)
                    matched = True
            if known is None and not matched:
                if closed:
                    found.append(((place, key), "additionalProperties"))
                elif other is not None:
                    other(child, (place, key), found)
        for name in required:
            if name not in v:
                found.append(((place, name), "required"))

    def plain(v: JsonObject, place: Place, found: Found) -> None:  # no patterns, no extras
        for key, child in v.items():
            known = named.get(key)
            if known is not None:
                known(child, (place, key), found)
            elif closed:
                found.append(((place, key), "additionalProperties"))
        for name in required:
            if name not in v:
                found.append(((place, name), "required"))

    return _kind_check(plain if not patterns and other is None else check)


def _dependents(
    compiler: KeywordReader, raw: Mapping[str, JsonValue], resolver: SchemaResolver, where: str
) -> list[tuple[Check, Step]]:
    """The checks of what a present property asks for: other properties
    (dependentRequired, or a list under draft-7's dependencies) or a schema the whole
    object meets (dependentSchemas, or a schema under dependencies)."""
    out: list[tuple[Check, Step]] = []
    dependencies = raw.get("dependencies", {})
    if not isinstance(dependencies, Mapping):
        raise compiler.fail(where, "dependencies", "must be a mapping")
    needs: dict[str, JsonValue] = {k: v for k, v in dependencies.items() if isinstance(v, list)}
    if not isinstance(raw.get("dependentRequired", {}), Mapping):
        raise compiler.fail(where, "dependentRequired", "must be a mapping")
    needs.update(cast(JsonObject, raw.get("dependentRequired", {})))  # (checked above)
    if needs:
        names = {k: compiler.names(v, where, "dependentRequired") for k, v in needs.items()}
        out.append(called(_dependent_required(names)))
    schemas: dict[str, JsonValue] = {
        k: v for k, v in dependencies.items() if not isinstance(v, list)
    }
    if "dependentSchemas" in raw:
        if not isinstance(raw["dependentSchemas"], Mapping):
            raise compiler.fail(where, "dependentSchemas", "must be a mapping")
        schemas.update(raw["dependentSchemas"])
    if schemas:
        checks = {
            k: compiler.node(v, resolver, f"{where}/dependentSchemas/{k}")
            for k, v in schemas.items()
        }
        out.append(called(_dependent_schemas(checks)))
    return out


def _dependent_required(needs: dict[str, tuple[str, ...]]) -> Check:
    def check(v: JsonObject, place: Place, found: Found) -> None:
        for key, names in needs.items():
            if key in v:
                for name in names:
                    if name not in v:
                        found.append(((place, name), "dependentRequired"))

    return _kind_check(check)


def _dependent_schemas(schemas: dict[str, Check]) -> Check:
    def check(v: JsonObject, place: Place, found: Found) -> None:
        for key, schema in schemas.items():
            if key in v:
                schema(v, place, found)

    return _kind_check(check)


def _names(
    compiler: KeywordReader, raw: Mapping[str, JsonValue], resolver: SchemaResolver, where: str
) -> list[tuple[Check, Step]]:
    """``propertyNames``: every key of the object against a schema."""
    if "propertyNames" in raw:
        schema = compiler.node(raw["propertyNames"], resolver, f"{where}/propertyNames")
        return [called(_property_names(schema))]
    return []


def _property_names(schema: Check) -> Check:
    def check(v: JsonObject, place: Place, found: Found) -> None:
        for key in v:
            if not passes(schema, key, (place, key)):
                found.append(((place, key), "propertyNames"))

    return _kind_check(check)


def _elements(
    compiler: KeywordReader, raw: Mapping[str, JsonValue], resolver: SchemaResolver, where: str
) -> list[tuple[Check, Step]]:
    """The check of an array's elements: the first ones by position (prefixItems, or
    drafts 4-7's list of items), the rest against one schema (items, or additionalItems
    after a list), a step of its own where no position has a schema."""
    items = raw.get("items")
    prefix: JsonValue
    if isinstance(items, list):  # drafts 4-7: positional items, then additionalItems
        prefix, rest = items, raw.get("additionalItems")
    else:
        prefix, rest = raw.get("prefixItems", []), items
    if not isinstance(prefix, list):
        raise compiler.fail(where, "prefixItems", "must be a list of schemas")
    firsts = [compiler.node(p, resolver, f"{where}/prefixItems/{i}") for i, p in enumerate(prefix)]
    others = (
        None
        if rest is None or rest is True
        else compiler.compiled(rest, resolver, f"{where}/items")
    )
    if not firsts and others is None:
        return []
    check = _items(firsts, None if others is None else others[0])
    return [(check, ("items", others[1])) if not firsts and others is not None else called(check)]


def _items(firsts: list[Check], others: Check | None) -> Check:
    count = len(firsts)

    def check(v: JsonArray, place: Place, found: Found) -> None:
        for index, (schema, element) in enumerate(zip(firsts, v)):
            schema(element, (place, index), found)
        if others is not None:
            for index in range(count, len(v)):
                others(v[index], (place, index), found)

    return _kind_check(check)


def _contains_of(
    compiler: KeywordReader, raw: Mapping[str, JsonValue], resolver: SchemaResolver, where: str
) -> list[tuple[Check, Step]]:
    """``contains``, with its bounds (minContains, maxContains)."""
    if "contains" not in raw:
        return []
    least = compiler.count(raw.get("minContains", 1), where, "minContains")
    most = (
        compiler.count(raw["maxContains"], where, "maxContains") if "maxContains" in raw else None
    )
    schema = compiler.node(raw["contains"], resolver, f"{where}/contains")
    return [called(_contains(schema, least, most))]


def _contains(schema: Check, least: int, most: int | None) -> Check:
    def check(v: JsonArray, place: Place, found: Found) -> None:
        hits = sum(passes(schema, element, (place, i)) for i, element in enumerate(v))
        if hits < least:
            found.append((place, "contains" if least == 1 and hits == 0 else "minContains"))
        elif most is not None and hits > most:
            found.append((place, "maxContains"))

    return _kind_check(check)


# An object's and an array's keywords read together, in the order their checks run.
BY_KIND: tuple[tuple[str, _Group], ...] = (
    ("object", _members),
    ("object", _dependents),
    ("object", _names),
    ("array", _elements),
    ("array", _contains_of),
)


_OPERATOR_TEXT: dict[Callable[[float, float], bool], str] = {
    operator.le: "<=",
    operator.ge: ">=",
    operator.lt: "<",
    operator.gt: ">",
}


def _bound(
    keyword: str,
    kind: str,
    measure: Callable[[Sized], int] | None,
    holds: Callable[[float, float], bool],
) -> tuple[str, _Simple]:
    """A limit on a number, or on a length (``measure``: len) that ``holds`` must allow."""

    def make(compiler: KeywordReader, value: JsonValue, where: str) -> tuple[Check, Step]:
        limit = (
            compiler.number(value, where, keyword)
            if kind == "number"
            else compiler.count(value, where, keyword)
        )
        step = ("bound", keyword, _OPERATOR_TEXT[holds], limit, measure is not None)
        if measure is None:  # the number itself

            def check(v: float, place: Place, found: Found) -> None:
                if not holds(v, limit):
                    found.append((place, keyword))

            return _kind_check(check), step

        def measured(v: Sized, place: Place, found: Found) -> None:
            if not holds(measure(v), limit):
                found.append((place, keyword))

        return _kind_check(measured), step

    return kind, make


def _multiple_of(compiler: KeywordReader, value: JsonValue, where: str) -> tuple[Check, Step]:
    step = compiler.number(value, where, "multipleOf")
    if step <= 0:
        raise compiler.fail(where, "multipleOf", f"must be above 0, not {shown(value)}")
    exact = _decimal(step)

    def check(v: int | float, place: Place, found: Found) -> None:
        if type(v) is int and type(step) is int:
            ok = v % step == 0
        else:  # decimally, as the numbers are written: 0.3 is a multiple of 0.1
            value = _decimal(v)
            with localcontext() as context:  # digits enough for an exact remainder
                context.prec = 2 * (_digits(value) + _digits(exact)) + 10
                ok = value % exact == 0
        if not ok:
            found.append((place, "multipleOf"))

    return called(_kind_check(check))


def _decimal(number: int | float) -> Decimal:
    """A number as it is written: an int exactly, a float by its shortest repr (0.1)."""
    return Decimal(number) if type(number) is int else Decimal(repr(number))


def _digits(number: Decimal) -> int:
    """How many digits a decimal spans, from its largest to its smallest."""
    sign, digits, exponent = number.as_tuple()
    return len(digits) + abs(int(exponent))


def _pattern(compiler: KeywordReader, value: JsonValue, where: str) -> tuple[Check, Step]:
    regex = compiler.regex(value, where, "pattern")

    def check(v: str, place: Place, found: Found) -> None:
        if regex.search(v) is None:
            found.append((place, "pattern"))

    return _kind_check(check), ("pattern", regex)


def _unique(compiler: KeywordReader, value: JsonValue, where: str) -> tuple[Check, Step]:
    if not isinstance(value, bool):
        raise compiler.fail(where, "uniqueItems", f"must be true or false, not {shown(value)}")
    if not value:
        return called(accept)

    def check(v: JsonArray, place: Place, found: Found) -> None:
        keys = [equality_key(element) for element in v]
        if len(set(keys)) < len(keys):
            found.append((place, "uniqueItems"))

    return called(_kind_check(check))


SIMPLE: dict[str, tuple[str, _Simple]] = {
    "maximum": _bound("maximum", "number", None, operator.le),
    "minimum": _bound("minimum", "number", None, operator.ge),
    "exclusiveMaximum": _bound("exclusiveMaximum", "number", None, operator.lt),
    "exclusiveMinimum": _bound("exclusiveMinimum", "number", None, operator.gt),
    "multipleOf": ("number", _multiple_of),
    "maxLength": _bound("maxLength", "string", len, operator.le),
    "minLength": _bound("minLength", "string", len, operator.ge),
    "pattern": ("string", _pattern),
    "maxItems": _bound("maxItems", "array", len, operator.le),
    "minItems": _bound("minItems", "array", len, operator.ge),
    "uniqueItems": ("array", _unique),
    "maxProperties": _bound("maxProperties", "object", len, operator.le),
    "minProperties": _bound("minProperties", "object", len, operator.ge),
}
