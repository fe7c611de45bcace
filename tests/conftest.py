"""Loaded once for the whole test session.

pytester's in-process runs drop every module an inner session imports. Compiled modules
cannot be imported twice (a second PyYAML import mixes two generations of its node classes;
scipy's and numpy's refuse), and the package is cheaper to import once, so all of them are
imported here, before any inner run.
"""

import gc
import importlib
import importlib.util
import os as _os
import pkgutil
import sys as _sys

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


# -- the source lines of an inner session's tracebacks, found once per source -----------------
#
# An inner session that stops (a collection error, Ctrl-C: pytest's Interrupted) has its
# terminal reporter render the stop's whole traceback, and pytest finds each entry's
# statement by parsing and walking the whole file it stands in (its own main.py, pluggy's
# modules): about 0.1 s of CPU a stop, the same files every time, some 150 stops a run of
# the suite. The answer depends only on the line and the file's lines, so it is kept per
# (line, lines) and given again, the same object: what any inner session prints is unchanged.
_STATEMENT_RANGES_KEPT = 4096


def _statement_ranges_found_once() -> None:
    from _pytest._code import code as _code
    from _pytest._code import source as _source

    found = getattr(_source, "getstatementrange_ast", None)
    if found is None or getattr(found, "_found_once", False):
        return
    kept: dict = {}

    def getstatementrange_ast(lineno, source, assertion=False, astnode=None):
        key = (lineno, bool(assertion), tuple(source.lines))
        answer = kept.get(key)
        if answer is None:
            answer = found(lineno, source, assertion=assertion, astnode=astnode)
            if len(kept) >= _STATEMENT_RANGES_KEPT:
                kept.clear()
            kept[key] = answer
        return answer

    getstatementrange_ast._found_once = True
    _source.getstatementrange_ast = getstatementrange_ast
    if getattr(_code, "getstatementrange_ast", None) is found:
        _code.getstatementrange_ast = getstatementrange_ast


_statement_ranges_found_once()


# The environment variables the plugin and the command line read to find out where they run.
# CI machines set some of them (CI=true refuses golden updates; GITHUB_ACTIONS switches on
# annotations); every test starts without them and sets the ones it is about.
_RUNNER_VARIABLES = ("CI", "GITHUB_ACTIONS", "GITHUB_STEP_SUMMARY", "NO_COLOR", "FORCE_COLOR")


@pytest.fixture(autouse=True)
def _runner_neutral_environment(monkeypatch):
    for name in _RUNNER_VARIABLES:
        monkeypatch.delenv(name, raising=False)


@pytest.fixture(autouse=True)
def _no_bytecode_beside_inner_test_files(request, monkeypatch):
    """An inner session writes no bytecode (its own, in process; its subprocesses', through
    the environment). pytest keeps a rewritten test module's code beside it, known by the
    file's size and its modification time in whole seconds: a test that writes a test file
    again, as long as before, within the second, and runs it again, would run the old code
    wherever the outer run writes bytecode (CI sets no PYTHONDONTWRITEBYTECODE)."""
    if "pytester" in request.fixturenames:
        monkeypatch.setattr(_sys, "dont_write_bytecode", True)
        monkeypatch.setenv("PYTHONDONTWRITEBYTECODE", "1")


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


# -- fewer examples in .ci/run's floor-versions run --------------------------------------------
#
# JSONMATCH_TEST_EXAMPLES=SHARE (a number in (0, 1]) runs every hypothesis test with that
# share of its examples (at least MIN_EXAMPLES, never more than it asks for). The floor-versions
# run sets it: it holds the oldest versions to what the README's run holds the newest ones to,
# where each property has been explored with all its examples.
MIN_EXAMPLES = 10


def _examples_share() -> float | None:
    value = _os.environ.get("JSONMATCH_TEST_EXAMPLES", "").strip()
    if not value:
        return None
    try:
        share = float(value)
    except ValueError:
        share = 0.0
    if not 0.0 < share <= 1.0:
        raise pytest.UsageError(f"JSONMATCH_TEST_EXAMPLES={value!r}: a share in (0, 1] is needed")
    return share


@pytest.hookimpl(tryfirst=True)
def pytest_cmdline_main(config):
    """Under ``-n N`` without a ``--dist`` of the caller's, the workers steal from each
    other's queues (``worksteal``): xdist's default hands the tests out in batches ahead of
    time, and a run ended with one worker idle for 32 s while the other still held a batch.
    Set here rather than in ``addopts``: the runs without xdist (agentevals', deepeval's)
    read the same ini file, and would refuse the option."""
    if getattr(config.option, "numprocesses", None) and config.option.dist == "no":
        config.option.dist = "worksteal"


def pytest_collection_modifyitems(items):
    share = _examples_share()
    if share is None:
        return
    for item in items:
        test = getattr(item, "obj", None)
        # (what @given reads when the test runs: @settings' own, or the default profile's)
        asked = getattr(test, "_hypothesis_internal_use_settings", None)
        if asked is None or getattr(test, "_jsonmatch_examples_share", None) is not None:
            continue
        fewer = min(asked.max_examples, max(MIN_EXAMPLES, round(asked.max_examples * share)))
        test._hypothesis_internal_use_settings = _settings(asked, max_examples=fewer)
        test._jsonmatch_examples_share = share


# middle-generation collections per full collection once a worker has collected (CPython's
# default: 10; see pytest_collection_finish)
FULL_COLLECTION_EVERY = 100


def pytest_collection_finish(session):
    """What a worker holds once it has collected (every module imported above, the test
    modules, the items) lives until it exits: it is moved out of the cyclic collector's reach
    (``gc.freeze``), so that each full collection the tests' allocations set off walks only
    what was made since: on tests/reporting and tests/dataset alone, 26 full collections took
    4.3 to 7.8 s with it walked every time, and frozen 45 to 47 took 2.8 to 4.7 s (more of
    them, each a fifth as long). Collected first, so that nothing that is already garbage is
    kept for good.

    A full collection still walks everything the tests keep alive since (pytester's inner
    sessions, hypothesis' examples, the engine's kept entries and scorers: 600,000 objects
    and more by a worker's end), and one ran every ten collections of the middle
    generation: 64 of them, 150 ms each, about 7% of the CPU of tests/engine/pairing,
    tests/reporting and tests/plugin/golden run alone. One in a hundred (11 of them there)
    takes GC's share from 15.6 s to 6.3-7.3 s of that run (two runs each, in turn). Nothing
    a test holds depends on when the collector runs: a test that needs a collection asks
    for one (``gc.collect``)."""
    gc.collect()
    gc.freeze()
    young, middle, _ = gc.get_threshold()
    gc.set_threshold(young, middle, FULL_COLLECTION_EVERY)
