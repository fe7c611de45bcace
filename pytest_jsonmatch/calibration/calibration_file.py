"""The calibration file: what measuring the judge against a person's labels found, tied to
the judge (its fingerprint: model, prompt, token limit) and to the labels (their digest).

Written atomically (a reader sees the old file or the new one), read back with every field
checked: a file that is not one, a version this code does not know, a missing or ill-typed
field or a figure that is not a finite number in [-1, 1] is a ConfigError naming the file
and the field. A figure that is undefined (a rate over zero items) is null, never 0.
"""

from __future__ import annotations

import json
import math
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import Any

from ..engine.core.errors import ConfigError, value_kind
from ..engine.reading.user_files import read_regular_text
from ..reporting.run_model.atomic import write_atomic

VERSION = 1
KEY = "jsonmatch_calibration"
MIN_LABELS = 20  # fewer labels than this say nothing a gate may rest on (docs/judge.md)
MAX_CALIBRATION_BYTES = 16 * 2**20


@dataclass(frozen=True)
class Estimate:
    """One figure with its 95% intervals: the bootstrap percentile one over items
    (``low``, ``high``) and the analytic one where it exists (``analytic_low``,
    ``analytic_high``: Wilson's for a proportion, the large-sample one for kappa and AC1).
    None: undefined (no items to say it), never 0."""

    value: float | None
    low: float | None = None
    high: float | None = None
    analytic_low: float | None = None
    analytic_high: float | None = None


UNDEFINED = Estimate(None)


@dataclass(frozen=True)
class Figures:
    """The judge against the person over ``n`` labels. ``tp``: both say same (a true pass);
    ``fp``: the judge says same, the person different (a false accept); ``tn``: both say
    different (a true fail); ``fn``: the judge says different, the person same."""

    n: int
    tp: int
    fp: int
    tn: int
    fn: int
    agreement: Estimate
    kappa: Estimate
    ac1: Estimate
    true_pass_rate: Estimate
    true_fail_rate: Estimate
    false_accept_rate: Estimate
    prevalence_same: Estimate
    constant_baseline: Estimate


@dataclass(frozen=True)
class Consistency:
    """A bias check: of ``n`` items, ``held`` kept their verdict when asked again (swapped,
    repeated or padded); ``share`` is held/n with its intervals; ``requests`` and ``cost``
    (None: not priced) the judge's requests the check made and what they cost."""

    n: int
    held: int
    share: Estimate
    requests: int
    cost: float | None = None


@dataclass(frozen=True)
class JudgeIdentity:
    """Which judge gave the verdicts: its model, its fingerprint
    (:meth:`JudgeSettings.fingerprint`: model, prompt, token limit), its token limit."""

    model: str
    fingerprint: str
    max_tokens: int | None = None


@dataclass(frozen=True)
class PanelMember:
    """One judge of a panel and its own figures against the labels."""

    judge: JudgeIdentity
    overall: Figures
    requests: int
    cost: float | None = None


@dataclass(frozen=True)
class PanelResult:
    """Several judges asked together: each one's figures, and the panel's verdict by
    ``rule`` (``majority``: more than half say same; ``unanimous``: all say same)."""

    rule: str
    members: tuple[PanelMember, ...]
    overall: Figures


@dataclass(frozen=True)
class Calibration:
    """The whole calibration. ``overall`` and ``fields`` (per field name) hold the judge's
    figures; ``position`` (reference and produced swapped), ``repeat`` (asked
    ``repeat_k`` times) and ``verbosity`` (the produced text padded) the bias checks run;
    ``requests`` and ``cost`` are the judge's for all of it."""

    judge: JudgeIdentity
    labels_path: str
    labels_digest: str
    labels: int
    same: int
    different: int
    overall: Figures
    fields: dict[str, Figures] = field(default_factory=dict)
    min_labels: int = MIN_LABELS
    position: Consistency | None = None
    repeat: Consistency | None = None
    repeat_k: int | None = None
    verbosity: Consistency | None = None
    panel: PanelResult | None = None
    requests: int = 0
    cost: float | None = None
    seed: int = 0
    resamples: int = 2000
    # the golden folders whose cases' ``judge_labels`` joined the labels file's items
    # (case_labels.py), as given: the labels' digest covers them, so a stale check reads them
    case_folders: tuple[str, ...] = ()

    def too_small(self) -> str | None:
        """Why this calibration can say nothing a floor may rest on (fewer labels than
        ``min_labels``, or no label of one class), or None."""
        if self.labels < self.min_labels:
            return f"{self.labels} labels, fewer than the minimum of {self.min_labels}"
        if self.same == 0 or self.different == 0:
            missing = "same" if self.same == 0 else "different"
            return f"no label says {missing!r}: agreement beyond chance cannot be measured"
        return None


