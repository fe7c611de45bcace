"""The judge's default transport: one POST to an OpenAI-compatible ``/chat/completions``
endpoint with the standard library's HTTP client (no dependency), the key read from the
environment variable the settings name.

It makes exactly one attempt: retries, their waits (``Retry-After``), the rate limit and
the concurrency belong to the runner of the layer that runs the judge, never to a loop in
here. Its failures carry what that runner reads: an HTTP status as ``status_code`` and the
response's headers on ``response``, a refused connection as a ``ConnectionError``, a
request that took too long as a ``TimeoutError``.

The key goes to the configured endpoint and nowhere else: the request is made with
``http.client`` directly, so no redirect is followed (a 3xx is a failed attempt naming the
status and its ``Location``), no proxy is read from the environment and no scheme but
``http`` and ``https`` is spoken. One deadline, ``timeout`` seconds from the start, covers
the whole attempt (connecting, sending, the headers and the body): a server that answers
one byte at a time cannot hold it longer. A reply is read up to ``MAX_REPLY_BYTES`` and a
request is never larger than ``MAX_REQUEST_BYTES``.
"""

from __future__ import annotations

import http.client
import json
import socket
import ssl
import threading
import time
import urllib.parse
from email.message import Message

from ..core.errors import ComparatorError
from ..core.masking import mask_variable, masked, without_userinfo
from .messages import MAX_REQUEST_BYTES, JudgeReply, JudgeRequest, reply_from_json

MAX_REPLY_BYTES = 8 * 1024 * 1024  # the most of a reply read (8 MiB)
_CHUNK = 64 * 1024  # a reply's body is read this much at a time
_DETAIL = 300  # bytes of an error response's body its message quotes


class JudgeHTTPError(ComparatorError):
    """The judge's server answered with an error status (``status_code``; ``response``
    holds its headers, for ``Retry-After``)."""

    def __init__(self, message: str, status_code: int, response: _Response) -> None:
        super().__init__(message)
        self.status_code, self.response = status_code, response


class JudgeConnectionError(ComparatorError, ConnectionError):
    """The judge's server could not be reached."""


class JudgeTimeout(ComparatorError, TimeoutError):
    """The judge's server did not answer within the judge's ``timeout``."""


class _Response:
    """What the runner's retry rule reads of a failed response: its status and headers."""

    def __init__(self, status_code: int, headers: Message) -> None:
        self.status_code, self.headers = status_code, headers


class _Deadline:
    """One attempt's deadline: when it passes, the connection's socket is shut down, so that
    whatever read or write is blocked on it ends at once (``passed`` tells why it ended)."""

    def __init__(self, seconds: float) -> None:
        self.seconds, self.end = seconds, time.monotonic() + seconds
        self.passed = False
        self._sock: socket.socket | None = None
        self._lock = threading.Lock()
        self._timer = threading.Timer(seconds, self._expire)
        self._timer.daemon = True

    def __enter__(self) -> _Deadline:
        self._timer.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._timer.cancel()

    def watch(self, sock: socket.socket) -> None:
        """Shut ``sock`` down when the deadline passes (at once if it has)."""
        with self._lock:
            self._sock = sock
        if self.passed:
            self._expire()

    def left(self) -> float:
        """Seconds left; a TimeoutError once none are."""
        left = self.end - time.monotonic()
        if self.passed or left <= 0:
            raise TimeoutError
        return left

    def _expire(self) -> None:
        self.passed = True
        with self._lock:
            sock = self._sock
        if sock is not None:
            try:
                sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass  # already closed: nothing is blocked on it


def chat_url(endpoint: str) -> urllib.parse.SplitResult:
    """The chat-completions URL of ``endpoint``; a ComparatorError for a URL that is not
    ``http://`` or ``https://`` with a host (the key is sent over nothing else)."""
    parts = urllib.parse.urlsplit(endpoint.rstrip("/") + "/chat/completions")
    if parts.scheme.lower() not in ("http", "https") or not parts.hostname:
        raise ComparatorError(
            f"the judge's endpoint must be an http:// or https:// URL with a host, not "
            f"{masked(endpoint)[:80]!r}"
        )
    return parts


