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
OpenAI-compatible chat-completions endpoint (judge_http.py) unless the user supplies their
own. The layer that runs the judge may route every request through its runner
(``through``): the golden-case layer does, for its concurrency, timeouts, retries and
rate limit. Where none does (``match_json``, ``evaluate_records``, the ``jsonmatch``
command), the judge retries each request itself under the same rules (``_send``): a bounded
number of attempts within a bounded time. This module knows no runner and no pytest.
"""

from __future__ import annotations

import hashlib
import json
import random
import re
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Protocol

from ..core.errors import (
    ComparatorError,
    ConfigError,
    JsonMatchError,
    did_you_mean,
    known_names,
    shown,
)
from ..core.masking import mask_value, mask_variable, masked
from ..core.numbers import whole_in
from ..core.retry_after import retry_after
from ..core.values import JsonObject, JsonValue
from .judge_messages import MAX_REQUEST_BYTES, JudgeReply, JudgeRequest, Through, Transport


class Judged(Protocol):
    """What the judge reads of a registry's ``BatchItem`` (read only)."""

    @property
    def path(self) -> str: ...
    @property
    def expected_compared(self) -> JsonValue: ...
    @property
    def actual_compared(self) -> JsonValue: ...


PAIRS = "{pairs}"  # where a prompt template takes the numbered items
_WAIT_ELSEWHERE_S = 900.0  # the most a call waits for an item another call is asking for
DEFAULT_BATCH = 20
MAX_BATCH = 500
MAX_PROMPT_BYTES = 256 * 1024

DEFAULT_PROMPT = """\
You are checking the output of an information-extraction system against a reference.
Each numbered item below names a field of a JSON record and gives two values for it: the
reference value and the value the system produced. Decide, item by item, whether the
produced value says the same thing as the reference.

Count as the same: different wording, word order, letter case, spacing or punctuation;
abbreviations and their expansions; synonyms; a paraphrase that keeps every fact.
Count as different: a changed fact, number, date, unit, name, quantity or qualifier; a
value that leaves out or adds something the field is about. If you are unsure, answer 0.
Use the field's name to judge what matters in it.

Items:
{pairs}

Answer with one JSON object and nothing else, in this form:
{"results": [1, 0, ...]}
with exactly one entry per item, in the order of the items: 1 for the same, 0 for
different.
"""


@dataclass(frozen=True)
class JudgeSettings:
    """One judge: the chat model that decides, where it is served, the environment variable
    that holds its API key (never the key), its prompt template (which holds ``{pairs}``
    once at least), how many items one request carries, and what a million tokens cost in
    and out (for the run's cost; None: not counted)."""

    model: str
    endpoint: str = "https://api.openai.com/v1"
    key_env: str = ""
    prompt: str = DEFAULT_PROMPT
    prompt_file: str = ""  # where the template was read from, for messages
    batch: int = DEFAULT_BATCH
    max_tokens: int | None = None
    price_in: float | None = None  # per million input tokens
    price_out: float | None = None  # per million output tokens
    timeout: float = 60.0  # the transport's own bound on one request (the runner's is apart)

    def __post_init__(self) -> None:
        if not isinstance(self.model, str) or not self.model.strip():
            raise ConfigError("judge: model must be a model's name, such as model=gpt-4o-mini")
        _check_endpoint(self.endpoint)
        _check_key_env(self.key_env)
        if PAIRS not in self.prompt:
            where = f" {self.prompt_file}" if self.prompt_file else ""
            raise ConfigError(
                f"judge: the prompt template{where} has no {PAIRS} placeholder: the items to "
                f"judge would never reach the model"
            )
        if not (isinstance(self.batch, int) and 1 <= self.batch <= MAX_BATCH):
            raise ConfigError(f"judge: batch must be a whole number from 1 to {MAX_BATCH}")
        tokens = self.max_tokens
        if tokens is not None and not (
            isinstance(tokens, int) and not isinstance(tokens, bool) and 1 <= tokens <= 10**9
        ):
            raise ConfigError("judge: max_tokens must be a whole number from 1 to 1000000000")
        for key in ("price_in", "price_out", "timeout"):
            value = getattr(self, key)
            if value is None and key != "timeout":
                continue
            number = isinstance(value, (int, float)) and not isinstance(value, bool)
            if not (number and 0 <= value <= _HIGHEST[key]) or (key == "timeout" and value == 0):
                low = "above 0" if key == "timeout" else ">= 0"
                raise ConfigError(
                    f"judge: {key} must be a number {low} and at most {_HIGHEST[key]:g}, "
                    f"not {value!r:.40}"
                )

    @property
    def fingerprint(self) -> str:
        """What makes two judges give the same verdicts: the model, the prompt's text and the
        reply's token limit (not the endpoint or the key: the same model served elsewhere
        answers alike). Recorded verdicts are kept under it."""
        made = json.dumps(
            {"model": self.model, "prompt": self.prompt, "max_tokens": self.max_tokens},
            sort_keys=True,
        )
        return hashlib.sha256(made.encode()).hexdigest()[:16]

    def cost(self, input_tokens: int | None, output_tokens: int | None) -> float | None:
        """What a request cost by the prices given (None: no price, or no token count)."""
        if self.price_in is None and self.price_out is None:
            return None
        if input_tokens is None and output_tokens is None:
            return None
        return ((input_tokens or 0) * (self.price_in or 0.0)) / 1e6 + (
            (output_tokens or 0) * (self.price_out or 0.0)
        ) / 1e6


