"""The gates a run must pass, and their settings: an overall floor, per-field floors (each
held in its group's table), a largest drop against a baseline, and no case that got clearly
worse.

Against a baseline there are two rules, side by side. **Per case**: a shared case whose
score dropped by more than ``max_case_drop`` (default: ``max_drop``) fails the run whatever
its threshold, unless at most ``allow_regressions`` cases did. **The mean**:
the default rule is statistical: the run fails when the mean drop over
the shared cases exceeds ``max_drop`` and its 95% interval lies wholly below zero; a drop
beyond ``max_drop`` that could be noise is a warning naming how many cases there were and
the smallest drop they could detect. Per field, the same rule holds with Holm's correction
across fields. ``strict`` keeps the point-estimate rule: any drop beyond ``max_drop`` fails.
"""

from __future__ import annotations

import functools
import math
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING

from ...engine.core.errors import ConfigError, shown
from ...engine.core.numbers import whole_number
from ...engine.core.paths import PathPattern, key_segment, nearest_paths, path_tokens
from ...engine.core.slotted import HashedSlotted, Slotted
from .gate_specs import GATE_MODES, GATES, GateSpec

if TYPE_CHECKING:  # the settings load with the session; what judges them, once it judges
    from ...engine.results.field_results import FieldAggregate
    from ..run_model.aggregate import Summary
    from ..run_model.report_types import GatesDict
    from .baseline import BaselineComparison, FieldDelta
    from .stats import PairedDifference


# The largest share of a run's counted cases that may go unscored (a reply with no JSON, a
# target or a judge that failed) for its gates to be judged as passed: past it the scores a
# gate passed would be those of the few cases that could be scored, or of zeros alike on both
# sides of a baseline. Above it every gate the run would have passed is a failure.
MAX_UNSCORED = 0.25


class Floor(HashedSlotted):
    """A field floor: every field path the pattern matches, in every table (or in the one
    table ``group`` names: a metric, a file or a folder, as the run groups its fields), must
    average at least ``score``."""

    __slots__ = (
        "pattern",
        "score",
        "group",
    )

    pattern: str
    score: float
    group: str | None

    def __init__(
        self,
        pattern: str,
        score: float,
        group: str | None = None,
    ) -> None:
        self.pattern = pattern
        self.score = score
        self.group = group

    def matches(self, field_path: str) -> bool:
        return _pattern(self.pattern).matches(_as_instance_path(field_path))

    @property
    def text(self) -> str:
        """The floor as it was written (without its score)."""
        return self.pattern if self.group is None else f"{self.group}:{self.pattern}"


class GateNames(HashedSlotted):
    """What each gate setting is called where the decision is read (an ini setting of the
    plugin, a flag of the command line): a message names the setting its reader can change.
    The caller that reads the settings gives them; this module knows no spelling."""

    __slots__ = (
        "fail_under",
        "floors",
        "max_drop",
        "max_case_drop",
        "allow_regressions",
        "strict",
        "min_valid",
        "pass_k",
        "min_pass_hat_k",
        "min_pass_at_k",
        "max_pass_drop",
        "judge_ac1",
        "judge_kappa",
        "judge_false_accept",
        "judge_position",
        "strict_mode",
    )

    fail_under: str
    floors: str
    max_drop: str
    max_case_drop: str
    allow_regressions: str
    strict: str  # the setting written as it turns the strict rule on (``--strict``)
    min_valid: str
    pass_k: str
    min_pass_hat_k: str
    min_pass_at_k: str
    max_pass_drop: str
    judge_ac1: str
    judge_kappa: str
    judge_false_accept: str
    judge_position: str
    # the mean's strict rule as its reader turns it on (``'strict' in jsonmatch_gates``,
    # ``--gate strict``): a drop the statistical rule passes names it
    strict_mode: str

    def __init__(
        self,
        fail_under: str,
        floors: str,
        max_drop: str,
        max_case_drop: str,
        allow_regressions: str,
        strict: str,
        min_valid: str = "min_valid",
        pass_k: str = "pass_k",
        min_pass_hat_k: str = "min_pass_hat_k",
        min_pass_at_k: str = "min_pass_at_k",
        max_pass_drop: str = "max_pass_drop",
        judge_ac1: str = "judge_ac1",
        judge_kappa: str = "judge_kappa",
        judge_false_accept: str = "judge_false_accept",
        judge_position: str = "judge_position",
        strict_mode: str = "mode strict",
    ) -> None:
        self.fail_under = fail_under
        self.floors = floors
        self.max_drop = max_drop
        self.max_case_drop = max_case_drop
        self.allow_regressions = allow_regressions
        self.strict = strict
        self.min_valid = min_valid
        self.pass_k = pass_k
        self.min_pass_hat_k = min_pass_hat_k
        self.min_pass_at_k = min_pass_at_k
        self.max_pass_drop = max_pass_drop
        self.judge_ac1 = judge_ac1
        self.judge_kappa = judge_kappa
        self.judge_false_accept = judge_false_accept
        self.judge_position = judge_position
        self.strict_mode = strict_mode


_NAMED = tuple(spec for spec in GATES if spec.field in GateNames._fields)


