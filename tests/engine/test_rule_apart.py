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


# the metrics that lay ``ignore`` and ``fields`` over their kept configuration
METRICS = st.sampled_from(["field_f1", "structural_f1", "json_similarity", "field_match"])


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
    metric=METRICS,
)
def test_one_rule_on_a_root_key_gives_the_whole_walks_result(
    data: Any, pair: tuple[Any, Any], align: str | None, setting: Any, metric: str
) -> None:
    actual, expected = pair
    key = data.draw(keys_in(actual, expected))
    pattern = pattern_of(key)
    rule = {"ignore": [pattern]} if setting is None else {"fields": {pattern: setting}}
    options = rule if align is None else {**rule, "align": align}
    both_ways(actual, expected, metric=metric, **options)
    both_ways(actual, expected, metric=metric, truncated="close", **options)


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


# -- both sides unread (rule_apart.RULE_APART_UNREAD) -------------------------------------------


def unread_apart(on: bool) -> AbstractContextManager[None]:
    return switched(rule_apart, "RULE_APART_UNREAD", on)


# a value of the rule's key, or of another key: plain JSON most often, else what the door
# copies or refuses (NaN, tuples, subclasses, keys that are not strings, deep nesting)
KEY_VALUES = st.one_of(
    fv.JSON_SCALARS,
    fv.JSON_VALUES,
    fv.ANY_TREES,
    fv.NON_FINITE,
    fv.SUBCLASS_SCALARS,
    st.builds(lambda depth: fv.make_deep(depth, "dict", 1), st.integers(55, 105)),
)


@settings(
    max_examples=300,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=list(HealthCheck),
)
@given(
    pair=fv.PAIRS,
    value=st.one_of(st.none(), KEY_VALUES),
    other=st.one_of(st.none(), KEY_VALUES),
    align=st.sampled_from([None, "hungarian"]),
    setting=st.one_of(
        st.none(),  # (ignore the key)
        fv.field_settings(valid=True),
        fv.field_settings(valid=False),
    ),
    metric=METRICS,
)
def test_a_pair_walked_apart_unread_gives_the_read_pairs_result(
    pair: tuple[Any, Any], value: Any, other: Any, align: str | None, setting: Any, metric: str
) -> None:
    """match_json's two objects with one rule on a root key, walked apart with neither side
    through the door, against both read first: the same results and errors, to the bit,
    whatever the key (None: absent on that side) and the other keys hold."""
    actual, expected = pair
    expected = dict(expected) if isinstance(expected, dict) else {"a": expected}
    actual = dict(actual) if isinstance(actual, dict) else {"b": actual}
    if value is not None:
        expected["key"] = value
    if other is not None:
        actual["key"] = other
    rule = {"ignore": ["key"]} if setting is None else {"fields": {"key": setting}}
    options = rule if align is None else {**rule, "align": align}
    with unread_apart(False):
        read = fv.exact_repr(outcome(actual, expected, metric=metric, **options))
    with unread_apart(True):
        assert fv.exact_repr(outcome(actual, expected, metric=metric, **options)) == read


def test_a_pair_walked_apart_unread_reads_neither_side(monkeypatch: pytest.MonkeyPatch) -> None:
    """Not vacuous: two plain objects with one rule on a root key never reach the door; a
    key's value the door would not pass as it is sends both sides there, and the door's
    reading is the result's (an ignored NaN is described, not refused)."""
    read: list[str] = []
    real = entry.read_json

    def counted(value: Any, side: str, skip: Any = None) -> Any:
        read.append(side)
        return real(value, side, skip)

    monkeypatch.setattr(entry, "read_json", counted)
    expected = {"id": 7, "name": "acme", "total": 10}
    with apart(True), unread_apart(True):
        result = match_json({"id": 8, "name": "acme", "total": 12}, expected, ignore=["id"])
        assert read == []
        # name equal, total 10 against 12 a mismatch (exact); id ignored, counted nowhere:
        # precision = recall = 1 / 2
        assert (result.precision, result.recall) == (0.5, 0.5)
        odd = match_json({"id": float("nan"), "name": "acme"}, expected, ignore=["id"])
        assert read == ["expected", "actual"]
        assert odd.fields[0].status == SKIPPED and odd.fields[0].actual == "<not JSON: nan>"
        read.clear()
        copied = outcome({"id": 8, "name": "acme", "total": (1,)}, expected, ignore=["id"])
        assert read == ["expected", "actual"]  # (a tuple the walk met: the door reads it)
        # the door reads the tuple as a list: name equal 1, total 10 against [1] a mismatch
        # of shapes 0, id ignored: precision = recall = 1 / 2
        assert copied == outcome({"id": 8, "name": "acme", "total": [1]}, expected, ignore=["id"])
        assert copied[:3] == (0.5, 0.5, 0.5)


