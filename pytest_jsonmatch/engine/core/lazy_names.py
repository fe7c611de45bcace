"""A package's public names imported on first use (PEP 562), so that importing the package
loads none of its modules until one of its names is read.

A package lists its names with the module that holds each (relative to the package) and
sets ``__getattr__ = lazy_names(__name__, TABLE, globals())``: the first lookup of a name
imports its module and keeps the value in the package's namespace, so the next lookup is a
plain one. A name not in the table is the usual AttributeError. The names stay typed for
checkers through imports under ``TYPE_CHECKING`` in the package itself.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from importlib import import_module


def lazy_names(
    package: str, names: Mapping[str, str], namespace: dict[str, object]
) -> Callable[[str], object]:
    """The ``__getattr__`` of ``package``: ``names`` maps each name to its module, relative
    to the package (``"reply"``, ``".engine.match"``: one leading dot or none), and
    ``namespace`` is the package's ``globals()``, where each value is kept once read."""

    def lookup(name: str) -> object:
        module = names.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(import_module("." + module.lstrip("."), package), name)
        namespace[name] = value  # the next lookup is a plain one
        return value

    return lookup