_MODE = next(spec for spec in GATES if spec.field == "mode")


def gate_names(name: Callable[[GateSpec], str], strict_mode: str = "") -> GateNames:
    """The names of the gates (gate_specs.py), each as ``name`` spells it; the strict rule
    of the mean as ``strict_mode`` (empty: the mode's name, then ``strict``)."""
    return GateNames(
        **{spec.field: name(spec) for spec in _NAMED},
        strict_mode=strict_mode or f"{name(_MODE)} strict",
    )


# The names of a caller that gives none (a library user): the rules' own names, no spelling of
# a setting; the plugin and the command line each give theirs.
RULE_NAMES = gate_names(lambda spec: spec.rule or spec.field)


class GateSettings(HashedSlotted):
    """The gates a run is held to, as its reader (the plugin's settings, the command
    line's flags) gave them; None or 0 where a gate is off."""

    __slots__ = (
        "fail_under",
        "floors",
        "max_drop",
        "mode",
        "strict",
        "max_case_drop",
        "allow_regressions",
        "min_valid",
        "pass_k",
        "min_pass_hat_k",
        "min_pass_at_k",
        "max_pass_drop",
        "judge_ac1",
        "judge_kappa",
        "judge_false_accept",
        "judge_position",
        "names",
        "part_of_suite",
    )

    fail_under: float | None
    floors: tuple[Floor, ...]
    max_drop: float
    mode: str
    strict: bool  # a floor that matches no field fails the run
    # against a baseline: a shared case whose score dropped by more than this fails the run
    # (None: max_drop), unless at most ``allow_regressions`` cases did
    max_case_drop: float | None
    allow_regressions: int
    # per metric: the least share of answers valid against their schema (None: no floor)
    min_valid: float | None
    # repeated cases (reliability.py): k (None or 0: the fewest runs of a repeated case), the
    # floors of pass^k and pass@k over the run, their largest drop against a baseline
    pass_k: int | None
    min_pass_hat_k: float | None
    min_pass_at_k: float | None
    max_pass_drop: float | None
    # the judge's calibration (calibration_gates.py): floors on the lower bound of AC1, of
    # kappa and of position consistency, a ceiling on the false-accept rate's upper bound
    judge_ac1: float | None
    judge_kappa: float | None
    judge_false_accept: float | None
    judge_position: float | None
    names: GateNames
    # why the run holds part of the suite (``-k``, a file named): a floor that matches none of
    # its fields is skipped and named, never failed (empty: the run is the whole suite)
    part_of_suite: str

    def __init__(
        self,
        *,
        fail_under: float | None = None,
        floors: tuple[Floor, ...] = (),
        max_drop: float = 0.0,
        mode: str = "statistical",
        strict: bool = False,
        max_case_drop: float | None = None,
        allow_regressions: int = 0,
        min_valid: float | None = None,
        pass_k: int | None = None,
        min_pass_hat_k: float | None = None,
        min_pass_at_k: float | None = None,
        max_pass_drop: float | None = None,
        judge_ac1: float | None = None,
        judge_kappa: float | None = None,
        judge_false_accept: float | None = None,
        judge_position: float | None = None,
        names: GateNames = RULE_NAMES,
        part_of_suite: str = "",
    ) -> None:
        self.fail_under = fail_under
        self.floors = floors
        self.max_drop = max_drop
        self.mode = mode
        self.strict = strict
        self.max_case_drop = max_case_drop
        self.allow_regressions = allow_regressions
        self.min_valid = min_valid
        self.pass_k = pass_k
        self.min_pass_hat_k = min_pass_hat_k
        self.min_pass_at_k = min_pass_at_k
        self.max_pass_drop = max_pass_drop
        self.judge_ac1 = judge_ac1
        self.judge_kappa = judge_kappa
        self.judge_false_accept = judge_false_accept
        self.judge_position = judge_position
        self.names = names
        self.part_of_suite = part_of_suite

    @property
    def holds_cases(self) -> bool:
        """Whether a gate given holds the run's counted cases, without a baseline: the overall
        floor, the valid share, field floors, the floors of pass^k and pass@k."""
        return bool(self.floors) or any(
            floor is not None
            for floor in (self.fail_under, self.min_valid, self.min_pass_hat_k, self.min_pass_at_k)
        )

    @property
    def holds_judge(self) -> bool:
        """Whether a gate given holds the judge's calibration (calibration_gates.py)."""
        return any(
            floor is not None
            for floor in (
                self.judge_ac1,
                self.judge_kappa,
                self.judge_false_accept,
                self.judge_position,
            )
        )

    @property
    def holds_run(self) -> bool:
        """Whether a gate given holds a run without a baseline, whatever cases it ran: one
        holding its counted cases, or the judge's calibration."""
        return self.holds_cases or self.holds_judge

    @property
    def case_drop_limit(self) -> float:
        return self.max_drop if self.max_case_drop is None else self.max_case_drop


def with_fields(settings: GateSettings, values: Mapping[str, object]) -> GateSettings:
    """``settings`` with each field ``values`` names (a gate spec's ``field``) set to its
    value, read by that spec's kind (fields named at run time, by gate_specs.py)."""
    return settings.replace(**values)


