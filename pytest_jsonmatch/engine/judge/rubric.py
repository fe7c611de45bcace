"""A rubric judged over a transcript: each assertion in plain words ("the agent asked for
the date before searching") asked of the judge's own model, endpoint, runner and memory,
which answers whether it holds, with its reason.

It is a :class:`~.messages.Form` of the judge (semantic.py asks it): one request carries a
transcript and up to ``batch`` of its assertions, numbered; the reply is one JSON object,
``{"results": [{"holds": true, "reason": "..."}, ...]}``, one entry per assertion in order.
Its verdicts are kept (and recorded, replayed) under their own fingerprint: the judge's
with this module's prompt in place of the pairs' prompt, so that a change of either prompt,
the model or its token limit makes them stale. An item is one assertion against one
transcript (its field ``rubric[]``): change either and its verdict is asked anew.

What cannot be read leaves its assertion undecided, with the reason: prose instead of
JSON, too few entries, an entry whose ``holds`` is not true or false, a reply cut off by
its token limit.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, NamedTuple

from ..core.errors import ComparatorError, shown
from .messages import JudgeReply
from .prompt import PAIRS, Item

if TYPE_CHECKING:
    from .judge_settings import JudgeSettings
    from .semantic import SemanticJudge

FIELD = "rubric[]"  # the field every rubric item is asked under
TRANSCRIPT = "{transcript}"  # where the prompt takes the transcript

RUBRIC_PROMPT = """\
You are reviewing a conversation between a user and an AI assistant, recorded as a
transcript: each user message, each assistant message, each tool the assistant called
(with its arguments) and each tool result, in order.

Transcript:
{transcript}

Below are numbered statements about the assistant's conduct in this conversation. For
each one, decide from the transcript alone whether it holds. A statement about order
("before", "after", "first") holds only where the transcript shows that order. A
statement that something never happened holds only where nothing in the transcript shows
it. If the transcript does not let you decide, it does not hold.

Statements:
{pairs}

Answer with one JSON object and nothing else, in this form:
{"results": [{"holds": true, "reason": "one short sentence"}, ...]}
with exactly one entry per statement, in the order of the statements.
"""


class Judgment(NamedTuple):
    """One assertion as the judge decided it: ``holds`` (None: undecided) and ``reason``
    (the judge's words; where undecided, why)."""

    holds: bool | None
    reason: str


def rubric_settings(settings: JudgeSettings) -> JudgeSettings:
    """The judge of ``settings`` asked the rubric's question: its model, endpoint, key and
    token limit, this module's prompt."""
    return dataclasses.replace(settings, prompt=RUBRIC_PROMPT, prompt_file="")


def rubric_fingerprint(settings: JudgeSettings) -> str:
    """What a rubric's verdicts are kept and recorded under for the judge of ``settings``."""
    return rubric_settings(settings).fingerprint


class RubricForm:
    """The rubric's question, as the judge asks it (:class:`~.messages.Form`)."""

    def __init__(self, settings: JudgeSettings) -> None:
        self._fingerprint = rubric_fingerprint(settings)

    @property
    def fingerprint(self) -> str:
        return self._fingerprint

    def prompt(self, items: Sequence[Item]) -> str:
        """The prompt for ``items`` (each an assertion, ``expected``, over the one transcript
        they share, ``actual``)."""
        transcript = items[0].actual if items else ""
        numbered = "\n".join(f"{n}. {item.expected}" for n, item in enumerate(items, start=1))
        # (each slot filled once, in its own part: no text of the conversation or of an
        # assertion is ever read as a slot)
        before, _, after = RUBRIC_PROMPT.partition(TRANSCRIPT)
        return before + str(transcript) + after.replace(PAIRS, numbered)

    def read(self, reply: JudgeReply, count: int) -> list[float | tuple[float, str] | str]:
        """One entry per assertion: its verdict and the judge's reason, or why it has none."""
        return read_judgments(reply, count)


def read_judgments(reply: JudgeReply, count: int) -> list[float | tuple[float, str] | str]:
    """The rubric's reply read: ``(1.0 or 0.0, reason)`` per assertion, or why it has none."""
    text = reply.content.strip()
    if text.startswith("```"):  # a fenced block: ```json ... ```
        text = text.strip("`").strip()
        text = text[4:].strip() if text.startswith("json") else text
    try:
        parsed = json.loads(text)
    except RecursionError:
        return [f"the judge's reply nests too deep to read: {shown(reply.content)}"] * count
    except ValueError:
        if reply.finish_reason == "length":
            return [f"the judge's reply was cut off by its token limit: {shown(text)}"] * count
        return [f"the judge's reply is not JSON: {shown(reply.content)}"] * count
    results = parsed.get("results") if isinstance(parsed, Mapping) else None
    if not isinstance(results, list):
        return [f"the judge's reply has no 'results' list: {shown(reply.content)}"] * count
    out: list[float | tuple[float, str] | str] = []
    for n in range(count):
        if n >= len(results):
            out.append(f"the judge gave {len(results)} verdicts for {count} assertions")
            continue
        entry = results[n]
        holds = entry.get("holds") if isinstance(entry, Mapping) else entry
        reason = entry.get("reason") if isinstance(entry, Mapping) else None
        if not isinstance(holds, bool):
            out.append(f"the judge's verdict {shown(entry)} does not say holds: true or false")
            continue
        out.append((1.0 if holds else 0.0, reason.strip() if isinstance(reason, str) else ""))
    return out


class _Asked(NamedTuple):
    """One assertion as the judge reads an item (semantic.Judged)."""

    path: str
    expected_compared: str
    actual_compared: str


def judge_rubric(
    judge: SemanticJudge, transcript: str, assertions: Sequence[str]
) -> list[Judgment]:
    """Each of ``assertions`` judged over ``transcript`` by ``judge`` (its settings, runner,
    memory, recordings and figures): whether it holds and the judge's reason, or why it is
    undecided. A replay-only run's assertion never recorded raises its memory's error."""
    if not assertions:
        return []
    form = RubricForm(judge.settings)
    asked = [_Asked(FIELD, text, transcript) for text in assertions]
    answers = judge(asked, form=form)
    prefix = form.fingerprint + "\x00"
    out: list[Judgment] = []
    for text, answer in zip(assertions, answers):
        if isinstance(answer, ComparatorError):
            out.append(Judgment(None, str(answer)))
            continue
        key = prefix + Item(FIELD, text, transcript).key
        reason = judge.memory.reasons.get(key, "")
        out.append(Judgment(answer == 1.0, reason))
    return out
