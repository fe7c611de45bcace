"""Which live calls each xdist worker has in flight, so that a dead worker is blamed on the
case that ended it, never on the test it happened to be running.

With calls started ahead of their tests (live_calls.py), a target that ends its process
(``os._exit``, a signal) kills the worker while another test is the running one, and that
test is all pytest-xdist knows of. So each worker writes a file of its own (:class:`CallLog`):
a line as each call starts and one as it ends, each one ``write`` that the death of the
process cannot undo. When a worker dies, the controller (:class:`Deaths`) reads it:

- nothing but the running test's own call was in flight: the running test ended the worker,
  and it alone is blamed (an error);
- other calls were in flight: no one can tell which of them ended it. The running test and
  every case with a call in flight become *suspects*. Each runs again (xdist sends a dead
  worker's waiting tests to another; the running test is sent back here), and runs *alone*:
  no call of it starts ahead, and none runs beside it, so a second death is pinned exactly;
- a suspect that cannot run again (the scheduler cannot take it back, it was sent back
  twice already, or the session ended first) is a *lost call*: an error that says so and
  blames no one.

The controller appends the suspects to a file in the same folder, which the workers read
before they start a call or a test.
"""

from __future__ import annotations

import json
import os
import shutil
import stat
import tempfile
from collections import Counter
from collections.abc import Callable, Hashable, Iterable
from typing import TYPE_CHECKING, Literal

from ..engine.core.slotted import HashedSlotted, Slotted

if TYPE_CHECKING:
    from ..reporting.run_model.report_types import WorkerDeathDict
    from .targets import Awaited, Call

LOG_KEY = "jsonmatch_call_log"  # a worker's log file, in its xdist workerinput
_SUSPECTS = "suspects"  # the controller's list, beside the workers' logs
CallFate = Literal["blamed", "sent back", "lost", "had reported"]
MAX_RERUNS = 2  # times a running test is sent back before it counts as a lost call


def name_of(key: Hashable) -> str:
    """The test a call belongs to: a key is ``(nodeid, repeat)``."""
    return str(key[0] if isinstance(key, tuple) and key else key)


class CallLog:
    """A worker's side: its calls logged as they start and end, and the controller's
    suspects read back. With no path (no xdist) it logs nothing and suspects no one."""

    def __init__(self, path: str | None = None) -> None:
        self._fd = _own_log(path) if path else None
        # the session's shared folder (the controller's, holding every worker's log): where
        # the workers share what they must (shared_starts.py); None outside xdist
        self.folder = os.path.dirname(path) if path else None
        self._suspects_path = os.path.join(os.path.dirname(path), _SUSPECTS) if path else None
        self._suspects: frozenset[str] = frozenset()
        self._read = -1  # the size of the suspects file when last read

    def logged(self, name: str, call: Call) -> Call:
        """``call``, writing ``+name`` as it starts and ``-name`` as it ends (however)."""
        if self._fd is None:
            return call

        def logging_call(awaited: Awaited) -> object:
            self._write("+", name)
            try:
                return call(awaited)
            finally:
                self._write("-", name)

        return logging_call

    def _write(self, sign: str, name: str) -> None:
        assert self._fd is not None
        try:
            os.write(self._fd, (sign + json.dumps(name) + "\n").encode())
        except OSError:  # a full disk: the call goes on; a death then blames as xdist has it
            pass

    def suspect(self, name: str) -> bool:
        """Whether a worker died while ``name`` ran or had a call in flight (it runs alone)."""
        path = self._suspects_path
        if path is None:
            return False
        try:
            size = os.stat(path).st_size
        except OSError:
            return False
        if size != self._read:
            text = _read_own(path)
            self._suspects = frozenset(_names(text.splitlines(), "")[0])
            self._read = len(text.encode())
        return name in self._suspects


def in_flight(path: str) -> list[str]:
    """The tests whose calls a worker's log shows started and not ended, in start order."""
    lines = _read_own(path).splitlines()
    started, ended = _names(lines, "+"), Counter(_names(lines, "-")[0])
    return [name for name in dict.fromkeys(started[0]) if started[1][name] > ended[name]]


def _own_log(path: str) -> int | None:
    """A worker's log opened for appending, only as a regular file of its own (never through
    a link, never blocking on a pipe); None where it cannot be: the calls go on unlogged,
    and a death is then blamed as xdist has it."""
    flags = os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NONBLOCK | getattr(os, "O_NOFOLLOW", 0)
    try:
        fd = os.open(path, flags, 0o600)
    except OSError:  # the controller's folder is gone, or a link stands in the log's place
        return None
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        return None
    os.set_blocking(fd, True)
    return fd


def _read_own(path: str) -> str:
    """A log or the suspects list, read only where it is a regular file ('' otherwise)."""
    from ..engine.core.errors import CaseFileError
    from ..engine.reading.user_files import read_regular

    try:
        raw = read_regular(path, "the calls log", CaseFileError, follow_links=False)
    except CaseFileError:
        return ""
    return raw.decode("utf-8", errors="replace")


