"""A plain scalar that one side alone has, taken by ``one_sided`` in one step
(walking/unpaired.py, switch ``SCALAR_ONE_SIDED``), held to the loop that takes every
other value (its stack, its lookup of what earlier calls kept, its leaf test): every
result's exact text the same with the switch on and off, through ``match_json`` (whose
sides the walk reads itself) and ``evaluate_records`` (read by the door first), on the
fuzz generators' pairs and on the cases the step repeats the loop's rules for: a skip
rule, a floor, nulls that count as absent, a schema's null object, booleans beside
numbers."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pytest_jsonmatch import evaluate_records, match_json
from pytest_jsonmatch.engine.core.errors import JsonMatchError
from pytest_jsonmatch.engine.walking import unpaired
from tests.helpers import fuzz_values as fv
from tests.helpers.sweeps import sweep
from tests.helpers.switches import switched

pytestmark = pytest.mark.slow  # (CONTRIBUTING.md: the inner loop leaves it out)

SETTINGS = sweep(60)

METRICS = ["field_f1", "structural_f1", "json_similarity", "field_match"]
# options under which a lone scalar's field changes: skipped, given a floor, paired by
# another alignment (lone elements)
OPTION_LIST: list[dict[str, Any]] = [
    {},
    {"align": "hungarian"},
    {"ignore": ["a"]},
    {"ignore": ["items[*].sku"]},
    {"fields": {"a": {"min_score": 0.5}}},
    {"fields": {"*": {"min_score": 0.5}, "b": {"skip": True}}},
]
OPTIONS = st.sampled_from(OPTION_LIST)


def both_ways(actual: Any, expected: Any, metric: str, options: dict[str, Any]) -> list[str]:
    """What match_json and evaluate_records say of the pair, as exact text (or the error)."""
    out = []
    for score in (
        lambda: match_json(actual, expected, metric, **options),
        lambda: evaluate_records([expected], [actual], metric, **options).records[0],
    ):
        try:
            out.append(fv.exact_repr(score()))
        except JsonMatchError as exc:
            out.append(f"{type(exc).__name__}: {exc}")
    return out


def general_and_fast(
    actual: Any, expected: Any, metric: str, options: dict[str, Any]
) -> tuple[list[str], list[str]]:
    with switched(unpaired, "SCALAR_ONE_SIDED", False):
        general = both_ways(actual, expected, metric, options)
    return general, both_ways(actual, expected, metric, options)


@SETTINGS
@given(pair=fv.PAIRS, metric=st.sampled_from(METRICS), options=OPTIONS)
def test_a_lone_scalar_scores_the_same_in_one_step_or_through_the_loop(
    pair: tuple[Any, Any], metric: str, options: dict[str, Any]
) -> None:
    actual, expected = pair
    general, fast = general_and_fast(actual, expected, metric, options)
    assert fast == general


# each side's lone scalars of every kind: a null (absent where nulls count as absent), a
# boolean beside numbers, a huge integer, text with a dot and brackets in its key
LONE = [
    (
        {"a": 1, "b": None, "c": True, "d": 10**30, "e.f": "x", "items": [1, 2.5, None]},
        {"a": 1, "items": [1]},
    ),
    ({"a": 1, "items": [{"sku": "A", "n": None}]}, {"a": 1, "x": None, "y": False, "z": 0}),
    ({"a": None, "b": {"c": None, "d": 2}}, {"b": {}}),
    ({"a": "", "b": 0.0, "items": [True, False]}, {"a": "", "items": [True, 1, 0.0, None]}),
]


@pytest.mark.parametrize("metric", METRICS)
@pytest.mark.parametrize("options", OPTION_LIST)
@pytest.mark.parametrize(("expected", "actual"), LONE)
def test_each_rule_the_step_repeats_scores_as_the_loop(
    expected: dict[str, Any], actual: dict[str, Any], metric: str, options: dict[str, Any]
) -> None:
    general, fast = general_and_fast(actual, expected, metric, options)
    assert fast == general
    assert not fast[0].startswith(("JsonMatchError", "ConfigError"))


def test_a_schemas_null_object_makes_no_field_either_way() -> None:
    """field_f1 with a schema: a null where the schema has an object is no field alone."""
    schema = {
        "type": "object",
        "properties": {"a": {"type": "object", "properties": {"b": {"type": "string"}}}},
    }
    expected, actual = {"a": None, "c": 1}, {"c": 1}
    general, fast = general_and_fast(actual, expected, "field_f1", {"schema": schema})
    assert fast == general
    result = match_json(actual, expected, "field_f1", schema=schema)
    assert [f.path for f in result.fields if f.path.startswith("a")] == []


def test_the_switch_turns_the_step_off(monkeypatch: pytest.MonkeyPatch) -> None:
    """Not vacuous: the step never asks a scalar's JSON type, which the loop does."""

    def refused(value: object) -> str:
        raise AssertionError("the loop took a lone scalar")

    monkeypatch.setattr(unpaired, "json_type", refused)
    expected, actual = {"items": [1, 2]}, {"items": [1]}
    result = match_json(actual, expected, "field_f1")
    assert [(f.path, f.status) for f in result.fields] == [
        ("items[0]", "match"),
        ("items[1]", "omission"),
    ]
    with switched(unpaired, "SCALAR_ONE_SIDED", False), pytest.raises(AssertionError):
        match_json(actual, expected, "field_f1")
