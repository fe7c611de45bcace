"""The parts of the plugin's settings that other stages parse: recordings, repeats, calls,
reports, gates, the reference target and OpenTelemetry.

plugin/settings.py parses each part the session was given a value for when the session
starts (a mistake in one stops it there) and hands it to :class:`SettingParts`, the base of
its ``Settings``. A part not given is its default, built on first use with its stage's
module, so that a session that never uses the plugin imports none of them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

from ..engine.core.errors import ConfigError

if TYPE_CHECKING:
    from ..calls.call_settings import CallSettings
    from ..calls.fingerprints import RecordSettings
    from ..calls.judge_calls import JudgeSetup
    from ..calls.live_calls import CallWatch
    from ..cases.repeats import RepeatSettings
    from ..cases.updates import UpdateMode
    from ..engine.core.masking import MaskPattern
    from ..reporting.aggregate import GroupBy
    from ..reporting.gates import GateSettings
    from ..reporting.records import Comparison, ValueMode
    from ..reporting.report_files import ReportFiles
    from ..reporting.versus import VersusSettings
    from ..telemetry.otel_events import Telemetry
    from ..telemetry.otel_settings import OtelSettings

PREFIX = "jsonmatch_"  # of every ini setting; the gates' messages name their setting with it
_T = TypeVar("_T", bound=str)


@dataclass(frozen=True, kw_only=True)
class SettingParts:
    """Each ``given_<part>`` is the part as parsed from the session's settings, None when the
    setting was left at its default; the property ``<part>`` is the one to read."""

    given_record: RecordSettings | None = None
    given_repeat: RepeatSettings | None = None
    given_calls: CallSettings | None = None
    given_reports: ReportFiles | None = None
    given_gates: GateSettings | None = None
    given_versus: VersusSettings | None = None
    given_otel: OtelSettings | None = None
    given_judge: JudgeSetup | None = None  # the LLM judge; None: none (no default judge)

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
        from ..reporting.report_files import ReportFiles

        return self.given_reports or ReportFiles()

    @cached_property
    def gates(self) -> GateSettings:
        from ..reporting.gates import gate_settings

        return self.given_gates or gate_settings(
            fail_under="", floor_lines=(), drop_parts=(), case_parts=(), prefix=PREFIX
        )

    @cached_property
    def versus(self) -> VersusSettings:
        from ..reporting.versus import VersusSettings

        return self.given_versus or VersusSettings(what=PREFIX + "reference")

    @cached_property
    def otel(self) -> OtelSettings:
        from ..telemetry.otel_settings import OtelSettings

        return self.given_otel or OtelSettings()

    @property
    def writes_reports(self) -> bool:
        """Whether the session writes a report file: JSON, HTML, Markdown, or GitHub's step
        summary."""
        files = self.given_reports
        return files is not None and any(
            (files.json, files.html, files.markdown, files.step_summary)
        )

    @property
    def sends_telemetry(self) -> bool:
        """Whether the session sends OpenTelemetry events (``jsonmatch_otel`` given and on)."""
        return self.given_otel is not None and self.given_otel.on

    def telemetry(self) -> Telemetry | Unsent:
        """The session's telemetry: :class:`Unsent` unless ``jsonmatch_otel`` is given and on
        (a session without it loads none of OpenTelemetry's settings)."""
        otel = self.given_otel
        return otel.start() if otel is not None and otel.on else Unsent()


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
    from ..reporting.report_files import ReportFiles

    return ReportFiles.parse(paths, what, here, step_summary)


def parse_judge(text: str, what: str, root: Path) -> JudgeSetup:
    from ..calls.judge_calls import parse_judge_setting

    return parse_judge_setting(text, what, root)


def parse_otel(text: str, what: str) -> OtelSettings:
    from ..telemetry.otel_settings import OtelSettings

    return OtelSettings.parse(text, what)


def parse_threshold(text: str, what: str) -> float:
    from ..reporting.gates import parse_score

    return parse_score(text.strip() or "1.0", what)


def parse_update(text: str, what: str, in_ci: bool) -> UpdateMode | None:
    from ..cases.updates import update_mode

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
    from ..reporting.records import VALUE_MODES

    return _choice(text, what, VALUE_MODES)


def parse_group_by(text: str, what: str) -> GroupBy:
    if text.strip() in ("", "metric"):
        return "metric"
    from ..reporting.aggregate import GROUP_BY

    return _choice(text, what, GROUP_BY)


def _choice(value: str, what: str, allowed: Sequence[_T]) -> _T:
    for option in allowed:
        if value.strip() == option:
            return option
    raise ConfigError(f"{what} must be one of {', '.join(allowed)}, not {value!r}")
