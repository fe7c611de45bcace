"""Properties that hold for every metric on arbitrary JSON (hypothesis)."""

from __future__ import annotations

import copy
import json
import math

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pytest_jsonmatch import evaluate_records, match_json
from tests.helpers.spec_accounting import assert_follows_section3

pytestmark = pytest.mark.slow  # (CONTRIBUTING.md: the inner loop leaves it out)

ALL_METRICS = [
    "field_match",
    "field_match_normalized",
    "json_similarity",
    "structural_f1",
    "field_f1",
]
F1_METRICS = ["structural_f1", "field_f1"]
STATUSES = {"match", "mismatch", "omission", "hallucination", "skipped"}

KEYS = st.sampled_from(["a", "b", "c", "id", "name", "unit price", "x.y"])
SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-1000, max_value=1000),
    st.floats(allow_nan=False, allow_infinity=False),
    st.text(alphabet="abcAB é ", max_size=6),
)
JSON = st.recursive(
    SCALARS,
    lambda children: st.one_of(
        st.lists(children, max_size=3), st.dictionaries(KEYS, children, max_size=3)
    ),
    max_leaves=8,
)
OBJECTS = st.dictionaries(KEYS, JSON, max_size=4)
ARRAYS = st.lists(JSON, max_size=4)

SETTINGS = settings(
    max_examples=40,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.too_slow],
)


def in_unit(x: float) -> bool:
    return isinstance(x, float | int) and not math.isnan(x) and 0.0 <= x <= 1.0


def dump(value) -> str:
    return json.dumps(value, sort_keys=True)  # tells true from 1, keeps key sets


@pytest.mark.parametrize("metric", ALL_METRICS)
@SETTINGS
@given(expected=OBJECTS, actual=OBJECTS)
def test_every_score_lies_in_unit_interval(metric, expected, actual):
    result = match_json(actual, expected, metric=metric)
    assert in_unit(result.score)
    assert in_unit(result.precision) and in_unit(result.recall) and in_unit(result.f1)
    for f in result.fields:
        assert f.status in STATUSES
        assert in_unit(f.score)


@pytest.mark.parametrize("metric", F1_METRICS)
@SETTINGS
@given(expected=ARRAYS, actual=ARRAYS)
def test_every_score_lies_in_unit_interval_for_top_level_arrays(metric, expected, actual):
    result = match_json(actual, expected, metric=metric)
    assert in_unit(result.score) and in_unit(result.f1)


@pytest.mark.parametrize("metric", ALL_METRICS)
@SETTINGS
@given(expected=OBJECTS, actual=OBJECTS)
def test_precision_recall_f1_follow_section_3(metric, expected, actual):
    result = match_json(actual, expected, metric=metric)
    assert_follows_section3(result)


@pytest.mark.parametrize("metric", ALL_METRICS)
@SETTINGS
@given(value=OBJECTS)
def test_a_value_against_itself_scores_one(metric, value):
    result = match_json(copy.deepcopy(value), value, metric=metric)
    assert result.score == 1.0
    assert result.f1 == 1.0
    assert {f.status for f in result.fields} <= {"match", "skipped"}


@pytest.mark.parametrize("metric", F1_METRICS)
@SETTINGS
@given(value=ARRAYS)
def test_an_array_against_itself_scores_one(metric, value):
    assert match_json(copy.deepcopy(value), value, metric=metric).score == 1.0


def test_a_value_against_itself_with_hungarian_alignment_scores_one():
    @SETTINGS
    @given(value=OBJECTS)
    def check(value):
        assert (
            match_json(copy.deepcopy(value), value, metric="field_f1", align="hungarian").score
            == 1.0
        )

    check()


@pytest.mark.parametrize("metric", ALL_METRICS)
@SETTINGS
@given(expected=OBJECTS, actual=OBJECTS)
def test_ignoring_every_field_leaves_nothing_scored(metric, expected, actual):
    result = match_json(actual, expected, metric=metric, ignore=["**"])
    assert all(f.status == "skipped" for f in result.fields)
    assert (result.precision, result.recall, result.f1) == (1.0, 1.0, 1.0)
    assert result.score == 1.0


