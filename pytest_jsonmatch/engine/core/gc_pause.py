"""The cyclic garbage collector held back while many records are scored.

Scoring a dataset builds one small tuple per field (a FieldResult) and keeps every one of
them in its result: hundreds of thousands of objects that live until the caller drops the
result and form no cycles. Each collection the allocations trigger walks all of them again,
and over 10,000 invoice records that was a third of ``evaluate_records``' time. While the
records are scored the collector is paused (reference counting still frees everything that
is dropped); it runs again as soon as they are done. Nothing is paused when the collector
was already off, and a pause never nests.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def collector_paused() -> Iterator[None]:
    """The cyclic collector off for the ``with`` block, on again after it (when it was on)."""
    if not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.enable()
