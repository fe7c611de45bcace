"""The parity test runs agentevals itself: it is collected only where agentevals is installed,
and the header says when it is not, never a skip. It is not in the test extra (it brings
langsmith, whose pytest plugin would load in every pytest process of the suite): .ci/run runs
it in an environment of its own (`pip install agentevals==0.0.9` beside the test extra runs it
locally, CONTRIBUTING.md)."""

from __future__ import annotations

from importlib.util import find_spec

PARITY = "test_agentevals_parity.py"


def _installed() -> bool:
    return find_spec("agentevals") is not None


def pytest_report_header(config):
    if not _installed():
        return [
            f"jsonmatch trajectories: agentevals not installed, {PARITY} not collected "
            "(.ci/run runs it in an environment of its own)"
        ]
    return []


def pytest_ignore_collect(collection_path, config):
    return True if collection_path.name == PARITY and not _installed() else None