class HttpTransport:
    """``transport(request) -> JudgeReply`` over HTTP (see the module docstring)."""

    def __call__(self, request: JudgeRequest) -> JudgeReply:
        parts = chat_url(request.endpoint)
        # the URL as messages name it: no query, no user or password
        url = without_userinfo(urllib.parse.urlunsplit(parts._replace(query="", fragment="")))
        data = json.dumps(request.body()).encode()
        if len(data) > MAX_REQUEST_BYTES:
            raise ComparatorError(
                f"the request to {url} would be {len(data):,} bytes, more than the "
                f"{MAX_REQUEST_BYTES:,} a judge request may carry: not sent"
            )
        headers = {"Content-Type": "application/json", **_authorization(request.key_env)}
        connection = _connection(parts, request.timeout)
        try:
            with _Deadline(request.timeout) as deadline:
                body = _exchange(connection, parts, data, headers, url, deadline)
        finally:
            connection.close()
        try:
            payload = json.loads(body)
        except ValueError:
            raise ComparatorError(
                f"the judge's response from {url} is not JSON: {masked(repr(body[:80]))}"
            ) from None
        return reply_from_json(payload)


def _authorization(key_env: str) -> dict[str, str]:
    """The Authorization header of the key ``key_env`` names (none when it names none); the
    key is masked in whatever this process writes from now on."""
    if not key_env:
        return {}
    key = mask_variable(key_env)
    if not key:
        raise ComparatorError(f"the judge's key variable {_shown_name(key_env)}")
    return {"Authorization": f"Bearer {key}"}


def _shown_name(name: str) -> str:
    """A variable's name as a message may show it: in upper case, as variables are named;
    another is not shown, since it may be a key written where its variable's name belongs."""
    if name.isupper():
        return f"{name} is not set in the environment"
    return (
        "named by key_env is not set in the environment (its name is not shown: not in "
        "upper case, it may be a key)"
    )


def _connection(parts: urllib.parse.SplitResult, timeout: float) -> http.client.HTTPConnection:
    host, port = parts.hostname or "", parts.port
    if parts.scheme.lower() == "https":
        context = ssl.create_default_context()
        return http.client.HTTPSConnection(host, port, timeout=timeout, context=context)
    return http.client.HTTPConnection(host, port, timeout=timeout)


def _exchange(
    connection: http.client.HTTPConnection,
    parts: urllib.parse.SplitResult,
    data: bytes,
    headers: dict[str, str],
    url: str,
    deadline: _Deadline,
) -> bytes:
    """Send the request and read the reply's body within ``deadline``; a failure as the
    runner reads it (timeout, connection, HTTP status)."""
    path = urllib.parse.urlunsplit(("", "", parts.path or "/", parts.query, ""))
    try:
        connection.connect()
        deadline.watch(connection.sock)
        connection.sock.settimeout(deadline.left())
        connection.request("POST", path, body=data, headers=headers)
        response = connection.getresponse()
        _check_status(response, url, deadline)
        return _read_body(response, url, deadline)
    except (OSError, http.client.HTTPException) as exc:
        if deadline.passed or isinstance(exc, TimeoutError):
            raise JudgeTimeout(f"no answer from {url} within {deadline.seconds:g} s") from None
        if isinstance(exc, OSError) and not isinstance(exc, ssl.SSLError):
            raise JudgeConnectionError(f"cannot reach {url}: {exc}") from None
        raise JudgeConnectionError(f"cannot reach {url}: {type(exc).__name__}: {exc}") from None


def _check_status(response: http.client.HTTPResponse, url: str, deadline: _Deadline) -> None:
    """Nothing for a 2xx; a :class:`JudgeHTTPError` for any other status: a redirect is
    never followed (it would take the key elsewhere), so it names where it pointed."""
    status = response.status
    if 200 <= status <= 299:
        return
    if 300 <= status <= 399:
        where = masked(str(response.getheader("Location", "")))[:200]
        message = f"HTTP {status} from {url}: a redirect to {where!r}, not followed (the key goes to the configured endpoint only)"
    else:
        deadline.left()
        detail = response.read(_DETAIL).decode("utf-8", "replace").strip()
        deadline.left()
        message = f"HTTP {status} from {url}{': ' + masked(detail) if detail else ''}"
    raise JudgeHTTPError(message, status, _Response(status, response.msg))


def _read_body(response: http.client.HTTPResponse, url: str, deadline: _Deadline) -> bytes:
    """The reply's body, read a chunk at a time up to ``MAX_REPLY_BYTES``."""
    parts: list[bytes] = []
    size = 0
    while True:
        deadline.left()
        chunk = response.read1(_CHUNK)
        if not chunk:
            deadline.left()  # the end of the body, or the deadline's shutdown
            return b"".join(parts)
        size += len(chunk)
        if size > MAX_REPLY_BYTES:
            raise ComparatorError(
                f"the judge's response from {url} is larger than {MAX_REPLY_BYTES:,} bytes "
                f"(8 MiB, the most a reply is read)"
            )
        parts.append(chunk)
