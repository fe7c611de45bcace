"""The message of a failed comparison: a headline with the metric, score, threshold and
precision/recall/F1, then the fields that cost points, worst first, array pairings that moved,
and fields below their ``min_score``. Plain text from a MatchResult; the pytest layer raises
it as an AssertionError, the framework adapters show it as their reason."""

from __future__ import annotations

import json
import math
from collections.abc import Mapping

from ...engine.core.depth import nesting
from ...engine.core.errors import printable, shown
from ...engine.core.paths import path_tokens
from ...engine.core.values import MISSING
from ...engine.results.field_results import (
    HALLUCINATION,
    MATCH,
    SCORE_EPSILON,
    SKIPPED,
    FieldResult,
    MatchResult,
)
from ..run_model.comparisons import trajectory_rows
from .listing import violations_text
from .tables import guarded

# How many fields (and pairings) a failure message lists, by verbosity: -v raises it.
FIELD_LIMITS = {0: 10, 1: 50}
# How long one value may get in the message before it is cut, by verbosity.
VALUE_WIDTHS = {0: 60, 1: 200}
_STATUS_WIDTH = len("hallucination")


def format_failure(result: MatchResult, threshold: float, verbosity: int = 0) -> str:
    """The message of a failed comparison: a headline with metric, score, threshold and
    P/R/F1; then the fields that cost points, worst first; array pairings that moved or
    scored below 1; fields below their ``min_score``. Lists stop after a limit that
    ``verbosity`` raises (10, 50 at -v, everything at -vv)."""
    limit = FIELD_LIMITS.get(verbosity) if verbosity < 2 else None
    width = VALUE_WIDTHS.get(verbosity) if verbosity < 2 else None
    lines = [_headline(result, threshold)]
    if result.truncated is not None:
        lines.append(
            f"the answer was cut off (truncated) at {result.truncated.where()} and "
            f"scored closed: the fields past the cut count as omitted"
        )
    conformance = result.conformance
    if conformance is not None and not conformance.valid:
        found = conformance.violations
        lines.append(
            violations_text(
                [(v.path, v.keyword) for v in found], conformance.total, limit=limit or len(found)
            )
        )

    if any(part.turn is not None for part in result.parts):  # a conversation's
        lines.extend(_turn_gone_wrong(result, width))
    else:
        lines.extend(_departure(result, width))
    costly = [
        (fr.score, i, fr)
        for i, fr in enumerate(result.fields)
        if fr.status != SKIPPED and fr.score < 1.0
    ]
    costly.sort(key=lambda t: (t[0], t[1]))
    if costly:
        lines.append(f"fields that cost points, worst first ({len(costly)}):")
        shown = costly if limit is None else costly[:limit]
        path_width = max(len(fr.display_path) for _, _, fr in shown)
        lines.extend(_field_line(fr, path_width, width) for _, _, fr in shown)
        lines.extend(_more(len(costly) - len(shown), "fields", verbosity))

    pairings = [p for p in result.pairings if p.expected_index != p.actual_index or p.score < 1.0]
    if pairings:
        lines.append("array pairings (expected <-> actual):")
        shown_p = pairings if limit is None else pairings[:limit]
        lines.extend(
            f"  {p.path or '$'}: expected[{p.expected_index}] <-> actual[{p.actual_index}] "
            f"({format_score(p.score)})"
            for p in shown_p
        )
        lines.extend(_more(len(pairings) - len(shown_p), "pairings", verbosity))

    if result.floor_failures:
        lines.append("fields below their min_score:")
        lines.extend(
            f"  {f.path or '$'}: score {format_score(f.score)} < min_score {f.min_score:g}"
            for f in result.floor_failures
        )
    # reasons may quote a comparator's own message; no line may start a workflow command
    return "\n".join(guarded(printable("\n".join(lines)).split("\n")))


def _headline(result: MatchResult, threshold: float) -> str:
    stats = f"precision {result.precision:.4f}, recall {result.recall:.4f}, F1 {result.f1:.4f}"
    if result.score < threshold - SCORE_EPSILON or not (
        result.floor_failures or result.conformance is not None
    ):
        return f"{result.metric}: score {result.score:.4f} < threshold {threshold:.4f} ({stats})"
    if not result.floor_failures:  # failed by the setting that fails invalid answers
        return (
            f"{result.metric}: score {result.score:.4f} >= threshold {threshold:.4f}, "
            f"but the answer breaks its schema ({stats})"
        )
    n = len(result.floor_failures)
    below = "1 field is" if n == 1 else f"{n} fields are"
    return (
        f"{result.metric}: score {result.score:.4f} >= threshold {threshold:.4f}, "
        f"but {below} below min_score ({stats})"
    )


def _departure(result: MatchResult, width: int | None) -> list[str]:
    """A trajectory's first field off the expected path (its fields come in the expected
    steps' order, a step the run added where it added it): the step, function, argument.
    The trajectory's rows are read from the result's parts (an agent's run's trajectory
    part), or are all its rows where the trajectory metric scored it alone."""
    fields = result.fields
    for k in trajectory_rows(result.metric, result.parts, len(fields)):
        fr = fields[k]
        if fr.status != MATCH and fr.status != SKIPPED:
            step, named = step_of(fr.path)
            whose = "the run's step" if fr.status == HALLUCINATION else "step"
            what = ""
            if named:
                argument = f", argument {'.'.join(named[1:])}" if named[1:] else ""
                what = f" ({named[0]}{argument})"
            return [
                f"the run left the expected path at {whose} {step}{what}: {fr.status}, expected "
                f"{format_value(fr.expected, width)}, actual {format_value(fr.actual, width)}"
            ]
    return []


