"""Loaded once for the whole test session.

pytester's in-process runs drop every module an inner session imports. Compiled modules
cannot be imported twice (a second PyYAML import mixes two generations of its node classes;
scipy's and numpy's refuse), and the package is cheaper to import once, so all of them are
imported here, before any inner run.
"""

import importlib
import importlib.util
import os as _os
import pkgutil

import numpy  # noqa: F401
import pytest
import rapidfuzz.distance  # noqa: F401
import scipy.optimize
import scipy.sparse
import scipy.stats  # noqa: F401
import yaml  # noqa: F401
from hypothesis import HealthCheck as _HealthCheck
from hypothesis import Phase as _Phase
from hypothesis import settings as _settings

import pytest_jsonmatch

# The package root loads its modules on first use; load every one of them now, so that no
# inner run is the first to import one (a module imported anew by each inner run would give
# each its own copy of the engine's markers, such as MISSING, beside the outer one's).
# A module that is all about an extra's package is loaded only where that extra is installed
# (deepeval's CI environment installs only its own extra).
_EXTRA_MODULES = {"pytest_jsonmatch.telemetry.otlp_export": "opentelemetry.proto"}


def _installed(name: str) -> bool:
    try:
        return importlib.util.find_spec(name) is not None
    except ModuleNotFoundError:  # its parent package is not installed either
        return False


for _module in pkgutil.walk_packages(pytest_jsonmatch.__path__, "pytest_jsonmatch."):
    needs = _EXTRA_MODULES.get(_module.name)
    if not _module.name.endswith("__main__") and (needs is None or _installed(needs)):
        importlib.import_module(_module.name)


# The environment variables the plugin and the command line read to find out where they run.
# CI machines set some of them (CI=true refuses golden updates; GITHUB_ACTIONS switches on
# annotations); every test starts without them and sets the ones it is about.
_RUNNER_VARIABLES = ("CI", "GITHUB_ACTIONS", "GITHUB_STEP_SUMMARY", "NO_COLOR", "FORCE_COLOR")


@pytest.fixture(autouse=True)
def _runner_neutral_environment(monkeypatch):
    for name in _RUNNER_VARIABLES:
        monkeypatch.delenv(name, raising=False)


@pytest.fixture(autouse=True)
def _unspent_compile_budgets(request, monkeypatch):
    """Every test starts with the generated code's compile budgets unspent, as a process of
    its own would: the budgets are per process, and an xdist worker that ran other tests
    first (slowly, on a loaded machine) would otherwise have spent them, so that a test of
    the generated scorers got the general walk instead, depending on the order tests ran.
    And a shape's scorer is compiled at its second meeting (a run waits for its eighth,
    ``MIN_SIGHTINGS``), so that the tests holding the generated scorers to the general walk
    reach them with a few records; the tests marked ``production_sightings`` keep a run's."""
    from pytest_jsonmatch.dataset import fitting
    from pytest_jsonmatch.engine.walking import generated_scorers as compiled

    monkeypatch.setattr(compiled, "_spent", [0.0])
    monkeypatch.setattr(fitting, "_spent", [0.0])
    if request.node.get_closest_marker("production_sightings") is None:
        monkeypatch.setattr(compiled, "MIN_SIGHTINGS", 2)


# -- hypothesis profiles of the fuzz harness (tests/engine/test_fuzz.py; docs/errors.md, Fuzzing) --
#
# Only test_fuzz.py reads them (the other hypothesis tests set their own settings), and no
# profile is loaded here, so nothing else changes. "fuzz-ci" is the default: a fixed number
# of examples, derandomized, so that CI is reproducible and stays well under a minute.
# "fuzz-long" explores: JSONMATCH_FUZZ=N runs N examples per test (100,000 with
# --hypothesis-profile=fuzz-long), new ones on every run, failures kept in .hypothesis/.
# Neither has a deadline: test_fuzz.py bounds each call itself.

_FUZZ_HEALTH = [
    _HealthCheck.too_slow,
    _HealthCheck.data_too_large,
    _HealthCheck.filter_too_much,
    _HealthCheck.large_base_example,
]
# the explain phase re-runs failing examples many times over (slow); shrinking stays on
_FUZZ_PHASES = [_Phase.explicit, _Phase.reuse, _Phase.generate, _Phase.target, _Phase.shrink]
FUZZ_CI_EXAMPLES = 200
FUZZ_LONG_EXAMPLES = 100_000


def _fuzz_examples() -> int:
    value = _os.environ.get("JSONMATCH_FUZZ", "").strip().replace("_", "")
    return int(value) if value.isdigit() and int(value) > 0 else FUZZ_LONG_EXAMPLES


_settings.register_profile(
    "fuzz-ci",
    max_examples=FUZZ_CI_EXAMPLES,
    derandomize=True,
    database=None,
    deadline=None,
    print_blob=False,
    phases=_FUZZ_PHASES,
    suppress_health_check=_FUZZ_HEALTH,
)
_settings.register_profile(
    "fuzz-long",
    max_examples=_fuzz_examples(),
    derandomize=False,
    deadline=None,
    print_blob=True,
    phases=_FUZZ_PHASES,
    suppress_health_check=_FUZZ_HEALTH,
)
