"""Schema conformance: whether an answer is valid against its schema, and where it is not.

A schema (JSON Schema draft 2020-12; the draft 4-7 spellings ``definitions``,
``dependencies``, positional ``items`` and ``additionalItems`` are read too) is compiled once
into a graph of small Python functions, one per schema node, each holding its keywords'
constants (a regular expression compiled, a set of allowed types): checking an answer is a
call per value, never a reading of the schema. ``$ref`` is resolved when the schema is
compiled, through the resolver :mod:`~pytest_jsonmatch.engine.schemas.loading` gives the
schema (files only, confined as the caller confines them, never the network); a recursive
schema compiles into a cycle, followed only as deep as the answer goes. ``x-eval-*`` keys,
``format`` (an annotation in draft 2020-12), ``title``, ``description`` and every other
keyword of no validation meaning are ignored.

Each node is also described as a plan of its keywords, from which
:mod:`~pytest_jsonmatch.engine.schemas.conformance_code` writes the check out as Python, a
function per node that holds a loop, straight-line code for the rest (about half the
closures' time an answer on the benchmarks' invoices), once a schema has been used enough
to pay for writing it (:class:`Validator`). The closures are what it is tested against
(``validator_for(schema, generated=False)``) and what it calls for the keywords it does not
write itself.

Every violation is found and counted, not only the first (the first 1,000 are listed): a
:class:`Violation` names the answer's path (``items[0].qty``, ``$`` for the root) and the
keyword it breaks. ``required`` and
``additionalProperties`` name the path of the missing or extra key. A failed ``anyOf`` or
``oneOf`` names its own keyword, or, when one branch alone has the answer's type (a
nullable model: ``anyOf: [{$ref}, {type: null}]``), that branch's violations.

A keyword this checker cannot honour (``unevaluatedProperties``, ``unevaluatedItems``,
``$dynamicRef``, ``$recursiveRef``) or a keyword of the wrong shape is a SchemaError naming
the schema, the node and the keyword, when the schema is compiled.

fastjsonschema (which checks saved reports, reporting/run_model/validation.py) was weighed: it reads
drafts 4 to 7 only (no ``prefixItems``, ``dependentRequired``, or ``$ref`` beside other
keywords), stops at the first error, and reads remote references itself. Its generated code
gives a yes or no on the benchmarks' invoices in about the time this check takes to list
every violation (30-50 us an answer), so a second, exact pass for invalid answers would buy
nothing.
"""

from __future__ import annotations

import math
import operator
from collections.abc import Callable, Mapping, Sized
from decimal import Decimal, localcontext
from time import perf_counter, thread_time
from typing import TYPE_CHECKING, TypeAlias, TypeVar, cast

from ..core.depth import SHALLOW, call_with_depth, nesting
from ..core.errors import JsonMatchError, ParseError, SchemaError, shown
from ..core.gc_pause import collector_paused
from ..core.paths import index_segment, key_segment
from ..core.values import JsonArray, JsonObject, JsonValue, canonical_key
from ..core.violations import LISTED, VALID, Conformance, Violation
from ..reading.intake import MAX_DEPTH
from .conformance_code import (
    KIND_OF,
    SCALAR_TAGS,
    Check,
    Found,
    NodeKey,
    NodePlan,
    Place,
    Step,
    generate,
)
from .eval_schema import _with_room
from .loading import LoadedSchema, load_schema
from .patterns import BoundedPattern, PatternError, compile_pattern

if TYPE_CHECKING:
    from .loading import SchemaResolver

T = TypeVar("T")

UNSUPPORTED = ("unevaluatedProperties", "unevaluatedItems", "$dynamicRef", "$recursiveRef")
_TRUE, _FALSE = "true", "false"  # the plan keys of the ``true`` and ``false`` schemas


