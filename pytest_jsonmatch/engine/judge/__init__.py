"""The judge: the built-in LLM judge (the ``semantic`` comparator) and the batching of every
batch comparator's fields, one call per record.

Takes a judge's settings (:class:`JudgeSettings`, or their text form
``"model=gpt-4o-mini endpoint=..."``), a transport (``fn(JudgeRequest) -> JudgeReply``; the
standard library's HTTP client unless one is given) and the fields a record hands a batch
comparator; gives a verdict (0.0 or 1.0) per field, or the reason it has none, and the
figures of what the judge did. May import ``core`` only: it sits below ``comparing``,
whose registry builds the ``semantic`` comparator from it, and reads the registry's items
and functions through small protocols (batching.py, semantic.py), never naming them.

| module              | its job                                                           |
|---------------------|-------------------------------------------------------------------|
| batching.py         | a record's batch-comparator fields, gathered and asked in one call |
| semantic.py         | ``SemanticJudge``: memory, requests of ``batch`` items, figures    |
| rubric.py           | a rubric's assertions judged over a transcript, with reasons      |
| judge_settings.py   | ``JudgeSettings`` and their text form                             |
| prompt.py           | the default prompt, the items written into it                     |
| verdicts.py         | a reply read into one verdict (or reason) per item                |
| messages.py         | ``JudgeRequest``, ``JudgeReply``, a chat completion read          |
| http_transport.py   | the standard library's HTTP client to the endpoint                |
| sending.py          | the judge's own retries where no runner sends for it              |
| memory.py           | ``Memory``: verdicts known, used, asked, by case                  |
| figures.py          | ``JudgeFigures``: requests, tokens, cost, time                    |
| agreement.py        | the judge against a person's labels: kappa, AC1, rates, intervals |

This face loads each module when one of its names is first used, so importing it costs
nothing: ``jsonmatch compare`` without a judge never loads the judge's modules, nor the
HTTP client.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..core.lazy_names import lazy_names

# Each name the rest of the project uses, and the module beside this one that defines it.
_NAMES = {
    "Failed": "batching",
    "BatchScores": "batching",
    "UNASKED": "batching",
    "JudgeFigures": "figures",
    "JudgeSettings": "judge_settings",
    "judge_settings_from_pairs": "judge_settings",
    "judge_settings_from_text": "judge_settings",
    "Memory": "memory",
    "JudgeReply": "messages",
    "JudgeRequest": "messages",
    "Through": "messages",
    "Transport": "messages",
    "Item": "prompt",
    "SemanticJudge": "semantic",
    "Judgment": "rubric",
    "judge_rubric": "rubric",
    "rubric_fingerprint": "rubric",
    "JudgeUnavailable": "sending",
}
__all__ = sorted(_NAMES)

if TYPE_CHECKING:  # the same names for type checkers
    from .batching import UNASKED as UNASKED
    from .batching import BatchScores as BatchScores
    from .batching import Failed as Failed
    from .figures import JudgeFigures as JudgeFigures
    from .judge_settings import JudgeSettings as JudgeSettings
    from .judge_settings import judge_settings_from_pairs as judge_settings_from_pairs
    from .judge_settings import judge_settings_from_text as judge_settings_from_text
    from .memory import Memory as Memory
    from .messages import JudgeReply as JudgeReply
    from .messages import JudgeRequest as JudgeRequest
    from .messages import Through as Through
    from .messages import Transport as Transport
    from .prompt import Item as Item
    from .rubric import Judgment as Judgment
    from .rubric import judge_rubric as judge_rubric
    from .rubric import rubric_fingerprint as rubric_fingerprint
    from .semantic import SemanticJudge as SemanticJudge
    from .sending import JudgeUnavailable as JudgeUnavailable


__getattr__ = lazy_names(__name__, _NAMES, globals())  # (each name imported on first use)
