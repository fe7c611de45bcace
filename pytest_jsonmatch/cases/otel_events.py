"""Each comparison's result as an OpenTelemetry ``gen_ai.evaluation.result`` event, parented to
the span of the model call it evaluates (imported only when ``jsonmatch_otel`` is on).

Follows the GenAI semantic conventions 1.38 (events as log records with an event name,
emitted through the Logs API with the span's context; attributes ``gen_ai.evaluation.name``,
``.score.value``, ``.score.label``, ``.explanation``, ``gen_ai.response.id``, ``error.type``).

**Providers.** A global SDK ``TracerProvider`` or ``LoggerProvider`` the user set before the
tests run (``conftest.py``, ``opentelemetry-instrument``) is used as it is, and only flushed
at the end; for a signal without one, the session makes its own, an OTLP/HTTP exporter
configured by the ``OTEL_*`` environment variables, and shuts it down at the end. Ours is
never made global: a library leaves that to the application.

**The span of the call.** While the target runs (in a runner's thread, or a task on its event
loop), a context variable marks the call; a span processor on the user's tracer provider
keeps the first span started under that mark (the outermost: the target's own span, or the
instrumented client's). The events of that case are emitted in its context. A case whose
call ran in no recorded span (no provider, a replayed or given output) gets a span of its
own, ``jsonmatch.case``, from the call's start to its end, holding its usage.

**Its imports.** The exporter, ``requests`` and the protobuf messages (a tenth of a second)
are imported in a thread from the session's start, while pytest collects, rather than in
the first watched call, whose latency is recorded.

**The end.** Flushing and shutting down run in a thread the session waits for at most
``flush`` seconds: a collector that is down costs the suite that much, never a failure; then
our exporters are stopped, so that no retry goes on sending.
"""

from __future__ import annotations

import logging as _logging
import math
import threading
import weakref
from importlib.metadata import PackageNotFoundError, version
import time
from collections.abc import Callable, Hashable, Mapping, Sequence
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any

from opentelemetry import trace
from opentelemetry._logs import LogRecord, get_logger_provider
from opentelemetry.context import Context
from opentelemetry.sdk._logs import LoggerProvider
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import ReadableSpan, Span, SpanProcessor, TracerProvider
from opentelemetry.trace import Status, StatusCode

from ..reporting.records import ERROR, PASSED, XPASSED, Comparison

EVENT = "gen_ai.evaluation.result"
SEMCONV = "1.38.0"  # the GenAI semantic conventions these events follow
SCOPE = "pytest_jsonmatch"
_WORST = 3  # fields named in an explanation


@dataclass
class CallMark:
    """One watched call: when it ran (ns since the epoch), and the first span started in it."""

    start_ns: int
    end_ns: int = 0
    span: ReadableSpan | None = None


_WATCHED: ContextVar[CallMark | None] = ContextVar("jsonmatch_watched_call", default=None)


class _FirstSpan(SpanProcessor):
    """Keeps, for a watched call, the first span started while it runs. Added once to a
    provider (the SDK has no way to remove a processor): outside a watched call it does
    nothing."""

    def on_start(self, span: Span, parent_context: Context | None = None) -> None:
        mark = _WATCHED.get()
        if mark is not None and mark.span is None:
            mark.span = span

    def on_end(self, span: ReadableSpan) -> None:
        pass

    def shutdown(self) -> None:
        pass

    def force_flush(self, timeout_millis: int = 30000) -> bool:
        return True


_CAPTURE = _FirstSpan()
_WATCHING: weakref.WeakSet[TracerProvider] = weakref.WeakSet()  # those _CAPTURE was added to
_LOCK = threading.Lock()
_LOG = _logging.getLogger("pytest_jsonmatch.otel")


