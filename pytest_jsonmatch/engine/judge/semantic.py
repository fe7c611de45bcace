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
number of attempts within a bounded time. This module knows no runner and no pytest;
the settings, the prompt, the verdicts and the retries are its neighbours' (judge/).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Protocol

from ..core.errors import ComparatorError
from ..core.masking import masked
from ..core.values import JsonValue
from .figures import JudgeFigures
from .judge_settings import JudgeSettings
from .memory import Memory
from .messages import MAX_REQUEST_BYTES, Form, JudgeReply, JudgeRequest, Through, Transport
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


@dataclass
class _Call:
    """One call's bookkeeping: each position's answer (``out``), the positions each item key
    answers (``waiting``), the items this call asks (``pending``), those another call is
    asking for now (``elsewhere``) and the keys answered from memory (``touched``)."""

    prefix: str  # the judge's fingerprint (its form's): every item key starts with it
    out: list[float | ComparatorError | None]
    form: Form | None = None  # what is asked and how the reply reads (None: the pairs' form)
    waiting: dict[str, list[int]] = field(default_factory=dict)
    pending: list[Item] = field(default_factory=list)
    elsewhere: dict[str, tuple[Item, threading.Event]] = field(default_factory=dict)
    touched: set[str] = field(default_factory=set)


class SemanticJudge:
    """The ``semantic`` comparator's batch function (see the module docstring)."""

    def __init__(
        self,
        settings: JudgeSettings,
        transport: Transport | None = None,
        through: Through | None = None,
        memory: Memory | None = None,
    ) -> None:
        self.settings, self.transport, self.through = settings, transport, through
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
        return f"judge {self.settings.model!r} at {self.settings.shown_endpoint}"

    def _transport(self) -> Transport:
        if self.transport is None:
            from .http_transport import HttpTransport

            self.transport = HttpTransport()
        return self.transport

    def __call__(
        self, items: Sequence[Judged], form: Form | None = None
    ) -> list[float | ComparatorError]:
        """A verdict per item (or why it has none). ``form``: another question asked of the
        same model, endpoint, runner and memory (a conversation's rubric: judge/rubric.py),
        its verdicts kept under its own fingerprint and each with the judge's reason
        (``Memory.reasons``); None: whether two values mean the same thing."""
        prefix = (self.settings.fingerprint if form is None else form.fingerprint) + "\x00"
        call = _Call(prefix, [None] * len(items), form=form)
        with self._lock:
            for n, batch_item in enumerate(items):
                self._sort(call, n, batch_item)
        if call.pending and self.memory.closed is not None:
            self._release(call.prefix, call.pending)
            raise self.memory.closed(call.pending)
        try:
            self._answer(call, call.pending)
        finally:
            self._release(call.prefix, call.pending)
        if call.elsewhere:  # answered by the call asking them (a case judged ahead, say)
            self._wait_elsewhere(call)
        self._close(call)
        return [a if a is not None else ComparatorError("not judged") for a in call.out]

    def _sort(self, call: _Call, n: int, batch_item: Judged) -> None:
        """Item ``n`` answered at once (equal values, a verdict in memory), or left for this
        call to ask, or for the call already asking it (the caller holds the lock)."""
        e, a = batch_item.expected_compared, batch_item.actual_compared
        if call.form is None and type(e) is type(a) and e == a:
            call.out[n] = 1.0
            self._count(JudgeFigures(equal=1))
            return
        item = Item(field_path(batch_item.path), e, a)
        key = call.prefix + item.key
        known = self.memory.verdicts.get(key)
        if known is not None:
            call.out[n] = known
            call.touched.add(key)
            self.memory.used.add(key)
            self._count(JudgeFigures(reused=1))
        elif key in call.waiting:
            call.waiting[key].append(n)
            self._count(JudgeFigures(reused=1))
        else:
            call.waiting[key] = [n]
            self._claim(call, key, item)

    def _claim(self, call: _Call, key: str, item: Item) -> None:
        """``item`` asked by this call, unless another call is asking for it now: then this
        one waits for that answer (the caller holds the lock)."""
        asking = self._asking.get(key)
        if asking is not None:
            call.elsewhere[key] = (item, asking)
            self._count(JudgeFigures(reused=1))
        else:
            self._asking[key] = threading.Event()
            call.pending.append(item)

    def _wait_elsewhere(self, call: _Call) -> None:
        """The items other calls were asking for, answered by them; one that failed there
        is asked here, so that it fails (or not) for its own reason."""
        again: list[Item] = []
        for key, (item, asked) in call.elsewhere.items():
            asked.wait(_WAIT_ELSEWHERE_S)
            with self._lock:
                known = self.memory.verdicts.get(key)
            if known is None:
                again.append(item)
                continue
            for n in call.waiting[key]:
                call.out[n] = known
        self._answer(call, again)

    def _close(self, call: _Call) -> None:
        """Count the items left undecided, and note the verdicts read or asked as the open
        comparison's case's (``Memory.cases``)."""
        with self._lock:
            undecided = sum(isinstance(a, ComparatorError) for a in call.out)
            self._count(JudgeFigures(undecided=undecided))
            case = getattr(self._tabs, "case", None)
            if case is not None:
                for key in call.waiting.keys() | call.touched:
                    if key in self.memory.verdicts:
                        self.memory.cases.setdefault(key, set()).add(case)

    def _answer(self, call: _Call, pending: list[Item]) -> None:
        """Ask for ``pending`` in requests of ``batch`` items; each answer goes to every
        position its item holds."""
        size = self.settings.batch
        for start in range(0, len(pending), size):
            chunk = pending[start : start + size]
            for item, verdict in zip(chunk, self._ask(chunk, call.form)):
                key = call.prefix + item.key
                if isinstance(verdict, (float, tuple)):
                    score = verdict if isinstance(verdict, float) else verdict[0]
                    with self._lock:
                        self.memory.verdicts[key] = score
                        self.memory.used.add(key)
                        self.memory.new.add(key)
                        if isinstance(verdict, tuple) and verdict[1]:
                            self.memory.reasons[key] = verdict[1]
                    answer: float | ComparatorError = score
                else:
                    answer = ComparatorError(masked(f"{self.name}: {verdict}"))
                for n in call.waiting[key]:
                    call.out[n] = answer

    def _release(self, prefix: str, asked: list[Item]) -> None:
        with self._lock:
            for item in asked:
                event = self._asking.pop(prefix + item.key, None)
                if event is not None:
                    event.set()

    def _ask(
        self, chunk: list[Item], form: Form | None = None
    ) -> Sequence[float | tuple[float, str] | str]:
        """One request for ``chunk``: a verdict (with its reason, in a form that asks for
        one) or why it has none, per item."""
        if self.down is not None:
            # an item whose own request failed keeps that reason, asked again or not
            return [self.failed.get(i.key, f"not asked: {self.down}") for i in chunk]
        too_large = self._too_large(chunk) if form is None else self._form_too_large(chunk, form)
        if too_large is not None:
            return [too_large] * len(chunk)
        request = self._request(chunk, form)
        started = time.perf_counter()
        try:
            reply = self._sent(request)
        except Exception as exc:  # noqa: BLE001 - the fields it was asked about say why
            self._count_failure(exc, started)
            return [self._failed(exc, chunk)] * len(chunk)
        if not isinstance(reply, JudgeReply):
            return [f"the transport returned {type(reply).__name__}, not a JudgeReply"] * len(chunk)
        self._count_reply(reply, len(chunk), started)
        if form is not None:
            return form.read(reply, len(chunk))
        return read_verdicts(reply, len(chunk))

    def _request(self, chunk: list[Item], form: Form | None = None) -> JudgeRequest:
        """The request that asks for ``chunk``'s verdicts."""
        s = self.settings
        prompt = render_prompt(s.prompt, chunk) if form is None else form.prompt(chunk)
        return JudgeRequest(
            s.model, prompt, len(chunk), s.endpoint, s.key_env, s.max_tokens, s.timeout
        )

    def _sent(self, request: JudgeRequest) -> JudgeReply:
        """``request``'s reply: through the runner that runs the judge, where one does, else
        sent by the judge itself with its own retries."""
        if self.through is not None:
            return self.through(request, self._transport())
        return send_with_retries(self._transport(), request)

    def _count_failure(self, exc: BaseException, started: float) -> None:
        """Count a request that failed (its attempts, as the runner or the retries say)."""
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

    def _count_reply(self, reply: JudgeReply, items: int, started: float) -> None:
        """Count a request answered: its attempts, items, tokens, cost and time."""
        cost = self.settings.cost(reply.input_tokens, reply.output_tokens)
        with self._lock:
            self._count(
                JudgeFigures(
                    requests=1,
                    attempts=reply.attempts if isinstance(reply.attempts, int) else 1,
                    sent=items,
                    input_tokens=reply.input_tokens or 0,
                    output_tokens=reply.output_tokens or 0,
                    cost=cost,
                    latency_s=time.perf_counter() - started,
                )
            )

    def _failed(self, exc: BaseException, chunk: list[Item]) -> str:
        """Why ``chunk``'s request failed, kept for its items; a judge that cannot be
        reached, or that refused its key, is asked nothing more in this run."""
        # (the judge's own name leads every reason already: said once, not again here)
        why = failure_text(exc).removeprefix(f"{self.name} failed: ")
        reason = f"the request failed: {why}"
        if is_unreachable(exc):
            self.down = f"{self.name} was unreachable earlier in this run ({why})"
            reason += "; the judge is asked nothing more in this run"
        with self._lock:
            for item in chunk:
                self.failed[item.key] = reason
        return reason

    def _form_too_large(self, chunk: list[Item], form: Form) -> str | None:
        """Why ``chunk``'s request in ``form`` is not sent: its prompt would carry more than
        ``MAX_REQUEST_BYTES`` (a form's prompt holds its items once: built, then measured)."""
        size = len(form.prompt(chunk).encode())
        if size <= MAX_REQUEST_BYTES:
            return None
        return (
            f"the request was not sent: its prompt would be {size:,} bytes, more than the "
            f"{MAX_REQUEST_BYTES:,} a judge request may carry ({len(chunk)} items)"
        )

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
