"""Chunks of pairs handled in this process or in N worker processes, handed back in the
order they were sent, so that ``-j N`` gives exactly what ``-j 1`` gives.

With workers, the reading process only cuts lines, pairs them and pickles each chunk once
(records stay :class:`~pytest_jsonmatch.dataset.undecoded.Undecoded`; chunks travel
:class:`~pytest_jsonmatch.dataset.chunk_work.Packed`): decoding, sketching, scoring and writing
each case's report line are done where the chunk is handled (dataset/chunk_work.py), and the
reading process merges what comes back. At most two chunks per worker are in flight: records
are read only as fast as they are handled.

On Linux, from a process with no other thread (the command line's), ``-j N`` is this process
and N - 1 workers forked from it (fork_pool.py: pipes, no ``multiprocessing``) as soon as
the command's arguments are parsed (:class:`Workers`): each worker imports what scoring a
chunk needs while this process imports the run's modules, checks its options and guesses
its schema, and takes the run's settings with its first chunk, unpickled once
(:func:`~pytest_jsonmatch.dataset.chunk_work.call_in_worker`); a fork takes a millisecond,
where a new interpreter takes about 0.2 s, a fifth of a 10,000-record run. This process
scores a chunk whenever every worker has its two, feeding them between its groups of
records (``pause``), so that on N CPUs none waits: the command's own CPU is not left to
merging alone. Elsewhere, or with other threads running (fork would copy locks they may
hold), N workers are spawned by a ``ProcessPoolExecutor`` once the options are checked,
before the files are read, and this process only merges. Either way a chunk is handled
only by the functions of dataset/chunk_work.py, given the chunk and the run's settings: the
result does not depend on where it was handled.

Two JSONL files paired by position are scanned into spans of SCORED_TOGETHER records, joined
into chunks of WORKER_CHUNK (:func:`sized_spans`); near the end of the files the chunks get
smaller, so that the hands run out of work together instead of one scoring a last whole
chunk while the others wait.

Exactly, errors included: a chunk's error (a line that is not JSON, an unreadable gold
record) is raised when its turn comes, after the chunks before it; an error met while
reading ahead waits likewise, and the chunk read before it is handled first, since ``-j 1``
reads (and decodes) those records before it meets the error.
"""

from __future__ import annotations

import itertools
import os
import stat
import sys
from collections import deque
from collections.abc import Callable, Generator, Iterable, Iterator
from typing import TYPE_CHECKING, TypeVar

# The dataset's modules (dataset/chunk_work.py) are imported where a chunk is first handled,
# not here: cli/score.py imports this module to parse its arguments, before it forks.
CHUNK = 64  # pairs per chunk handled in this process: chunk_work.SCORED_TOGETHER
WORKER_CHUNK = 4 * CHUNK  # pairs per trip to a worker: a trip costs about 1 ms

T = TypeVar("T")
Pause = Callable[[], None]

if TYPE_CHECKING:  # loaded with the first worker: a run of one job never needs them
    from concurrent.futures import Future, ProcessPoolExecutor

    from ..dataset import Pair
    from ..dataset.chunk_work import Chunk
    from ..dataset.spans import Span
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


