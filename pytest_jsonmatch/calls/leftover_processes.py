"""Processes a target started and left running when its call was abandoned.

A sync target that times out cannot be stopped: its thread is abandoned. Whatever process it
started (a model server, a CLI it waits on) would then outlive the session. Its children
share pytest's process group, so ending the group would end pytest too; instead, when the
runner closes after it abandoned a call, it ends the processes below this one that started
after the runner opened, with their own descendants (SIGTERM, then SIGKILL after a grace
period). A process started before the runner opened (a fixture's server) is left alone, and
so is everything below it.

Linux only (it reads /proc); elsewhere nothing is done.
"""

from __future__ import annotations

import os
import signal
import time

GRACE_S = 1.0  # how long a process has to end on SIGTERM before SIGKILL


def clock_ticks() -> int | None:
    """Now, in the clock ticks since boot that /proc gives a process's start in (None
    where there is no /proc)."""
    try:
        with open("/proc/uptime", encoding="ascii") as uptime:
            seconds = float(uptime.read().split()[0])
        return int(seconds * os.sysconf("SC_CLK_TCK"))
    except (OSError, ValueError, IndexError):
        return None


def started_below(since: int, root: int | None = None) -> list[int]:
    """The processes below ``root`` (this process) that started at ``since`` or later, with
    everything below them; none below a process that started earlier."""
    parents: dict[int, int] = {}
    starts: dict[int, int] = {}
    try:
        entries = os.listdir("/proc")
    except OSError:
        return []
    for entry in entries:
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", encoding="utf-8", errors="replace") as stat:
                fields = stat.read().rsplit(")", 1)[1].split()  # after the command's name
            parents[int(entry)], starts[int(entry)] = int(fields[1]), int(fields[19])
        except (OSError, IndexError, ValueError):
            continue  # ended meanwhile
    children: dict[int, list[int]] = {}
    for pid, parent in parents.items():
        children.setdefault(parent, []).append(pid)
    found, todo = [], [os.getpid() if root is None else root]
    while todo:
        for child in children.get(todo.pop(), ()):
            if starts[child] >= since:
                found.append(child)
                todo.append(child)
    return found


def end_processes(pids: list[int]) -> None:
    """SIGTERM to each, then SIGKILL to those still running after ``GRACE_S``."""
    for pid in pids:
        _signal(pid, signal.SIGTERM)
    deadline = time.monotonic() + GRACE_S
    while any(_running(pid) for pid in pids) and time.monotonic() < deadline:
        time.sleep(0.02)
    for pid in pids:
        if _running(pid):
            _signal(pid, signal.SIGKILL)


def _signal(pid: int, sig: signal.Signals) -> None:
    try:
        os.kill(pid, sig)
    except OSError:  # ended already, or not ours to signal
        pass


def _running(pid: int) -> bool:
    """Whether ``pid`` still runs (a zombie has ended: it only waits for its parent)."""
    try:
        with open(f"/proc/{pid}/stat", encoding="utf-8", errors="replace") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] != "Z"
    except (OSError, IndexError):
        return False
