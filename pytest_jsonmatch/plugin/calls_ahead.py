"""Live calls started ahead of their tests: while the test loop runs, the target calls of the
golden cases that will run are submitted in item order, up to N at a time (cases/
live_calls.py runs them), so that each item finds its output ready or on its way.

An xdist worker learns its items one at a time: it submits the one it runs, the next, and
those already in its queue, up to N ahead; a test that was running or had a call in flight
when a worker died runs alone (calls/calls_in_flight.py).
"""

from __future__ import annotations

from collections.abc import Generator, Iterable
from typing import TYPE_CHECKING

import pytest

from ..calls.case_outputs import Outputs
from .golden_items import GoldenItem

if TYPE_CHECKING:
    from ..session.judge_ahead import JudgeAhead


class CallsAhead:
    """The plugin object that opens the live calls for the test loop and feeds them."""

    def __init__(self, outputs: Outputs, worker: bool, judge: JudgeAhead | None = None) -> None:
        self.outputs, self.worker, self.judge = outputs, worker, judge
        # how far ahead a worker looks: as many items as the busiest target runs at once
        self.ahead = max(calls.settings.concurrency for calls in outputs.calls.values())
        self.open = False

    @pytest.hookimpl(wrapper=True)
    def pytest_runtestloop(self, session: pytest.Session) -> Generator[None, object, object]:
        """Open the calls when the loop starts; cancel whatever is left when it ends, however
        it ends."""
        self.outputs.open()
        self.open = True
        try:
            # an xdist controller collects no items (its session has none at all under some
            # versions of pytest-xdist); a worker submits as it goes
            if not self.worker and not session.config.option.collectonly:
                self.submit(getattr(session, "items", None) or [])
            return (yield)
        finally:
            self.open = False
            self.outputs.close()
            if self.judge is not None:
                self.judge.close()

    def pytest_collection_finish(self, session: pytest.Session) -> None:
        """Take the recordings' fingerprint once every conftest.py is loaded (their target
        hooks count), before any case is produced: a mistake in it stops the session."""
        for target in self.outputs.calls:
            self.outputs.fingerprint(target)

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_protocol(
        self, item: pytest.Item, nextitem: pytest.Item | None
    ) -> Generator[None, object, object]:
        with self.outputs.alone(item.nodeid):  # a test a dead worker ran: no call beside it
            if self.worker and self.open:
                self._submit_ahead(item, nextitem)
            return (yield)

    def submit(self, items: Iterable[pytest.Item]) -> None:
        """Submit the calls of the golden ``input`` cases among ``items`` that will run."""
        for item in items:
            if not isinstance(item, GoldenItem) or not _will_run(item):
                continue
            case, runs, target = item.case, item.repeat_count(), item.target
            if self.judge is not None:
                for repeat in range(runs):
                    self.judge.submit((item.nodeid, repeat), case, repeat, runs, target)
            if case.source != "input":
                continue
            calls = self.outputs.calls[target]
            for repeat in range(runs):
                key = (item.nodeid, repeat)
                if calls.submitted(key):
                    continue
                try:
                    if not self.outputs.needs_call(case, repeat, runs, target):
                        continue
                except Exception:  # noqa: BLE001 - the test reports it when it runs
                    continue
                calls.submit(key, case)

    def _submit_ahead(self, item: pytest.Item, nextitem: pytest.Item | None) -> None:
        ahead = [item] + ([nextitem] if nextitem is not None else [])
        try:
            interactor = next(
                p
                for p in item.config.pluginmanager.get_plugins()
                if type(p).__name__ == "WorkerInteractor" and hasattr(p, "torun")
            )
            with interactor.torun.lock() as pending:
                indices = [i for i in list(pending) if isinstance(i, int)]
            items = item.session.items
            ahead += [items[i] for i in indices[: self.ahead]]
        except Exception:  # noqa: BLE001 - xdist's internals moved: this item and the next only
            pass
        self.submit(ahead)


def _will_run(item: pytest.Item) -> bool:
    """Whether pytest will run ``item``'s test: no skip mark holds, and no xfail mark with
    run=False (unless --runxfail)."""
    from _pytest.skipping import evaluate_skip_marks, evaluate_xfail_marks

    try:
        if evaluate_skip_marks(item) is not None:
            return False
        xfail = evaluate_xfail_marks(item)
        return xfail is None or xfail.run or bool(item.config.option.runxfail)
    except BaseException:  # noqa: BLE001 - a mark pytest will report when the test runs
        return False
