"""Every setting of the plugin, declared and read here once: an ini key ``jsonmatch_<name>``
and, where one makes sense, a flag ``--jsonmatch-<name>`` that wins over it, as the table of
session/setting_table.py lists them. They are read when the session starts into one typed
:class:`Settings`, which the rest of the plugin is handed; a malformed setting stops pytest
with one line naming it. docs/ci.md has the table.
"""

from __future__ import annotations

import argparse
import os
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from ..engine.core.errors import ConfigError, JsonMatchError, did_you_mean, known_names
from ..session import setting_parts as parts
from ..session.channel import Defaults
from ..session.session_settings import Settings as Settings  # (read here, made there)
from ..session.setting_parts import PREFIX
from ..session.setting_table import BY_NAME, SETTINGS

if TYPE_CHECKING:  # each stage's parser loads when its setting is given (start-up stays light)
    from ..calls.judge_calls import JudgeSetup
    from ..calls.targets import TargetSpec
    from ..cases.updates import UpdateMode
    from ..reporting.render.report_files import ReportFiles
    from ..reporting.verdicts.quarantine import Quarantine
    from ..reporting.verdicts.versus import VersusSettings


def add_options(parser: pytest.Parser) -> None:
    """Declare every setting's ini key and flag."""
    group = parser.getgroup("jsonmatch", "JSON matching (pytest-jsonmatch)")
    for s in SETTINGS:
        if s.metavar is not None:
            group.addoption(
                s.flag,
                dest=s.key,
                metavar=s.metavar,
                default=None,
                action="append" if s.append else "store",
                # argparse formats help with %: a literal one is doubled
                help=(s.help + (f" (ini: {s.key})" if s.ini else "") + ".").replace("%", "%%"),
            )
        if s.ini is not None:
            parser.addini(s.key, f"jsonmatch: {s.help}.", type=s.ini, default=s.default)
    for name in parts.MERGED:  # hidden: --help names only the settings there are
        group.addoption(
            "--jsonmatch-" + name.replace("_", "-"),
            dest=PREFIX + name,
            default=None,
            action="append",
            help=argparse.SUPPRESS,
        )


def read_settings(config: pytest.Config) -> Settings:
    """Every setting, checked; a bad one is a UsageError naming it."""
    try:
        return _read(_Reader(config))
    except JsonMatchError as exc:
        raise pytest.UsageError(f"pytest-jsonmatch: {exc}") from None


class _Reader:
    """A setting's raw value: the flag's when given, else the ini's; and its name as the user
    wrote it, for messages."""

    def __init__(self, config: pytest.Config) -> None:
        self.config = config

    def flag(self, name: str) -> object:
        return (
            self.config.getoption(PREFIX + name, default=None)
            if BY_NAME[name].metavar is not None
            else None
        )

    def ini(self, name: str) -> object:
        return self.config.getini(PREFIX + name) if BY_NAME[name].ini is not None else None

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

    def paths(self, name: str) -> tuple[Path, ...]:
        value = self.ini(name)
        return tuple(Path(p) for p in value) if isinstance(value, list) else ()


def _read(read: _Reader) -> Settings:
    """A setting left at its default is not parsed: its part is built on first use."""
    config = read.config
    _check_names(read)
    verbose = int(config.getoption("verbose", default=0) or 0)
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
        defaults=_defaults(read, threshold, verbose, gates is not None and gates.invalid_fails),
        given_record=parts.parse_record(read.parts("record")) if read.given("record") else None,
        update=_update(read),
        given_repeat=parts.parse_repeat(read.parts("repeat")) if read.given("repeat") else None,
        given_calls=parts.parse_calls(read.parts("calls")) if read.given("calls") else None,
        given_reports=_reports(read),
        report_values=report.values,
        baseline=os.fspath(config.invocation_params.dir / baseline) if baseline else None,
        partial_baseline=partial,
        shard=_shard(read),
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
        verbose=verbose,
        full_tracebacks=config.getoption("tbstyle", default="auto") == "long" or verbose >= 2,
        annotations=os.environ.get("GITHUB_ACTIONS") == "true",
        workers=_workers(config),
        given_judge=_judge(read),
        given_otel=parts.parse_otel(*read.merged("otel", parts.otel_slot))
        if read.given("otel")
        else None,
        mask=parts.parse_mask(read.ini("mask")) if read.given("mask") else (),
        quarantine=_quarantine(read),
    )


def _check_names(read: _Reader) -> None:
    """No ini key this plugin lacks, and no flag of a setting merged into another."""
    _check_ini_names(read.config)
    for name in parts.MERGED:
        if read.config.getoption(PREFIX + name, default=None) is not None:
            raise ConfigError(parts.merged_message(name, flag=True))


def _defaults(read: _Reader, threshold: float, verbose: int, invalid_fails: bool) -> Defaults:
    """What every comparison of the session defaults to: metric, threshold, options, how many
    fields a failure lists, and whether an answer that breaks its schema fails."""
    return Defaults(
        metric=read.text("metric")[0].strip() or "field_f1",
        threshold=threshold,
        options=parts.parse_options(read.text("options")[0]),
        verbosity=_verbosity(read.config, verbose),
        invalid_fails=invalid_fails,
    )


def _update(read: _Reader) -> UpdateMode | None:
    if not read.given("update"):
        return None
    return parts.parse_update(*read.text("update"), bool(os.environ.get("CI")))


def _judge(read: _Reader) -> JudgeSetup | None:
    if not read.given("judge"):
        return None
    replay = read.given("record") and parts.parse_record(read.parts("record")).mode == "none"
    return parts.parse_judge(*read.merged("judge", parts.judge_slot), read.config.rootpath, replay)