class Validator:
    """A schema compiled for checking answers (:func:`validator_for`).

    It checks with the closures first, timing them, and writes its check out as Python
    (conformance_code.py) once they have spent on checking what writing the code costs
    (WRITE_COST times what compiling the closures took: the schema is compiled again, with
    each node's plan, and the text written and compiled). A schema checked once, as most
    ``match_json`` calls check theirs, never pays for code it would not use; a dataset pays
    for it once, early; either way at most about twice the better choice's cost."""

    __slots__ = ("_check", "origin", "_source", "_loaded", "_budget")

    def __init__(
        self, check: Check, origin: str, loaded: LoadedSchema | None = None, budget: float = 0.0
    ) -> None:
        self._check = check
        self.origin = origin
        self._source: str | None = None
        self._loaded = loaded  # None: no code to write (written already, or closures only)
        self._budget = budget  # seconds of checking left before the code is written

    @property
    def generated(self) -> bool:
        """Whether answers now go through the generated code."""
        return self._source is not None

    @property
    def source(self) -> str | None:
        """The generated check's text, written now if it was not yet (None: a validator of
        the closures alone, ``generated=False``)."""
        self._generate()
        return self._source

    def _generate(self) -> None:
        loaded, self._loaded = self._loaded, None
        if loaded is not None:
            compiler = _Compiler(loaded, planning=True)

            def write() -> tuple[Check, str]:
                _, root = compiler.compiled(loaded.contents, loaded.resolver, "#")
                assert compiler.plans is not None  # (a planning compiler keeps them)
                return generate(compiler.plans, root, _key)

            with collector_paused():
                self._check, self._source = _with_room(loaded.contents, write)

    def check(self, value: JsonValue) -> Conformance:
        """``value`` (plain JSON, as the door gives it) against the schema."""
        found: Found = []
        if self._loaded is None:
            self._run(value, found)
        else:  # the closures, timed (this thread's CPU: not a wait) until the budget is spent
            start = thread_time()
            self._run(value, found)
            self._budget -= thread_time() - start
            if self._budget <= 0:
                self._generate()
        if not found:
            return VALID
        return Conformance(
            tuple(_violation(place, keyword) for place, keyword in found[:LISTED]), len(found)
        )

    def _run(self, value: JsonValue, found: Found) -> None:
        """The check, in the caller's stack; again with room for its depth where that is too
        shallow (a value as deep as the door reads, given to the validator directly)."""
        try:
            self._check(value, None, found)
            return
        except RecursionError:
            found.clear()
        depth = nesting(value, MAX_DEPTH)
        if depth > MAX_DEPTH:
            raise ParseError(f"the answer nests more than {MAX_DEPTH:,} levels") from None
        try:
            call_with_depth(max(depth, SHALLOW + 1), self._check, value, None, found)
        except RecursionError:  # (a value holding itself is refused at the door)
            raise ParseError("the answer is too deep to check against its schema") from None


def _violation(place: Place, keyword: str) -> Violation:
    steps = []
    while place is not None:
        place, step = place
        steps.append(step)
    path = field_path = ""
    for step in reversed(steps):
        if isinstance(step, int):  # (an index; a key is a str)
            path, field_path = index_segment(path, step), index_segment(field_path, None)
        else:
            path, field_path = key_segment(path, step), key_segment(field_path, step)
    return Violation(path or "$", field_path or "$", keyword)


_VALIDATORS: dict[int, tuple[Mapping[str, JsonValue], Validator]] = {}
_CACHE_LIMIT = 256
# What writing a schema's code costs against compiling its closures: compiling them again
# with the plans, then writing and compiling the text (7.7 to 8.5 times the compiling, best
# of 3 in CPU time, on schemas of 5,000 to 20,000 integer properties: docs/performance.md).
WRITE_COST = 8.0
# Past this many nodes a schema is checked by its closures alone: writing a wide schema's
# code takes gigabytes (2.9 GB at 60,000 properties) and longer than the answers it would
# serve, so a wide schema from a file never pays for it.
MAX_WRITTEN_NODES = 10_000
# False: every schema is checked by its closures alone, never by written code (the switch of
# this fast path: docs/architecture.md, "Fast paths").
SPECIALISE = True


