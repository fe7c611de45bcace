"""match_json's pair of objects scored in one frame where nothing but the walk and the scores
is needed (engine/entry.py, ``Entry.unread_pair``'s ``plain`` route, switch ``PLAIN_PAIR``):
no rule, weight, schema or schema check, the metric's ``finish`` and headline score read
from the options once per entry.

What must hold: every pair comes out as ``_score`` makes it (the switch off), to the bit,
under every metric and option that reaches the route or stays off it (a beta, a
``post_process`` step, a rule, a schema, a weight), and a value the door copies or refuses
is still the door's.
"""

from __future__ import annotations

import collections
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pytest_jsonmatch import match_json
from pytest_jsonmatch.engine import entry
from pytest_jsonmatch.engine.comparing.registry import Registry
from pytest_jsonmatch.engine.metrics.base import Metric
from pytest_jsonmatch.engine.metrics.structural_f1 import STRUCTURAL_F1
from tests.helpers import fuzz_values as fv
from tests.helpers.run_records import DAMAGED, INVOICE
from tests.helpers.sweeps import sweep
from tests.helpers.switches import on_and_off, said, switched

SETTINGS = sweep(60)

METRICS = [
    "field_f1",
    "json_similarity",
    "structural_f1",
    "field_match",
    "field_match_normalized",
]
# options on the route (none, a scalar, structural_f1's own, a beta, a post_process step
# that rewrites the fields) and off it (a rule, a weight, a schema)
OPTIONS: list[tuple[str | None, dict[str, Any]]] = [
    (None, {}),
    (None, {"align": "hungarian"}),
    ("structural_f1", {"beta": 2.0}),
    ("structural_f1", {"beta": 1}),
    ("structural_f1", {"string_evaluation_type": {"evaluation_type": "binary"}}),
    ("json_similarity", {"target_output_key": "*"}),
    ("field_f1", {"post_process": ["reclassify_nulls"]}),
    (None, {"ignore": ["id"]}),
    (None, {"fields": {"total": {"weight": 3}}}),
    (None, {"schema": {"type": "object", "properties": {"id": {"type": "string"}}}}),
]
ANSWERS: list[Any] = [
    DAMAGED,
    INVOICE,
    {},
    {"other": None, "total": 10.5},
    {**DAMAGED, "note": float("nan")},
    collections.OrderedDict(DAMAGED),
]


def both_ways(actual: Any, expected: Any, metric: str, **options: Any) -> tuple[str, str]:
    return on_and_off(entry, "PLAIN_PAIR", actual, expected, metric, **options)


@pytest.mark.parametrize("metric", METRICS)
def test_every_pair_comes_out_as_score_makes_it(metric: str) -> None:
    for only, options in OPTIONS:
        if only not in (None, metric):
            continue
        for answer in ANSWERS:
            for expected in (INVOICE, {**INVOICE, "total": float("inf")}, {}):
                on, off = both_ways(answer, expected, metric, **options)
                assert on == off, (answer, options)


def test_the_route_is_taken_and_the_switch_turns_it_off(monkeypatch: pytest.MonkeyPatch) -> None:
    """Not vacuous: on, a plain pair never reaches ``_score``, nor one whose metric's
    ``finish`` rewrites its fields (a ``post_process`` step, taken on the route); off, both
    do; a pair with a weight goes ``_score``'s way either way."""
    scored: list[object] = []
    real = entry._score

    def counted(*args: Any) -> Any:
        scored.append(args[3])
        return real(*args)

    monkeypatch.setattr(entry, "_score", counted)
    nulls = {**DAMAGED, "total": None}
    plain = said(nulls, INVOICE, "field_f1")
    finished = said(nulls, INVOICE, "field_f1", post_process=["reclassify_nulls"])
    assert scored == []
    assert finished != plain  # (the null answer an omission: the finish step ran)
    weighted = said(DAMAGED, INVOICE, "field_f1", fields={"total": {"weight": 3}})
    assert scored == [INVOICE]
    scored.clear()
    with switched(entry, "PLAIN_PAIR", False):
        assert said(nulls, INVOICE, "field_f1") == plain
        assert said(nulls, INVOICE, "field_f1", post_process=["reclassify_nulls"]) == finished
        assert said(DAMAGED, INVOICE, "field_f1", fields={"total": {"weight": 3}}) == weighted
    assert scored == [INVOICE] * 3


def test_a_beta_and_a_metric_of_its_own_headline_are_asked_each_time() -> None:
    """A beta read from the options, and a Metric subclass's own headline_score, are not
    taken for F1: the route asks the method, as ``_score`` does."""
    on, off = both_ways(DAMAGED, INVOICE, "structural_f1", beta=2.0)
    assert on == off
    result = match_json(DAMAGED, INVOICE, "structural_f1", beta=2.0)
    assert result.score != result.f1

    class Halved(Metric):
        def headline_score(self, precision: float, recall: float, f1: float, options: Any) -> float:
            return f1 / 2

    mine = Halved.__new__(Halved)
    for name in Metric.__slots__:
        setattr(mine, name, getattr(STRUCTURAL_F1, name))
    mine.name = "halved_f1"
    registry = Registry()
    registry.register_metric("halved_f1", mine)
    on, off = both_ways(DAMAGED, INVOICE, "halved_f1", registry=registry)
    assert on == off
    halved = match_json(DAMAGED, INVOICE, "halved_f1", registry=registry)
    assert halved.score == halved.f1 / 2 != 0


@SETTINGS
@given(
    pair=fv.PAIRS,
    metric=st.sampled_from(METRICS),
    options=st.sampled_from([o for only, o in OPTIONS if only is None]),
)
def test_drawn_pairs_score_the_same_by_score(
    pair: tuple[Any, Any], metric: str, options: dict[str, Any]
) -> None:
    actual, expected = pair
    on, off = both_ways(actual, expected, metric, **options)
    assert on == off
