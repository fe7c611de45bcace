"""Hooks that pytest-jsonmatch adds to pytest (implement them in a conftest.py or plugin).

Every extension point is declared here once; the engine's registry is where registered
comparators, transforms and metrics land.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from ..cases.case_files import GoldenCase
    from ..engine.metrics import Registry
    from ..engine.results.field_results import MatchResult


@pytest.hookspec(historic=True)
def pytest_jsonmatch_register(registry: Registry) -> None:
    """Register custom comparators, transforms, metrics or post-processors.

    Called once per session with the engine's :class:`~pytest_jsonmatch.Registry`: at
    configure time for the plugins and conftest files loaded by then, and when it is
    registered for a conftest file found later during collection. What a session
    registers is removed again when it ends. Example::

        def pytest_jsonmatch_register(registry):
            registry.register_comparator("date", compare_dates, overwrite=True)
    """


@pytest.hookspec(firstresult=True)
def pytest_jsonmatch_target(case: GoldenCase, config: pytest.Config, target: str) -> object:
    """Produce the actual output of a golden case that gives ``input`` instead of ``actual``.

    ``case`` is the :class:`~pytest_jsonmatch.cases.case_files.GoldenCase` (``input``, ``id``,
    ``path``, ``options``); ``target`` the name of the target the output is for (one of
    ``jsonmatch_targets``; empty when the session declares none: an implementation that does
    not take the argument serves every target alike). Return the model's output (a mapping,
    or text parsed leniently), or an awaitable of it; None leaves the case to the function
    the settings name (``jsonmatch_target``, or the target's line of ``jsonmatch_targets``)."""


def pytest_jsonmatch_result(
    item: pytest.Item, result: MatchResult, threshold: float, passed: bool
) -> None:
    """Called after every comparison made through the plugin, passing or failing, with the
    test ``item`` it was made in, the :class:`~pytest_jsonmatch.MatchResult`, the threshold
    it was held to and the verdict. Called before a failing comparison raises; runs in the
    process that ran the test (an xdist worker, under ``-n``)."""
