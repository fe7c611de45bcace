"""The span tree a comparison keeps when its output was a run read from a trace (a
``Trace``, engine/reading/trace_spans.py): the report's ``trace`` key.

:func:`kept_tree` makes it from the trace (engine/reading/trace_tree.py: the spans, bounded)
and the comparison's rows: each span that gave a scored step lists the step's row (its
head: ``run[2].refund`` for a call, ``run[3]`` for any other step), and the span that gave
the answer is marked ``answer``. The trajectory metric names a row by the expected step it
scores, and a report keeps no pairing of steps, so the step a row scored is found again from
what the rows hold: a step the run took that was not expected by the place its row records
(``messages[k]``), an expected call paired with one of the run's by the run's calls of its
name not taken yet, the first whose arguments are the row's actual values (else the first),
an expected step that is no call (strict mode) by the run's next such step of the role its
row read. A call's step is marked on the model call's span that made it and on the tool's
span whose result answers it.

:func:`tree_problem` holds a tree to itself and to its comparison's rows, as ``jsonmatch
merge`` holds a shard's report (shard_checks.py); :func:`event_spans` (and
:func:`trace_parents`, as ids) says which span each of a comparison's OpenTelemetry events
belongs to (telemetry/otel_events.py).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, NamedTuple

from ...engine.core.gc_pause import collector_paused
from ...engine.core.paths import index_segment, key_segment, path_tokens

if TYPE_CHECKING:
    from ...engine.reading.trace_spans import Trace
    from ...engine.results.field_results import FieldResult, PartScore
    from .comparisons import Comparison
    from .report_types import SpanTreeDict

_RUN = "run"
_MAX_DEPTH_WALK = 100_000  # parent links walked from one span before a tree is refused


def kept_tree(
    trace: Trace,
    fields: Sequence[FieldResult],
    parts: Sequence[PartScore],
    values: str | None,
) -> SpanTreeDict:
    """The tree a comparison of ``trace`` keeps: its spans, each marked with the rows (of
    ``fields``, scored in ``parts``) of the steps it gave; the attributes read only where
    the report keeps values (``values`` short or full)."""
    from ...engine.reading.trace_tree import message_spans, span_tree

    with collector_paused():  # (many small objects, none in a cycle: gc_pause.py)
        tree: SpanTreeDict = span_tree(trace, attributes=values in ("short", "full"))  # type: ignore[assignment]
        by_message = message_spans(trace)
        marks = _step_marks(trace, fields, by_message)
    answer = _answer_message(trace) if any(p.name == "answer" for p in parts) else None
    answered = by_message.get(answer) if answer is not None else None
    for span in tree["spans"]:
        rows = marks.get(span["span_id"])
        if rows:
            span["rows"] = rows
        if span["span_id"] == answered:
            span["answer"] = True
    return tree


_new = tuple.__new__  # (a NamedTuple's own constructor costs more: once per step of a run)


class _Step(NamedTuple):
    """A step of the run, as the trajectory metric counts them: its message, a call's index
    in it (None: a step that is no call), the function and arguments, the call's id."""

    message: int
    call: int | None
    name: str
    arguments: object
    call_id: str | None
    role: str


def _run_steps(messages: Sequence[Mapping[str, object]]) -> list[_Step]:
    """The run's steps from its first assistant message on: each call of an assistant
    message one, any other message one (trajectory_metric.read_steps' rule)."""
    start = next((k for k, m in enumerate(messages) if m.get("role") == "assistant"), None)
    steps: list[_Step] = []
    for k in range(len(messages) if start is None else start, len(messages)):
        message = messages[k]
        role = str(message.get("role"))
        listed = message.get("tool_calls") if role == "assistant" else None
        calls = [c for c in listed if isinstance(c, dict)] if isinstance(listed, list) else []
        for c, call in enumerate(calls):
            function = call.get("function")
            function = function if isinstance(function, dict) else {}
            call_id = call.get("id")
            name = function.get("name", "")
            step = (  # (the arguments as given: JSON text read only where compared)
                k,
                c,
                name if isinstance(name, str) else str(name),
                function.get("arguments"),
                call_id if isinstance(call_id, str) else None,
                role,
            )
            steps.append(_new(_Step, step))
        if not calls:
            steps.append(_new(_Step, (k, None, "", None, None, role)))
    return steps


def _agrees(arguments: object, said: Mapping[str, object], plain: Sequence[str]) -> bool:
    """Whether a call's ``arguments`` (an object, or its JSON text) hold the values ``said``.
    Text is read only where it holds each of ``plain``, the texts said values surely are
    written as (most calls of a long run are passed over by that look alone)."""
    if isinstance(arguments, str):
        for text in plain:
            if text not in arguments:
                return False
        try:
            arguments = json.loads(arguments)
        except ValueError:
            return False
    return isinstance(arguments, dict) and all(
        _same(arguments.get(key), value) for key, value in said.items()
    )


