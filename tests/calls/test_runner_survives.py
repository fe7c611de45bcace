"""The runner outlives whatever an async target raises: asyncio lets SystemExit and
KeyboardInterrupt from a task end the event loop itself, so the runner carries them off
the loop and raises them in the thread of the call; every later async call is served."""

from __future__ import annotations

import asyncio

import pytest

from pytest_jsonmatch.calls.call_settings import CallSettings
from pytest_jsonmatch.calls.runner import Runner


def _async_call(raised: BaseException | None, value: object = "ok"):
    async def target() -> object:
        await asyncio.sleep(0)
        if raised is not None:
            raise raised
        return value

    return lambda awaited: awaited(target())


@pytest.mark.parametrize(
    "raised",
    [SystemExit(3), KeyboardInterrupt(), GeneratorExit()],
    ids=["SystemExit", "KeyboardInterrupt", "GeneratorExit"],
)
def test_an_async_target_that_raises_a_base_exception_leaves_the_loop_serving(raised):
    runner = Runner(CallSettings(timeout=5.0))
    try:
        done = runner.take("first", _async_call(raised))
        assert type(done.error) is type(raised) and done.figures.failed
        # the same loop serves the next calls, at once (not "timed out")
        for i in range(3):
            later = runner.take(f"later-{i}", _async_call(None, i))
            assert (later.value, later.error) == (i, None)
        assert runner._loop_thread is not None and runner._loop_thread.is_alive()
    finally:
        runner.close()
