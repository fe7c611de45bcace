"""The session's network block (``block_network`` of ``jsonmatch_record``, on by default under
``none``): while it is on, an outbound connection or a name lookup to a host the team did not
allow (``allowed_hosts=``) raises :class:`NetworkBlocked`, naming the host, the port and the
test or case that tried it, so that a replay proves it needed neither the model nor any
other service.

It is one check, made in two places, both installed once per process (the controller's and
each pytest-xdist worker's: each starts its own session) on the first :func:`block`, and
doing nothing while no block is on (neither can be removed). An audit hook
(``sys.addaudithook``) sees every thread of the process, the target's calls ahead, a
client's own threads and an event loop's lookups in an executor: ``socket.connect``
(``connect`` and ``connect_ex``), ``sendto`` and ``sendmsg`` to an address (a datagram, as
a DNS resolver sends), ``bind`` to a name, and the lookups (``getaddrinfo``,
``gethostbyname``, ``gethostbyname_ex``, ``gethostbyaddr``, ``getnameinfo``). But CPython
looks up a host *name* given to ``connect``, ``sendto``, ``sendmsg`` or ``bind`` inside the
C method, before the audit event, so that the DNS query would leave before the hook could
refuse it: the same check therefore runs first in Python's ``socket.socket`` (the class
every client makes its sockets from: ``ssl``, ``asyncio``, ``http.client``), which hands
the C method the very address it checked. Only the internet families are held: a
Unix-domain socket leaves no machine (pytest-xdist's own channels, a local database's
socket) and is let through. A loopback address is a host like any other: a replay that
needs a server on ``127.0.0.1`` lists it. A subprocess the target starts is another
interpreter, not seen; code that calls ``_socket`` itself is held at its connection, after
a name it gives was looked up. The session's own OpenTelemetry export (its thread
``sends_reports``) is no test's or target's call: it reaches the collector
``jsonmatch_otel`` names.
"""

from __future__ import annotations

import _socket
import functools
import ipaddress
import os
import socket
import sys
import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field

from ..engine.core.errors import ConfigError, JsonMatchError, printable

_SENDS = {"socket.connect", "socket.sendto", "socket.sendmsg", "socket.bind"}
_LOOKUPS = {
    "socket.getaddrinfo",
    "socket.gethostbyname",  # (gethostbyname_ex's event too)
    "socket.gethostbyaddr",
    "socket.getnameinfo",
}
_EVENTS = _SENDS | _LOOKUPS | {"socket.__new__"}
_INET = (socket.AF_INET, socket.AF_INET6)
_CASE: ContextVar[str] = ContextVar("jsonmatch_offline_case", default="")
_INSTALLED = False
_LOCK = threading.Lock()
_LOCAL = threading.local()  # ``busy``: this thread is resolving an allowed name (no recheck)
_HOST_CHARS = frozenset("abcdefghijklmnopqrstuvwxyz0123456789.-_:%")
# a socket's family as the C code holds it (``socket.socket.family`` is a property a
# subclass may override)
_FAMILY = _socket.socket.__dict__["family"]
# Python's socket class (``socket.socket`` itself, whatever a library put in its place since)
_SOCKET = next(
    (c for c in _socket.socket.__subclasses__() if c.__module__ == "socket"), socket.socket
)
# the methods of Python's socket class that take an address, and where it is among their
# arguments (``sendto(data[, flags], address)``, ``sendmsg(buffers, ancdata, flags,
# address)``); each is checked before the C method looks a name up
_TAKING_ADDRESS: dict[str, tuple[str, Callable[[int], int | None]]] = {
    "connect": ("socket.connect", lambda n: 0 if n == 1 else None),
    "connect_ex": ("socket.connect", lambda n: 0 if n == 1 else None),
    "sendto": ("socket.sendto", lambda n: n - 1 if n in (2, 3) else None),
    "sendmsg": ("socket.sendmsg", lambda n: 3 if n >= 4 else None),
    "bind": ("socket.bind", lambda n: 0 if n == 1 else None),
}


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
            return _name(host) in self.names
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
_OUTER: list[_Block | None] = []  # the blocks the one in force stands over, innermost last


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
    """Refuse every outbound connection but to ``allowed`` from now until :func:`unblock`.
    A block set while another is in force (a session run inside a test of a session that
    runs offline) stands over it until its own :func:`unblock`, which puts it back."""
    global _BLOCK, _INSTALLED
    with _LOCK:
        if not _INSTALLED:
            sys.addaudithook(_hook)
            _guard_sockets()
            _INSTALLED = True
        state = _Block(allowed=tuple(allowed), what=what)
        for host in allowed:
            address = _address(host)
            if address is None:
                state.names.add(_name(host))
            else:
                state.addresses.add(address)
        _OUTER.append(_BLOCK)
        _BLOCK = state