def _turn_gone_wrong(result: MatchResult, width: int | None) -> list[str]:
    """A conversation's first turn gone wrong (its parts come turn by turn, each naming
    its turn): the turn, its first field that does not match."""
    fields, start = result.fields, 0
    for part in result.parts if sum(p.rows for p in result.parts) == len(fields) else ():
        rows, start = fields[start : start + part.rows], start + part.rows
        if part.turn is None:
            continue
        for fr in rows:
            if fr.status != MATCH and fr.status != SKIPPED:
                return [
                    f"the conversation first went wrong at turn {part.turn} (the user's "
                    f"message {part.turn + 1}): {fr.display_path} {fr.status}, expected "
                    f"{format_value(fr.expected, width)}, actual {format_value(fr.actual, width)}"
                ]
    return []


def step_of(path: str) -> tuple[str, list[str]]:
    """A trajectory row's step (the first index of its path: a trajectory's rows are its
    steps' and a run's put them under a key) and the keys after it: the function's name,
    then the argument's path."""
    tokens = path_tokens(path, allow_globs=False)
    for k, (kind, value) in enumerate(tokens):
        if kind == "index":
            return value, [name for kind, name in tokens[k + 1 :] if kind == "key"]
    return "?", []


def _field_line(fr: FieldResult, path_width: int, width: int | None) -> str:
    actual = format_value(fr.actual, width)
    if fr.actual_path and fr.actual_path != fr.path:
        actual += f" (at {fr.actual_path})"
    line = (
        f"  {fr.display_path:<{path_width}}  {fr.status:<{_STATUS_WIDTH}}  "
        f"score {format_score(fr.score)}  expected {format_value(fr.expected, width)}  "
        f"actual {actual}"
    )
    if fr.reason:  # a comparator's words (an LLM judge's): one line
        line += f"  ({' '.join(fr.reason.split())})"
    return line


def _more(hidden: int, what: str, verbosity: int) -> list[str]:
    if hidden <= 0:
        return []
    hint = "-v shows up to 50, -vv all" if verbosity < 1 else "-vv shows all"
    return [f"  ... {hidden} more {what} ({hint})"]


def format_score(score: float) -> str:
    """Two decimals, or four when two would round a non-perfect score up to 1.00."""
    text = f"{score:.2f}"
    if text == "1.00" and score < 1.0:
        text = f"{score:.4f}"
    return text


def format_value(value: object, width: int | None = 60) -> str:
    """A value as compact JSON (``<missing>`` for an absent one), cut to ``width``
    characters with ``...``. Containers nested more than SHOWN_DEPTH levels are shown as
    ``...`` (a deep value is written without recursion, whatever the stack)."""
    if value is MISSING:
        return "<missing>"
    if nesting(value, SHOWN_DEPTH) > SHOWN_DEPTH:
        value = _cut_deep(value, SHOWN_DEPTH)
    try:
        text = json.dumps(
            value,
            ensure_ascii=False,
            separators=(", ", ": "),
            allow_nan=True,
            default=_shown_default,
        )
    except (TypeError, ValueError, RecursionError):  # not JSON, or an integer too long to write out
        text = shown(value, limit=1_000)
    text = text.replace(_DEEPER_TEXT, "...")
    if isinstance(value, float) and not math.isfinite(value):
        text = repr(value)
    if width is not None and len(text) > width:
        text = text[: max(width - 3, 1)] + "..."
    return text


# A failure message shows a value this many levels deep; a container below is ``...``.
SHOWN_DEPTH = 50


class _Deeper:
    """What stands for a container past SHOWN_DEPTH in format_value's copy."""


_DEEPER = _Deeper()
_DEEPER_MARK = "\ue000jsonmatch:deeper\ue000"  # written as a JSON string, then replaced
_DEEPER_TEXT = json.dumps(_DEEPER_MARK, ensure_ascii=False)


def _shown_default(value: object) -> str:
    return _DEEPER_MARK if value is _DEEPER else repr(value)


def _cut_deep(value: object, depth: int) -> object:
    """A copy of ``value`` with every container ``depth`` levels down replaced by _DEEPER,
    made without recursion (a value that holds itself is cut the same way)."""
    root: list[object] = [None]
    # each value to copy, its level, and where its copy goes: a dict's key, a list's index
    stack: list[tuple[object, int, dict[object, object] | list[object], object]] = [
        (value, 0, root, 0)
    ]
    while stack:
        source, level, target, slot = stack.pop()
        copy: object
        if isinstance(source, Mapping):
            if level >= depth:
                copy = _DEEPER
            else:
                copied: dict[object, object] = {}
                for key, child in source.items():
                    copied[key] = None
                    stack.append((child, level + 1, copied, key))
                copy = copied
        elif isinstance(source, (list, tuple)):
            if level >= depth:
                copy = _DEEPER
            else:
                items: list[object] = [None] * len(source)
                stack.extend((child, level + 1, items, i) for i, child in enumerate(source))
                copy = items
        else:
            copy = source
        if isinstance(target, dict):
            target[slot] = copy
        elif isinstance(slot, int):  # (a list's slot is always its index)
            target[slot] = copy
    return root[0]
