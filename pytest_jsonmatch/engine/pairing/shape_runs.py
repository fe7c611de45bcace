"""The elements of one side that repeat the shape before them, checked by code written per
element shape (``flat_similarity._checked_side``'s fast path).

``_checked_side`` reads each element of an array of flat objects for the door and for its
shape: the tuple of its keys, each key's type checked, the tuple of its values' types, and
its finite floats. Where the elements of a side share one shape, as a dataset's do, every
element after the first only confirms what the first found, and building those tuples
costs most of the pass. Here a shape (its keys in order, its values' exact types) is
written out once as a small function that takes such elements in straight-line code: an
exact ``dict`` of as many keys, each key the shape's very key object (else an exact ``str``
equal to it), each value of the shape's exact type, each float finite. Each element it
takes is one ``_checked_side`` would pass with that shape, so the caller gives it the
shape's number of fields, as the general loop does; at the first element it does not take,
it stops, and the general loop reads that element (which may be of another shape, or one the
door refuses). So the shapes and sizes are the general loop's, to the bit.

The code text depends only on the shape's structure (how many keys, which values are
floats); the keys and types are its constants (printable: ``run_source``). A shape is
asked for where a side repeats it with elements left after the repeat, and its code is
written the ``WRITE_AT``-th time: a one-off array's shape never pays for it, nor a side too
short for a run to take anything. The last run handed out is tried first on every side.
``SHAPE_RUNS = False`` turns this off (the differential tests compare both).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

# The switch of this fast path (docs/architecture.md, "Fast paths"): False reads every
# element by _checked_side's general loop.
SHAPE_RUNS = True

WRITE_AT = 4  # a shape's code is written the WRITE_AT-th time it is met
MAX_SHAPES = 256  # shapes kept (counted or written); past them the table starts again

# ``run(elements, i)``: the index of the first element from index ``i`` on that does not
# have the shape (or the end): the elements before it, from ``i``, are the shape's
Run = Callable[[Sequence[object], int], int]
# By shape (keys, types): its run, or how many times it was met before it is written
_KEPT: dict[object, Run | int] = {}
# What the last run handed out is: the run, its shape, its size and the keys of its floats
# (``_checked_side`` tries it first on a side: a dataset's arrays repeat one shape). One
# slot, replaced whole: a run takes only elements of its own shape, whichever it is.
Last = tuple[Run, tuple[tuple[Any, ...], tuple[type, ...]], int, tuple[object, ...]]
last: Last | None = None
_FACTORIES: dict[tuple[int, tuple[int, ...]], Callable[..., Run]] = {}


def run_of(
    keys: tuple[Any, ...], types: tuple[type, ...], size: int, floats: Sequence[object]
) -> Run | None:
    """The run of the shape ``(keys, types)`` with ``size`` fields an element and floats
    under ``floats`` (the keys exact strs and the types plain scalar types, as
    ``_checked_side`` found them), where its code is written (counting this sighting; the
    run then ``last``); else None."""
    global last
    if not SHAPE_RUNS or not keys:
        return None
    shape = (keys, types)
    found = _KEPT.get(shape)
    if found is not None and type(found) is not int:
        last = found, shape, size, tuple(floats)  # type: ignore[assignment]
        return found  # type: ignore[return-value]
    met = 1 if found is None else found + 1
    if found is None and len(_KEPT) >= MAX_SHAPES:
        _KEPT.clear()
    if met < WRITE_AT:
        _KEPT[shape] = met
        return None
    made = _made(keys, types)
    _KEPT[shape] = made
    last = made, shape, size, tuple(floats)
    return made


def _made(keys: tuple[Any, ...], types: tuple[type, ...]) -> Run:
    """The run of a shape: its structure's factory (written once) given its constants."""
    floats = tuple(c for c, kind in enumerate(types) if kind is float)
    form = (len(keys), floats)
    factory = _FACTORIES.get(form)
    if factory is None:
        if len(_FACTORIES) >= MAX_SHAPES:
            _FACTORIES.clear()
        namespace: dict[str, Any] = {}
        # our own text, made from the structure alone: no value of the data is in it
        exec(compile(run_source(*form), "<jsonmatch shape runs>", "exec"), namespace)  # noqa: S102
        factory = _FACTORIES[form] = namespace["factory"]
    return factory(keys, types)


def run_source(n: int, floats: tuple[int, ...]) -> str:
    """The text of the factory of a shape of ``n`` keys (at least one) whose values at the
    positions ``floats`` are floats: ``factory(keys, types)`` gives the run."""
    ks = ", ".join(f"k{c}" for c in range(n))
    key_checks = " or ".join(
        f"(k{c} is not K{c} and (type(k{c}) is not str or k{c} != K{c}))" for c in range(n)
    )
    type_checks = " or ".join(
        f"type(v{c}) is not T{c}" if c in floats else f"type(element[k{c}]) is not T{c}"
        for c in range(n)
    )
    lines = [
        "def factory(keys, types):",
        f"    {', '.join(f'K{c}' for c in range(n))}, = keys",
        f"    {', '.join(f'T{c}' for c in range(n))}, = types",
        "",
        "    def run(elements, i):",
        "        for element in elements[i:] if i else elements:",
        f"            if type(element) is not dict or len(element) != {n}:",
        "                return i",
        f"            {ks}, = element",
        f"            if {key_checks}:",
        "                return i",
        *(f"            v{c} = element[k{c}]" for c in floats),
        f"            if {type_checks}:",
        "                return i",
    ]
    if floats:  # (not finite: the general loop reads the element, and the door names it)
        finite = " or ".join(f"v{c} - v{c} != 0.0" for c in floats)
        lines += [f"            if {finite}:", "                return i"]
    lines += ["            i += 1", "        return i", "", "    return run", ""]
    return "\n".join(lines)
