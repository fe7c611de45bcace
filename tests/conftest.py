"""Loaded once for the whole test session.

pytester's in-process runs drop every module an inner session imports. Compiled modules
cannot be imported twice (a second PyYAML import mixes two generations of its node classes;
scipy's and numpy's refuse), and the package is cheaper to import once, so all of them are
imported here, before any inner run.
"""

import numpy  # noqa: F401
import pytest
import rapidfuzz.distance  # noqa: F401
import scipy.optimize  # noqa: F401
import scipy.sparse  # noqa: F401
import scipy.stats  # noqa: F401
import yaml  # noqa: F401

import pytest_jsonmatch  # noqa: F401


# The environment variables the plugin and the command line read to find out where they run.
# CI machines set some of them (CI=true refuses golden updates; GITHUB_ACTIONS switches on
# annotations); every test starts without them and sets the ones it is about.
_RUNNER_VARIABLES = ("CI", "GITHUB_ACTIONS", "GITHUB_STEP_SUMMARY", "NO_COLOR", "FORCE_COLOR")


@pytest.fixture(autouse=True)
def _runner_neutral_environment(monkeypatch):
    for name in _RUNNER_VARIABLES:
        monkeypatch.delenv(name, raising=False)
