"""BFCL's multi-turn entries executed in child processes, never in the caller's.

``bfcl_multi_turn_verdict`` asks here for an entry's checked rows, and a verdict's fields for
its turns' differing attributes; each request is executed in a child forked for it by the
fork server (``bfcl_fork_server.py``: there the limits, the refused network and the reasons).
The server is one fresh interpreter per process, started on the first request (a fraction of
a second) and ended when the process ends; a process forked from this one starts its own. It
runs with ``PYTHONHASHSEED=0``: a result that shows a set's elements (``{'first', 'economy',
'business'}``) then shows them in the same order in every run and in every child, so that the
fields' reading, in another child, gets the verdict's texts (BFCL's own order changes from
process to process).

Where a call ran past its CPU time (``CALL_CPU_SECONDS``) the entry is executed again with
that call recorded as an error text, as BFCL records a call that fails, up to
``MAX_TIMED_OUT_CALLS`` calls an entry; the verdict's later reading of its fields skips the
same calls. Anything else that ends a child (its whole time, a signal) or that it raises is a
ConfigError naming the entry, and the turn and call it was running where it was in one.

Where ``os.fork`` does not exist (Windows) the verdict is a ConfigError saying so: the
isolation is the point of executing BFCL's classes here, and a fresh interpreter for each
entry would cost a second each.
"""

from __future__ import annotations

import atexit
import json
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from ..core.errors import ConfigError
from . import bfcl_fork_server as server_module
from .bfcl_fork_server import (
    CALL_CPU_SECONDS,
    ENTRY_CPU_SECONDS,
    ENTRY_WALL_SECONDS,
    difference_of,
    read_frame,
    rows_of,
    write_frame,
)
from .bfcl_turn_checks import CheckedTurns, Readings, TurnRow

MAX_TIMED_OUT_CALLS = 3  # an entry's calls recorded as past their time before it is refused
START_SECONDS = 60  # the server's start (its imports), at most
# how long the caller waits for an answer: a child's wall time and the server's own
_ANSWER_SECONDS = ENTRY_WALL_SECONDS + 30
# the server's start: the caller's sys.path for its own (-c's current directory dropped
# first, so that no file there stands in for json), then its loop (or why it could not
# import it, said on its answers' pipe)
_BOOT = f"""
import sys
if sys.path and sys.path[0] == "":
    del sys.path[0]
import json, os
sys.path[:] = json.loads(sys.argv[1])
try:
    from {server_module.__name__} import main
except BaseException as error:
    why = ("E" + type(error).__name__ + ": " + str(error)).encode()
    os.write(int(sys.argv[3]), len(why).to_bytes(4, "big") + why)
    raise
main(sys.argv[2:])
"""
EntryParts = tuple[str, Sequence[str], Mapping[str, Any], bool]


class ForkServer:
    """One fork server process and the two pipes to it; ``ask`` sends a request and waits for
    its answer. ``path`` is the server's ``sys.path`` (the caller's unless given)."""

    def __init__(self, path: Sequence[str] | None = None) -> None:
        self._path = list(sys.path if path is None else path)
        self._lock = threading.Lock()
        self._process: subprocess.Popen[bytes] | None = None
        self._pipes = (-1, -1)  # (requests, replies): the caller's ends
        self._pid = -1  # the process that started the server

    def ask(self, request: bytes) -> tuple[bytes, Any]:
        """``request`` (JSON) executed in a child: ``(b"R", its answer)`` or ``(b"K", what
        ended it)``."""
        with self._lock:
            if self._pid != os.getpid():  # (this process was forked from the one that started it)
                self._stop()
            if self._process is None:
                self._start()
            try:
                write_frame(self._pipes[0], request)
                reply = read_frame(self._pipes[1], time.monotonic() + _ANSWER_SECONDS)
            except OSError:  # (its pipe closed: it ended)
                reply = None
            except BaseException:
                self._stop()  # (the exchange is cut: the next request starts another)
                raise
            if not reply:
                self._stop()
                raise ConfigError(
                    "BFCL's fork server stopped answering; the next entry starts another"
                )
        try:
            return reply[:1], json.loads(reply[1:])
        except ValueError as error:  # (an int longer than this process reads, say)
            raise ConfigError(f"BFCL's fork server's answer cannot be read: {error}") from None

    def close(self) -> None:
        with self._lock:
            self._stop()

    def _start(self) -> None:
        if not hasattr(os, "fork"):
            raise ConfigError(
                f"BFCL's multi-turn verdict executes each entry in a child process forked for "
                f"it, which needs os.fork: this platform ({sys.platform}) has none"
            )
        requests, replies = os.pipe(), os.pipe()
        command = [sys.executable, "-c", _BOOT, json.dumps(self._path)]
        try:
            self._process = subprocess.Popen(
                [*command, str(requests[0]), str(replies[1])],
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                pass_fds=(requests[0], replies[1]),
                start_new_session=True,
                env={**os.environ, "PYTHONHASHSEED": "0"},
            )
        except OSError as error:
            for fd in (*requests, *replies):
                os.close(fd)
            raise ConfigError(f"BFCL's fork server did not start: {error}") from None
        os.close(requests[0])
        os.close(replies[1])
        self._pipes = (requests[1], replies[0])
        self._pid = os.getpid()
        hello = read_frame(replies[0], time.monotonic() + START_SECONDS)
        if hello != b"S":
            why = (hello or b"Eit ended or did not answer")[1:].decode(errors="replace")
            self._stop()
            raise ConfigError(f"BFCL's fork server did not start: {why!r:.500}")

    def _stop(self) -> None:
        process, self._process = self._process, None
        if process is None:
            return
        for fd in self._pipes:
            os.close(fd)
        self._pipes = (-1, -1)
        if self._pid == os.getpid():  # (a forked copy leaves its parent's server alone)
            process.kill()
            process.wait()


