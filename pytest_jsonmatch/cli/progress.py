"""A progress bar on standard error, for runs that last: drawn only when standard error is
a terminal and the run has gone on for more than a second, redrawn at most ten times a
second, and wiped when the run ends. No dependency; nothing at all when not a terminal."""

from __future__ import annotations

import sys
import time
from typing import IO

DELAY = 1.0  # seconds before the bar first shows
INTERVAL = 0.1  # seconds between redraws
WIDTH = 30  # cells of the bar


class Progress:
    def __init__(
        self, total: int | None, stream: IO[str] | None = None, enabled: bool | None = None
    ) -> None:
        self.stream = stream if stream is not None else sys.stderr
        if enabled is None:
            isatty = getattr(self.stream, "isatty", None)
            enabled = bool(isatty and isatty())
        self.enabled = enabled
        self.total = total
        self.done = 0
        self.start = time.monotonic()
        self.last = 0.0
        self.shown = False

    def advance(self, count: int) -> None:
        self.done += count
        if not self.enabled:
            return
        now = time.monotonic()
        if now - self.start < DELAY or now - self.last < INTERVAL:
            return
        self.last = now
        self._draw(now)

    def _draw(self, now: float) -> None:
        rate = self.done / max(now - self.start, 1e-9)
        if self.total:
            share = min(self.done / self.total, 1.0)
            cells = int(share * WIDTH)
            bar = "#" * cells + "." * (WIDTH - cells)
            text = f"[{bar}] {share:4.0%} {self.done:,}/{self.total:,} records, {rate:,.0f}/s"
        else:
            text = f"{self.done:,} records, {rate:,.0f}/s"
        self.stream.write("\r" + text + "\x1b[K")
        self.stream.flush()
        self.shown = True

    def close(self) -> None:
        if self.shown:
            self.stream.write("\r\x1b[K")
            self.stream.flush()
            self.shown = False
