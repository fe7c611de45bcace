"""Chunks of pairs handled in this process or in N worker processes, handed back in the
order they were sent, so that ``-j N`` gives exactly what ``-j 1`` gives.

With workers, the reading process only cuts lines, pairs them and pickles each chunk once
(records stay :class:`~pytest_jsonmatch.dataset.undecoded.Undecoded`; chunks travel
:class:`~pytest_jsonmatch.dataset.chunk_work.Packed`): decoding, sketching, scoring and writing
each case's report line are done in the workers (dataset/chunk_work.py), and the reading process
merges what comes back. At most two chunks per worker are in flight: records are read only
as fast as they are handled.

On Linux, from a process with no other thread (the command line's), the workers are forked
(fork_pool.py: pipes, no ``multiprocessing``) as the first chunks go out, after the run has
guessed its schema: a worker starts in milliseconds, holding the modules, the settings and
the schema this process has (:func:`~pytest_jsonmatch.dataset.chunk_work.hold_args`), where
a new interpreter takes about 0.2 s, a fifth of a 10,000-record run. Elsewhere, or with
other threads running (fork would copy locks they may hold), they are spawned by a
``ProcessPoolExecutor`` as the run starts, before the files are read. Either way a worker only runs the
functions of dataset/chunk_work.py on the chunks and settings it is sent: the result does not
depend on how it was started.

Exactly, errors included: a chunk's error (a line that is not JSON, an unreadable gold
record) is raised when its turn comes, after the chunks before it; an error met while
reading ahead waits likewise, and the chunk read before it is handled first, since ``-j 1``
reads (and decodes) those records before it meets the error.
"""

from __future__ import annotations

import os
import stat
import sys
from collections import deque
from collections.abc import Callable, Generator, Iterable, Iterator
from typing import TYPE_CHECKING, TypeVar

from ..dataset import Pair
from ..dataset.chunk_work import SCORED_TOGETHER, Chunk, call_in_worker, hold_args, packed, ready

CHUNK = SCORED_TOGETHER  # pairs per chunk handled in this process
WORKER_CHUNK = 4 * SCORED_TOGETHER  # pairs per trip to a worker: a trip costs about 1 ms

T = TypeVar("T")

if TYPE_CHECKING:  # loaded with the first worker: a run of one job never needs them
    from concurrent.futures import Future, ProcessPoolExecutor

    from .fork_pool import ForkPool


def chunks(pairs: Iterable[Pair], size: int = CHUNK) -> Iterator[list[Pair]]:
    """``pairs`` in lists of ``size``. Should reading fail, the pairs read before the
    failure come first, as a last shorter chunk, then the error."""
    chunk: list[Pair] = []
    try:
        for pair in pairs:
            chunk.append(pair)
            if len(chunk) >= size:
                yield chunk
                chunk = []
    except Exception:
        if chunk:
            yield chunk
        raise
    if chunk:
        yield chunk


def start_method() -> str:
    """How workers start: ``fork`` on Linux in a process with one thread, else ``spawn``
    (see the module docstring)."""
    if sys.platform.startswith("linux") and hasattr(os, "fork"):
        try:
            threads = len(os.listdir("/proc/self/task"))  # every thread, not only Python's
        except OSError:
            threads = 0
        if threads == 1:
            return "fork"
    return "spawn"


# With ``-j auto`` (the default), a run whose two inputs hold at least this many bytes in all
# scores in one worker a CPU: below it, starting workers and merging their parts costs more
# than it saves (on 2 cores, about 1,500 invoice-like records; docs/cli.md). Where workers
# are spawned rather than forked, each imports the package first (about 0.2 s): eight times
# as much.
AUTO_MIN_BYTES = 2 << 20
AUTO_SPAWNED_MIN_BYTES = 16 << 20
AUTO = 0  # what ``-j auto`` reads as, until ``auto_jobs`` decides


