"""Schema conformance: whether an answer is valid against its schema, and where it is not.

A schema (JSON Schema draft 2020-12; the draft 4-7 spellings ``definitions``,
``dependencies``, positional ``items`` and ``additionalItems`` are read too) is compiled once
into a graph of small Python functions, one per schema node, each holding its keywords'
constants (a regular expression compiled, a set of allowed types): checking an answer is a
call per value, never a reading of the schema (each keyword's check is made by
:mod:`~pytest_jsonmatch.engine.schemas.conformance_keywords`; here, the graph: a node's
keywords joined, references followed, cycles closed). ``$ref`` is resolved when the schema is
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

from collections.abc import Mapping
from time import perf_counter, thread_time
from typing import TYPE_CHECKING

from ..core.depth import SHALLOW, call_with_depth, nesting
from ..core.errors import ParseError, SchemaError, shown
from ..core.gc_pause import collector_paused
from ..core.paths import index_segment, key_segment
from ..core.values import JsonValue
from ..core.violations import LISTED, VALID, Conformance, Violation
from ..reading.intake import MAX_DEPTH
from .conformance_code import (
    KIND_OF,
    Check,
    Found,
    NodeKey,
    NodePlan,
    Place,
    Step,
    generate,
)
from .conformance_keywords import (
    BY_KIND,
    GENERAL,
    SIMPLE,
    KeywordReader,
    accept,
    called,
    equality_key,
    passes,
    refuse,
    type_keyword,
)
from .eval_schema import _with_room
from .loading import LoadedSchema, load_schema

if TYPE_CHECKING:
    from .loading import SchemaResolver

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
                return generate(compiler.plans, root, equality_key)

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


class _Compiler(KeywordReader):
    def __init__(self, loaded: LoadedSchema, planning: bool = False) -> None:
        self.origin = "the schema" if loaded.origin == "schema" else f"schema {loaded.origin}"
        self.done: dict[tuple[int, str], Check] = {}
        self.keep: list[object] = []  # every node compiled, so that no id in ``done`` is reused
        # (planning) each node's keywords as conformance_code.py writes them, under the key
        # of ``done``
        self.plans: dict[NodeKey, NodePlan] | None = (
            {_TRUE: NodePlan(), _FALSE: NodePlan(refuse=True)} if planning else None
        )

    def compiled(self, raw: object, resolver: SchemaResolver, where: str) -> tuple[Check, NodeKey]:
        """A node's check, and the key its plan is kept under in ``plans``."""
        if raw is True:
            return accept, _TRUE
        if raw is False:
            return refuse, _FALSE
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
            type_check, surely, step = type_keyword(self, raw["type"], where)
            general.append((type_check, step))
        for keyword, make in GENERAL.items():
            if keyword in raw:
                general.append(make(self, raw[keyword], resolver, where))
        if "if" in raw:
            general.append(called(self.conditional(raw, resolver, where)))
        for kind, group in BY_KIND:
            by_kind[kind] += group(self, raw, resolver, where)
        for keyword, (kind, make_simple) in SIMPLE.items():
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

    def conditional(
        self, raw: Mapping[str, JsonValue], resolver: SchemaResolver, where: str
    ) -> Check:
        test = self.node(raw["if"], resolver, f"{where}/if")
        then = self.node(raw.get("then", True), resolver, f"{where}/then")
        other = self.node(raw.get("else", True), resolver, f"{where}/else")

        def check(value: JsonValue, place: Place, found: Found) -> None:
            (then if passes(test, value, place) else other)(value, place, found)

        return check


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
        return other[0] if other else accept

    def check(value: JsonValue, place: Place, found: Found) -> None:
        for one in plan.get(type(value), other):
            one(value, place, found)

    return check