def calibration_json(cal: Calibration) -> dict[str, Any]:
    """The file's content as plain JSON (the version key first)."""
    return {KEY: VERSION, **asdict(cal)}


def write_calibration(path: Path, cal: Calibration) -> None:
    """Write ``cal`` to ``path`` atomically (the old file or the new, never half)."""
    text = json.dumps(calibration_json(cal), indent=1, ensure_ascii=False, allow_nan=False)
    write_atomic(path, lambda fh: fh.write(text + "\n"))


def read_calibration(path: Path) -> Calibration:
    """The calibration stored at ``path``; a ConfigError naming the file (and the field)
    where it cannot be read or is not one."""
    text = read_regular_text(path, "calibration file", ConfigError, MAX_CALIBRATION_BYTES)
    try:
        data = json.loads(text, parse_constant=_no_constant)
    except RecursionError:
        raise _bad(path, "it nests too deeply to read") from None
    except ValueError as exc:
        raise _bad(path, f"not JSON ({exc})") from None
    if not isinstance(data, dict) or data.get(KEY) != VERSION:
        found = data.get(KEY) if isinstance(data, dict) else None
        raise _bad(path, f"no {KEY!r}: {VERSION} at its top (found {value_kind(found)})")
    try:
        return _calibration(data)
    except _Wrong as exc:
        raise _bad(path, str(exc)) from None


class _Wrong(Exception):
    """A field of the file that is missing or of the wrong kind (its path and why)."""


def _bad(path: Path, why: str) -> ConfigError:
    return ConfigError(
        f"calibration file {str(path)!r} cannot be used: {why}; run `jsonmatch calibrate` again"
    )


def _no_constant(name: str) -> None:
    raise ValueError(f"{name} is not a JSON number")


def _get(data: dict[str, Any], key: str, where: str, kinds: tuple[type, ...]) -> Any:
    if key not in data:
        raise _Wrong(f"{where}{key} is missing")
    value = data[key]
    if isinstance(value, bool) and bool not in kinds:
        raise _Wrong(f"{where}{key} is {value_kind(value)}")
    if not isinstance(value, kinds):
        raise _Wrong(f"{where}{key} is {value_kind(value)}")
    return value


def _count(data: dict[str, Any], key: str, where: str) -> int:
    value: int = _get(data, key, where, (int,))
    if value < 0:
        raise _Wrong(f"{where}{key} is {value}, below 0")
    return value


def _figure(data: dict[str, Any], key: str, where: str) -> float | None:
    value = _get(data, key, where, (int, float, type(None)))
    if value is not None and not (math.isfinite(value) and -1.0 <= value <= 1.0):
        raise _Wrong(f"{where}{key} is {value!r}, not a figure in [-1, 1]")
    return None if value is None else float(value)


def _mapping(data: dict[str, Any], key: str, where: str) -> dict[str, Any]:
    value: dict[str, Any] = _get(data, key, where, (dict,))
    return value


def _estimate(data: dict[str, Any], where: str) -> Estimate:
    keys = ("value", "low", "high", "analytic_low", "analytic_high")
    return Estimate(*(_figure(data, k, where) for k in keys))


# the figures a Figures holds, each an Estimate: its fields after the four counts and n
_FIGURE_NAMES = tuple(
    f.name for f in fields(Figures) if f.name not in ("n", "tp", "fp", "tn", "fn")
)


def _figures(data: dict[str, Any], where: str) -> Figures:
    n, tp, fp, tn, fn = (_count(data, k, where) for k in ("n", "tp", "fp", "tn", "fn"))
    if n != tp + fp + tn + fn:
        raise _Wrong(f"{where}n is {n}, not tp + fp + tn + fn")
    estimates = {k: _estimate(_mapping(data, k, where), f"{where}{k}.") for k in _FIGURE_NAMES}
    return Figures(n, tp, fp, tn, fn, **estimates)


