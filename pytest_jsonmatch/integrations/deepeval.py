"""deepeval: :class:`JsonMatchMetric`, a ``BaseMetric`` that scores a test case's
``actual_output`` against its ``expected_output`` with :func:`~pytest_jsonmatch.match_json`.

    from deepeval import assert_test
    from deepeval.test_case import LLMTestCase
    from pytest_jsonmatch.integrations.deepeval import JsonMatchMetric

    case = LLMTestCase(input="...", actual_output='{"city": "Paris"}',
                       expected_output='{"city": "Paris"}')
    assert_test(case, [JsonMatchMetric(metric="field_f1", threshold=0.8)])

After ``measure``, the metric's ``score`` is match_json's score, ``success`` says whether it
reaches the threshold (and no field is below its ``min_score``), ``reason`` names the
fields that cost points, and ``score_breakdown`` holds precision, recall, F1 and those
fields as data. No model is called: the metric needs no API key and no network. A test case
without an expected output raises deepeval's ``MissingTestCaseParamsError``.

Needs the ``deepeval`` extra; the class is made when first imported from here, which raises
ImportError naming the extra when deepeval is missing.
"""

from __future__ import annotations

from collections.abc import Mapping

from .adapting import Scoring, made_on_first_use, missing_framework

EXTRA = "deepeval"
__all__ = ["JsonMatchMetric"]  # noqa: F822 (made on first use, by __getattr__)


class _Scored:
    """How :class:`JsonMatchMetric` is made and named, apart from deepeval's base class it is
    joined with on first use (its traced methods stay on the class itself: deepeval traces
    only the methods a metric class defines)."""

    def __init__(
        self,
        metric: str = "field_f1",
        threshold: float = 1.0,
        match_options: Mapping[str, object] | None = None,
        **options: object,
    ) -> None:
        # deepeval copies a metric before measuring it by calling the class with the
        # attributes named as constructor parameters: the options are kept under
        # ``match_options``, which the constructor takes back (never as ``options``,
        # which the copy would pass as one option of that name).
        options = {**(match_options or {}), **options}
        self._scoring = Scoring.checked(metric, threshold, options)
        self.metric = metric
        self.threshold = self._scoring.threshold
        self.match_options = options
        self.include_reason = True
        self.async_mode = True
        self.verbose_mode = False
        self.strict_mode = False
        self.evaluation_model = None
        self.score: float | None = None
        self.reason: str | None = None
        self.success: bool | None = None
        self.error: str | None = None
        self.score_breakdown: dict[str, object] | None = None

    @property
    def __name__(self) -> str:  # type: ignore[override,unused-ignore]
        return f"JSON Match [{self.metric}]"


def _define() -> type:
    try:
        from deepeval.errors import MissingTestCaseParamsError
        from deepeval.metrics import BaseMetric
        from deepeval.test_case import LLMTestCase
    except ImportError as exc:
        raise missing_framework(__name__, "deepeval", EXTRA, exc) from exc

    class JsonMatchMetric(_Scored, BaseMetric):  # type: ignore[misc,unused-ignore]
        """Score ``actual_output`` against ``expected_output`` with ``match_json(actual,
        expected, metric, **options)``; successful when the score reaches ``threshold``.
        Every option of match_json is taken; an unknown metric or option, or a threshold
        outside [0, 1], raises ConfigError here, when the metric is made."""

        def measure(self, test_case: LLMTestCase, *args: object, **kwargs: object) -> float:
            if test_case.expected_output is None:
                raise MissingTestCaseParamsError(
                    f"{self.__name__} needs the test case's expected_output"
                )
            self.error = None
            verdict = self._scoring.score(test_case.actual_output, test_case.expected_output)
            result = verdict.result
            self.score = verdict.score
            self.success = verdict.passed
            self.reason = verdict.reason
            self.score_breakdown = {
                "precision": result.precision if result else 0.0,
                "recall": result.recall if result else 0.0,
                "f1": result.f1 if result else 0.0,
                "costly_fields": verdict.costly_fields(),
            }
            return verdict.score

        async def a_measure(self, test_case: LLMTestCase, *args: object, **kwargs: object) -> float:
            return self.measure(test_case)

        def is_successful(self) -> bool:
            if self.error is not None or self.success is None:
                self.success = False
            return bool(self.success)

    JsonMatchMetric.__qualname__ = "JsonMatchMetric"
    return JsonMatchMetric


__getattr__ = made_on_first_use(__name__, "JsonMatchMetric", _define)
