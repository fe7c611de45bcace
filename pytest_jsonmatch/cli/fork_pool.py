"""Worker processes forked from this one and fed through pipes: what ``-j N`` uses on Linux.

``concurrent.futures.ProcessPoolExecutor`` costs a run about 15 ms before its first worker
starts (importing ``multiprocessing``, ``concurrent.futures`` and ``logging``: a sixth of
the command's start-up), and feeds its workers from two threads of this process. Where
workers are forked, none of that is needed: each worker is a fork of this process,
reading tasks from one pipe and writing results to another, each message a length and a
pickle. This process alone writes the tasks and reads the results, with ``select.poll``
over the pipes, so that a large task and a large result never wait on each other (two
blocking writes, one each way, would).

The workers are forked as the first tasks need them, not when the pool is made: a worker
holds what this process built before its first task (the run's settings, its guessed
schema, the modules and caches the guess loaded) without being sent or building it again,
and the first worker scores while the next is forked. Or all at once ahead of the tasks
(:meth:`ForkPool.fork_all`, what ``jsonmatch score`` does): each worker then loads what
its tasks need (a ``setup``) while this process builds the first ones, from a process not
yet grown, whose pages neither copies from the other as it writes them. A worker is kept
busy by what it has finished, not by what was taken: each has up to ``window`` tasks it
has not answered, and gets the next as soon as an answer arrives, even while an earlier
task of another worker is still awaited.

This process can be one of the hands too (``here``: ``-j N`` forks N - 1 workers): whenever
every worker has its window of tasks, it runs the next task itself rather than wait, and
between the steps of that task (``pause``, which the task calls) it reads the results that
have come and sends the workers their next tasks, so that none waits on it. Its own results
take no trip through a pipe. The tasks' order is kept whoever runs them, and at most
``2 * window`` results a hand wait to be taken.

A task is a function of a module both processes hold (pickled by name) and its arguments.
Results come back in the order the tasks went out; an exception raised by a task is raised
here in its turn. Tasks still on their way when a caller stops reading results (it closed
the iterator, or a result raised) run to their end, and their results are dropped as they
come, so that the pool can take the next call's tasks at once. A worker that stops without a
result (killed: out of memory, a signal) is a :class:`WorkerStopped` naming how it ended,
raised in the turn of its first task left unanswered. Leaving the pool closes the task
pipes: each worker finishes, sees the end of its pipe and exits; leaving on an exception
(Ctrl-C included) stops the workers first.

Pickle is safe here: this process pickles every task its workers read, and its workers
pickle every result it reads.
"""

from __future__ import annotations

import os
import pickle
import sys
from collections import deque
from collections.abc import Callable, Iterator
from typing import Any

from ..engine.core.errors import JsonMatchError

# ``select`` and ``signal`` are imported where they are used: this module is imported before
# the workers are forked, where each import is time neither process scores in, and only this
# process polls the pipes, only a worker sets its signals (``signal`` builds three enums).

_HEADER = 8  # bytes of a message's length, little-endian, before its pickle
_READ = 1 << 20  # bytes read from a result pipe at a time
_MAX_MESSAGE = 1 << 40  # a length beyond this is no message of this pool's
# Bytes a result pipe holds (Linux's default, 64 KB, is a fifth of a JSON report's chunk):
# a worker writes its result and goes on while this process is busy with a task of its own.
_RESULT_PIPE = 1 << 20
_SET_PIPE_SIZE = 1031  # fcntl's F_SETPIPE_SZ (Linux), which Python 3.10's fcntl lacks


class WorkerStopped(JsonMatchError):
    """A worker process ended before it gave a result (killed: out of memory, a signal)."""


class _Worker:
    """This process's end of one worker: its pid, its two pipes, and the bytes on their way."""

    def __init__(self, pid: int, tasks: int, results: int) -> None:
        self.pid, self.tasks, self.results = pid, tasks, results
        self.out = bytearray()  # task bytes not yet written
        self.inbox = bytearray()  # result bytes read, not yet a whole message
        self.done: deque[tuple[bool, Any]] = deque()  # results read, in order
        self.running = 0  # tasks sent whose results have not arrived
        self.dropped = 0  # of them, those whose results no caller waits for any more
        self.broken = False  # its pipes gave out: no result will come
        self.ended: str | None = None  # how the process ended, once it has


class _Here:
    """A task this process ran itself: its result (or its exception), in its place."""

    __slots__ = ("ok", "value")

    def __init__(self, ok: bool, value: Any) -> None:
        self.ok, self.value = ok, value


