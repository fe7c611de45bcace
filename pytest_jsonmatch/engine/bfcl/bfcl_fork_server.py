"""The fork server: a process that imported BFCL's environment classes and never ran them, and
that forks a child for each entry it is asked to execute, so that every entry is executed as
if it were the first and the caller's process never runs an environment's method.

BFCL's classes keep state between entries (``TwitterAPI.post_tweet``'s default ``mentions``
list is one list, which ``mention()`` extends; a VehicleControlAPI call writes a module's
table) and change the process (``MathAPI.square_root`` sets the thread's ``decimal``
precision, ``logarithm`` mpmath's): each child starts from the server's state and ends with
its entry.

``bfcl_isolation.py`` starts the server as a fresh interpreter (``python -c``, the caller's
``sys.path``): none of the caller's threads or state. The server imports the environment
classes' modules and this package's checking (``bfcl_turn_checks.py``), makes ``socket`` refuse
every connection and name lookup (``_refuse_network``), caps the address space of itself and
its children at ``MEMORY_BYTES`` past what it holds once started (a call that allocates past
that records a ``MemoryError``'s error text), and writes no core file. Each child, forked for
one request, also:

- can open no file descriptor (RLIMIT_NOFILE 0: no socket, no file; the pipe it answers on
  was open before);
- runs each call under a CPU-time timer of ``CALL_CPU_SECONDS`` whose signal (SIGPROF, left at
  its default action) ends the child even inside one long C operation (``10 ** 100000000``):
  the number of the call running is kept in memory shared with the server, which reports it,
  and the caller executes the entry again with that call recorded as an error text
  (``TIMED_OUT``) instead of run (the environments are deterministic);
- runs the whole request in at most ``ENTRY_CPU_SECONDS`` of CPU time (RLIMIT_CPU) and
  ``ENTRY_WALL_SECONDS`` of wall time (the server kills it); past either the verdict is a
  ConfigError.

The protocol: each message a frame, its length (4 bytes, big-endian) then its bytes. The
caller sends a request (JSON: ``kind`` "verdict" or "readings", the entry, the turns, the
calls to skip); the server answers each with one frame: ``S`` once started (or ``E`` and
why not), then per request ``R`` and the child's answer (JSON: ``rows``, ``readings`` or
``error``), or ``K`` and what ended the child (JSON: the ``signal``, or 0, and the ``call``
running then, or -1).
"""

from __future__ import annotations

import datetime
import gc
import json
import mmap
import os
import select
import signal
import socket
import struct
import time
from collections.abc import Callable, Sequence
from typing import Any, NoReturn

from .bfcl_execution import MULTI_TURN_CLASSES, CallGate, environment_class, public_methods
from .bfcl_turn_checks import (
    SIDES,
    AttributeDifference,
    CheckedTurns,
    TurnRow,
    Unreadable,
    check_entry,
    read_turns,
)

# the limits on what an executed entry may take (docs/errors.md: "BFCL's multi-turn verdict")
CALL_CPU_SECONDS = 1.0  # each call's CPU time
ENTRY_CPU_SECONDS = 20  # a request's CPU time, all its calls and checking
ENTRY_WALL_SECONDS = 60  # a request's wall time
MEMORY_BYTES = 1 << 30  # the address space a child may add to the server's
TIMED_OUT = (
    f"Error during execution: the call ran past {CALL_CPU_SECONDS:g} s of CPU time "
    f"(jsonmatch's limit on one call)"
)
_HEADER = struct.Struct(">I")
_NUMBER = struct.Struct("q")  # the call running in the child (-1: none), in shared memory


def read_frame(fd: int, deadline: float | None = None) -> bytes | None:
    """The next frame's bytes from ``fd``; None at its end, or where ``deadline`` (a
    ``time.monotonic()``) passes first."""
    header = _read_exact(fd, _HEADER.size, deadline)
    if header is None:
        return None
    return _read_exact(fd, _HEADER.unpack(header)[0], deadline)


