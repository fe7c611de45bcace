"""A framework's tests run where its distribution is installed, and are deselected where it
is not (conftest.py; the lowest-versions run of .ci/run leaves the frameworks out, deepeval has
a run of its own). An installed framework that fails to import is an error."""

from __future__ import annotations

import importlib
from importlib import metadata
from types import ModuleType

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
    """The framework, imported (conftest.py collects a framework's module only where it is
    installed)."""
    return importlib.import_module(module)