class ForkPool:
    """Up to ``jobs`` worker processes, forked as tasks need them (see the module
    docstring). The caller uses it from a process with no other thread (fork copies only
    the calling thread, not the locks others may hold: parallel.py checks, and each fork
    again)."""

    def __init__(self, jobs: int) -> None:
        self.jobs = jobs
        self.workers: list[_Worker] = []

    def fork_all(self, setup: Callable[[], None]) -> None:
        """Every worker forked now, ahead of the tasks: each runs ``setup`` first (what its
        tasks will need, loaded while the caller builds the first ones), its standard output
        and error /dev/null meanwhile (only the caller reports anything: what ``setup``
        says or raises, the caller meets too), then serves. A worker whose ``setup`` fails
        exits: the caller learns it when a task sent to it is due, if ever."""
        while len(self.workers) < self.jobs:
            self._fork(setup)

    def _fork(self, setup: Callable[[], None] | None = None) -> _Worker:
        if _threads() > 1:  # (parallel.start_method chose fork: none has started since)
            raise RuntimeError("a worker forked from a process running other threads")
        task_read, task_write = os.pipe()
        result_read, result_write = os.pipe()
        _widen(result_write)
        sys.stdout.flush()  # (what is buffered here is written once, never by a worker too)
        sys.stderr.flush()
        pid = os.fork()
        if pid == 0:  # the worker: it never returns into the caller's code
            code = 1
            try:
                os.close(task_write)
                os.close(result_read)
                for other in self.workers:  # the ends of the workers forked before it
                    for fd in (other.tasks, other.results):
                        if fd >= 0:
                            os.close(fd)
                if setup is not None:
                    _set_up(setup)
                code = _serve(task_read, result_write)
            finally:
                os._exit(code)
        os.close(task_read)
        os.close(result_write)
        os.set_blocking(task_write, False)
        worker = _Worker(pid, task_write, result_read)
        self.workers.append(worker)
        return worker

    def map(
        self,
        call: Callable[..., Any],
        tasks: Iterator[tuple[Any, ...]],
        window: int,
        here: Callable[..., Any] | None = None,
        meanwhile: Callable[[], None] | None = None,
    ) -> Iterator[Any]:
        """``call(*args)`` of each ``args`` of ``tasks`` in a worker, or ``here(*args,
        pause=...)`` in this process once every worker has its window; the results in the
        tasks' order. At most ``window`` tasks a worker unanswered, and at most ``2 *
        window`` a hand waiting to be taken. ``meanwhile``: run once, here, as soon as the
        first tasks are on their way (what this process alone needs, done while the workers
        start). An exception while reading ``tasks`` comes after the results of the tasks
        read before it."""
        mapping = _Mapping(self, call, tasks, window, here)
        try:
            yield from mapping.results(meanwhile)
        finally:
            for entry in mapping.order:  # left on their way: their results are dropped
                if isinstance(entry, _Worker):
                    entry.dropped += 1

    # -- one worker's pipes

    def free(self, window: int, fork: bool) -> _Worker | None:
        """The worker with fewest tasks unanswered, if it has fewer than ``window``; else a
        new one, with ``fork`` where fewer than ``jobs`` were forked; else None."""
        free = min((w for w in self.workers if not w.broken), key=lambda w: w.running, default=None)
        if free is not None and free.running < window:
            return free
        if fork and len(self.workers) < self.jobs:
            return self._fork()
        return None

    def send(self, worker: _Worker, message: bytes) -> None:
        worker.out += len(message).to_bytes(_HEADER, "little")
        worker.out += message
        worker.running += 1
        self._write(worker)

    def answered(self, worker: _Worker) -> bool:
        """Whether the result of ``worker``'s oldest task a caller waits for has arrived
        (or never will: the worker stopped)."""
        return len(worker.done) > worker.dropped or worker.broken

    def take(self, worker: _Worker) -> Any:
        """The result of ``worker``'s oldest task, waiting for it (and writing the tasks on
        their way meanwhile)."""
        while True:
            while not worker.done:
                if worker.broken:
                    raise self._stopped(worker)
                self.pump()
            ok, value = worker.done.popleft()
            if not worker.dropped:
                break
            worker.dropped -= 1  # a task an earlier caller left: not this one's result
        if not ok:
            raise value
        return value

    def pump(self, wait: bool = True) -> None:
        """Write what the task pipes take and read what the result pipes hold: once one is
        ready (``wait``), or only what is ready now. A worker whose pipes give out is marked
        ``broken``; its error comes in its turn (:meth:`take`)."""
        import select

        poll = select.poll()
        by_fd: dict[int, _Worker] = {}
        for worker in self.workers:
            if worker.broken:
                continue
            if worker.running:
                poll.register(worker.results, select.POLLIN)
                by_fd[worker.results] = worker
            if worker.out:
                poll.register(worker.tasks, select.POLLOUT)
                by_fd[worker.tasks] = worker
        if not by_fd:
            if wait:  # (a result awaited from a worker given nothing: a fault here)
                raise RuntimeError("no task on its way")
            return
        for fd, events in poll.poll(None if wait else 0):
            worker = by_fd[fd]
            if worker.broken:
                continue
            if fd == worker.tasks:
                if events & (select.POLLERR | select.POLLHUP):
                    worker.broken = True
                else:
                    self._write(worker)
            else:
                self._read(worker)

    def _write(self, worker: _Worker) -> None:
        try:
            while worker.out:
                written = os.write(worker.tasks, worker.out)
                del worker.out[:written]
        except BlockingIOError:
            pass  # the pipe is full: the rest when it drains (pump)
        except BrokenPipeError:
            worker.broken = True

    def _read(self, worker: _Worker) -> None:
        data = os.read(worker.results, _READ)
        if not data:
            worker.broken = True
            return
        inbox = worker.inbox
        inbox += data
        while len(inbox) >= _HEADER:
            size = int.from_bytes(inbox[:_HEADER], "little")
            if size > _MAX_MESSAGE:
                raise RuntimeError("a worker's message is not one of this pool's")
            if len(inbox) < _HEADER + size:
                break
            message = bytes(inbox[_HEADER : _HEADER + size])
            del inbox[: _HEADER + size]
            worker.running -= 1
            worker.done.append(pickle.loads(message))  # noqa: S301 - our own worker's (docstring)

    def stopped(self) -> WorkerStopped:
        """The error of the first worker that stopped."""
        return self._stopped(next(w for w in self.workers if w.broken))

    def _stopped(self, worker: _Worker) -> WorkerStopped:
        """The error of a worker gone without its result: how it ended."""
        if worker.ended is None:
            _, status = os.waitpid(worker.pid, 0)
            worker.ended = _how(status)
        return WorkerStopped(
            f"a worker process stopped before it gave its result ({worker.ended}); "
            "with -j 1 the run needs no worker"
        )

    # -- leaving

    def release(self) -> None:
        """Close the task pipes: each worker exits once its tasks are done, while this
        process goes on (writing the run's output); :meth:`close` then only waits."""
        for worker in self.workers:
            if worker.tasks >= 0:
                os.close(worker.tasks)
                worker.tasks = -1  # (closed: its number may be another file's by now)

    def close(self, stop: bool = False) -> None:
        """Close the task pipes and wait for every worker to exit; with ``stop``, stop them
        first (a run left on an exception: what they do is no longer wanted)."""
        for worker in self.workers:
            if stop and worker.ended is None:
                _terminate(worker.pid)
            for fd in (worker.tasks, worker.results):
                if fd < 0:
                    continue
                try:
                    os.close(fd)
                except OSError:
                    pass
        for worker in self.workers:
            if worker.ended is None:
                try:
                    os.waitpid(worker.pid, 0)
                except ChildProcessError:
                    pass
                worker.ended = "exited"
        self.workers = []


