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
and the first worker scores while the next is forked, so that forking N workers is no
serial step before the first task. A worker is kept busy by what it has finished, not by
what was taken: each has up to ``window`` tasks it has not answered, and gets the next as
soon as an answer arrives, even while an earlier task of another worker is still awaited
(results wait in order, at most ``2 * window`` a worker).

A task is a function of a module both processes hold (pickled by name) and its arguments.
Results come back in the order the tasks went out; an exception raised by a task is raised
here in its turn. Tasks still on their way when a caller stops reading results (it closed
the iterator, or a result raised) run to their end, and their results are dropped as they
come, so that the pool can take the next call's tasks at once. A worker that stops without a
result (killed: out of memory, a signal) is a :class:`WorkerStopped` naming how it ended.
Leaving the pool closes the task pipes: each worker finishes, sees the end of its pipe
and exits; leaving on an exception (Ctrl-C included) stops the workers first.

Pickle is safe here: this process pickles every task its workers read, and its workers
pickle every result it reads.
"""

from __future__ import annotations

import os
import pickle
import select
import signal
import sys
from collections import deque
from collections.abc import Callable, Iterator
from typing import Any

from ..engine.core.errors import JsonMatchError

_HEADER = 8  # bytes of a message's length, little-endian, before its pickle
_READ = 1 << 20  # bytes read from a result pipe at a time
_MAX_MESSAGE = 1 << 40  # a length beyond this is no message of this pool's


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
        self.ended: str | None = None  # how the process ended, once it has


class ForkPool:
    """Up to ``jobs`` worker processes, forked as tasks need them (see the module
    docstring). The caller uses it from a process with no other thread (fork copies only
    the calling thread, not the locks others may hold: parallel.py checks, and each fork
    again)."""

    def __init__(self, jobs: int) -> None:
        self.jobs = jobs
        self.workers: list[_Worker] = []

    def _fork(self) -> _Worker:
        if _threads() > 1:  # (parallel.start_method chose fork: none has started since)
            raise RuntimeError("a worker forked from a process running other threads")
        task_read, task_write = os.pipe()
        result_read, result_write = os.pipe()
        sys.stdout.flush()  # (what is buffered here is written once, never by a worker too)
        sys.stderr.flush()
        pid = os.fork()
        if pid == 0:  # the worker: it never returns into the caller's code
            code = 1
            try:
                os.close(task_write)
                os.close(result_read)
                for other in self.workers:  # the ends of the workers forked before it
                    os.close(other.tasks)
                    os.close(other.results)
                code = _serve(task_read, result_write)
            finally:
                os._exit(code)
        os.close(task_read)
        os.close(result_write)
        os.set_blocking(task_write, False)
        worker = _Worker(pid, task_write, result_read)
        self.workers.append(worker)
        return worker

    # -- sending tasks and taking results in order

    def map(
        self, call: Callable[..., Any], tasks: Iterator[tuple[Any, ...]], window: int
    ) -> Iterator[Any]:
        """``call(*args)`` of each ``args`` of ``tasks`` in a worker, the results in the
        tasks' order; at most ``window`` tasks a worker unanswered, and at most ``2 *
        window`` a worker waiting to be taken. An exception while reading ``tasks`` comes
        after the results of the tasks read before it."""
        order: deque[_Worker] = deque()
        held = 2 * window * self.jobs  # tasks sent and not taken, at most
        try:
            while True:
                try:
                    args = next(tasks, None)
                except Exception:
                    while order:
                        yield self._take(order.popleft())
                    raise
                if args is None:
                    break
                message = pickle.dumps((call, args), pickle.HIGHEST_PROTOCOL)
                while (worker := self._free(window, len(order) < held)) is None:
                    # every worker has its window of tasks, or results wait to be taken
                    if order and self._answered(order[0]):
                        yield self._take(order.popleft())
                    else:
                        self._pump()
                self._send(worker, message)
                order.append(worker)
            while order:
                yield self._take(order.popleft())
        finally:
            for worker in order:  # left on their way: their results are dropped
                worker.dropped += 1

    def _free(self, window: int, room: bool) -> _Worker | None:
        """The first worker with fewer than ``window`` tasks unanswered, the least loaded;
        a new one forked where every worker has its window and fewer than ``jobs`` run;
        None where none is free, or where results wait and there is no ``room`` for
        more."""
        if not room:
            return None
        free = min(self.workers, key=lambda w: w.running, default=None)
        if free is not None and free.running < window:
            return free
        if len(self.workers) < self.jobs:
            return self._fork()
        return None

    @staticmethod
    def _answered(worker: _Worker) -> bool:
        """Whether the result of ``worker``'s oldest task a caller waits for has arrived."""
        return len(worker.done) > worker.dropped

    def _send(self, worker: _Worker, message: bytes) -> None:
        worker.out += len(message).to_bytes(_HEADER, "little")
        worker.out += message
        worker.running += 1
        self._write(worker)

    def _take(self, worker: _Worker) -> Any:
        """The result of ``worker``'s oldest task, waiting for it (and writing the tasks on
        their way meanwhile)."""
        while True:
            while not worker.done:
                self._pump()
            ok, value = worker.done.popleft()
            if not worker.dropped:
                break
            worker.dropped -= 1  # a task an earlier caller left: not this one's result
        if not ok:
            raise value
        return value

    def _pump(self) -> None:
        """Wait until a pipe is ready, then write what it takes and read what it holds."""
        poll = select.poll()
        by_fd: dict[int, _Worker] = {}
        for worker in self.workers:
            if worker.running:
                poll.register(worker.results, select.POLLIN)
                by_fd[worker.results] = worker
            if worker.out:
                poll.register(worker.tasks, select.POLLOUT)
                by_fd[worker.tasks] = worker
        if not by_fd:  # (a result awaited from a worker given nothing: a fault here)
            raise RuntimeError("no task on its way")
        for fd, events in poll.poll():
            worker = by_fd[fd]
            if fd == worker.tasks:
                if events & (select.POLLERR | select.POLLHUP):
                    raise self._stopped(worker)
                self._write(worker)
            else:
                self._read(worker)

    def _write(self, worker: _Worker) -> None:
        try:
            while worker.out:
                written = os.write(worker.tasks, worker.out)
                del worker.out[:written]
        except BlockingIOError:
            pass  # the pipe is full: the rest when it drains (_pump)
        except BrokenPipeError:
            raise self._stopped(worker) from None

    def _read(self, worker: _Worker) -> None:
        data = os.read(worker.results, _READ)
        if not data:
            raise self._stopped(worker)
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
                try:
                    os.kill(worker.pid, signal.SIGTERM)
                except ProcessLookupError:
                    pass
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


def _threads() -> int:
    """This process's threads, every one and not only Python's (1 where it cannot tell)."""
    try:
        return len(os.listdir("/proc/self/task"))
    except OSError:
        return 1


def _how(status: int) -> str:
    if os.WIFSIGNALED(status):
        number = os.WTERMSIG(status)
        try:
            name = signal.Signals(number).name
        except ValueError:
            name = f"signal {number}"
        return f"killed by {name}" + (": out of memory?" if number == signal.SIGKILL else "")
    return f"exit status {os.WEXITSTATUS(status)}"


def _serve(tasks: int, results: int) -> int:
    """A worker's life: each task read, run and answered, until the task pipe ends (0), or
    until this process's end of the results is gone (1)."""
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
