"""The built-in LLM judge: the ``semantic`` batch comparator, which asks a chat model whether
free-text values mean the same thing.

The rules (docs/metrics.md, "Judging free text"):

- Two values equal after the field's transforms (same JSON type, same value) score 1 and
  are never sent.
- Items the judge has already decided in this run (same field path, same values, same
  judge) are answered from memory, never sent twice; so are identical items in one record.
- What is left of a record goes in one request per judge, split into requests of at most
  ``batch`` items; each item carries its field path as context.
- Each verdict is 0 or 1 (``true``/``false`` and the strings ``"0"``/``"1"`` too). A reply
  that gives too few verdicts, a value other than 0 or 1, prose instead of JSON or an answer
  cut off by the token limit leaves exactly the items it did not decide undecided: those
  fields become ``batch_error`` with the reason. Verdicts past the number of items are
  ignored (as extract-eval does).

The request goes out through a *transport* (a callable taking a :class:`JudgeRequest` and
returning a :class:`JudgeReply`): the standard library's HTTP client against any
OpenAI-compatible chat-completions endpoint (http_transport.py) unless the user supplies their
own. The layer that runs the judge may route every request through its runner
(``through``): the golden-case layer does, for its concurrency, timeouts, retries and
rate limit. Where none does (``match_json``, ``evaluate_records``, the ``jsonmatch``
command), the judge retries each request itself under the same rules (sending.py): a bounded
number of attempts within a bounded time. This module knows no runner and no pytest.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Sequence
from typing import Protocol

from ..core.errors import ComparatorError
from ..core.masking import masked
from ..core.values import JsonValue
from .figures import JudgeFigures
from .judge_settings import JudgeSettings
from .memory import Memory
from .messages import MAX_REQUEST_BYTES, JudgeReply, JudgeRequest, Through, Transport
from .prompt import PAIRS, Item, field_path, render_items, render_prompt
from .sending import failure_text, is_unreachable, send_with_retries
from .verdicts import read_verdicts


class Judged(Protocol):
    """What the judge reads of a registry's ``BatchItem`` (read only)."""

    @property
    def path(self) -> str: ...
    @property
    def expected_compared(self) -> JsonValue: ...
    @property
    def actual_compared(self) -> JsonValue: ...


_WAIT_ELSEWHERE_S = 900.0  # the most a call waits for an item another call is asking for


