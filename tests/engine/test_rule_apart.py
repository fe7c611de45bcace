"""A comparison's one rule on one root key, walked apart (engine/walking/rule_apart.py): the record's
other keys by the configuration without the rule, the key by the one with it, the fields put
in the whole walk's order. Held to the whole walk (the switch ``RULE_APART`` off) on the fuzz
generators' pairs, every rule a ``fields`` entry may give, and the key wherever it is."""

from __future__ import annotations

import json
from contextlib import AbstractContextManager
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pytest_jsonmatch import match_json
from pytest_jsonmatch.engine import entry
from pytest_jsonmatch.engine.configuring.walk_config import WalkConfig
from pytest_jsonmatch.engine.results.field_results import MATCH, MISMATCH, SKIPPED
from pytest_jsonmatch.engine.walking import rule_apart
from tests.helpers import fuzz_values as fv
from tests.helpers.switches import switched


def apart(on: bool) -> AbstractContextManager[None]:
    return switched(rule_apart, "RULE_APART", on)


def outcome(actual: Any, expected: Any, **options: Any) -> Any:
    """Everything a comparison gives, or its error's type and words."""
    try:
        result = match_json(fv.clone(actual), fv.clone(expected), **fv.clone(options))
    except Exception as exc:  # noqa: BLE001 - the error is part of the outcome compared
        return type(exc), str(exc)
    return (
        result.score,
        result.precision,
        result.recall,
        result.fields,
        result.pairings,
        result.floor_failures,
        result.truncated,
        result.conformance,
    )


def both_ways(actual: Any, expected: Any, **options: Any) -> Any:
    with apart(True):
        fast = outcome(actual, expected, **options)
    with apart(False):
        whole = outcome(actual, expected, **options)
    assert fast == whole
    return fast


def pattern_of(key: str) -> str:
    """A pattern naming ``key`` at the root: plain, or quoted."""
    return key if key.isascii() and key.isidentifier() else f"[{json.dumps(key)}]"


@st.composite
def keys_in(draw: Any, actual: Any, expected: Any) -> str:
    """A key of either side, or one neither has."""
    held = [k for side in (expected, actual) if isinstance(side, dict) for k in side]
    held = [k for k in held if isinstance(k, str)]
    return draw(st.sampled_from([*held, "absent", "unit price"]))


# (the rule's settings are drawn by @given, not data.draw: a draw is printed as it is made,
# and a setting may hold an integer past the digits an older hypothesis's repr allows)
@settings(
    max_examples=300,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=list(HealthCheck),
)
@given(
    data=st.data(),
    pair=fv.PAIRS,
    align=st.sampled_from([None, "hungarian"]),
    setting=st.one_of(
        st.none(),  # (ignore the key)
        fv.field_settings(valid=True),
        fv.field_settings(valid=False),
    ),
)
def test_one_rule_on_a_root_key_gives_the_whole_walks_result(
    data: Any, pair: tuple[Any, Any], align: str | None, setting: Any
) -> None:
    actual, expected = pair
    key = data.draw(keys_in(actual, expected))
    pattern = pattern_of(key)
    rule = {"ignore": [pattern]} if setting is None else {"fields": {pattern: setting}}
    options = rule if align is None else {**rule, "align": align}
    both_ways(actual, expected, **options)
    both_ways(actual, expected, truncated="close", **options)


# the record the cases below score: a key of every kind, the rule's key among them
RECORD = {"id": 7, "name": "acme", "total": 10, "lines": [{"sku": "a", "qty": 1}], "note": None}