# what key_env may be: an environment variable's name, never a key pasted in its place
_VARIABLE = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,63}")


def _check_key_env(name: object) -> None:
    """A ConfigError for a ``key_env`` that is not a variable's name; it does not show the
    value, which may be the key itself, and masks it from now on. A name's value is masked
    from now on too (a server that echoes the key puts it in no report)."""
    if not isinstance(name, str) or (name and not _VARIABLE.fullmatch(name)):
        mask_value(name if isinstance(name, str) else None)
        raise ConfigError(
            "judge: key_env must name an environment variable (letters, digits and _, not "
            "starting with a digit, at most 64 characters), such as key_env=OPENAI_API_KEY; "
            "what was given is not shown, as it may be the key itself"
        )
    if mask_variable(name) is None and name != name.upper():
        # unset, and not shaped as variables are named: possibly a key pasted in the name's
        # place; it is masked wherever it would be shown (the report's command line too)
        mask_value(name)


def _check_endpoint(endpoint: object) -> None:
    """A ConfigError for an endpoint the judge would not send its key to: anything but an
    ``http://`` or ``https://`` URL with a host."""
    from urllib.parse import urlsplit

    parts = urlsplit(endpoint) if isinstance(endpoint, str) else None
    try:
        host = parts.hostname if parts is not None else None
    except ValueError:
        host = None
    if parts is None or parts.scheme.lower() not in ("http", "https") or not host:
        shown_endpoint = masked(endpoint)[:80] if isinstance(endpoint, str) else endpoint
        raise ConfigError(
            f"judge: endpoint must be an http:// or https:// URL with a host, such as "
            f"https://api.openai.com/v1, not {shown_endpoint!r}"
        )


_KEYS = {
    "model": "the chat model's name",
    "endpoint": "the OpenAI-compatible base URL (.../v1)",
    "key_env": "the environment variable holding the API key",
    "prompt": "a prompt template file holding {pairs}",
    "batch": "the most items one request carries",
    "max_tokens": "the reply's token limit",
    "price_in": "the cost of a million input tokens",
    "price_out": "the cost of a million output tokens",
    "timeout": "seconds one request may take (the transport's own bound)",
}


def parse_judge(
    pairs: Sequence[tuple[str, str]], what: str, base: Path | None = None
) -> JudgeSettings:
    """A judge from ``key=value`` pairs (``what`` names the setting in messages; a relative
    prompt file is read from ``base``). A key the judge does not know is a ConfigError; so is
    the key itself given as a value (``key=``, ``api_key=``): settings name the variable
    that holds it."""
    given: dict[str, str] = {}
    for key, value in pairs:
        if key in ("key", "api_key"):
            raise ConfigError(
                f"{what}: give key_env=NAME, the environment variable that holds the API "
                f"key; a key itself is never written in a setting"
            )
        if key not in _KEYS:
            raise ConfigError(
                f"{what}: unknown key {key!r}{did_you_mean(key, _KEYS)}; known: "
                f"{known_names(_KEYS)}"
            )
        given[key] = value
    if "model" not in given:
        raise ConfigError(f"{what}: name the judge's model, e.g. model=gpt-4o-mini")
    kwargs: dict[str, Any] = {"model": given["model"]}
    for key in ("endpoint", "key_env"):
        if key in given:
            kwargs[key] = given[key]
    if "prompt" in given:
        kwargs["prompt"], kwargs["prompt_file"] = _prompt_file(given["prompt"], what, base)
    for key in ("batch", "max_tokens"):
        if key in given:
            kwargs[key] = _whole(given[key], key, what)
    for key in ("price_in", "price_out", "timeout"):
        if key in given:
            kwargs[key] = _number(given[key], key, what)
    try:
        return JudgeSettings(**kwargs)
    except ConfigError as exc:
        raise ConfigError(f"{what}: {str(exc).removeprefix('judge: ')}") from None