class _Mapping:
    """One call of :meth:`ForkPool.map`: the tasks read, where each went (a worker, or this
    process: ``order``), and the task read but not yet placed."""

    def __init__(
        self,
        pool: ForkPool,
        call: Callable[..., Any],
        tasks: Iterator[tuple[Any, ...]],
        window: int,
        here: Callable[..., Any] | None,
    ) -> None:
        self.pool, self.call, self.tasks, self.window, self.here = pool, call, tasks, window, here
        self.order: deque[_Worker | _Here] = deque()
        self.held = 2 * window * (pool.jobs + (here is not None))  # tasks placed, not taken
        self.ahead: tuple[Any, ...] | None = None
        self.ended = False  # no task left to read
        self.error: Exception | None = None  # what reading the tasks raised, for its turn

    def results(self, meanwhile: Callable[[], None] | None) -> Iterator[Any]:
        while True:
            self.fill(fork=True)
            if meanwhile is not None:
                meanwhile()
                meanwhile = None
            while self.order and self._ready(self.order[0]):
                yield self._take(self.order.popleft())
            if self.here is not None and len(self.order) < self.held and self._peek():
                self._run_here()
            elif self.order or (self._peek() is not None and self._busy()):
                self.pool.pump()  # (a worker's results, or the end of a task left before)
            elif self._peek() is None:
                break
            elif not self._open():  # a task no worker can take, nor ever will
                raise self.pool.stopped()
        if self.error is not None:
            raise self.error

    def _busy(self) -> bool:
        """Whether a worker is still running tasks (those an earlier caller left)."""
        return any(w.running and not w.broken for w in self.pool.workers)

    def _open(self) -> bool:
        """Whether a worker can take a task, or one can still be forked."""
        pool = self.pool
        live = [w for w in pool.workers if not w.broken]
        return len(pool.workers) < pool.jobs or any(w.running < self.window for w in live)

    def _peek(self) -> tuple[Any, ...] | None:
        """The next task, read ahead (None: there is none)."""
        if self.ahead is None and not self.ended:
            try:
                self.ahead = next(self.tasks, None)
            except Exception as exc:  # noqa: BLE001 - raised after the results before it
                self.error = exc
            if self.ahead is None:
                self.ended = True
        return self.ahead

    def fill(self, fork: bool) -> None:
        """Give the workers tasks up to their windows (forking new ones with ``fork``)."""
        while len(self.order) < self.held and self._peek() is not None:
            worker = self.pool.free(self.window, fork)
            if worker is None:
                return
            args, self.ahead = self.ahead, None
            self.pool.send(worker, pickle.dumps((self.call, args), pickle.HIGHEST_PROTOCOL))
            self.order.append(worker)

    def pause(self) -> None:
        """What this process does between the steps of a task of its own: results that came
        read, and each worker given its next tasks (no fork: the stack is a task's)."""
        self.pool.pump(wait=False)
        self.fill(fork=False)

    def _run_here(self) -> None:
        assert self.here is not None and self.ahead is not None
        args, self.ahead = self.ahead, None
        entry = _Here(False, None)
        self.order.append(entry)  # (its place, before the tasks its pauses send out)
        try:
            entry.value = self.here(*args, pause=self.pause)
            entry.ok = True
        except Exception as exc:  # noqa: BLE001 - raised in its turn
            entry.value = exc
            self.ended = True  # (nothing after it is wanted: read no more tasks)

    def _ready(self, entry: _Worker | _Here) -> bool:
        return isinstance(entry, _Here) or self.pool.answered(entry)

    def _take(self, entry: _Worker | _Here) -> Any:
        if isinstance(entry, _Worker):
            return self.pool.take(entry)
        if not entry.ok:
            raise entry.value
        return entry.value


