"""The wait a server asks for before a request is tried again, read from its response's
headers as OpenAI and Azure send them: ``retry-after-ms``, then ``Retry-After`` in seconds
or as an HTTP date, at most ``RETRY_AFTER_CAP_S``. Shared by the golden cases' runner
(calls/retries.py) and the judge's own retries where no runner runs it (semantic.py)."""

from __future__ import annotations

import math
from email.utils import parsedate_to_datetime

RETRY_AFTER_CAP_S = 300.0  # a server asking for more is taken at this


def retry_after(response: object, now: float | None = None) -> float | None:
    """The seconds a response asks the client to wait (None: it does not say, or says
    nothing readable): ``retry-after-ms`` first, then ``Retry-After`` as seconds or as an
    HTTP date; at most ``RETRY_AFTER_CAP_S``."""
    headers = getattr(response, "headers", None)
    try:
        millis = headers.get("retry-after-ms") if headers is not None else None
        value = headers.get("retry-after") if headers is not None else None
    except Exception:  # noqa: BLE001 - a header object of an unknown shape
        return None
    seconds = _number(millis)
    if seconds is not None:
        seconds /= 1000.0
    else:
        seconds = _number(value)
    if seconds is None and isinstance(value, str):
        seconds = _until(value, now)
    return None if seconds is None else min(seconds, RETRY_AFTER_CAP_S)


def _number(value: object) -> float | None:
    try:
        number = float(str(value).strip()) if value is not None else math.nan
    except ValueError:
        return None
    return number if math.isfinite(number) and number >= 0 else None


def _until(date: str, now: float | None) -> float | None:
    """Seconds from ``now`` until an HTTP date (``Wed, 21 Oct 2026 07:28:00 GMT``); 0 for a
    date past; None for text that is not a date."""
    import time

    try:
        when = parsedate_to_datetime(date.strip()).timestamp()
    except (TypeError, ValueError, IndexError, OverflowError):
        return None
    return max(0.0, when - (time.time() if now is None else now))
