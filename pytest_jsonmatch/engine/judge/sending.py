"""The judge's own retries, where no runner sends its requests (``match_json``,
``evaluate_records``, the ``jsonmatch`` command): a request retried as the golden cases'
runner retries the judge, a bounded number of times within a bounded wait, then a
:class:`JudgeUnavailable`; and how a failure reads (its reason, whether the judge is down)."""

from __future__ import annotations

import random
import time
from dataclasses import replace

from ..core.errors import ComparatorError
from ..core.masking import masked
from ..core.retry_after import retry_after
from .messages import JudgeReply, JudgeRequest, Transport


class JudgeUnavailable(ComparatorError):
    """The judge could not be reached or kept failing: names the judge, its endpoint and the
    attempts made. Once raised, the rest of the run asks it nothing more."""


RETRIES = 2  # a judge's request is tried at most three times (the plugin's default too)
RETRY_BUDGET_S = 30.0  # and waits at most this long in all between its attempts
_RETRY_STATUSES = frozenset({408, 409, 429})


def _retry_delay(exc: BaseException, attempt: int) -> float | None:
    """How long to wait before trying again after ``exc`` (attempt ``attempt`` failed), or
    None: not worth another attempt. The golden cases' runner reads failures alike
    (calls/retries.py)."""
    status = getattr(exc, "status_code", None)
    retryable = isinstance(exc, ConnectionError) or (
        isinstance(status, int)
        and not isinstance(status, bool)
        and (status in _RETRY_STATUSES or 500 <= status <= 599)
    )
    if not retryable:
        return None
    after = retry_after(getattr(exc, "response", None))
    if after is not None:
        return after
    return min(30.0, 0.5 * 2.0 ** (attempt - 1)) * (0.5 + random.random() / 2)


def failure_text(exc: BaseException) -> str:
    """A failure's message as a reason keeps it: masked, at most 300 characters."""
    text = masked(str(exc) or type(exc).__name__)
    return text if len(text) <= 300 else text[:297] + "..."


def is_unreachable(exc: BaseException) -> bool:
    """Whether a failure means the judge cannot be reached (refused connection, timeout,
    a server error still there after the retries) or refused its key (401, 403), so that
    the run stops asking it."""
    if isinstance(exc, JudgeUnavailable):
        return True
    status = getattr(exc, "status_code", None)
    return isinstance(exc, (ConnectionError, TimeoutError)) or (
        isinstance(status, int) and (status >= 500 or status in (401, 403, 429))
    )


def send_with_retries(transport: Transport, request: JudgeRequest) -> JudgeReply:
    """``request`` sent through ``transport`` by the judge itself, where no layer runs it through a runner
    (``match_json``, ``evaluate_records``, the ``jsonmatch`` command): retried as the
    golden cases' runner retries the judge (a refused connection, HTTP 408, 409, 429 or
    5xx; waiting what ``Retry-After`` asks, else backing off), at most ``RETRIES`` times
    and ``RETRY_BUDGET_S`` of waits in all, so that a judge that is down costs seconds;
    then a :class:`JudgeUnavailable` naming the judge, the endpoint and the attempts. A
    failure not worth retrying is raised as it is."""
    waited, attempt = 0.0, 0
    while True:
        attempt += 1
        try:
            reply = transport(request)
        except Exception as exc:
            delay = _retry_delay(exc, attempt)
            if delay is None and attempt == 1:
                raise
            if delay is None or attempt > RETRIES or waited + delay > RETRY_BUDGET_S:
                error = JudgeUnavailable(
                    f"judge {request.model!r} at {request.shown_endpoint} failed: "
                    f"{failure_text(exc)} ({attempt} attempts)"
                )
                error.attempts = attempt  # type: ignore[attr-defined]
                raise error from None
            time.sleep(delay)
            waited += delay
            continue
        if isinstance(reply, JudgeReply):
            return replace(reply, attempts=attempt)
        return reply
