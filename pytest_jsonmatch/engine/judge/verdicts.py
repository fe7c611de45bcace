"""Reading the judge's reply: one verdict (0.0 or 1.0) per item asked, or why an item has
none (prose instead of JSON, too few verdicts, a value other than 0 or 1, an answer cut off
by the token limit: then the verdicts written before the cut still count)."""

from __future__ import annotations

import json
import re

from ..core.errors import shown
from .messages import JudgeReply


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
