"""A run read from a trace, as the span tree a report keeps beside its scores: plain JSON
made from a :class:`~.trace_spans.Trace`'s public attributes (its spans, steps and
messages), bounded, for a reviewer to see what the agent did and where it failed.

:func:`span_tree` gives ``{trace_id, span_id, total, spans, cut?}``: ``span_id`` the span
the run is evaluated as (its outermost agent's, ``invoke_agent``; else its first root),
``total`` the spans of the run, ``spans`` those kept, in the order they start, each
``{span_id, parent_id, name, kind, start_ms, duration_ms, status}`` (``start_ms`` from the
run's first start; ``status`` ``ok`` or ``error``, a step's as the reader judged it: an
exception event fails a tool's step whose span says nothing) with, where there is one,
``message`` (what failed), ``operation`` and ``tool`` (a step's), ``tokens`` ([input,
output], None where not recorded) and ``attributes``: the attributes the reader reads
(:data:`READ_KEYS`, :data:`READ_PREFIXES`), at most :data:`MAX_ATTRIBUTES` a span, each
value of more than ``chars`` characters as its compact JSON cut to that many and ``...``.

Bounds: a run of more than ``limit`` spans keeps its steps' spans and their ancestors first
(the tree that holds the scored steps), then, in the order they start, spans whose parent
is kept, up to ``limit``; every kept span's parent is kept or is no span of the run. ``cut`` says what was
left out: ``spans``, ``attributes`` (past a span's first :data:`MAX_ATTRIBUTES`) and
``values`` (cut short), each only where there were any. Nothing recurses.

:func:`message_spans` says which span gave each of the run's messages, which a report
reads to mark the span of each step its rows score.
"""

from __future__ import annotations

import heapq
import json
from collections.abc import Collection, Mapping, Sequence
from typing import TYPE_CHECKING

from ..core.values import JsonValue

if TYPE_CHECKING:
    from .trace_formats import Span
    from .trace_spans import Trace

MAX_KEPT_SPANS = 200  # spans of one run a tree keeps
VALUE_CHARS = 200  # characters of an attribute's value kept (its compact JSON's, past that)
MAX_ATTRIBUTES = 24  # attributes of one span kept

# the attributes the trace reader reads (trace_messages.py, trace_chat.py), by name and prefix
READ_KEYS = frozenset(
    {
        "gen_ai.operation.name",
        "gen_ai.input.messages",
        "gen_ai.output.messages",
        "gen_ai.system_instructions",
        "gen_ai.tool.name",
        "gen_ai.tool.call.id",
        "gen_ai.tool.call.arguments",
        "gen_ai.tool.call.result",
        "gen_ai.usage.input_tokens",
        "gen_ai.usage.output_tokens",
        "openinference.span.kind",
        "llm.token_count.prompt",
        "llm.token_count.completion",
        "tool.name",
        "tool_call.id",
        "tool_call.function.name",
        "tool_call.function.arguments",
        "input.value",
        "output.value",
        "final_result",
        "error.type",
    }
)
READ_PREFIXES = ("llm.input_messages.", "llm.output_messages.")
_AGENT = "invoke_agent"


def span_tree(
    trace: Trace,
    *,
    limit: int = MAX_KEPT_SPANS,
    chars: int = VALUE_CHARS,
    attributes: bool = True,
) -> dict[str, JsonValue]:
    """The span tree of ``trace`` as plain JSON (the module's docstring says its shape),
    at most ``limit`` spans, attribute values cut past ``chars`` characters; without
    ``attributes``, none (a report that keeps no values)."""
    spans: Sequence[Span] = trace.spans
    steps = {step.span_id: step for step in trace.steps}
    parent = {span.span_id: span.parent_id for span in spans}
    kept = _kept(spans, steps, limit, parent)
    first = spans[0].start_ns if spans else 0
    cut = {"spans": len(spans) - len(kept), "attributes": 0, "values": 0}
    out: list[JsonValue] = []
    for span in spans:
        if span.span_id not in kept:
            continue
        node: dict[str, JsonValue] = {
            "span_id": span.span_id,
            "parent_id": span.parent_id,
            "name": span.name,
            "kind": span.kind,
            "start_ms": round((span.start_ns - first) / 1e6, 3),
            "duration_ms": round(max(0, span.end_ns - span.start_ns) / 1e6, 3),
        }
        step = steps.get(span.span_id)
        failed = span.status == "error" or (step is not None and step.status == "error")
        node["status"] = "error" if failed else "ok"
        message = (step.error if step is not None else None) or span.status_message
        if message:
            node["message"] = _cut(message, chars, cut)
        if step is not None:
            node["operation"] = step.operation
            if step.tool is not None:
                node["tool"] = step.tool
            if step.input_tokens is not None or step.output_tokens is not None:
                node["tokens"] = [step.input_tokens, step.output_tokens]
        if attributes:
            read = _read_attributes(span, chars, cut)
            if read:
                node["attributes"] = read
        out.append(node)
    tree: dict[str, JsonValue] = {
        "trace_id": trace.trace_id,
        "span_id": _evaluated(spans, trace, parent),
        "total": len(spans),
        "spans": out,
    }
    said: dict[str, JsonValue] = {k: n for k, n in cut.items() if n}
    if said:
        tree["cut"] = said
    return tree


