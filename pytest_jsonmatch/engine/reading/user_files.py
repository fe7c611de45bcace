"""Reading a file a user named: regular files only, of bounded size, as one error if not.

Every path the project reads from (case files, ``actual_file``, schemas, baselines, the command
line's inputs) comes through :func:`read_regular`, so none of them can hang on a FIFO or a
device, read without end, or fail with an ``OSError`` from deep inside.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Callable
from io import BufferedReader
from typing import TYPE_CHECKING, BinaryIO, cast

from ..core.errors import JsonMatchError

MAX_FILE_BYTES = 256 * 2**20  # far above any case, schema or report; below "fills memory"

if TYPE_CHECKING:  # (annotations only: a TypedDict made at import compiles its types;
    # pathlib is not imported by a command that reads no path: cli/test_command_imports.py)
    from pathlib import Path

    from typing_extensions import TypedDict, Unpack

    class _How(TypedDict, total=False):
        """How :func:`read_regular` reads a file, beside its path and names."""

        limit: int
        shown: str | None
        follow_links: bool


def read_regular(
    path: str | os.PathLike[str],
    what: str,
    error: type[JsonMatchError],
    limit: int = MAX_FILE_BYTES,
    shown: str | None = None,
    follow_links: bool = True,
) -> bytes:
    """The bytes of the regular file at ``path``; otherwise ``error`` naming ``what`` and the
    path, or ``shown`` for it (``"schema file 'x.json' is not a regular file (a directory)"``).

    The file is opened without blocking (opening a FIFO for reading would wait for a writer)
    and checked on the open descriptor, then read up to ``limit`` bytes. Without
    ``follow_links`` (a file the project owns) a symbolic link is refused too."""
    fh, size, name = _opened(path, what, error, limit, shown, follow_links, -1)
    with fh:
        try:
            # a read sized by the file (one of ``limit`` bytes allocates that much first),
            # then the rest of a file that grew since, up to the limit
            size = min(size, limit)
            data = fh.read(size + 1)
            if len(data) > size:
                data += fh.read(limit - size)
        except OSError as exc:
            raise error(f"cannot read {name}: {exc.strerror or exc}") from None
    if len(data) > limit:
        raise error(f"{name} is larger than {_size(limit)}")
    return data


def open_regular(
    path: str | os.PathLike[str],
    what: str,
    error: type[JsonMatchError],
    limit: int = MAX_FILE_BYTES,
) -> BufferedReader:
    """The regular file at ``path`` opened for reading (its bytes, buffered), checked as
    :func:`read_regular` checks it before it reads it: for a reader that reads it a line at
    a time, and holds no copy of it whole (the reader reads at most ``limit`` bytes)."""
    return cast(BufferedReader, _opened(path, what, error, limit, None, True, _BUFFER)[0])


def _opened(
    path: str | os.PathLike[str],
    what: str,
    error: type[JsonMatchError],
    limit: int,
    shown: str | None,
    follow_links: bool,
    buffering: int,
) -> tuple[BinaryIO, int, str]:
    """The file at ``path`` opened and checked (:func:`read_regular`'s checks), its size
    when opened, and its name as an error says it; ``buffering`` as ``open`` takes it."""
    name = f"{what} {shown if shown is not None else os.fspath(path)!r}"
    if not follow_links and os.path.islink(path):
        raise error(f"{name} is not a regular file (a symbolic link)")
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0)
    if not follow_links:
        flags |= getattr(os, "O_NOFOLLOW", 0)
    try:
        fd = os.open(path, flags)
    except OSError as exc:
        raise error(f"cannot read {name}: {exc.strerror or exc}") from None
    status = os.fstat(fd)
    mode = status.st_mode
    if not stat.S_ISREG(mode):
        os.close(fd)
        raise error(f"{name} is not a regular file ({_kind(mode)})")
    if status.st_size > limit:  # refused by its size, before a byte of it is read
        os.close(fd)
        raise error(f"{name} is larger than {_size(limit)}")
    return os.fdopen(fd, "rb", buffering=buffering), status.st_size, name


_BUFFER = 2**20  # (a line-at-a-time reader's buffer: a trace's lines run to megabytes)


def read_regular_text(
    path: str | os.PathLike[str], what: str, error: type[JsonMatchError], **how: Unpack[_How]
) -> str:
    """:func:`read_regular` decoded as UTF-8 (a byte-order mark dropped), ``how`` read as it
    reads it; a file that is not UTF-8 is ``error`` naming the offset and line of its first
    bad byte."""
    raw = read_regular(path, what, error, **how)
    shown = how.get("shown")
    return decoded(raw, what, error, shown if shown is not None else os.fspath(path))


def decoded(raw: bytes, what: str, error: type[JsonMatchError], name: str) -> str:
    """A file's bytes as UTF-8 text (a byte-order mark dropped); bytes that are not UTF-8 are
    ``error`` naming the file, and the offset and line of the first bad byte."""
    return utf8_text(
        raw,
        error,
        lambda byte, offset, line: (
            f"{what} {name!r} is not UTF-8 text: byte 0x{byte:02x} at offset {offset} (line {line})"
        ),
    )


def utf8_text(
    raw: bytes, error: type[JsonMatchError], refusal: Callable[[int, int, int], str]
) -> str:
    """``raw`` as UTF-8 text (a byte-order mark dropped); else ``error``, in the words
    ``refusal`` gives the first bad byte (its value, its offset, its line)."""
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        raise error(refusal(raw[exc.start], exc.start, line)) from None


def not_regular(path: str | os.PathLike[str]) -> str | None:
    """What ``path`` is when it exists and is not a regular file (``"a directory"``, ``"a
    FIFO"``, ...); None for a regular file or a missing one. Never opens the path."""
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return None
    return None if stat.S_ISREG(mode) else _kind(mode)


def not_owned(path: str | os.PathLike[str]) -> str | None:
    """What stands at ``path`` when it is there and is no regular file of its own: a
    symbolic link (never followed: the project reads and writes its own files, such as
    recordings, only as regular files), a directory, a FIFO, a device; None for a regular
    file or nothing. Never opens the path."""
    try:
        mode = os.lstat(path).st_mode
    except OSError:
        return None
    if stat.S_ISLNK(mode):
        return "a symbolic link"
    return None if stat.S_ISREG(mode) else _kind(mode)


def _kind(mode: int) -> str:
    for test, kind in (
        (stat.S_ISDIR, "a directory"),
        (stat.S_ISFIFO, "a FIFO"),
        (stat.S_ISCHR, "a character device"),
        (stat.S_ISBLK, "a block device"),
        (stat.S_ISSOCK, "a socket"),
    ):
        if test(mode):
            return kind
    return "not a plain file"


def _size(limit: int) -> str:
    return f"{limit // 2**20} MB" if limit >= 2**20 else f"{limit:,} bytes"


def resolved(path: Path) -> Path:
    """``path`` with its symbolic links followed, a loop among them an OSError on every
    Python this project supports (3.13's ``resolve`` gives a looping path back unresolved
    where 3.10-3.12 raised RuntimeError): a path that exists is resolved strictly, one
    not there yet as far as it goes."""
    if os.path.lexists(path):
        try:
            return path.resolve(strict=True)
        except FileNotFoundError:  # a link to nothing: followed as far as it leads
            pass
        except RuntimeError as exc:  # (3.10-3.12: a loop)
            raise OSError(str(exc)) from None
    return path.resolve()