def validator_for(source: object, *, generated: bool = True) -> Validator:
    """The compiled check of a schema (a mapping, a file, a pydantic model class, or a
    :class:`LoadedSchema`), compiled once per schema document into closures; the validator
    writes its check out as Python once the schema has been used enough (:class:`Validator`).
    ``generated=False`` gives the closures alone, uncached (the reference the tests hold the
    generated code to)."""
    loaded = load_schema(source)
    generated = generated and SPECIALISE
    cached = _VALIDATORS.get(id(loaded.contents))
    if generated and cached is not None and cached[0] is loaded.contents:
        return cached[1]
    compiler = _Compiler(loaded)
    start = perf_counter()  # (wall time: a deep schema is compiled in a thread of its own)
    with collector_paused():  # a node makes a few small objects, all kept: nothing to collect
        check = _with_room(
            loaded.contents, lambda: compiler.node(loaded.contents, loaded.resolver, "#")
        )
    if not generated:
        return Validator(check, loaded.origin)
    if len(compiler.done) > MAX_WRITTEN_NODES:  # its code would cost more than it saves
        validator = Validator(check, loaded.origin)
    else:
        validator = Validator(
            check, loaded.origin, loaded, budget=WRITE_COST * (perf_counter() - start)
        )
    if len(_VALIDATORS) >= _CACHE_LIMIT:
        _VALIDATORS.clear()
    _VALIDATORS[id(loaded.contents)] = (loaded.contents, validator)  # holds the document
    return validator


# -- compiling ----------------------------------------------------------------------------------


def _accept(value: JsonValue, place: Place, found: Found) -> None:
    return None


def _refuse(value: JsonValue, place: Place, found: Found) -> None:
    found.append((place, "false"))


def _called(check: Check) -> tuple[Check, Step]:
    """A keyword the generated code calls as its closure."""
    return check, ("call", check)


def _passes(check: Check, value: JsonValue, place: Place) -> bool:
    found: Found = []
    check(value, place, found)
    return not found


def _kind_check(check: Callable[[T, Place, Found], None]) -> Check:
    """A check of one kind of value: ``_joined`` (and the generated code) calls it only on
    that kind, chosen by the value's Python type (an object's on a dict, an array's on a
    list, a string's on a str, a number's on an int or a float)."""
    return cast(Check, check)


_NUMBER_TYPES = (int, float)
_TYPES: dict[str, tuple[type, ...]] = {
    "null": (type(None),),
    "boolean": (bool,),
    "integer": (int,),
    "number": (int, float),
    "string": (str,),
    "array": (list,),
    "object": (dict,),
}