def parse_judge_text(text: str, what: str, base: Path | None = None) -> JudgeSettings:
    """A judge from its text form: ``model=gpt-4o-mini endpoint=http://... batch=20``."""
    pairs = []
    for word in text.split():
        key, sep, value = word.partition("=")
        if not sep or not value:
            raise ConfigError(f"{what}: {word!r} is not KEY=VALUE")
        pairs.append((key, value))
    return parse_judge(pairs, what, base)


def _prompt_file(name: str, what: str, base: Path | None) -> tuple[str, str]:
    path = Path(name)
    if not path.is_absolute() and base is not None:
        path = base / path
    try:
        if not path.is_file():
            raise ConfigError(f"{what}: the prompt template {name!r} is not a file")
        if path.stat().st_size > MAX_PROMPT_BYTES:
            raise ConfigError(
                f"{what}: the prompt template {name!r} is larger than {MAX_PROMPT_BYTES} bytes"
            )
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{what}: the prompt template {name!r} cannot be read: {exc}") from None
    if PAIRS not in text:
        raise ConfigError(
            f"{what}: the prompt template {name!r} has no {PAIRS} placeholder: the items to "
            f"judge would never reach the model"
        )
    return text, name


# The largest value each number key takes (docs/metrics.md, the table of ranges): a price
# per million tokens, seconds a request may wait (a socket refuses a timeout of 1e10 s
# with an OverflowError)
_HIGHEST = {"price_in": 1e6, "price_out": 1e6, "timeout": 86_400.0}


def _whole(text: str, key: str, what: str) -> int:
    highest = 10**9 if key == "max_tokens" else MAX_BATCH
    value = whole_in(text, 1, highest)
    if value is None:
        raise ConfigError(
            f"{what}: {key} must be a whole number from 1 to {highest}, not {text[:40]!r}"
        )
    return value


