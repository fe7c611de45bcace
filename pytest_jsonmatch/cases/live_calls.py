"""The live calls of one session: the target, called through a :class:`Runner` that is open
while the tests run.

The pytest layer opens the runner when its test loop starts, submits the calls of the cases
that will run (in item order, so that up to N overlap), and closes it when the loop ends,
however it ends. A case takes its own call's outcome by its key, waiting for it, or making
the call then and there when it was not submitted (outside the loop: one call at a time,
with no timeout and no retries).
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Hashable
from dataclasses import replace
from typing import Protocol

from .case_files import GoldenCase
from .call_settings import CallSettings
from .runner import Done, Runner
from .targets import Call, Target


class CallWatch(Protocol):
    """What watches each call as it runs (otel_events.py's ``Telemetry``): ``around(key,
    call)`` returns ``call()``'s value, having watched it, in the call's own thread."""

    def around(self, key: Hashable, call: Callable[[], object]) -> object: ...


class LiveCalls:
    """Calls of ``target`` under ``settings`` (concurrency, timeout, retries, rate), each
    watched by ``watch`` when one is given."""

    def __init__(self, *, settings: CallSettings, target: Target,
                 watch: CallWatch | None = None) -> None:
        self.settings, self.target, self.watch = settings, target, watch
        self._runner: Runner | None = None

    def open(self) -> None:
        """Start taking calls ahead (the test loop starts)."""
        self._runner = Runner(self.settings)

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
        """Queue the call of ``case`` under ``key`` (nothing when the runner is closed)."""
        if self._runner is not None:
            self._runner.submit(key, self._call(case, key))

    def take(self, key: Hashable, case: GoldenCase) -> Done:
        """The outcome of the call under ``key``: the one submitted ahead, or one made now."""
        if self._runner is not None:
            return self._runner.take(key, self._call(case, key))
        runner = Runner()
        try:
            return runner.take(("direct", case.id), self._call(case, key))
        finally:
            runner.close()

    def _call(self, case: GoldenCase, key: Hashable) -> Call:
        """The call of ``case`` as the runner makes it: ``call(awaited)``; an awaitable the
        target returns (an ``async def`` target) is awaited too."""
        # the target gets its own copy of a structured input: one that changes it cannot
        # change what the case (and its recording's digest) holds
        if isinstance(case.input, (dict, list)):
            case = replace(case, input=copy.deepcopy(case.input))
        target, watch = self.target, self.watch
        if watch is None:
            return lambda awaited: awaited(target(case, awaited))
        return lambda awaited: awaited(watch.around(key, lambda: target(case, awaited)))
