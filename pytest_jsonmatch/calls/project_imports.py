"""The modules of the project a target imports, directly or through other modules of the
project, each with its SHA-256: a recording is stale when one of them changed (a tool
``warehouse.py`` that ``agent.py`` imports), as it is when the target's own module did
(fingerprints.py).

Each module's imports are read from its source, never by running it (its import statements
found by a pattern and parsed with :mod:`ast`, written_imports.py): ``import a.b``,
``from a import b`` (``b`` counts where it is a module), relative imports, imports inside
functions, classes, ``try`` and ``if`` (a conditional import counts where its module
exists), and ``importlib.import_module("a.b")`` / ``__import__("a")`` with a written name.
Imports under ``if TYPE_CHECKING:`` (never run) and ``if __name__ == "__main__":`` (run only
as a script) do not count. A name is found as Python finds it: the module already
imported (``sys.modules``), else the path finder over ``sys.path`` or the package's own
path, so a module the import system reaches through another finder (a name built at run
time, a plugin registry) is not seen; ``files=`` names it.

"The project" is the ``.py`` files inside the test root that lie in no ``site-packages``
(``dist-packages``) folder and outside the standard library: installed packages, a
virtual environment inside the root, and modules outside the root are neither held nor
followed. A package's ``__init__.py`` counts for each module imported through it; a
namespace package has none. Each module is read once per fingerprint and parsed once per
content (a cache keyed by its digest), so a project of thousands of modules costs one read
of each module the target reaches; a module over :data:`PARSE_LIMIT` bytes is held by its
digest but its imports are not followed.
"""

from __future__ import annotations

import hashlib
import importlib.machinery
import os
import sys
import sysconfig
from collections import deque
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import NamedTuple

from .written_imports import Import, written_imports

PARSE_LIMIT = 16 * 2**20  # a module larger is generated data: digested, its imports unread
_OUTSIDE = ("site-packages", "dist-packages")  # an installed package's folder, wherever it is
_PARSED: dict[str, tuple[Import, ...]] = {}  # a module's digest -> the imports it writes
_PARSED_MAX = 50_000  # entries; the cache starts over past it
_ABSENT = object()


class _Found(NamedTuple):
    """A module found: its source file (None: a namespace package, or no ``.py`` source)
    and, for a package, where its submodules are found."""

    file: str | None
    locations: tuple[str, ...]


