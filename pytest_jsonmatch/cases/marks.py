"""A case file's ``marks``, read and checked as plain data (the pytest layer turns each
:class:`MarkSpec` into a pytest mark).

``marks`` takes a name, a list of names, or mappings from a name to its arguments. pytest's
own marks that act on a test get their arguments checked, because pytest would otherwise
run some of them as code: a string condition of ``skipif``/``xfail`` is evaluated as Python,
and a ``filterwarnings`` category names a module to import. Marks of other names are
labels; their arguments pass through as data.

``xfail`` may name what it expects to fail instead of the whole case: ``fields: [PATTERN,
...]`` (a field's path, or a call's argument as its metric names it, patterns allowed). Such
a case runs as any other and is not handed to pytest's xfail: :func:`field_xfail` says
whether it failed only at the fields named (an expected failure), or at another too (a real
one), so that the fields not named still gate.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import NamedTuple

from ..engine.core.errors import ConfigError
from ..engine.core.paths import PathPattern
from ..engine.results.field_results import MATCH, SKIPPED, MatchResult


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
        if name == "xfail" and "fields" in kwargs and (args or "condition" in kwargs):
            raise MarkError(
                "mark 'xfail': fields= names what fails; it takes no condition (the case "
                "runs, and the fields it names are expected to fail)"
            )
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
            "fields": (
                "a field path or a list of them (patterns allowed: items[].sku, **.date)",
                lambda v: _field_patterns(v) is not None,
            ),
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


def _field_patterns(value: object) -> tuple[PathPattern, ...] | None:
    """``fields=`` of an xfail mark as path patterns (None: not one path or a list of them)."""
    texts = [value] if isinstance(value, str) else value
    if not isinstance(texts, list) or not texts:
        return None
    try:
        return tuple(PathPattern(text) for text in texts if isinstance(text, str) and text)
    except ConfigError:
        return None


class FieldsExpectedToFail(NamedTuple):
    """An ``xfail`` mark that names the fields expected to fail."""

    patterns: tuple[PathPattern, ...]
    reason: str = ""
    strict: bool = False

    def covers(self, path: str) -> bool:
        return any(pattern.matches(path) for pattern in self.patterns)

    @property
    def named(self) -> str:
        return ", ".join(pattern.text for pattern in self.patterns)


def fields_expected_to_fail(marks: Iterable[MarkSpec]) -> FieldsExpectedToFail | None:
    """The case's xfail mark that names fields (None: none does)."""
    for spec in marks:
        if spec.name == "xfail" and "fields" in spec.kwargs:
            patterns = _field_patterns(spec.kwargs["fields"]) or ()
            reason = spec.kwargs.get("reason", "")
            return FieldsExpectedToFail(
                patterns,
                reason if isinstance(reason, str) else "",
                spec.kwargs.get("strict") is True,
            )
    return None


def pytest_marks(marks: Iterable[MarkSpec]) -> tuple[MarkSpec, ...]:
    """The marks pytest is given: all but an xfail that names fields (the case decides it)."""
    return tuple(spec for spec in marks if not (spec.name == "xfail" and "fields" in spec.kwargs))


def field_xfail(
    expected: FieldsExpectedToFail, passed: bool, results: Iterable[MatchResult]
) -> tuple[str, str]:
    """What an xfail naming fields makes of a case's outcome, from whether it passed and its
    runs' results (the fields neither matched nor skipped fail): ``("xfail", why)`` when it
    failed at named fields only; ``("fail", why)`` when it also failed at a field not named
    (why names both), or, under ``strict``, when no named field failed; ``("", "")``
    otherwise (the case's own outcome stands)."""
    failing = (f.path for r in results for f in r.fields if f.status not in (MATCH, SKIPPED))
    paths = list(dict.fromkeys(failing))
    named = [path for path in paths if expected.covers(path)]
    others = [path for path in paths if not expected.covers(path)]
    because = f" ({expected.reason})" if expected.reason else ""
    if not passed and named and not others:
        return "xfail", f"expected to fail at {', '.join(named)}{because}"
    if not passed and others:
        known = f"; expected to fail at {', '.join(named)}" if named else ""
        return "fail", f"failing at {', '.join(others)}, which xfail does not name{known}"
    if not named and expected.strict:
        return "fail", (
            f"xfail(strict) expected {expected.named} to fail{because}, and none of them did"
        )
    return "", ""
