"""The gates of the judge's calibration: how far the LLM judge agrees with a person's labels,
as the run's provenance records it (``run.provenance.calibration``, session/judge_calibration.py).

- ``judge_ac1``, ``judge_kappa`` and ``judge_position``: the LOWER bound of the 95% interval
  of Gwet's AC1, of Cohen's kappa and of position consistency must reach the floor;
  ``judge_false_accept``: the UPPER bound of the false-accept rate (the judge says "same"
  where the person said "different") must stay at or under it. A bound, not the point
  estimate: a floor passed by 25 lucky labels would pass on chance.
- A floor with nothing to rest on fails, saying why: no calibration given or found, one too
  small to say anything (fewer labels than its minimum, or no label of a class:
  ``Calibration.too_small``), a figure it does not hold (no position check run), a figure
  undefined (a rate over no item).
- A calibration of another judge than the run's (its fingerprint differs: model, prompt or
  token limit changed) is a warning naming what changed, and every floor of this module
  fails until ``jsonmatch calibrate`` is run again: its figures are another judge's. So is a
  stored calibration whose labels file changed since (its digest): its figures are of other
  labels.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import NamedTuple

from .gates import GateDecision, GateSettings

RECALIBRATE = "re-run `jsonmatch calibrate`"


class _Floor(NamedTuple):
    figure: str  # the summary's key
    words: str  # how a message names the figure
    field: str  # the GateSettings (and GateNames) field
    ceiling: bool  # the upper bound must stay at or under it (else: the lower must reach it)


_FLOORS = (
    _Floor("ac1", "judge AC1", "judge_ac1", False),
    _Floor("kappa", "judge kappa", "judge_kappa", False),
    _Floor("false_accept_rate", "judge false-accept rate", "judge_false_accept", True),
    _Floor("position", "judge position consistency", "judge_position", False),
)


def _mapping(value: object) -> Mapping[str, object]:
    return value if isinstance(value, Mapping) else {}


def judge_changes(provenance: Mapping[str, object]) -> list[str]:
    """What differs between the judge the run's calibration measured and the run's judge
    (``provenance``: a report's ``run.provenance``): its model, its token limit, or else
    its prompt (the fingerprint holds the three). Empty: the same judge, or no judge or no
    calibration recorded to hold them together."""
    calibration = _mapping(provenance.get("calibration"))
    measured = _mapping(calibration.get("judge"))
    now = provenance.get("judge")
    if not measured or not isinstance(now, str) or measured.get("fingerprint") == now:
        return []
    setup = _mapping(provenance.get("judge_setup"))
    said = [
        f"{words} changed: {measured.get(key)!r} and {setup.get(key)!r}"
        for key, words in (("model", "model"), ("max_tokens", "token limit"))
        if key in setup and measured.get(key) != setup.get(key)
    ]
    return said or ["prompt changed"]


def judge_calibration(
    provenance: Mapping[str, object], gates: GateSettings, decision: GateDecision
) -> None:
    """The calibration's gates, and its judge held to the run's, into ``decision``."""
    calibration = _mapping(provenance.get("calibration"))
    file = str(calibration.get("file") or "measured in the run")
    changed = judge_changes(provenance)
    if changed:
        decision.warnings.append(
            f"the judge's calibration ({file}) measured another judge than this run's "
            f"({'; '.join(changed)}): {RECALIBRATE}; the judge_* gates fail until then"
        )
    if calibration.get("stale"):
        decision.warnings.append(
            f"the judge's calibration ({file}) is out of date: {calibration['stale']}: "
            f"{RECALIBRATE}; the judge_* gates fail until then"
        )
    for floor in _FLOORS:
        limit = getattr(gates, floor.field)
        if limit is None:
            continue
        name = f"{getattr(gates.names, floor.field)} {limit:.4f}"
        why = _unheld(calibration, file, changed, floor)
        if why:
            decision.failures.append(f"{name}: {why}: nothing to hold to it")
            continue
        _held(calibration, floor, limit, name, decision)


def _unheld(calibration: Mapping[str, object], file: str, changed: list[str], floor: _Floor) -> str:
    """Why ``floor`` has nothing to rest on in ``calibration`` (empty: it has)."""
    if not calibration:
        return (
            "no calibration of the judge (give jsonmatch_judge labels=PATH to measure it in the "
            "run, or calibration=PATH, written by `jsonmatch calibrate`)"
        )
    if calibration.get("missing"):
        return str(calibration["missing"])
    if calibration.get("too_small"):
        return f"the calibration ({file}) is too small to say anything: {calibration['too_small']}"
    if changed:
        return f"the calibration ({file}) measured another judge ({'; '.join(changed)})"
    if calibration.get("stale"):
        return f"the calibration ({file}) is out of date ({calibration['stale']})"
    figure = _mapping(calibration.get(floor.figure))
    if not figure:
        return f"the calibration ({file}) ran no position check (judge swap=yes)"
    bound = figure.get("high" if floor.ceiling else "low")
    if not isinstance(bound, (int, float)):
        return f"the calibration's ({file}) {floor.words} is undefined"
    return ""


def _held(
    calibration: Mapping[str, object],
    floor: _Floor,
    limit: float,
    name: str,
    decision: GateDecision,
) -> None:
    from ..run_model.aggregate import SCORE_EPSILON

    figure = _mapping(calibration.get(floor.figure))
    low, high, value = (figure.get(k) for k in ("low", "high", "value"))
    assert isinstance(low, (int, float)) and isinstance(high, (int, float))
    point = f"{value:.4f}, " if isinstance(value, (int, float)) else ""
    what = (
        f"{floor.words} {'upper' if floor.ceiling else 'lower'} bound "
        f"{high if floor.ceiling else low:.4f} ({point}95% interval {low:.4f} to {high:.4f}, "
        f"{calibration.get('labels')} labels)"
    )
    if floor.ceiling:
        failed = high > limit + SCORE_EPSILON
        verdict_text = f"{what} is {'above' if failed else 'at most'} {name}"
    else:
        failed = low < limit - SCORE_EPSILON
        verdict_text = f"{what} is {'below' if failed else 'at least'} {name}"
    (decision.failures if failed else decision.checked).append(verdict_text)