def _quarantine(read: _Reader) -> Quarantine | None:
    if not read.given("quarantine"):
        return None
    from ..reporting.verdicts.quarantine import quarantine_setting

    return quarantine_setting(*read.text("quarantine"), read.config)


def _shard(read: _Reader) -> tuple[int, int] | None:
    """jsonmatch_shard, or pytest-split's ``--splits N --group i`` where it is installed."""
    split = read.config.getoption("splits", None), read.config.getoption("group", None)
    if not read.given("shard") and split[0] is None:
        return None
    from ..reporting.verdicts.shards import parse_shard, shard_of

    return shard_of(parse_shard(*read.text("shard")) if read.given("shard") else None, *split)


def _workers(config: pytest.Config) -> int:
    """How many xdist workers run the tests: a worker is told; the controller asked for them."""
    told = getattr(config, "workerinput", {}).get("workercount")
    if told is None and getattr(config.option, "dist", "no") != "no":
        told = getattr(config.option, "numprocesses", None)
    return told if isinstance(told, int) and told > 0 else 1


# -- one reader per kind of value ---------------------------------------------------------


def _golden(read: _Reader) -> tuple[tuple[Path, ...], tuple[Path, ...], int]:
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
            raise pytest.UsageError(
                f"pytest-jsonmatch: jsonmatch_golden: {folder.name!r} is not a "
                f"folder (looked for {str(folder)!r})"
            )
    return folders, tuple(base / d for d in dirs), max_cases


def _targets(read: _Reader, target: str) -> tuple[tuple[TargetSpec, ...], VersusSettings]:
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


def _report_words(read: _Reader) -> list[tuple[list[str], list[tuple[str, str]], str]]:
    """jsonmatch_report's words, the ini's then the flag's: (paths, keys, shown name)."""
    out = []
    for value, what in ((read.ini("report"), PREFIX + "report"), (read.flag("report"), "")):
        what = what or BY_NAME["report"].flag
        words = [str(w) for w in value] if isinstance(value, list) else []
        out.append((*parts.split_keys(words, what, parts.REPORT_KEYS), what))
    return out


def _reports(read: _Reader) -> ReportFiles | None:
    """The report files: the flag's paths when it gives any, else the ini's; and the step
    summary of GitHub Actions where the job has one (None: no report file)."""
    steps = os.environ.get("GITHUB_STEP_SUMMARY")
    (ini, _, ini_what), (flag, _, flag_what) = _report_words(read)
    paths, what = (flag, flag_what) if flag else (ini, ini_what)
    if not paths and not steps:  # (keys alone, as group_by=file, write no file)
        return None
    return parts.parse_reports(paths, what, read.config.invocation_params.dir, steps)


def _verbosity(config: pytest.Config, verbose: int) -> int:
    """pytest's assertion verbosity (pytest 8 lets it differ from -v)."""
    get = getattr(config, "get_verbosity", None)
    return int(get(getattr(config, "VERBOSITY_ASSERTIONS", None))) if get is not None else verbose


def _check_ini_names(config: pytest.Config) -> None:
    """A ``jsonmatch_*`` ini setting this plugin does not have is a typo: stop, and say which
    was meant (pytest itself only warns of unknown ini keys)."""
    registered = {s.key for s in SETTINGS if s.ini is not None}
    with warnings.catch_warnings():  # pytest 9.2 deprecates inicfg, the one list of the
        warnings.simplefilter("ignore")  # keys the ini file holds; without it, no check
        written = list(getattr(config, "inicfg", {}) or {})
    for name in written:
        if isinstance(name, str) and name.startswith(PREFIX) and name[10:] in parts.MERGED:
            raise pytest.UsageError(f"pytest-jsonmatch: {parts.merged_message(name[10:], False)}")
        if not isinstance(name, str) or not name.startswith("jsonmatch") or name in registered:
            continue
        try:
            config.getini(name)  # registered by another plugin
        except ValueError:
            # matched without the shared prefix, which would make every name look alike
            hint = did_you_mean(
                name[len(PREFIX) :], [n[len(PREFIX) :] for n in registered]
            ).replace(" '", f" '{PREFIX}")
            raise pytest.UsageError(
                f"pytest-jsonmatch: unknown ini setting {name!r}{hint}; "
                f"known: {known_names(registered)}"
            ) from None


def part_of_suite(config: pytest.Config, compared: bool = True) -> str:
    """Why this run selects part of the suite, in the words of its command line (empty: it
    runs the whole): a test selection (``-k``, ``-m``, ``--deselect``, ``--lf``), a case file
    or test named rather than a folder, or any path where it ``compared`` nothing. Floors and
    gates such a run did not reach are skipped, not failed (reporting/verdicts/gates.py)."""
    option = config.option
    why = [
        f"{flag} {value!r}" if isinstance(value, str) else flag
        for flag, value in (
            ("-k", getattr(option, "keyword", "")),
            ("-m", getattr(option, "markexpr", "")),
            ("--deselect", bool(getattr(option, "deselect", None))),
            ("--lf", bool(getattr(option, "lf", False))),
        )
        if value
    ]
    here, given = config.invocation_params.dir, config.args_source is config.ArgsSource.ARGS
    named = [
        arg
        for arg in config.args  # (relative to where pytest ran)
        if "::" in arg or (here / arg).is_file() or (given and not compared)
    ]
    if named:
        shown = ", ".join(named[:3]) + (f" and {len(named) - 3} more" if len(named) > 3 else "")
        why.append(f"named {shown}")
    return "; ".join(why)
