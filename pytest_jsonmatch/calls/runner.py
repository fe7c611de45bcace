"""Calling the model for golden cases with ``input``: up to N calls at a time, each bounded by
a timeout, retried when the failure is worth retrying, started no faster than a rate limit.

The session's live calls (live_calls.py) make one :class:`Runner` when the test loop starts
and close it when the loop ends, however it ends (every test run, -x or --maxfail, Ctrl-C, a target that
raised ``KeyboardInterrupt`` or ``pytest.exit``). It submits the live calls of the items
pytest will run, in item order; each item then takes its own call's outcome (:meth:`take`),
waiting for it, or making the call then and there when it was not submitted. Outcomes are
consumed in item order by the test that owns them, so scores, statuses and the report are
those of a serial run; only the calls overlap.

How a call runs: one of N worker threads takes the next job in submission order and runs
its attempts. Each attempt waits for its turn under the rate limit (evenly spaced starts for
the whole process), then calls the target in a fresh daemon thread: a plain function runs
there; an awaitable it returns runs on the runner's one event loop (its own thread). The
worker waits at most the timeout: an async call that overruns is cancelled; a plain
function cannot be interrupted, so its thread is abandoned (a daemon: it never holds up
the end of the process) and no longer counts against N. Closing cancels the queued jobs and
the async calls in flight, stops the loop and joins every thread it can.

Nothing here imports asyncio until a target hands back an awaitable.
"""

from __future__ import annotations

import contextvars
import queue
import threading
import time
from collections.abc import Awaitable, Callable, Hashable, Iterator
from concurrent.futures import Future
from concurrent.futures import wait as futures_wait
from contextlib import contextmanager
from typing import TYPE_CHECKING

from ..engine.core.errors import CaseFileError
from ..engine.core.slotted import Slotted
from .call_figures import CallFigures, TargetResult
from .call_settings import CallSettings
from .file_reads import watched
from .leftover_processes import clock_ticks, end_processes, started_below
from .retries import TargetTimeout, retry_delay

if TYPE_CHECKING:  # asyncio is imported once a target hands back an awaitable, not before
    import asyncio

    from .shared_starts import SharedStarts
    from .targets import Call

_THREAD_PREFIX = "jsonmatch-"


class _Stopped(BaseException):
    """The runner was closed while a call waited or ran."""


class Done(Slotted):
    """A finished call: its output (``error`` None) or the exception that ended it.
    (Slotted, not a dataclass: this module loads with every session that calls a target.)"""

    __slots__ = ("value", "error", "figures", "reads")

    value: object
    error: BaseException | None
    figures: CallFigures
    reads: frozenset[str]  # the files the target opened for reading (file_reads)

    def __init__(
        self,
        value: object = None,
        error: BaseException | None = None,
        figures: CallFigures = CallFigures(),  # noqa: B008 (frozen)
        reads: frozenset[str] = frozenset(),
    ) -> None:
        self.value, self.error, self.figures, self.reads = value, error, figures, reads


class _Job:
    def __init__(self, key: Hashable, fn: Call) -> None:
        self.key, self.fn = key, fn
        self.context = contextvars.copy_context()
        self.done = threading.Event()
        self.outcome: Done | None = None
        self.reads: set[str] = set()  # what its target opened for reading, as it ran
        self.claimed = False  # a thread took it to run
        self.box: Future[object] | None = None  # the running attempt's
        self.loop_future: Future[object] | None = (
            None  # the running attempt's coroutine on the loop
        )