class ProjectImports:
    """The project's modules that modules inside ``root`` import, each read once.

    Made for one fingerprint: what Python would import is worked out as of now
    (``sys.modules`` and ``sys.path``). Paths are kept as real paths, in text."""

    def __init__(self, root: Path) -> None:
        self.root = os.path.join(os.path.realpath(root), "")  # (ends with a separator)
        stdlib = {sysconfig.get_path(key) for key in ("stdlib", "platstdlib")}
        self._stdlib = tuple(os.path.join(os.path.realpath(p), "") for p in stdlib if p)
        self._named: dict[str, _Found | None] = {}  # absolute module name -> where
        self._in: dict[tuple[str, tuple[str, ...]], _Found | None] = {}  # name in folders
        self._project: dict[str, str | None] = {}  # a file as found -> its real path inside
        # an import (absolute name, or folder and name) -> the project's files it reaches
        self._reached: dict[tuple[str, ...], list[tuple[str, str | None]]] = {}

    def modules(self, starts: Sequence[Path]) -> dict[str, str]:
        """``{path from the root: SHA-256}`` of each module of the project that the modules
        ``starts`` import, transitively, ``starts`` themselves left out; those outside the
        project are neither held nor followed. In the order of their paths."""
        queue: deque[tuple[str, str | None]] = deque()
        own: set[str] = set()
        for start in starts:
            real = self.inside(os.fspath(start))
            if real is None or real in own:
                continue
            own.add(real)
            name = _module_name(real)
            queue.append((real, name))
            # the packages above it ran their __init__.py first: by its name, or (a module
            # whose name is not known) each folder above it that holds one
            if name is not None:
                for parent in _parents(name):
                    queue.extend(self._files(self._find(parent), parent))
            else:
                folder = os.path.dirname(real)
                while (init := self.inside(os.path.join(folder, "__init__.py"))) is not None:
                    queue.append((init, None))
                    folder = os.path.dirname(folder)
        seen: set[str] = set()
        out: dict[str, str] = {}
        while queue:
            path, name = queue.popleft()
            if path in seen:
                continue
            seen.add(path)
            digest, imports = _read(path)
            if path not in own:
                out[path[len(self.root) :].replace(os.sep, "/")] = digest
            queue.extend(
                (found, found_name)
                for found, found_name in self._resolve(imports, path, name)
                if found not in seen
            )
        return dict(sorted(out.items()))

    def inside(self, file: str) -> str | None:
        """The real path of ``file`` where it is a module of the project, else None."""
        if file in self._project:
            return self._project[file]
        real: str | None = None
        if file.endswith(".py"):
            try:
                path = os.path.realpath(file)
            except (OSError, ValueError):  # a loop of links, a NUL
                path = ""
            if (
                path.startswith(self.root)
                and not any(part in _OUTSIDE for part in path[len(self.root) :].split(os.sep))
                and not path.startswith(self._stdlib)
                and os.path.isfile(path)
            ):
                real = path
        self._project[file] = real
        return real

    def _resolve(
        self, imports: Iterable[Import], path: str, name: str | None
    ) -> Iterator[tuple[str, str | None]]:
        """The project's files that ``imports`` (written in module ``name``, at ``path``)
        reach, each with its module name where it is known."""
        for level, module, names in imports:
            if level == 0:
                yield from self._absolute(module, names)
            elif name is not None:
                init = os.path.basename(path) == "__init__.py"
                package = name if init else name.rpartition(".")[0]
                bits = package.rsplit(".", level - 1) if package else []
                if len(bits) == level and bits[0]:  # (beyond the top package: no import)
                    yield from self._absolute(f"{bits[0]}.{module}".rstrip("."), names)
            else:  # a module whose name is not known: from its folder
                folder = os.path.dirname(path)
                for _ in range(level - 1):
                    folder = os.path.dirname(folder)
                yield from self._relative(folder, module, names)

    def _absolute(self, module: str, names: tuple[str, ...]) -> list[tuple[str, str | None]]:
        """The files of ``module`` and of the packages above it, and of each of ``names``
        that is a submodule of it (worked out once an import)."""
        key = (module, *names)
        if key not in self._reached:
            self._reached[key] = list(self._absolute_files(module, names))
        return self._reached[key]

    def _absolute_files(
        self, module: str, names: tuple[str, ...]
    ) -> Iterator[tuple[str, str | None]]:
        found: _Found | None = None
        for part in _parents(module) + [module]:
            found = self._find(part)
            if found is None:
                return
            yield from self._files(found, part)
        for each in names if found is not None and found.locations else ():
            full = f"{module}.{each}"
            yield from self._files(self._find(full), full)

    def _relative(
        self, folder: str, module: str, names: tuple[str, ...]
    ) -> list[tuple[str, str | None]]:
        """As :meth:`_absolute`, from a ``folder`` (a relative import in a module whose name
        is not known)."""
        key = ("\0folder", folder, module, *names)
        if key not in self._reached:
            self._reached[key] = list(self._relative_files(folder, module, names))
        return self._reached[key]

    def _relative_files(
        self, folder: str, module: str, names: tuple[str, ...]
    ) -> Iterator[tuple[str, str | None]]:
        found = _Found(None, (folder,))
        for part in module.split(".") if module else ():
            inner = self._in_folders(part, found.locations)
            if inner is None:
                return
            found = inner
            yield from ((p, None) for p, _ in self._files(found, None))
        for each in names if found.locations else ():
            inner = self._in_folders(each, found.locations)
            yield from ((p, None) for p, _ in self._files(inner, None))

    def _files(self, found: _Found | None, name: str | None) -> list[tuple[str, str | None]]:
        if found is None or found.file is None:
            return []
        real = self.inside(found.file)
        return [] if real is None else [(real, name)]

    def _find(self, name: str) -> _Found | None:
        """Where Python finds module ``name`` now: imported already, or by the path finder
        (on ``sys.path``, or the package's own path), without running anything."""
        if name in self._named:
            return self._named[name]
        found: _Found | None = None
        module = sys.modules.get(name, _ABSENT)  # (None there: its import is refused)
        if module is not _ABSENT:
            try:
                file = getattr(module, "__file__", None)
                locations = tuple(str(p) for p in getattr(module, "__path__", None) or ())
                if module is not None:
                    found = _Found(file if isinstance(file, str) else None, locations)
            except Exception:  # noqa: BLE001 - a module object of any kind: nothing readable
                found = None
        else:
            parent, _, tail = name.rpartition(".")
            if not parent:
                found = self._in_folders(name, None)
            else:
                above = self._find(parent)
                found = (
                    self._in_folders(tail, above.locations)
                    if above is not None and above.locations
                    else None
                )
        self._named[name] = found
        return found

    def _in_folders(self, name: str, folders: tuple[str, ...] | None) -> _Found | None:
        """Module ``name`` (one part) as the path finder finds it in ``folders`` (None:
        ``sys.path``)."""
        key = (name, folders if folders is not None else ("\0sys.path", *map(str, sys.path)))
        if key in self._in:
            return self._in[key]
        found: _Found | None = None
        if name.isidentifier():
            try:
                spec = importlib.machinery.PathFinder.find_spec(
                    name, list(folders) if folders is not None else None
                )
            except Exception:  # noqa: BLE001 - a path hook of any kind: the module not found
                spec = None
            if spec is not None:
                origin = spec.origin if spec.has_location else None
                found = _Found(
                    origin if isinstance(origin, str) and origin.endswith(".py") else None,
                    tuple(str(p) for p in spec.submodule_search_locations or ()),
                )
        self._in[key] = found
        return found