def unblock() -> None:
    """End the block last set (the session ends): the one it stood over, if any, is in
    force again."""
    global _BLOCK
    with _LOCK:
        _BLOCK = _OUTER.pop() if _OUTER else None


def _guard_sockets() -> None:
    """Python's socket class checks the address given to each method that takes one, as
    the audit hook does, before the C method looks a host name up; the method is then
    handed the address it checked (an exact tuple of an exact ``str`` or ``bytes``: no
    subclass can show the check one host and the resolver another). Run again as each
    socket is made: a method another put over the check (pytest-socket's ``connect``) is
    wrapped in turn."""
    for name, (event, position) in _TAKING_ADDRESS.items():
        method = getattr(_SOCKET, name)
        if not getattr(method, "_checks_hosts", False):
            setattr(_SOCKET, name, _guarded(method, event, position))


def _guarded(
    method: Callable[..., object], event: str, position: Callable[[int], int | None]
) -> Callable[..., object]:
    @functools.wraps(method)
    def checked(sock: socket.socket, *args: object) -> object:
        at = position(len(args))
        if _BLOCK is not None and at is not None and _family(sock) in _INET:
            address = _exact_address(args[at])
            if address is not None:
                _hook(event, (sock, address))
                args = (*args[:at], address, *args[at + 1 :])
        return method(sock, *args)

    checked._checks_hosts = True  # type: ignore[attr-defined]
    return checked


def _exact_address(address: object) -> tuple[object, ...] | None:
    """An internet address as the C code reads it: an exact tuple whose host is an exact
    ``str`` or ``bytes``; None for anything the C method refuses itself (no lookup)."""
    if not isinstance(address, tuple) or not address:
        return None
    items = tuple.__getitem__(address, slice(None))  # (an exact tuple, its own items)
    host = items[0]
    if isinstance(host, str):
        host = str.__str__(host)
    elif isinstance(host, (bytes, bytearray)):
        host = _own_bytes(host)
    else:
        return None
    return (host, *items[1:])


def _own_bytes(value: bytes | bytearray) -> bytes:
    """The bytes a ``bytes`` or ``bytearray`` holds, as an exact copy (a subclass's
    ``__bytes__`` or ``__buffer__`` not called)."""
    if isinstance(value, bytes):
        return bytes.__getitem__(value, slice(None))
    return bytes(bytearray.__getitem__(value, slice(None)))


def _hook(event: str, args: tuple[object, ...]) -> None:
    state = _BLOCK
    if state is None or event not in _EVENTS or getattr(_LOCAL, "busy", False):
        return
    if event == "socket.__new__":
        _guard_sockets()
        return
    if getattr(threading.current_thread(), "sends_reports", False):
        return  # the session's own OpenTelemetry export (telemetry/otlp_export.py's thread)
    target = _target(event, args)
    if target is None:
        return
    host, port, readable = target
    if not readable or not state.allows(host):
        raise NetworkBlocked(_message(state, host, port))