class Telemetry:
    """One session's export: watches its live calls, emits its comparisons' events, flushes
    at the end. Providers are found at first use, once conftest files have set theirs."""

    def __init__(self, *, per_field: bool, flush: float) -> None:
        self.per_field, self.flush = per_field, flush
        self._marks: dict[Hashable, CallMark] = {}
        self._ready = False
        self._broken = False  # the providers could not be made: nothing is sent
        self._own: list[Any] = []  # the providers this session made, shut down at the end
        self._users: list[Any] = []  # the user's, flushed only
        self._exporters: list[Any] = []  # ours, stopped if the flush overruns
        self._tracer: trace.Tracer | None = None
        self._logger: Any = None
        # the exporter's imports (a tenth of a second) run while pytest collects
        self._imports = threading.Thread(target=_import_exporters, daemon=True,
                                         name="otel-imports (pytest-jsonmatch)")
        self._imports.start()

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
        self._imports.join()  # those it needs: done, or finished here
        resource = Resource.create()
        if str(resource.attributes.get("service.name", "")).startswith("unknown_service"):
            resource = resource.merge(Resource({"service.name": "pytest-jsonmatch"}))
        tracing = trace.get_tracer_provider()
        if isinstance(tracing, TracerProvider):
            self._users.append(tracing)
            if tracing not in _WATCHING:
                tracing.add_span_processor(_CAPTURE)
                _WATCHING.add(tracing)
        else:
            from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
            from opentelemetry.sdk.trace.export import BatchSpanProcessor

            tracing = TracerProvider(resource=resource, shutdown_on_exit=False)
            self._exporters.append(OTLPSpanExporter())
            tracing.add_span_processor(BatchSpanProcessor(self._exporters[-1]))
            self._own.append(tracing)
        logging = get_logger_provider()
        if isinstance(logging, LoggerProvider):
            self._users.append(logging)
        else:
            from opentelemetry.exporter.otlp.proto.http._log_exporter import OTLPLogExporter
            from opentelemetry.sdk._logs.export import BatchLogRecordProcessor

            logging = LoggerProvider(resource=resource, shutdown_on_exit=False)
            self._exporters.append(OTLPLogExporter())
            logging.add_log_record_processor(BatchLogRecordProcessor(self._exporters[-1]))
            self._own.append(logging)
        self._tracer = tracing.get_tracer(SCOPE, _version())
        self._logger = logging.get_logger(SCOPE, _version())
        self._ready = True

    # -- the calls -------------------------------------------------------------------------

    @property
    def watch(self) -> Telemetry:
        """What watches the session's live calls (live_calls.py's ``CallWatch``)."""
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
        for comparison in comparisons:
            mark = self._marks.pop((comparison.nodeid, comparison.repeat), None)
            try:
                self._emit(comparison, mark)
            except Exception:  # noqa: BLE001 - sending never fails a test
                _LOG.exception("pytest-jsonmatch: the events of %s were not sent",
                               comparison.case_id)

    def _emit(self, comparison: Comparison, mark: CallMark | None) -> None:
        if comparison.seq:  # a test's further comparisons made no call of their own
            mark = None
        span = mark.span if mark is not None else None
        found = span.get_span_context() if span is not None else None
        if found is not None and found.is_valid:
            self._events(comparison, trace.set_span_in_context(
                trace.NonRecordingSpan(found)), span)
            return
        start, end = _times(comparison.call, mark)
        assert self._tracer is not None
        own = self._tracer.start_span("jsonmatch.case", start_time=start,
                                      attributes=_call_attributes(comparison))
        if comparison.call and comparison.call.get("failed") is True:
            own.set_status(Status(StatusCode.ERROR, comparison.error or None))
        self._events(comparison, trace.set_span_in_context(own), None)
        own.end(end_time=end)

    def _events(self, comparison: Comparison, context: Context,
                span: ReadableSpan | None) -> None:
        now = time.time_ns()
        self._logger.emit(LogRecord(timestamp=now, context=context, event_name=EVENT,
                                    attributes=case_attributes(comparison, span)))
        if self.per_field:
            for attributes in field_attributes(comparison):
                self._logger.emit(LogRecord(timestamp=now, context=context, event_name=EVENT,
                                            attributes=attributes))

    # -- the end ---------------------------------------------------------------------------

    def close(self) -> bool:
        """Flush the user's providers, shut ours down, in at most ``flush`` seconds; whether
        it all finished in time."""
        self._imports.join(self.flush)  # not left importing while the interpreter exits
        if not self._ready:
            return True
        millis = int(self.flush * 1000)

        def finish() -> None:
            try:
                for provider in self._users:
                    provider.force_flush(millis)
                for provider in self._own:
                    provider.force_flush(millis)
                    provider.shutdown()
            except Exception:  # noqa: BLE001 - the suite's result stands
                _LOG.exception("pytest-jsonmatch: flushing OpenTelemetry failed")

        thread = threading.Thread(target=finish, daemon=True, name="otel-flush (pytest-jsonmatch)")
        thread.start()
        thread.join(self.flush)
        self._marks.clear()
        if not thread.is_alive():
            return True
        for exporter in self._exporters:  # its retries stop: nothing is left sending
            try:
                exporter.shutdown()
            except Exception:  # noqa: BLE001 - a stopped exporter is all that is wanted
                pass
        return False