class Runner:
    """Live calls of one session (see the module docstring)."""

    def __init__(
        self,
        settings: CallSettings = CallSettings(),  # noqa: B008 (frozen)
        starts: SharedStarts | None = None,
    ) -> None:
        """``starts``: the rate limit's schedule shared with the session's other processes
        (shared_starts.py); without it, starts are spaced in this process alone."""
        self.starts = starts
        self.concurrency, self.timeout = settings.concurrency, settings.timeout
        self.retries, self.retry_timeouts = settings.retries, settings.retry_timeouts
        self.retry_budget = settings.retry_budget
        self.interval = 1.0 / settings.rate if settings.rate else 0.0
        self._jobs: dict[Hashable, _Job] = {}
        self._queue: queue.SimpleQueue[_Job | None] = queue.SimpleQueue()
        self._workers: list[threading.Thread] = []
        self._lock = threading.Lock()
        self._running: set[_Job] = set()
        self._held, self._active = False, 0  # held: no worker starts a job; active: running ones
        self._changed = threading.Condition()
        self._stop = threading.Event()
        self._next_start = 0.0
        self._loop: asyncio.AbstractEventLoop | None = None
        self._loop_thread: threading.Thread | None = None
        # a call abandoned (timed out, or cut off by close) may leave processes behind: the
        # ones started since now are ended when the runner closes (children.py)
        self._since, self._abandoned = clock_ticks(), False

    # -- submitting and taking ------------------------------------------------------------

    def submitted(self, key: Hashable) -> bool:
        return key in self._jobs

    def submit(self, key: Hashable, fn: Call) -> None:
        """Queue a call (``fn(awaited)`` makes it; ``awaited`` runs an awaitable on the
        runner's loop). Calls start in the order they are submitted."""
        if self._stop.is_set() or key in self._jobs:
            return
        job = _Job(key, fn)
        self._jobs[key] = job
        self._queue.put(job)
        if len(self._workers) < self.concurrency:
            worker = threading.Thread(
                target=self._work, daemon=True, name=f"{_THREAD_PREFIX}worker-{len(self._workers)}"
            )
            self._workers.append(worker)
            worker.start()

    def take(self, key: Hashable, fn: Call) -> Done:
        """The outcome of the call for ``key``: waited for when it was submitted, else made
        now, in this thread."""
        submitted = self._jobs.pop(key, None)
        job = submitted or _Job(key, fn)
        if submitted is None or self._claim(job, here=True):
            with self._slot():
                self._run(job)
        else:
            while not job.done.wait(0.25):  # short waits: Ctrl-C is seen at once
                pass
        assert job.outcome is not None
        return job.outcome

    # -- running --------------------------------------------------------------------------

    @contextmanager
    def alone(self) -> Iterator[None]:
        """Hold the workers while the block runs: it starts once no job runs, and no job
        starts until it ends; the calls it takes run in its own thread."""
        with self._changed:
            self._held = True
            while self._active and not self._stop.is_set():
                self._changed.wait(0.25)
        try:
            yield
        finally:
            with self._changed:
                self._held = False
                self._changed.notify_all()

    @contextmanager
    def _slot(self) -> Iterator[None]:
        """One of the N places for a call a test runs in its own thread: waited for while the
        workers run N calls (the judge's queued verdicts, say), so that never more than N run
        at once. While the workers are held none of theirs runs, and none is needed."""
        with self._changed:
            counted = not self._held
            while counted and self._active >= self.concurrency and not self._stop.is_set():
                self._changed.wait(0.25)
            self._active += counted
        try:
            yield
        finally:
            with self._changed:
                self._active -= counted
                self._changed.notify_all()

    def _claim(self, job: _Job, *, here: bool = False) -> bool:
        """Whether this thread is to run ``job``: a worker's job, once nothing holds the
        workers and fewer than N calls run (a test's own call takes a place: ``_slot``); a
        waiting job is taken by its test while they are held."""
        with self._changed:
            while (
                (self._held or self._active >= self.concurrency)
                and not here
                and not self._stop.is_set()
            ):
                self._changed.wait(0.25)
            if job.claimed or (here and not self._held):
                return False
            job.claimed, self._active = True, self._active + (not here)
            return True

    def _work(self) -> None:
        while not self._stop.is_set():
            job = self._queue.get()
            if job is None or self._stop.is_set():
                break
            if not self._claim(job):
                continue
            try:
                self._run(job)
            finally:
                with self._changed:
                    self._active -= 1
                    self._changed.notify_all()

    def _run(self, job: _Job) -> None:
        attempts, started, waited = 0, time.perf_counter(), 0.0
        try:
            while True:
                attempts += 1
                self._wait_turn()
                started = time.perf_counter()
                try:
                    value = self._attempt(job)
                except _Stopped:
                    raise
                except Exception as exc:  # noqa: BLE001 - judged for a retry, then kept
                    delay = self._retry_delay(exc, attempts, waited)
                    if delay is None:
                        job.outcome = Done(error=exc, figures=_failed(started, attempts))
                        return
                    if self._stop.wait(delay):
                        raise _Stopped() from None
                    waited += delay
                    continue
                job.outcome = _answered(job, value, started, attempts)
                return
        except _Stopped:
            job.outcome = Done(
                error=CaseFileError("the call was cancelled: the session stopped"),
                figures=CallFigures(None, attempts, failed=True),
            )
        except BaseException as exc:  # noqa: BLE001 (KeyboardInterrupt, pytest.exit: for the test to raise)
            job.outcome = Done(error=exc, figures=_failed(started, attempts))
        finally:
            job.done.set()

    def _retry_delay(self, exc: Exception, attempts: int, waited: float) -> float | None:
        """How long to wait before the next attempt after ``exc`` (None: give up): retried
        while attempts remain and the call's retry budget is not spent."""
        if attempts > self.retries:
            return None
        delay = retry_delay(exc, attempts, self.retry_timeouts)
        if delay is not None and waited + delay > self.retry_budget:
            return None  # the call's retry budget would be spent: give up now
        return delay

    def _wait_turn(self) -> None:
        """Wait for this call's start under the rate limit: starts evenly spaced."""
        if self._stop.is_set():
            raise _Stopped()
        if not self.interval:
            return
        with self._lock:
            if self.starts is not None:  # the session's schedule, every worker's starts in it
                start = self.starts.reserve()
            else:
                start = max(time.monotonic(), self._next_start)
                self._next_start = start + self.interval
            now = time.monotonic()
        if start > now and self._stop.wait(start - now):
            raise _Stopped()

    def _attempt(self, job: _Job) -> object:
        box: Future[object] = Future()
        job.box, job.loop_future = box, None

        def awaited(value: object) -> object:
            import inspect

            if not inspect.isawaitable(value):
                return value
            future = self._on_loop(value)
            job.loop_future = future
            if self._stop.is_set() or box.done():  # closed, or timed out, meanwhile
                future.cancel()
            try:
                return future.result()
            except _LoopEscape as escape:
                raise escape.raised from None

        with self._lock:
            self._running.add(job)
        thread = threading.Thread(
            target=_call_into, args=(job, awaited, box), daemon=True, name=f"{_THREAD_PREFIX}call"
        )
        thread.start()
        try:
            return self._wait_for(job, box)
        finally:
            with self._lock:
                self._running.discard(job)
            if self._stop.is_set():
                raise _Stopped()

    def _wait_for(self, job: _Job, box: Future[object]) -> object:
        """What the call puts in ``box``: its result, or its exception raised; past the
        timeout the call is abandoned (TargetTimeout), and a closed runner stops it."""
        deadline = None if self.timeout is None else time.monotonic() + self.timeout
        while True:
            left = 0.25 if deadline is None else min(0.25, deadline - time.monotonic())
            # wait(), not result(timeout): a target may raise TimeoutError itself
            futures_wait([box], timeout=max(left, 0))
            if box.cancelled():
                raise _Stopped()
            if box.done():
                return box.result()
            if deadline is not None and time.monotonic() >= deadline:
                self._abandon(job, box)
                raise TargetTimeout(f"target timed out after {self.timeout:g} s")

    def _abandon(self, job: _Job, box: Future[object]) -> None:
        self._abandoned = True
        box.cancel()  # a late answer is dropped
        if job.loop_future is not None:
            job.loop_future.cancel()  # cancels the task on the loop

    # -- the event loop ---------------------------------------------------------------------

    def _on_loop(self, awaitable: Awaitable[object]) -> Future[object]:
        import asyncio

        with self._lock:
            if self._loop is None:
                loop = asyncio.new_event_loop()
                thread = threading.Thread(
                    target=loop.run_forever, daemon=True, name=f"{_THREAD_PREFIX}event-loop"
                )
                thread.start()
                self._loop, self._loop_thread = loop, thread
        return asyncio.run_coroutine_threadsafe(_awaited(awaitable), self._loop)

    # -- closing -----------------------------------------------------------------------------

    def close(self) -> None:
        """Cancel what is queued and in flight, stop the loop, join the threads."""
        self._stop.set()
        if self.starts is not None:
            self.starts.close()
        for job in list(self._jobs.values()):
            if not job.done.is_set() and job not in self._running:
                job.outcome = job.outcome or Done(
                    error=CaseFileError("the call was cancelled: the session stopped")
                )
                job.done.set()
        with self._lock:
            running = list(self._running)
        self._abandoned = self._abandoned or bool(running)
        for job in running:
            if job.box is not None:
                job.box.cancel()
            if job.loop_future is not None:
                job.loop_future.cancel()
        for _ in self._workers:
            self._queue.put(None)
        for worker in self._workers:
            worker.join(timeout=5)
        self._close_loop()
        self._jobs.clear()
        if self._abandoned and self._since is not None:
            end_processes(started_below(self._since))

    def _close_loop(self) -> None:
        loop, thread = self._loop, self._loop_thread
        if loop is None or thread is None:
            return
        import asyncio

        async def cancel_all() -> None:
            tasks = [t for t in asyncio.all_tasks() if t is not asyncio.current_task()]
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
            await loop.shutdown_asyncgens()

        try:
            asyncio.run_coroutine_threadsafe(cancel_all(), loop).result(timeout=5)
        except Exception:  # noqa: BLE001 - a task that will not end: the loop stops anyway
            pass
        loop.call_soon_threadsafe(loop.stop)
        thread.join(timeout=5)
        if not thread.is_alive():
            loop.close()
        self._loop = self._loop_thread = None


