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