def message_spans(trace: Trace) -> dict[int, str]:
    """The span that gave each of the run's messages, by the message's index: a step's own
    message (a model call's reply, a tool's result, an agent's answer), and an assistant
    message the reader made for a tool call no model call recorded, the tool's span."""
    given = {step.message: step.span_id for step in trace.steps if step.message is not None}
    made = [  # (assistant messages no step gave: the calls a tool span made for itself)
        k for k, m in enumerate(trace.messages) if k not in given and m.get("role") == "assistant"
    ]
    if not made:
        return given
    answered: dict[str, str] = {}  # call id -> the span of the tool result that answers it
    for index, message in enumerate(trace.messages):
        call_id = message.get("tool_call_id")
        if message.get("role") == "tool" and isinstance(call_id, str) and index in given:
            answered.setdefault(call_id, given[index])
    for index in made:
        for call in trace.messages[index].get("tool_calls") or ():
            call_id = call.get("id") if isinstance(call, dict) else None
            found = answered.get(call_id) if isinstance(call_id, str) else None
            if found is not None:
                given[index] = found
                break
    return given


def _kept(
    spans: Sequence[Span], steps: Collection[str], limit: int, parent: Mapping[str, str | None]
) -> set[str]:
    """The ids of the spans kept: all where they fit, else the steps' spans with their
    ancestors first (a span only with its ancestors), then, in the order they start, the
    spans whose parent is kept or none of the run's, up to ``limit`` in all."""
    if len(spans) <= limit:
        return {span.span_id for span in spans}
    kept: set[str] = set()
    for span in spans:
        if span.span_id not in steps:
            continue
        line: list[str] = []
        room = limit - len(kept)
        at: str | None = span.span_id
        while at is not None and at in parent and at not in kept and len(line) <= room:
            line.append(at)
            at = parent[at]
        if len(line) <= room:  # (else it and its ancestors do not fit; a shallower step may)
            kept.update(line)
        if len(kept) >= limit:
            return kept
    children: dict[str, list[int]] = {}
    waiting: list[int] = []  # by start: the spans that may be kept next
    for k, span in enumerate(spans):
        up = span.parent_id
        if up is not None and up in parent:
            children.setdefault(up, []).append(k)
        if span.span_id not in kept and (up is None or up not in parent or up in kept):
            waiting.append(k)
    for span_id in kept:
        waiting += [k for k in children.get(span_id, ()) if spans[k].span_id not in kept]
    heapq.heapify(waiting)
    while waiting and len(kept) < limit:
        span_id = spans[heapq.heappop(waiting)].span_id
        if span_id not in kept:
            kept.add(span_id)
            for k in children.get(span_id, ()):
                heapq.heappush(waiting, k)
    return kept


def _evaluated(spans: Sequence[Span], trace: Trace, parent: Mapping[str, str | None]) -> str | None:
    """The span the run is evaluated as: its outermost agent's (the first of the least
    depth), else its first root."""
    agents = {step.span_id for step in trace.steps if step.operation == _AGENT}
    best: tuple[int, str] | None = None
    for span in spans:
        if span.span_id in agents:
            depth, at = 0, span.parent_id
            while at is not None and at in parent and depth <= len(spans):
                depth, at = depth + 1, parent[at]
            if best is None or depth < best[0]:
                best = (depth, span.span_id)
    if best is not None:
        return best[1]
    root = next((s for s in spans if s.parent_id is None or s.parent_id not in parent), None)
    return root.span_id if root is not None else None


def _read_attributes(span: Span, chars: int, cut: dict[str, int]) -> dict[str, JsonValue]:
    """The attributes of ``span`` the reader reads, at most MAX_ATTRIBUTES, each value kept
    within ``chars`` characters."""
    out: dict[str, JsonValue] = {}
    for key, value in span.attributes.items():
        if key not in READ_KEYS and not key.startswith(READ_PREFIXES):
            continue
        if len(out) >= MAX_ATTRIBUTES:
            cut["attributes"] += 1
            continue
        out[key] = _kept_value(value, chars, cut)
    return out


def _kept_value(value: JsonValue, chars: int, cut: dict[str, int]) -> JsonValue:
    if value is None or isinstance(value, (bool, int, float)):
        return value
    if isinstance(value, str):
        return _cut(value, chars, cut)
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    return value if len(text) <= chars else _cut(text, chars, cut)


def _cut(text: str, chars: int, cut: dict[str, int]) -> str:
    if len(text) <= chars:
        return text
    cut["values"] += 1
    return text[: max(chars - 3, 0)] + "..."
