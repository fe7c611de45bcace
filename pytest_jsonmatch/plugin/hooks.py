"""The pytest hooks: settings declared and read (settings.py), the session's parts built once
and handed on, golden case files collected, the ``json_match`` fixture.

``pytest_configure`` builds the typed settings and the session (session.py); the golden session
(golden_items.py: case files, outputs, the live calls started ahead of their tests) starts
with the first case file collected, or at once when a target or recordings are set. A
session that never uses the plugin loads little more than its settings' declarations.
"""

from __future__ import annotations

import os
import sys
from contextvars import Token
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from ..engine.core.errors import JsonMatchError
from ..session import channel
from .settings import add_options, read_settings

if TYPE_CHECKING:
    from ..engine.comparing.registry import Registry, RegistryState
    from ..session.assertion import JsonMatcher
    from .golden_items import GoldenFile

_CHANNEL_TOKEN = pytest.StashKey[
    Token[channel.Channel]
]()  # undoes making the session's channel current
# the registry's state at start (None: not loaded)
_REGISTRY_BEFORE = pytest.StashKey["RegistryState | None"]()
_REGISTRY_MODULE = "pytest_jsonmatch.engine.comparing.registry"
_MASKING = "pytest_jsonmatch.engine.core.masking"


def pytest_addhooks(pluginmanager: pytest.PytestPluginManager) -> None:
    from . import hookspecs
    from .plain_imports import import_plainly

    import_plainly()  # (a session's hook is its own: one run inside a test, pytester's, too)
    pluginmanager.add_hookspecs(hookspecs)


def pytest_addoption(parser: pytest.Parser) -> None:
    add_options(parser)


def pytest_collect_file(file_path: Path, parent: pytest.Collector) -> GoldenFile | None:
    if not file_path.name.endswith((".yaml", ".yml")):
        return None  # the cheap test first: most files a session sees end here
    from .golden_session import collect_file

    return collect_file(file_path, parent)


def pytest_configure(config: pytest.Config) -> None:
    from .session import SESSION, JsonmatchSession

    settings = read_settings(config)
    if settings.mask:
        from ..engine.core.masking import declare

        declare(settings.mask)
    if settings.given_record is not None and settings.given_record.blocks_network:
        from ..calls import offline  # before anything the session runs (an import) connects

        offline.block(settings.given_record.allowed_hosts, "jsonmatch_record")
        config.add_cleanup(offline.unblock)  # however the session ends
    config.stash[_REGISTRY_BEFORE] = _registry_state()
    session = JsonmatchSession(config, settings)
    config.stash[SESSION] = session
    config.pluginmanager.register(session, "jsonmatch-session")
    # assert_json_match, called without the config, finds the session's channel as the
    # current one until the session ends (pytest_unconfigure)
    config.stash[_CHANNEL_TOKEN] = channel.enter(session.channel)
    if settings.given_judge is not None:  # the judge's runner, open until the session ends
        from ..calls.calls_in_flight import LOG_KEY
        from ..calls.judge_calls import JudgeCalls

        log = getattr(config, "workerinput", {}).get(LOG_KEY)  # in the session's shared folder
        try:  # (a judgments' recording that cannot be read stops the session here)
            session.judge = JudgeCalls.install(
                settings.given_judge,
                settings.workers,
                settings.given_record,
                settings.rootpath,
                shared=os.path.dirname(log) if log else None,
            )
            # measured or read once, in the controller; a collection alone asks no judge
            if not hasattr(config, "workerinput") and not config.option.collectonly:
                from ..session.judge_calibration import session_calibration as calibration

                session.read_files().calibration = calibration(settings, session.judge)
        except JsonMatchError as exc:
            raise pytest.UsageError(f"pytest-jsonmatch: {exc}") from None
    if settings.target or settings.targets or settings.given_record is not None:
        from .golden_session import start_golden_session  # a target that does not import stops

        start_golden_session(config)  # the session now, replaying too
    config.pluginmanager.register(_Registrar(config), "jsonmatch-registrar")
    if settings.golden or settings.workers > 1:  # (else with the first case file collected)
        from .golden_checks import GoldenChecks

        GoldenChecks.register(config, settings)
    try:
        settings.defaults.check()  # once plugins have registered their metrics
    except JsonMatchError as exc:
        raise pytest.UsageError(f"pytest-jsonmatch: {exc}") from None


class _Registrar:
    """Calls pytest_jsonmatch_register (historic) as soon as a plugin or conftest file
    implements it. Once called, pluggy calls implementations registered later by itself."""

    def __init__(self, config: pytest.Config) -> None:
        self.config = config
        self.called = False

    def pytest_plugin_registered(self, plugin: object) -> None:
        config = self.config
        if not self.called and hasattr(plugin, "pytest_jsonmatch_register"):
            from ..engine.metrics import REGISTRY

            self.called = True
            config.hook.pytest_jsonmatch_register.call_historic(kwargs={"registry": REGISTRY})


def _registry_state() -> RegistryState | None:
    """The engine registry's state, when the engine is loaded (it loads on first use: a
    registry loaded later starts from its built-ins, which is what undoing restores)."""
    module = sys.modules.get(_REGISTRY_MODULE)
    if module is None:
        return None
    registry: Registry = module.REGISTRY
    return registry.state()


@pytest.hookimpl(trylast=True)  # the jsonmatch section's last line
def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    offline = sys.modules.get("pytest_jsonmatch.calls.offline")  # loaded when the block is on
    if offline is not None and (line := offline.summary_line()):
        terminalreporter.write_line(line)


@pytest.hookimpl(trylast=True)
def pytest_unconfigure(config: pytest.Config) -> None:
    from .session import SESSION

    token = config.stash.get(_CHANNEL_TOKEN, None)
    if token is not None:
        del config.stash[_CHANNEL_TOKEN]
        channel.leave(token)  # the channel current before, e.g. the test running pytester's
        if _MASKING in sys.modules:  # and no pattern of this session's outlives it
            sys.modules[_MASKING].declare(())
    session = config.stash.get(SESSION, None)
    if session is not None:
        if session.judge is not None:
            session.judge.close()
        # the records let go, the summary and the reports out: pytest 8.4 and later collect
        # garbage five times as the config is unconfigured, over all still held, and a
        # suite's records (a comparison and a case's field passes each, the report made of
        # them) are most of what the plugin holds
        session.comparisons, session.updates, session.report, session.counts = [], [], None, None
    module = sys.modules.get(_REGISTRY_MODULE)
    if module is not None and _REGISTRY_BEFORE in config.stash:
        # undo what this session registered (names, type defaults, embedders), so that a
        # session run inside a test (pytester) leaves the process as it found it
        before = config.stash[_REGISTRY_BEFORE]
        module.REGISTRY.restore(before if before is not None else module.Registry().state())


@pytest.fixture
def json_match(request: pytest.FixtureRequest) -> JsonMatcher:
    """``json_match(actual, expected, metric=None, threshold=None, **options)``: assert that
    ``actual`` matches ``expected`` with the session's metric, threshold and options (ini
    ``jsonmatch_metric``, ``jsonmatch_threshold``, ``jsonmatch_options``); returns the
    MatchResult, raises AssertionError with the fields that cost points. Recorded for the
    ``jsonmatch`` summary and reports."""
    from ..session.assertion import JsonMatcher
    from .session import SESSION

    session = request.config.stash.get(SESSION, None)
    return JsonMatcher(session.channel if session is not None else channel.current())
