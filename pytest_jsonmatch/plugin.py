"""The pytest plugin: its options, the ``json_match`` fixture, golden case collection, and the
session object (session.py) that records every comparison and reports the run.

Under pytest-xdist, workers record comparisons and send them with their test reports; only
the controller aggregates, prints, writes the report and judges the gates.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pytest

from . import recording
from .settings import FLAGS, INI, read_settings

if TYPE_CHECKING:
    from .assertion import JsonMatcher

_SESSION = "jsonmatch-session"
_PREVIOUS_DEFAULTS = pytest.StashKey[recording.Defaults]()
_REGISTRY_BEFORE = pytest.StashKey[dict[str, set[str]]]()


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
    config.stash[_PREVIOUS_DEFAULTS] = recording.set_defaults(settings.defaults)
    config.pluginmanager.register(JsonmatchSession(config, settings), _SESSION)
    config.pluginmanager.register(_Registrar(config), "jsonmatch-registrar")


class _Registrar:
    """Calls pytest_jsonmatch_register (historic) as soon as a plugin or conftest file
    implements it. Once called, pluggy calls implementations registered later by itself."""

    def __init__(self, config: pytest.Config) -> None:
        self.config = config

    def pytest_plugin_registered(self, plugin: Any) -> None:
        config = self.config
        if _REGISTRY_BEFORE not in config.stash and hasattr(plugin, "pytest_jsonmatch_register"):
            from .engine.registry import REGISTRY

            config.stash[_REGISTRY_BEFORE] = _registry_names(REGISTRY)
            config.hook.pytest_jsonmatch_register.call_historic(kwargs={"registry": REGISTRY})


def _registry_names(registry: Any) -> dict[str, set[str]]:
    return {"comparators": set(registry.comparator_names), "transforms": set(registry.transform_names),
            "metrics": set(registry.metrics), "post_processors": set(registry.post_processors)}


@pytest.hookimpl(trylast=True)
def pytest_unconfigure(config: pytest.Config) -> None:
    previous = config.stash.get(_PREVIOUS_DEFAULTS, None)
    if previous is not None:
        recording.set_defaults(previous)
    before = config.stash.get(_REGISTRY_BEFORE, None)
    if before is not None:
        # undo what this session registered, so that a session run inside a test
        # (pytester) leaves the process as it found it
        from .engine.registry import REGISTRY

        for kind, names in _registry_names(REGISTRY).items():
            for name in names - before[kind]:
                if kind == "metrics":
                    REGISTRY.metrics.pop(name, None)
                else:
                    REGISTRY.unregister(name)


@pytest.fixture
def json_match(request: pytest.FixtureRequest) -> JsonMatcher:
    """``json_match(actual, expected, metric=None, threshold=None, **options)``: assert that
    ``actual`` matches ``expected`` with the session's metric, threshold and options (ini
    ``jsonmatch_metric``, ``jsonmatch_threshold``, ``jsonmatch_options``); returns the
    MatchResult, raises AssertionError with the fields that cost points. Recorded for the
    ``jsonmatch`` summary and reports."""
    from .assertion import JsonMatcher

    session = request.config.pluginmanager.get_plugin(_SESSION)
    return JsonMatcher(session.settings.defaults if session is not None else recording.defaults())