class GateDecision(Slotted):
    """What the gates said of a run: the failures that fail it, the warnings, the gates
    passed, and what the reports must show for every figure quoted."""

    __slots__ = (
        "failures",
        "warnings",
        "checked",
        "blocked",
        "quoted_cases",
        "quoted_fields",
        "not_judged",
    )

    failures: list[str]
    warnings: list[str]
    checked: list[str]  # the gates passed, in words
    # the cases a per-case gate failed, with that gate's setting: a report marks them
    blocked: list[tuple[str, str]]
    # the shared cases and the (group, field) rows a failure or a warning quotes: a report's
    # tables always show them, so that every number quoted is in a row
    quoted_cases: list[str]
    quoted_fields: list[tuple[str, str]]
    not_judged: str  # why no gate was judged (an update run): nothing failed, nothing passed

    def __init__(
        self,
        failures: list[str] | None = None,
        warnings: list[str] | None = None,
        checked: list[str] | None = None,
        blocked: list[tuple[str, str]] | None = None,
        quoted_cases: list[str] | None = None,
        quoted_fields: list[tuple[str, str]] | None = None,
        not_judged: str = "",
    ) -> None:
        self.failures = [] if failures is None else failures
        self.warnings = [] if warnings is None else warnings
        self.checked = [] if checked is None else checked
        self.blocked = [] if blocked is None else blocked
        self.quoted_cases = [] if quoted_cases is None else quoted_cases
        self.quoted_fields = [] if quoted_fields is None else quoted_fields
        self.not_judged = not_judged

    @property
    def passed(self) -> bool:
        return not self.failures

    def to_dict(self) -> GatesDict:
        out: GatesDict = {
            "passed": self.passed,
            "failures": list(self.failures),
            "warnings": list(self.warnings),
            "checked": list(self.checked),
        }
        if self.blocked:
            out["blocked"] = [{"case_id": case_id, "gate": gate} for case_id, gate in self.blocked]
        if self.not_judged:
            out["not_judged"] = self.not_judged
        if self.quoted_cases or self.quoted_fields:
            out["quoted"] = {
                "cases": list(self.quoted_cases),
                "fields": [{"group": g, "path": p} for g, p in self.quoted_fields],
            }
        return out


# -- reading settings --------------------------------------------------------------------------


def _max_drop(texts: Sequence[str], names: GateNames) -> tuple[float, str]:
    """``max_drop`` and its mode from its texts (``D [statistical|strict]``), a later text's
    words overriding an earlier one's."""
    drop, mode = 0.0, "statistical"
    for text in texts:
        for word in text.replace(",", " ").split():
            if word in GATE_MODES:
                mode = word
            else:
                drop = parse_score(word, names.max_drop)
    return drop, mode


def _max_case_drop(parts: Sequence[tuple[str, str]], names: GateNames) -> tuple[float | None, int]:
    """``max_case_drop`` (None: not given) and its ``allow=N`` from its (text, name) parts, a
    later part's words overriding an earlier one's; ConfigError naming the part."""
    case_drop: float | None = None
    allow = 0
    for text, what in parts:
        words = text.replace(",", " ").split()
        for word in words:
            if word.startswith("allow="):
                allow = whole_number(word[len("allow=") :], f"{what}: allow", 0, 10**9, "of cases ")
        drops = [w for w in words if not w.startswith("allow=")]
        if len(drops) > 1:
            raise ConfigError(f"{what} is a drop and optionally 'allow=N', not {text!r}")
        if drops:
            case_drop = parse_score(drops[0], names.max_case_drop)
    return case_drop, allow


def gate_settings(
    *,
    floor_lines: Sequence[str],
    prefix: str,
    gate_prefix: str | None = None,
    texts: Mapping[str, str] | None = None,
    fail_under: str = "",
    min_valid: str = "",
    drop_parts: Sequence[tuple[str, str]] = (),
    case_parts: Sequence[tuple[str, str]] = (),
) -> GateSettings:
    """The gates from their settings' text: the lines of ``field_floors`` (a line ``strict``
    among them) and ``texts``, each recorded gate's text by its key (gate_specs.py; as
    run.settings holds it: ``max_drop`` ``D [statistical|strict]``, ``max_case_drop`` ``D
    [allow=N]``). ``fail_under``, ``min_valid`` and the (text, name) parts of ``max_drop`` and
    ``max_case_drop`` may be given one by one instead, a later part's words overriding an
    earlier one's (a flag's over the ini's). Every message names the ini setting (``prefix``
    + name; ``gate_prefix`` + name for the keys of one setting, jsonmatch_gates), the name the
    verdict and the docs use. ConfigError naming it."""
    gp = prefix if gate_prefix is None else gate_prefix
    # (the mode is a word of the gates' setting: ``max_drop=0.02 strict``)
    strict_mode = f"'strict' in {gate_prefix.strip()}" if gate_prefix is not None else ""
    names = gate_names(lambda spec: spec.setting_name(prefix, gp), strict_mode)
    given = {
        **(texts or {}),
        **{k: v for k, v in (("fail_under", fail_under), ("min_valid", min_valid)) if v},
    }
    strict = any(line.strip() == "strict" for line in floor_lines)
    floors = parse_floors([line for line in floor_lines if line.strip() != "strict"], names.floors)
    drop, mode = _max_drop([given.get("max_drop", ""), *(text for text, _ in drop_parts)], names)
    case_drop, allow = _max_case_drop(
        [(given.get("max_case_drop", ""), names.max_case_drop), *case_parts], names
    )
    settings = GateSettings(
        floors=floors,
        max_drop=drop,
        mode=mode,
        strict=strict,
        max_case_drop=case_drop,
        allow_regressions=allow,
        names=names,
    )
    # every other recorded gate is one value, read by its kind (gate_specs.py)
    values = {
        spec.field: _value(spec, given.get(spec.key, ""), spec.setting_name(prefix, gp))
        for spec in _PLAIN
    }
    return with_fields(settings, values)


