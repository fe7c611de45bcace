"""The pytest plugin: its options, the ``json_match`` fixture, golden case collection, and the
session object (session.py) that records every comparison and reports the run.

Under pytest-xdist, workers record comparisons and send them with their test reports; only
the controller aggregates, prints, writes the report and judges the gates.
"""

from __future__ import annotations

import sys
from contextvars import Token
from typing import TYPE_CHECKING, Any

import pytest

from . import channel
from .settings import FLAGS, INI, check_defaults, read_settings

if TYPE_CHECKING:
    from .assertion import JsonMatcher

_SESSION = "jsonmatch-session"
_CHANNEL_TOKEN = pytest.StashKey[Token]()  # undoes making the session's channel current
_REGISTRY_BEFORE = pytest.StashKey[Any]()  # the registry's state at start (None: not loaded)
_REGISTRY_MODULE = "pytest_jsonmatch.engine.comparing.registry"


def pytest_addhooks(pluginmanager: pytest.PytestPluginManager) -> None:
    from . import hookspecs

    pluginmanager.add_hookspecs(hookspecs)


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("jsonmatch", "JSON matching (pytest-jsonmatch)")
    for dest, (flag, metavar, help_text) in FLAGS.items():
        if metavar:
            group.addoption(flag, dest=dest, metavar=metavar, default=None, help=help_text)
        else:  # a switch
            group.addoption(flag, dest=dest, action="store_true", default=None, help=help_text)
    for name, (kind, default, help_text) in INI.items():
        parser.addini(name, help_text, type=kind, default=default)  # type: ignore[arg-type]

    from . import golden

    golden.add_options(parser)


def pytest_collect_file(file_path: Any, parent: pytest.Collector) -> Any:
    from . import golden

    return golden.collect_file(file_path, parent)


def pytest_configure(config: pytest.Config) -> None:
    from .session import JsonmatchSession

    settings = read_settings(config)
    config.stash[_REGISTRY_BEFORE] = _registry_state()
    session = JsonmatchSession(config, settings)
    config.pluginmanager.register(session, _SESSION)
    # assert_json_match, called without the config, finds the session's channel as the
    # current one until the session ends (pytest_unconfigure)
    config.stash[_CHANNEL_TOKEN] = channel.enter(session.channel)
    config.pluginmanager.register(_Registrar(config), "jsonmatch-registrar")
    check_defaults(settings.defaults)  # once plugins have registered their metrics


class _Registrar:
    """Calls pytest_jsonmatch_register (historic) as soon as a plugin or conftest file
    implements it. Once called, pluggy calls implementations registered later by itself."""

    def __init__(self, config: pytest.Config) -> None:
        self.config = config
        self.called = False

    def pytest_plugin_registered(self, plugin: Any) -> None:
        config = self.config
        if not self.called and hasattr(plugin, "pytest_jsonmatch_register"):
            from ..engine.metrics import REGISTRY

            self.called = True
            config.hook.pytest_jsonmatch_register.call_historic(kwargs={"registry": REGISTRY})


def _registry_state() -> Any:
    """The engine registry's state, when the engine is loaded (it loads on first use: a
    registry loaded later starts from its built-ins, which is what undoing restores)."""
    module = sys.modules.get(_REGISTRY_MODULE)
    return module.REGISTRY.state() if module is not None else None


@pytest.hookimpl(trylast=True)
def pytest_unconfigure(config: pytest.Config) -> None:
    token = config.stash.get(_CHANNEL_TOKEN, None)
    if token is not None:
        del config.stash[_CHANNEL_TOKEN]
        channel.leave(token)  # the channel current before, e.g. the test running pytester's
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

    session = request.config.pluginmanager.get_plugin(_SESSION)
    return JsonMatcher(session.channel if session is not None else channel.current())