class _Compiler:
    def __init__(self, loaded: LoadedSchema, planning: bool = False) -> None:
        self.origin = "the schema" if loaded.origin == "schema" else f"schema {loaded.origin}"
        self.done: dict[tuple[int, str], Check] = {}
        self.keep: list[object] = []  # every node compiled, so that no id in ``done`` is reused
        # (planning) each node's keywords as conformance_code.py writes them, under the key
        # of ``done``
        self.plans: dict[NodeKey, NodePlan] | None = (
            {_TRUE: NodePlan(), _FALSE: NodePlan(refuse=True)} if planning else None
        )

    def fail(self, where: str, keyword: str, why: str) -> SchemaError:
        return SchemaError(
            f"{self.origin}: node {where}: {keyword} {why} (the "
            f"conformance check cannot compile it)"
        )

    def node(self, raw: object, resolver: SchemaResolver, where: str) -> Check:
        return self.compiled(raw, resolver, where)[0]

    def compiled(self, raw: object, resolver: SchemaResolver, where: str) -> tuple[Check, NodeKey]:
        """A node's check, and the key its plan is kept under in ``plans``."""
        if raw is True:
            return _accept, _TRUE
        if raw is False:
            return _refuse, _FALSE
        if not isinstance(raw, Mapping):
            raise SchemaError(
                f"{self.origin}: node {where} must be a mapping, true or false, "
                f"not {type(raw).__name__}"
            )
        resolver = self.enter(raw, resolver)
        key = (id(raw), str(getattr(resolver, "_base_uri", "")))
        done = self.done.get(key)
        if done is not None:
            return done, key
        cell: list[Check] = []

        def ahead(value: JsonValue, place: Place, found: Found) -> None:  # a cycle, closed below
            cell[0](value, place, found)

        self.done[key] = ahead
        self.keep.append(raw)
        check, plan = self.compile(raw, resolver, where)
        if self.plans is not None and plan is not None:
            self.plans[key] = plan
        cell.append(check)
        self.done[key] = check
        return check, key

    def enter(self, raw: Mapping[str, JsonValue], resolver: SchemaResolver) -> SchemaResolver:
        if isinstance(raw.get("$id"), str):
            from .loading import _resource

            try:
                return resolver.in_subresource(_resource(raw))
            except SchemaError:
                raise
            except Exception:  # noqa: BLE001 - as loading.py: the base stays as it is
                return resolver
        return resolver

    def compile(
        self, raw: Mapping[str, JsonValue], resolver: SchemaResolver, where: str
    ) -> tuple[Check, NodePlan | None]:
        """A node's check (closures) and, when planning, its plan (for the generated code):
        the same keywords in the same order, made as (check, step) pairs."""
        for keyword in UNSUPPORTED:
            if keyword in raw:
                raise self.fail(where, keyword, "is not supported")
        general: list[tuple[Check, Step]] = []
        by_kind: dict[str, list[tuple[Check, Step]]] = {
            "object": [],
            "array": [],
            "string": [],
            "number": [],
        }
        if "$ref" in raw:
            general.append(self.ref(raw["$ref"], resolver, where))
        if raw.get("nullable") is True and "type" in raw:  # OpenAPI's, as loading.py reads it
            kinds = raw["type"] if isinstance(raw["type"], list) else [raw["type"]]
            raw = {**raw, "type": [*kinds, "null"]}
        surely: frozenset[type] = frozenset()  # the Python types ``type`` surely allows
        type_check = None
        if "type" in raw:
            type_check, surely, step = _type(self, raw["type"], where)
            general.append((type_check, step))
        for keyword, make in _GENERAL.items():
            if keyword in raw:
                general.append(make(self, raw[keyword], resolver, where))
        if "if" in raw:
            general.append(_called(self.conditional(raw, resolver, where)))
        self.objects(raw, resolver, where, by_kind["object"])
        self.arrays(raw, resolver, where, by_kind["array"])
        for keyword, (kind, make_simple) in _SIMPLE.items():
            if keyword in raw:
                by_kind[kind].append(make_simple(self, raw[keyword], where))
        plan = (
            None
            if self.plans is None
            else NodePlan(
                [step for _, step in general],
                {kind: [step for _, step in pairs] for kind, pairs in by_kind.items()},
                surely,
            )
        )
        return _joined(general, by_kind, surely, type_check), plan

    # -- applicators and general keywords --

    def ref(self, ref: JsonValue, resolver: SchemaResolver, where: str) -> tuple[Check, Step]:
        if not isinstance(ref, str):
            raise self.fail(where, "$ref", f"must be a string, not {shown(ref)}")
        from referencing.exceptions import Unresolvable

        try:
            resolved = resolver.lookup(ref)
        except SchemaError as exc:
            raise self.fail(where, "$ref", f"{ref!r}: {exc}") from None
        except Unresolvable:
            raise self.fail(where, "$ref", f"{ref!r} cannot be resolved") from None
        except Exception as exc:  # noqa: BLE001 - the library crawls the document first
            raise self.fail(
                where, "$ref", f"{ref!r} cannot be resolved ({type(exc).__name__})"
            ) from None
        check, key = self.compiled(resolved.contents, resolved.resolver, f"{where}/$ref")
        return check, ("ref", key)

    def branches(
        self, value: JsonValue, resolver: SchemaResolver, where: str, keyword: str
    ) -> list[Check]:
        if not isinstance(value, list) or not value:
            raise self.fail(where, keyword, "must be a non-empty list of schemas")
        return [
            self.node(branch, resolver, f"{where}/{keyword}/{i}") for i, branch in enumerate(value)
        ]

    def conditional(
        self, raw: Mapping[str, JsonValue], resolver: SchemaResolver, where: str
    ) -> Check:
        test = self.node(raw["if"], resolver, f"{where}/if")
        then = self.node(raw.get("then", True), resolver, f"{where}/then")
        other = self.node(raw.get("else", True), resolver, f"{where}/else")

        def check(value: JsonValue, place: Place, found: Found) -> None:
            (then if _passes(test, value, place) else other)(value, place, found)

        return check

    # -- objects --

    def objects(
        self,
        raw: Mapping[str, JsonValue],
        resolver: SchemaResolver,
        where: str,
        out: list[tuple[Check, Step]],
    ) -> None:
        self.properties(raw, resolver, where, out)
        self.dependents(raw, resolver, where, out)
        if "propertyNames" in raw:
            out.append(
                _called(
                    _property_names(
                        self.node(raw["propertyNames"], resolver, f"{where}/propertyNames")
                    )
                )
            )

    def properties(
        self,
        raw: Mapping[str, JsonValue],
        resolver: SchemaResolver,
        where: str,
        out: list[tuple[Check, Step]],
    ) -> None:
        """The check of an object's members (properties, patternProperties,
        additionalProperties, required), a step of its own where only named properties
        are."""
        named = self.mapping_of_schemas(raw.get("properties"), resolver, where, "properties")
        patterns = [
            (self.regex(p, where, "patternProperties"), check)
            for p, (check, _) in self.mapping_of_schemas(
                raw.get("patternProperties"), resolver, where, "patternProperties"
            ).items()
        ]
        extra = raw.get("additionalProperties")
        other = (
            None
            if extra is None or isinstance(extra, bool)
            else self.node(extra, resolver, f"{where}/additionalProperties")
        )
        required = self.names(raw.get("required", []), where, "required")
        if named or patterns or other is not None or required:
            check = _properties(
                {name: c for name, (c, _) in named.items()},
                patterns,
                other,
                extra is False,
                required,
            )
            out.append(
                (
                    check,
                    (
                        "properties",
                        {name: key for name, (_, key) in named.items()},
                        extra is False,
                        required,
                    ),
                )
                if not patterns and other is None
                else _called(check)
            )

    def dependents(
        self,
        raw: Mapping[str, JsonValue],
        resolver: SchemaResolver,
        where: str,
        out: list[tuple[Check, Step]],
    ) -> None:
        """The checks of what a present property asks for: other properties
        (dependentRequired, or a list under draft-7's dependencies) or a schema the whole
        object meets (dependentSchemas, or a schema under dependencies)."""
        dependencies = raw.get("dependencies", {})
        if not isinstance(dependencies, Mapping):
            raise self.fail(where, "dependencies", "must be a mapping")
        needs: dict[str, JsonValue] = {k: v for k, v in dependencies.items() if isinstance(v, list)}
        if not isinstance(raw.get("dependentRequired", {}), Mapping):
            raise self.fail(where, "dependentRequired", "must be a mapping")
        needs.update(cast(JsonObject, raw.get("dependentRequired", {})))  # (checked above)
        if needs:
            out.append(
                _called(
                    _dependent_required(
                        {k: self.names(v, where, "dependentRequired") for k, v in needs.items()}
                    )
                )
            )
        schemas: dict[str, JsonValue] = {
            k: v for k, v in dependencies.items() if not isinstance(v, list)
        }
        if "dependentSchemas" in raw:
            if not isinstance(raw["dependentSchemas"], Mapping):
                raise self.fail(where, "dependentSchemas", "must be a mapping")
            schemas.update(raw["dependentSchemas"])
        if schemas:
            out.append(
                _called(
                    _dependent_schemas(
                        {
                            k: self.node(v, resolver, f"{where}/dependentSchemas/{k}")
                            for k, v in schemas.items()
                        }
                    )
                )
            )

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

    # -- arrays --

    def arrays(
        self,
        raw: Mapping[str, JsonValue],
        resolver: SchemaResolver,
        where: str,
        out: list[tuple[Check, Step]],
    ) -> None:
        items = raw.get("items")
        prefix: JsonValue
        if isinstance(items, list):  # drafts 4-7: positional items, then additionalItems
            prefix, rest = items, raw.get("additionalItems")
        else:
            prefix, rest = raw.get("prefixItems", []), items
        if not isinstance(prefix, list):
            raise self.fail(where, "prefixItems", "must be a list of schemas")
        firsts = [self.node(p, resolver, f"{where}/prefixItems/{i}") for i, p in enumerate(prefix)]
        others = (
            None
            if rest is None or rest is True
            else self.compiled(rest, resolver, f"{where}/items")
        )
        if firsts or others is not None:
            check = _items(firsts, None if others is None else others[0])
            out.append(
                (check, ("items", others[1]))
                if not firsts and others is not None
                else _called(check)
            )
        if "contains" in raw:
            least = self.count(raw.get("minContains", 1), where, "minContains")
            most = (
                self.count(raw["maxContains"], where, "maxContains")
                if "maxContains" in raw
                else None
            )
            out.append(
                _called(
                    _contains(
                        self.node(raw["contains"], resolver, f"{where}/contains"), least, most
                    )
                )
            )

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


