"""The gates' settings: a run's gates (``GateSettings``), the field floors among them
(``Floor``), what each setting is called where a message names it (``GateNames``), and the
gates read from their settings' text (``gate_settings``, ``parse_floors``, ``parse_score``).
Every field and every name comes from gate_specs.py's table, which lists the gates once; what
the gates say of a run is gates.py's.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from ...engine.core.errors import ConfigError, shown
from ...engine.core.numbers import whole_number
from ...engine.core.paths import PathPattern, key_segment, path_tokens
from ...engine.core.slotted import HashedSlotted
from .gate_specs import GATE_MODES, GATES, GateSpec


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
        self.pattern, self.score, self.group = pattern, score, group

    def matches(self, field_path: str) -> bool:
        return _pattern(self.pattern).matches(_as_instance_path(field_path))

    def matches_instance(self, path: str) -> bool:
        """Whether the floor's pattern matches an instance path (``items[0].sku``)."""
        return _pattern(self.pattern).matches(path)

    @property
    def text(self) -> str:
        """The floor as it was written (without its score)."""
        return self.pattern if self.group is None else f"{self.group}:{self.pattern}"


# The gates a run holds (all of the table but ``invalid_fails``: a case default, which fails a
# case, never the run), and those a message names by their setting (all but the mode, whose
# strict word is ``strict_mode``).
_MODE = next(spec for spec in GATES if spec.field == "mode")
_HELD = tuple(spec for spec in GATES if spec.field != "invalid_fails")
_NAMED = tuple(spec.field for spec in _HELD if spec is not _MODE)
# each held gate's value where it is off: its option's default, no floor lines, a switch off
_OFF: Mapping[str, object] = {"lines": (), "switch": False}
_DEFAULTS = {s.field: s.default if s.default is not None else _OFF.get(s.value) for s in _HELD}
# the gates of the judge's calibration (calibration_gates.py)
_JUDGE = tuple(field for field in _DEFAULTS if field.startswith("judge_"))


def _unknown(cls: type, given: Iterable[str], fields: Iterable[str]) -> None:
    """The TypeError a written-out ``__init__`` raises for a keyword it does not take."""
    unknown = sorted(set(given) - set(fields))
    if unknown:
        raise TypeError(f"{cls.__name__}() got an unexpected keyword argument {unknown[0]!r}")


class GateNames(HashedSlotted):
    """What each gate setting is called where the decision is read (an ini setting of the
    plugin, a flag of the command line): a message names the setting its reader can change.
    One name per gate of gate_specs.py's table that a message names (``names.max_drop``),
    and ``strict_mode``, the mean's strict rule as its reader turns it on (``'strict' in
    jsonmatch_gates``, ``--gate strict``: a drop the statistical rule passes names it). The
    caller that reads the settings gives them (a name not given: the rule's own, as
    :data:`RULE_NAMES`); this module knows no spelling."""

    __slots__ = (*_NAMED, "strict_mode")

    strict_mode: str

    def __init__(self, strict_mode: str = "mode strict", **names: str) -> None:
        _unknown(GateNames, names, _NAMED)
        for spec in _HELD:
            if spec is not _MODE:
                setattr(self, spec.field, names.get(spec.field, spec.rule or spec.field))
        self.strict_mode = strict_mode

    if TYPE_CHECKING:  # each gate's name, by its field (set from the table)

        def __getattr__(self, field: str) -> str: ...


def gate_names(name: Callable[[GateSpec], str], strict_mode: str = "") -> GateNames:
    """The names of the gates (gate_specs.py), each as ``name`` spells it; the strict rule
    of the mean as ``strict_mode`` (empty: the mode's name, then ``strict``)."""
    return GateNames(
        **{spec.field: name(spec) for spec in _HELD if spec is not _MODE},
        strict_mode=strict_mode or f"{name(_MODE)} strict",
    )


# The names of a caller that gives none (a library user): the rules' own names, no spelling of
# a setting; the plugin and the command line each give theirs.
RULE_NAMES = GateNames()


class GateSettings(HashedSlotted):
    """The gates a run is held to, as its reader (the plugin's settings, the command
    line's flags) gave them: a field per gate of gate_specs.py's table, each given by
    keyword (not given: off, None or 0, or its option's default)."""

    __slots__ = (*_DEFAULTS, "names", "part_of_suite")

    fail_under: float | None
    max_drop: float
    mode: str
    floors: tuple[Floor, ...]
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
        self, *, names: GateNames = RULE_NAMES, part_of_suite: str = "", **gates: Any
    ) -> None:
        _unknown(GateSettings, gates, _DEFAULTS)
        for field, off in _DEFAULTS.items():
            setattr(self, field, gates.get(field, off))
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
        return any(getattr(self, field) is not None for field in _JUDGE)

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
