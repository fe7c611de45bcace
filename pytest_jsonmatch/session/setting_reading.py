"""The plugin's settings read into one typed :class:`~.session_settings.Settings`: each
setting's flag over its ini value, as setting_table.py lists them, a setting left at its
default not parsed (its part is built on first use: setting_parts.py).

Where the values lie is pytest's: plugin/settings.py reads a setting's flag and ini value
(``SettingReader.flag``, ``.ini``) and what pytest's own options say (:class:`PytestSays`),
and hands them here, so that what is made of them needs no pytest. A malformed setting is a
:class:`~..engine.core.errors.ConfigError` naming it, which the plugin turns into the one
line that stops pytest.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple, Protocol

from ..engine.core.errors import ConfigError
from . import setting_parts as parts
from .channel import Defaults
from .session_settings import Settings
from .setting_parts import PREFIX
from .setting_table import BY_NAME

if TYPE_CHECKING:  # each stage's parser loads when its setting is given (start-up stays light)
    from ..calls.judge_calls import JudgeSetup
    from ..calls.targets import TargetSpec
    from ..reporting.render.report_files import ReportFiles
    from ..reporting.verdicts.quarantine import Quarantine
    from ..reporting.verdicts.versus import VersusSettings
    from ..updating.updates import UpdateMode


class _Invocation(Protocol):
    @property
    def dir(self) -> Path: ...


class _Config(Protocol):
    """What the settings read of pytest's config besides its settings: where paths are
    read from."""

    @property
    def rootpath(self) -> Path: ...
    @property
    def inipath(self) -> Path | None: ...
    @property
    def invocation_params(self) -> _Invocation: ...


class PytestSays(NamedTuple):
    """What pytest's own options say that the settings take."""

    verbose: int  # -v's count
    verbosity: int  # the assertions' verbosity (pytest 8 lets it differ from -v)
    long_tracebacks: bool  # --tb=long
    workers: int  # the xdist workers running the tests
    split: tuple[object, object]  # pytest-split's --splits and --group (None: not given)


class SettingReader:
    """A setting's raw value: the flag's when given, else the ini's; and its name as the user
    wrote it, for messages. ``flag`` and ``ini`` are pytest's to read (plugin/settings.py)."""

    config: _Config

    def flag(self, name: str) -> object:
        raise NotImplementedError

    def ini(self, name: str) -> object:
        raise NotImplementedError

    def text(self, name: str) -> tuple[str, str]:
        """(value, shown name): the flag's text when given, else the ini's."""
        flag = self.flag(name)
        if flag is not None:
            return str(flag), BY_NAME[name].flag
        ini = self.ini(name)
        return str(ini if ini is not None else ""), PREFIX + name

    def parts(self, name: str) -> list[tuple[str, str]]:
        """The ini's text, then the flag's, each with its name: for a setting made of parts,
        whose flag overrides the parts it gives."""
        ini, flag = self.ini(name), self.flag(name)
        flags = " ".join(str(f) for f in flag) if isinstance(flag, list) else str(flag or "")
        return [(str(ini or ""), PREFIX + name), (flags, BY_NAME[name].flag)]

    def merged(self, name: str, slot: Callable[[str], str]) -> tuple[str, str]:
        """The ini's text with the flag's parts over it, one part at a time
        (setting_parts.merged_parts), and the name of what gave them."""
        return parts.merged_parts(self.parts(name), slot)

    def given(self, *names: str) -> bool:
        """Whether a flag or an ini value other than the default is given for any of ``names``."""
        return any(
            self.flag(n) is not None or self.ini(n) not in (None, BY_NAME[n].default) for n in names
        )


def settings_read(read: SettingReader, says: PytestSays) -> Settings:
    """Every setting, checked; a setting left at its default is not parsed."""
    config = read.config
    threshold = parts.parse_threshold(*read.text("threshold")) if read.given("threshold") else 1.0
    baseline, partial = _baseline(*read.text("baseline"))
    target = read.text("target")[0].strip()
    targets, versus = _targets(read, target) if read.given("targets", "reference") else ((), None)
    golden, schema_dirs, max_cases = _golden(read)
    report = parts.report_keys([pairs for _, pairs, _ in _report_words(read)])
    gates = parts.parse_gate_texts(read.parts("gates")) if read.given("gates") else None
    return Settings(
        rootpath=config.rootpath,
        golden=golden,
        target=target,
        targets=targets,
        given_versus=versus,
        defaults=_defaults(
            read, threshold, says.verbosity, gates is not None and gates.invalid_fails
        ),
        given_record=parts.parse_record(read.parts("record")) if read.given("record") else None,
        update=_update(read),
        given_repeat=parts.parse_repeat(read.parts("repeat")) if read.given("repeat") else None,
        given_calls=parts.parse_calls(read.parts("calls")) if read.given("calls") else None,
        given_reports=_reports(read),
        report_values=report.values,
        baseline=os.fspath(config.invocation_params.dir / baseline) if baseline else None,
        partial_baseline=partial,
        shard=_shard(read, says.split),
        group_by=report.group_by,
        given_gates=parts.parse_gates(
            gates,
            parts.floor_lines(
                read.ini("field_floors"), read.flag("field_floors"), BY_NAME["field_floors"].flag
            ),
        )
        if gates is not None or read.given("field_floors")
        else None,
        schema_dirs=schema_dirs,
        max_cases=max_cases,
        junit_properties=report.junit,
        verbose=says.verbose,
        full_tracebacks=says.long_tracebacks or says.verbose >= 2,
        annotations=os.environ.get("GITHUB_ACTIONS") == "true",
        workers=says.workers,
        given_judge=_judge(read),
        given_otel=parts.parse_otel(*read.merged("otel", parts.otel_slot))
        if read.given("otel")
        else None,
        mask=parts.parse_mask(read.ini("mask")) if read.given("mask") else (),
        quarantine=_quarantine(read),
    )