_SERVER = ForkServer()
atexit.register(_SERVER.close)


def checked_rows(
    entry: EntryParts,
    model: Sequence[Sequence[Sequence[str]]],
    truth: Sequence[Sequence[str]],
    server: ForkServer | None = None,
) -> tuple[list[TurnRow], tuple[int, ...]]:
    """The entry's turns executed and checked in a child (of ``server``, this process's own
    unless given): a row per turn, and the calls recorded as past their time (their
    numbers, to be skipped when the entry is read)."""
    request = {"kind": "verdict", "skip": []}
    answer, skipped = _executed(request, entry, model, truth, server or _SERVER)
    return rows_of(answer["rows"], model, truth), skipped


def isolated_reader(skipped: Sequence[int]) -> Callable[[CheckedTurns], Readings]:
    """A ``CheckedTurns`` reader that reads in a child, with the verdict's skipped calls."""

    def read(checked_turns: CheckedTurns) -> Readings:
        rows = checked_turns.rows
        model = [row[4] for row in rows]
        truth = [row[5] for row in rows]
        plain = [[row[0], row[1], row[2], row[3], row[6], row[7]] for row in rows]
        request = {"kind": "readings", "skip": list(skipped), "rows": plain}
        answer, _ = _executed(request, checked_turns.entry, model, truth)
        return {
            index: tuple(difference_of(difference) for difference in found)
            for index, found in answer["readings"]
        }

    return read


def _executed(
    request: dict[str, Any],
    entry: EntryParts,
    model: Sequence[Sequence[Sequence[str]]],
    truth: Sequence[Sequence[str]],
    server: ForkServer = _SERVER,
) -> tuple[Any, tuple[int, ...]]:
    """The child's answer to ``request`` on the entry, the calls past their time skipped;
    and those calls."""
    entry_id, classes, config, long_context = entry
    parts = {"id": entry_id, "classes": classes, "config": config, "long_context": long_context}
    skipped: list[int] = list(request["skip"])
    while True:
        asked = {**request, **parts, "model": model, "truth": truth, "skip": skipped}
        try:
            data = json.dumps(asked).encode()
        except (TypeError, ValueError) as error:  # (the turns are text: the configuration)
            raise ConfigError(
                f"BFCL entry {entry_id!r}: initial_config is not JSON ({error})"[:300]
            ) from None
        kind, answer = server.ask(data)
        if kind == b"R":
            if "error" in answer:
                raise _child_error(entry_id, answer)
            return answer, tuple(skipped)
        call = answer["call"]
        if answer["signal"] == signal.SIGPROF and call >= 0 and call not in skipped:
            if len(skipped) < MAX_TIMED_OUT_CALLS:
                skipped.append(call)
                continue
        raise ConfigError(_ended(entry_id, answer["signal"], _call_at(model, truth, call)))


def _child_error(entry_id: str, answer: Mapping[str, str]) -> ConfigError:
    """What the child raised, as the caller's ConfigError."""
    if answer["type"] == "ConfigError":
        return ConfigError(answer["error"])
    return ConfigError(
        f"BFCL entry {entry_id!r}: executing its calls failed ({answer['type']}: "
        f"{answer['error']!r:.300})"
    )


def _ended(entry_id: str, number: int, at: str) -> str:
    """Why a child ended without answering, from the signal that ended it."""
    where = f" ({at})" if at else ""
    if number == signal.SIGPROF:
        return (
            f"BFCL entry {entry_id!r}: more than {MAX_TIMED_OUT_CALLS} calls ran past "
            f"{CALL_CPU_SECONDS:g} s of CPU time each, the last{where}"
        )
    if number == signal.SIGXCPU:
        return f"BFCL entry {entry_id!r}: executing it ran past {ENTRY_CPU_SECONDS} s of CPU time{where}"
    if number == signal.SIGKILL:
        return (
            f"BFCL entry {entry_id!r}: executing it ran past {ENTRY_WALL_SECONDS} s of wall "
            f"time, or the system ended it{where}"
        )
    name = signal.Signals(number).name if number else "no signal"
    return f"BFCL entry {entry_id!r}: the child process executing it ended ({name}){where}"


def _call_at(
    model: Sequence[Sequence[Sequence[str]]], truth: Sequence[Sequence[str]], number: int
) -> str:
    """Where the ``number``-th call of an entry's execution stands (each turn's model steps,
    then its ground truth's calls, as the child executes them); "" for none."""
    count = 0
    for turn, (steps, calls) in enumerate(zip(model, truth)):
        sides = [("the model's", call) for step in steps for call in step]
        for side, call in [*sides, *(("the ground truth's", call) for call in calls)]:
            if count == number:
                return f"turn {turn}, {side} call {call!r:.200}"
            count += 1
    return ""
