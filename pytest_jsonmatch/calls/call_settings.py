"""How a session calls its target, as settings: concurrency, a timeout, retries, a rate
limit; and their text form (``concurrency=8 timeout=30 rate=120/min``)."""

from __future__ import annotations

import math
import re
from collections.abc import Sequence

from ..engine.core.errors import ConfigError, did_you_mean
from ..engine.core.numbers import whole_number
from ..engine.core.slotted import HashedSlotted

DEFAULT_CONCURRENCY = 1
MAX_CONCURRENCY = 1000
MAX_RETRIES = 100
# Seconds a timeout or a retry budget may be: a day is past any call's wait, and a
# socket refuses a timeout of 1e10 s, a thread's wait one past 9.2e9 s (OverflowError)
MAX_SECONDS = 86_400.0
# The slowest rate: one call an hour (a lower one leaves a run waiting for days)
MIN_RATE = 1 / 3600
DEFAULT_RETRY_BUDGET_S = 120.0


class CallSettings(HashedSlotted):
    """How a session calls its target: ``concurrency`` calls at a time, each at most
    ``timeout`` seconds (None: no limit), retried up to ``retries`` times, started at most
    ``rate`` times a second by the whole process (None: no limit). (HashedSlotted, not a
    dataclass: made when the golden session starts; hashable, as JudgeSetup.calls's default
    must be.)"""

    __slots__ = ("concurrency", "timeout", "retries", "rate", "retry_timeouts", "retry_budget")

    concurrency: int
    timeout: float | None
    retries: int
    rate: float | None
    # a call that timed out is retried only when asked: a target that hangs would otherwise
    # hold the run (retries + 1) x timeout
    retry_timeouts: bool
    # the most one call waits between its attempts, in all: a retry that would wait past it
    # is not made (a server's Retry-After cannot hold the run)
    retry_budget: float

    def __init__(
        self,
        *,
        concurrency: int = DEFAULT_CONCURRENCY,
        timeout: float | None = None,
        retries: int = 0,
        rate: float | None = None,
        retry_timeouts: bool = False,
        retry_budget: float = DEFAULT_RETRY_BUDGET_S,
    ) -> None:
        self.concurrency, self.timeout, self.retries = concurrency, timeout, retries
        self.rate, self.retry_timeouts, self.retry_budget = rate, retry_timeouts, retry_budget

    def per_worker(self, workers: int, shared_rate: bool = False) -> CallSettings:
        """What each of ``workers`` processes (pytest-xdist) may use, so that the session as a
        whole keeps to these limits: the concurrency divided among them (each worker runs one
        call at a time at the least), and the rate too unless the workers share one schedule
        of starts (``shared_rate``: shared_starts.py), which holds it for all of them."""
        if workers <= 1:
            return self
        return self.replace(
            concurrency=max(1, self.concurrency // workers),
            rate=None if self.rate is None else self.rate if shared_rate else self.rate / workers,
        )

    def per_worker_note(self, workers: int, shared_rate: bool = False) -> str | None:
        """What :meth:`per_worker` did, in words, for the summary (None: nothing to say)."""
        if workers <= 1 or (self.rate is None and self.concurrency == 1):
            return None
        each = self.per_worker(workers, shared_rate)
        rate = (
            ""
            if each.rate is None
            else f", {each.rate * 60:g} calls a minute in all, starts spaced across workers"
            if shared_rate
            else f", {each.rate * 60:g} calls a minute"
        )
        over = (
            ""
            if each.concurrency * workers <= self.concurrency
            else f" ({each.concurrency * workers} at once in all: concurrency {self.concurrency} "
            f"cannot be split further)"
        )
        return (
            f"calls: jsonmatch_calls holds for the whole session, shared by {workers} "
            f"xdist workers: each runs {each.concurrency} at a time{rate}{over}"
        )


CALL_KEYS = ("concurrency", "timeout", "retries", "rate", "retry_timeouts", "retry_budget")


def parse_calls(parts: Sequence[tuple[str, str]]) -> CallSettings:
    """``concurrency=N timeout=S retries=N rate=N/min retry_timeouts=yes retry_budget=S`` from each
    ``(text, name)`` in turn, a later one's keys overriding an earlier one's (a flag's over
    the ini's); a ConfigError naming the setting and the key."""
    given: dict[str, tuple[str, str]] = {}  # key -> (value, name for messages)
    for text, what in parts:
        seen: set[str] = set()
        for word in text.replace(",", " ").split():
            key, sep, value = word.partition("=")
            if not sep or key not in CALL_KEYS:
                hint = did_you_mean(key, CALL_KEYS) if sep else ""
                raise ConfigError(
                    f"{what}: expected key=value with a key of "
                    f"{', '.join(CALL_KEYS)}, not {word!r}{hint}"
                )
            if key in seen:
                raise ConfigError(f"{what}: {key} given twice")
            seen.add(key)
            given[key] = (value, f"{what}: {key}")
    out = CallSettings()
    if "concurrency" in given:
        out = out.replace(
            concurrency=whole_number(
                *given["concurrency"], 1, MAX_CONCURRENCY, "of calls ", " (1: one after another)"
            ),
        )
    if "retries" in given:
        out = out.replace(retries=whole_number(*given["retries"], 0, MAX_RETRIES))
    if "timeout" in given:
        out = out.replace(timeout=_seconds(*given["timeout"]))
    if "rate" in given:
        value, what = given["rate"]
        rate = rate_per_second(value)
        if rate is None:
            raise ConfigError(
                f"{what} must be a number of calls per second, minute or hour "
                f"from one an hour up, like 120/min or 5/s, not {value[:40]!r}"
            )
        out = out.replace(rate=rate)
    if "retry_budget" in given:
        out = out.replace(retry_budget=_seconds(*given["retry_budget"]))
    if "retry_timeouts" in given:
        value, what = given["retry_timeouts"]
        if value.lower() not in ("yes", "no", "true", "false"):
            raise ConfigError(f"{what} must be yes or no, not {value!r}")
        out = out.replace(retry_timeouts=value.lower() in ("yes", "true"))
    return out


def _seconds(value: str, what: str) -> float:
    try:
        seconds = float(value)
    except ValueError:
        seconds = math.nan
    if not 0 < seconds <= MAX_SECONDS:  # (NaN fails both)
        raise ConfigError(
            f"{what} must be a number of seconds above 0 and at most {MAX_SECONDS:g} (a day), "
            f"not {value[:40]!r}"
        )
    return seconds


def rate_per_second(text: str) -> float | None:
    """``120/min``, ``5/s``, ``1000/hour`` as calls per second; None when ``text`` is not a
    rate, or one slower than one call an hour."""
    match = re.fullmatch(
        r"\s*([0-9]+(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?)"
        r"\s*/\s*(s|sec|second|m|min|minute|h|hour)\s*",
        text or "",
    )
    if match is None:
        return None
    count = float(match.group(1))
    per = {"s": 1.0, "m": 60.0, "h": 3600.0}[match.group(2)[0]]
    rate = count / per
    return rate if MIN_RATE <= rate and math.isfinite(rate) else None