# -- one rule's entry (entry.ONE_RULE_ENTRY) ----------------------------------------------------


def one_rule_entry(on: bool) -> AbstractContextManager[None]:
    return switched(entry, "ONE_RULE_ENTRY", on)


@settings(
    max_examples=200,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=list(HealthCheck),
)
@given(
    pair=fv.PAIRS,
    key=st.sampled_from(["r1", "rid", "_r", "r unit price", "ré", "r.b"]),
    form=st.sampled_from(["ignore", "ignore str", "ignore tuple", "fields"]),
    others=st.sampled_from([{}, {"align": "hungarian"}, {"conformance": "yes"}, {"bogus": 1}]),
    setting=st.one_of(fv.field_settings(valid=True), fv.field_settings(valid=False)),
)
def test_one_rules_entry_scores_as_the_options_entry(
    pair: tuple[Any, Any], key: str, form: str, others: dict[str, Any], setting: Any
) -> None:
    """An assertion's one rule laid over the kept entry of its other options without the
    options' key gives what the general way gives: the same results and the same first
    error (the other options' names, the rule, the ``conformance`` option, in that order),
    the first time and once the rule is kept."""
    actual, expected = pair
    rule: dict[str, Any] = {
        "ignore": {"ignore": [key]},
        "ignore str": {"ignore": key},
        "ignore tuple": {"ignore": (key,)},
        "fields": {"fields": {key: setting}},
    }[form]
    options = {**others, **rule}
    with one_rule_entry(False):
        general = fv.exact_repr(outcome(actual, expected, **options))
    with one_rule_entry(True):
        if "bogus" not in others and "conformance" not in others:
            entry.kept_entry("field_f1", dict(others))  # (kept: the one rule's way is open)
        for _ in range(3):  # (read afresh, kept from the second time, found kept)
            assert fv.exact_repr(outcome(actual, expected, **options)) == general


def test_one_rules_entry_is_taken_and_kept() -> None:
    """Not vacuous: the one rule's entry lays the rule over the kept entry's configuration,
    and is kept from the second time its rule is asked for."""
    with one_rule_entry(True):
        free = entry.kept_entry("field_f1", {})
        first = entry.kept_entry("field_f1", {"ignore": ["q1z"]})
        assert first.cfg.root_rule == (free.cfg, "q1z")
        second = entry.kept_entry("field_f1", {"ignore": ["q1z"]})
        assert second is not first and entry.kept_entry("field_f1", {"ignore": ["q1z"]}) is second
        spec = entry.kept_entry("field_f1", {"fields": {"q2z": {"tolerance": 5}}}).cfg.rules[0]
        again = entry.kept_entry("field_f1", {"fields": {"q3z": {"tolerance": 5}}}).cfg.rules[0]
        assert spec.spec is again.spec  # (kept by the settings' content)
        assert (spec.pattern.text, again.pattern.text) == ("q2z", "q3z")


@pytest.mark.parametrize("key", ["a", "id_2", "unit price", "é", "a.b", "[0]", 'q"uote'])
def test_one_root_keys_spec_is_found_by_its_path_as_by_its_pattern(key: str) -> None:
    """``WalkConfig.spec_at`` under one rule on one root key reads the key's path, not the
    pattern: the same spec, or none, at every path the walk may write."""
    ruled = entry.kept_entry("field_f1", {"fields": {pattern_of(key): {"tolerance": 3}}}).cfg
    assert ruled.root_rule is not None and ruled.root_rule[1] == key
    general = ruled.replace(rules=ruled.rules)  # (no root_rule: every rule's pattern read)
    assert general.root_rule is None
    paths = ["a", "id_2", '["unit price"]', "é", '["a.b"]', '["[0]"]', '["q\\"uote"]', '["*"]']
    paths += [f"x.{p}" for p in paths] + [f"[0].{p}" for p in paths] + ["", "[0]", "a.b"]
    found = [ruled.spec_at(path, None) for path in paths]
    assert found == [general.spec_at(path, None) for path in paths]
    assert sum(spec is not None for spec in found) == 1  # (the key's own path alone)