async def _awaited(awaitable: Awaitable[object]) -> object:
    """The awaitable's result on the runner's loop. asyncio lets ``SystemExit`` and
    ``KeyboardInterrupt`` from a task end the loop itself: they leave it wrapped, and
    ``awaited`` raises them again in the thread of the call, so the loop serves every
    later case."""
    try:
        return await awaitable
    except (SystemExit, KeyboardInterrupt) as exc:
        raise _LoopEscape(exc) from None


class _LoopEscape(Exception):
    """A ``SystemExit`` or ``KeyboardInterrupt`` raised by an async target, carried off its
    event loop."""

    def __init__(self, raised: BaseException) -> None:
        super().__init__(raised)
        self.raised = raised


def _call_into(job: _Job, awaited: Callable[[object], object], box: Future[object]) -> None:
    """Call the target (in its own thread) and put its result, or its exception, in
    ``box`` for the waiting thread, unless the box was settled meanwhile (timed out,
    closed)."""
    try:
        result = job.context.copy().run(watched, job.fn, awaited, seen=job.reads)
    except BaseException as exc:  # noqa: BLE001 - handed to the waiting thread
        if not box.done():
            try:
                box.set_exception(exc)
            except Exception:  # noqa: BLE001 - closed meanwhile
                pass
        return
    if not box.done():
        try:
            box.set_result(result)
        except Exception:  # noqa: BLE001 - timed out or closed meanwhile
            pass


def _failed(started: float, attempts: int) -> CallFigures:
    """The figures of a call that failed after ``attempts``, the last started at ``started``."""
    return CallFigures(time.perf_counter() - started, attempts, failed=True)


def _answered(job: _Job, value: object, started: float, attempts: int) -> Done:
    """A call's answer as the runner hands it on: a target's ``TargetResult`` unwrapped into
    its answer and usage (one its own checks refuse is an error), with the call's figures."""
    usage: TargetResult | None = None
    if isinstance(value, TargetResult):
        if (problem := value.problem()) is not None:  # checked at the door
            return Done(error=CaseFileError(problem), figures=_failed(started, attempts))
        usage, value = value, value.answer()
    return Done(
        value,
        reads=frozenset(job.reads),
        figures=CallFigures(
            time.perf_counter() - started,
            attempts,
            usage.input_tokens if usage else None,
            usage.output_tokens if usage else None,
            usage.cost if usage else None,
            finish_reason=usage.finish_reason if usage else None,
        ),
    )
