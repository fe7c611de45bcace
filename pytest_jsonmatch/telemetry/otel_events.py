"""Each comparison's result as an OpenTelemetry ``gen_ai.evaluation.result`` event, parented to
the span of the model call it evaluates (imported only when ``jsonmatch_otel`` is on).

Follows the GenAI semantic conventions 1.38 (events as log records with an event name, in
the span's context; attributes ``gen_ai.evaluation.name``, ``.score.value``, ``.score.label``,
``.explanation``, ``gen_ai.response.id``, ``error.type``).

**Providers.** A global SDK ``TracerProvider`` or ``LoggerProvider`` the user set before the
tests run (``conftest.py``, ``opentelemetry-instrument``) is used as it is, and only flushed
at the end. A signal without one goes through the session's own outbox
(:mod:`.otlp_export`): messages built straight into OTLP protobuf and sent by a thread,
configured by the same ``OTEL_*`` variables as the SDK's exporter, without the SDK's objects
(their cost, for a suite of instant cases, is most of what the export costs). Nothing is
made global: a library leaves that to the application.

**The span of the call.** While the target runs (in a runner's thread, or a task on its event
loop), a context variable marks the call; a span processor on the user's tracer provider
keeps the first span started under that mark (the outermost: the target's own span, or the
instrumented client's). The events of that case are emitted in its context. A case whose
call ran in no recorded span (no provider, a replayed or given output) gets a span of its
own, ``jsonmatch.case``, from the call's start to its end, holding its usage. A case whose
output was a run read from a trace (``read_trace``) has its events on that trace: its own
event in the span the run is evaluated as (its agent's, else its root), each field's in the
span of the step it scores (the report's span tree, reporting/run_model/span_trees.py), so
a backend shows the evaluation on the original trace.

**The end.** Flushing runs in threads the session waits for at most ``flush`` seconds: a
collector that is down costs the suite that much, never a failure; then nothing more is
sent or retried.
"""

from __future__ import annotations

import logging as _logging
import math
import os
import sys
import threading
import time
import weakref
from collections.abc import Awaitable, Callable, Hashable, Mapping, Sequence
from contextvars import ContextVar
from dataclasses import dataclass
from functools import cache
from importlib import import_module
from typing import TYPE_CHECKING, Literal, TypeAlias, overload
from urllib.parse import unquote

from ..reporting.run_model.comparisons import ERROR, PASSED, XPASSED, Comparison
from ..reporting.run_model.span_trees import trace_parents
from ..version import __version__

if TYPE_CHECKING:  # imported when our own export starts: it needs the otel extra's messages
    from opentelemetry._logs import Logger
    from opentelemetry.context import Context
    from opentelemetry.sdk._logs import LoggerProvider
    from opentelemetry.sdk.trace import ReadableSpan, SpanProcessor, TracerProvider
    from opentelemetry.sdk.trace import Span as SdkSpan
    from opentelemetry.trace import Tracer
    from opentelemetry.util.types import AnyValue

    from .otlp_export import Outbox, Signal

# An event's or a span's attributes, as OpenTelemetry takes them.
Attributes: TypeAlias = "dict[str, AnyValue]"

EVENT = "gen_ai.evaluation.result"
SEMCONV = "1.38.0"  # the GenAI semantic conventions these events follow
SCOPE = "pytest_jsonmatch"
SPAN = "jsonmatch.case"
_WORST = 3  # fields named in an explanation


@dataclass
class CallMark:
    """One watched call: when it ran (ns since the epoch), and the first span started in it."""

    start_ns: int
    end_ns: int = 0
    span: ReadableSpan | None = None  # the user's SDK span


_WATCHED: ContextVar[CallMark | None] = ContextVar("jsonmatch_watched_call", default=None)
_WATCHING: weakref.WeakSet[TracerProvider] = weakref.WeakSet()  # tracer providers watched already
_LOCK = threading.Lock()
_LOG = _logging.getLogger("pytest_jsonmatch.otel")

# (the API module that holds a signal's global provider, its getter, the variable naming a
# provider to load, a method only the SDK's provider has)
_GLOBAL = {
    "traces": (
        "opentelemetry.trace",
        "get_tracer_provider",
        "OTEL_PYTHON_TRACER_PROVIDER",
        "add_span_processor",
    ),
    "logs": (
        "opentelemetry._logs",
        "get_logger_provider",
        "OTEL_PYTHON_LOGGER_PROVIDER",
        "add_log_record_processor",
    ),
}