# -- one rule's pair, no entry made for it (entry.ONE_RULE_PAIR) -------------------------------


def one_rule_pair(on: bool) -> AbstractContextManager[None]:
    return switched(entry, "ONE_RULE_PAIR", on)


@settings(
    max_examples=300,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=list(HealthCheck),
)
@given(
    pair=fv.PAIRS,
    key=st.sampled_from(["r1", "rid", "_r", "k", "r unit price", "ré"]),
    form=st.sampled_from(["ignore", "ignore str", "fields"]),
    others=st.sampled_from([{}, {"align": "hungarian"}, {"conformance": False}, {"bogus": 1}]),
    setting=st.one_of(fv.field_settings(valid=True), fv.field_settings(valid=False)),
    metric=METRICS,
    null_absent=st.booleans(),
)
def test_one_rules_pair_scores_as_its_entry(
    pair: tuple[Any, Any],
    key: str,
    form: str,
    others: dict[str, Any],
    setting: Any,
    metric: str,
    null_absent: bool,
) -> None:
    """match_json's two objects under one rule on one root key, walked apart by the kept
    entry of the other options and the rule's spec, give what the entry made for the rule
    gives (the same results to the bit, the same first error), under every metric that
    lays its rules over its kept configuration, the first time and every time after (the
    key on either side, both or neither; its values scalars, containers, odd values)."""
    actual, expected = pair
    actual = actual if isinstance(actual, dict) else {"k": actual, "r1": None}
    expected = expected if isinstance(expected, dict) else {"k": expected, "rid": 2}
    rule: dict[str, Any] = {
        "ignore": {"ignore": [key]},
        "ignore str": {"ignore": key},
        "fields": {"fields": {key: setting}},
    }[form]
    options = {**others, **rule}
    if null_absent and metric == "structural_f1":
        options["null_is_absent"] = True  # (an absent null makes no field on either side)
    with one_rule_pair(False):
        general = fv.exact_repr(outcome(actual, expected, metric=metric, **options))
    with one_rule_pair(True):
        if "bogus" not in others:
            entry.kept_entry(metric, dict(others))  # (kept: the one rule's way is open)
        for _ in range(3):  # (met afresh, then met again)
            got = fv.exact_repr(outcome(actual, expected, metric=metric, **options))
            assert got == general


@pytest.mark.parametrize(
    "options",
    [
        {"ignore": ["total"]},
        {"ignore": ["lines"]},
        {"ignore": ["extra"]},
        {"ignore": ["gone"]},
        {"fields": {"total": {"tolerance": 5}}},
        {"fields": {"total": {"tolerance": 1, "min_score": 0.5}}},
        {"fields": {"gone": {"tolerance": 1, "min_score": 0.5}}},
        {"fields": {"note": {"comparator": "exact"}}},
        {"fields": {"extra": {"comparator": "exact"}}},
        {"fields": {"id": {"skip": True}}},
        {"fields": {"name": {"transform": "lower"}}},
    ],
    ids=lambda options: json.dumps(options, sort_keys=True),
)
# (structural_f1's ``prepare`` step takes its pairs the entry's way)
@pytest.mark.parametrize("metric", ["field_f1", "json_similarity"])
def test_one_rules_pair_is_taken_and_scores_each_kind_of_key_as_its_entry(
    options: dict[str, Any], metric: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Not vacuous: the pair is scored without an entry made for its rule (kept_entry is
    not called) and as that entry scores it: the key on both sides, on one alone (an
    omission, its floor; an extra key), skipped, holding an array, or a null."""
    expected = {"id": 7, "name": "Acme", "total": 10, "lines": [1, 2], "note": None, "gone": 3}
    actual = {"id": 8, "name": "acme", "total": 12, "lines": [2], "note": None, "extra": 1}
    with one_rule_pair(False):
        general = fv.exact_repr(outcome(actual, expected, metric=metric, **options))
    made: list[object] = []
    original = entry.kept_entry

    def counted(name: str, given: dict[str, object]) -> entry.Entry:
        made.append(given)
        return original(name, given)

    original(metric, {})  # (the kept entry of the other options, none)
    monkeypatch.setattr("pytest_jsonmatch.engine.match.kept_entry", counted)
    with one_rule_pair(True):
        assert fv.exact_repr(outcome(actual, expected, metric=metric, **options)) == general
    assert made == []
