"""Which calls a worker had in flight when it died, and what that makes of each test
(calls/calls_in_flight.py); and a suspect's run alone (``Runner.alone``). The whole story
with real xdist workers is in tests/plugin/test_xdist.py."""

from __future__ import annotations

import os
import threading
import time

import pytest

from pytest_jsonmatch.calls.call_settings import CallSettings
from pytest_jsonmatch.calls.calls_in_flight import CallLog, Deaths, in_flight
from pytest_jsonmatch.calls.runner import Runner
from tests.helpers.timeout import GENEROUS, within


def _started(log: CallLog, name: str) -> None:
    """A call of ``name`` that starts and never ends (its worker dies in it)."""
    entered = threading.Event()
    call = log.logged(name, lambda awaited: (entered.set(), threading.Event().wait())[0])
    threading.Thread(target=call, args=(None,), daemon=True).start()
    assert entered.wait(5)


def test_the_log_shows_the_calls_started_and_not_ended_even_after_a_line_cut_short(tmp_path):
    path = str(tmp_path / "gw0.log")
    log = CallLog(path)
    assert log.logged("a", lambda awaited: "out")(None) == "out"  # started and ended
    with pytest.raises(ValueError):
        log.logged("b", lambda awaited: int("x"))(None)  # ended by raising
    _started(log, "c::d")
    _started(log, "second run of\na repeated test")  # any name: each is one JSON line
    log.logged("c::d", lambda awaited: None)(None)  # a second run of c::d ends; one is on
    with open(path, "ab") as file:
        file.write(b'+"cut sho')  # the death of the process cut this line short
    assert in_flight(path) == ["c::d", "second run of\na repeated test"]
    assert in_flight(str(tmp_path / "never-written.log")) == []


def test_the_running_test_is_blamed_only_when_no_other_call_was_in_flight(tmp_path):
    deaths = Deaths()
    sent: list[str] = []
    workers = {}
    for worker in ("gw0", "gw1", "gw2", "gw3"):
        workers[worker] = CallLog(deaths.log_path(worker))
    assert os.path.dirname(deaths.log_path("gw0")) == deaths.folder
    # gw0 dies running t1 with only t1's own call in flight: t1 is blamed
    _started(workers["gw0"], "t1")
    deaths.worker_down("gw0")
    blamed = deaths.rule_on("gw0", "t1", reported=False, send_back=sent.append)
    assert (blamed.fate, blamed.calls_in_flight, sent) == ("blamed", ("t1",), [])
    assert blamed.reason == (
        "the xdist worker gw0 died running this test, and no other call was in flight"
    )
    # gw1 dies running t2 while t3's call runs ahead: t2 is sent back, and both are suspects,
    # which every worker reads (so that neither runs ahead again)
    _started(workers["gw1"], "t3")
    deaths.worker_down("gw1")
    assert workers["gw2"].suspect("t3") and not workers["gw2"].suspect("t2")
    assert deaths.rule_on("gw1", "t2", reported=False, send_back=sent.append).fate == "sent back"
    assert sent == ["t2"] and workers["gw2"].suspect("t2") and not workers["gw2"].suspect("t9")
    assert deaths.deaths[-1].to_dict() == {
        "worker": "gw1",
        "running": "t2",
        "calls_in_flight": ["t3"],
        "verdict": "sent back",
    }
    # a test whose result reached the controller before its worker died keeps it
    _started(workers["gw2"], "t4")
    deaths.worker_down("gw2")
    assert deaths.rule_on("gw2", "t2", reported=True, send_back=sent.append).fate == "had reported"
    assert sent == ["t2"]
    # t2 never reports, t3 is not seen again: both lost calls; t1 was blamed, not lost
    lost = deaths.finish({"t4"})
    assert sorted(lost) == ["t2", "t3"]
    assert lost["t3"].startswith(
        "lost call: the xdist worker gw1 died while this test or its call was in flight"
    ) and lost["t3"].endswith("blamed on no one")
    assert not os.path.exists(deaths.folder)  # the logs are removed at the end