def _threads() -> int:
    """This process's threads, every one and not only Python's (1 where it cannot tell)."""
    try:
        return len(os.listdir("/proc/self/task"))
    except OSError:
        return 1


def _widen(fd: int) -> None:
    """A pipe made to hold _RESULT_PIPE bytes where the system lets it (else as it is)."""
    try:
        import fcntl

        fcntl.fcntl(fd, _SET_PIPE_SIZE, _RESULT_PIPE)
    except (ImportError, OSError):
        pass


def _terminate(pid: int) -> None:
    """SIGTERM to a worker that may have ended already."""
    import signal

    try:
        os.kill(pid, signal.SIGTERM)
    except ProcessLookupError:
        pass


def _how(status: int) -> str:
    import signal

    if os.WIFSIGNALED(status):
        number = os.WTERMSIG(status)
        try:
            name = signal.Signals(number).name
        except ValueError:
            name = f"signal {number}"
        return f"killed by {name}" + (": out of memory?" if number == signal.SIGKILL else "")
    return f"exit status {os.WEXITSTATUS(status)}"


def _set_up(setup: Callable[[], None]) -> None:
    """A worker forked ahead of its tasks: ``setup`` run with standard output and error
    /dev/null, Ctrl-C ignored (the run's to handle: it stops the worker) and SIGTERM ending
    it; the output as it was for the tasks (a task's print is the worker's, as before)."""
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    kept = os.dup(1), os.dup(2)
    null = os.open(os.devnull, os.O_WRONLY)
    os.dup2(null, 1)
    os.dup2(null, 2)
    os.close(null)
    setup()
    sys.stdout.flush()
    sys.stderr.flush()
    for fd, back in zip((1, 2), kept):
        os.dup2(back, fd)
        os.close(back)


def _serve(tasks: int, results: int) -> int:
    """A worker's life: each task read, run and answered, until the task pipe ends (0), or
    until this process's end of the results is gone (1)."""
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the run's to handle: it stops us
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    reader = os.fdopen(tasks, "rb")
    while True:
        header = reader.read(_HEADER)
        if len(header) < _HEADER:
            return 0  # the run closed its end: no more tasks
        message = reader.read(int.from_bytes(header, "little"))
        try:
            call, args = pickle.loads(message)  # noqa: S301 - the run's own (docstring)
            answer: tuple[bool, Any] = (True, call(*args))
        except Exception as exc:  # noqa: BLE001 - raised in the run, in its turn
            answer = (False, exc)
        try:
            data = pickle.dumps(answer, pickle.HIGHEST_PROTOCOL)
        except Exception as exc:  # noqa: BLE001 - a result or an error that does not pickle
            error = answer[1] if not answer[0] else exc
            data = pickle.dumps((False, RuntimeError(f"{type(error).__name__}: {error}")))
        try:
            _write_all(results, len(data).to_bytes(_HEADER, "little") + data)
        except OSError:
            return 1


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]
