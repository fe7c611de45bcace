"""assert_json_match and the failure message it raises (skeleton: the pytest-layer helper
fills in the full message format)."""

from __future__ import annotations

from typing import Any

from .engine.metrics import match_json
from .engine.results import MatchResult
from . import recording


def assert_json_match(actual: Any, expected: Any, metric: str | None = None,
                      threshold: float | None = None, **options: Any) -> MatchResult:
    """Score ``actual`` against ``expected`` and return the MatchResult; raise AssertionError
    when the score is below ``threshold`` or a field is below its ``min_score``.

    ``metric``, ``threshold`` and options default to the session's settings (ini
    ``jsonmatch_metric``, ``jsonmatch_threshold``, ``jsonmatch_options``) when pytest runs
    the plugin, else to ``field_f1`` and 1.0. Every call is recorded for the summary."""
    defaults = recording.defaults()
    metric = metric or defaults.metric
    threshold = defaults.threshold if threshold is None else threshold
    merged = {**defaults.options, **options}
    result = match_json(actual, expected, metric=metric, **merged)
    passed = result.passed(threshold)
    recording.record(result, threshold, passed)
    if not passed:
        raise AssertionError(f"{metric}: score {result.score:.4f} < threshold {threshold}")
    return result
