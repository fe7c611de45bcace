"""The parts of the plugin's settings that other stages parse: recordings, repeats, calls,
reports, gates, the reference target and OpenTelemetry; the keys of the settings that hold
several (``golden``, ``report``, ``gates``) and the lines that name a setting merged into one.

plugin/settings.py parses each part the session was given a value for when the session
starts (a mistake in one stops it there) and hands it to :class:`SettingParts`, the base of
its ``Settings``. A part not given is its default, built on first use with its stage's
module, so that a session that never uses the plugin imports none of them.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple, TypeVar

from ..engine.core.errors import ConfigError, did_you_mean
from ..engine.core.slotted import Slotted
from ..reporting.verdicts import gate_specs

if TYPE_CHECKING:
    from ..calls.call_settings import CallSettings
    from ..calls.fingerprints import RecordSettings
    from ..calls.judge_calls import JudgeSetup
    from ..calls.live_calls import CallWatch
    from ..cases.repeats import RepeatSettings
    from ..engine.core.masking import MaskPattern
    from ..reporting.render.report_files import ReportFiles
    from ..reporting.run_model.aggregate import GroupBy
    from ..reporting.run_model.comparisons import Comparison, ValueMode
    from ..reporting.verdicts.gates import GateSettings
    from ..reporting.verdicts.versus import VersusSettings
    from ..telemetry.otel_events import Telemetry
    from ..telemetry.otel_settings import OtelSettings
    from ..updating.updates import UpdateMode

PREFIX = gate_specs.PREFIX  # of every ini setting; the gates' messages name their setting with it
_T = TypeVar("_T", bound=str)


class SettingParts(Slotted):
    """Each ``given_<part>`` is the part as parsed from the session's settings, None when the
    setting was left at its default; the property ``<part>`` is the one to read. (A Slotted
    class, not a dataclass: it is made at every pytest start, plugin used or not.)"""

    __slots__ = (
        "given_record",
        "given_repeat",
        "given_calls",
        "given_reports",
        "given_gates",
        "given_versus",
        "given_otel",
        "given_judge",
        "__dict__",  # the parts' cached_property values
    )

    def __init__(
        self,
        *,
        given_record: RecordSettings | None = None,
        given_repeat: RepeatSettings | None = None,
        given_calls: CallSettings | None = None,
        given_reports: ReportFiles | None = None,
        given_gates: GateSettings | None = None,
        given_versus: VersusSettings | None = None,
        given_otel: OtelSettings | None = None,
        given_judge: JudgeSetup | None = None,  # the LLM judge; None: none (no default judge)
    ) -> None:
        self.given_record, self.given_repeat = given_record, given_repeat
        self.given_calls, self.given_reports = given_calls, given_reports
        self.given_gates, self.given_versus = given_gates, given_versus
        self.given_otel, self.given_judge = given_otel, given_judge

    @cached_property
    def record(self) -> RecordSettings:
        from ..calls.fingerprints import RecordSettings

        return self.given_record or RecordSettings()

    @cached_property
    def repeat(self) -> RepeatSettings:
        from ..cases.repeats import RepeatSettings

        return self.given_repeat or RepeatSettings()

    @cached_property
    def calls(self) -> CallSettings:
        from ..calls.call_settings import CallSettings

        return self.given_calls or CallSettings()

    @cached_property
    def reports(self) -> ReportFiles:
        from ..reporting.render.report_files import ReportFiles

        return self.given_reports or ReportFiles()

    @cached_property
    def gates(self) -> GateSettings:
        return self.given_gates or parse_gates(None, [])

    @cached_property
    def versus(self) -> VersusSettings:
        from ..reporting.verdicts.versus import VersusSettings

        return self.given_versus or VersusSettings(what=PREFIX + "reference")

    @cached_property
    def otel(self) -> OtelSettings:
        from ..telemetry.otel_settings import OtelSettings

        return self.given_otel or OtelSettings()

    @property
    def writes_reports(self) -> bool:
        """Whether the session writes a report file (or GitHub's step summary) whose format
        needs the whole report (reporting/render/formats.py)."""
        files = self.given_reports
        return files is not None and files.whole

    @property
    def sends_telemetry(self) -> bool:
        """Whether the session sends OpenTelemetry events (``jsonmatch_otel`` given and on)."""
        return self.given_otel is not None and self.given_otel.on

    def telemetry(self) -> Telemetry | Unsent:
        """The session's telemetry: :class:`Unsent` unless ``jsonmatch_otel`` is given and on
        (a session without it loads none of OpenTelemetry's settings)."""
        otel = self.given_otel
        if otel is None or not otel.on:
            return Unsent()
        sent = otel.start()
        sent.pass_k = self.gates.pass_k or 0  # repeated cases' events carry pass^k at it
        return sent


class Unsent:
    """The telemetry of a session that sends none: its calls are not watched."""

    watch: CallWatch | None = None
    unsent_note = ""  # what could not be sent (none: nothing is)

    def emit(self, comparisons: Sequence[Comparison]) -> None:
        pass

    def close(self) -> bool:
        return True


# Each part's parser, imported with its stage's module when the part is given.


def parse_record(parts: Sequence[tuple[str, str]]) -> RecordSettings:
    from ..calls.fingerprints import RecordSettings

    return RecordSettings.parse(parts)


def parse_repeat(parts: Sequence[tuple[str, str]]) -> RepeatSettings:
    from ..cases.repeats import RepeatSettings

    return RepeatSettings.parse(parts)


def parse_calls(parts: Sequence[tuple[str, str]]) -> CallSettings:
    from ..calls.call_settings import parse_calls as parse

    return parse(parts)


def parse_reports(
    paths: Sequence[str], what: str, here: Path, step_summary: str | None
) -> ReportFiles:
    from ..reporting.render.report_files import ReportFiles

    return ReportFiles.parse(paths, what, here, step_summary)


def parse_judge(text: str, what: str, root: Path, replay: bool = False) -> JudgeSetup:
    """``replay``: the session only replays (record mode ``none``), where a judge whose
    variables are unset replays its recorded verdicts (calls/judge_calls.py)."""
    from ..calls.judge_calls import judge_setup_from_text

    return judge_setup_from_text(text, what, root, replay)


def parse_otel(text: str, what: str) -> OtelSettings:
    from ..telemetry.otel_settings import OtelSettings

    return OtelSettings.parse(text, what)


def parse_threshold(text: str, what: str) -> float:
    from ..reporting.verdicts.gates import parse_score

    return parse_score(text.strip() or "1.0", what)


def parse_update(text: str, what: str, in_ci: bool) -> UpdateMode | None:
    from ..updating.updates import update_mode

    return update_mode(text, what, in_ci=in_ci)


def parse_max_cases(text: str, what: str) -> int:
    from ..engine.core.numbers import whole_number

    return whole_number(text, what, 1, 10**9, "of cases ")


def parse_mask(lines: object) -> tuple[MaskPattern, ...]:
    from ..engine.core.masking import mask_patterns

    return mask_patterns([str(line) for line in lines] if isinstance(lines, list) else [])


def parse_options(text: str) -> dict[str, object]:
    """The session's metric options, a JSON or YAML mapping."""
    if not text.strip():
        return {}
    import yaml

    try:
        value = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        raise ConfigError(f"jsonmatch_options is not valid JSON or YAML: {exc}") from None
    if not isinstance(value, (dict, type(None))):
        raise ConfigError(
            "jsonmatch_options must be a mapping of option names to values, not "
            f"{type(value).__name__}"
        )
    return value or {}


def parse_value_mode(text: str, what: str) -> ValueMode:
    if text.strip() in ("", "short"):
        return "short"
    from ..reporting.run_model.comparisons import VALUE_MODES

    return _choice(text, what, VALUE_MODES)


def parse_group_by(text: str, what: str) -> GroupBy:
    if text.strip() in ("", "metric"):
        return "metric"
    from ..reporting.run_model.aggregate import GROUP_BY

    return _choice(text, what, GROUP_BY)


# -- settings made of keys: jsonmatch_golden, jsonmatch_report, jsonmatch_gates -----------------

GOLDEN_KEYS = ("schema_dirs", "max_cases")
REPORT_KEYS = ("values", "junit", "group_by")
GATE_KEYS = gate_specs.gate_keys()  # fail_under, max_drop, ... (reporting/verdicts/gate_specs.py)
GATE_WORDS = gate_specs.gate_words()  # statistical, strict (max_drop's mode), invalid_fails
_SWITCH = {"yes": True, "true": True, "on": True, "no": False, "false": False, "off": False}


# Settings merged into others: (setting, how to write it now). Given as an ini key or a flag,
# each stops the session with the line merged_message writes (the plugin declares each old
# flag hidden, so that its spelling is caught rather than refused as unknown).
MERGED = {
    "schema_dirs": ("golden", "FOLDER schema_dirs=PATH"),
    "max_cases": ("golden", "FOLDER max_cases=N"),
    "report_values": ("report", "PATH values=short|full|none"),
    "junit_properties": ("report", "PATH junit=no"),
    "group_by": ("report", "PATH group_by=metric|file|folder"),
    "fail_under": ("gates", "fail_under=SCORE"),
    "max_drop": ("gates", "max_drop=D [statistical|strict]"),
    "max_case_drop": ("gates", "max_case_drop=D [allow=N]"),
    "min_valid": ("gates", "min_valid=SHARE"),
    "invalid_fails": ("gates", "invalid_fails"),
}
_INI_ONLY = ("golden",)  # a setting merged into one of these has no flag to name


def merged_message(name: str, flag: bool) -> str:
    """How to write the merged setting ``name`` now, told to one who gave its ini key or flag."""
    into, how = MERGED[name]
    ini = f"{PREFIX}{into} = {how}"
    if not flag:
        return f"{PREFIX}{name} is part of {PREFIX}{into} now: {ini}"
    old, new = "--jsonmatch-" + name.replace("_", "-"), "--jsonmatch-" + into
    if into in _INI_ONLY:
        return f"{old} is part of {PREFIX}{into} now: {ini}"
    example = how.split()[-1] if into == "report" else f"'{how}'"
    return f"{old} is part of {new} now: {new}={example}"


def golden_keys(words: Sequence[str], what: str) -> tuple[list[str], list[str], int]:
    """jsonmatch_golden's words: (its folders, the schema_dirs= folders, max_cases=)."""
    plain, pairs = split_keys(words, what, GOLDEN_KEYS)
    max_cases = 10_000
    for name, value in pairs:
        if name == "max_cases":
            max_cases = parse_max_cases(value, f"{what}: max_cases")
    return plain, [v for n, v in pairs if n == "schema_dirs"], max_cases


class ReportKeys(NamedTuple):
    values: ValueMode = "short"
    junit: bool = True  # each comparison's metric and score as JUnit XML properties
    group_by: GroupBy = "metric"  # what one per-field table holds: a metric, a file, a folder


def report_keys(pair_lists: Sequence[Sequence[tuple[str, str]]]) -> ReportKeys:
    """values=, junit= and group_by= of jsonmatch_report, the ini's pairs then the flag's."""
    values: ValueMode = "short"
    junit = True
    group_by: GroupBy = "metric"
    for pairs, what in zip(pair_lists, (PREFIX + "report", "--jsonmatch-report")):
        for name, value in pairs:
            if name == "values":
                values = parse_value_mode(value, f"{what}: values")
            elif name == "group_by":
                group_by = parse_group_by(value, f"{what}: group_by")
            else:
                junit = parse_switch(value, f"{what}: junit")
    return ReportKeys(values, junit, group_by)


# -- settings whose flag gives some of their keys: jsonmatch_judge, jsonmatch_otel, ... ---------


def judge_slot(word: str) -> str:
    """The part of jsonmatch_judge a word gives: its key, ``model`` and ``model_env`` (and
    ``endpoint``/``endpoint_env``, ``key_env``) being one part, given either way."""
    return word.partition("=")[0].removesuffix("_env")


def otel_slot(word: str) -> str:
    """The part of jsonmatch_otel a word gives: ``flush``, or the mode."""
    return "flush" if word.startswith("flush=") else "the mode"


def reference_slot(word: str) -> str:
    """The part of jsonmatch_reference a word gives: a limit's key, or the target's name."""
    key, eq, _ = word.partition("=")
    return key if eq else "the target's name"


def merged_parts(parts: Sequence[tuple[str, str]], slot: Callable[[str], str]) -> tuple[str, str]:
    """A setting given in parts (the ini's text, then the flag's, each with its name) as one
    text: a later part's word replaces the earlier part's word of the same ``slot`` in its
    place, and adds the others. A part that gives one slot twice is a ConfigError naming it.
    The name returned is the one part's that gave words, or both (``--jsonmatch-judge over
    jsonmatch_judge``) where each did (none did: the first part's)."""
    merged: dict[str, str] = {}
    names: list[str] = []
    for text, what in parts:
        seen: set[str] = set()
        words = text.split()
        for word in words:
            at = slot(word)
            if at in seen:
                raise ConfigError(f"{what}: {at} given twice")
            seen.add(at)
            merged[at] = word
        if words:
            names.append(what)
    shown = " over ".join(reversed(names)) or (parts[0][1] if parts else "")
    return " ".join(merged.values()), shown


def split_keys(
    words: Sequence[str], what: str, keys: Sequence[str]
) -> tuple[list[str], list[tuple[str, str]]]:
    """``words`` as (the plain words, the ``key=value`` pairs in order); a word ``name=value``
    whose name is not one of ``keys`` is a ConfigError naming ``what`` (a typo would be taken
    for a path)."""
    plain: list[str] = []
    pairs: list[tuple[str, str]] = []
    for word in words:
        name, eq, value = word.partition("=")
        if not eq or "/" in name or "\\" in name:
            plain.append(word)
        elif name in keys:
            pairs.append((name, value))
        else:
            raise ConfigError(
                f"{what}: unknown key {name!r}{did_you_mean(name, keys)}; known: {', '.join(keys)}"
            )
    return plain, pairs


def parse_switch(text: str, what: str) -> bool:
    """yes/no, true/false or on/off."""
    value = _SWITCH.get(text.strip().lower())
    if value is None:
        raise ConfigError(f"{what} must be yes or no (true/false, on/off), not {text!r}")
    return value


class GateTexts(NamedTuple):
    """jsonmatch_gates read (reporting/verdicts/gate_specs.py): each recorded gate's text by its key, as
    run.settings holds it (a gate ``within`` another written in that one's text: ``max_drop``
    ``D strict``, ``max_case_drop`` ``D allow=N``), a later part's overriding an earlier one's;
    and each switch, on or off."""

    texts: dict[str, str]
    switches: dict[str, bool]

    @property
    def invalid_fails(self) -> bool:
        return self.switches.get("invalid_fails", False)


def parse_gate_texts(parts: Sequence[tuple[str, str]]) -> GateTexts:
    """``fail_under=S max_drop=D [statistical|strict] max_case_drop=D allow=N min_valid=S
    [invalid_fails]`` (the keys and words of gate_specs.py) from (text, name) parts, the
    flag's after the ini's."""
    got: dict[str, str] = {}
    where: dict[str, str] = {}  # the part that last gave each gate
    for text, what in parts:
        plain, pairs = split_keys(text.replace(",", " ").split(), what, GATE_KEYS)
        for word in plain:
            if word not in GATE_WORDS:
                raise ConfigError(
                    f"{what}: {word!r} is not a gate; write KEY=VALUE with a key of "
                    f"{', '.join(GATE_KEYS)}, or one of {', '.join(GATE_WORDS)}"
                    + did_you_mean(word, [*GATE_KEYS, *GATE_WORDS])
                )
            key = GATE_WORDS[word]
            got[key] = "yes" if gate_specs.BY_KEY[key].value == "switch" else word
            where[key] = what
        for name, value in pairs:
            got[name], where[name] = value, what
    switches = {
        spec.key: parse_switch(got.pop(spec.key, "no"), f"{where.get(spec.key, '')}: {spec.key}")
        for spec in gate_specs.GATES
        if spec.setting == "gates" and spec.value == "switch"
    }
    texts = {spec.key: got[spec.key] for spec in gate_specs.recorded() if spec.key in got}
    for spec in gate_specs.GATES:  # a gate within another: written in that one's text
        if spec.within and spec.key in got:
            mine = got[spec.key] if not spec.keyed else f"{spec.key}={got[spec.key]}"
            texts[spec.within] = " ".join(t for t in (texts.get(spec.within, ""), mine) if t)
    return GateTexts(texts, switches)


def floor_lines(ini: object, flags: object, what: str) -> list[str]:
    """jsonmatch_field_floors' lines: the ini's, each flag's floor replacing the ini's floor
    of the same ``[group:]pattern`` in its place, the others added (``strict`` is a line as
    any other). A flag's floor is checked under the flag's name ``what`` first."""
    from ..reporting.verdicts.gates import parse_floors

    lines = [str(line).strip() for line in ini] if isinstance(ini, list) else []
    given = [str(flag).strip() for flag in flags] if isinstance(flags, list) else []
    parse_floors([line for line in given if line != "strict"], what)
    merged = {_floor_key(line): line for line in lines if line and not line.startswith("#")}
    for line in given:
        merged[_floor_key(line)] = line
    return list(merged.values())


def _floor_key(line: str) -> str:
    """What a floor line holds a floor of: its ``[group:]pattern`` (``strict``: itself)."""
    head, eq, _ = line.rpartition("=")
    return " ".join(head.split()).replace(" :", ":").replace(": ", ":") if eq else line


def parse_gates(texts: GateTexts | None, floor_lines: object) -> GateSettings:
    """The session's gates from jsonmatch_gates' keys and jsonmatch_field_floors' lines; a
    gate's messages and verdicts name its setting and key (``jsonmatch_gates max_drop``)."""
    from ..reporting.verdicts.gates import gate_settings

    return gate_settings(
        texts=texts.texts if texts is not None else {},
        floor_lines=[str(line) for line in floor_lines] if isinstance(floor_lines, list) else [],
        prefix=PREFIX,
        gate_prefix=PREFIX + "gates ",
    )


def _choice(value: str, what: str, allowed: Sequence[_T]) -> _T:
    for option in allowed:
        if value.strip() == option:
            return option
    raise ConfigError(f"{what} must be one of {', '.join(allowed)}, not {value!r}")
