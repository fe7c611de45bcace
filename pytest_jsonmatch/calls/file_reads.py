"""The files a target reads while it makes an output, noticed through an audit hook: a prompt
template read at call time makes the recordings of that output stale when it is edited,
without ``files=`` naming it (fingerprints.py holds what was read, case_outputs.py checks it).

An audit hook cannot be removed, so one is installed per process, on the first watched call,
and does nothing unless a context variable, set only while a target's function runs in its
call's thread, collects what is opened (and whether for writing). Files outside the test root, Python
sources and compiled modules (imports) are not the target's data and are left out. What a
target reads in threads of its own, or in an ``async`` target on the runner's event loop,
is not seen: ``files=`` names such files.
"""

from __future__ import annotations

import os
import sys
import threading
from collections.abc import Callable
from contextvars import ContextVar
from pathlib import Path
from typing import TypeVar

_SEEN: ContextVar[set[str] | None] = ContextVar("jsonmatch_reads", default=None)
_INSTALLED = False
_LOCK = threading.Lock()
_CODE = (".py", ".pyc", ".pyo", ".pyd", ".so", ".pth")
_WRITES = ("w", "a", "x", "+")
WRITTEN = "\0w:"  # marks a path opened for writing in a ``seen`` set

T = TypeVar("T")


def _hook(event: str, args: tuple[object, ...]) -> None:
    if event != "open":
        return
    seen = _SEEN.get()
    if seen is None or not args:
        return
    path, mode = args[0], args[1] if len(args) > 1 else None
    if not isinstance(path, (str, bytes)):
        return
    name = os.fsdecode(path)
    writes = (
        any(c in mode for c in _WRITES)
        if isinstance(mode, str)
        else len(args) > 2 and not _reading(args[2])
    )
    # a file the target writes is its state (a cache, a counter), not what it was given:
    # marked so, it is never held to a digest
    seen.add(WRITTEN + name if writes else name)


def _reading(flags: object) -> bool:
    """Whether ``os.open`` flags open for reading only."""
    return isinstance(flags, int) and flags & (os.O_WRONLY | os.O_RDWR) == 0


def watched(function: Callable[..., T], *args: object, seen: set[str]) -> T:
    """``function(*args)`` with every file it opens in this thread added to ``seen`` (one
    opened for writing marked ``WRITTEN``); run it in the context the call runs in
    (``Context.run``)."""
    global _INSTALLED
    if not _INSTALLED:
        with _LOCK:
            if not _INSTALLED:
                sys.addaudithook(_hook)
                _INSTALLED = True
    token = _SEEN.set(seen)
    try:
        return function(*args)
    finally:
        _SEEN.reset(token)


def data_files(seen: set[str], root: Path) -> dict[str, Path]:
    """Of the files ``seen`` read, those that are the target's data: regular files inside
    ``root`` that the call did not also write, no Python code, keyed by their path from the
    root (``prompts/extract.txt``)."""
    base = root.resolve()
    out: dict[str, Path] = {}
    written = {_resolved(name[len(WRITTEN) :]) for name in seen if name.startswith(WRITTEN)}
    for name in sorted(seen):
        resolved = None if name.startswith(WRITTEN) else _resolved(name)
        if resolved is None or resolved in written:
            continue
        try:
            shown = resolved.relative_to(base).as_posix()
        except ValueError:
            continue
        if resolved.suffix in _CODE or "__pycache__" in resolved.parts or not resolved.is_file():
            continue
        out[shown] = resolved
    return out


def _resolved(name: str) -> Path | None:
    path = Path(name)
    try:
        return (path if path.is_absolute() else Path.cwd() / path).resolve()
    except OSError:
        return None