_PLAIN = tuple(s for s in GATES if s.recorded and s.key not in {t.within for t in GATES})


def _value(spec: GateSpec, text: str, what: str) -> float | int | None:
    """One plain gate's value from its text (empty: its default)."""
    if not text.strip():
        default = spec.default
        return default if isinstance(default, (int, float)) and default is not True else None
    if spec.value == "cases":
        return whole_number(text, what, 0, 10**9, "of cases ")
    return parse_score(text, what)


def parse_score(value: str | float | None, what: str) -> float:
    """A number in [0, 1] from a flag, an ini line or a call, or ConfigError naming ``what``."""
    if value is None or isinstance(value, bool):
        raise ConfigError(f"{what} must be a number between 0 and 1, not {shown(value)}")
    try:
        number = float(value)
    except (TypeError, ValueError, OverflowError):
        raise ConfigError(f"{what} must be a number between 0 and 1, not {shown(value)}") from None
    if not math.isfinite(number) or not 0.0 <= number <= 1.0:
        raise ConfigError(f"{what} must be a number between 0 and 1, not {shown(value)}")
    return number


def parse_floors(lines: Iterable[str], what: str = RULE_NAMES.floors) -> tuple[Floor, ...]:
    """``items[].sku=0.9`` lines (path patterns allowed, as in ``ignore``) -> floors; a line
    ``GROUP:PATTERN=SCORE`` holds in the table of one group only (``field_f1:total=0.9`` when
    the run groups its fields by metric). A key holding ``:`` is written in brackets
    (``["a:b"]=0.9``): text before the first ``:`` is a group only when it holds no bracket
    or quote. ``what`` names the setting in errors."""
    floors = []
    for raw in lines:
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        path, sep, value = line.rpartition("=")
        path = path.strip()
        if not sep or not path:
            raise ConfigError(
                f"{what}: expected 'field.path=score' or 'group:field.path=score', not {line!r}"
            )
        group: str | None
        group, colon, rest = path.partition(":")
        if colon and not any(c in group for c in "[]\"'"):
            group, path = group.strip(), rest.strip()
            if not group or not path:
                raise ConfigError(f"{what}: expected 'group:field.path=score', not {line!r}")
        else:
            group = None
        try:
            _pattern(path)
        except ConfigError as exc:
            raise ConfigError(f"{what}: {exc}") from None
        floors.append(Floor(path, parse_score(value.strip(), f"{what} {path!r}"), group))
    return tuple(floors)


def parse_mode(value: object, what: str = "gate mode") -> str:
    """A gate mode (empty: ``statistical``), or ConfigError naming ``what``."""
    mode = str(value or "statistical").strip()
    if mode not in GATE_MODES:
        raise ConfigError(f"{what} must be one of {', '.join(GATE_MODES)}, not {shown(value)}")
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


def decision_of(
    summary: Summary,
    settings: GateSettings,
    baseline: BaselineComparison | None = None,
    label: str = "baseline",
    unscored: bool = True,
    baseline_path: str = "",
) -> GateDecision:
    """The run's gate decision: why it fails its gates, what to look at though it passes, and
    which gates it passed. Every number a message quotes is one a table of the report shows:
    the overall score, a field's row in its group's table, a shared case's two scores.
    ``label`` names what the run is held against in the words of a gate passed. A run whose
    cases went unscored beyond ``MAX_UNSCORED``, or that holds a comparison the judge left
    undecided, passes no gate (``unscored``: judged here; False: the caller judges it, once
    per target). A run that counted no case fails each gate it was given, that had nothing
    to hold (:func:`nothing_counted`; ``baseline_path``: the baseline given, which the caller
    compared nothing against)."""
    from ..run_model.aggregate import SCORE_EPSILON
    from .undecided_verdicts import undecided_failure

    decision = GateDecision()
    if summary.overall is None:
        nothing_counted(summary, settings, decision, baseline_path)
        return decision
    names = settings.names
    if settings.fail_under is not None:
        if summary.overall < settings.fail_under - SCORE_EPSILON:
            decision.failures.append(
                f"overall score {summary.overall:.4f} is below "
                f"{names.fail_under} {settings.fail_under:.4f}"
            )
        else:
            decision.checked.append(
                f"overall score {summary.overall:.4f} is at least "
                f"{names.fail_under} {settings.fail_under:.4f}"
            )
    _valid_shares(summary, settings, decision)
    _floors(summary, settings, decision)
    if baseline is not None:
        _baseline(baseline, settings, decision, label, summary.groups)
        _regressions(baseline, settings, decision)
    failure = unscored_failure(summary.errors, summary.count) if unscored else ""
    if failure:
        decision.checked.clear()
        decision.failures.insert(0, failure)
    undecided = undecided_failure(summary.undecided, summary.undecided_why) if unscored else ""
    if undecided:  # whatever share of the run it is: a judge's silence is no verdict
        decision.checked.clear()
        decision.failures.insert(0, undecided)
    return decision


