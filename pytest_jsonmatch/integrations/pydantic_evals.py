"""pydantic-evals: :class:`JsonMatch`, an ``Evaluator`` that scores a case's output against
its expected output with :func:`~pytest_jsonmatch.match_json`.

    from pydantic_evals import Case, Dataset
    from pytest_jsonmatch.integrations.pydantic_evals import JsonMatch

    dataset = Dataset(cases=[Case(inputs="...", expected_output={"city": "Paris"})],
                      evaluators=[JsonMatch(metric="field_f1", threshold=0.8)])
    report = dataset.evaluate_sync(task)

Each case gets two results, named after the metric (or ``evaluation_name``):
``<name>_score``, the score, and ``<name>_pass``, the assertion that it reaches the
threshold, with the reason, which names the fields that cost points. A case without an
expected output is not scored (no result, as pydantic-evals' own ``EqualsExpected`` does).

Needs the ``pydantic-evals`` extra; the class is made when first imported from here, which
raises ImportError naming the extra when pydantic-evals is missing.
"""

from __future__ import annotations

from .adapting import Scoring, made_on_first_use, missing_framework

EXTRA = "pydantic-evals"
__all__ = ["JsonMatch"]  # noqa: F822 (made on first use, by __getattr__)


class _Scored:
    """What :class:`JsonMatch` holds and how it is made, apart from the pydantic-evals base
    class it is joined with on first use: the options checked, the metric's name."""

    metric: str
    threshold: float
    evaluation_name: str | None
    options: dict[str, object]

    def __init__(
        self,
        metric: str = "field_f1",
        threshold: float = 1.0,
        *,
        evaluation_name: str | None = None,
        **options: object,
    ) -> None:
        self._scoring = Scoring.checked(metric, threshold, options)
        self.metric = metric
        self.threshold = self._scoring.threshold
        self.evaluation_name = evaluation_name
        self.options = dict(options)

    def get_default_evaluation_name(self) -> str:
        return self.evaluation_name or self.metric


def _define() -> type:
    try:
        from dataclasses import dataclass, field

        from pydantic_evals.evaluators import EvaluationReason, Evaluator, EvaluatorContext
    except ImportError as exc:
        raise missing_framework(__name__, "pydantic-evals", EXTRA, exc) from exc

    @dataclass(init=False, repr=False)
    class JsonMatch(_Scored, Evaluator[object, object, object]):
        """Score the output against the expected output with ``match_json(output,
        expected_output, metric, **options)``; pass when the score reaches ``threshold``
        (and no field is below its ``min_score``). Every option of match_json is taken;
        an unknown metric or option, or a threshold outside [0, 1], raises ConfigError
        here, when the evaluator is made."""

        metric: str = "field_f1"
        threshold: float = 1.0
        evaluation_name: str | None = None
        options: dict[str, object] = field(default_factory=dict)

        def evaluate(
            self, ctx: EvaluatorContext[object, object, object]
        ) -> dict[str, EvaluationReason]:
            if ctx.expected_output is None:
                return {}
            verdict = self._scoring.score(ctx.output, ctx.expected_output)
            name = self.get_default_evaluation_name()
            # the reason once, on the assertion (a report shows it under each result)
            return {
                f"{name}_score": EvaluationReason(value=verdict.score),
                f"{name}_pass": EvaluationReason(value=verdict.passed, reason=verdict.reason),
            }

        def build_serialization_arguments(self) -> dict[str, object]:
            # match_json's options as arguments of their own, as the constructor takes them,
            # so that a dataset file written with this evaluator reads back the same
            arguments = {
                k: v for k, v in super().build_serialization_arguments().items() if k != "options"
            }
            arguments.update(self.options)
            return arguments

    JsonMatch.__qualname__ = "JsonMatch"
    return JsonMatch


__getattr__ = made_on_first_use(__name__, "JsonMatch", _define)
