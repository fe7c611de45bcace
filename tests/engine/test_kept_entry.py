"""The Entry ``match_json`` scores with, kept per metric, options and registry state
(``entry.kept_entry``): the same one for the same call, a new one for anything that changes
what it would be."""

from __future__ import annotations

import pytest

from pytest_jsonmatch import match_json, reset_type_defaults, set_type_default
from pytest_jsonmatch.engine.comparing.registry import Registry
from pytest_jsonmatch.engine.entry import kept_entry
from pytest_jsonmatch.engine.metrics.field_f1 import FIELD_F1


def test_the_same_metric_and_options_are_scored_by_one_entry() -> None:
    first = kept_entry("field_f1", {"align": "hungarian"})
    assert kept_entry("field_f1", {"align": "hungarian"}) is first
    assert kept_entry("field_f1", {}) is not first
    assert kept_entry("structural_f1", {"align": "hungarian"}) is not first
    # ``truncated`` is taken out of the options, and keeps an entry of its own
    assert kept_entry("field_f1", {"truncated": "close"}) is not kept_entry("field_f1", {})
    # True and 1 are equal keys, but not the same option value
    assert kept_entry("structural_f1", {"beta": 1}) is not kept_entry(
        "structural_f1", {"beta": 1.0}
    )


def test_options_that_are_not_plain_scalars_get_a_fresh_entry() -> None:
    # (a list may change between calls: no configuration is kept for it either)
    assert kept_entry("field_f1", {"ignore": ["a"]}) is not kept_entry(
        "field_f1", {"ignore": ["a"]}
    )


def test_a_registry_changed_since_gives_a_new_entry_and_its_score() -> None:
    pair = ({"a": "abc"}, {"a": "abd"})
    before = kept_entry("field_f1", {})
    # field_f1's strings compare exactly by default: one field, a mismatch, F1 0
    assert match_json(*pair).score == 0.0
    set_type_default("string", "levenshtein")
    try:
        assert kept_entry("field_f1", {}) is not before
        # 1 - distance 1 / length 3 = 2/3: one field, a match scoring 2/3, F1 2/3
        assert match_json(*pair).score == pytest.approx(2 / 3)
    finally:
        reset_type_defaults()
    assert match_json(*pair).score == 0.0


def test_another_registry_gets_its_own_entry() -> None:
    mine = Registry()
    mine.register_metric("mine", FIELD_F1)
    assert kept_entry("mine", {"registry": mine}).registry is mine
    assert kept_entry("mine", {"registry": mine}) is kept_entry("mine", {"registry": mine})
    assert kept_entry("field_f1", {}).registry is not mine
