"""The gates a run must pass, and their settings: an overall floor, per-field floors, and a
largest drop against a baseline.

Against a baseline, the default rule is statistical: the run fails when the mean drop over
the shared cases exceeds ``max_drop`` and its 95% interval lies wholly below zero; a drop
beyond ``max_drop`` that could be noise is a warning naming how many cases there were and
the smallest drop they could detect. Per field, the same rule holds with Holm's correction
across fields. ``strict`` keeps the point-estimate rule: any drop beyond ``max_drop`` fails.
"""

from __future__ import annotations

import difflib
import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from ..engine.core.errors import ConfigError, shown
from ..engine.core.paths import PathPattern, key_segment, path_tokens
from ..engine.results.field_results import FieldAggregate
from .aggregate import SCORE_EPSILON, Summary
from .baseline import BaselineComparison

GATE_MODES = ("statistical", "strict")


@dataclass(frozen=True)
class Floor:
    """A field floor: every field path the pattern matches must average at least ``score``."""

    pattern: str
    score: float

    def matches(self, field_path: str) -> bool:
        return _pattern(self.pattern).matches(_as_instance_path(field_path))


@dataclass(frozen=True)
class GateSettings:
    fail_under: float | None = None
    floors: tuple[Floor, ...] = ()
    max_drop: float = 0.0
    mode: str = "statistical"
    strict: bool = False  # a floor that matches no field fails the run


@dataclass
class Verdict:
    failures: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)

    @property
    def passed(self) -> bool:
        return not self.failures

    def to_dict(self) -> dict[str, Any]:
        return {"passed": self.passed, "failures": list(self.failures), "warnings": list(self.warnings)}


# -- reading settings --------------------------------------------------------------------------


def parse_score(value: Any, what: str) -> float:
    """A number in [0, 1] from a flag, an ini line or a call, or ConfigError naming ``what``."""
    if isinstance(value, bool):
        raise ConfigError(f"{what} must be a number between 0 and 1, not {shown(value)}")
    try:
        number = float(value)
    except (TypeError, ValueError, OverflowError):
        raise ConfigError(f"{what} must be a number between 0 and 1, not {shown(value)}") from None
    if not math.isfinite(number) or not 0.0 <= number <= 1.0:
        raise ConfigError(f"{what} must be a number between 0 and 1, not {shown(value)}")
    return number


def parse_floors(lines: Iterable[str]) -> tuple[Floor, ...]:
    """``items[].sku=0.9`` lines (path patterns allowed, as in ``ignore``) -> floors."""
    floors = []
    for raw in lines:
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        path, sep, value = line.rpartition("=")
        path = path.strip()
        if not sep or not path:
            raise ConfigError(f"jsonmatch_field_floors: expected 'field.path=score', not {line!r}")
        try:
            _pattern(path)
        except ConfigError as exc:
            raise ConfigError(f"jsonmatch_field_floors: {exc}") from None
        floors.append(Floor(path, parse_score(value.strip(), f"jsonmatch_field_floors {path!r}")))
    return tuple(floors)


def parse_mode(value: Any) -> str:
    mode = str(value or "statistical").strip()
    if mode not in GATE_MODES:
        raise ConfigError(f"jsonmatch_gate must be one of {', '.join(GATE_MODES)}, not {shown(value)}")
    return mode


_PATTERNS: dict[str, PathPattern] = {}


def _pattern(text: str) -> PathPattern:
    pattern = _PATTERNS.get(text)
    if pattern is None:
        pattern = _PATTERNS[text] = PathPattern(text)
    return pattern


def _as_instance_path(field_path: str) -> str:
    """A field path (``items[].sku``) as an instance path a pattern can match (``items[0].sku``)."""
    out = ""
    for kind, value in path_tokens(field_path, allow_globs=True):
        out = key_segment(out, value) if kind == "key" else out + (f"[{value}]" if value else "[0]")
    return out


# -- judging ------------------------------------------------------------------------------------


def judge(summary: Summary, settings: GateSettings,
          baseline: BaselineComparison | None = None) -> Verdict:
    """The run's verdict: why it fails its gates, and what to look at though it passes."""
    verdict = Verdict()
    if summary.overall is None:
        return verdict  # nothing was compared: no verdict
    if settings.fail_under is not None and summary.overall < settings.fail_under - SCORE_EPSILON:
        verdict.failures.append(f"overall score {summary.overall:.4f} is below "
                                f"jsonmatch_fail_under {settings.fail_under:.4f}")
    _floors(summary.fields, settings, verdict)
    if baseline is not None:
        _baseline(baseline, settings, verdict)
    return verdict


def _floors(fields: Mapping[str, FieldAggregate], settings: GateSettings, verdict: Verdict) -> None:
    for floor in settings.floors:
        matched = [path for path in fields if floor.matches(path)]
        if not matched:
            close = difflib.get_close_matches(floor.pattern, list(fields), n=3, cutoff=0.5)
            hint = f"; closest: {', '.join(close)}" if close else ""
            message = f"floor {floor.pattern!r} matched no field of this run{hint}"
            (verdict.failures if settings.strict else verdict.warnings).append(
                message + ("" if settings.strict else " (jsonmatch_strict = true fails the run)"))
            continue
        for path in matched:
            mean = fields[path].mean_score
            if mean < floor.score - SCORE_EPSILON:
                named = "" if floor.pattern == path else f" ({floor.pattern})"
                verdict.failures.append(f"field {path}: mean score {mean:.4f} is below its floor "
                                        f"{floor.score:.4f}{named}")


def _baseline(comparison: BaselineComparison, settings: GateSettings, verdict: Verdict) -> None:
    limit = settings.max_drop
    diff = comparison.difference
    if comparison.shared and -diff.mean > limit + SCORE_EPSILON:
        what = (f"overall score dropped by {-diff.mean:.4f} ({comparison.before:.4f} -> "
                f"{comparison.after:.4f} over {comparison.shared} shared case"
                f"{'' if comparison.shared == 1 else 's'})")
        _drop(what, diff.clearly_below_zero, diff, limit, settings, verdict)
    for delta in comparison.fields:
        d = delta.difference
        if -d.mean > limit + SCORE_EPSILON:
            what = (f"field {delta.path}: mean score dropped by {-d.mean:.4f} ({delta.before:.4f} "
                    f"-> {delta.after:.4f} over {d.n} shared case{'' if d.n == 1 else 's'})")
            _drop(what, delta.significant and d.mean < 0, d, limit, settings, verdict,
                  corrected=True)


def _drop(what: str, clear: bool, diff: Any, limit: float, settings: GateSettings,
          verdict: Verdict, corrected: bool = False) -> None:
    beyond = f", more than jsonmatch_max_drop {limit:.4f}"
    if settings.mode == "strict":
        verdict.failures.append(what + beyond)
    elif clear:
        interval = f"95% interval {diff.low:+.4f} to {diff.high:+.4f}"
        holm = ", Holm-corrected across fields" if corrected else ""
        verdict.failures.append(f"{what}{beyond} ({interval}{holm})")
    else:
        verdict.warnings.append(f"{what}{beyond}, but it may be noise: {_noise(diff)}")


def _noise(diff: Any) -> str:
    if diff.low is None:
        return f"{diff.n} shared case{'' if diff.n == 1 else 's'} cannot tell"
    return (f"the 95% interval {diff.low:+.4f} to {diff.high:+.4f} includes no change, and "
            f"{diff.n} cases can only detect drops of {diff.detectable:.4f} or more")
