"""The Entry ``match_json`` scores with, kept per metric, options and registry state
(``entry.kept_entry``): the same one for the same call, a new one for anything that changes
what it would be."""

from __future__ import annotations

import pytest

from pytest_jsonmatch import match_json, reset_type_defaults, set_type_default
from pytest_jsonmatch.engine import entry
from pytest_jsonmatch.engine.comparing.registry import Registry
from pytest_jsonmatch.engine.core.errors import ConfigError
from pytest_jsonmatch.engine.entry import kept_entry
from pytest_jsonmatch.engine.metrics import REGISTRY
from pytest_jsonmatch.engine.metrics.base import config_key
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


# a schema given: the rules are read with its nodes, and kept with them (not apart)
SCHEMA = {"type": "object", "properties": {"a": {"type": "string"}, "b": {"type": "number"}}}


def ruled(**options: object) -> dict[str, object]:
    return {"schema": dict(SCHEMA), **options}


def test_options_of_plain_data_are_kept_by_their_content() -> None:
    # every assertion writes its options afresh: equal content, one entry
    first = kept_entry("field_f1", ruled(ignore=["a"], fields={"b": {"tolerance": 1}}))
    assert kept_entry("field_f1", ruled(ignore=["a"], fields={"b": {"tolerance": 1}})) is first
    # a tuple, a scalar's type, a mapping's order: each its own key
    assert kept_entry("field_f1", ruled(ignore=("a",), fields={"b": {"tolerance": 1}})) is not (
        first
    )
    assert kept_entry("field_f1", ruled(ignore=["a"], fields={"b": {"tolerance": 1.0}})) is not (
        first
    )
    two = ruled(fields={"b": {"weight": 2}, "a": {"weight": 3}})
    turned = ruled(fields={"a": {"weight": 3}, "b": {"weight": 2}})
    assert kept_entry("field_f1", two) is not kept_entry("field_f1", turned)
    binary = {"string_evaluation_type": {"evaluation_type": "binary"}}
    assert kept_entry("structural_f1", dict(binary)) is kept_entry("structural_f1", dict(binary))


def test_a_comparisons_own_rules_are_laid_over_the_kept_entry_of_its_other_options() -> None:
    # without a schema, ``ignore`` and ``fields`` are laid over the kept configuration of
    # the other options: read afresh the first time, kept from the second (a loop asking
    # for the same rules finds them), in a table of their own
    kept = kept_entry("field_f1", {"align": "hungarian"})
    first = kept_entry("field_f1", {"align": "hungarian", "ignore": ["a"]})
    again = kept_entry("field_f1", {"align": "hungarian", "ignore": ["a"]})
    assert first is not again and first is not kept
    asked = {"align": "hungarian", "ignore": ["a"]}
    assert kept_entry("field_f1", asked) is again
    asked["ignore"].append("b")  # (the kept entry holds its own copy of the options)
    assert again.options == {"align": "hungarian", "ignore": ["a"]}
    assert kept_entry("field_f1", asked) is not again
    assert first.cfg.root_rule == (kept.cfg, "a") and again.cfg.root_rule == (kept.cfg, "a")
    assert [rule.pattern.text for rule in first.cfg.rules] == ["a"]
    assert first.options == {"align": "hungarian", "ignore": ["a"]}
    # its metric, registry and schema check are the kept entry's; its routes its own
    assert (first.metric, first.registry, first.validator) == (
        kept.metric,
        kept.registry,
        kept.validator,
    )
    assert kept.unread and not first.unread
    # two rules, or one below the root: not one root key's rule
    assert kept_entry("field_f1", {"ignore": ["a", "b"]}).cfg.root_rule is None
    assert kept_entry("field_f1", {"ignore": ["a.b"]}).cfg.root_rule is None


def test_one_off_rules_never_clear_the_entries_of_the_options_they_share() -> None:
    # a suite of assertions, each its own rule, met twice each (kept), then once each
    base = kept_entry("field_f1", {"align": "hungarian"})
    for k in range(600):
        for _ in range(2):
            kept_entry("field_f1", {"align": "hungarian", "ignore": [f"key{k}"]})
    for k in range(2000):
        kept_entry("field_f1", {"align": "hungarian", "fields": {f"key{k}": {"weight": 2}}})
    assert kept_entry("field_f1", {"align": "hungarian"}) is base


def test_a_typo_in_a_comparisons_own_rule_is_named_at_every_call() -> None:
    for _ in range(2):
        with pytest.raises(ConfigError, match=r"fields\['a'\]: unknown setting 'tolerence'"):
            kept_entry("field_f1", {"fields": {"a": {"tolerence": 1}}})
    # the options' names first, then the other options, then the rules, as configure reads
    with pytest.raises(ConfigError, match="unknown option 'alin'"):
        kept_entry("field_f1", {"alin": "hungarian", "ignore": 5})
    with pytest.raises(ConfigError, match="align"):
        kept_entry("field_f1", {"align": "diagonal", "ignore": 5})
    with pytest.raises(ConfigError, match="ignore must be a path pattern"):
        kept_entry("field_f1", {"conformance": "yes", "ignore": 5})
    with pytest.raises(ConfigError, match="conformance must be true or false"):
        kept_entry("field_f1", {"conformance": "yes", "ignore": ["a"]})