def nothing_counted(
    summary: Summary, settings: GateSettings, decision: GateDecision, baseline_path: str = ""
) -> None:
    """The gates given a run that counted no case, each with nothing to hold: every case it
    compared quarantined or marked xfail, or no case compared at all. Each is a failure that
    says why and what would make a case count, as a pass^k floor with nothing to hold is
    (reliability_gates.py); in a run of part of the suite (``part_of_suite``) they are not
    held, and named in one warning, as field floors that match none of its fields are. The
    gates of repeated cases are judged by reliability_gates.py, as in any run."""
    given = _given_gates(settings, baseline_path)
    if not given:
        return
    quarantined = sum(1 for case in summary.cases.values() if case.quarantine is not None)
    xfailed, xpassed = summary.xfailed, summary.xpassed
    if not settings.part_of_suite:
        why = uncounted_why(quarantined, xfailed, xpassed)
        decision.failures += [f"{gate}: {why}: nothing to hold to it" for gate in given]
        return
    left_out = [f"{quarantined} quarantined"] if quarantined else []
    left_out += [f"{xfailed} xfailed", f"{xpassed} xpassed"] if xfailed or xpassed else []
    one = len(given) == 1
    decision.warnings.append(
        f"{len(given)} gate{'' if one else 's'} not held, as this run is part of the suite "
        f"({settings.part_of_suite}) and counted no case"
        + (f" ({', '.join(left_out)})" if left_out else "")
        + f": {', '.join(given)}"
    )


def _given_gates(settings: GateSettings, baseline_path: str) -> list[str]:
    """The gates that hold a run's counted cases, each named with its value as a message
    names it: the overall floor, the valid share, the field floors, the baseline's drops
    (``baseline_path``: the baseline given; empty: none)."""
    names = settings.names
    given = []
    if settings.fail_under is not None:
        given.append(f"{names.fail_under} {settings.fail_under:.4f}")
    if settings.min_valid is not None:
        given.append(f"{names.min_valid} {settings.min_valid:.4f}")
    if settings.floors:
        given.append(f"{names.floors} {', '.join(repr(f.text) for f in settings.floors)}")
    if baseline_path:
        given.append(
            f"{names.max_drop} {settings.max_drop:.4f} against the baseline {baseline_path}"
        )
    return given


def uncounted_why(quarantined: int, xfailed: int, xpassed: int) -> str:
    """Why a run counted no case, and what would make one count."""
    if not xfailed and not xpassed:
        if not quarantined:
            return (
                "this run compared no case (none was collected: are the golden cases where "
                "the run looks?)"
            )
        return (
            f"every case of this run is quarantined ({quarantined} "
            f"case{'' if quarantined == 1 else 's'}; a gate holds a case again once its "
            f"quarantine ends)"
        )
    marked = f"{xfailed} xfailed, {xpassed} xpassed"
    if not quarantined:
        return f"every case of this run is marked xfail ({marked}; a gate holds a case without the mark)"
    return (
        f"no case of this run was counted ({quarantined} quarantined, {marked}; a gate holds a "
        f"case that is neither quarantined nor marked xfail)"
    )


def unscored_failure(errors: int, count: int, whose: str = "") -> str:
    """Why no gate passes a run (or a target: ``whose``) whose counted cases went unscored
    beyond ``MAX_UNSCORED`` (empty: they did not)."""
    if not count or errors <= MAX_UNSCORED * count + 1e-9:
        return ""
    return (
        f"{whose}{errors} of {count} case{'' if count == 1 else 's'} could not be scored, "
        f"more than the {MAX_UNSCORED:.0%} a passing gate allows: no gate is judged as passed "
        f"on what was not scored"
    )


def _valid_shares(summary: Summary, settings: GateSettings, decision: GateDecision) -> None:
    """Per metric, the share of answers valid against their schema against ``min_valid``."""
    from ..run_model.aggregate import SCORE_EPSILON

    floor, name = settings.min_valid, settings.names.min_valid
    if floor is None:
        return
    tallies = {metric: tally for metric, tally in summary.metrics.items() if tally.checked}
    if not tallies and settings.part_of_suite:  # (the part may hold none of them)
        decision.warnings.append(
            f"1 gate not held, as this run is part of the suite ({settings.part_of_suite}) "
            f"and checked no answer against a schema: {name} {floor:.4f}"
        )
    elif not tallies:
        decision.warnings.append(
            f"{name} {floor:.4f}: no answer was checked against a schema "
            f"(give the comparisons a schema)"
        )
    for metric, tally in tallies.items():
        share = tally.valid / tally.checked
        what = (
            f"{metric}: valid share {share:.4f} ({tally.valid} of {tally.checked} answers "
            f"valid against their schema)"
        )
        if share < floor - SCORE_EPSILON:
            decision.failures.append(f"{what} is below {name} {floor:.4f}")
        else:
            decision.checked.append(f"{what} is at least {name} {floor:.4f}")


