"""Every setting of the plugin, declared and read here once: an ini key ``jsonmatch_<name>``
and, where one makes sense, a flag ``--jsonmatch-<name>`` that wins over it, as the table of
session/setting_table.py lists them. Their values are read from pytest's config when the
session starts and made into one typed :class:`Settings` (session/setting_reading.py), which
the rest of the plugin is handed; a malformed setting stops pytest with one line naming it.
docs/ci.md has the table.
"""

from __future__ import annotations

import argparse
import warnings

import pytest

from ..engine.core.errors import ConfigError, JsonMatchError, did_you_mean, known_names
from ..session import setting_parts as parts
from ..session.session_settings import Settings as Settings  # (read here, made there)
from ..session.setting_parts import PREFIX
from ..session.setting_reading import PytestSays, SettingReader, settings_read
from ..session.setting_table import BY_NAME, SETTINGS


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
    """Every setting, checked (session/setting_reading.py); a bad one is a UsageError naming
    it."""
    read = _Reader(config)
    try:
        _check_names(read)
        return settings_read(read, _pytest_says(config))
    except JsonMatchError as exc:
        raise pytest.UsageError(f"pytest-jsonmatch: {exc}") from None


class _Reader(SettingReader):
    """A setting's flag and ini value, as pytest's config holds them."""

    config: pytest.Config

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


def _pytest_says(config: pytest.Config) -> PytestSays:
    verbose = int(config.getoption("verbose", default=0) or 0)
    return PytestSays(
        verbose=verbose,
        verbosity=_verbosity(config, verbose),
        long_tracebacks=config.getoption("tbstyle", default="auto") == "long",
        workers=_workers(config),
        split=(config.getoption("splits", None), config.getoption("group", None)),
    )


def _check_names(read: _Reader) -> None:
    """No ini key this plugin lacks, and no flag of a setting merged into another."""
    _check_ini_names(read.config)
    for name in parts.MERGED:
        if read.config.getoption(PREFIX + name, default=None) is not None:
            raise ConfigError(parts.merged_message(name, flag=True))


def _workers(config: pytest.Config) -> int:
    """How many xdist workers run the tests: a worker is told; the controller asked for them."""
    told = getattr(config, "workerinput", {}).get("workercount")
    if told is None and getattr(config.option, "dist", "no") != "no":
        told = getattr(config.option, "numprocesses", None)
    return told if isinstance(told, int) and told > 0 else 1


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