def test_a_list_changed_in_place_between_calls_is_another_key_and_another_score() -> None:
    ignore = ["a"]
    pair = ({"a": 1, "b": 2}, {"a": 9, "b": 3})
    kept = kept_entry("field_match", {"ignore": ignore})
    # b alone is compared, a mismatch: 0/1
    assert match_json(*pair, metric="field_match", ignore=ignore).score == 0.0
    ignore.append("b")
    assert kept_entry("field_match", {"ignore": ignore}) is not kept
    # the entry read its rules when it was made: the list changed later does not reach them
    assert [rule.pattern.text for rule in kept.cfg.rules] == ["a"]
    # nothing left to compare: field_match scores an empty comparison 1.0
    assert match_json(*pair, metric="field_match", ignore=ignore).score == 1.0


def test_options_that_are_not_plain_data_get_a_fresh_entry() -> None:
    def mine(expected: object, actual: object) -> float:
        return 1.0

    assert kept_entry("field_f1", {"post_process": [mine]}) is not kept_entry(
        "field_f1", {"post_process": [mine]}
    )
    deep: object = "x"
    for _ in range(10):  # past the depth a key reads
        deep = [deep]
    assert config_key(FIELD_F1, {"ignore": deep}, REGISTRY) is None
    assert config_key(FIELD_F1, {"ignore": ["x"] * 300}, REGISTRY) is None  # past its size
    assert config_key(FIELD_F1, {"ignore": ["x"] * 200}, REGISTRY) is not None


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


def test_one_option_of_a_mapping_finds_its_kept_entry_by_its_content() -> None:
    # kept in _PLAIN by the mapping's content as config_key reads it (each value with its
    # type, its keys in order): a fresh mapping of the same content finds the same entry,
    # one of another content (or another type of a value) never does
    binary = {"evaluation_type": "binary"}
    first = kept_entry("structural_f1", {"string_evaluation_type": dict(binary)})
    assert entry._plain_entry("structural_f1", {"string_evaluation_type": dict(binary)}) is first
    assert kept_entry("structural_f1", {"string_evaluation_type": dict(binary)}) is first
    other = {"evaluation_type": "threshold", "evaluation_params": {"threshold": 10}}
    assert kept_entry("structural_f1", {"number_evaluation_type": other}) is not first
    nested = kept_entry("structural_f1", {"number_evaluation_type": other})
    assert kept_entry("structural_f1", {"number_evaluation_type": dict(other)}) is nested
    ten = {"evaluation_type": "threshold", "evaluation_params": {"threshold": 10.0}}
    assert kept_entry("structural_f1", {"number_evaluation_type": ten}) is not nested
    # a rule's mapping, or a schema, is never read into a key of _PLAIN
    assert entry._plain_key("field_f1", {"fields": {"a": {"tolerance": 1}}}) is None
    assert entry._plain_key("field_f1", {"schema": {"type": "object"}}) is None
    assert entry._plain_entry("field_f1", {"fields": {"a": {"tolerance": 1}}}) is None
    # a mapping changed in place is another key: its first entry is not found for it
    changing = {"evaluation_type": "binary"}
    kept = kept_entry("structural_f1", {"string_evaluation_type": changing})
    changing["evaluation_type"] = "exact"
    with pytest.raises(ConfigError):  # (read afresh, and refused as configure refuses it)
        kept_entry("structural_f1", {"string_evaluation_type": changing})
    assert kept.options == {"string_evaluation_type": binary}


def test_one_scalar_option_finds_its_kept_entry_by_name_and_value() -> None:
    # kept by the metric, the option's name, the value's type and the value (_PLAIN): the
    # entry config_key keeps, found again for the same option, never for another value
    first = kept_entry("field_f1", {"align": "hungarian"})
    assert kept_entry("field_f1", {"align": "hungarian"}) is first
    assert kept_entry("field_f1", {"align": "ordered"}) is not first
    assert kept_entry("structural_f1", {"beta": 2}) is not kept_entry(
        "structural_f1", {"beta": 2.0}
    )
    assert kept_entry("field_f1", {"conformance": True}) is kept_entry(
        "field_f1", {"conformance": True}
    )
    with pytest.raises(ConfigError, match="conformance must be true or false"):
        kept_entry("field_f1", {"conformance": 1})  # (1 == True, but not its entry's key)
    # a name kept_entry takes out, or a value that is no key, goes the options' way
    assert kept_entry("field_f1", {"truncated": "close"}) is not kept_entry("field_f1", {})
    assert kept_entry("field_f1", {"ignore": ["a"]}).cfg.rules
    with pytest.raises(ConfigError, match="unknown option 'bogus'"):
        kept_entry("field_f1", {"bogus": 1})
    with pytest.raises(ConfigError, match="unknown option 'bogus'"):  # (never kept)
        kept_entry("field_f1", {"bogus": 1})
    set_type_default("string", "levenshtein")
    try:  # (the registry changed: a new entry, with its new defaults)
        assert kept_entry("field_f1", {"align": "hungarian"}) is not first
    finally:
        reset_type_defaults()