def _scored(aggregate: FieldAggregate) -> bool:
    """Whether a field was ever scored (a field ignored everywhere has no mean to hold)."""
    return aggregate.scored > 0


def _floors(summary: Summary, settings: GateSettings, decision: GateDecision) -> None:
    from ..run_model.aggregate import SCORE_EPSILON

    names, groups = settings.names, summary.groups
    held = 0
    skipped: list[str] = []
    for floor in settings.floors:
        tables = {
            key: fields
            for key, fields in groups.items()
            if floor.group is None or key == floor.group
        }
        rows = [
            (key, path, aggregate)
            for key, fields in tables.items()
            for path, aggregate in fields.items()
            if _scored(aggregate) and floor.matches(path)
        ]
        if not rows and settings.part_of_suite:
            skipped.append(repr(floor.text))
            continue
        if not rows:
            _unmatched(floor, summary, tables, settings, decision)
            continue
        for key, path, aggregate in rows:
            mean = aggregate.mean_score
            if mean < floor.score - SCORE_EPSILON:
                named = "" if floor.pattern == path else f", floor {floor.text!r}"
                decision.failures.append(
                    f"field {path} ({key}): mean score {mean:.4f} is below "
                    f"its floor {floor.score:.4f}{named}"
                )
            else:
                held += 1
    if skipped:
        one = len(skipped) == 1
        decision.warnings.append(
            f"{names.floors}: {len(skipped)} floor{'' if one else 's'} not held, as this run "
            f"is part of the suite ({settings.part_of_suite}) and ran no field "
            f"{'it matches' if one else 'they match'}: {', '.join(skipped)}"
        )
    if settings.floors and held:
        decision.checked.append(
            f"{names.floors}: {held} field row{'' if held == 1 else 's'} "
            f"at or above {'its' if held == 1 else 'their'} floor"
        )


def _unmatched(
    floor: Floor,
    summary: Summary,
    tables: Mapping[str, Mapping[str, FieldAggregate]],
    settings: GateSettings,
    decision: GateDecision,
) -> None:
    """A floor that matched no scored field: a group or a path that is not the run's (a typo:
    the names meant are suggested), or a field of the run that no case scored (said why:
    no typo to suggest)."""
    groups = summary.groups
    unscored = _why_unscored(floor, summary, tables)
    if unscored:
        message = f"floor {floor.text!r} matched no scored field of this run: {unscored}"
    elif floor.group is not None and not tables:
        import difflib  # (here: only a floor that matched nothing reads it)

        close = difflib.get_close_matches(floor.group, list(groups), n=3, cutoff=0.5)
        hint = (
            f"; did you mean {' or '.join(map(repr, close))}?"
            if close
            else f"; the groups are {', '.join(map(repr, groups)) or '(none)'}"
        )
        message = f"floor {floor.text!r} names no group of this run{hint}"
    else:
        paths = sorted({path for fields in tables.values() for path in fields})
        close = nearest_paths(floor.pattern, paths)
        hint = f"; did you mean {' or '.join(map(repr, close))}?" if close else ""
        message = f"floor {floor.text!r} matched no scored field of this run{hint}"
    if settings.strict:
        decision.failures.append(message)
    else:
        decision.warnings.append(f"{message} ({settings.names.strict} fails the run)")


NAMED_CASES = 5  # the cases a message names before "and N more"


@functools.cache
def _undecided_at() -> re.Pattern[str]:
    """The end of an undecided comparison's message: the paths of its undecided fields
    (undecided_verdicts.undecided_message: "... at a.b, c[0].d, ...")."""
    return re.compile(r" at ([^()]*)$")


def _why_unscored(
    floor: Floor, summary: Summary, tables: Mapping[str, Mapping[str, FieldAggregate]]
) -> str:
    """Why the field ``floor`` names was scored by no case, where the run holds it (empty: it
    holds no such field): skipped or ignored wherever it occurred, or left undecided by the
    judge (its cases could not be scored)."""
    held = [
        (path, aggregate)
        for fields in tables.values()
        for path, aggregate in fields.items()
        if floor.matches(path)
    ]
    if held:
        never = sorted({path for path, _ in held})
        one = len(never) == 1
        how = (
            "left undecided by the judge"
            if any(aggregate.batch_error for _, aggregate in held)
            else "skipped or ignored"
        )
        return (
            f"{', '.join(never)} {'was' if one else 'were'} {how} wherever "
            f"{'it' if one else 'they'} occurred, so no case scored {'it' if one else 'them'}"
        )
    pattern = _pattern(floor.pattern)
    cases = [
        case.case_id
        for case in summary.cases.values()
        if case.undecided
        and (found := _undecided_at().search(case.error)) is not None
        and any(pattern.matches(path.strip()) for path in found[1].split(", "))
    ]
    if not cases:
        return ""
    return f"the judge left it undecided in {_cases_named(cases)}, so no case scored it"


