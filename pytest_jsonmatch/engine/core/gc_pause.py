"""The cyclic garbage collector held back while many records are scored, and while a
command of the ``jsonmatch`` program runs.

Scoring a dataset builds one small tuple per field (a FieldResult) and keeps every one of
them in its result: hundreds of thousands of objects that live until the caller drops the
result and form no cycles. Each collection the allocations trigger walks all of them again,
and over 10,000 invoice records that was a third of ``evaluate_records``' time. While the
records are scored the collector is paused (reference counting still frees everything that
is dropped); it runs again as soon as they are done. Nothing is paused when the collector
was already off, and a pause never nests.

A command (:func:`fewer_collections`) runs with the collector passing about 30 times less
often instead: its imports and its reading make many objects that live as long as the
process, and its scoring many that reference counting frees.
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


# The collector's thresholds while a command runs: a pass every 20,000 new containers
# rather than every 700 (Python's default), the older generations as rarely again.
COMMAND_THRESHOLDS = (20_000, 50, 100)


@contextmanager
def fewer_collections() -> Iterator[None]:
    """The cyclic collector run about 30 times less often for the ``with`` block, its
    thresholds as they were after it (a command may be run inside another program).

    A dataset's run makes millions of short-lived containers (parsed records, field results,
    report entries), all freed by their reference counts; at Python's default the
    collector's passes found nothing to free and took about a seventh of ``jsonmatch
    score``'s time. A command's imports likewise make tens of thousands of classes,
    functions and tables that live as long as the process: at the default, a command of one
    record passed over them about ten times before it read its first line, one of them a
    pass over the second generation (docs/performance.md)."""
    saved = gc.get_threshold()
    gc.set_threshold(*COMMAND_THRESHOLDS)
    try:
        yield
    finally:
        gc.set_threshold(*saved)