def project_modules(starts: Sequence[Path], root: Path) -> dict[str, str]:
    """``{path from the root: SHA-256}`` of the modules of the project (inside ``root``)
    that the modules ``starts`` import, directly or through each other."""
    return ProjectImports(root).modules(starts)


def _parents(name: str) -> list[str]:
    """The packages above module ``name``, outermost first (``a.b.c``: ``a``, ``a.b``)."""
    parts = name.split(".")
    return [".".join(parts[:i]) for i in range(1, len(parts))] if name else []


def _module_name(real: str) -> str | None:
    """The name the module imported from the file at ``real`` has, if one was."""
    base = os.path.basename(real)
    for name, module in list(sys.modules.items()):
        try:
            file = getattr(module, "__file__", None)
            if (
                isinstance(file, str)
                and os.path.basename(file) == base
                and name != "__main__"
                and os.path.realpath(file) == real
            ):
                return name
        except Exception:  # noqa: BLE001 - a module object of any kind, a path unfit for one
            continue
    return None


def _read(path: str) -> tuple[str, tuple[Import, ...]]:
    """A module's SHA-256 and the imports it writes (none for one that cannot be read or
    parsed, or past :data:`PARSE_LIMIT`: its digest still counts)."""
    digest = hashlib.sha256()
    try:
        with open(path, "rb") as fh:
            head = fh.read(PARSE_LIMIT + 1)
            digest.update(head)
            whole = len(head) <= PARSE_LIMIT
            for chunk in iter(lambda: fh.read(2**20), b""):
                digest.update(chunk)
    except OSError as exc:  # held as unreadable: readable again, it differs
        return f"unreadable: {exc.strerror or exc}", ()
    key = digest.hexdigest()
    if not whole:
        return key, ()
    imports = _PARSED.get(key)
    if imports is None:
        imports = written_imports(head)
        if len(_PARSED) >= _PARSED_MAX:
            _PARSED.clear()
        _PARSED[key] = imports
    return key, imports
