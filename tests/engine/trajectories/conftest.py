"""The parity test runs agentevals itself: it is collected only where agentevals is installed
(the test extra; CI's main run). The floor-versions run cannot install it (its langchain-core
needs pydantic >= 2.7.4, above the floor that run checks), and reports the module as left out
in its header, never as skipped."""

from __future__ import annotations

from importlib.util import find_spec

PARITY = "test_agentevals_parity.py"


def _installed() -> bool:
    return find_spec("agentevals") is not None


def pytest_report_header(config):
    if not _installed():
        return [f"jsonmatch trajectories: agentevals not installed, {PARITY} not collected"]
    return []


def pytest_ignore_collect(collection_path, config):
    return True if collection_path.name == PARITY and not _installed() else None
