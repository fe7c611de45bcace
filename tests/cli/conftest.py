"""The command line called in the test's process (tests/cli/run.py)."""

from __future__ import annotations

import functools

import pytest

from .run import jsonmatch_in_process


@pytest.fixture
def jsonmatch_main(capsys: pytest.CaptureFixture[str]):
    """Call as :func:`tests.cli.run.jsonmatch`, without its keyword arguments: ``jsonmatch
    ARGS`` run by ``pytest_jsonmatch.cli.main`` in this process, its exit status and output
    given back as a ``subprocess.CompletedProcess``."""
    return functools.partial(jsonmatch_in_process, capsys)
