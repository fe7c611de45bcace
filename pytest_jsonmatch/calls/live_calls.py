"""The live calls of one session: the target, called through a :class:`Runner` that is open
while the tests run.

The pytest layer opens the runner when its test loop starts, submits the calls of the cases
that will run (in item order, so that up to N overlap), and closes it when the loop ends,
however it ends. A case takes its own call's outcome by its key, waiting for it, or making
the call then and there when it was not submitted (outside the loop: one call at a time,
with no timeout and no retries).

Under xdist each call is written to the worker's call log as it starts and ends, and a test
that was running or had a call in flight when a worker died runs alone
(calls_in_flight.py).
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Hashable, Iterator
from contextlib import contextmanager, nullcontext
from typing import Protocol

from ..cases.case_files import GoldenCase
from .call_settings import CallSettings
from .calls_in_flight import CallLog, name_of
from .runner import Done, Runner
from .shared_starts import SharedStarts
from .targets import Awaited, Call, Target


class CallWatch(Protocol):
    """What watches each call as it runs (telemetry/otel_events.py's ``Telemetry``): ``around(key,
    call)`` returns ``call()``'s value, having watched it, in the call's own thread."""

    def around(self, key: Hashable, call: Callable[[], object]) -> object: ...


class LiveCalls:
    """Calls of ``target`` under ``settings`` (concurrency, timeout, retries, rate), each
    watched by ``watch`` when one is given."""

    def __init__(
        self,
        *,
        settings: CallSettings,
        target: Target,
        watch: CallWatch | None = None,
        log: CallLog | None = None,
        starts: SharedStarts | None = None,
    ) -> None:
        self.settings, self.target, self.watch = settings, target, watch
        self.log = log or CallLog()
        self.starts = starts  # the rate's schedule, shared by the session's xdist workers
        self._runner: Runner | None = None
        # told each call's output as the call ends, in its thread (session/judge_ahead.py judges it
        # there, ahead of the test that takes it)
        self.ready: Callable[[Hashable, object], None] | None = None

    def open(self) -> None:
        """Start taking calls ahead (the test loop starts)."""
        self._runner = Runner(self.settings, self.starts)

    def close(self) -> None:
        """Cancel what is queued and in flight (the test loop ended)."""
        runner, self._runner = self._runner, None
        if runner is not None:
            runner.close()

    @property
    def is_open(self) -> bool:
        return self._runner is not None

    def submitted(self, key: Hashable) -> bool:
        return self._runner is not None and self._runner.submitted(key)

    def submit(self, key: Hashable, case: GoldenCase) -> None:
        """Queue the call of ``case`` under ``key`` (nothing when the runner is closed, or
        for a suspect: it runs alone)."""
        if self._runner is not None and not self.log.suspect(name_of(key)):
            self._runner.submit(key, self._call(key, case))

    def take(self, key: Hashable, case: GoldenCase) -> Done:
        """The outcome of the call under ``key``: the one submitted ahead, or one made now."""
        if self._runner is not None:
            return self._runner.take(key, self._call(key, case))
        runner = Runner()
        try:
            return runner.take(("direct", case.id), self._call(key, case))
        finally:
            runner.close()

    def runs_alone(self, name: str) -> bool:
        """Whether test ``name`` is a suspect (a worker died while it ran or had a call in
        flight): no other call runs beside it (:meth:`alone`)."""
        return self._runner is not None and self.log.suspect(name)

    @contextmanager
    def alone(self, name: str) -> Iterator[None]:
        """While test ``name`` runs: if it is a suspect, no other call runs beside it."""
        runner = self._runner if self.runs_alone(name) else None
        with runner.alone() if runner is not None else nullcontext():
            yield

    def _call(self, key: Hashable, case: GoldenCase) -> Call:
        """The call of ``case`` as the runner makes it: ``call(awaited)``; an awaitable the
        target returns (an ``async def`` target) is awaited too."""
        # the target gets its own copy of a structured input: one that changes it cannot
        # change what the case (and its recording's digest) holds
        if isinstance(case.input, (dict, list)):
            case = case.replace(input=copy.deepcopy(case.input))
        target, watch, ready = self.target, self.watch, self.ready
        # the network block's module loads with a session's first call, never without one
        from .offline import for_case

        def call(awaited: Awaited) -> object:
            with for_case(name_of(key)):  # a connection the network block refuses names it
                if watch is None:
                    value = awaited(target(case, awaited))
                else:
                    value = awaited(watch.around(key, lambda: target(case, awaited)))
            if ready is not None:
                ready(key, value)
            return value

        return self.log.logged(name_of(key), call)
