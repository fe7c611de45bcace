"""Whether a gold record would change the schema a sketch infers: a test made per sketch.

``jsonmatch score`` without ``--schema`` guesses the schema from its first chunk's gold
records and confirms the guess as every chunk comes back (cli/score.py). Sketching each
gold record for that costs a visit of every field; but a record changes the inferred schema
only in three ways, all of them about containers and nulls:

- it gives an object a key that the guessed sketch's object at that path lacks;
- it holds a value that is not null at a path where every record so far held null;
- it holds a non-empty array where every array so far was empty.

Anything else leaves the schema as it is: the first value that is not null decides a
path's type for good, so whatever comes after a scalar there (another scalar, an object,
an array) is never read by the schema again, and a value of another kind than the one that
decided an object's or an array's path is kept apart by the sketch (``sketch._Mixed``)
and never read either. A record that *fits* the sketch, that does none of the three, can
be left unsketched: the guessed sketch merged with every record that does not fit infers
the schema of all of them (tests/dataset/test_fitting.py checks this against
``infer_schema``).

:func:`fits` says it for one record by walking the sketch's prototype. :func:`fitting` makes
the same test as straight-line Python for one prototype, generated once per chunk as source
text and compiled (as the engine's scorers are, engine/walking/generated_scorers.py): it visits
only the objects and arrays, checks an object's keys with one set comparison, and reads no
scalar at all where an earlier scalar decided the type. Print it with :func:`fitting_source`.
Deeper than ``GENERATED_DEPTH`` containers, the generated test hands the rest of the value
to :func:`fits`.

A test is generated only for a chunk of at least ``GENERATE_FROM`` records: compiling one
for an invoice takes about 0.4 ms, and the first compile of a process also builds the
parser's tree types (about 3 ms), while the generated test saves about 13 us a record over
:func:`fits`; a smaller chunk (a run of a few records) gets :func:`fits` itself.

Generating has a budget, since a gold line chooses the prototype's shape: compiling grows
faster than the text (0.18 s at 1,000 keys, 1.2 s at 4,000, 23 s at 40,000), so a prototype
that would name more than ``MAX_CONSTANTS`` constants, or any prototype once the process has
spent ``COMPILE_BUDGET`` seconds compiling tests, gets :func:`fits` itself: the same answer,
without the code.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from time import perf_counter
from typing import Any

from .sketch import ARRAY, OBJECT, UNSET, SchemaSketch, shape_parts

GENERATED_DEPTH = 12  # containers nested in the generated text; deeper: fits()
MAX_FACTORIES = 64  # compiled structures kept for the process
_FACTORIES: dict[str, Callable[..., Callable[[Any], bool]]] = {}  # by source text
MAX_CONSTANTS = 1_000  # keys, key sets and shapes a generated test may name
COMPILE_BUDGET = 1.0  # seconds of compiling tests a process may spend
SPECIALISE = True  # False: no test is made, and every gold record is sketched
GENERATE_FROM = 32  # records a chunk holds, at least, for a test to be generated for it
_spent = [0.0]  # seconds spent compiling so far


def fits(shape: Any, value: Any) -> bool:
    """Whether ``value`` (a decoded JSON value) adds nothing to the schema inferred from a
    sketch whose prototype at this path is ``shape`` (see the module docstring)."""
    if value is None:
        return True
    kind, obj, arr = shape_parts(shape)
    if kind is OBJECT:
        if type(value) is not dict:  # another kind after an object: never read
            return True
        return value.keys() <= obj.keys() and all(fits(obj[k], v) for k, v in value.items())
    if kind is ARRAY:
        if type(value) is not list or not value:
            return True
        return bool(arr) and all(fits(arr[0], e) for e in value)
    # null so far (or nothing yet): a value decides the type; else a scalar decided it
    return kind is not None and kind is not UNSET


def fitting(sketch: SchemaSketch, records: int | None = None) -> Callable[[Any], bool] | None:
    """The test ``fits(sketch.prototype, record)`` as a function generated for this
    prototype, or None when the sketch has seen no record or ``SPECIALISE`` is off (every
    record adds to it). ``records``: how many records the test is for (None: not known);
    fewer than ``GENERATE_FROM`` get :func:`fits` itself, unless a test for this prototype
    was generated already."""
    if sketch.prototype is UNSET or not SPECIALISE:
        return None
    constants: list[Any] = []
    source = _source(sketch.prototype, constants)
    factory = _FACTORIES.get(source)
    if factory is None:
        few = records is not None and records < GENERATE_FROM
        if few or len(constants) > MAX_CONSTANTS or _spent[0] >= COMPILE_BUDGET:
            return functools.partial(fits, sketch.prototype)  # the general path: no code
        if len(_FACTORIES) >= MAX_FACTORIES:
            _FACTORIES.clear()
        start = perf_counter()
        namespace: dict[str, Any] = {}
        exec(compile(source, "<jsonmatch sketch test>", "exec"), namespace)  # noqa: S102
        factory = _FACTORIES[source] = namespace["make"]
        _spent[0] += perf_counter() - start
    return factory(constants, fits)


def fitting_source(sketch: SchemaSketch) -> str:
    """The text of the test :func:`fitting` generates for this sketch."""
    return _source(sketch.prototype, [])


def _source(prototype: Any, constants: list[Any]) -> str:
    """The source of ``make(constants, fits)``, which returns the test of records against
    ``prototype``; ``constants`` gets what the text names ``c0``, ``c1``, ...: the key sets
    of the objects, the keys read, the shapes handed to ``fits``. A key is never part of
    the text, only its place in ``constants``."""
    body: list[str] = []
    _check(prototype, "r", 2, 0, body, constants, [0])
    names = "".join(f"c{i}, " for i in range(len(constants)))
    return "\n".join(
        [
            "def make(constants, fits):",
            *([f"    ({names}) = constants"] if constants else []),
            "",
            "    def test(r):",
            "        # True when the record adds nothing to the schema the sketch infers",
            *body,
            "        return True",
            "",
            "    return test",
            "",
        ]
    )


def _check(
    shape: Any,
    var: str,
    indent: int,
    depth: int,
    out: list[str],
    constants: list[Any],
    counter: list[int],
) -> None:
    """Lines that return False when the value in ``var`` does not fit ``shape`` (none where
    every value fits: a path decided by a scalar)."""
    pad = "    " * indent

    def constant(value: Any) -> str:
        constants.append(value)
        return f"c{len(constants) - 1}"

    def fresh() -> str:
        counter[0] += 1
        return f"v{counter[0]}"

    kind, obj, arr = shape_parts(shape)
    if kind is not OBJECT and kind is not ARRAY:
        if kind is None or kind is UNSET:  # null so far: any value decides the type
            out.append(f"{pad}if {var} is not None:  # null in every record so far")
            out.append(f"{pad}    return False")
        return  # a scalar decided the type: nothing after it is read
    if depth >= GENERATED_DEPTH:  # the rest of the value by the walk
        out.append(f"{pad}if not fits({constant(shape)}, {var}):")
        out.append(f"{pad}    return False")
        return
    if kind is OBJECT:
        out.append(f"{pad}if type({var}) is dict:")
        out.append(f"{pad}    if not {var}.keys() <= {constant(frozenset(obj))}:  # a new key")
        out.append(f"{pad}        return False")
        for key, child in obj.items():
            inner: list[str] = []
            item = fresh()
            _check(child, item, indent + 1, depth + 1, inner, constants, counter)
            if inner:
                out.append(f"{pad}    {item} = {var}.get({constant(key)})")
                out += inner
        return
    if not arr:
        out.append(f"{pad}if type({var}) is list and {var}:  # every array so far was empty")
        out.append(f"{pad}    return False")
        return
    inner = []
    element = fresh()
    _check(arr[0], element, indent + 2, depth + 1, inner, constants, counter)
    if inner:
        out.append(f"{pad}if type({var}) is list:")
        out.append(f"{pad}    for {element} in {var}:")
        out += inner
