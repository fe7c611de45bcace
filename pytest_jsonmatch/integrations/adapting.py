"""What every adapter does the same way: check the metric, threshold and options once, when
the adapter is made; score one pair with :func:`~pytest_jsonmatch.match_json` (so the score
is match_json's, exactly); and say why, naming the fields that cost points, worst first.

An actual output in which no JSON can be found (the model answered in prose, or not at all)
scores 0 and fails, with the parse error as the reason: in an evaluation that is the model's
failure, not the evaluation's. An expected output that cannot be read is the dataset's
mistake and raises :class:`~pytest_jsonmatch.ParseError`.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, TypeVar, cast

from ..engine.configuring.walk_config import unit_number
from ..engine.core.errors import ConfigError, ParseError, printable, shown
from ..engine.core.values import MISSING
from ..engine.match import match_json
from ..engine.metrics import REGISTRY, metric_named
from ..engine.metrics.base import configure
from ..engine.results.field_results import SCORE_EPSILON, SKIPPED, FieldResult, MatchResult

if TYPE_CHECKING:
    from ..engine.comparing.registry import Registry

T = TypeVar("T")

# How many costly fields a reason lists (the rest are counted), and how long a value may get.
FIELD_LIMIT = 10
VALUE_WIDTH = 60


@dataclass(frozen=True)
class ScoredPair:
    """One scored pair, as every framework needs it: the score, pass or fail, the reason,
    and match_json's result (None when the actual output held no JSON)."""

    score: float
    passed: bool
    reason: str
    result: MatchResult | None

    def costly_fields(self) -> list[dict[str, str | float]]:
        """The fields that cost points, worst first, as plain data (path, status, score)."""
        if self.result is None:
            return []
        return [
            {"path": fr.display_path, "status": fr.status, "score": fr.score}
            for fr in _costly(self.result)
        ]


@dataclass(frozen=True)
class Scoring:
    """A metric, a threshold and match_json's options, checked: made by :meth:`checked`."""

    metric: str
    threshold: float
    options: Mapping[str, object]

    @classmethod
    def checked(cls, metric: object, threshold: object, options: Mapping[str, object]) -> Scoring:
        """The scoring, or ConfigError for an unknown metric, an unknown or malformed
        option, or a threshold outside [0, 1] (what match_json would raise on first use)."""
        options = dict(options)
        registry = cast("Registry", options.get("registry", REGISTRY))  # (the user's, if given)
        chosen = metric_named(metric, registry)
        configure(chosen, {k: v for k, v in options.items() if k != "registry"}, registry)
        if isinstance(threshold, bool):
            raise ConfigError(f"threshold must be a number in [0, 1], not {shown(threshold)}")
        return cls(chosen.name, unit_number(threshold, "threshold"), options)

    def score(self, actual: object, expected: object) -> ScoredPair:
        """Score ``actual`` against ``expected`` with match_json."""
        try:
            result = match_json(actual, expected, self.metric, **self.options)
        except ParseError as exc:
            self._raise_if_expected_is_unreadable(expected, exc)
            return ScoredPair(
                0.0,
                False,
                printable(
                    f"{self.metric} 0.0000: failed, the actual "
                    f"output holds no JSON to score ({exc})"
                ),
                None,
            )
        passed = result.passed(self.threshold)
        return ScoredPair(result.score, passed, explain(result, self.threshold, passed), result)

    def _raise_if_expected_is_unreadable(self, expected: object, error: ParseError) -> None:
        # The expected output read against itself: it parses (then the actual is at fault)
        # or it raises, and then the original error, which names the expected, is raised.
        try:
            match_json(expected, expected, self.metric, **self.options)
        except ParseError:
            raise error from None


def explain(result: MatchResult, threshold: float, passed: bool) -> str:
    """The reason: the headline (metric, score, threshold, P/R/F1), then the fields that
    cost points, worst first, then the fields below their ``min_score`` and those a batch
    comparator could not score."""
    verdict = "passed" if passed else "failed"
    sign = ">=" if result.score >= threshold - SCORE_EPSILON else "<"
    lines = [
        f"{result.metric} {result.score:.4f} {sign} threshold {threshold:.4f}: {verdict} "
        f"(precision {result.precision:.4f}, recall {result.recall:.4f}, "
        f"F1 {result.f1:.4f})"
    ]
    costly = _costly(result)
    if costly:
        lines.append(f"fields that cost points, worst first ({len(costly)}):")
        lines.extend(_field_line(fr) for fr in costly[:FIELD_LIMIT])
        if len(costly) > FIELD_LIMIT:
            lines.append(f"  ... {len(costly) - FIELD_LIMIT} more fields")
    else:
        lines.append("every field scored 1")
    if result.floor_failures:
        lines.append("fields below their min_score:")
        lines.extend(
            f"  {f.path or '$'}: score {f.score:.2f} < min_score {f.min_score:g}"
            for f in result.floor_failures
        )
    if result.batch_errors:
        lines.append(f"{result.batch_errors} field(s) could not be scored (batch_error)")
    return printable("\n".join(lines))


def _costly(result: MatchResult) -> list[FieldResult]:
    """What format_failure lists: every field not skipped that scored below 1, worst first
    (ties in document order)."""
    ranked = sorted(
        (fr.score, i)
        for i, fr in enumerate(result.fields)
        if fr.status != SKIPPED and fr.score < 1.0
    )
    return [result.fields[i] for _, i in ranked]


def _field_line(fr: FieldResult) -> str:
    line = (
        f"  {fr.display_path}  {fr.status}  score {fr.score:.2f}  "
        f"expected {_value(fr.expected)}  actual {_value(fr.actual)}"
    )
    if fr.actual_path and fr.actual_path != fr.path:
        line += f" (at {fr.actual_path})"
    return line + (f"  ({fr.reason})" if fr.reason else "")


def _value(value: object) -> str:
    """A value as compact JSON, cut to VALUE_WIDTH characters (``<missing>`` when absent)."""
    if value is MISSING:
        return "<missing>"
    try:
        text = json.dumps(value, ensure_ascii=False, separators=(", ", ": "), default=repr)
    except (TypeError, ValueError, RecursionError):
        text = shown(value, limit=VALUE_WIDTH)
    return text if len(text) <= VALUE_WIDTH else text[: VALUE_WIDTH - 3] + "..."


def missing_framework(module: str, package: str, extra: str, error: ImportError) -> ImportError:
    """The ImportError an adapter raises when its framework cannot be imported: it names
    the extra that installs it."""
    exc = ImportError(
        f"{module} needs {package}, which could not be imported ({error}); "
        f'install it with: pip install "pytest-jsonmatch[{extra}]"',
        name=error.name,
    )
    exc.__cause__ = error
    return exc


def made_on_first_use(module: str, name: str, define: Callable[[], T]) -> Callable[[str], T]:
    """A module's ``__getattr__`` (PEP 562) that makes ``name`` with ``define()`` the first
    time it is asked for and keeps it in the module: an adapter's class needs its framework,
    imported then, not when the module is."""

    def getattr_(attribute: str) -> T:
        if attribute != name:
            raise AttributeError(f"module {module!r} has no attribute {attribute!r}")
        made = define()
        setattr(sys.modules[module], name, made)
        return made

    return getattr_
