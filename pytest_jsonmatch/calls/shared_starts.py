"""A rate limit held by every process of one session: evenly spaced starts shared by the
pytest-xdist workers through a small file.

Each limited thing (a named target, a judge) has its own file, ``<key>.starts``, in the
session's shared folder (the folder of the workers' call logs, which the controller makes
and hands each worker). The file holds one number: the earliest time the next call may
start, on the machine's monotonic clock (``time.monotonic``, one clock for every process of
the machine). A call that wants to start takes the file's lock (``fcntl.flock``), reads the
number, takes ``max(now, that)`` as its start, writes its start plus the interval back and
lets go: so the starts of all workers together are at least one interval apart, and the
session keeps to the rate whatever the number of workers, without each worker starting its
share at once.

Where ``fcntl`` is missing (Windows) there is no shared schedule: the caller divides the rate
among the workers instead (``CallSettings.per_worker``). The file is the session's own: it is
opened only as a regular file (never through a link, never a pipe).
"""

from __future__ import annotations

import hashlib
import os
import re
import stat
import struct
import threading
import time

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows: the rate is divided among the workers
    fcntl = None  # type: ignore[assignment]

_NUMBER = struct.Struct("<d")
SHARED = fcntl is not None  # whether the workers of a session can share one schedule here


class SharedStarts:
    """Start times ``interval`` seconds apart, reserved under the file's lock by every
    process (and every thread: a lock of this process's own first) that opens the file."""

    def __init__(self, path: str, interval: float) -> None:
        self.path, self.interval = path, interval
        self._lock = threading.Lock()
        self._fd: int | None = None

    def reserve(self) -> float:
        """The monotonic time at which the caller may start: the next free slot, now taken."""
        assert fcntl is not None
        with self._lock:
            fd = self._open()
            fcntl.flock(fd, fcntl.LOCK_EX)
            try:
                raw = os.pread(fd, _NUMBER.size, 0)
                taken = _NUMBER.unpack(raw)[0] if len(raw) == _NUMBER.size else 0.0
                start = max(time.monotonic(), taken)
                os.pwrite(fd, _NUMBER.pack(start + self.interval), 0)
            finally:
                fcntl.flock(fd, fcntl.LOCK_UN)
            return start

    def close(self) -> None:
        with self._lock:
            fd, self._fd = self._fd, None
            if fd is not None:
                os.close(fd)

    def _open(self) -> int:
        if self._fd is None:
            flags = os.O_RDWR | os.O_CREAT | os.O_NONBLOCK | getattr(os, "O_NOFOLLOW", 0)
            fd = os.open(self.path, flags, 0o600)
            if not stat.S_ISREG(os.fstat(fd).st_mode):
                os.close(fd)
                raise OSError(f"{self.path} is not a regular file")
            self._fd = fd
        return self._fd


def shared_starts(folder: str | None, key: str, rate: float | None) -> SharedStarts | None:
    """The schedule of the calls limited under ``key`` at ``rate`` calls a second, shared
    through ``folder`` (None: this process alone, or no rate, or no file locks here)."""
    if not folder or not rate or fcntl is None:
        return None
    digest = hashlib.sha256(key.encode("utf-8", "surrogatepass")).hexdigest()[:12]
    name = f"{re.sub(r'[^A-Za-z0-9_.-]', '_', key)[:40]}-{digest}"
    return SharedStarts(os.path.join(folder, f"{name}.starts"), 1.0 / rate)