@overload
def users_provider(signal: Literal["traces"]) -> TracerProvider | None: ...
@overload
def users_provider(signal: Literal["logs"]) -> LoggerProvider | None: ...
def users_provider(signal: Signal) -> TracerProvider | LoggerProvider | None:
    """The SDK provider the user made global for ``signal``, else None. Whoever set one
    imported the API module first, so a session where nobody did imports nothing here."""
    module, getter, variable, method = _GLOBAL[signal]
    if module not in sys.modules and not os.environ.get(variable):
        return None
    provider: TracerProvider | LoggerProvider = getattr(import_module(module), getter)()
    return provider if hasattr(provider, method) else None  # (the SDK's: it has the method)


@cache
def _first_span() -> SpanProcessor:
    """A span processor that keeps, for a watched call, the first span started while it runs
    (made once the user's SDK is there; outside a watched call it does nothing, and the SDK
    has no way to remove a processor)."""
    from opentelemetry.sdk.trace import SpanProcessor

    class FirstSpan(SpanProcessor):
        def on_start(self, span: SdkSpan, parent_context: Context | None = None) -> None:
            mark = _WATCHED.get()
            if mark is not None and mark.span is None:
                mark.span = span

    return FirstSpan()


class Telemetry:
    """One session's export: watches its live calls, emits its comparisons' events, flushes
    at the end. Providers are found at first use, once conftest files have set theirs."""

    def __init__(self, *, per_field: bool, flush: float) -> None:
        self.per_field, self.flush = per_field, flush
        self.unsent_note = ""  # after close: what could not be sent, as the summary says it
        self._marks: dict[Hashable, CallMark] = {}
        self._ready = False
        self._broken = False  # the providers could not be made: nothing is sent
        # the user's providers, flushed only
        self._users: list[TracerProvider | LoggerProvider] = []
        self._tracer: Tracer | None = None  # the user's tracer, else our spans go to the outbox
        self._logger: Logger | None = None  # the user's logger, else our events go to the outbox
        self._outbox: Outbox | None = None
        # the k of a repeated case's pass^k and pass@k (jsonmatch_gates pass_k; 0: its runs)
        self.pass_k = 0

    # -- providers --------------------------------------------------------------------------

    def _start(self) -> bool:
        """Whether events can be sent: the providers found or made, once."""
        if self._ready or self._broken:
            return self._ready
        with _LOCK:
            if not (self._ready or self._broken):
                try:
                    self._providers()
                except Exception:  # noqa: BLE001 - a bad OTEL_* value: the suite goes on
                    _LOG.exception("pytest-jsonmatch: OpenTelemetry export switched off")
                    self._broken = True
            return self._ready

    def _providers(self) -> None:
        tracing, logging = users_provider("traces"), users_provider("logs")
        if tracing is not None:
            self._users.append(tracing)
            if tracing not in _WATCHING:
                tracing.add_span_processor(_first_span())
                _WATCHING.add(tracing)
            self._tracer = tracing.get_tracer(SCOPE, __version__)
        if logging is not None:
            self._users.append(logging)
            self._logger = logging.get_logger(SCOPE, __version__)
        ours: list[Signal] = []
        if tracing is None:
            ours.append("traces")
        if logging is None:
            ours.append("logs")
        if ours:
            from .otlp_export import Outbox

            self._outbox = Outbox(tuple(ours), _resource, (SCOPE, __version__))
        self._ready = True

    # -- the calls -------------------------------------------------------------------------

    @property
    def watch(self) -> Telemetry:
        """What watches the session's live calls (calls/live_calls.py's ``CallWatch``)."""
        return self

    def around(self, key: Hashable, call: Callable[[], object]) -> object:
        """``call()`` (the target's), watched; an awaitable it returns is watched where it
        runs. The mark of the last attempt under ``key`` waits for :meth:`emit`."""
        if not self._start():
            return call()
        mark = CallMark(time.time_ns())
        self._marks[key] = mark
        token = _WATCHED.set(mark)
        try:
            value = call()
        finally:
            _WATCHED.reset(token)
            mark.end_ns = time.time_ns()
        if hasattr(value, "__await__"):
            return _watched(value, mark)
        return value

    # -- the events ------------------------------------------------------------------------

    def emit(self, comparisons: Sequence[Comparison]) -> None:
        """Each comparison's events, in the span of its call (or one of its own)."""
        if not comparisons or not self._start():
            return
        repeated = repeat_attributes(comparisons, self.pass_k)
        for comparison in comparisons:
            mark = self._marks.pop((comparison.nodeid, comparison.repeat), None)
            try:
                self._emit(comparison, mark, repeated.get(comparison.case_id, {}))
            except Exception:  # noqa: BLE001 - sending never fails a test
                _LOG.exception(
                    "pytest-jsonmatch: the events of %s were not sent", comparison.case_id
                )

    def _emit(self, comparison: Comparison, mark: CallMark | None, extra: Attributes) -> None:
        if comparison.seq:  # a test's further comparisons made no call of their own
            mark = None
        found = mark.span if mark is not None else None
        context = found.get_span_context() if found is not None else None
        own = None
        traced = trace_parents(comparison)  # (an output read from a trace: its own spans)
        if traced is not None:
            found = None
            ids = traced[0]
        elif context is not None and context.is_valid:
            ids = context.trace_id.to_bytes(16, "big"), context.span_id.to_bytes(8, "big")
        else:
            found = None
            start, end = _times(comparison.call, mark)
            failed = comparison.call is not None and comparison.call.get("failed") is True
            if self._tracer is not None:
                own = self._tracer.start_span(
                    SPAN, start_time=start, attributes=_call_attributes(comparison)
                )
                if failed:
                    from opentelemetry.trace import Status, StatusCode

                    own.set_status(Status(StatusCode.ERROR, comparison.error or None))
                context = own.get_span_context()
                ids = context.trace_id.to_bytes(16, "big"), context.span_id.to_bytes(8, "big")
            else:
                assert self._outbox is not None
                ids = self._outbox.new_ids()
                self._outbox.span(
                    SPAN,
                    *ids,
                    start,
                    end,
                    _call_attributes(comparison),
                    comparison.error if failed else None,
                )
        now = time.time_ns()
        events = [{**case_attributes(comparison, found), **extra}]
        where = [ids]
        if self.per_field:
            events += field_attributes(comparison)
            where += traced[1] if traced is not None else [ids] * (len(events) - 1)
        if self._logger is not None:
            _users_events(self._logger, events, now, where)
        else:
            assert self._outbox is not None
            for attributes, at in zip(events, where):
                self._outbox.event(EVENT, now, *at, attributes)
        if own is not None:
            own.end(end_time=end)

    # -- the end ---------------------------------------------------------------------------

    def close(self) -> bool:
        """Flush the user's providers and send what our outbox holds, in at most ``flush``
        seconds; whether it all finished in time."""
        if not self._ready:
            return True
        deadline = time.monotonic() + self.flush
        millis = int(self.flush * 1000)

        def flush_users() -> None:
            try:
                for provider in self._users:
                    provider.force_flush(millis)
            except Exception:  # noqa: BLE001 - the suite's result stands
                _LOG.exception("pytest-jsonmatch: flushing OpenTelemetry failed")

        users = threading.Thread(
            target=flush_users, daemon=True, name="otel-flush (pytest-jsonmatch)"
        )
        users.start()
        sent = self._outbox.close(self.flush) if self._outbox is not None else True
        users.join(max(deadline - time.monotonic(), 0))
        self._marks.clear()
        lost = list(self._outbox.lost) if self._outbox is not None else []
        if users.is_alive():
            lost.append(f"your providers did not flush within {self.flush:g} s")
        if lost:
            more = f" (and {len(lost) - 1} more)" if len(lost) > 1 else ""
            self.unsent_note = f"OpenTelemetry: not everything was sent: {lost[0]}{more}"
        return sent and not users.is_alive()