def _import_exporters() -> None:
    """Import what :meth:`Telemetry._providers` may need, ahead of the first call: the
    OTLP/HTTP exporter, its protobuf messages and ``requests``, which it sends with (newer
    exporters import it only when they are made). A failure is left to the import there,
    whose error is logged."""
    try:
        import opentelemetry.exporter.otlp.proto.http._log_exporter  # noqa: F401
        import opentelemetry.exporter.otlp.proto.http.trace_exporter  # noqa: F401
        import opentelemetry.sdk._logs.export  # noqa: F401
        import opentelemetry.sdk.trace.export  # noqa: F401
        import requests  # noqa: F401
    except Exception:  # noqa: BLE001, S110 - imported again, and reported, where needed
        pass


def _version() -> str | None:
    """This package's version, for the instrumentation scope (None: not installed)."""
    try:
        return version("pytest-jsonmatch")
    except PackageNotFoundError:
        return None


async def _watched(awaitable: Any, mark: CallMark) -> object:
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


def _call_attributes(comparison: Comparison) -> dict[str, Any]:
    """A case span's attributes: the case, where its output came from, the call's usage."""
    out: dict[str, Any] = {"jsonmatch.case_id": comparison.case_id,
                           "jsonmatch.source": comparison.source}
    if comparison.target:  # the named target (jsonmatch_targets) the span's call was for
        out["jsonmatch.target"] = comparison.target
    call = comparison.call or {}
    for key, name in (("input_tokens", "gen_ai.usage.input_tokens"),
                      ("output_tokens", "gen_ai.usage.output_tokens"),
                      ("attempts", "jsonmatch.call.attempts"), ("cost", "jsonmatch.call.cost")):
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
        text += "; worst fields: " + ", ".join(f"{f.path} {f.score:.2g} ({f.status})"
                                                for f in worst)
    return text


def error_type(comparison: Comparison) -> str:
    """The error's class when the reason names one (``TimeoutError: ...``), else ``_OTHER``."""
    head, colon, _ = comparison.error.partition(":")
    return head if colon and head.isidentifier() else "_OTHER"


def case_attributes(comparison: Comparison, span: ReadableSpan | None) -> dict[str, Any]:
    """The attributes of a case's event."""
    out: dict[str, Any] = {
        "gen_ai.evaluation.name": comparison.metric,
        "gen_ai.evaluation.score.value": float(comparison.score),
        "gen_ai.evaluation.score.label": label(comparison),
        "gen_ai.evaluation.explanation": explanation(comparison),
        "jsonmatch.case_id": comparison.case_id, "jsonmatch.threshold": comparison.threshold}
    if comparison.repeat:
        out["jsonmatch.repeat"] = comparison.repeat
    if comparison.target:
        out["jsonmatch.target"] = comparison.target
    if label(comparison) == "error":
        out["error.type"] = error_type(comparison)
    response = (span.attributes or {}).get("gen_ai.response.id") if span is not None else None
    if isinstance(response, str):
        out["gen_ai.response.id"] = response
    return out


def field_attributes(comparison: Comparison) -> list[dict[str, Any]]:
    """One event's attributes per field of a scored comparison: the metric, the field's
    score and its status as the engine names it (its label)."""
    return [{"gen_ai.evaluation.name": comparison.metric,
             "gen_ai.evaluation.score.value": float(f.score),
             "gen_ai.evaluation.score.label": f.status,
             "jsonmatch.case_id": comparison.case_id, "jsonmatch.field": f.path}
            for f in comparison.fields]