@pytest.mark.parametrize(
    "options",
    [
        {"ignore": ["total"]},
        {"ignore": ["lines"]},
        {"ignore": ["extra"]},
        {"fields": {"total": {"tolerance": 5}}},
        {"fields": {"total": {"tolerance": 1, "min_score": 0.5}}},
        {"fields": {"name": {"comparator": "levenshtein", "weight": 3}}},
        {"fields": {"lines": {"comparator": "exact"}}},
        {"fields": {"lines": {"align": "hungarian"}}},
        {"fields": {"note": {"comparator": "exact"}}},
        {"fields": {"extra": {"comparator": "exact"}}},
        {"fields": {"id": {"skip": True}}},
    ],
    ids=lambda options: json.dumps(options, sort_keys=True),
)
@pytest.mark.parametrize(
    "actual",
    [
        {"id": 8, "name": "acme", "total": 12, "lines": [{"sku": "a", "qty": 2}], "note": None},
        {"name": "acne", "lines": [], "extra": 1, "id": 7},
        {"extra": [1, 2], "total": "10"},
        [1, 2],
    ],
    ids=["changed", "reordered", "sparse", "array"],
)
def test_the_rule_apart_on_each_kind_of_key(options: dict[str, Any], actual: Any) -> None:
    both_ways(actual, RECORD, **options)
    both_ways(actual, RECORD, align="hungarian", **options)
    both_ways(actual, {}, **options)  # (an empty object is compared whole: the whole walk's)


def test_a_tolerance_on_one_key_scored_by_hand() -> None:
    expected = {"id": 7, "name": "acme", "total": 10}
    actual = {"id": 8, "name": "acme", "total": 12}
    with apart(True):
        result = match_json(actual, expected, fields={"total": {"tolerance": 5}})
    # id 7 against 8: a mismatch, 0; name equal: 1; total 10 against 12, within 5: 1.
    # precision = recall = (0 + 1 + 1) / 3 fields = 2/3, F1 2/3
    assert [(f.path, f.status, f.score) for f in result.fields] == [
        ("id", MISMATCH, 0.0),
        ("name", MATCH, 1.0),
        ("total", MATCH, 1.0),
    ]
    assert result.score == pytest.approx(2 / 3)
    assert both_ways(actual, expected, fields={"total": {"tolerance": 5}})[0] == result.score


def test_an_ignored_key_keeps_its_place_among_the_fields() -> None:
    expected = {"a": 1, "b": {"c": 2}, "d": 3}
    actual = {"d": 3, "b": {"c": 2}, "e": 4, "a": 0}
    with apart(True):
        result = match_json(actual, expected, ignore=["b"])
    # a: 1 against 0, a mismatch; b ignored (counts nowhere); d equal; e only in the answer,
    # a hallucination: precision = 1 / 3 scored actual fields, recall = 1 / 2 expected ones
    assert [(f.path, f.status) for f in result.fields] == [
        ("a", MISMATCH),
        ("b", SKIPPED),
        ("d", MATCH),
        ("e", "hallucination"),
    ]
    assert result.fields[1].expected == {"c": 2} and result.fields[1].actual == {"c": 2}
    assert (result.precision, result.recall) == (pytest.approx(1 / 3), 0.5)
    both_ways(actual, expected, ignore=["b"])


def test_the_rule_apart_is_taken_where_it_may_be(monkeypatch: pytest.MonkeyPatch) -> None:
    """Not vacuous: a record with a rule on a root key is walked by the configuration
    without rules, with the key alone walked by the one with it; a rule below the root, or
    on a key holding an array it does not skip, takes the whole walk."""
    walked: list[WalkConfig] = []
    whole: list[WalkConfig] = []

    def counted(into: list[WalkConfig], real: Any) -> Any:
        def walk(cfg: WalkConfig, *args: Any, **kwargs: Any) -> Any:
            into.append(cfg)
            return real(cfg, *args, **kwargs)

        return walk

    monkeypatch.setattr(rule_apart, "walk", counted(walked, rule_apart.walk))
    monkeypatch.setattr(entry, "walk", counted(whole, entry.walk))
    with apart(True):
        match_json(RECORD, RECORD, ignore=["lines"])
        assert [cfg.rules for cfg in walked] == [()] and whole == []
        match_json(RECORD, RECORD, fields={"lines[].qty": {"tolerance": 1}})
        assert len(walked) == 1 and len(whole) == 1
        match_json(RECORD, RECORD, fields={"lines": {"align": "hungarian"}})
        assert len(walked) == 1 and len(whole) == 2