def _target(event: str, args: tuple[object, ...]) -> tuple[str, object, bool] | None:
    """The host and port an event reaches out to, and whether the host is read as the C
    code reads it; None for what stays on the machine (a Unix-domain socket, a passive
    lookup, an address literal's lookup, whose connect is held, a bind to an address)."""
    if event in _SENDS:
        sock, address = (args + (None, None))[:2]
        if _family(sock) not in _INET or not isinstance(address, tuple) or not address:
            return None
        items = tuple.__getitem__(address, slice(None))
    elif event == "socket.getnameinfo":  # (its one argument: the address to name)
        if not args or not isinstance(args[0], tuple) or not args[0]:
            return None
        items = tuple.__getitem__(args[0], slice(None))
    else:
        if not args or args[0] is None:
            return None
        items = (args[0], args[1] if event == "socket.getaddrinfo" and len(args) > 1 else None)
    text = _text(items[0])
    if text is None:
        return None  # (no host the C code would take: it refuses the call itself)
    host, readable = text
    port = items[1] if len(items) > 1 else None
    if readable and event in ("socket.getaddrinfo", "socket.gethostbyname", "socket.bind"):
        if not host or _address(host) is not None:
            return None  # (no name: nothing asks a resolver; a literal's connect is held)
        if event == "socket.bind" and host == "<broadcast>":
            return None  # (CPython's own word for the broadcast address)
    return host, port, readable


def _text(value: object) -> tuple[str, bool] | None:
    """A host as text, read from its own characters (a subclass's ``__str__`` or
    ``decode`` not called), and whether the resolver is asked that text: a ``str`` whose
    class overrides ``encode`` may have had the C code look up another name (CPython
    encodes a host through the ``idna`` codec, which calls it)."""
    if isinstance(value, str):
        return str.__str__(value), type(value).encode is str.encode
    if isinstance(value, (bytes, bytearray)):
        return _own_bytes(value).decode("ascii", "replace"), True
    return None


def _name(host: str) -> str:
    """A host name as a resolver is asked it, to compare with the allowed ones (see
    :func:`_spelled`), one final dot dropped (``localhost.`` is ``localhost``)."""
    name = _spelled(host)
    return name[:-1] if name.endswith(".") else name


def _spelled(host: str) -> str:
    """``host`` in lower case, a Unicode name in the IDNA form CPython gives the resolver
    (``bücher.example``: ``xn--bcher-kva.example``; ``１２７.０.０.１``: ``127.0.0.1``)."""
    if not host.isascii():
        try:
            host = host.encode("idna").decode("ascii")
        except UnicodeError:  # (no name CPython would look up: it fails the same way)
            pass
    return host.lower()


def _address(host: str) -> str | None:
    """``host`` as a normalised IP address (an IPv6 zone index dropped, an IPv4-mapped
    IPv6 address as its IPv4 one); None for a name. An IPv4 address followed by ``%`` is
    a name: a resolver may be asked it."""
    text, percent, _ = _spelled(host).partition("%")
    try:
        address = ipaddress.ip_address(text)
    except ValueError:
        return None
    if isinstance(address, ipaddress.IPv4Address):
        return None if percent else str(address)
    return str(address.ipv4_mapped or address)


def _family(sock: object) -> object:
    try:
        return _FAMILY.__get__(sock)
    except TypeError:  # (no socket)
        return None


def _message(state: _Block, host: str, port: object) -> str:
    # a target's call names its case; else the test pytest runs now ("ID (call)")
    where = _CASE.get() or os.environ.get("PYTEST_CURRENT_TEST", "").rpartition(" (")[0]
    who = f"test {printable(where, '')}" if where else "the session (outside any test)"
    shown = printable(host, "")
    shown = f"[{shown}]" if ":" in shown else shown
    reached = f"{shown}:{printable(str(port), '')}" if port not in (None, 0, "") else shown
    allowed = ", ".join(state.allowed) or "none"
    listed = printable(_address(host) or _spelled(host), "")
    return (
        f"{who} tried to reach {reached}, but the session runs offline ({state.what}: "
        f"outbound connections refused, allowed: {allowed}); allow the host with "
        f"allowed_hosts={listed} in {state.what}, or turn the block off with "
        f"block_network=off"
    )


def summary_line() -> str:
    """The terminal summary's line of a session that runs offline (``""``: it does not)."""
    state = _BLOCK
    if state is None:
        return ""
    return f"offline: outbound connections refused (allowed: {', '.join(state.allowed) or 'none'})"