def _names(lines: Iterable[str], sign: str) -> tuple[list[str], Counter[str]]:
    """The names on the lines that start with ``sign`` (a line cut short by the death of
    the process is skipped), in order, and how often each."""
    names: list[str] = []
    for line in lines:
        if not line.startswith(sign):
            continue
        try:
            name = json.loads(line[len(sign) :])
        except ValueError:
            continue
        if isinstance(name, str):
            names.append(name)
    return names, Counter(names)


class Death(HashedSlotted):
    """One dead worker: the test it was running, the tests whose calls it had in flight,
    and the running test's fate: ``blamed``, ``sent back`` (to run again, alone), ``lost``
    or ``had reported`` (its result stands); the report's key for it is ``verdict``.
    (HashedSlotted, not a dataclass: this module loads with every session that calls a target.)"""

    __slots__ = ("worker", "running", "calls_in_flight", "fate")

    worker: str
    running: str
    calls_in_flight: tuple[str, ...]
    fate: CallFate

    def __init__(
        self, worker: str, running: str, calls_in_flight: tuple[str, ...], fate: CallFate
    ) -> None:
        self.worker, self.running = worker, running
        self.calls_in_flight, self.fate = calls_in_flight, fate

    @property
    def reason(self) -> str:
        """Why the running test is an error, when it is blamed (one line)."""
        return (
            f"the xdist worker {self.worker} died running this test, and no other call "
            f"was in flight"
        )

    def to_dict(self) -> WorkerDeathDict:
        return {
            "worker": self.worker,
            "running": self.running,
            "calls_in_flight": list(self.calls_in_flight),
            "verdict": self.fate,
        }


class Deaths(Slotted):
    """The controller's side: the folder of the workers' logs, and each worker that died.
    (Slotted, not a dataclass, as :class:`Death`.)"""

    __slots__ = ("folder", "deaths", "suspects", "_in_flight", "_sent_back")

    folder: str
    deaths: list[Death]
    suspects: dict[str, str]  # test -> the worker that died
    _in_flight: dict[str, list[str]]
    _sent_back: Counter[str]

    def __init__(
        self,
        folder: str = "",
        deaths: list[Death] | None = None,
        suspects: dict[str, str] | None = None,
        _in_flight: dict[str, list[str]] | None = None,
        _sent_back: Counter[str] | None = None,
    ) -> None:
        self.folder = folder
        self.deaths = [] if deaths is None else deaths
        self.suspects = {} if suspects is None else suspects
        self._in_flight = {} if _in_flight is None else _in_flight
        self._sent_back = Counter() if _sent_back is None else _sent_back

    def log_path(self, worker: str) -> str:
        """Where ``worker`` logs its calls (the folder is made on first use)."""
        if not self.folder:
            self.folder = tempfile.mkdtemp(prefix="jsonmatch-calls-")
        return os.path.join(self.folder, f"{worker}.log")

    def worker_down(self, worker: str) -> None:
        """Read what ``worker`` had in flight as it went down: those tests are suspects
        before xdist sends the worker's waiting tests elsewhere."""
        if self.folder:
            self._in_flight[worker] = flight = in_flight(self.log_path(worker))
            self._suspect(flight, worker)

    def rule_on(
        self, worker: str, running: str, *, reported: bool, send_back: Callable[[str], None]
    ) -> Death:
        """The fate of ``running``, the test ``worker`` died running (see :class:`Death`);
        ``send_back`` schedules a test to run again (NotImplementedError: it cannot)."""
        flight = self._in_flight.pop(worker, [])
        fate: CallFate = "sent back"
        if reported:
            fate = "had reported"
        elif not set(flight) - {running}:
            fate = "blamed"
        elif self._sent_back[running] >= MAX_RERUNS:
            fate = "lost"
        else:
            self._sent_back[running] += 1
            self._suspect([running], worker)  # before it is sent: no call of it runs ahead
            try:
                send_back(running)
            except NotImplementedError:  # (xdist's --dist loadscope, loadfile, each)
                fate = "lost"
        self.deaths.append(Death(worker, running, tuple(flight), fate))
        return self.deaths[-1]

    def finish(self, reported: set[str]) -> dict[str, str]:
        """The session ends: each suspect that never reported (and was not blamed) is a lost
        call, with the reason; the logs are removed."""
        if self.folder:
            shutil.rmtree(self.folder, ignore_errors=True)
        blamed = {d.running for d in self.deaths if d.fate == "blamed"}
        return {
            name: f"lost call: the xdist worker {worker} died while this test or its call "
            f"was in flight beside the calls of others, and it did not run again; "
            f"blamed on no one"
            for name, worker in sorted(self.suspects.items())
            if name not in reported and name not in blamed
        }

    def _suspect(self, names: Iterable[str], worker: str) -> None:
        new = [n for n in names if n not in self.suspects]
        if not new:
            return
        self.suspects.update((n, worker) for n in new)
        fd = _own_log(os.path.join(self.folder, _SUSPECTS))
        if fd is not None:  # (else the workers read no suspects: each death blamed as xdist has it)
            with os.fdopen(fd, "a", encoding="utf-8") as file:
                file.write("".join(json.dumps(n) + "\n" for n in new))