@pytest.mark.parametrize("metric", ALL_METRICS)
@SETTINGS
@given(expected=OBJECTS, actual=OBJECTS)
def test_ignoring_every_top_level_key_leaves_nothing_scored(metric, expected, actual):
    # field_f1 compares an empty expected object whole (the schema gives it no fields), so
    # the root is then the one field and no key pattern reaches it: `**` covers that case.
    result = match_json(actual, expected, metric=metric, ignore=["*"] if expected else ["**"])
    assert all(f.status == "skipped" for f in result.fields if f.path not in ("", "$"))
    assert result.score == 1.0


@pytest.mark.parametrize("metric", ALL_METRICS)
@SETTINGS
@given(expected=OBJECTS, actual=OBJECTS)
def test_evaluate_records_of_one_record_equals_match_json(metric, expected, actual):
    single = match_json(actual, expected, metric=metric)
    run = evaluate_records([expected], [actual], metric=metric)
    (record,) = run.records
    assert (record.score, record.precision, record.recall, record.f1) == (
        single.score,
        single.precision,
        single.recall,
        single.f1,
    )
    assert [(f.path, f.status, f.score) for f in record.fields] == [
        (f.path, f.status, f.score) for f in single.fields
    ]
    assert run.mean_f1 == single.f1
    assert run.mean_precision == single.precision
    assert run.mean_recall == single.recall


@pytest.mark.parametrize("metric", ALL_METRICS)
@SETTINGS
@given(expected=OBJECTS, actual=OBJECTS)
def test_inputs_are_not_mutated(metric, expected, actual):
    e_before, a_before = dump(expected), dump(actual)
    options = {"align": "hungarian"} if metric == "field_f1" else {}
    match_json(actual, expected, metric=metric, **options)
    evaluate_records([expected], [actual], metric=metric, ignore=["a"])
    assert dump(expected) == e_before
    assert dump(actual) == a_before


# -- independent oracles written from the spec's rules --------------------------------------


def _type(v):
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "boolean"
    if isinstance(v, (int, float)):
        return "number"
    if isinstance(v, str):
        return "string"
    if isinstance(v, list):
        return "array"
    return "object"


def _fold(text):
    import unicodedata

    decomposed = unicodedata.normalize("NFD", text)
    return "".join(c for c in decomposed if not unicodedata.combining(c)).casefold()


def _deep_equal(x, y, fold=False):
    tx, ty = _type(x), _type(y)
    if tx != ty:
        return False
    if tx == "object":
        return set(x) == set(y) and all(_deep_equal(x[k], y[k], fold) for k in x)
    if tx == "array":
        return len(x) == len(y) and all(_deep_equal(a, b, fold) for a, b in zip(x, y))
    if tx == "string" and fold:
        return _fold(x) == _fold(y)
    return x == y


def _field_match_oracle(expected, actual, fold=False):
    if not expected:
        return 1.0
    bad = sum(
        1 for k, v in expected.items() if k not in actual or not _deep_equal(v, actual[k], fold)
    )
    return 1 - bad / len(expected)


def _levenshtein(s, t):
    prev = list(range(len(t) + 1))
    for i, cs in enumerate(s, 1):
        cur = [i]
        for j, ct in enumerate(t, 1):
            cur.append(min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (cs != ct)))
        prev = cur
    return prev[-1]


def _leaves(v):
    if isinstance(v, dict):
        return sum(_leaves(x) for x in v.values())
    if isinstance(v, list):
        return sum(_leaves(x) for x in v)
    return 1


