"""Files the plugin writes (reports, summaries, case files, recordings) are written atomically.

The content goes to a temporary file in the target's folder, is flushed and fsynced, and is
then renamed over the target: a reader sees the old file or the new one, never half of
either, whatever happens on the way (an exception, an interrupt, a full disk, the process
killed). The new file gets the permissions a plain write would give it (0666 less the
umask). A writer holds a lock on its temporary file while it writes; temporary files nobody
holds were left by a writer that was killed, and the next write removes them.

A path the user named for an output: a symbolic link is written where the link points (the
link stays a link), and a path that is there but no regular file (``/dev/null``, a named
pipe, ``/dev/stdout``) is written in place, as a plain write would: a rename would replace
the device or the pipe itself with a file (run as root, ``-o /dev/null`` would leave the
machine without one). A file the project owns (``owned``: a recording) is only ever a
regular file: anything else in its place is refused, never written through (a pipe with no
reader would block the run for good).
"""

from __future__ import annotations

import os
import stat
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import IO, TYPE_CHECKING

from ...engine.core.errors import CaseFileError
from ...engine.reading.user_files import not_owned

if TYPE_CHECKING:
    from pathlib import Path

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows: stale files are left for the user
    _LOCKS = False
else:
    _LOCKS = True  # writers lock their temporary files (fcntl.flock)


def write_atomic(
    path: str | os.PathLike[str],
    write: Callable[[IO[str]], object],
    newline: str | None = None,
    owned: str = "",
) -> None:
    """Write ``path`` atomically with ``write(file)`` (text, UTF-8). ``newline`` as for
    ``open`` (``""`` keeps line endings as written). If anything fails, the previous file is
    left as it was and the temporary file is removed. A device or a pipe is written
    through instead (module docstring), unless the file is ``owned`` (what it is, for the
    message): then anything but a regular file there is a CaseFileError."""
    if owned:
        there = not_owned(path)
        if there is not None:
            raise CaseFileError(
                f"{owned} {os.fspath(path)} is {there}, not a regular file: refused (the "
                f"plugin writes its own files only as regular files); remove it and run again"
            )
    try:
        regular = stat.S_ISREG(os.stat(path).st_mode)
    except (FileNotFoundError, NotADirectoryError):
        regular = True  # not there yet: a new file
    if not regular:  # nothing to replace atomically: written through, as a plain write
        with open(path, "w", encoding="utf-8", newline=newline) as fh:
            write(fh)
        return
    # a file of the user's is written where its links lead; the plugin's own is replaced
    # at its own path, so that a link put there after the check above is replaced too,
    # never written through
    from pathlib import Path  # (here: a command that writes no file imports none)

    target = Path(os.path.abspath(path) if owned else os.path.realpath(path))
    target.parent.mkdir(parents=True, exist_ok=True)
    _remove_stale(target)
    import tempfile  # (only where a file is written)

    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    try:
        if _LOCKS:
            fcntl.flock(fd, fcntl.LOCK_EX)
        os.chmod(tmp, 0o666 & ~_umask())
        with os.fdopen(fd, "w", encoding="utf-8", newline=newline) as fh:
            write(fh)
            fh.flush()
            os.fsync(fh.fileno())
            os.replace(tmp, target)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def _umask() -> int:
    """The process's umask, read without changing it where the system tells it."""
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError, IndexError):
        pass
    mask = os.umask(0o022)  # elsewhere: read it by setting it, and put it back at once
    os.umask(mask)
    return mask


def _remove_stale(target: Path) -> None:
    """Remove this target's temporary files that no live writer holds."""
    if not _LOCKS:
        return
    try:
        candidates = list(target.parent.glob(f".{target.name}.*.tmp"))
    except OSError:
        return
    for candidate in candidates:
        try:
            fd = os.open(candidate, os.O_RDONLY | os.O_NONBLOCK)
        except OSError:
            continue
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)  # held by a live writer: raises
            candidate.unlink()
        except OSError:
            pass
        finally:
            os.close(fd)


@contextmanager
def exclusive_lock(path: str | os.PathLike[str]) -> Iterator[None]:
    """An exclusive lock on ``path`` (a file or a folder, where the platform has ``fcntl``)
    for as long as the block runs: processes writing the same file take turns, each seeing
    what the one before wrote. Elsewhere the block runs unlocked."""
    if not _LOCKS:
        yield
        return
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)  # closing releases the lock