def _cases_named(cases: Sequence[str]) -> str:
    """``3 cases (a, b, c)``: how many, and the first :data:`NAMED_CASES` of them."""
    shown = ", ".join(cases[:NAMED_CASES])
    more = f" and {len(cases) - NAMED_CASES} more" if len(cases) > NAMED_CASES else ""
    return f"{len(cases)} case{'' if len(cases) == 1 else 's'} ({shown}{more})"


def _baseline(
    comparison: BaselineComparison,
    settings: GateSettings,
    decision: GateDecision,
    label: str,
    groups: Mapping[str, Mapping[str, FieldAggregate]] | None = None,
) -> None:
    from ..run_model.aggregate import SCORE_EPSILON

    limit = settings.max_drop
    diff = comparison.difference
    failed = len(decision.failures)
    _overlap(comparison, decision, label)
    if comparison.shared and -diff.mean > limit + SCORE_EPSILON:
        assert comparison.before is not None and comparison.after is not None
        what = (
            f"overall score dropped by {printed_drop(comparison.before, comparison.after)} "
            f"({comparison.before:.4f} -> {comparison.after:.4f} over {comparison.shared} "
            f"shared case{'' if comparison.shared == 1 else 's'})"
        )
        sides = (comparison.before, comparison.after)
        rule_on_drop(what, diff.clearly_below_zero, diff, sides, limit, settings, decision)
    for delta in comparison.fields:
        d = delta.difference
        if -d.mean > limit + SCORE_EPSILON:
            what = (
                f"field {delta.path} ({delta.group}): mean score dropped by "
                f"{printed_drop(delta.before, delta.after)} ({delta.before:.4f} -> "
                f"{delta.after:.4f} over {d.n} shared case{'' if d.n == 1 else 's'})"
            )
            decision.quoted_fields.append((delta.group, delta.path))
            _quote(decision, delta.worse[:NAMED_CASES])
            clear = delta.significant and d.mean < 0
            sides = (delta.before, delta.after)
            # (a floor holds this run's tables: named against a baseline, not a reference)
            floor = _failing_floor(delta, limit, settings, groups) if label == "baseline" else ""
            rule_on_drop(what, clear, d, sides, limit, settings, decision, delta, floor)
    if comparison.shared and len(decision.failures) == failed:
        from .changes import change_text

        assert comparison.before is not None and comparison.after is not None
        decision.checked.append(
            f"{label} ({settings.mode}): mean change "
            f"{change_text(comparison.before, comparison.after)} over {comparison.shared} "
            f"shared case{'' if comparison.shared == 1 else 's'}, {settings.names.max_drop} "
            f"{limit:.4f}"
        )


def _overlap(comparison: BaselineComparison, decision: GateDecision, label: str) -> None:
    """Too few shared cases fail the run: a decision over the cases both runs hold says nothing
    of the others (case_matching.py, ``MIN_SHARED``)."""
    from .case_matching import MIN_SHARED

    # a case both hold that one could not score is shared, though not compared: the unscored
    # rule speaks for it (an outage must not read as a baseline that lacks the cases too)
    shared, compared = comparison.shared + len(comparison.unscored), comparison.compared
    if shared and (comparison.baseline.partial or shared >= MIN_SHARED * compared - 1e-9):
        return
    matching = comparison.matching
    base = "the baseline" if label == "baseline" else label
    name = f"{label} {comparison.baseline.path}" if label == "baseline" else label
    why = f": {matching.why(base)}" if matching is not None else ""
    if label == "baseline" and shared and matching is not None and matching.added:
        # a suite that grew past the rule: no setting lets the run pass it, so say what does
        why += (
            "; make a new baseline first: run the new cases without the change they test and "
            "keep that run's report (--jsonmatch-report=PATH) as the baseline, or add at most "
            f"{shared} cases at a time (docs/ci.md: a suite that more than doubles)"
        )
    decision.failures.append(
        f"{name} shares {shared} of this run's {compared} "
        f"case{'' if compared == 1 else 's'}, fewer than the {MIN_SHARED:.0%} a verdict "
        f"against it needs{why}"
    )


def _quote(decision: GateDecision, cases: Iterable[str]) -> None:
    """The cases a message quotes, each once, for the tables to show."""
    decision.quoted_cases.extend(c for c in cases if c not in decision.quoted_cases)


def printed_drop(before: float, after: float) -> str:
    """A drop as the tables print it: the printed before minus the printed after."""
    from .changes import printed_change

    return f"{-printed_change(before, after):.4f}"


