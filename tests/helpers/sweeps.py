"""The settings of the engine's differential sweeps: hypothesis draws a fixed number of
examples, the same ones every run (derandomized, no example database), with no deadline
and no health check on slow or large draws (each example scores its pairs both ways, a
switch on and off)."""

from __future__ import annotations

from hypothesis import HealthCheck, settings


def sweep(max_examples: int) -> settings:
    """A sweep of ``max_examples`` examples (tests/conftest.py scales it where a run asks for
    a share of them)."""
    return settings(
        max_examples=max_examples,
        deadline=None,
        derandomize=True,
        database=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    )
