"""The session's network block (``block_network`` of ``jsonmatch_record``, on by default under
``none``): while it is on, an outbound connection or a name lookup to a host the team did not
allow (``allowed_hosts=``) raises :class:`NetworkBlocked`, naming the host, the port and the
test or case that tried it, so that a replay proves it needed neither the model nor any
other service.

It is an audit hook (``sys.addaudithook``), installed once per process (the controller's and
each pytest-xdist worker's: each starts its own session) on the first :func:`block`, and
doing nothing while no block is on: an audit hook cannot be removed. It sees every thread of
the process, the target's calls ahead, a client's own threads and an event loop's lookups in
an executor. It checks ``socket.connect`` (``connect`` and ``connect_ex``), ``sendto`` and
``sendmsg`` to an address (a datagram, as a DNS resolver sends), and the name lookups
(``getaddrinfo``, ``gethostbyname``, ``gethostbyname_ex``, ``gethostbyaddr``). Only the
internet families are held: a Unix-domain socket leaves no machine (pytest-xdist's own
channels, a local database's socket) and is let through. A loopback address is a host like
any other: a replay that needs a server on ``127.0.0.1`` lists it. A subprocess the target
starts is another interpreter, not seen. The session's own OpenTelemetry export (its thread
``sends_reports``) is no test's or target's call: it reaches the collector
``jsonmatch_otel`` names.
"""

from __future__ import annotations

import ipaddress
import os
import socket
import sys
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field

from ..engine.core.errors import ConfigError, JsonMatchError, printable

_EVENTS = {
    "socket.connect",
    "socket.sendto",
    "socket.sendmsg",
    "socket.getaddrinfo",
    "socket.gethostbyname",
    "socket.gethostbyaddr",
}
_INET = (socket.AF_INET, socket.AF_INET6)
_CASE: ContextVar[str] = ContextVar("jsonmatch_offline_case", default="")
_INSTALLED = False
_LOCK = threading.Lock()
_LOCAL = threading.local()  # ``busy``: this thread is resolving an allowed name (no recheck)
_HOST_CHARS = frozenset("abcdefghijklmnopqrstuvwxyz0123456789.-_:%")


class NetworkBlocked(JsonMatchError):
    """A connection or a name lookup the session's network block refused."""


@dataclass
class _Block:
    """The block in force: the allowed hosts as written (lower case), the addresses and the
    names among them, and whether the names' addresses were looked up (lazily, once)."""

    allowed: tuple[str, ...]
    what: str  # the setting, as a message names it
    addresses: set[str] = field(default_factory=set)
    names: set[str] = field(default_factory=set)
    resolved: bool = False

    def allows(self, host: str) -> bool:
        address = _address(host)
        if address is None:
            return host.lower().rstrip(".") in self.names
        if address in self.addresses:
            return True
        if not self.resolved:
            self._resolve()
        return address in self.addresses

    def _resolve(self) -> None:
        """The addresses of the allowed names (``localhost``, ``judge.internal``), looked up
        on the first connection to an address not listed as one."""
        _LOCAL.busy = True
        try:
            for name in sorted(self.names):
                try:
                    found = socket.getaddrinfo(name, None)
                except OSError:  # a name that does not resolve here allows no address
                    continue
                for *_, sockaddr in found:
                    address = _address(str(sockaddr[0]))
                    if address is not None:
                        self.addresses.add(address)
        finally:
            _LOCAL.busy = False
            self.resolved = True


_BLOCK: _Block | None = None


def parse_hosts(value: str, what: str) -> tuple[str, ...]:
    """``allowed_hosts=``'s value: host names and addresses, comma separated (an IPv6 address
    may be written in brackets). A ConfigError naming ``what`` for anything else."""
    hosts = []
    for word in value.split(","):
        host = word.strip().lower()
        if host.startswith("[") and host.endswith("]"):
            host = host[1:-1]
        if not host or not set(host) <= _HOST_CHARS:
            raise ConfigError(
                f"{what}: allowed_hosts= takes host names and addresses separated by commas "
                f"(allowed_hosts=127.0.0.1,judge.internal), not {printable(word, '')!r}"
            )
        hosts.append(host)
    return tuple(dict.fromkeys(hosts))