def _regressions(
    comparison: BaselineComparison, settings: GateSettings, decision: GateDecision
) -> None:
    """A shared case that got clearly worse blocks the run, whatever its threshold, until
    someone accepts it (a new baseline, or ``allow_regressions``)."""
    from ..run_model.aggregate import SCORE_EPSILON

    names = settings.names
    limit = settings.case_drop_limit
    setting = names.max_case_drop if settings.max_case_drop is not None else names.max_drop
    dropped = [d for d in comparison.cases if -d.delta > limit + SCORE_EPSILON]
    allowed = settings.allow_regressions
    _quote(decision, [d.case_id for d in dropped])
    if len(dropped) > allowed:
        for d in dropped:
            where = f" ({d.where})" if d.where else ""
            decision.failures.append(
                f"case {d.case_id}{where} dropped from {d.before:.4f} to "
                f"{d.after:.4f}, by more than {setting} {limit:.4f}"
            )
            decision.blocked.append((d.case_id, setting))
        if allowed:
            decision.failures.append(
                f"{len(dropped)} cases dropped, more than {names.allow_regressions} {allowed}"
            )
    elif dropped:
        decision.warnings.append(
            f"{len(dropped)} case{'' if len(dropped) == 1 else 's'} dropped by "
            f"more than {setting} {limit:.4f}, allowed by "
            f"{names.allow_regressions} {allowed}: "
            f"{', '.join(d.case_id for d in dropped)}"
        )
        decision.checked.append(
            f"case regressions: {len(dropped)} of {comparison.shared} shared "
            f"cases dropped, {names.allow_regressions} {allowed}"
        )
    elif comparison.shared:
        decision.checked.append(
            f"case regressions: no shared case of {comparison.shared} dropped "
            f"by more than {setting} {limit:.4f}"
        )


def _failing_floor(
    delta: FieldDelta,
    limit: float,
    settings: GateSettings,
    groups: Mapping[str, Mapping[str, FieldAggregate]] | None,
) -> str:
    """A floor that would fail the field row ``delta`` names (its group's row of the run's
    field tables below it): the baseline's mean less ``limit``, to two decimals, in words
    (``jsonmatch_field_floors field_f1:sentiment=0.98``); empty where no such floor is
    above the row's mean."""
    from ..run_model.aggregate import SCORE_EPSILON

    aggregate = (groups or {}).get(delta.group, {}).get(delta.path)
    score = math.floor((delta.before - limit) * 100 + 1e-9) / 100
    if aggregate is None or aggregate.scored == 0:
        return ""
    if score <= aggregate.mean_score + SCORE_EPSILON:
        return ""
    return f"{settings.names.floors} {delta.group}:{delta.path}={score:.2f}"


def rule_on_drop(
    what: str,
    clear: bool,
    diff: PairedDifference,
    sides: tuple[float, float],
    limit: float,
    settings: GateSettings,
    decision: GateDecision,
    row: FieldDelta | None = None,
    floor: str = "",
) -> None:
    """A drop beyond ``max_drop``: a failure when the rule says it is real, else a warning
    that says which rule kept it from failing (the interval, or Holm's correction) and
    which setting would fail it (the strict rule; ``floor``, a field floor, in words). A
    field ``row`` names the cases it got worse in. ``sides`` are the scores before and after,
    whose printed difference the message's interval is printed around
    (changes.printed_interval)."""
    from .changes import interval_text, p_text

    names = settings.names
    beyond = f", more than {names.max_drop} {limit:.4f}"
    if row is not None and row.worse:
        beyond += f"; worse in {_cases_named(row.worse)}"
    if settings.mode == "strict":
        decision.failures.append(f"{what}{beyond}: {names.strict_mode} fails any drop beyond it")
    elif clear:
        interval = f"95% interval {interval_text(*sides, diff.mean, diff.low, diff.high)}"
        holm = (
            ""
            if row is None
            else f", Holm-adjusted p = {p_text(row.holm_p)} across {row.family} field rows"
        )
        decision.failures.append(f"{what}{beyond} ({interval}{holm})")
    else:
        fails = f"{names.strict_mode} fails it" + (
            f", and so does a floor {floor}" if floor else ""
        )
        decision.warnings.append(
            f"{what}{beyond}, but it may be noise: {_noise(diff, sides, row)}, so the "
            f"statistical rule passes it ({fails})"
        )


def _noise(diff: PairedDifference, sides: tuple[float, float], row: FieldDelta | None) -> str:
    """Why a drop is not counted as real, in the words of the rule that decided it."""
    from .changes import interval_text, p_text
    from .stats import ALPHA

    if diff.low is None or diff.high is None:
        return f"{diff.n} shared case{'' if diff.n == 1 else 's'} cannot tell"
    if diff.too_few:  # an interval as wide as the scores allow says nothing: say why instead
        return (
            f"{diff.n} shared cases are too few to tell a drop from noise (with their spread "
            f"no drop a score can make would be detected)"
        )
    printed = interval_text(*sides, diff.mean, diff.low, diff.high)
    if diff.high < 0.0 and row is not None:  # the interval excludes zero: Holm decided
        return (
            f"the 95% interval {printed} lies below zero "
            f"(p = {p_text(diff.p_value)}), yet Holm's correction across {row.family} field "
            f"rows raises p to {p_text(row.holm_p)}, above {ALPHA:.2f}"
        )
    interval = f"the 95% interval {printed} includes no change"
    if row is not None:  # a field row: its table shows the interval, not the detectable drop
        return interval
    return f"{interval}, and {diff.n} cases can only detect drops of {diff.detectable:.4f} or more"
