"""The pytest plugin: options, fixtures, assertion recording, summary (skeleton)."""

from __future__ import annotations

from typing import Any

import pytest


def pytest_addhooks(pluginmanager: pytest.PytestPluginManager) -> None:
    from . import hookspecs

    pluginmanager.add_hookspecs(hookspecs)


def pytest_collect_file(file_path: Any, parent: pytest.Collector) -> Any:
    from . import golden

    return golden.collect_file(file_path, parent)