def _plain_text(value: object) -> str | None:
    """What the JSON text of ``value`` surely holds as it is: a string without characters
    JSON writers escape, an integer's digits, a boolean's word; None for any other."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, str) and value.isascii() and value.isprintable():
        return None if '"' in value or "\\" in value or "/" in value else value
    return None


class _Group(NamedTuple):
    head: str  # run[i] or run[i].NAME
    name: str | None
    rows: list[FieldResult]


def _groups(fields: Iterable[FieldResult]) -> list[_Group]:
    """The trajectory's rows by their step (``run[i]``, with the function's name where the
    step is a call), in order."""
    found: dict[str, _Group] = {}
    for fr in fields:
        path = fr.path
        if not path.startswith(_RUN + "["):
            continue
        tokens = path_tokens(path, allow_globs=False)
        if len(tokens) < 2 or tokens[1][0] != "index":
            continue
        at = index_segment(_RUN, int(tokens[1][1]))
        name = tokens[2][1] if len(tokens) > 2 and tokens[2][0] == "key" else None
        head = at if name is None else key_segment(at, name)
        group = found.get(head)
        if group is None:
            group = found[head] = _Group(head, name, [])
        group.rows.append(fr)
    return list(found.values())


def _step_marks(
    trace: Trace, fields: Sequence[FieldResult], by_message: Mapping[int, str]
) -> dict[str, list[str]]:
    """Each span's rows: the heads of the scored steps it gave (the module's docstring
    says how a row's step is found)."""
    steps = _run_steps(trace.messages)
    groups = _groups(fields)
    if not groups:
        return {}
    taken: dict[int, str] = {}  # step index -> the head of its rows
    places: dict[tuple[int, int | None], int] = {}  # (message, call) -> step; (message, None)
    placed_rows = any(fr.actual_path for group in groups for fr in group.rows)
    for k, step in enumerate(steps if placed_rows else ()):  # its first
        places.setdefault((step.message, step.call), k)
        places.setdefault((step.message, None), k)
    for group in groups:  # a step the run took unexpected: the place its row records
        for fr in group.rows:
            found = _placed(fr.actual_path, places)
            if found is not None and found not in taken:
                taken[found] = group.head
                break
    placed = set(taken.values())
    by_name: dict[str, list[int]] = {}  # each function's calls, in order
    for k, step in enumerate(steps):
        if step.call is not None:
            by_name.setdefault(step.name, []).append(k)
    others = [k for k, step in enumerate(steps) if step.call is None]
    for group in groups:
        if group.head in placed:
            continue
        found = _paired(group, steps, taken, by_name.get(group.name, []) if group.name else others)
        if found is not None:
            taken[found] = group.head
    answering = {
        m.get("tool_call_id"): k for k, m in enumerate(trace.messages) if m.get("role") == "tool"
    }
    marks: dict[str, list[str]] = {}
    for index in sorted(taken):
        step, head = steps[index], taken[index]
        spans = [by_message.get(step.message)]
        if step.call_id is not None and step.call_id in answering:
            spans.append(by_message.get(answering[step.call_id]))
        for span_id in spans:
            if span_id is not None and head not in marks.setdefault(span_id, []):
                marks[span_id].append(head)
    return marks


def _placed(actual_path: str | None, places: Mapping[tuple[int, int | None], int]) -> int | None:
    """The step at the place a row records (``messages[k]``, ``messages[k].tool_calls[c]``
    ...), as an index of ``steps``."""
    if actual_path is None or not actual_path.startswith("messages["):
        return None
    tokens = path_tokens(actual_path, allow_globs=False)
    if len(tokens) < 2 or tokens[1][0] != "index":
        return None
    message = int(tokens[1][1])
    call = None
    if len(tokens) > 3 and tokens[2] == ("key", "tool_calls") and tokens[3][0] == "index":
        call = int(tokens[3][1])
    return places.get((message, call))


def _paired(
    group: _Group, steps: Sequence[_Step], taken: Mapping[int, str], candidates: Sequence[int]
) -> int | None:
    """The run's step an expected step's rows scored, where it was paired with one, of
    ``candidates`` (the run's calls of its function, or its steps that are no call)."""
    head = next((fr for fr in group.rows if fr.path == group.head), None)
    if head is None:
        return None
    free = (k for k in candidates if k not in taken)
    if group.name is None:  # strict mode's expected step that is no call: the run's there
        if head.status not in ("match", "mismatch") or not isinstance(head.actual, str):
            return None
        return next((k for k in free if steps[k].role == head.actual), None)
    if head.status != "match":  # (an expected call not made: no step of the run is its)
        return None
    said = _said_arguments(group)
    plain = [text for text in map(_plain_text, said.values()) if text is not None]
    first = None
    for k in free:
        if first is None:
            first = k
        if _agrees(steps[k].arguments, said, plain):
            return k
    return first


