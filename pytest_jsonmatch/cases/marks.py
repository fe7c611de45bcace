"""A case file's ``marks``, read and checked as plain data (the pytest layer turns each
:class:`MarkSpec` into a pytest mark).

``marks`` takes a name, a list of names, or mappings from a name to its arguments. pytest's
own marks that act on a test get their arguments checked, because pytest would otherwise
run some of them as code: a string condition of ``skipif``/``xfail`` is evaluated as Python,
and a ``filterwarnings`` category names a module to import. Marks of other names are
labels; their arguments pass through as data.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import NamedTuple


class MarkError(ValueError):
    """A ``marks`` entry that cannot be used (the caller adds the file and line)."""


class MarkSpec(NamedTuple):
    """One mark as a case file gives it: its name, positional and keyword arguments."""

    name: str
    args: tuple[object, ...] = ()
    kwargs: Mapping[str, object] = {}


def marks_from(spec: object) -> tuple[MarkSpec, ...]:
    """``[slow, xfail]``, ``{xfail: {reason: ...}}`` or a list mixing both, as mark specs.
    A mapping's value is the mark's keyword arguments (a mapping), its arguments (a list)
    or its one argument. pytest's own marks have their arguments checked (``_BUILTIN_MARKS``)
    so that nothing in a case file runs as code."""
    if spec is None:
        return ()
    items: list[tuple[object, object]] = []
    for entry in spec if isinstance(spec, list) else [spec]:
        if isinstance(entry, Mapping):
            items.extend(entry.items())
        else:
            items.append((entry, None))
    out = []
    for name, value in items:
        args: tuple[object, ...]
        kwargs: dict[str, object]
        if not isinstance(name, str) or not name.isidentifier() or name.startswith("_"):
            raise MarkError(f"marks are names or {{name: arguments}}, not {name!r}")
        if isinstance(value, Mapping):
            args, kwargs = (), {str(k): v for k, v in value.items()}
        elif isinstance(value, list):
            args, kwargs = tuple(value), {}
        else:
            args, kwargs = (() if value is None else (value,)), {}
        if name in _BUILTIN_MARKS:
            problem = _mark_problem(name, args, kwargs)
            if problem:
                raise MarkError(f"mark {name!r}: {problem}")
        out.append(MarkSpec(name, args, kwargs))
    return tuple(out)


# pytest's marks that act on a test, with the arguments a case file may give them: positional
# parameters in order, then the rest by keyword, each with the check its value must pass.
# What is left out is what pytest would run as code: string conditions of skipif/xfail (it
# evaluates them as Python), xfail's raises (an exception class) and a filterwarnings category
# outside the builtins (pytest imports the module it names). Marks of other names (smoke, slow,
# a plugin's) are plain labels and pass their arguments through as data.
_BUILTIN_MARKS: dict[
    str, tuple[tuple[str, ...], dict[str, tuple[str, Callable[[object], bool]]]]
] = {
    "skip": (("reason",), {"reason": ("a string", lambda v: isinstance(v, str))}),
    "skipif": (
        ("condition",),
        {
            "condition": (
                "true or false (pytest would run a string condition as Python)",
                lambda v: isinstance(v, bool),
            ),
            "reason": ("a string", lambda v: isinstance(v, str)),
        },
    ),
    "xfail": (
        ("condition",),
        {
            "condition": (
                "true or false (pytest would run a string condition as Python)",
                lambda v: isinstance(v, bool),
            ),
            "reason": ("a string", lambda v: isinstance(v, str)),
            "strict": ("true or false", lambda v: isinstance(v, bool)),
            "run": ("true or false", lambda v: isinstance(v, bool)),
        },
    ),
    "filterwarnings": ((), {}),  # positional filters only, each checked by _warning_filter_problem
    "usefixtures": ((), {}),  # positional fixture names (the project's own code, named not given)
}


def _mark_problem(name: str, args: tuple[object, ...], kwargs: dict[str, object]) -> str | None:
    """What is wrong with the arguments given to one of pytest's marks, or None."""
    if name in ("filterwarnings", "usefixtures"):
        if kwargs:
            return f"takes strings only, not {', '.join(map(repr, kwargs))}"
        for arg in args:
            if not isinstance(arg, str):
                return f"takes strings, not {arg!r}"
            problem = _warning_filter_problem(arg) if name == "filterwarnings" else None
            if problem:
                return problem
        return None
    positional, checks = _BUILTIN_MARKS[name]
    if len(args) > len(positional):
        return f"takes at most {len(positional)} argument(s) in a list, not {len(args)}"
    given = dict(zip(positional, args))
    for key, value in kwargs.items():
        if key not in checks:
            return f"unknown argument {key!r}; known: {', '.join(checks)}"
        if key in given:
            return f"{key!r} given twice"
        given[key] = value
    for key, value in given.items():
        what, ok = checks[key]
        if not ok(value):
            return f"{key} must be {what}, not {value!r}"
    return None


def _warning_filter_problem(spec: str) -> str | None:
    """A ``filterwarnings`` entry is refused when its category (the third field) is not one of
    Python's builtin warnings: pytest would import the module it names to find the class."""
    import builtins

    fields = spec.split(":")
    category = fields[2].strip() if len(fields) > 2 else ""
    if not category:
        return None
    found = getattr(builtins, category, None)
    if isinstance(found, type) and issubclass(found, Warning):
        return None
    return (
        f"warning category {category!r} is not a builtin warning; a case file may not name "
        f"a module for pytest to import (use a filterwarnings ini entry or conftest.py)"
    )
