"""The target: the user's function that makes a golden case's output from its ``input``.

A target is named in the settings as ``package.module:function`` (imported once, when the
session starts) or given by a plugin's hook; the pytest layer combines the two into one
:data:`Target`, which is all the rest of this package sees.
"""

from __future__ import annotations

import importlib
import sysconfig
import traceback
from collections.abc import Callable
from pathlib import Path

from ..engine.core.errors import CaseFileError
from .case_files import GoldenCase

# Runs an awaitable a target returned and gives its result (anything else passes through).
Awaited = Callable[[object], object]
# One call as the runner makes it: called with the function that runs awaitables.
Call = Callable[[Awaited], object]
# Makes one case's output: called with the case and the function that runs awaitables.
Target = Callable[[GoldenCase, Awaited], object]

NO_TARGET = ("this case gives 'input' but no target makes output from it: set ini "
             "jsonmatch_target = package.module:function, or implement the hook "
             "pytest_jsonmatch_target in a conftest.py")


def import_target(spec: str, what: str = "jsonmatch_target") -> Callable[..., object]:
    """The function ``spec`` (``package.module:function``) names, imported now; a
    CaseFileError saying what is wrong otherwise."""
    if not spec:
        raise CaseFileError(NO_TARGET)
    module_name, _, attr = spec.partition(":")
    if not module_name or not attr:
        raise CaseFileError(f"{what} {spec!r} must look like package.module:function")
    try:
        target: object = getattr(importlib.import_module(module_name.strip()), attr.strip())
    except ModuleNotFoundError as exc:
        raise CaseFileError(f"{what} {spec!r}: cannot import {exc.name!r} (is its folder "
                            f"on sys.path? the ini option pythonpath = . adds the root)") from None
    except AttributeError:
        raise CaseFileError(f"{what} {spec!r}: module {module_name!r} has no {attr!r}") from None
    if not callable(target):
        raise CaseFileError(f"{what} {spec!r} is not callable")
    return target


class NamedTarget:
    """The function a setting names, imported now when ``check`` (so that a typo stops the
    session before any case runs, replayed ones too), else on its first call; kept."""

    def __init__(self, spec: str, *, check: bool = False) -> None:
        self.spec = spec
        self._function: Callable[..., object] | None = import_target(spec) if check else None

    def function(self) -> Callable[..., object]:
        if self._function is None:
            self._function = import_target(self.spec)
        return self._function

    def __call__(self, value: object) -> object:
        return self.function()(value)


class HookFirst:
    """The one :data:`Target` of a session: ``hook(case)`` answers first (a plugin's); when
    it answers None, ``named`` makes the output from the case's input. An awaitable either
    returns is run by ``awaited``."""

    def __init__(self, hook: Callable[[GoldenCase], object], named: Callable[[object], object]) -> None:
        self.hook, self.named = hook, named

    def __call__(self, case: GoldenCase, awaited: Awaited) -> object:
        result = awaited(self.hook(case))
        return awaited(self.named(case.input)) if result is None else result


def users_frame(exc: BaseException) -> str:
    """Where in the user's own code ``exc`` was raised: the last frame of its traceback
    outside this package, the standard library and installed packages, as ``raised at
    path:line in function``; empty when there is none."""
    paths = sysconfig.get_paths()
    skipped = tuple(str(Path(p).resolve()) for p in (
        paths["stdlib"], paths["purelib"], paths["platlib"], str(Path(__file__).parents[1])))
    for frame in reversed(traceback.extract_tb(exc.__traceback__)):
        if not str(Path(frame.filename).resolve()).startswith(skipped):
            return f"raised at {frame.filename}:{frame.lineno} in {frame.name}"
    return ""
