"""Every run of a trace source that a selection matches (:func:`read_traces`): the repeats
of one scenario, as an agent traced k times leaves them (k traces whose spans carry
``scenario=refund``, or k traces under one root span's name).

``trace_spans.read_trace`` reads one run and refuses a selection that several traces match;
here those traces are the point. They are found by ``trace_spans``' own selection (the same
rules: ``root``, ``attribute``, a file of JSON lines read only where the runs can be), put in
the order their first span has in the source (deterministic, whichever lines were read), and
each is then read as ``read_trace`` reads it under its trace id (the source read whole once
where several match, not once a run), so that a run read here is the run ``read_trace``
gives, span for span.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from typing import Any

from ..core.errors import ConfigError, ParseError
from ..core.gc_pause import collector_paused
from .trace_formats import RawSpan
from .trace_spans import (
    Trace,
    _listing,
    _matches,
    _needles,
    _runs,
    _selection,
    _source,
    read_trace,
    trace_of,
)

MAX_RUNS = 1000  # runs one selection may give (a case's repeats: cases/repeats.MAX_REPEAT)


def read_traces(
    path_or_spans: object,
    *,
    root: object = None,
    attribute: object = None,
    most: int = MAX_RUNS,
) -> tuple[Trace, ...]:
    """Every run of ``path_or_spans`` (a trace file's path, or the SDK's spans) that
    ``root`` and ``attribute`` select (neither: every trace it holds), in the order the
    source first names each, each read as ``read_trace`` reads it. None matching is a
    ParseError naming the source and the traces it holds; more than ``most`` a
    ConfigError."""
    wanted = _selection(None, root, attribute)
    source = _held(path_or_spans)
    ids = trace_ids(source, wanted, most)
    if len(ids) == 1:  # (its lines alone read again)
        return (read_trace(source, trace_id=ids[0]),)
    # several: the source read whole once and each run taken from it, the spans read_trace
    # would find by its trace id (every span carries it), not the source read once a run
    with collector_paused():
        name, spans_of, _ = _source(source)
        runs = _runs(spans_of(None), name)
        return tuple(trace_of(trace_id, runs[trace_id], name) for trace_id in ids)


def trace_ids(source: object, wanted: dict[str, Any], most: int = MAX_RUNS) -> list[str]:
    """The trace ids of the runs of ``source`` that ``wanted`` (a checked selection)
    matches, in the order of their first span in the source."""
    with collector_paused():  # (many objects, none in a cycle: gc_pause.py)
        name, spans_of, _ = _source(source)
        try:  # (a file of JSON lines: the lines that may hold the runs only)
            runs = _runs(spans_of(wanted or None), name)
            found = _matching(runs, wanted, name)
        except ParseError:
            if not (isinstance(source, (str, os.PathLike)) and _needles(wanted)):
                raise  # (read whole already)
            found = {}
        if not found and isinstance(source, (str, os.PathLike)) and _needles(wanted):
            runs = _runs(spans_of(None), name)
            found = _matching(runs, wanted, name)
        if not found:
            said = ", ".join(f"{k}={v!r}" for k, v in wanted.items())
            raise ParseError(f"{name}: no trace matches {said}; it holds {_listing(runs)}")
        if len(found) > most:
            raise ConfigError(
                f"{name}: {len(found):,} traces match, more than the {most:,} runs one selection "
                f"may give ({_listing(found)})"
            )
        return sorted(found, key=lambda trace_id: min(raw.at for raw in found[trace_id]))


def _matching(
    runs: dict[str, list[RawSpan]], wanted: dict[str, Any], name: str
) -> dict[str, list[RawSpan]]:
    return {k: v for k, v in runs.items() if _matches(k, v, wanted, name)}


def _held(given: object) -> object:
    """``given`` as it can be read more than once: spans handed over as a one-pass iterable
    are listed first (a path, an exporter or a list is read again as it is)."""
    if isinstance(given, (str, os.PathLike, bytes, bytearray, Mapping, list, tuple)):
        return given
    if callable(getattr(given, "get_finished_spans", None)):
        return given
    return list(given) if isinstance(given, Iterable) else given