def test_a_test_sent_back_twice_or_that_cannot_be_sent_back_is_lost(tmp_path):
    deaths = Deaths()
    log = CallLog(deaths.log_path("gw0"))
    _started(log, "other")
    fates = []
    for worker in ("gw0", "gw0", "gw0"):
        deaths.worker_down(worker)
        fates.append(deaths.rule_on(worker, "t", reported=False, send_back=lambda n: None).fate)
    assert fates == ["sent back", "sent back", "lost"]

    def cannot(name: str) -> None:
        raise NotImplementedError  # as xdist's loadscope, loadfile and each schedulers do

    deaths.worker_down("gw0")
    assert deaths.rule_on("gw0", "u", reported=False, send_back=cannot).fate == "lost"
    assert sorted(deaths.finish(set())) == ["other", "t", "u"]


def test_without_a_log_nothing_is_written_and_no_one_is_a_suspect():
    log = CallLog()
    call = lambda awaited: "out"  # noqa: E731
    assert log.logged("a", call) is call and not log.suspect("a")


def test_a_block_run_alone_waits_for_the_calls_in_flight_and_no_call_starts_beside_it():
    runner = Runner(CallSettings(concurrency=2))
    events: list[str] = []
    started = threading.Event()

    def call(name: str, seconds: float):
        def run(awaited: object) -> str:
            events.append(f"{name} starts")
            started.set()
            time.sleep(seconds)
            events.append(f"{name} ends")
            return name

        return run

    try:
        # (0.15 s each: room for a free worker to start what it must not, milliseconds)
        runner.submit("ahead", call("ahead", 0.15))
        assert started.wait(5)
        with runner.alone():
            events.append("alone")
            runner.submit("queued", call("queued", 0))
            time.sleep(0.15)  # a worker is free, but holds off while the block runs
            assert runner.take("mine", call("mine", 0)).value == "mine"
            events.append("alone ends")
        assert runner.take("queued", call("queued", 0)).value == "queued"
        assert runner.take("ahead", call("ahead", 0)).value == "ahead"
    finally:
        runner.close()
    assert events == [
        "ahead starts",
        "ahead ends",
        "alone",
        "mine starts",
        "mine ends",
        "alone ends",
        "queued starts",
        "queued ends",
    ]


def test_a_call_queued_for_the_test_running_alone_is_taken_by_that_test():
    # queued before its test became a suspect: the workers are held, so the test runs it
    # itself rather than wait for them (which would wait for good)
    runner = Runner(CallSettings(concurrency=1))
    taken: list[object] = []
    try:
        with runner.alone():
            runner.submit("mine", lambda awaited: "queued call")
            taker = threading.Thread(
                target=lambda: taken.append(
                    runner.take("mine", lambda awaited: "a new call").value
                ),
                daemon=True,
            )
            taker.start()
            taker.join(5)
        assert taken == ["queued call"]
    finally:
        runner.close()


@pytest.mark.parametrize("kind", ["fifo", "directory", "link"])
def test_a_log_that_is_no_regular_file_is_neither_written_nor_read(tmp_path, kind):
    # the logs are the plugin's own files: a pipe in a log's place would block the worker
    # that opens it to write (and the controller that reads it), a link would be followed
    path = tmp_path / "gw0.log"
    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "directory":
        path.mkdir()
    else:
        (tmp_path / "elsewhere").write_text('+"t::a"\n')
        path.symlink_to(tmp_path / "elsewhere")
    with within(GENEROUS):
        log = CallLog(str(path))
        log.logged("t::a", lambda awaited: 1)(None)  # runs, unlogged
        assert in_flight(str(path)) == []
        assert not log.suspect("t::a")
    if kind == "link":
        assert (tmp_path / "elsewhere").read_text() == '+"t::a"\n'  # not written through
