"""When a failed call of the target is worth another attempt, and how long to wait first.

Worth retrying: a failed connection, an HTTP status 408, 409, 429 or 5xx (httpx's
``exc.response.status_code``, the openai client's ``exc.status_code``), and a timeout when
the settings ask for it. The wait is what the server asked for, read from the response's
headers as OpenAI and Azure send them (``retry-after-ms``, then ``Retry-After`` in seconds
or as an HTTP date), at most ``RETRY_AFTER_CAP_S``; else exponential backoff with jitter.
Whatever the waits, a call stops retrying once they would pass its retry budget
(``jsonmatch_calls ... retry_budget=``), so no server can hold a run for long.
"""

from __future__ import annotations

import random

from ..engine.core.errors import CaseFileError
from ..engine.core.retry_after import RETRY_AFTER_CAP_S, retry_after

BACKOFF_BASE_S = 0.5  # the first retry waits about this long, each further one twice as long
BACKOFF_CAP_S = 30.0
RETRY_STATUSES = frozenset({408, 409, 429})
__all__ = ["RETRY_AFTER_CAP_S", "TargetTimeout", "retry_after", "retry_delay"]
_CONNECT_ERRORS = ("ConnectError", "ConnectTimeout", "APIConnectionError")  # httpx, openai


class TargetTimeout(CaseFileError):
    """A call of the target ran longer than the timeout (``jsonmatch_calls ... timeout=``)."""


def retry_delay(
    exc: BaseException, attempt: int, timeouts: bool = False, now: float | None = None
) -> float | None:
    """How long to wait before retrying after ``exc`` (attempt ``attempt`` failed, 1-based),
    or None when it is not worth retrying (see the module docstring). ``now`` (seconds since
    the epoch; the clock when None) is what an HTTP-date ``Retry-After`` is counted from."""
    response = getattr(exc, "response", None)
    status = getattr(response, "status_code", None)
    if not isinstance(status, int):
        status = getattr(exc, "status_code", None)
    names = {cls.__name__ for cls in type(exc).__mro__}
    retryable = (
        (timeouts and isinstance(exc, TargetTimeout))
        or isinstance(exc, ConnectionError)
        or bool(names & set(_CONNECT_ERRORS))
        or (
            isinstance(status, int)
            and not isinstance(status, bool)
            and (status in RETRY_STATUSES or 500 <= status <= 599)
        )
    )
    if not retryable:
        return None
    after = retry_after(response, now)
    if after is not None:
        return after
    backoff = min(BACKOFF_CAP_S, BACKOFF_BASE_S * 2.0 ** (attempt - 1))
    return backoff * (0.5 + random.random() / 2)