def _users_events(
    logger: Logger, events: list[Attributes], now: int, where: list[tuple[bytes, bytes]]
) -> None:
    """The events through the user's logger, each in the context of its span's ids."""
    from opentelemetry import trace
    from opentelemetry._logs import LogRecord

    contexts: dict[tuple[bytes, bytes], Context] = {}
    for attributes, ids in zip(events, where):
        context = contexts.get(ids)
        if context is None:
            span = trace.NonRecordingSpan(
                trace.SpanContext(
                    int.from_bytes(ids[0], "big"),
                    int.from_bytes(ids[1], "big"),
                    is_remote=False,
                    trace_flags=trace.TraceFlags(trace.TraceFlags.SAMPLED),
                )
            )
            context = contexts[ids] = trace.set_span_in_context(span)
        logger.emit(
            LogRecord(timestamp=now, context=context, event_name=EVENT, attributes=attributes)
        )


def _resource() -> Mapping[str, AnyValue]:
    """The resource of our spans and events: ``OTEL_RESOURCE_ATTRIBUTES`` (``key=value,...``,
    values URL-decoded) and ``OTEL_SERVICE_NAME`` read as the SDK's ``Resource.create()`` reads
    them, the service named ``pytest-jsonmatch`` when neither names it. The SDK's resource
    module (and the process detector it loads, a fifth of the export's start) is imported
    only when ``OTEL_EXPERIMENTAL_RESOURCE_DETECTORS`` asks for detectors."""
    if os.environ.get("OTEL_EXPERIMENTAL_RESOURCE_DETECTORS", "").strip():
        from opentelemetry.sdk.resources import Resource

        attributes: Attributes = dict(Resource.create().attributes)
    else:
        attributes = {
            "telemetry.sdk.language": "python",
            "telemetry.sdk.name": SCOPE,
            "telemetry.sdk.version": __version__,
        }
        for item in os.environ.get("OTEL_RESOURCE_ATTRIBUTES", "").split(","):
            key, eq, value = item.partition("=")
            if eq and key.strip():
                attributes[key.strip()] = unquote(value.strip())
            elif item.strip():
                _LOG.warning("OTEL_RESOURCE_ATTRIBUTES: %r is not key=value; left out", item)
        attributes["service.name"] = os.environ.get(
            "OTEL_SERVICE_NAME", ""
        ).strip() or attributes.get("service.name", "unknown_service")
    if str(attributes.get("service.name", "")).startswith("unknown_service"):
        attributes["service.name"] = "pytest-jsonmatch"
    return attributes


