"""A framework's tests run where its distribution is installed, and are skipped where it is
not (the lowest-versions run of .ci/run leaves the frameworks out; deepeval has a run of its
own). An installed framework that fails to import is an error, never a skip."""

from __future__ import annotations

import importlib
from importlib import metadata
from types import ModuleType

import pytest

# import name -> (distribution, extra)
FRAMEWORKS = {
    "pydantic_evals": ("pydantic-evals", "pydantic-evals"),
    "inspect_ai": ("inspect-ai", "inspect-ai"),
    "deepeval": ("deepeval", "deepeval"),
}


def installed(module: str) -> bool:
    try:
        metadata.version(FRAMEWORKS[module][0])
    except metadata.PackageNotFoundError:
        return False
    return True


def require(module: str) -> ModuleType:
    """The framework, imported; the calling test module is skipped when it is not installed."""
    if not installed(module):
        distribution, extra = FRAMEWORKS[module]
        pytest.skip(f'{distribution} is not installed (pip install "pytest-jsonmatch[{extra}]")',
                    allow_module_level=True)
    return importlib.import_module(module)