def _read_exact(fd: int, size: int, deadline: float | None) -> bytes | None:
    chunks = []
    while size:
        if deadline is not None:
            wait = deadline - time.monotonic()
            if wait <= 0 or not select.select([fd], [], [], wait)[0]:
                return None
        chunk = os.read(fd, min(size, 1 << 20))
        if not chunk:
            return None
        chunks.append(chunk)
        size -= len(chunk)
    return b"".join(chunks)


def write_frame(fd: int, data: bytes) -> None:
    view = memoryview(_HEADER.pack(len(data)) + data)
    while view:
        view = view[os.write(fd, view) :]


def main(argv: Sequence[str]) -> None:
    """The server's loop: ``argv`` the descriptors it reads requests from and answers on."""
    requests, replies = int(argv[0]), int(argv[1])
    try:
        _prepare()
    except BaseException as error:  # noqa: BLE001 (said to the caller, who raises it)
        write_frame(replies, b"E" + f"{type(error).__name__}: {error}".encode())
        return
    write_frame(replies, b"S")
    running = mmap.mmap(-1, _NUMBER.size)
    while (request := read_frame(requests)) is not None:
        _serve(request, requests, replies, running)


def _prepare() -> None:
    """The server's state before its first fork: every module a child runs imported (none of
    BFCL's methods run), the network refused, the limits every child inherits."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # (the caller's Ctrl-C is the caller's)
    for number in (signal.SIGPROF, signal.SIGXCPU):
        signal.signal(number, signal.SIG_DFL)
    for name in MULTI_TURN_CLASSES:
        try:
            public_methods(environment_class(name))
        except Exception:  # noqa: BLE001 (the child raises it again, as a ConfigError)
            pass
    # what the standard library does on first use, done once here: the time zone's file
    # read (a child can open no file), strptime's module and locale
    time.localtime()
    datetime.datetime.strptime("2024-01-02", "%Y-%m-%d")
    _refuse_network()
    _limit("RLIMIT_CORE", 0, 0)
    held = _address_space()
    if held is not None:
        _limit("RLIMIT_AS", held + MEMORY_BYTES)
    gc.freeze()  # (a child's collections leave the server's objects, and their pages, alone)


def _refused(*args: object, **kwargs: object) -> NoReturn:
    raise OSError("the network is not reachable from an executed BFCL call")


def _refuse_network() -> None:
    """Every connection, datagram and name lookup through ``socket`` raises."""
    for name in ("connect", "connect_ex", "sendto", "sendmsg"):
        setattr(socket.socket, name, _refused)
    for name in ("create_connection", "getaddrinfo", "gethostbyname", "gethostbyname_ex"):
        setattr(socket, name, _refused)


def _address_space() -> int | None:
    """The server's address space in bytes; None where the system does not say (no /proc)."""
    try:
        with open("/proc/self/statm", encoding="ascii") as statm:
            return int(statm.read().split()[0]) * mmap.PAGESIZE
    except OSError:
        return None


def _limit(name: str, soft: int, hard: int | None = None) -> None:
    """The resource limit ``name`` (``"RLIMIT_CPU"``) lowered where the system allows it
    (macOS refuses some)."""
    import resource  # (here: the module is imported on Windows too, where no server runs)

    which = getattr(resource, name)
    try:
        _, current = resource.getrlimit(which)
        cap = hard if hard is not None else soft
        if current != resource.RLIM_INFINITY:
            cap = min(cap, current)
        resource.setrlimit(which, (min(soft, cap), cap))
    except (ValueError, OSError):
        pass


def _serve(request: bytes, requests: int, replies: int, running: mmap.mmap) -> None:
    """One request executed in a child forked for it; its answer (sent before the child is
    reaped), or what ended it, written on ``replies``."""
    _NUMBER.pack_into(running, 0, -1)
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(read_end)
        os.close(requests)
        os.close(replies)
        _child(request, write_end, running)
    os.close(write_end)
    try:
        answer = read_frame(read_end, time.monotonic() + ENTRY_WALL_SECONDS)
        if answer is not None:
            write_frame(replies, b"R" + answer)
        else:
            os.kill(pid, signal.SIGKILL)  # (gone already, or past its wall time)
        _, status = os.waitpid(pid, 0)
    finally:
        os.close(read_end)
    if answer is None:
        ended = os.WTERMSIG(status) if os.WIFSIGNALED(status) else 0
        call = _NUMBER.unpack_from(running, 0)[0]
        write_frame(replies, b"K" + json.dumps({"signal": ended, "call": call}).encode())