def _said_arguments(group: _Group) -> dict[str, object]:
    """The arguments a call's rows read of the run's call: argument -> its actual value."""
    out: dict[str, object] = {}
    for fr in group.rows:
        if fr.path == group.head or fr.status in ("omission", "skipped"):
            continue
        tokens = path_tokens(fr.path, allow_globs=False)
        if len(tokens) == 4 and tokens[3][0] == "key" and tokens[3][1] != "status":
            out[tokens[3][1]] = fr.actual
    return out


def _same(a: object, b: object) -> bool:
    return a == b and isinstance(a, bool) == isinstance(b, bool)


def _answer_message(trace: Trace) -> int | None:
    """The index of the run's last assistant message (its answer's)."""
    for k in range(len(trace.messages) - 1, -1, -1):
        if trace.messages[k].get("role") == "assistant":
            return k
    return None


# -- a kept tree read back ------------------------------------------------------------------


def tree_problem(tree: Mapping[str, object], paths: Sequence[str]) -> str:
    """Why a comparison's kept tree does not hold together ("" when it does): its span ids
    each once, the span it is evaluated as among them, its count of spans and of spans cut
    agreeing, each parent link ending at a root (no cycle), and each row a span names one
    of the comparison's rows ``paths`` (where it keeps any). Its shape is the schema's."""
    spans = tree.get("spans")
    if not isinstance(spans, list):
        return "its trace holds no list of spans"
    parents: dict[str, object] = {}
    for span in spans:
        span_id = span.get("span_id") if isinstance(span, Mapping) else None
        if not isinstance(span_id, str) or span_id in parents:
            return f"its trace names span {span_id!r} twice (or not as text)"
        parents[span_id] = span.get("parent_id")
    evaluated = tree.get("span_id")
    if spans and evaluated not in parents:
        return f"its trace is evaluated as span {evaluated!r}, which it does not hold"
    total, cut = tree.get("total"), tree.get("cut")
    left = cut.get("spans", 0) if isinstance(cut, Mapping) else 0
    if total != len(spans) + left:
        return f"its trace counts {total!r} spans, but holds {len(spans)} and cut {left!r}"
    for span_id in parents:
        seen: set[object] = set()
        at: object = span_id
        while at in parents:
            if at in seen or len(seen) > _MAX_DEPTH_WALK:
                return f"the parent ids of its trace's spans form a cycle (at span {at!r})"
            seen.add(at)
            at = parents[at]
    if paths:
        known = set(paths)
        for span in spans:
            for row in span.get("rows", ()):
                if row not in known:
                    return (
                        f"its trace's span {span['span_id']!r} names the row {row!r}, which "
                        f"is none of its field rows"
                    )
    return ""


def event_spans(tree: Mapping[str, object], paths: Sequence[str]) -> tuple[str, str, list[str]]:
    """The trace id, the span a comparison's own event belongs to (the span the run is
    evaluated as) and the span of each row of ``paths`` (the span of the step it scores: a
    step's ``status`` row the tool's span whose result it reads, any other row the span
    that made the step; the evaluated span for a row of no step)."""
    trace_id, evaluated = str(tree["trace_id"]), str(tree["span_id"])
    heads: dict[str, list[Mapping[str, object]]] = {}
    spans = tree.get("spans")
    for span in spans if isinstance(spans, list) else ():
        for row in span.get("rows", ()):
            heads.setdefault(row, []).append(span)
    out: list[str] = []
    for path in paths:
        found = _head_spans(path, heads)
        if not found:
            out.append(evaluated)
            continue
        pick = found[0]
        if path.endswith(".status"):
            pick = next((s for s in found if s.get("operation") == "execute_tool"), pick)
        out.append(str(pick["span_id"]))
    return trace_id, evaluated, out


def trace_parents(
    comparison: Comparison,
) -> tuple[tuple[bytes, bytes], list[tuple[bytes, bytes]]] | None:
    """:func:`event_spans` of a comparison as OpenTelemetry takes ids: (trace id, span id)
    of its own event and of each field's; None where it keeps no tree, or a tree whose ids
    are no trace's and span's (16 and 8 bytes, not all zero)."""
    tree = comparison.trace
    if tree is None or not tree.get("span_id"):
        return None
    trace_id, evaluated, rows = event_spans(tree, [f.path for f in comparison.fields])
    try:
        trace = bytes.fromhex(trace_id)
        spans = {span_id: bytes.fromhex(span_id) for span_id in {evaluated, *rows}}
    except ValueError:
        return None
    if len(trace) != 16 or not any(trace) or any(len(s) != 8 or not any(s) for s in spans.values()):
        return None
    return (trace, spans[evaluated]), [(trace, spans[span_id]) for span_id in rows]


def _head_spans(
    path: str, heads: Mapping[str, list[Mapping[str, object]]]
) -> list[Mapping[str, object]]:
    """The spans of the step whose rows ``path`` is one of (by its head: the path itself,
    or the longest head it continues)."""
    if path in heads:
        return heads[path]
    best: list[Mapping[str, object]] = []
    length = 0
    for head, spans in heads.items():
        if len(head) > length and path.startswith(head) and path[len(head)] in ".[":
            best, length = spans, len(head)
    return best