def sized_spans(found: Iterable[Span], gold_bytes: int, hands: int) -> Iterator[Span]:
    """The spans ``found`` (SCORED_TOGETHER records each, the last one maybe fewer) joined
    into chunks for ``hands`` processes: WORKER_CHUNK records each, the first always (the
    schema is guessed from it), then, once the records left (estimated from the gold file's
    ``gold_bytes`` and the bytes a record has taken so far) are fewer than two chunks a
    hand, a share of them: each hand's last chunks a few milliseconds of work, not 256
    records. Chunks start where a group of SCORED_TOGETHER starts, so that the groups
    scored together are those of ``-j 1``. A reading error is raised at once (the spans'
    reader gives way to the streaming reader, which names it: cli/score.py)."""
    from ..dataset.chunk_work import joined

    most = WORKER_CHUNK // CHUNK
    scanned = iter(found)
    at = done = 0  # the gold file's bytes and the records handed out so far
    while True:
        take = most
        if done and hands > 1:
            left = (gold_bytes - at) * done // max(1, at)  # records left, estimated
            take = max(1, min(most, left // (2 * hands * CHUNK)))
        group = list(itertools.islice(scanned, take))
        if not group:
            return
        chunk = joined(group)
        at, done = chunk.gold.end, done + chunk.records
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
    """The run's worker processes (none for one job). ``setup``: what a worker runs first
    (a function and its arguments, picklable), to load what this process loads before it
    scores (``--plugins``, ``--judge``). ``meanwhile``: what this process alone needs later
    (the output's modules), done once the first chunks are on their way to workers, while
    they score (with one job: never; it is done when needed). ``ahead``: what a forked
    worker does last before it serves, given its number (0 for the first one forked): a
    read of its first chunk while this process guesses the run's schema, which the worker
    would otherwise wait for idle (it must raise nothing: what it meets, the run meets).

    Forked workers are forked on entering, before the run has imported its modules, read
    its options or guessed its schema: each runs ``setup`` and imports what scoring a chunk
    needs (:func:`_worker_start`) while this process does the same and more, then serves
    the chunks it is sent, given the run's settings with the first (read from nothing
    else: standard input, a FIFO are this process's alone). Spawned workers are started by
    :meth:`start`, once the options are checked."""

    def __init__(
        self,
        jobs: int,
        setup: tuple[Callable[..., None], tuple[object, ...]] | None = None,
        meanwhile: Callable[[], None] | None = None,
        ahead: Callable[[int], None] | None = None,
    ) -> None:
        self.jobs = jobs
        self.setup = setup
        self.meanwhile = meanwhile
        self.ahead = ahead
        self._pool: ProcessPoolExecutor | None = None  # spawned workers
        self._forked: ForkPool | None = None  # or forked ones

    @property
    def parallel(self) -> bool:
        """Whether chunks go to worker processes (and records may be left undecoded)."""
        return self.jobs > 1

    def __enter__(self) -> Workers:
        if self.jobs > 1 and start_method() == "fork":
            from .fork_pool import ForkPool

            pool = self._forked = ForkPool(self.jobs - 1)  # (and this process: the Nth)
            try:
                # (in a worker, the pool lists the workers forked before it: its number)
                pool.fork_all(lambda: _worker_start(self.setup, self.ahead, len(pool.workers)))
            except BaseException:  # (a fork refused: those forked before stopped, waited for)
                self._forked.close(stop=True)
                self._forked = None
                raise
        return self

    def start(self) -> None:
        """Spawned workers started (forked ones were on entering), each running ``setup``
        first and then a first task that imports dataset/chunk_work.py, while this process
        reads the files (else on the first :meth:`map`)."""
        if self.jobs <= 1 or self._forked is not None or self._pool is not None:
            return
        import multiprocessing
        from concurrent.futures import ProcessPoolExecutor

        from ..dataset.chunk_work import ready

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

    def __exit__(self, kind: type[BaseException] | None, *exc: object) -> None:
        if self._forked is not None:
            self._forked.close(stop=kind is not None)  # (left on an error: stopped at once)
            self._forked = None
        if self._pool is not None:
            self._pool.shutdown(wait=True, cancel_futures=True)
            self._pool = None

    def stopped(self, error: BaseException) -> bool:
        """Whether ``error`` is a forked worker's end without its result (``WorkerStopped``,
        fork_pool.py: killed, out of memory), which is no error of the run's input."""
        if self._forked is None:
            return False
        from .fork_pool import WorkerStopped  # (imported with the pool already)

        return isinstance(error, WorkerStopped)

    def release(self) -> None:
        """No more chunks: forked workers are let go at once (they exit while the run
        writes its output), spawned ones when the run leaves."""
        if self._forked is not None:
            self._forked.release()

    def spans(self, found: Iterable[Span], gold_bytes: int) -> Iterator[Span]:
        """The spans of SCORED_TOGETHER records ``found`` as the chunks this run hands out
        (:func:`sized_spans`)."""
        return sized_spans(found, gold_bytes, self.jobs)

    def _started(self) -> None:
        """The first chunks are on their way: ``meanwhile``, once."""
        meanwhile, self.meanwhile = self.meanwhile, None
        if meanwhile is not None:
            meanwhile()

    def chunks(self, pairs: Iterable[Pair]) -> Iterator[Chunk]:
        """``pairs`` in chunks, each packed once when it goes to a worker."""
        if not self.parallel:
            yield from chunks(pairs)
        else:
            from ..dataset.chunk_work import packed

            for chunk in chunks(pairs, WORKER_CHUNK):
                yield packed(chunk)

    def map(
        self, handle: Callable[..., T], chunks: Iterable[Chunk], *args: object
    ) -> Generator[T, None, None]:
        """``handle(chunk, *args)`` of each chunk, in order. ``handle`` is a function of
        dataset/chunk_work.py (a spawned worker imports that module, not the command line)
        that takes a ``pause`` to call between its steps (this process's chunks: it feeds the
        forked workers then)."""
        if not self.parallel:
            for chunk in chunks:
                yield handle(chunk, *args)
            return
        import pickle  # (only a run with worker processes pickles)

        from ..dataset.chunk_work import call_in_worker, hold_args

        shared = pickle.dumps(args, protocol=pickle.HIGHEST_PROTOCOL)  # once for every chunk
        if self._forked is not None:
            hold_args(shared, args)  # (a worker forked from here on holds them as they are)
            tasks = ((handle, chunk, shared) for chunk in chunks)

            def here(handle: Callable[..., T], chunk: Chunk, _: bytes, pause: Pause) -> T:
                return handle(chunk, *args, pause=pause)

            yield from self._forked.map(call_in_worker, tasks, 2, here, self._started)
            return
        self.start()
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
                if len(waiting) == self.jobs:
                    self._started()
                if len(waiting) >= 2 * self.jobs:
                    yield waiting.popleft().result()
            while waiting:
                yield waiting.popleft().result()
        finally:
            for future in waiting:
                future.cancel()


def _worker_start(
    setup: tuple[Callable[..., None], tuple[object, ...]] | None,
    ahead: Callable[[int], None] | None = None,
    number: int = 0,
) -> None:
    """A forked worker's start, ahead of its first chunk: ``setup`` (the run's extensions,
    as a spawned worker loads them), then the modules that score a chunk imported, then
    ``ahead(number)``."""
    if setup is not None:
        start, start_args = setup
        start(*start_args)
    from ..dataset import chunk_work  # noqa: F401 - (and the engine with it)

    if ahead is not None:
        ahead(number)