class SemanticJudge:
    """The ``semantic`` comparator's batch function (see the module docstring)."""

    def __init__(
        self,
        settings: JudgeSettings,
        transport: Transport | None = None,
        through: Through | None = None,
        memory: Memory | None = None,
    ) -> None:
        self.settings = settings
        self.transport = transport
        self.through = through
        self.memory = memory if memory is not None else Memory()
        self.figures = JudgeFigures()
        self.down: str | None = None  # why the judge is no longer asked (it was unreachable)
        self.failed: dict[str, str] = {}  # item key -> why its own request failed
        self._lock = threading.Lock()
        self._asking: dict[str, threading.Event] = {}  # items a call is asking for now
        self._tabs = threading.local()  # the figures of the comparison this thread scores

    def open_tab(self, case: str | None = None) -> JudgeFigures:
        """Start counting, apart, what this thread's judged fields cost until
        :meth:`close_tab`: the figures of one comparison (of ``case``, named so that the
        verdicts it reads or asks are kept as its: ``Memory.cases``)."""
        tab = JudgeFigures()
        self._tabs.tab, self._tabs.case = tab, case
        return tab

    def close_tab(self) -> None:
        self._tabs.tab = self._tabs.case = None

    def _count(self, delta: JudgeFigures) -> None:
        """Add ``delta`` to the run's figures and to this thread's comparison's, if open
        (the caller holds the lock)."""
        self.figures.merge(delta)
        tab = getattr(self._tabs, "tab", None)
        if tab is not None:
            tab.merge(delta)

    @property
    def name(self) -> str:
        return f"judge {self.settings.model!r} at {self.settings.endpoint}"

    def _transport(self) -> Transport:
        if self.transport is None:
            from .http_transport import HttpTransport

            self.transport = HttpTransport()
        return self.transport

    def __call__(self, items: Sequence[Judged]) -> list[float | ComparatorError]:
        out: list[float | ComparatorError | None] = [None] * len(items)
        waiting: dict[str, list[int]] = {}  # item key -> the positions it answers
        pending: list[Item] = []  # asked by this call
        elsewhere: dict[str, tuple[Item, threading.Event]] = {}  # being asked by another
        touched: set[str] = set()  # answered from memory
        prefix = self.settings.fingerprint + "\x00"
        with self._lock:
            for n, batch_item in enumerate(items):
                e, a = batch_item.expected_compared, batch_item.actual_compared
                if type(e) is type(a) and e == a:
                    out[n] = 1.0
                    self._count(JudgeFigures(equal=1))
                    continue
                item = Item(field_path(batch_item.path), e, a)
                key = prefix + item.key
                known = self.memory.verdicts.get(key)
                if known is not None:
                    out[n] = known
                    touched.add(key)
                    self.memory.used.add(key)
                    self._count(JudgeFigures(reused=1))
                elif key in waiting:
                    waiting[key].append(n)
                    self._count(JudgeFigures(reused=1))
                else:
                    waiting[key] = [n]
                    asking = self._asking.get(key)
                    if asking is not None:
                        elsewhere[key] = (item, asking)
                        self._count(JudgeFigures(reused=1))
                    else:
                        self._asking[key] = threading.Event()
                        pending.append(item)
        if pending and self.memory.closed is not None:
            self._release(prefix, pending)
            raise self.memory.closed(pending)
        try:
            self._answer(prefix, pending, waiting, out)
        finally:
            self._release(prefix, pending)
        if elsewhere:  # answered by the call asking them (a case judged ahead, say)
            again: list[Item] = []
            for key, (item, asked) in elsewhere.items():
                asked.wait(_WAIT_ELSEWHERE_S)
                with self._lock:
                    known = self.memory.verdicts.get(key)
                if known is None:
                    again.append(item)  # it failed there: asked here, for its own reason
                    continue
                for n in waiting[key]:
                    out[n] = known
            self._answer(prefix, again, waiting, out)
        with self._lock:
            self._count(JudgeFigures(undecided=sum(isinstance(a, ComparatorError) for a in out)))
            case = getattr(self._tabs, "case", None)
            if case is not None:
                for key in waiting.keys() | touched:
                    if key in self.memory.verdicts:
                        self.memory.cases.setdefault(key, set()).add(case)
        return [a if a is not None else ComparatorError("not judged") for a in out]

    def _answer(
        self,
        prefix: str,
        pending: list[Item],
        waiting: dict[str, list[int]],
        out: list[float | ComparatorError | None],
    ) -> None:
        """Ask for ``pending`` in requests of ``batch`` items; each answer goes to every
        position its item holds."""
        size = self.settings.batch
        for start in range(0, len(pending), size):
            chunk = pending[start : start + size]
            for item, verdict in zip(chunk, self._ask(chunk)):
                key = prefix + item.key
                if isinstance(verdict, float):
                    with self._lock:
                        self.memory.verdicts[key] = verdict
                        self.memory.used.add(key)
                        self.memory.new.add(key)
                    answer: float | ComparatorError = verdict
                else:
                    answer = ComparatorError(masked(f"{self.name}: {verdict}"))
                for n in waiting[key]:
                    out[n] = answer

    def _release(self, prefix: str, asked: list[Item]) -> None:
        with self._lock:
            for item in asked:
                event = self._asking.pop(prefix + item.key, None)
                if event is not None:
                    event.set()

    def _ask(self, chunk: list[Item]) -> list[float | str]:
        """One request for ``chunk``: a verdict or a reason per item."""
        if self.down is not None:
            # an item whose own request failed keeps that reason, asked again or not
            return [self.failed.get(i.key, f"not asked: {self.down}") for i in chunk]
        s = self.settings
        too_large = self._too_large(chunk)
        if too_large is not None:
            return [too_large] * len(chunk)
        request = JudgeRequest(
            s.model,
            render_prompt(s.prompt, chunk),
            len(chunk),
            s.endpoint,
            s.key_env,
            s.max_tokens,
            s.timeout,
        )
        started = time.perf_counter()
        try:
            if self.through is not None:
                reply = self.through(request, self._transport())
            else:
                reply = send_with_retries(self._transport(), request)
        except Exception as exc:  # noqa: BLE001 - the fields it was asked about say why
            attempts = getattr(exc, "attempts", 1)
            with self._lock:
                self._count(
                    JudgeFigures(
                        requests=1,
                        attempts=attempts if isinstance(attempts, int) else 1,
                        failed_requests=1,
                        latency_s=time.perf_counter() - started,
                    )
                )
            return [self._failed(exc, chunk)] * len(chunk)
        if not isinstance(reply, JudgeReply):
            return [f"the transport returned {type(reply).__name__}, not a JudgeReply"] * len(chunk)
        cost = s.cost(reply.input_tokens, reply.output_tokens)
        with self._lock:
            self._count(
                JudgeFigures(
                    requests=1,
                    attempts=reply.attempts if isinstance(reply.attempts, int) else 1,
                    sent=len(chunk),
                    input_tokens=reply.input_tokens or 0,
                    output_tokens=reply.output_tokens or 0,
                    cost=cost,
                    latency_s=time.perf_counter() - started,
                )
            )
        return read_verdicts(reply, len(chunk))

    def _failed(self, exc: BaseException, chunk: list[Item]) -> str:
        """Why ``chunk``'s request failed, kept for its items; a judge that cannot be
        reached, or that refused its key, is asked nothing more in this run."""
        why = failure_text(exc)
        reason = f"the request failed: {why}"
        if is_unreachable(exc):
            self.down = f"{self.name} was unreachable earlier in this run ({why})"
            reason += "; the judge is asked nothing more in this run"
        with self._lock:
            for item in chunk:
                self.failed[item.key] = reason
        return reason

    def _too_large(self, chunk: list[Item]) -> str | None:
        """Why ``chunk``'s request is not sent when it would carry more than
        ``MAX_REQUEST_BYTES`` (measured before the prompt is built: a template that repeats
        {pairs} many times costs nothing to refuse), else None."""
        template = self.settings.prompt
        items = len(render_items(chunk).encode())
        size = len(template.encode()) + template.count(PAIRS) * (items - len(PAIRS))
        if size <= MAX_REQUEST_BYTES:
            return None
        where = f" {self.settings.prompt_file!r}" if self.settings.prompt_file else ""
        return (
            f"the request was not sent: its prompt would be {size:,} bytes, more than the "
            f"{MAX_REQUEST_BYTES:,} a judge request may carry (the prompt template{where} "
            f"holds {PAIRS} {template.count(PAIRS):,} times; {len(chunk)} items, batch="
            f"{self.settings.batch})"
        )
