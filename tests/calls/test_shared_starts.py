"""The rate limit's schedule shared by processes (calls/shared_starts.py): starts reserved by
several processes at once come out exactly one interval apart, whoever takes them."""

from __future__ import annotations

import multiprocessing
import os

import pytest

from pytest_jsonmatch.calls.shared_starts import SharedStarts, shared_starts


def _reserve(folder: str, out: multiprocessing.Queue) -> None:  # type: ignore[type-arg]
    starts = shared_starts(folder, "target-cheap", rate=100.0)  # one start every 10 ms
    assert starts is not None
    out.put([starts.reserve() for _ in range(5)])


def test_starts_reserved_by_four_processes_are_one_interval_apart(tmp_path):
    out: multiprocessing.Queue = multiprocessing.Queue()  # type: ignore[type-arg]
    processes = [
        multiprocessing.Process(target=_reserve, args=(str(tmp_path), out)) for _ in range(4)
    ]
    for process in processes:
        process.start()
    starts = sorted(t for _ in processes for t in out.get(timeout=60))
    for process in processes:
        process.join(60)
    gaps = [b - a for a, b in zip(starts, starts[1:])]
    assert len(starts) == 20 and min(gaps) == pytest.approx(0.01, abs=1e-9)


def test_each_key_has_its_own_schedule_and_no_rate_shares_nothing(tmp_path):
    one = shared_starts(str(tmp_path), "target-a", rate=1.0)
    other = shared_starts(str(tmp_path), "judge-a", rate=1.0)
    assert one is not None and other is not None and one.path != other.path
    first = one.reserve()
    assert other.reserve() - first < 0.5  # not behind target-a's second start
    assert one.reserve() == pytest.approx(first + 1.0)
    assert shared_starts(str(tmp_path), "target-a", rate=None) is None
    assert shared_starts(None, "target-a", rate=1.0) is None


def test_a_pipe_in_the_schedules_place_is_refused_not_waited_on(tmp_path):
    path = tmp_path / "target-x.starts"
    os.mkfifo(path)
    with pytest.raises(OSError):
        SharedStarts(str(path), 1.0).reserve()