def _joined(
    general: list[tuple[Check, Step]],
    by_kind: dict[str, list[tuple[Check, Step]]],
    surely: frozenset[type],
    type_check: Check | None,
) -> Check:
    """One node's check: its general keywords, then those of the answer's type, planned per
    Python type once (the ``type`` check left out where the type surely passes it)."""
    checks = [c for c, _ in general]
    kinds = {kind: [c for c, _ in pairs] for kind, pairs in by_kind.items() if pairs}
    plan: dict[type, tuple[Check, ...]] = {}
    for python_type, kind in KIND_OF.items():
        plan[python_type] = tuple(
            [c for c in checks if not (c is type_check and python_type in surely)]
            + kinds.get(kind, [])
        )
    other = tuple(checks)  # a value the door left unread (an ignored field): every check
    if not kinds and len(other) <= 1:  # ``type`` alone, a reference alone
        return other[0] if other else _accept

    def check(value: JsonValue, place: Place, found: Found) -> None:
        for one in plan.get(type(value), other):
            one(value, place, found)

    return check


# A general keyword's check and step, made from its value (``_GENERAL``); a kind's keyword's
# (``_SIMPLE``), which reads no reference.
_General: TypeAlias = "Callable[[_Compiler, JsonValue, SchemaResolver, str], tuple[Check, Step]]"
_Simple: TypeAlias = Callable[["_Compiler", JsonValue, str], tuple[Check, Step]]


