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
import math
import queue
import sys
import threading
import time
from collections.abc import Awaitable, Hashable, Iterator, Mapping
from concurrent.futures import Future
from concurrent.futures import wait as futures_wait
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, TypeVar

from ..engine.core.errors import CaseFileError, TruncatedError, shown
from .call_settings import CallSettings
from .children import clock_ticks, end_processes, started_below
from .file_reads import watched
from .retries import TargetTimeout, retry_delay

if TYPE_CHECKING:  # asyncio is imported once a target hands back an awaitable, not before
    import asyncio

    from .shared_starts import SharedStarts
    from .targets import Call

_THREAD_PREFIX = "jsonmatch-"
_Number = TypeVar("_Number", int, float)


@dataclass(frozen=True)
class TargetResult:
    """What a target may return instead of the bare output: the output and what the call
    cost (``input_tokens``, ``output_tokens``, ``cost``: per case in the report, totalled in
    the summary; leave out what you do not know); ``finish_reason`` as the API says it
    (``length`` or ``max_tokens``: the answer was cut off, whatever its text looks like);
    ``tool_calls`` as the client gives them, the output then being the assistant message
    ``{"role": "assistant", "content": output, "tool_calls": ...}`` (docs/tool-calls.md)."""

    output: object
    input_tokens: int | None = None
    output_tokens: int | None = None
    cost: float | None = None
    finish_reason: str | None = None
    tool_calls: object = None

    def answer(self) -> object:
        """The case's output: ``output``, or the message holding it and the tool calls."""
        if self.tool_calls is None:
            return self.output
        return {"role": "assistant", "content": self.output, "tool_calls": self.tool_calls}

    def problem(self) -> str | None:
        """What is wrong with the usage figures, in words (None: they can be reported):
        token counts are whole numbers, a cost a finite number, none of them negative; a
        finish reason is text."""
        if self.finish_reason is not None and not isinstance(self.finish_reason, str):
            return (
                f"the target's TargetResult.finish_reason must be text or None, "
                f"not {shown(self.finish_reason)}"
            )
        for name in ("input_tokens", "output_tokens", "cost"):
            value = getattr(self, name)
            whole = name != "cost"
            kind = (int,) if whole else (int, float)
            if value is None:
                continue
            # a cost is summed as a float: NaN, infinity and integers past float range are out
            if (
                isinstance(value, bool)
                or not isinstance(value, kind)
                or value != value
                or value < 0
                or (not whole and value > sys.float_info.max)
            ):
                wanted = "a whole number" if whole else "a finite number"
                return (
                    f"the target's TargetResult.{name} must be {wanted} >= 0 or None, "
                    f"not {shown(value)}"
                )
        return None


# The finish reasons that mean the model hit its token limit: OpenAI's and Mistral's
# ``length``, Anthropic's ``max_tokens``, Gemini's ``MAX_TOKENS`` (compared in lower case).
CUT_OFF_REASONS = ("length", "max_tokens")


@dataclass(frozen=True)
class CallFigures:
    """What one case's call took: the wall time of the attempt that answered (or failed
    last), how many attempts were made, the usage its target reported, and whether the call
    failed in the end."""

    latency_s: float | None = None
    attempts: int = 0
    input_tokens: int | None = None
    output_tokens: int | None = None
    cost: float | None = None
    failed: bool = False
    finish_reason: str | None = None  # why the model stopped, as the target reported it

    @property
    def cut_off(self) -> bool:
        """Whether the model stopped at its token limit: its answer is cut off."""
        return (self.finish_reason or "").lower() in CUT_OFF_REASONS

    def cut_error(self) -> TruncatedError:
        """The error of an answer the model's own finish reason marks as cut off."""
        error = TruncatedError(
            f"actual was cut off: the target reported finish_reason {self.finish_reason!r} "
            f"(the model stopped at its token limit), so its answer is not whole whatever "
            f"its text looks like"
        )
        error.side = "actual"
        return error

    def to_dict(self) -> dict[str, object]:
        out: dict[str, object] = {
            "latency_s": self.latency_s,
            "attempts": self.attempts,
            "input_tokens": self.input_tokens,
            "output_tokens": self.output_tokens,
            "cost": self.cost,
            "failed": self.failed,
        }
        if self.finish_reason is not None:  # only when reported: older recordings unchanged
            out["finish_reason"] = self.finish_reason
        return out

    @classmethod
    def from_dict(cls, data: object) -> CallFigures | None:
        if not isinstance(data, Mapping):
            return None
        get = data.get  # the mapping's: a nested function does not see data narrowed to one

        def number(key: str, kind: type[_Number]) -> _Number | None:
            value = get(key)
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                return None
            return kind(value) if math.isfinite(value) and value >= 0 else None

        return cls(
            number("latency_s", float),
            number("attempts", int) or 0,
            number("input_tokens", int),
            number("output_tokens", int),
            number("cost", float),
            data.get("failed") is True,
            reason if isinstance(reason := get("finish_reason"), str) else None,
        )


def attempts_note(call: CallFigures | None) -> str:
    """How many attempts a failed call made, as an error message ends: `` (3 attempts)``."""
    if call is None or not call.attempts:
        return ""
    return f" ({call.attempts} attempt{'' if call.attempts == 1 else 's'})"


class _Stopped(BaseException):
    """The runner was closed while a call waited or ran."""


@dataclass
class Done:
    """A finished call: its output (``error`` None) or the exception that ended it."""

    value: object = None
    error: BaseException | None = None
    figures: CallFigures = CallFigures()
    reads: frozenset[str] = frozenset()  # the files the target opened for reading (file_reads)


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

    def _claim(self, job: _Job, *, here: bool = False) -> bool:
        """Whether this thread is to run ``job``: a worker's job, once nothing holds the
        workers; a waiting job is taken by its test while they are held."""
        with self._changed:
            while self._held and not here and not self._stop.is_set():
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
        usage: TargetResult | None = None
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
                    delay = (
                        retry_delay(exc, attempts, self.retry_timeouts)
                        if attempts <= self.retries
                        else None
                    )
                    if delay is not None and waited + delay > self.retry_budget:
                        delay = None  # the call's retry budget would be spent: give up now
                    if delay is None:
                        job.outcome = Done(
                            error=exc,
                            figures=CallFigures(
                                time.perf_counter() - started, attempts, failed=True
                            ),
                        )
                        return
                    if self._stop.wait(delay):
                        raise _Stopped() from None
                    waited += delay
                    continue
                if isinstance(value, TargetResult):
                    if (problem := value.problem()) is not None:  # checked at the door
                        job.outcome = Done(
                            error=CaseFileError(problem),
                            figures=CallFigures(
                                time.perf_counter() - started, attempts, failed=True
                            ),
                        )
                        return
                    usage, value = value, value.answer()
                job.outcome = Done(
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
                return
        except _Stopped:
            job.outcome = Done(
                error=CaseFileError("the call was cancelled: the session stopped"),
                figures=CallFigures(None, attempts, failed=True),
            )
        except BaseException as exc:  # noqa: BLE001 (KeyboardInterrupt, pytest.exit: for the test to raise)
            job.outcome = Done(
                error=exc, figures=CallFigures(time.perf_counter() - started, attempts, failed=True)
            )
        finally:
            job.done.set()

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

        def call() -> None:
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

        with self._lock:
            self._running.add(job)
        thread = threading.Thread(target=call, daemon=True, name=f"{_THREAD_PREFIX}call")
        thread.start()
        try:
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
        finally:
            with self._lock:
                self._running.discard(job)
            if self._stop.is_set():
                raise _Stopped()

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