def _number(text: str, key: str, what: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    low = "above 0" if key == "timeout" else ">= 0"
    if not (0 <= value <= _HIGHEST[key]) or (key == "timeout" and value == 0):
        raise ConfigError(
            f"{what}: {key} must be a number {low} and at most {_HIGHEST[key]:g}, not {text[:40]!r}"
        )
    return value


# -- the prompt and the verdicts ------------------------------------------------------------


def field_path(path: str) -> str:
    """An instance path with its indices dropped (``items[2].note`` -> ``items[].note``):
    the field an item belongs to, which is what the judge needs to know of it."""
    return re.sub(r"\[-?\d+\]", "[]", path)


def _text(value: object) -> str:
    """A value as the prompt shows it: JSON, keys sorted, non-ASCII kept."""
    return json.dumps(value, sort_keys=True, ensure_ascii=False)


@dataclass(frozen=True)
class Item:
    """One item to judge: its field path and both values after the field's transforms."""

    path: str
    expected: JsonValue
    actual: JsonValue

    @property
    def key(self) -> str:
        return f"{self.path}\x00{_text(self.expected)}\x00{_text(self.actual)}"


def render_items(items: Sequence[Item]) -> str:
    """The items as the prompt's numbered list."""
    return "\n".join(
        f"{n}. field {self_path}: reference {_text(i.expected)}; produced {_text(i.actual)}"
        for n, i in enumerate(items, start=1)
        for self_path in (json.dumps(i.path),)
    )


def render_prompt(template: str, items: Sequence[Item]) -> str:
    """The template with its ``{pairs}`` replaced by the items (no other brace is read, so
    a template's literal braces need no doubling)."""
    return template.replace(PAIRS, render_items(items))


def _verdict(value: object) -> float | None:
    """0 or 1 as the judge may write it; None for anything else (0.5, 2, "maybe", null)."""
    if isinstance(value, bool):
        return 1.0 if value else 0.0
    if isinstance(value, (int, float)):
        return 1.0 if value == 1 else 0.0 if value == 0 else None
    if isinstance(value, str):
        word = value.strip().lower()
        return 1.0 if word in ("1", "true") else 0.0 if word in ("0", "false") else None
    return None


def read_verdicts(reply: JudgeReply, count: int) -> list[float | str]:
    """One entry per item asked: its verdict (0.0 or 1.0), or why it has none (a string)."""
    text = reply.content.strip()
    if text.startswith("```"):  # a fenced block: ```json ... ```
        text = text.strip("`").strip()
        text = text[4:].strip() if text.startswith("json") else text
    cut = reply.finish_reason == "length"
    try:
        parsed = json.loads(text)
    except RecursionError:  # (json's reader recurses once per level of nesting)
        return [f"the judge's reply nests too deep to read: {shown(reply.content)}"] * count
    except ValueError:
        if cut:
            return _cut_off(text, count)
        return [f"the judge's reply is not JSON: {shown(reply.content)}"] * count
    results = parsed.get("results") if isinstance(parsed, dict) else None
    if not isinstance(results, list):
        return [f"the judge's reply has no 'results' list: {shown(reply.content)}"] * count
    out: list[float | str] = []
    for n in range(count):
        if n >= len(results):
            out.append(f"the judge gave {len(results)} verdicts for {count} items")
            continue
        verdict = _verdict(results[n])
        out.append(
            verdict
            if verdict is not None
            else f"the judge's verdict {shown(results[n])} is not 0 or 1"
        )
    return out


# (a literal start, then whitespace runs apart from each other: linear)
_RESULTS = re.compile(r'"results"\s*:\s*\[')


def _cut_off(text: str, count: int) -> list[float | str]:
    """Verdicts of an answer the token limit cut off: an entry counts once the comma after
    it was written (the last one may have been cut inside); the rest are undecided."""
    found = _RESULTS.search(text)
    written = text[found.end() :].split(",")[:-1] if found else []
    out: list[float | str] = []
    for n in range(count):
        verdict = _loads_verdict(written[n]) if n < len(written) else None
        out.append(
            verdict
            if verdict is not None
            else f"the judge's reply was cut off by its token limit after {len(written)} verdicts"
            if n >= len(written)
            else f"the judge's verdict {shown(written[n].strip())} is not 0 or 1"
        )
    return out


def _loads_verdict(word: str) -> float | None:
    try:
        return _verdict(json.loads(word))
    except (ValueError, RecursionError):
        return None


# -- the judge -------------------------------------------------------------------------------


@dataclass
class JudgeFigures:
    """What a judge did in a run: requests sent (``attempts`` with retries), items sent,
    answered by equality, answered from memory (this run's or recorded), left undecided;
    tokens, cost and the requests' time."""

    requests: int = 0
    attempts: int = 0
    sent: int = 0
    equal: int = 0
    reused: int = 0
    undecided: int = 0
    failed_requests: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    cost: float | None = None
    latency_s: float = 0.0

    def merge(self, other: JudgeFigures, asked: bool = True, read: bool = True) -> None:
        """Add ``other``'s figures: those of the requests (``asked``), and those of reading
        the verdicts (``read``: equal, reused, undecided)."""
        if asked:
            self.requests += other.requests
            self.attempts += other.attempts
            self.sent += other.sent
            self.failed_requests += other.failed_requests
            self.input_tokens += other.input_tokens
            self.output_tokens += other.output_tokens
            self.latency_s += other.latency_s
            if other.cost is not None:
                self.cost = other.cost if self.cost is None else self.cost + other.cost
        if read:
            self.equal += other.equal
            self.reused += other.reused
            self.undecided += other.undecided

    @property
    def used(self) -> bool:
        """Whether a judged field was met at all (asked, answered from memory or by
        equality, or left undecided)."""
        return bool(self.requests or self.equal or self.reused or self.undecided or self.sent)

    def to_dict(self) -> JsonObject:
        return {
            "requests": self.requests,
            "attempts": self.attempts,
            "sent": self.sent,
            "equal": self.equal,
            "reused": self.reused,
            "not_judged": self.undecided,
            "failed_requests": self.failed_requests,
            "input_tokens": self.input_tokens,
            "output_tokens": self.output_tokens,
            "cost": self.cost,
            "latency_s": self.latency_s,
        }


class JudgeUnavailable(ComparatorError):
    """The judge could not be reached or kept failing: names the judge, its endpoint and the
    attempts made. Once raised, the rest of the run asks it nothing more."""


@dataclass
class Memory:
    """Verdicts already known, by item key (the judge's fingerprint, the field path, both
    values): this run's and any a recording brought. ``used``: the keys a comparison read
    or asked; ``new``: those asked in this run; ``cases``: the keys each named case (a golden
    case's test id, as its tab names it) read or asked, so that a recording keeps which cases
    use each verdict. ``closed`` (a replay-only run): what to raise instead of asking for
    items no verdict is known of."""

    verdicts: dict[str, float] = field(default_factory=dict)
    used: set[str] = field(default_factory=set)
    new: set[str] = field(default_factory=set)
    cases: dict[str, set[str]] = field(default_factory=dict)
    closed: Callable[[list[Item]], JsonMatchError] | None = None


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
            from .judge_http import HttpTransport

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
                reply = self._send(request)
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
        why = _failure(exc)
        reason = f"the request failed: {why}"
        if _unreachable(exc):
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

    def _send(self, request: JudgeRequest) -> JudgeReply:
        """``request`` sent by the judge itself, where no layer runs it through a runner
        (``match_json``, ``evaluate_records``, the ``jsonmatch`` command): retried as the
        golden cases' runner retries the judge (a refused connection, HTTP 408, 409, 429 or
        5xx; waiting what ``Retry-After`` asks, else backing off), at most ``RETRIES`` times
        and ``RETRY_BUDGET_S`` of waits in all, so that a judge that is down costs seconds;
        then a :class:`JudgeUnavailable` naming the judge, the endpoint and the attempts. A
        failure not worth retrying is raised as it is."""
        waited, attempt = 0.0, 0
        while True:
            attempt += 1
            try:
                reply = self._transport()(request)
            except Exception as exc:
                delay = _retry_delay(exc, attempt)
                if delay is None and attempt == 1:
                    raise
                if delay is None or attempt > RETRIES or waited + delay > RETRY_BUDGET_S:
                    error = JudgeUnavailable(
                        f"judge {request.model!r} at {request.endpoint} failed: "
                        f"{_failure(exc)} ({attempt} attempts)"
                    )
                    error.attempts = attempt  # type: ignore[attr-defined]
                    raise error from None
                time.sleep(delay)
                waited += delay
                continue
            if isinstance(reply, JudgeReply):
                return replace(reply, attempts=attempt)
            return reply


RETRIES = 2  # a judge's request is tried at most three times (the plugin's default too)
RETRY_BUDGET_S = 30.0  # and waits at most this long in all between its attempts
_RETRY_STATUSES = frozenset({408, 409, 429})


def _retry_delay(exc: BaseException, attempt: int) -> float | None:
    """How long to wait before trying again after ``exc`` (attempt ``attempt`` failed), or
    None: not worth another attempt. The golden cases' runner reads failures alike
    (calls/retries.py)."""
    status = getattr(exc, "status_code", None)
    retryable = isinstance(exc, ConnectionError) or (
        isinstance(status, int)
        and not isinstance(status, bool)
        and (status in _RETRY_STATUSES or 500 <= status <= 599)
    )
    if not retryable:
        return None
    after = retry_after(getattr(exc, "response", None))
    if after is not None:
        return after
    return min(30.0, 0.5 * 2.0 ** (attempt - 1)) * (0.5 + random.random() / 2)


def _failure(exc: BaseException) -> str:
    """A failure's message as a reason keeps it: masked, at most 300 characters."""
    text = masked(str(exc) or type(exc).__name__)
    return text if len(text) <= 300 else text[:297] + "..."


def _unreachable(exc: BaseException) -> bool:
    """Whether a failure means the judge cannot be reached (refused connection, timeout,
    a server error still there after the retries) or refused its key (401, 403), so that
    the run stops asking it."""
    if isinstance(exc, JudgeUnavailable):
        return True
    status = getattr(exc, "status_code", None)
    return isinstance(exc, (ConnectionError, TimeoutError)) or (
        isinstance(status, int) and (status >= 500 or status in (401, 403, 429))
    )
