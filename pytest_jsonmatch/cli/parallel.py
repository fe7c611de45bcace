"""Chunks of pairs scored in this process or in N worker processes, handed back in the
order they were sent, so that ``-j N`` gives exactly what ``-j 1`` gives. At most two chunks
per worker are in flight: records are read only as fast as they are scored. The workers start
before the files are read (:class:`Workers`), so that their start overlaps the reading.

Exactly, errors included: a gold record without a prediction reaches a worker still marked
as one (the marker is a bare ``object()``, which unpickles as a stranger), and an error met
while reading ahead waits until the chunks read before it are scored, since ``-j 1`` scores
those first and would stop at their error instead."""

from __future__ import annotations

import multiprocessing
from collections import deque
from collections.abc import Iterable, Iterator, Sequence
from concurrent.futures import Future, ProcessPoolExecutor
from typing import Any

from ..dataset import NO_PREDICTION, Pair, ScoreSettings, Scored, score_chunk

CHUNK = 64  # pairs per chunk: one score_records call, one trip to a worker


def _ready() -> None:
    """A worker's first task: nothing, once its imports are done (see :class:`Workers`)."""


def _score_in_worker(settings: ScoreSettings, chunk: Sequence[Pair]) -> Scored:
    return score_chunk(restored(chunk), settings)


class _Absent:
    """Stands for NO_PREDICTION on the way to a worker: an instance of a class pickles as
    one, where the sentinel itself would arrive as a new ``object()`` and be scored as a
    prediction (``actual must be a mapping ... not object``)."""


def portable(chunk: Sequence[Pair]) -> list[Pair]:
    """``chunk`` with each missing prediction marked so that it survives pickling (to a
    worker, or to the pair spool)."""
    return [p._replace(actual=_Absent()) if p.actual is NO_PREDICTION else p for p in chunk]


def restored(chunk: Sequence[Pair]) -> list[Pair]:
    """A chunk sent by :func:`_sendable`, its missing predictions NO_PREDICTION again."""
    return [p._replace(actual=NO_PREDICTION) if isinstance(p.actual, _Absent) else p
            for p in chunk]


def chunks(pairs: Iterable[Pair], size: int = CHUNK) -> Iterator[list[Pair]]:
    chunk: list[Pair] = []
    for pair in pairs:
        chunk.append(pair)
        if len(chunk) >= size:
            yield chunk
            chunk = []
    if chunk:
        yield chunk


class Workers:
    """The run's worker processes (none for one job). They are started on entering, before
    the files are read, so that their start (a new interpreter and its imports) overlaps
    the reading; each chunk travels with the settings it is scored with."""

    def __init__(self, jobs: int) -> None:
        self.jobs = jobs
        self._pool: ProcessPoolExecutor | None = None

    def __enter__(self) -> Workers:
        if self.jobs > 1:
            context = multiprocessing.get_context("spawn")  # no inherited state, same on every OS
            self._pool = ProcessPoolExecutor(self.jobs, mp_context=context)
            for _ in range(self.jobs):
                self._pool.submit(_ready)
        return self

    def __exit__(self, *exc: object) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=True, cancel_futures=True)
            self._pool = None

    def scored(self, pairs: Iterable[Pair], settings: ScoreSettings) -> Iterator[Scored]:
        """Each chunk of ``pairs``, scored, in order."""
        if self._pool is None:
            for chunk in chunks(pairs):
                yield score_chunk(chunk, settings)
            return
        pool = self._pool
        waiting: deque[Future[Any]] = deque()
        reading = chunks(pairs)
        try:
            while True:
                try:
                    chunk = next(reading, None)
                except Exception:
                    # -j 1 scores the chunks read so far before it reads on: their error,
                    # if they have one, comes first
                    while waiting:
                        yield waiting.popleft().result()
                    raise
                if chunk is None:
                    break
                waiting.append(pool.submit(_score_in_worker, settings, portable(chunk)))
                if len(waiting) >= 2 * self.jobs:
                    yield waiting.popleft().result()
            while waiting:
                yield waiting.popleft().result()
        finally:
            for future in waiting:
                future.cancel()
