"""The target: the user's function that makes a golden case's output from its ``input``.

A target is named in the settings as ``package.module:function`` (imported once, when the
session starts) or given by a plugin's hook; the pytest layer combines the two into one
:data:`Target`, which is all the rest of this package sees.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from ..cases.case_files import GoldenCase
from ..cases.python_names import imported_module
from ..engine.core.errors import CaseFileError, ConfigError, did_you_mean
from ..engine.core.slotted import HashedSlotted
from .call_figures import TargetResult
from .call_settings import CallSettings, parse_calls

# Runs an awaitable a target returned and gives its result (anything else passes through).
Awaited = Callable[[object], object]
# One call as the runner makes it: called with the function that runs awaitables.
Call = Callable[[Awaited], object]
# Makes one case's output: called with the case and the function that runs awaitables.
Target = Callable[[GoldenCase, Awaited], object]

NO_TARGET = (
    "this case gives 'input' but no target makes output from it: set ini "
    "jsonmatch_target = package.module:function, or implement the hook "
    "pytest_jsonmatch_target in a conftest.py"
)


def import_target(spec: str, what: str = "jsonmatch_target") -> Callable[..., object]:
    """The function ``spec`` (``package.module:function``) names, imported now; a
    CaseFileError saying what is wrong otherwise."""
    if not spec:
        raise CaseFileError(
            NO_TARGET
            if what == "jsonmatch_target"
            else f"{what} names no function and pytest_jsonmatch_target did not "
            f"answer for it: write 'NAME = package.module:function' in "
            f"jsonmatch_targets, or answer the hook for this target"
        )
    module_name, _, attr = spec.partition(":")
    if not module_name or not attr:
        raise CaseFileError(f"{what} {spec!r} must look like package.module:function")
    module = imported_module(module_name.strip(), spec, what)
    try:
        target: object = getattr(module, attr.strip())
    except AttributeError:
        raise CaseFileError(f"{what} {spec!r}: module {module_name!r} has no {attr!r}") from None
    if not callable(target):
        raise CaseFileError(f"{what} {spec!r} is not callable")
    return target


class NamedTarget:
    """The function a setting names, imported now when ``check`` (so that a typo stops the
    session before any case runs, replayed ones too), else on its first call; kept."""

    def __init__(self, spec: str, *, check: bool = False, what: str = "jsonmatch_target") -> None:
        self.spec, self.what = spec, what
        self._function: Callable[..., object] | None = import_target(spec, what) if check else None

    def function(self) -> Callable[..., object]:
        if self._function is None:
            self._function = import_target(self.spec, self.what)
        return self._function

    def __call__(self, value: object) -> object:
        return self.function()(value)


class HookFirst:
    """A :data:`Target` of a session (the one, or one of its named targets): ``hook(case,
    target)`` answers first (a plugin's); when it answers None, ``named`` makes the output
    from the case's input. An awaitable either returns is run by ``awaited``."""

    def __init__(
        self,
        hook: Callable[[GoldenCase, str], object],
        named: Callable[[object], object],
        target: str = "",
    ) -> None:
        self.hook, self.named, self.target = hook, named, target

    def __call__(self, case: GoldenCase, awaited: Awaited) -> object:
        result = awaited(self.hook(case, self.target))
        if result is not None:
            return result
        # (the case makes its output: one call, or one a turn of a conversation)
        made = case.scorer.made(self.named, case.input, awaited)
        from ..engine.agents.conversation_driver import Driven  # (with a first call)

        if isinstance(made, Driven):  # a conversation: its turns' costs summed
            return TargetResult(made.run, made.input_tokens, made.output_tokens, made.cost)
        return made


# A target's name: what a test id (``case[name]``) and a recording's file name can hold as is.
TARGET_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}")
_LINE = re.compile(r"\s*(?P<name>[^\s=]+)\s*(?:=\s*(?P<spec>[^\s=]+)(?=\s|$))?(?P<calls>.*)")


class TargetSpec(HashedSlotted):
    """One named target of ``jsonmatch_targets``: the function making its outputs (``spec``,
    ``package.module:function``; empty when the hook serves it) and how it is called (the
    session's call settings with the line's own keys over them). (HashedSlotted, not a
    dataclass: made when the golden session starts; hashable, as the frozen dataclass was.)"""

    __slots__ = ("name", "spec", "calls")

    name: str
    spec: str
    calls: CallSettings

    def __init__(self, *, name: str, spec: str, calls: CallSettings) -> None:
        self.name, self.spec, self.calls = name, spec, calls

    @property
    def setting(self) -> str:
        """Where the target is set, as a message names it."""
        return f"jsonmatch_targets: target {self.name!r}" if self.name else "jsonmatch_target"


def parse_targets(
    lines: Sequence[str], calls_parts: Sequence[tuple[str, str]], what: str = "jsonmatch_targets"
) -> tuple[TargetSpec, ...]:
    """The targets declared one a line, ``NAME = package.module:function [KEY=VALUE ...]``
    (``NAME [KEY=VALUE ...]`` for one the hook serves; the keys are those of
    ``jsonmatch_calls``, over the session's ``calls_parts``). ConfigError naming the setting
    and the line."""
    declared: dict[str, TargetSpec] = {}
    for line in lines:
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        found = _LINE.fullmatch(line)
        name = found["name"] if found else ""
        if (
            found is None
            or not TARGET_NAME.fullmatch(name)
            or any("=" not in word or word.startswith("=") for word in found["calls"].split())
        ):
            raise ConfigError(
                f"{what}: {line.strip()!r}: a line is 'NAME = package.module:function' "
                f"and optionally calls settings (concurrency=2 rate=60/min); a "
                f"name is letters, digits, '_', '.' and '-'"
            )
        spec = found["spec"] or ""
        if spec and ":" not in spec:
            raise ConfigError(
                f"{what}: target {name!r}: {spec!r} must look like package.module:function"
            )
        if name in declared:
            raise ConfigError(f"{what}: target {name!r} is declared twice")
        shown = f"{what}: target {name!r}"
        declared[name] = TargetSpec(
            name=name, spec=spec, calls=parse_calls([*calls_parts, (found["calls"], shown)])
        )
    return tuple(declared.values())


def select_targets(
    declared: Sequence[TargetSpec],
    selection: str,
    what: str,
    declared_what: str = "jsonmatch_targets",
) -> tuple[TargetSpec, ...]:
    """The targets ``selection`` (``a,b``; empty: every one, as declared) names, in its
    order; ConfigError naming ``what`` for a name not declared or named twice."""
    if not selection.strip():
        return tuple(declared)
    by_name = {t.name: t for t in declared}
    chosen: list[TargetSpec] = []
    for name in (n.strip() for n in selection.split(",")):
        if name not in by_name:
            raise ConfigError(
                f"{what}: no target {name!r} is declared in {declared_what}"
                f"{did_you_mean(name, by_name)}; declared: "
                f"{', '.join(by_name) or '(none)'}"
            )
        if any(t.name == name for t in chosen):
            raise ConfigError(f"{what}: target {name!r} is named twice")
        chosen.append(by_name[name])
    return tuple(chosen)
