"""What produced a recording, beside the case's input: the target's code, files the user names
(prompt templates), and a value the user declares (model name, parameters, prompt version).

A recording made under one fingerprint is stale under another, so that replaying in CI can
see a prompt, tool or model change. By default the fingerprint holds the source of each module
that defines the target (the module of the function ``jsonmatch_target`` names, and of each
plugin or conftest.py implementing ``pytest_jsonmatch_target``), and of each module of the
project those import, directly or through each other (project_imports.py: a tool in
``warehouse.py``): an edit to a module the target never imports leaves it alone.
``files=PATTERN`` adds files (globs from the test root: what is not Python),
``fingerprint=MODULE:FUNC`` a function returning JSON, called once per session. ``scrub=``
names volatile values, kept out of a recording (stable_form.py). ``block_network`` (on by
default under ``none``) and ``allowed_hosts=`` make the session refuse other connections
(offline.py). The record setting's text form: ``once files=prompts/*.txt
fingerprint=myproject.llm:settings prune scrub=**.created_at``, ``none
allowed_hosts=127.0.0.1,judge.internal``.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

from ..engine.core.errors import CaseFileError, ConfigError
from ..engine.core.slotted import HashedSlotted, Slotted
from .recordings import MODES, RecordMode
from .stable_form import NO_SCRUB, Scrub


class RecordSettings(HashedSlotted):
    """The record mode (vcrpy's), what a recording's fingerprint takes in, ``prune``: remove
    the recordings no collected case uses, and the network block (pytest-recording's
    ``block_network`` and ``allowed_hosts``). (HashedSlotted, not a dataclass: made when the
    golden session starts; hashable, as the frozen dataclass was.)"""

    __slots__ = (
        "mode",
        "files",
        "declared",
        "prune",
        "scrub",
        "block_network",
        "allowed_hosts",
    )

    mode: RecordMode
    files: tuple[str, ...]  # glob patterns, from the test root
    declared: str  # MODULE:FUNCTION returning JSON, or nothing
    prune: bool
    scrub: Scrub  # volatile values, recorded and scored as a placeholder
    block_network: bool | None  # None: on when the mode is ``none`` (replay only)
    allowed_hosts: tuple[str, ...]  # the hosts a blocked session may still reach

    def __init__(
        self,
        *,
        mode: RecordMode = "off",
        files: tuple[str, ...] = (),
        declared: str = "",
        prune: bool = False,
        scrub: Scrub = NO_SCRUB,
        block_network: bool | None = None,
        allowed_hosts: tuple[str, ...] = (),
    ) -> None:
        self.mode, self.files, self.declared, self.prune = mode, files, declared, prune
        self.scrub, self.block_network = scrub, block_network
        self.allowed_hosts = allowed_hosts

    @property
    def blocks_network(self) -> bool:
        """Whether the session refuses outbound connections (calls/offline.py)."""
        return self.mode == "none" if self.block_network is None else self.block_network

    @classmethod
    def parse(cls, parts: Sequence[tuple[str, str]]) -> RecordSettings:
        """``MODE [files=GLOB ...] [fingerprint=MODULE:FUNCTION] [prune] [scrub=PATHS ...]
        [block_network[=on|off]] [allowed_hosts=HOST,...]`` from each ``(text, name)`` in
        turn; a later one's parts override an earlier one's (the flag's the ini's).
        ``scrub=`` and ``allowed_hosts=`` keep their commas (their value's own list)."""
        out = cls()
        for text, what in parts:
            files: list[str] = []
            scrub = Scrub()
            for word in _words(text):
                key, sep, value = word.partition("=")
                modes = [m for m in MODES if m == word]
                if sep and key == "scrub" and value:
                    scrub += Scrub.parse(value, what)
                elif key == "block_network" and (not sep or value in _SWITCH):
                    out = out.replace(block_network=_SWITCH[value] if sep else True)
                elif sep and key == "allowed_hosts":
                    from .offline import parse_hosts  # (the block loads only when asked)

                    out = out.replace(allowed_hosts=parse_hosts(value, what))
                elif modes:
                    out = out.replace(mode=modes[0])
                elif word == "prune":
                    out = out.replace(prune=True)
                elif sep and key == "files" and value:
                    files.append(value)
                elif sep and key == "fingerprint" and ":" in value:
                    out = out.replace(declared=value)
                else:
                    raise ConfigError(
                        f"{what} is a mode ({', '.join(MODES)}) and optionally "
                        f"files=GLOB, fingerprint=MODULE:FUNCTION, prune, "
                        f"scrub=PATH,... or scrub=/REGEX/, block_network=on|off and "
                        f"allowed_hosts=HOST,..., not {word!r}"
                    )
            if files:
                out = out.replace(files=tuple(files))
            if scrub:
                out = out.replace(scrub=scrub)
        return out


_SWITCH = {"on": True, "off": False}
_LISTS = ("scrub=", "allowed_hosts=")  # the keys whose value is a comma-separated list


def _words(text: str) -> list[str]:
    """The setting's words: split at white space, and at commas but within a list's key."""
    words: list[str] = []
    for word in text.split():
        words += [word] if word.startswith(_LISTS) else word.replace(",", " ").split()
    return words


class Fingerprint(Slotted):
    """The code (module file -> SHA-256), the named files (path -> SHA-256), the declared
    value and the project's modules the code imports (path -> SHA-256) a recording was made
    under. (Slotted, not a dataclass: its mappings left the frozen dataclass unhashable
    too.)"""

    __slots__ = ("code", "files", "declared", "read", "_imports")
    _fields = ("code", "files", "declared", "read", "imports")  # (imports: a property)

    code: Mapping[str, str]
    files: Mapping[str, str]
    declared: object
    # the files the target was seen reading when it made the output (file_reads.py), those
    # ``files=`` does not name: each is held to its digest as the recording was made
    read: Mapping[str, str]
    # the modules of the project the target's modules import (project_imports.py), those
    # ``code`` and ``files`` do not hold; taken when first read (a report's provenance,
    # under ``off``, never reads them)
    _imports: Mapping[str, str] | Callable[[], Mapping[str, str]]

    def __init__(
        self,
        *,
        code: Mapping[str, str] | None = None,
        files: Mapping[str, str] | None = None,
        declared: object = None,
        read: Mapping[str, str] | None = None,
        imports: Mapping[str, str] | Callable[[], Mapping[str, str]] | None = None,
    ) -> None:
        self.code = {} if code is None else code
        self.files = {} if files is None else files
        self.declared = declared
        self.read = {} if read is None else read
        self._imports = {} if imports is None else imports

    @property
    def imports(self) -> Mapping[str, str]:
        """The project's modules the target imports (path -> SHA-256), taken once."""
        if callable(self._imports):
            self._imports = self._imports()
        return self._imports

    def to_dict(self) -> dict[str, object]:
        out = {"code": dict(self.code), "files": dict(self.files), "declared": self.declared}
        if self.read:  # only when the target read some: other recordings keep their bytes
            out["read"] = dict(self.read)
        if self.imports:  # only when it imports some: the same
            out["imports"] = dict(self.imports)
        return out

    def with_reads(self, reads: Mapping[str, Path]) -> Fingerprint:
        """This fingerprint with the files the target read (from the root) that it does not
        hold already."""
        seen = {name: _digest(path) for name, path in reads.items() if name not in self.files}
        return self.replace(read=seen) if seen else self

    def read_changes(self, root: Path) -> list[str]:
        """The files the target read when this recording was made that differ now (edited,
        or gone), in words."""
        out = []
        for name, digest in sorted(self.read.items()):
            path = root / name
            if not path.is_file() or _digest(path) != digest:
                out.append(f"file {name} (read by the target)")
        return out

    @classmethod
    def from_dict(cls, data: object) -> Fingerprint | None:
        if not isinstance(data, Mapping):
            return None
        return cls(
            code=_digests(data.get("code")),
            files=_digests(data.get("files")),
            declared=data.get("declared"),
            read=_digests(data.get("read")),
            imports=_digests(data.get("imports")),
        )

    def changes(self, recorded: Fingerprint | None) -> list[str]:
        """What differs from the fingerprint a recording was made under, in words."""
        if recorded is None:
            return ["the recording holds no fingerprint of what made it"]
        out = [
            f"target code {name}"
            for name in sorted(set(self.code) | set(recorded.code))
            if self.code.get(name) != recorded.code.get(name)
        ]
        out += [
            f"file {name}"
            for name in sorted(set(self.files) | set(recorded.files))
            if self.files.get(name) != recorded.files.get(name)
        ]
        if _canonical(self.declared) != _canonical(recorded.declared):
            out.append(
                f"the declared fingerprint ({_canonical(recorded.declared)} -> "
                f"{_canonical(self.declared)})"
            )
        return out + _import_changes(self.imports, recorded.imports)


def _import_changes(now: Mapping[str, str], was: Mapping[str, str]) -> list[str]:
    """The project's modules imported now or then whose digests differ, in words. Those the
    recording holds no digest of (made before imports counted, or imported since) are said
    together: a recording made earlier names every module once."""
    out, unheld = [], []
    for name in sorted(set(now) | set(was)):
        if name not in was:
            unheld.append(name)
        elif name not in now:
            out.append(f"module {name} (no longer imported by the target)")
        elif now[name] != was[name]:
            out.append(f"module {name} (imported by the target)")
    if len(unheld) == 1:
        out.append(
            f"module {unheld[0]} (imported by the target; the recording holds no digest of it)"
        )
    elif unheld:
        shown = ", ".join(unheld[:3]) + (f" and {len(unheld) - 3} more" if len(unheld) > 3 else "")
        out.append(
            f"modules {shown} (imported by the target; the recording holds no digest of them)"
        )
    return out


def _digests(value: object) -> dict[str, str]:
    """A recorded ``{path: SHA-256}`` as it is read (anything else: none)."""
    return {str(k): str(v) for k, v in value.items()} if isinstance(value, Mapping) else {}


def _canonical(value: object) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str)


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _shown(path: Path, root: Path) -> str:
    try:
        return path.resolve().relative_to(root.resolve()).as_posix()
    except ValueError:
        return str(path)


def source_files(functions: Sequence[object]) -> list[Path]:
    """The files of the modules that define ``functions`` (those Python can name)."""
    import inspect

    out = []
    for function in functions:
        if not callable(function):
            continue
        try:
            name = inspect.getsourcefile(inspect.unwrap(function))
        except TypeError:  # a builtin: no source to hold
            continue
        if name:
            out.append(Path(name))
    return out


def function_digest(function: object, root: Path) -> tuple[str, str] | None:
    """One named target's own code, apart from the other targets a module may define beside
    it: ``(module.py::name, SHA-256)`` of the function's source, of the functions and
    classes of its module it uses (followed in turn), and of the plain values of its module
    it reads (``MODEL = "large"``). None for what has no source."""
    import inspect

    if not callable(function):
        return None
    unwrapped = inspect.unwrap(function)
    try:
        file = inspect.getsourcefile(unwrapped)
    except TypeError:
        return None
    if not file:
        return None
    module = getattr(unwrapped, "__module__", None)
    parts: list[str] = []
    seen: set[int] = set()

    def visit(value: object) -> None:
        if id(value) in seen:
            return
        seen.add(id(value))
        try:
            parts.append(inspect.getsource(value))  # type: ignore[arg-type]
        except (OSError, TypeError):
            parts.append(repr(value))
            return
        code = getattr(value, "__code__", None)
        names = getattr(value, "__globals__", {})
        for name in sorted(_names(code)) if code is not None else ():
            if name not in names:
                continue
            used = names[name]
            if callable(used) and getattr(used, "__module__", None) == module:
                visit(used)
            elif _plain(used):
                parts.append(f"{name} = {used!r}")

    visit(unwrapped)
    name = getattr(unwrapped, "__qualname__", repr(unwrapped))
    digest = hashlib.sha256("\n".join(parts).encode("utf-8", "surrogatepass")).hexdigest()
    return f"{_shown(Path(file), root)}::{name}", digest


def _names(code: object) -> set[str]:
    """The global names a code object and the code nested in it read."""
    names = set(getattr(code, "co_names", ()))
    for const in getattr(code, "co_consts", ()):
        if hasattr(const, "co_names"):
            names |= _names(const)
    return names


def _plain(value: object, depth: int = 0) -> bool:
    """A value whose repr says all of it (a model name, parameters, a prompt)."""
    if value is None or isinstance(value, (str, bytes, int, float, bool)):
        return True
    if depth < 4 and isinstance(value, (tuple, list, frozenset)):
        return all(_plain(v, depth + 1) for v in value)
    if depth < 4 and isinstance(value, dict):
        return all(_plain(k, depth + 1) and _plain(v, depth + 1) for k, v in value.items())
    return False


def take_fingerprint(
    settings: RecordSettings,
    root: Path,
    code_files: Sequence[Path],
    declared: Callable[..., object] | None,
    *,
    target: str = "",
    functions: Sequence[object] = (),
) -> Fingerprint:
    """The fingerprint of one target's recordings: the source of ``code_files`` (the modules
    defining the target, for a session's one target, and the hook's implementations), each
    of ``functions`` by its own code (a named target, :func:`function_digest`, so that an
    edit to another target's code or model name leaves its recordings valid), the files
    ``settings.files`` match, and what ``declared()`` returns (JSON); a declared function
    that takes an argument is given the ``target``'s name, and may say each target's own.
    The modules of the project that these import, directly or through each other, count
    whole (project_imports.py), but for those ``code`` or ``files`` holds already."""
    from .project_imports import project_modules

    code = {_shown(p, root): _digest(p) for p in sorted(set(code_files)) if p.is_file()}
    code.update(d for f in functions if (d := function_digest(f, root)) is not None)
    files: dict[str, str] = {}
    for pattern in settings.files:
        matched = sorted(p for p in root.glob(pattern) if p.is_file())
        if not matched:
            raise CaseFileError(
                f"jsonmatch_record: files={pattern} matches no file under "
                f"{str(root)!r}: a prompt that is never read cannot make a "
                f"recording stale"
            )
        files.update((_shown(p, root), _digest(p)) for p in matched)
    value: object = None
    if declared is not None:
        value = declared(target) if _takes_one(declared) else declared()
        try:
            json.dumps(value, allow_nan=False)
        except (TypeError, ValueError) as exc:
            raise CaseFileError(
                f"jsonmatch_record: fingerprint={settings.declared} must return "
                f"JSON (a mapping of model name, parameters, ...): {exc}"
            ) from None
    starts = [*code_files, *source_files(functions)]

    def imports() -> dict[str, str]:
        imported = project_modules(starts, root)
        return {k: v for k, v in imported.items() if k not in code and k not in files}

    return Fingerprint(code=code, files=files, declared=value, imports=imports)


def _takes_one(function: Callable[..., object]) -> bool:
    """Whether ``function`` takes an argument (the target's name)."""
    import inspect

    try:
        parameters = inspect.signature(function).parameters.values()
    except (TypeError, ValueError):
        return False
    return any(
        p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD, p.VAR_POSITIONAL) for p in parameters
    )
