"""The pytest hooks: settings declared and read (settings.py), the session's parts built once
and handed on, golden case files collected, the ``json_match`` fixture.

``pytest_configure`` builds, in this order: the typed settings; the session (session.py);
the golden run (golden_items.py), put in the config's stash for the golden items; and the
live calls started ahead of their tests (calls_ahead.py).
"""

from __future__ import annotations

import sys
from contextvars import Token
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from ..engine.core import masking
from ..engine.core.errors import JsonMatchError
from ..cases import channel
from .settings import Settings, add_options, read_settings

if TYPE_CHECKING:
    from ..cases.fingerprints import Fingerprint
    from ..cases.targets import NamedTarget
    from ..engine.comparing.registry import Registry, RegistryState
    from .assertion import JsonMatcher
    from .golden_items import GoldenFile
    from .session import JsonmatchSession

_SESSION = pytest.StashKey["JsonmatchSession"]()
_CHANNEL_TOKEN = pytest.StashKey[Token[channel.Channel]]()  # undoes making the session's channel current
# the registry's state at start (None: not loaded)
_REGISTRY_BEFORE = pytest.StashKey["RegistryState | None"]()
_REGISTRY_MODULE = "pytest_jsonmatch.engine.comparing.registry"


def pytest_addhooks(pluginmanager: pytest.PytestPluginManager) -> None:
    from . import hookspecs

    pluginmanager.add_hookspecs(hookspecs)


def pytest_addoption(parser: pytest.Parser) -> None:
    add_options(parser)


def pytest_collect_file(file_path: Path, parent: pytest.Collector) -> GoldenFile | None:
    from .golden_items import collect_file

    return collect_file(file_path, parent)


def pytest_configure(config: pytest.Config) -> None:
    from .session import JsonmatchSession

    settings = read_settings(config)
    masking.declare(settings.mask)
    config.stash[_REGISTRY_BEFORE] = _registry_state()
    session = JsonmatchSession(config, settings)
    config.stash[_SESSION] = session
    config.pluginmanager.register(session, "jsonmatch-session")
    # assert_json_match, called without the config, finds the session's channel as the
    # current one until the session ends (pytest_unconfigure)
    config.stash[_CHANNEL_TOKEN] = channel.enter(session.channel)
    _start_golden_run(config, settings, session)
    config.pluginmanager.register(_Registrar(config), "jsonmatch-registrar")
    try:
        settings.defaults.check()  # once plugins have registered their metrics
    except JsonMatchError as exc:
        raise pytest.UsageError(f"pytest-jsonmatch: {exc}") from None


def _start_golden_run(config: pytest.Config, settings: Settings, session: JsonmatchSession) -> None:
    """The golden items' part of the session: case files, outputs (recorded or called
    through the live calls), the session's channel and update requests."""
    from ..cases.calls_in_flight import LOG_KEY, CallLog
    from ..cases.case_files import CaseFiles
    from ..cases.case_outputs import Outputs
    from ..cases.live_calls import LiveCalls
    from ..cases.case_files import GoldenCase
    from ..cases.targets import HookFirst, NamedTarget, TargetSpec
    from .calls_ahead import CallsAhead
    from .golden_items import GOLDEN_RUN, GoldenRun

    targets = settings.targets or (TargetSpec(name="", spec=settings.target,
                                              calls=settings.calls),)
    try:  # a target setting that does not import stops the session now, replaying too
        named = {t.name: NamedTarget(t.spec, check=bool(t.spec), what=t.setting) for t in targets}
    except JsonMatchError as exc:
        raise pytest.UsageError(f"pytest-jsonmatch: {exc}") from None

    def hook(case: GoldenCase, target: str) -> object:
        return config.hook.pytest_jsonmatch_target(case=case, config=config, target=target)

    # a plugin's hook answers first (None leaves the case to the setting's function)
    log = CallLog(getattr(config, "workerinput", {}).get(LOG_KEY))  # the worker's, shared
    calls = {t.name: LiveCalls(settings=t.calls.per_worker(settings.workers), log=log,
                               watch=session.telemetry.watch,
                               target=HookFirst(hook, named[t.name], t.name)) for t in targets}
    outputs = Outputs(record=settings.record.mode, root=settings.rootpath, calls=calls,
                      fingerprint=lambda name: _fingerprint(config, settings, named[name]))
    cases = CaseFiles(root=settings.rootpath, golden_dirs=settings.golden,
                      max_cases=settings.max_cases, creating=settings.update == "create",
                      metric=settings.defaults.metric, schema_dirs=settings.schema_dirs)
    config.stash[GOLDEN_RUN] = GoldenRun(settings=settings, cases=cases, outputs=outputs,
                                         channel=session.channel, ask_update=session.ask_update)
    config.pluginmanager.register(CallsAhead(outputs, session.worker), "jsonmatch-calls")
    if settings.record.mode != "off" and not session.worker:
        from .unused_recordings import UnusedRecordings

        names = tuple(t.name for t in settings.targets)
        config.pluginmanager.register(UnusedRecordings(cases, settings.record.prune, names),
                                      "jsonmatch-unused-recordings")


def _fingerprint(config: pytest.Config, settings: Settings, named: NamedTarget) -> Fingerprint:
    """What this session's recordings are made under: the modules defining the target (the
    hook's implementations, the function the setting names), the files and the declared
    value ``jsonmatch_record`` names."""
    from ..cases.fingerprints import source_files, take_fingerprint
    from ..cases.targets import import_target

    functions = [impl.function for impl in config.hook.pytest_jsonmatch_target.get_hookimpls()]
    declared = settings.record.declared
    try:
        return take_fingerprint(settings.record, settings.rootpath, source_files(
            [*functions, *([named.function()] if named.spec else [])]),
            import_target(declared, "jsonmatch_record: fingerprint") if declared else None)
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


@pytest.hookimpl(trylast=True)
def pytest_unconfigure(config: pytest.Config) -> None:
    token = config.stash.get(_CHANNEL_TOKEN, None)
    if token is not None:
        del config.stash[_CHANNEL_TOKEN]
        channel.leave(token)  # the channel current before, e.g. the test running pytester's
        masking.declare(())  # and no pattern of this session's outlives it
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
    from .assertion import JsonMatcher

    session = request.config.stash.get(_SESSION, None)
    return JsonMatcher(session.channel if session is not None else channel.current())
