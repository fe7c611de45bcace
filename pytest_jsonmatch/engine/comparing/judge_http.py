"""The judge's default transport: one POST to an OpenAI-compatible ``/chat/completions``
endpoint with the standard library's HTTP client (no dependency), the key read from the
environment variable the settings name.

It makes exactly one attempt: retries, their waits (``Retry-After``), the rate limit and
the concurrency belong to the runner of the layer that runs the judge, never to a loop in
here. Its failures carry what that runner reads: an HTTP status as ``status_code`` and the
response's headers on ``response``, a refused connection as a ``ConnectionError``, a
request that took too long as a ``TimeoutError``.
"""

from __future__ import annotations

import json
import os
import socket
import urllib.error
import urllib.request
from email.message import Message

from ..core.errors import ComparatorError
from .judge_messages import JudgeReply, JudgeRequest, reply_from_json

MAX_REPLY_BYTES = 8 * 1024 * 1024


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


class HttpTransport:
    """``transport(request) -> JudgeReply`` over HTTP (see the module docstring)."""

    def __call__(self, request: JudgeRequest) -> JudgeReply:
        url = request.endpoint.rstrip("/") + "/chat/completions"
        headers = {"Content-Type": "application/json"}
        if request.key_env:
            key = os.environ.get(request.key_env)
            if not key:
                raise ComparatorError(
                    f"the judge's key variable {request.key_env} is not set in the environment"
                )
            headers["Authorization"] = f"Bearer {key}"
        data = json.dumps(request.body()).encode()
        sent = urllib.request.Request(url, data=data, headers=headers, method="POST")
        try:
            with urllib.request.urlopen(sent, timeout=request.timeout) as answer:
                body = answer.read(MAX_REPLY_BYTES + 1)
        except urllib.error.HTTPError as exc:
            detail = exc.read(300).decode("utf-8", "replace").strip()
            raise JudgeHTTPError(
                f"HTTP {exc.code} from {url}{': ' + detail if detail else ''}",
                exc.code,
                _Response(exc.code, exc.headers),
            ) from None
        except urllib.error.URLError as exc:
            if isinstance(exc.reason, (socket.timeout, TimeoutError)):
                raise JudgeTimeout(f"no answer from {url} within {request.timeout:g} s") from None
            raise JudgeConnectionError(f"cannot reach {url}: {exc.reason}") from None
        except TimeoutError:
            raise JudgeTimeout(f"no answer from {url} within {request.timeout:g} s") from None
        except (ConnectionError, OSError) as exc:
            raise JudgeConnectionError(f"cannot reach {url}: {exc}") from None
        if len(body) > MAX_REPLY_BYTES:
            raise ComparatorError(f"the judge's response from {url} is larger than 8 MiB")
        try:
            payload = json.loads(body)
        except ValueError:
            raise ComparatorError(
                f"the judge's response from {url} is not JSON: {body[:80]!r}"
            ) from None
        return reply_from_json(payload)