# -- the keywords' checks -------------------------------------------------------------------------


def _type(compiler: _Compiler, value: JsonValue, where: str) -> tuple[Check, frozenset[type], Step]:
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


def _key(value: JsonValue) -> object:
    """The key under which JSON-equal values coincide (canonical_key's, a scalar's at once)."""
    tag = SCALAR_TAGS.get(type(value))
    if tag is not None:
        return tag, value
    try:
        return canonical_key(value)
    except (JsonMatchError, TypeError, RecursionError):  # a field ``ignore`` left unread
        return object()


def _enum(
    compiler: _Compiler, value: JsonValue, resolver: SchemaResolver, where: str
) -> tuple[Check, Step]:
    if not isinstance(value, list):
        raise compiler.fail(where, "enum", "must be a list")
    keys = frozenset(_key(v) for v in value)

    def check(v: JsonValue, place: Place, found: Found) -> None:
        if _key(v) not in keys:
            found.append((place, "enum"))

    return check, ("enum", keys)


def _const(
    compiler: _Compiler, value: JsonValue, resolver: SchemaResolver, where: str
) -> tuple[Check, Step]:
    key = _key(value)

    def check(v: JsonValue, place: Place, found: Found) -> None:
        if _key(v) != key:
            found.append((place, "const"))

    return check, ("const", key)


