"""The cyclic garbage collector paused while records are scored (engine/core/gc_pause.py):
off inside ``evaluate_records``, back as it was after it, an error included; never turned
on by it when the caller had turned it off."""

from __future__ import annotations

import gc

import pytest

from pytest_jsonmatch import evaluate_records, register_comparator
from pytest_jsonmatch.engine.core.errors import ConfigError
from pytest_jsonmatch.engine.core.gc_pause import collector_paused


@pytest.fixture
def seen_by_a_comparator():
    """A comparator that notes whether the collector was on each time it scored."""
    seen: list[bool] = []

    def watching(expected, actual, params):
        seen.append(gc.isenabled())
        return 1.0 if expected == actual else 0.0

    register_comparator("test_collector_watch", watching, overwrite=True)
    yield seen
    from pytest_jsonmatch import REGISTRY

    REGISTRY.unregister("test_collector_watch")


def test_scoring_runs_with_the_collector_paused_and_restores_it(seen_by_a_comparator):
    assert gc.isenabled()
    schema = {
        "type": "object",
        "properties": {"a": {"type": "string", "x-eval-compare": "test_collector_watch"}},
    }
    run = evaluate_records(
        [{"a": "x"}, {"a": "y"}], [{"a": "x"}, {"a": "z"}], "field_f1", schema=schema
    )
    assert run.mean_score == 0.5  # (1 + 0) / 2
    assert seen_by_a_comparator == [False, False]
    assert gc.isenabled()


def test_an_error_restores_the_collector():
    with pytest.raises(ConfigError, match="as many actual records"):
        evaluate_records([{"a": 1}], [], "field_f1")
    assert gc.isenabled()


def test_a_collector_the_caller_turned_off_stays_off():
    gc.disable()
    try:
        with collector_paused():
            assert not gc.isenabled()
        assert not gc.isenabled()
        evaluate_records([{"a": 1}], [{"a": 1}], "field_f1")
        assert not gc.isenabled()
    finally:
        gc.enable()