def _child(request: bytes, answer_end: int, running: mmap.mmap) -> NoReturn:
    """The child's whole life: its limits, the request executed, the answer written."""
    try:
        _limit("RLIMIT_CPU", ENTRY_CPU_SECONDS, ENTRY_CPU_SECONDS + 1)
        _limit("RLIMIT_NOFILE", 0, 0)
        try:
            asked = json.loads(request)
            answer = json.dumps(executed(asked, _TimedCalls(running, asked["skip"])))
        except Exception as error:  # noqa: BLE001 (said to the caller, who raises it)
            answer = json.dumps({"error": str(error)[:2000], "type": type(error).__name__})
        write_frame(answer_end, answer.encode())
    finally:
        os._exit(0)


class _TimedCalls:
    """Each call of the child run under a CPU-time timer, its number in ``running`` while it
    runs; the calls the request says to skip (they ran past the timer before) recorded as
    ``TIMED_OUT`` instead."""

    def __init__(self, running: mmap.mmap, skip: Sequence[int] = ()) -> None:
        self.running = running
        self.skip = frozenset(skip)
        self.count = 0

    def result(self, execute: Callable[[str], str], call: str) -> str:
        number = self.count
        self.count += 1
        if number in self.skip:
            return TIMED_OUT
        _NUMBER.pack_into(self.running, 0, number)
        signal.setitimer(signal.ITIMER_PROF, CALL_CPU_SECONDS)
        try:
            return execute(call)
        finally:
            signal.setitimer(signal.ITIMER_PROF, 0)
            _NUMBER.pack_into(self.running, 0, -1)


def executed(request: dict[str, Any], gate: CallGate | None = None) -> dict[str, Any]:
    """A request's answer: an entry's rows (``verdict``), or its turns' differing attributes
    read to JSON (``readings``), as plain JSON."""
    entry = (request["id"], request["classes"], request["config"], request["long_context"])
    model, truth = request["model"], request["truth"]
    if request["kind"] == "verdict":
        rows = check_entry(entry, model, truth, gate)
        return {"rows": [[row[0], row[1], row[2], row[3], row[6], row[7]] for row in rows]}
    checked_turns = CheckedTurns(*entry, SIDES, rows_of(request["rows"], model, truth))
    readings = read_turns(checked_turns, gate)
    return {"readings": [[index, [_plain(d) for d in found]] for index, found in readings.items()]}


def rows_of(
    plain: Sequence[Sequence[Any]], model: Sequence[Any], truth: Sequence[Any]
) -> list[TurnRow]:
    """Rows read back from their JSON (``executed``'s ``rows``), each turn's steps and calls
    put back from the request's turns."""
    return [
        (
            right,
            problem,
            tuple(differing),
            tuple(missing),
            steps,
            calls,
            tuple(map(tuple, results)),
            tuple(expected),
        )
        for (right, problem, differing, missing, results, expected), steps, calls in zip(
            plain, model, truth
        )
    ]


def _plain(difference: AttributeDifference) -> list[Any]:
    model, truth = difference.model, difference.truth
    texts = [isinstance(model, Unreadable), isinstance(truth, Unreadable)]
    return [difference.class_name, difference.attribute, model, truth, texts]


def difference_of(plain: Sequence[Any]) -> AttributeDifference:
    """An ``AttributeDifference`` read back from its JSON (``_plain``)."""
    class_name, attribute, model, truth, (model_text, truth_text) = plain
    return AttributeDifference(
        class_name,
        attribute,
        Unreadable(model) if model_text else model,
        Unreadable(truth) if truth_text else truth,
    )
