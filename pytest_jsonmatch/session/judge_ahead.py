"""Golden cases judged ahead of their tests, so that the judge's requests for different cases
overlap: while the tests run one after another, up to N cases whose output is already known
(given in the case, or replayed from a recording) are scored in worker threads, and the
judge keeps their verdicts (semantic.py's memory). Each test then scores its case as always,
in item order, and finds its verdicts known, or being asked for (it waits for that request
instead of sending its own). Scores, statuses and the report are those of a serial run.

A case whose output needs a live call is judged as soon as its call (made ahead by the
target's runner) returns: the call's thread hands the output over (``LiveCalls.ready``)
and it is scored here, so that its judging overlaps the other cases' calls and judging too.
A call that fails hands nothing over, and its test judges nothing ahead. Nothing here
records a comparison or raises: a case that fails ahead fails again, in its own words, in
its test.
"""

from __future__ import annotations

import queue
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from ..calls.case_outputs import Outputs
from ..cases.case_files import GoldenCase
from ..engine.core.errors import JsonMatchError
from .channel import Defaults

if TYPE_CHECKING:
    from ..engine.judge import JudgeFigures

_THREAD = "jsonmatch-judge-ahead"
_JOIN_S = 1.0  # the most closing waits for the threads, all together
_CLAIM_WAIT_S = 900.0  # the most a test waits for its case's judging ahead to end


class JudgeAhead:
    """``concurrency`` threads scoring cases ahead (see the module docstring)."""

    def __init__(
        self,
        outputs: Outputs,
        defaults: Defaults,
        concurrency: int,
        schema_folders: Sequence[Path] = (),
    ) -> None:
        self.outputs, self.defaults, self.concurrency = outputs, defaults, concurrency
        # where a schema's $refs may read, as for the case's own test (jsonmatch_golden's schema_dirs)
        self.schema_folders = tuple(schema_folders)
        self._jobs: queue.SimpleQueue[Callable[[], None] | None] = queue.SimpleQueue()
        self._threads: list[threading.Thread] = []
        self._seen: set[object] = set()
        self._stop = threading.Event()
        self._tabs: dict[object, JudgeFigures] = {}  # what each case's judging ahead cost
        self._done: dict[object, threading.Event] = {}
        # live cases waiting for their call's output: key -> what scoring it needs
        self._live: dict[object, tuple[GoldenCase, int, int, str]] = {}
        self._lock = threading.Lock()
        for calls in outputs.calls.values():
            calls.ready = self.live

    def submit(self, key: object, case: GoldenCase, repeat: int, runs: int, target: str) -> None:
        """Score run ``repeat`` of ``case`` ahead, once, when its output needs no call."""
        if self._stop.is_set() or key in self._seen:
            return
        self._seen.add(key)
        if not self._may_judge(case):
            return
        try:
            live = case.source == "input" and self.outputs.needs_call(case, repeat, runs, target)
        except Exception:  # noqa: BLE001 - the test reports it when it runs
            return
        if live:
            with self._lock:
                self._live[key] = (case, repeat, runs, target)
            return
        done = self._done[key] = threading.Event()
        self._queue(lambda: self._score(key, done, case, repeat, runs, target))

    def live(self, key: object, output: object) -> None:
        """A live case's call returned ``output`` (in the call's thread): judge it ahead. A
        target's TargetResult is judged by its answer, as its test scores it; one whose
        figures its test refuses is not judged at all."""
        from ..calls.call_figures import TargetResult

        if isinstance(output, TargetResult):
            if output.problem() is not None:
                with self._lock:
                    self._live.pop(key, None)
                return
            output = output.answer()
        with self._lock:
            waiting = self._live.pop(key, None)
            if waiting is None or self._stop.is_set():
                return
            done = self._done[key] = threading.Event()
        case, repeat, runs, target = waiting
        self._queue(lambda: self._score(key, done, case, repeat, runs, target, (output,)))

    def _queue(self, job: Callable[[], None]) -> None:
        self._jobs.put(job)
        with self._lock:
            if len(self._threads) >= self.concurrency:
                return
            thread = threading.Thread(target=self._work, daemon=True, name=_THREAD)
            self._threads.append(thread)
        thread.start()

    def _may_judge(self, case: GoldenCase) -> bool:
        """Whether scoring ``case`` may ask the judge: its options or the session's name
        ``semantic`` or a schema (whose fields may), or a type default is the judge. A case
        that cannot is not scored twice for nothing."""
        from ..engine.metrics import REGISTRY

        if any("semantic" in repr(spec) for spec in REGISTRY.type_defaults.values()):
            return True
        text = repr((self.defaults.options, case.options))
        return "semantic" in text or "schema" in text

    def _work(self) -> None:
        while not self._stop.is_set():
            job = self._jobs.get()
            if job is None or self._stop.is_set():
                return
            job()

    def _score(
        self,
        key: object,
        done: threading.Event,
        case: GoldenCase,
        repeat: int,
        runs: int,
        target: str,
        given: tuple[object] | None = None,
    ) -> None:
        """Score run ``repeat`` of ``case``: ``given``, a live call's output, or the output
        the case gives or a recording replays."""
        from ..engine.metrics import REGISTRY
        from ..engine.schemas.loading import references_confined_to
        from .assertion import scrubbed_ignored

        case_id = key[0] if isinstance(key, tuple) and isinstance(key[0], str) else None
        tab = REGISTRY.judge_tab(case=case_id)
        try:
            if given is not None:  # (in the form its test scores: recorded, scrubbed)
                produced = self.outputs.live_form(given[0], case)
            else:
                produced = self.outputs.produce(case, None, repeat, runs, target)
                if produced.error is not None:
                    return
            output, name = produced.output, case.metric or self.defaults.metric
            options = self.defaults.options_for(name, case.options)
            options = scrubbed_ignored(options, produced, name)  # never judged, as in its test
            with tab, references_confined_to(self.schema_folders, "jsonmatch_golden's schema_dirs"):
                case.scorer.scored(output, case.expected, name, options)  # as its test does
        except (JsonMatchError, Exception):  # noqa: BLE001 - its test says what went wrong
            pass
        finally:
            if tab.tab is not None:
                self._tabs[key] = tab.tab
            done.set()

    def claim(self, key: object) -> JudgeFigures | None:
        """What judging run ``key`` ahead cost (its requests), once it is done: the test
        that scores the run reports it. None: it was not judged ahead (a live case whose
        call failed is still waiting: it never will be)."""
        with self._lock:
            self._live.pop(key, None)
            done = self._done.pop(key, None)
        if done is None:
            return None
        if not done.is_set() and not self._stop.is_set():
            done.wait(_CLAIM_WAIT_S)
        return self._tabs.pop(key, None)

    def close(self) -> None:
        """Drop the cases not yet started and let the threads end (the test loop ended).
        Threads still waiting for a request (the loop was interrupted: Ctrl-C, ``-x``) are
        not waited for past a second: they are daemons, and the judge's runner, closed with
        the session, cancels what they wait for."""
        self._stop.set()
        for _ in self._threads:
            self._jobs.put(None)
        deadline = time.monotonic() + _JOIN_S
        for thread in self._threads:
            thread.join(timeout=max(0.0, deadline - time.monotonic()))