def _optional(data: dict[str, Any], key: str) -> dict[str, Any] | None:
    if data.get(key) is None:
        return None
    return _mapping(data, key, "")


def _consistency(data: dict[str, Any] | None, where: str) -> Consistency | None:
    if data is None:
        return None
    n, held = _count(data, "n", where), _count(data, "held", where)
    if held > n:
        raise _Wrong(f"{where}held is {held}, more than n ({n})")
    share = _estimate(_mapping(data, "share", where), f"{where}share.")
    return Consistency(n, held, share, _count(data, "requests", where), _cost(data, where))


def _identity(data: dict[str, Any], where: str) -> JudgeIdentity:
    tokens = _get(data, "max_tokens", where, (int, type(None)))
    model: str = _get(data, "model", where, (str,))
    return JudgeIdentity(model, _get(data, "fingerprint", where, (str,)), tokens)


def _cost(data: dict[str, Any], where: str) -> float | None:
    value = _get(data, "cost", where, (int, float, type(None)))
    if value is not None and not (math.isfinite(value) and value >= 0):
        raise _Wrong(f"{where}cost is {value!r}, not a cost")
    return None if value is None else float(value)


def _panel(data: dict[str, Any] | None) -> PanelResult | None:
    if data is None:
        return None
    rule: str = _get(data, "rule", "panel.", (str,))
    members = []
    for i, member in enumerate(_get(data, "members", "panel.", (list,))):
        where = f"panel.members[{i}]."
        if not isinstance(member, dict):
            raise _Wrong(f"{where[:-1]} is {value_kind(member)}")
        judge = _identity(_mapping(member, "judge", where), f"{where}judge.")
        overall = _figures(_mapping(member, "overall", where), f"{where}overall.")
        requests = _count(member, "requests", where)
        members.append(PanelMember(judge, overall, requests, _cost(member, where)))
    overall = _figures(_mapping(data, "overall", "panel."), "panel.overall.")
    return PanelResult(rule, tuple(members), overall)


def _calibration(data: dict[str, Any]) -> Calibration:
    fields = {
        str(name): _figures(value, f"fields[{name!r}].")
        if isinstance(value, dict)
        else _raise(f"fields[{name!r}] is {value_kind(value)}")
        for name, value in _mapping(data, "fields", "").items()
    }
    repeat_k = _get(data, "repeat_k", "", (int, type(None)))
    labels, same, different = (_count(data, k, "") for k in ("labels", "same", "different"))
    if labels != same + different:
        raise _Wrong(f"labels is {labels}, not same + different ({same} + {different})")
    return Calibration(
        judge=_identity(_mapping(data, "judge", ""), "judge."),
        labels_path=_get(data, "labels_path", "", (str,)),
        labels_digest=_get(data, "labels_digest", "", (str,)),
        labels=labels,
        same=same,
        different=different,
        overall=_figures(_mapping(data, "overall", ""), "overall."),
        fields=fields,
        min_labels=_count(data, "min_labels", ""),
        position=_consistency(_optional(data, "position"), "position."),
        repeat=_consistency(_optional(data, "repeat"), "repeat."),
        repeat_k=repeat_k,
        verbosity=_consistency(_optional(data, "verbosity"), "verbosity."),
        panel=_panel(_optional(data, "panel")),
        requests=_count(data, "requests", ""),
        cost=_cost(data, ""),
        seed=_get(data, "seed", "", (int,)),
        resamples=_count(data, "resamples", ""),
        case_folders=_folders(data),
    )


def _folders(data: dict[str, Any]) -> tuple[str, ...]:
    """The optional ``case_folders``: a list of texts (none in a file made without them)."""
    folders = data.get("case_folders", [])
    if not isinstance(folders, list) or not all(isinstance(f, str) for f in folders):
        raise _Wrong(f"case_folders is {value_kind(folders)}, not a list of folder names")
    return tuple(folders)


def _raise(why: str) -> Figures:
    raise _Wrong(why)