def _similar(e, a):
    """(matched, total) for expected e against actual a, by the json_similarity rules."""
    te, ta = _type(e), _type(a)
    if te != ta:
        return 0.0, _leaves(e)
    if te == "object":
        m = t = 0.0
        for k, v in e.items():
            dm, dt = _similar(v, a[k]) if k in a else (0.0, _leaves(v))
            m, t = m + dm, t + dt
        return m, t
    if te == "array":
        m = t = 0.0
        for i, v in enumerate(e):
            dm, dt = _similar(v, a[i]) if i < len(a) else (0.0, _leaves(v))
            m, t = m + dm, t + dt
        return m, t
    if te == "number":
        if abs(e) <= 1e-12:
            return (1.0 if abs(a) <= 1e-12 else 0.0), 1
        return max(0.0, 1 - abs(e - a) / abs(e)), 1
    if te == "string":
        if e == a:
            return 1.0, 1
        return 1 - _levenshtein(e, a) / max(len(e), len(a)), 1
    return (1.0 if e == a else 0.0), 1


@SETTINGS
@given(expected=OBJECTS, actual=OBJECTS)
def test_field_match_equals_an_oracle_of_the_rules(expected, actual):
    assert match_json(actual, expected, metric="field_match").score == pytest.approx(
        _field_match_oracle(expected, actual)
    )


@SETTINGS
@given(expected=OBJECTS, actual=OBJECTS)
def test_field_match_normalized_equals_an_oracle_of_the_rules(expected, actual):
    assert match_json(actual, expected, metric="field_match_normalized").score == pytest.approx(
        _field_match_oracle(expected, actual, fold=True)
    )


@SETTINGS
@given(expected=OBJECTS, actual=OBJECTS)
def test_json_similarity_equals_an_oracle_of_the_rules(expected, actual):
    matched, total = _similar(expected, actual)
    want = 1.0 if total == 0 else matched / total
    assert match_json(actual, expected, metric="json_similarity").score == pytest.approx(want)


@SETTINGS
@given(expected=OBJECTS, actual=OBJECTS)
def test_json_similarity_oracle_on_near_copies(expected, actual):
    # actual built from expected with some values replaced: the interesting, mostly-equal case
    near = copy.deepcopy(expected)
    for k in list(near)[:1]:
        near[k] = actual.get(k, near[k])
    matched, total = _similar(expected, near)
    want = 1.0 if total == 0 else matched / total
    assert match_json(near, expected, metric="json_similarity").score == pytest.approx(want)


NO_NULL_SCALARS = st.one_of(
    st.booleans(),
    st.integers(min_value=-3, max_value=3),
    st.sampled_from([0.5, 0.5004, 1.0, 1.0009, 2.25]),
    st.text(alphabet="ab A", max_size=5),
)
TREES = st.dictionaries(
    KEYS,
    st.recursive(NO_NULL_SCALARS, lambda c: st.dictionaries(KEYS, c, max_size=3), max_leaves=6),
    max_size=4,
)


def _flat(value, prefix=()):
    if isinstance(value, dict):
        out = {}
        for k, v in value.items():
            out.update(_flat(v, prefix + (k,)))
        return out
    return {prefix: value}


def _leaf_score(e, a):
    if _type(e) != _type(a):
        return 0.0
    if isinstance(e, str):
        te, ta = set(e.lower().split()), set(a.lower().split())
        return 1.0 if not te and not ta else len(te & ta) / len(te | ta)
    if isinstance(e, bool):
        return 1.0 if e == a else 0.0
    d = abs(e - a)
    return 0.0 if d > 0.001 else 1 - (d / 0.001) ** 10


@SETTINGS
@given(expected=TREES, actual=TREES)
def test_structural_f1_on_array_free_trees_equals_an_oracle_of_the_formulas(expected, actual):
    # sum of expected leaves = TP + FN; sum of actual leaves = TP + FP
    fe, fa = _flat(expected), _flat(actual)
    tp = sum(_leaf_score(v, fa[p]) for p, v in fe.items() if p in fa)
    p = tp / len(fa) if fa else 1.0
    r = tp / len(fe) if fe else 1.0
    f1 = 2 * p * r / (p + r) if p + r else 0.0
    result = match_json(actual, expected, metric="structural_f1")
    assert result.precision == pytest.approx(p)
    assert result.recall == pytest.approx(r)
    assert result.score == pytest.approx(f1)
