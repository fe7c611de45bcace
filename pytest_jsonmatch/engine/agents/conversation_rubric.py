"""A conversation's transcript judged against a rubric: assertions in plain words ("the
agent asked for the travel date before searching"), each asked of the project's LLM judge
(judge/rubric.py: the judge's settings, runner, memory, recordings and figures) over the
whole transcript, each a row ``rubric[k]`` of the conversation's table.

A row is a match where the judge says the assertion holds, a mismatch where it says it does
not, its reason the judge's; an assertion the judge could not decide (no reply, a reply that
cannot be read, a judge that is down) is a ``batch_error`` row with the cause, which makes
the comparison undecided, never a pass. tau2-bench's NL assertions are judged the same way
(:func:`nl_judgments`, read by tau2_reward.py's rules).

The transcript is what the judge reads: each message on its own line, in order, as
``user: ...``, ``assistant: ...``, ``assistant calls NAME({...})`` and ``tool result:
...`` (a call's id, which the stable form renames, is never in it, so a replayed
conversation reads as the recorded one did).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Final

from ..core.errors import ConfigError, shown
from ..core.values import MISSING, JsonValue
from ..reading.agent_messages import ASSISTANT, TOOL, Conversation, agent_data
from ..results.field_results import BATCH_ERROR, MATCH, MISMATCH, FieldResult
from .agent_run import run_json

if TYPE_CHECKING:
    from ..judge import Judgment, SemanticJudge

RUBRIC: Final = "rubric"  # the rows' comparator and their part's metric
MOST_ASSERTIONS: Final = 200  # the most assertions one rubric holds
LONGEST_ASSERTION: Final = 2000  # the most characters one assertion holds


def read_rubric(given: object, where: str = RUBRIC) -> tuple[str, ...]:
    """``given`` read as a rubric: a list of assertions, each one line or more of text;
    ConfigError naming ``where`` (``rubric``, ``rubric[2]``) and what is wrong."""
    if isinstance(given, (str, bytes, Mapping)) or not isinstance(given, Sequence):
        raise ConfigError(
            f"{where} must be a list of assertions about the conversation (text), not "
            f"{shown(given)}"
        )
    if not given:
        raise ConfigError(f"{where} is empty: give the assertions the conversation must meet")
    if len(given) > MOST_ASSERTIONS:
        raise ConfigError(
            f"{where} holds {len(given):,} assertions, more than the {MOST_ASSERTIONS} a rubric "
            f"may hold"
        )
    seen: dict[str, int] = {}
    for k, text in enumerate(given):
        at = f"{where}[{k}]"
        if not isinstance(text, str):
            raise ConfigError(f"{at} must be an assertion in plain words (text), not {shown(text)}")
        if not text.strip():
            raise ConfigError(f"{at} is empty: an assertion says what must hold")
        if len(text) > LONGEST_ASSERTION:
            raise ConfigError(
                f"{at} is {len(text):,} characters long, more than the {LONGEST_ASSERTION:,} an "
                f"assertion may be"
            )
        if text.strip() in seen:
            raise ConfigError(f"{at} repeats {where}[{seen[text.strip()]}]: {text.strip()!r:.80}")
        seen[text.strip()] = k
    return tuple(text.strip() for text in given)


def judge_of(judge: object) -> SemanticJudge:
    """The judge a rubric is asked of: ``judge`` itself (a ``SemanticJudge``), one made from
    settings (a ``JudgeSettings`` or their text form, ``"model=... endpoint=..."``), or,
    where None, the judge configured for the ``semantic`` comparator (``configure_judge``,
    or a pytest session's ``jsonmatch_judge``: its runner, recordings and figures)."""
    from ..judge import JudgeSettings, SemanticJudge, judge_settings_from_text

    if isinstance(judge, SemanticJudge):
        return judge
    if isinstance(judge, str):
        return SemanticJudge(judge_settings_from_text(judge, "judge"))
    if isinstance(judge, JudgeSettings):
        return SemanticJudge(judge)
    if judge is not None:
        raise ConfigError(
            f"judge must be a SemanticJudge, a JudgeSettings, their text form or None (the "
            f"configured judge), not {type(judge).__name__}"
        )
    from ..metrics import REGISTRY

    configured = REGISTRY.judge
    if configured is None:
        raise ConfigError(
            "the transcript is judged by the LLM judge, and none is configured: set "
            "jsonmatch_judge (pytest), call configure_judge() or give judge= (Python)"
        )
    return configured


def transcript_of(actual: object) -> str:
    """The transcript the judge reads of the conversation ``actual`` (as ``read_run``
    reads it: a run's JSON form, its messages in any vendor's shape, an ``AgentRun``)."""
    from .agent_run import read_run

    raw = _plain_messages(actual)
    lines: list[str] = []
    for message in read_run(actual).messages:
        item = raw[message.item] if message.item < len(raw) else None
        if message.role == ASSISTANT:
            if message.answer is not None:
                lines.append(f"assistant: {_shown(message.answer)}")
            lines += [
                f"assistant calls {call.name}({json.dumps(call.arguments, sort_keys=True)})"
                for call in message.calls
            ]
        elif message.role == TOOL:
            lines.append(f"tool result: {_shown(message.result)}")
        else:
            lines.append(f"{message.role}: {_words(item)}")
    return "\n".join(lines)


def _plain_messages(actual: object) -> list[JsonValue]:
    """The conversation's messages as plain JSON, in the order ``read_run`` counts them."""
    form_of = getattr(actual, "run_json", None)
    if callable(form_of):
        actual = form_of()
    value = agent_data(actual, "actual")
    if isinstance(value, Mapping) and "messages" in value and "role" not in value:
        value = value["messages"]
    messages = run_json(value, None, "actual")["messages"]
    return messages if isinstance(messages, list) else []


def _shown(value: object) -> str:
    return value if isinstance(value, str) else json.dumps(value, sort_keys=True)


def _words(item: object) -> str:
    """What a user's (or a system's) message says: its text, the text of its blocks or parts."""
    if not isinstance(item, Mapping):
        return _shown(item)
    content = item.get("content", item.get("parts"))
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        texts = [b.get("text") for b in content if isinstance(b, Mapping)]
        if any(isinstance(t, str) for t in texts):
            return " ".join(t for t in texts if isinstance(t, str))
    return _shown(content)


def judged(assertions: Sequence[str], actual: object, judge: SemanticJudge) -> list[Judgment]:
    """Each assertion judged over ``actual``'s transcript."""
    from ..judge import judge_rubric

    return judge_rubric(judge, transcript_of(actual), assertions)


def rubric_rows(assertions: Sequence[str], judgments: Sequence[Judgment]) -> list[FieldResult]:
    """One row per assertion, ``rubric[k]``: a match where it holds, a mismatch where it
    does not (its actual value ``"does not hold"``), ``batch_error`` where undecided; the
    judge's reason (or the cause) its reason."""
    rows: list[FieldResult] = []
    for k, (text, judgment) in enumerate(zip(assertions, judgments)):
        if judgment.holds is None:
            row = FieldResult(
                f"{RUBRIC}[{k}]", BATCH_ERROR, 0.0, text, MISSING, RUBRIC, judgment.reason
            )
        else:
            row = FieldResult(
                f"{RUBRIC}[{k}]",
                MATCH if judgment.holds else MISMATCH,
                1.0 if judgment.holds else 0.0,
                text,
                "holds" if judgment.holds else "does not hold",
                RUBRIC,
                judgment.reason or "the judge gave no reason",
            )
        rows.append(row._replace(field_path=f"{RUBRIC}[]"))
    return rows


def nl_judgments(
    assertions: Sequence[str], run: Conversation, actual: object, judge: SemanticJudge | None
) -> list[Judgment] | None:
    """tau2-bench's NL assertions judged by the rubric's judge over ``actual``'s transcript
    (None: no judge, or none to judge)."""
    if judge is None or not assertions:
        return None
    return judged(assertions, actual, judge)