def _defaults(
    read: SettingReader, threshold: float, verbosity: int, invalid_fails: bool
) -> Defaults:
    """What every comparison of the session defaults to: metric, threshold, options, how many
    fields a failure lists, and whether an answer that breaks its schema fails."""
    return Defaults(
        metric=read.text("metric")[0].strip() or "field_f1",
        threshold=threshold,
        options=parts.parse_options(read.text("options")[0]),
        verbosity=verbosity,
        invalid_fails=invalid_fails,
    )


def _update(read: SettingReader) -> UpdateMode | None:
    if not read.given("update"):
        return None
    return parts.parse_update(*read.text("update"), bool(os.environ.get("CI")))


def _judge(read: SettingReader) -> JudgeSetup | None:
    if not read.given("judge"):
        return None
    replay = read.given("record") and parts.parse_record(read.parts("record")).mode == "none"
    return parts.parse_judge(*read.merged("judge", parts.judge_slot), read.config.rootpath, replay)


def _quarantine(read: SettingReader) -> Quarantine | None:
    if not read.given("quarantine"):
        return None
    from ..reporting.verdicts.quarantine import quarantine_setting

    return quarantine_setting(*read.text("quarantine"), read.config)


def _shard(read: SettingReader, split: tuple[object, object]) -> tuple[int, int] | None:
    """jsonmatch_shard, or pytest-split's ``--splits N --group i`` where it is installed."""
    if not read.given("shard") and split[0] is None:
        return None
    from ..reporting.verdicts.shards import parse_shard, shard_of

    return shard_of(parse_shard(*read.text("shard")) if read.given("shard") else None, *split)


# -- one reader per kind of value ---------------------------------------------------------


def _golden(read: SettingReader) -> tuple[tuple[Path, ...], tuple[Path, ...], int]:
    """Golden folders, each of which must exist (a typo would collect no case, silently), its
    schema_dirs= (from the ini file's folder, as pytest reads paths) and max_cases=."""
    config, words, what = read.config, read.ini("golden"), PREFIX + "golden"
    base = config.inipath.parent if config.inipath is not None else config.invocation_params.dir
    plain, dirs, max_cases = parts.golden_keys(
        [str(w) for w in words] if isinstance(words, list) else [], what
    )
    folders = tuple(base / p for p in plain)
    for folder in folders:
        if not folder.is_dir():
            raise ConfigError(
                f"jsonmatch_golden: {folder.name!r} is not a folder (looked for {str(folder)!r})"
            )
    return folders, tuple(base / d for d in dirs), max_cases


def _targets(read: SettingReader, target: str) -> tuple[tuple[TargetSpec, ...], VersusSettings]:
    """The named targets selected to run, and the reference the others are held to."""
    from ..calls.targets import parse_targets, select_targets
    from ..reporting.verdicts.versus import parse_reference

    lines = read.ini("targets")
    declared = parse_targets(
        [str(line) for line in lines] if isinstance(lines, list) else [], read.parts("calls")
    )
    if declared and target:
        raise ConfigError(
            "jsonmatch_target and jsonmatch_targets are both set: name the one "
            "target in jsonmatch_target, or several in jsonmatch_targets"
        )
    chosen = read.flag("targets")
    if chosen is not None and not declared:
        raise ConfigError(
            f"{BY_NAME['targets'].flag} selects targets of jsonmatch_targets, which declares none"
        )
    text, what = read.merged("reference", parts.reference_slot)
    # (named by the flag where it gave a part: the gates' messages quote that name)
    versus = parse_reference(text, what.split(" over ")[0])
    if versus.reference:  # one of those declared (it may be left out of this run)
        select_targets(declared, versus.reference, versus.what)
    return select_targets(declared, str(chosen or ""), BY_NAME["targets"].flag), versus


def _baseline(text: str, what: str) -> tuple[str, bool]:
    if not text.strip():
        return "", False
    from ..reporting.verdicts.baseline import baseline_setting

    return baseline_setting(text, what)


def _report_words(read: SettingReader) -> list[tuple[list[str], list[tuple[str, str]], str]]:
    """jsonmatch_report's words, the ini's then the flag's: (paths, keys, shown name)."""
    out = []
    for value, what in ((read.ini("report"), PREFIX + "report"), (read.flag("report"), "")):
        what = what or BY_NAME["report"].flag
        words = [str(w) for w in value] if isinstance(value, list) else []
        out.append((*parts.split_keys(words, what, parts.REPORT_KEYS), what))
    return out


def _reports(read: SettingReader) -> ReportFiles | None:
    """The report files: the flag's paths when it gives any, else the ini's; and the step
    summary of GitHub Actions where the job has one (None: no report file)."""
    steps = os.environ.get("GITHUB_STEP_SUMMARY")
    (ini, _, ini_what), (flag, _, flag_what) = _report_words(read)
    paths, what = (flag, flag_what) if flag else (ini, ini_what)
    if not paths and not steps:  # (keys alone, as group_by=file, write no file)
        return None
    return parts.parse_reports(paths, what, read.config.invocation_params.dir, steps)