async def _watched(awaitable: Awaitable[object], mark: CallMark) -> object:
    """An async target's coroutine, awaited under its call's mark (on the runner's loop)."""
    token = _WATCHED.set(mark)
    mark.start_ns = time.time_ns()
    try:
        return await awaitable
    finally:
        _WATCHED.reset(token)
        mark.end_ns = time.time_ns()


def _times(call: Mapping[str, object] | None, mark: CallMark | None) -> tuple[int, int]:
    """A case span's start and end: the watched call's, else its figures' latency up to now."""
    if mark is not None and mark.end_ns:
        return mark.start_ns, mark.end_ns
    now = time.time_ns()
    latency = call.get("latency_s") if call else None
    if isinstance(latency, (int, float)) and math.isfinite(latency) and latency >= 0:
        return now - int(latency * 1e9), now
    return now, now


def _call_attributes(comparison: Comparison) -> Attributes:
    """A case span's attributes: the case, where its output came from, the call's usage."""
    out: Attributes = {
        "jsonmatch.case_id": comparison.case_id,
        "jsonmatch.source": comparison.source,
    }
    if comparison.target:  # the named target (jsonmatch_targets) the span's call was for
        out["jsonmatch.target"] = comparison.target
    call = comparison.call or {}
    for key, name in (
        ("input_tokens", "gen_ai.usage.input_tokens"),
        ("output_tokens", "gen_ai.usage.output_tokens"),
        ("attempts", "jsonmatch.call.attempts"),
        ("cost", "jsonmatch.call.cost"),
    ):
        value = call.get(key)
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            out[name] = value
    return out


def label(comparison: Comparison) -> str:
    """``pass``, ``fail`` or ``error``: the comparison's own verdict (an xfail test's too)."""
    if comparison.status == ERROR or comparison.error:
        return "error"
    return "pass" if comparison.status in (PASSED, XPASSED) else "fail"


def explanation(comparison: Comparison) -> str:
    """A short explanation: the error, or the score against the threshold and the worst
    fields."""
    if comparison.error:
        return comparison.error
    reached = ">=" if comparison.score >= comparison.threshold else "<"
    text = f"score {comparison.score:.4g} {reached} threshold {comparison.threshold:.4g}"
    worst = sorted((f for f in comparison.fields if f.score < 1), key=lambda f: f.score)[:_WORST]
    if worst:
        text += "; worst fields: " + ", ".join(
            f"{f.path} {f.score:.2g} ({f.status})" for f in worst
        )
    return text


