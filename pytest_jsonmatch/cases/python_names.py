"""A Python object a setting or a case file names as ``package.module:NAME``, imported now
from the test session's path (the ini's ``pythonpath`` adds the root): the target a
``jsonmatch_target`` names, the tools a case file's ``tools: agent:TOOLS`` names. Whatever
stops the import (a missing module, a syntax error, an exception its top level raises) is a
CaseFileError naming the setting, the module and where it stands, with no traceback."""

from __future__ import annotations

import importlib
import re
import sysconfig
import traceback
from collections.abc import Callable, Mapping
from pathlib import Path

from ..engine.core.errors import CaseFileError
from ..engine.core.masking import one_line

# package.module:NAME (dotted names on both sides; no spaces, no call)
SPEC = re.compile(r"^[A-Za-z_][\w.]*:[A-Za-z_][\w.]*$")


def imported_object(spec: str, what: str) -> object:
    """The object ``spec`` (``package.module:NAME``) names, its module imported now."""
    module_name, _, attr = spec.partition(":")
    if not module_name.strip() or not attr.strip():
        raise CaseFileError(f"{what} {spec!r} must look like package.module:NAME")
    module = imported_module(module_name.strip(), spec, what)
    found: object = module
    try:
        for part in attr.strip().split("."):
            found = getattr(found, part)
    except AttributeError:
        raise CaseFileError(f"{what} {spec!r}: module {module_name!r} has no {attr!r}") from None
    return found


def imported_module(module_name: str, spec: str, what: str) -> object:
    """``module_name`` imported; what stops it a CaseFileError (see the module docstring)."""
    try:
        return importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        raise CaseFileError(
            f"{what} {spec!r}: cannot import {exc.name!r} (is its folder "
            f"on sys.path? the ini option pythonpath = . adds the root)"
        ) from None
    except SyntaxError as exc:  # IndentationError and TabError too
        where = f"{exc.filename}:{exc.lineno}" if exc.filename else "its source"
        raise CaseFileError(
            f"{what} {spec!r}: module {module_name!r} does not compile: "
            f"{type(exc).__name__}: {exc.msg} ({where})"
        ) from None
    except (Exception, SystemExit) as exc:  # noqa: BLE001 (any error of the user's module is named)
        where = users_frame(exc) or "raised while importing it"
        raise CaseFileError(
            f"{what} {spec!r}: importing module {module_name!r} failed: {one_line(exc)} ({where})"
        ) from None


def with_named_tools(
    options: Mapping[str, object], fail: Callable[[str], CaseFileError]
) -> Mapping[str, object]:
    """``options`` with a ``tools`` value that names a Python object (``agent:TOOLS``)
    replaced by that object, so that a case file takes the tools its agent declares once;
    anything else as it is (the metric checks it). The object must be a list of tool
    documents (OpenAI's, Anthropic's, Gemini's or plain), as ``tools`` is written inline.
    What goes wrong is ``fail``'s error (it says where in the file)."""
    spec = options.get("tools")
    if not isinstance(spec, str) or not SPEC.match(spec):
        return options  # (other text is refused by the metric, as any bad value)
    try:
        found = imported_object(spec, "tools")
    except CaseFileError as exc:
        raise fail(str(exc)) from None
    if not isinstance(found, (list, tuple)):
        raise fail(f"tools {spec!r} names a {type(found).__name__}, not a list of tool documents")
    return {**options, "tools": list(found)}


def _not_users() -> tuple[str, ...]:
    """The folders of code that is not the user's own: the standard library, installed
    packages, this package."""
    paths = sysconfig.get_paths()
    return tuple(
        str(Path(p).resolve())
        for p in (
            paths["stdlib"],
            paths["purelib"],
            paths["platlib"],
            str(Path(__file__).parents[1]),
        )
    )


def users_function(function: object) -> bool:
    """Whether ``function`` is a Python function of the user's own code (not a builtin, nor
    one of the standard library, an installed package or this package): what a case file
    may name to be called (a conversation's user), so that a file cannot have a test run
    any function it picks."""
    import inspect

    if not inspect.isfunction(function):
        return False
    source = inspect.getsourcefile(function) or ""
    return bool(source) and not str(Path(source).resolve()).startswith(_not_users())


def users_frame(exc: BaseException) -> str:
    """Where in the user's own code ``exc`` was raised: the last frame of its traceback
    outside this package, the standard library and installed packages, as ``raised at
    path:line in function``; empty when there is none."""
    skipped = _not_users()
    for frame in reversed(traceback.extract_tb(exc.__traceback__)):
        if frame.filename.startswith("<"):  # <frozen os>, <frozen importlib._bootstrap>
            continue
        if not str(Path(frame.filename).resolve()).startswith(skipped):
            return f"raised at {frame.filename}:{frame.lineno} in {frame.name}"
    return ""
