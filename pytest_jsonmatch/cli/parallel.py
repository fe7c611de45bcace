"""Chunks of pairs scored in this process or in N worker processes, handed back in the
order they were sent, so that ``-j N`` gives exactly what ``-j 1`` gives. At most two chunks
per worker are in flight: records are read only as fast as they are scored."""

from __future__ import annotations

import multiprocessing
from collections import deque
from collections.abc import Iterable, Iterator, Sequence
from concurrent.futures import Future, ProcessPoolExecutor
from typing import Any

from ..dataset import Pair, ScoreSettings, Scored, score_chunk

CHUNK = 64  # pairs per chunk: one evaluate_records call, one trip to a worker

_settings: ScoreSettings | None = None


def _start_worker(settings: ScoreSettings) -> None:
    global _settings
    _settings = settings


def _score_in_worker(chunk: Sequence[Pair]) -> Scored:
    assert _settings is not None
    return score_chunk(chunk, _settings)


def chunks(pairs: Iterable[Pair], size: int = CHUNK) -> Iterator[list[Pair]]:
    chunk: list[Pair] = []
    for pair in pairs:
        chunk.append(pair)
        if len(chunk) >= size:
            yield chunk
            chunk = []
    if chunk:
        yield chunk


def scored(pairs: Iterable[Pair], settings: ScoreSettings, jobs: int) -> Iterator[Scored]:
    """Each chunk of ``pairs``, scored, in order."""
    if jobs <= 1:
        for chunk in chunks(pairs):
            yield score_chunk(chunk, settings)
        return
    context = multiprocessing.get_context("spawn")  # no inherited state, same on every OS
    with ProcessPoolExecutor(jobs, mp_context=context, initializer=_start_worker,
                             initargs=(settings,)) as pool:
        waiting: deque[Future[Any]] = deque()
        try:
            for chunk in chunks(pairs):
                waiting.append(pool.submit(_score_in_worker, chunk))
                if len(waiting) >= 2 * jobs:
                    yield waiting.popleft().result()
            while waiting:
                yield waiting.popleft().result()
        finally:
            for future in waiting:
                future.cancel()