def _all_of(
    compiler: _Compiler, value: JsonValue, resolver: SchemaResolver, where: str
) -> tuple[Check, Step]:
    parts = tuple(compiler.branches(value, resolver, where, "allOf"))

    def check(v: JsonValue, place: Place, found: Found) -> None:
        for part in parts:
            part(v, place, found)

    return _called(check)


def _any_or_one(keyword: str) -> _General:
    def make(
        compiler: _Compiler, value: JsonValue, resolver: SchemaResolver, where: str
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

        return _called(check)

    return make


def _not(
    compiler: _Compiler, value: JsonValue, resolver: SchemaResolver, where: str
) -> tuple[Check, Step]:
    inner = compiler.node(value, resolver, f"{where}/not")

    def check(v: JsonValue, place: Place, found: Found) -> None:
        if _passes(inner, v, place):
            found.append((place, "not"))

    return _called(check)


_GENERAL: dict[str, _General] = {
    "enum": _enum,
    "const": _const,
    "allOf": _all_of,
    "anyOf": _any_or_one("anyOf"),
    "oneOf": _any_or_one("oneOf"),
    "not": _not,
}


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


def _property_names(schema: Check) -> Check:
    def check(v: JsonObject, place: Place, found: Found) -> None:
        for key in v:
            if not _passes(schema, key, (place, key)):
                found.append(((place, key), "propertyNames"))

    return _kind_check(check)


def _items(firsts: list[Check], others: Check | None) -> Check:
    count = len(firsts)

    def check(v: JsonArray, place: Place, found: Found) -> None:
        for index, (schema, element) in enumerate(zip(firsts, v)):
            schema(element, (place, index), found)
        if others is not None:
            for index in range(count, len(v)):
                others(v[index], (place, index), found)

    return _kind_check(check)


def _contains(schema: Check, least: int, most: int | None) -> Check:
    def check(v: JsonArray, place: Place, found: Found) -> None:
        hits = sum(_passes(schema, element, (place, i)) for i, element in enumerate(v))
        if hits < least:
            found.append((place, "contains" if least == 1 and hits == 0 else "minContains"))
        elif most is not None and hits > most:
            found.append((place, "maxContains"))

    return _kind_check(check)


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

    def make(compiler: _Compiler, value: JsonValue, where: str) -> tuple[Check, Step]:
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


def _multiple_of(compiler: _Compiler, value: JsonValue, where: str) -> tuple[Check, Step]:
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

    return _called(_kind_check(check))


def _decimal(number: int | float) -> Decimal:
    """A number as it is written: an int exactly, a float by its shortest repr (0.1)."""
    return Decimal(number) if type(number) is int else Decimal(repr(number))


def _digits(number: Decimal) -> int:
    """How many digits a decimal spans, from its largest to its smallest."""
    sign, digits, exponent = number.as_tuple()
    return len(digits) + abs(int(exponent))


def _pattern(compiler: _Compiler, value: JsonValue, where: str) -> tuple[Check, Step]:
    regex = compiler.regex(value, where, "pattern")

    def check(v: str, place: Place, found: Found) -> None:
        if regex.search(v) is None:
            found.append((place, "pattern"))

    return _kind_check(check), ("pattern", regex)


def _unique(compiler: _Compiler, value: JsonValue, where: str) -> tuple[Check, Step]:
    if not isinstance(value, bool):
        raise compiler.fail(where, "uniqueItems", f"must be true or false, not {shown(value)}")
    if not value:
        return _called(_accept)

    def check(v: JsonArray, place: Place, found: Found) -> None:
        keys = [_key(element) for element in v]
        if len(set(keys)) < len(keys):
            found.append((place, "uniqueItems"))

    return _called(_kind_check(check))


_SIMPLE: dict[str, tuple[str, _Simple]] = {
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