def usable_cpus() -> int:
    """The CPUs this process may run on (its affinity where the system tells it)."""
    counted = getattr(os, "process_cpu_count", None)  # Python 3.13: affinity-aware
    if counted is not None:
        return counted() or 1
    try:
        return len(os.sched_getaffinity(0)) or 1
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def auto_jobs(inputs: Iterable[str], alone: bool) -> int:
    """The jobs ``-j auto`` runs: one a usable CPU where the inputs are files of
    AUTO_MIN_BYTES or more together (AUTO_SPAWNED_MIN_BYTES where workers are spawned) and
    ``alone`` (nothing outside this process is called for each record: a judge or a plugin
    keeps to one job unless asked), else 1. A folder, standard input or anything that is
    not a plain file counts as small: its size is not known before it is read."""
    cpus = usable_cpus()
    if cpus < 2 or not alone:
        return 1
    size = 0
    for path in inputs:
        if path == "-":  # standard input
            return 1
        try:
            found = os.stat(path)
        except (OSError, ValueError):
            return 1
        if not stat.S_ISREG(found.st_mode):
            return 1
        size += found.st_size
    if size < AUTO_MIN_BYTES:
        return 1
    if size < AUTO_SPAWNED_MIN_BYTES and start_method() != "fork":
        return 1
    return cpus


class Workers:
    """The run's worker processes (none for one job), started on entering. ``setup``: what
    a spawned worker runs first (a function and its arguments, picklable), to load what this
    process loaded before it scores (a forked one has it already)."""

    def __init__(
        self, jobs: int, setup: tuple[Callable[..., None], tuple[object, ...]] | None = None
    ) -> None:
        self.jobs = jobs
        self.setup = setup
        self._pool: ProcessPoolExecutor | None = None  # spawned workers
        self._forked: ForkPool | None = None  # or forked ones

    @property
    def parallel(self) -> bool:
        """Whether chunks go to worker processes (and records may be left undecoded)."""
        return self.jobs > 1

    def __enter__(self) -> Workers:
        if self.jobs > 1 and start_method() == "fork":
            from .fork_pool import ForkPool

            self._forked = ForkPool(self.jobs)
        elif self.jobs > 1:
            import multiprocessing
            from concurrent.futures import ProcessPoolExecutor

            context = multiprocessing.get_context("spawn")
            if self.setup is not None:
                start, start_args = self.setup
                self._pool = ProcessPoolExecutor(
                    self.jobs, mp_context=context, initializer=start, initargs=start_args
                )
            else:
                self._pool = ProcessPoolExecutor(self.jobs, mp_context=context)
            for _ in range(self.jobs):
                self._pool.submit(ready)
        return self

    def __exit__(self, kind: type[BaseException] | None, *exc: object) -> None:
        if self._forked is not None:
            self._forked.close(stop=kind is not None)  # (left on an error: stopped at once)
            self._forked = None
        if self._pool is not None:
            self._pool.shutdown(wait=True, cancel_futures=True)
            self._pool = None

    def release(self) -> None:
        """No more chunks: forked workers are let go at once (they exit while the run
        writes its output), spawned ones when the run leaves."""
        if self._forked is not None:
            self._forked.release()

    def chunks(self, pairs: Iterable[Pair]) -> Iterator[Chunk]:
        """``pairs`` in chunks, each packed once when it goes to a worker."""
        if not self.parallel:
            yield from chunks(pairs)
        else:
            for chunk in chunks(pairs, WORKER_CHUNK):
                yield packed(chunk)

    def map(
        self, handle: Callable[..., T], chunks: Iterable[Chunk], *args: object
    ) -> Generator[T, None, None]:
        """``handle(chunk, *args)`` of each chunk, in order. ``handle`` is a function of
        dataset/chunk_work.py (a spawned worker imports that module, not the command line)."""
        if not self.parallel:
            for chunk in chunks:
                yield handle(chunk, *args)
            return
        import pickle  # (only a run with worker processes pickles)

        shared = pickle.dumps(args, protocol=pickle.HIGHEST_PROTOCOL)  # once for every chunk
        if self._forked is not None:
            hold_args(shared, args)  # (a worker forked from here on holds them as they are)
            tasks = ((handle, chunk, shared) for chunk in chunks)
            yield from self._forked.map(call_in_worker, tasks, window=2)
            return
        pool = self._pool
        assert pool is not None
        waiting: deque[Future[T]] = deque()
        reading = iter(chunks)
        try:
            while True:
                try:
                    sent = next(reading, None)
                except Exception:
                    while waiting:  # the chunks read before the error come first
                        yield waiting.popleft().result()
                    raise
                if sent is None:
                    break
                waiting.append(pool.submit(call_in_worker, handle, sent, shared))
                if len(waiting) >= 2 * self.jobs:
                    yield waiting.popleft().result()
            while waiting:
                yield waiting.popleft().result()
        finally:
            for future in waiting:
                future.cancel()
