"""The calibration file: what measuring the judge against a person's labels found, tied to
the judge (its fingerprint: model, prompt, token limit) and to the labels (their digest).

Written atomically (a reader sees the old file or the new one), read back with every field
checked: a file that is not one, a version this code does not know, a key given twice, a
missing or ill-typed field or a figure that is not a finite number in [-1, 1] is a
ConfigError naming the file and the field. A figure that is undefined (a rate over zero
items) is null, never 0.

Every figure follows from the counts beside it (engine/judge/agreement.py): the point
figures and the analytic intervals from ``tp``, ``fp``, ``tn`` and ``fn`` alone, the
bootstrap intervals from them and the bootstrap's ``seed`` and ``resamples`` (a fixed
stream of draws). Reading a file works each of them out again, overall, per field, for each
panel judge and the panel, and for the bias checks (``held`` of ``n``), and refuses a file
whose figure differs by more than float rounding, naming it: a gate rests on these figures,
and a figure raised by hand would pass it. The counts are held together too (the labels'
``same`` and ``different``, the fields adding up to the whole, each check over the labels),
and what the project decides is the project's, not the file's: ``min_labels`` below
:data:`MIN_LABELS`, ``resamples`` other than the project's, and more than :data:`MAX_LABELS`
labels are refused. Given the test root, a ``labels_path`` or a ``case_folders`` folder out
of it is refused before anything there is opened.
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
# the most labels a calibration measures: reading a file redraws every figure's bootstrap
# (2,000 resamples of every label), which a count beyond any person's labelling would stall
MAX_LABELS = 100_000
MAX_PANEL = 20  # the most judges of a panel beside the first (``--panel``), for the same reason
MAX_CALIBRATION_BYTES = 16 * 2**20
# how far a stored figure may be from the one its counts give: float rounding, no more
_REL, _ABS = 1e-9, 1e-12


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


def read_calibration(path: Path, root: Path | None = None) -> Calibration:
    """The calibration stored at ``path``, every figure held to its counts (module
    docstring); a ConfigError naming the file (and the field) where it cannot be read or is
    not one. ``root``: the test root its ``labels_path`` and ``case_folders`` must lie in
    (None: not checked, the file's paths are not opened)."""
    from ..engine.reading.parse import STRICT_JSON

    text = read_regular_text(path, "calibration file", ConfigError, limit=MAX_CALIBRATION_BYTES)
    try:  # NaN, Infinity and a key given twice refused (a reviewer reads the first)
        data = STRICT_JSON.decode(text)
    except RecursionError:
        raise _bad(path, "it nests too deeply to read") from None
    except ValueError as exc:
        raise _bad(path, f"not JSON ({exc})") from None
    version = data.get(KEY) if isinstance(data, dict) else None
    if type(version) is not int or version != VERSION:  # (true and 1.0 equal 1: no version)
        raise _bad(path, f"no {KEY!r}: {VERSION} at its top (found {value_kind(version)})")
    try:
        cal = _calibration(data)
        if root is not None:
            _inside(cal, root)
        _held_together(cal)
        _follows_from_counts(cal)
    except _Wrong as exc:
        raise _bad(path, str(exc)) from None
    return cal


class _Wrong(Exception):
    """A field of the file that is missing or of the wrong kind (its path and why)."""


def _bad(path: Path, why: str) -> ConfigError:
    return ConfigError(
        f"calibration file {str(path)!r} cannot be used: {why}; run `jsonmatch calibrate` again"
    )


def _get(data: dict[str, Any], key: str, where: str, kinds: tuple[type, ...]) -> Any:
    if key not in data:
        raise _Wrong(f"{where}{key} is missing")
    value = data[key]
    if isinstance(value, bool) and bool not in kinds:
        raise _Wrong(f"{where}{key} is {value_kind(value)}")
    if not isinstance(value, kinds):
        raise _Wrong(f"{where}{key} is {value_kind(value)}")
    return value


def _count(data: dict[str, Any], key: str, where: str, most: int | None = MAX_LABELS) -> int:
    """A whole number from 0 (a boolean is none), at most ``most`` (None: no bound)."""
    value: int = _get(data, key, where, (int,))
    if value < 0:
        raise _Wrong(f"{where}{key} is {value}, below 0")
    if most is not None and value > most:
        raise _Wrong(f"{where}{key} is more than {most:,} (the most labels a calibration measures)")
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
    requests = _count(data, "requests", where, None)
    return Consistency(n, held, share, requests, _cost(data, where))


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
        requests = _count(member, "requests", where, None)
        members.append(PanelMember(judge, overall, requests, _cost(member, where)))
    overall = _figures(_mapping(data, "overall", "panel."), "panel.overall.")
    return PanelResult(rule, tuple(members), overall)


def _calibration(data: dict[str, Any]) -> Calibration:
    fields = {
        str(name): _figures(value, f"fields[{_quoted(name)}].")
        if isinstance(value, dict)
        else _raise(f"fields[{_quoted(name)}] is {value_kind(value)}")
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
        min_labels=_min_labels(data),
        position=_consistency(_optional(data, "position"), "position."),
        repeat=_consistency(_optional(data, "repeat"), "repeat."),
        repeat_k=repeat_k,
        verbosity=_consistency(_optional(data, "verbosity"), "verbosity."),
        panel=_panel(_optional(data, "panel")),
        requests=_count(data, "requests", "", None),
        cost=_cost(data, ""),
        seed=_count(data, "seed", "", None),
        resamples=_resamples(data),
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


def _min_labels(data: dict[str, Any]) -> int:
    """The file's ``min_labels``: the project's minimum or more (a file cannot lower it)."""
    value = _count(data, "min_labels", "")
    if value < MIN_LABELS:
        raise _Wrong(f"min_labels is {value}, below the project's minimum of {MIN_LABELS} labels")
    return value


def _resamples(data: dict[str, Any]) -> int:
    """The bootstrap's ``resamples``: the project's (fewer, a chosen seed could move a
    bound; more, reading the file would redraw them all)."""
    from ..engine.judge.agreement import RESAMPLES

    value = _count(data, "resamples", "", None)
    if value != RESAMPLES:
        raise _Wrong(f"resamples is {value}, not the project's {RESAMPLES}")
    return value


def _inside(cal: Calibration, root: Path) -> None:
    """``cal``'s labels file and case folders lie inside ``root`` (symbolic links followed),
    checked before either is opened: reading one out of it to compare its digest would tell
    anyone who wrote the file something of a file they cannot read."""
    top = root.resolve()
    named = [("labels_path", cal.labels_path)]
    named += [(f"case_folders[{i}]", folder) for i, folder in enumerate(cal.case_folders)]
    for key, name in named:
        if "\0" in name:
            raise _Wrong(f"{key} {_quoted(name)} holds a NUL character: no path")
        real = (root / name).resolve()
        if not real.is_relative_to(top):
            raise _Wrong(
                f"{key} {_quoted(name)} resolves to {_quoted(str(real))}, outside the test root "
                f"{top} (a symlink?): refused; the plugin reads only inside the root"
            )


def _quoted(text: str) -> str:
    """A path from the file as a message quotes it: its repr, cut (a file's text is
    never echoed whole)."""
    from ..engine.core.masking import safe_reason

    return safe_reason(repr(text))


def _held_together(cal: Calibration) -> None:
    """The counts agree with one another: each scope of the judge measures every label
    (its ``tp + fn`` the labels' ``same``), the fields add up to the whole, each bias
    check is over the labels, a panel has a rule and members."""
    from ..engine.judge.agreement import RULES

    scopes = [("overall.", cal.overall)]
    if cal.panel is not None:
        scopes += [
            (f"panel.members[{i}].overall.", m.overall) for i, m in enumerate(cal.panel.members)
        ]
        scopes.append(("panel.overall.", cal.panel.overall))
    for where, figures in scopes:
        if figures.n != cal.labels:
            raise _Wrong(f"{where}n is {figures.n}, not labels ({cal.labels})")
        if figures.tp + figures.fn != cal.same:
            raise _Wrong(
                f"{where}tp + fn is {figures.tp + figures.fn}, not same ({cal.same}): the "
                f"labels a person said same of"
            )
    for count in ("tp", "fp", "tn", "fn"):
        total = sum(getattr(f, count) for f in cal.fields.values())
        if cal.fields and total != getattr(cal.overall, count):
            raise _Wrong(
                f"the fields' {count} add up to {total}, not overall.{count} "
                f"({getattr(cal.overall, count)})"
            )
    if not cal.fields and cal.labels:
        raise _Wrong(f"fields is empty, and {cal.labels} labels have a field each")
    for name, figures in cal.fields.items():
        if figures.n == 0:
            raise _Wrong(f"fields[{_quoted(name)}].n is 0: a field is there for its labels")
    for key, check in (("position", cal.position), ("repeat", cal.repeat)):
        if check is not None and check.n != cal.labels:
            raise _Wrong(f"{key}.n is {check.n}, not labels ({cal.labels}): each label is asked")
    if cal.verbosity is not None and cal.verbosity.n > cal.labels:
        raise _Wrong(f"verbosity.n is {cal.verbosity.n}, more than labels ({cal.labels})")
    if (cal.repeat is None) != (cal.repeat_k is None):
        raise _Wrong(
            f"repeat_k is {value_kind(cal.repeat_k)} and repeat is {value_kind(cal.repeat)}: "
            f"both or neither"
        )
    if cal.repeat_k is not None and not 2 <= cal.repeat_k <= 20:
        raise _Wrong(f"repeat_k is {cal.repeat_k}, not a whole number from 2 to 20")
    if cal.panel is not None:
        if cal.panel.rule not in RULES:
            raise _Wrong(
                f"panel.rule is {value_kind(cal.panel.rule)}, not one of {', '.join(RULES)}"
            )
        if not 1 <= len(cal.panel.members) <= MAX_PANEL:
            raise _Wrong(
                f"panel.members holds {len(cal.panel.members)} judges, not 1 to {MAX_PANEL} "
                f"(the judges beside the first)"
            )


def _follows_from_counts(cal: Calibration) -> None:
    """Every figure of ``cal`` is the one its counts give (module docstring), or _Wrong
    naming the first that is not."""
    from ..engine.judge.agreement import Counts, figures, share

    scopes = [("overall.", cal.overall)]
    scopes += [(f"fields[{_quoted(name)}].", f) for name, f in cal.fields.items()]
    if cal.panel is not None:
        scopes += [
            (f"panel.members[{i}].overall.", m.overall) for i, m in enumerate(cal.panel.members)
        ]
        scopes.append(("panel.overall.", cal.panel.overall))
    worked: dict[Counts, dict[str, Any]] = {}  # scopes of the same counts worked out once
    for where, got in scopes:
        counts = Counts(got.tp, got.fp, got.tn, got.fn)
        if counts not in worked:
            worked[counts] = figures(counts, cal.seed, cal.resamples)
        want = worked[counts]
        for name in _FIGURE_NAMES:
            _same_estimate(getattr(got, name), tuple(want[name]), f"{where}{name}")
    for key, check in (
        ("position", cal.position),
        ("repeat", cal.repeat),
        ("verbosity", cal.verbosity),
    ):
        if check is not None:
            want_share = share(check.held, check.n, cal.seed, cal.resamples)
            _same_estimate(check.share, tuple(want_share), f"{key}.share")


_PARTS = tuple(f.name for f in fields(Estimate))


def _same_estimate(got: Estimate, want: tuple[float | None, ...], where: str) -> None:
    have_all = (got.value, got.low, got.high, got.analytic_low, got.analytic_high)
    for part, have, should in zip(_PARTS, have_all, want):
        if not _close(have, should):
            at = where if part == "value" else f"{where}.{part}"
            raise _Wrong(
                f"{at} is {_figure_text(have, should)}, not {_figure_text(should, have)} as "
                f"its counts give"
            )


def _close(a: float | None, b: float | None) -> bool:
    if a is None or b is None:
        return a is b
    return math.isclose(a, b, rel_tol=_REL, abs_tol=_ABS)


def _figure_text(x: float | None, other: float | None) -> str:
    """``x`` as a message shows it beside ``other``: null, or 4 decimals (all of it where
    those would read the same as ``other``'s)."""
    if x is None:
        return "null"
    short = round(x, 4)
    return repr(x) if other is not None and short == round(other, 4) else repr(short)