def error_type(comparison: Comparison) -> str:
    """The error's class when the reason names one (``TimeoutError: ...``), else ``_OTHER``."""
    head, colon, _ = comparison.error.partition(":")
    return head if colon and head.isidentifier() else "_OTHER"


def case_attributes(comparison: Comparison, span: ReadableSpan | None) -> Attributes:
    """The attributes of a case's event."""
    out: Attributes = {
        "gen_ai.evaluation.name": comparison.metric,
        "gen_ai.evaluation.score.value": float(comparison.score),
        "gen_ai.evaluation.score.label": label(comparison),
        "gen_ai.evaluation.explanation": explanation(comparison),
        "jsonmatch.case_id": comparison.case_id,
        "jsonmatch.threshold": comparison.threshold,
    }
    if comparison.repeat:
        out["jsonmatch.repeat"] = comparison.repeat
    if comparison.target:
        out["jsonmatch.target"] = comparison.target
    for key, part in zip(part_keys(comparison), comparison.parts):  # each part's own score
        out[f"jsonmatch.part.{key}.score"] = float(part.score)
    if label(comparison) == "error":
        out["error.type"] = error_type(comparison)
    judged = comparison.judge  # what the LLM judge did for it, apart from the target's call
    for key in ("requests", "not_judged", "input_tokens", "output_tokens", "cost", "latency_s"):
        value = judged.get(key) if judged is not None else None
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            out[f"jsonmatch.judge.{key}"] = value
    response = (span.attributes or {}).get("gen_ai.response.id") if span is not None else None
    if isinstance(response, str):
        out["gen_ai.response.id"] = response
    return out


def part_keys(comparison: Comparison) -> list[str]:
    """Each part's name in its attributes: the part's own (``answer``, ``trajectory``,
    ``state``), and, for a conversation turn's, whose turn it is (``turn.1.answer``: a name
    its turns share)."""
    return [
        str(part.name) if part.turn is None else f"turn.{part.turn}.{part.name}"
        for part in comparison.parts
    ]


def repeat_attributes(comparisons: Sequence[Comparison], k: int) -> dict[str, Attributes]:
    """The attributes each run's event of a repeated case carries, by case id: its runs
    passed and scored, whether they disagree, and pass^k and pass@k at ``k`` (0: the
    case's runs) where it has k scored runs. A test's comparisons are emitted together, so
    a repeated case's runs are all here."""
    from ..reporting.verdicts.reliability import case_repeats, figures_of

    out: dict[str, Attributes] = {}
    for case_id, runs in case_repeats(comparisons).items():
        if runs.runs < 2:
            continue
        at = k or runs.runs
        figures = figures_of(runs, at)
        attributes: Attributes = {
            "jsonmatch.runs.passed": runs.passed,
            "jsonmatch.runs.scored": runs.scored,
            "jsonmatch.flaky": runs.flaky,
        }
        if figures.pass_hat is not None and figures.pass_at is not None:
            attributes["jsonmatch.pass_k"] = at
            attributes["jsonmatch.pass_hat_k"] = figures.pass_hat
            attributes["jsonmatch.pass_at_k"] = figures.pass_at
        out[case_id] = attributes
    return out


def field_attributes(comparison: Comparison) -> list[Attributes]:
    """One event's attributes per field of a scored comparison: the metric, the field's
    score and its status as the engine names it (its label); of a comparison made of parts,
    the name of the field's part."""
    fields, part = comparison.fields, list[Attributes]()
    for each in comparison.parts:  # (each part's rows follow those of the parts before it)
        part += [{"jsonmatch.part": each.name}] * each.rows
    if len(part) != len(fields):
        part = [{}] * len(fields)
    return [
        {
            "gen_ai.evaluation.name": comparison.metric,
            "gen_ai.evaluation.score.value": float(f.score),
            "gen_ai.evaluation.score.label": f.status,
            "jsonmatch.case_id": comparison.case_id,
            "jsonmatch.field": f.path,
            **part[k],
        }
        for k, f in enumerate(fields)
    ]
