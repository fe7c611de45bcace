"""A fast path's switch (docs/architecture.md, "Fast paths") turned for the length of a
``with`` block, and put back as it was however the block ends: what the differential
tests compare the fast path against."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any


@contextlib.contextmanager
def switched(module: Any, name: str, on: Any) -> Iterator[None]:
    before = getattr(module, name)
    setattr(module, name, on)
    try:
        yield
    finally:
        setattr(module, name, before)


def said(actual: Any, expected: Any, metric: str, **options: Any) -> str:
    """Everything ``match_json`` says of the pair, as exact text, or its error: what a
    differential test compares with the switch on and off."""
    from pytest_jsonmatch import match_json
    from pytest_jsonmatch.engine.core.errors import JsonMatchError
    from tests.helpers.fuzz_values import exact_repr

    try:
        return exact_repr(match_json(actual, expected, metric, **options))
    except JsonMatchError as exc:
        return f"{type(exc).__name__}: {exc}"


def on_and_off(
    module: Any, name: str, actual: Any, expected: Any, metric: str, **options: Any
) -> tuple[str, str]:
    """What ``said`` gives of the pair with the switch ``module.name`` as it is, then off."""
    on = said(actual, expected, metric, **options)
    with switched(module, name, False):
        off = said(actual, expected, metric, **options)
    return on, off
