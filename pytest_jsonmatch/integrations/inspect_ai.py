"""Inspect AI: :func:`json_match`, a scorer that scores the model's completion against the
sample's target with :func:`~pytest_jsonmatch.match_json`.

    from inspect_ai import Task, eval
    from inspect_ai.dataset import Sample
    from pytest_jsonmatch.integrations.inspect_ai import json_match

    task = Task(dataset=[Sample(input="...", target='{"city": "Paris"}')],
                scorer=json_match(metric="field_f1", threshold=0.8))

Each sample's score value is ``{"score": <match_json's score>, "passed": "C" or "I"}``
(``passed``: CORRECT when the score reaches the threshold and no field is below its
``min_score``); the task's metrics are the mean score with its standard error, and the
share of samples that passed (accuracy) with its standard error. The score's ``answer`` is
the completion, its ``explanation`` the reason, naming the fields that cost points, and its
``metadata`` holds the metric, threshold, precision, recall, F1 and those fields as data.

Needs the ``inspect-ai`` extra; the scorer is made when first imported from here, which
raises ImportError naming the extra when inspect-ai is missing.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from .adapting import Scoring, made_on_first_use, missing_framework

if TYPE_CHECKING:
    from inspect_ai.scorer import Scorer

EXTRA = "inspect-ai"
__all__ = ["json_match"]  # noqa: F822 (made on first use, by __getattr__)


def _define() -> Callable[..., Scorer]:
    try:
        from inspect_ai.scorer import (
            CORRECT,
            INCORRECT,
            Score,
            Target,
            accuracy,
            mean,
            scorer,
            stderr,
        )
        from inspect_ai.solver import TaskState
    except ImportError as exc:
        raise missing_framework(__name__, "inspect-ai", EXTRA, exc) from exc

    @scorer(metrics={"score": [mean(), stderr()], "passed": [accuracy(), stderr()]})
    def json_match(metric: str = "field_f1", threshold: float = 1.0, **options: object) -> Scorer:
        """Score the completion against the target with ``match_json(completion,
        target.text, metric, **options)``; pass when the score reaches ``threshold``. Every
        option of match_json is taken; an unknown metric or option, or a threshold outside
        [0, 1], raises ConfigError here, when the scorer is made."""
        scoring = Scoring.checked(metric, threshold, options)

        async def score(state: TaskState, target: Target) -> Score:
            answer = state.output.completion
            verdict = scoring.score(answer, target.text)
            result = verdict.result
            return Score(
                value={"score": verdict.score, "passed": CORRECT if verdict.passed else INCORRECT},
                answer=answer,
                explanation=verdict.reason,
                metadata={
                    "metric": scoring.metric,
                    "threshold": scoring.threshold,
                    "precision": result.precision if result else 0.0,
                    "recall": result.recall if result else 0.0,
                    "f1": result.f1 if result else 0.0,
                    "costly_fields": verdict.costly_fields(),
                },
            )

        return score

    json_match.__module__, json_match.__qualname__ = __name__, "json_match"
    return json_match


__getattr__ = made_on_first_use(__name__, "json_match", _define)