@contextmanager
def for_case(name: str) -> Iterator[None]:
    """While the body runs in this context (a target's call for test ``name``), a refused
    connection names ``name``; a client that wraps the refusal in its own error (openai
    before 1.5x: "Connection error.") gives it back as it was, so the case says which host."""
    token = _CASE.set(name)
    try:
        yield
    except Exception as exc:  # (re-raised as it is unless a refusal is inside)
        refusal = _refusal_in(exc)
        if refusal is None or refusal is exc:
            raise
        raise NetworkBlocked(str(refusal)) from exc
    finally:
        _CASE.reset(token)


def _refusal_in(exc: BaseException) -> NetworkBlocked | None:
    """The refusal among ``exc`` and the errors it was raised from or during (a bounded
    walk: a chain may loop)."""
    seen: set[int] = set()
    at: BaseException | None = exc
    while at is not None and id(at) not in seen and len(seen) < 50:
        if isinstance(at, NetworkBlocked):
            return at
        seen.add(id(at))
        at = at.__cause__ or at.__context__
    return None


def block(allowed: Sequence[str], what: str) -> None:
    """Refuse every outbound connection but to ``allowed`` from now until :func:`unblock`."""
    global _BLOCK, _INSTALLED
    with _LOCK:
        if not _INSTALLED:
            sys.addaudithook(_hook)
            _INSTALLED = True
        state = _Block(allowed=tuple(allowed), what=what)
        for host in allowed:
            address = _address(host)
            (state.addresses if address else state.names).add(address or host)
        _BLOCK = state


def unblock() -> None:
    """End the block (the session ends; a session run inside a test leaves the process so)."""
    global _BLOCK
    _BLOCK = None


def _hook(event: str, args: tuple[object, ...]) -> None:
    state = _BLOCK
    if state is None or event not in _EVENTS or getattr(_LOCAL, "busy", False):
        return
    if getattr(threading.current_thread(), "sends_reports", False):
        return  # the session's own OpenTelemetry export (telemetry/otlp_export.py's thread)
    target = _target(event, args)
    if target is None:
        return
    host, port = target
    if not state.allows(host):
        raise NetworkBlocked(_message(state, host, port))


def _target(event: str, args: tuple[object, ...]) -> tuple[str, object] | None:
    """The host and port an event reaches out to; None for what stays on the machine (a
    Unix-domain socket, a passive lookup, an address literal's lookup: its connect is held)."""
    if event in ("socket.connect", "socket.sendto", "socket.sendmsg"):
        sock, address = (args + (None, None))[:2]
        if getattr(sock, "family", None) not in _INET or not isinstance(address, tuple):
            return None
        return _text(address[0]), address[1] if len(address) > 1 else None
    if not args or args[0] is None:
        return None
    host = _text(args[0])
    if not host or (event != "socket.gethostbyaddr" and _address(host) is not None):
        return None  # (a reverse lookup of an address asks a server; a literal's lookup not)
    return host, args[1] if event == "socket.getaddrinfo" and len(args) > 1 else None


def _text(value: object) -> str:
    return value.decode("ascii", "replace") if isinstance(value, bytes) else str(value)


def _address(host: str) -> str | None:
    """``host`` as a normalised IP address (a zone index dropped); None for a name."""
    try:
        return str(ipaddress.ip_address(host.split("%", 1)[0]))
    except ValueError:
        return None


def _message(state: _Block, host: str, port: object) -> str:
    # a target's call names its case; else the test pytest runs now ("ID (call)")
    where = _CASE.get() or os.environ.get("PYTEST_CURRENT_TEST", "").rpartition(" (")[0]
    who = f"test {printable(where, '')}" if where else "the session (outside any test)"
    shown = printable(host, "")
    shown = f"[{shown}]" if ":" in shown else shown
    reached = f"{shown}:{port}" if port not in (None, 0, "") else shown
    allowed = ", ".join(state.allowed) or "none"
    return (
        f"{who} tried to reach {reached}, but the session runs offline ({state.what}: "
        f"outbound connections refused, allowed: {allowed}); allow the host with "
        f"allowed_hosts={printable(host, '')} in {state.what}, or turn the block off with "
        f"block_network=off"
    )


def summary_line() -> str:
    """The terminal summary's line of a session that runs offline (``""``: it does not)."""
    state = _BLOCK
    if state is None:
        return ""
    return f"offline: outbound connections refused (allowed: {', '.join(state.allowed) or 'none'})"
