"""What ``ignore`` names is never read by a score, in any key order (issue 72, item 2).

The door never refuses an ignored field (docs/errors.md, "Values that are not JSON"): a value
JSON cannot hold is kept as a string that describes it. A 100,000-pair fuzz found
``field_match_normalized`` with ``ignore: ['id[*]']`` scoring 1.0 in one key order and 0.0
in another: it compares each top-level value whole, ignored array elements included, so it
compared the two descriptions, and the description of a mapping with a key that is not a
string (``10**400``) lists its keys in insertion order. The rule now, for every metric: an
ignored element keeps its place in a value compared whole (arrays of different lengths still
differ), and its content is never compared, as field_f1 and json_similarity never score it.
"""

from __future__ import annotations

import datetime
import math
import random
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pytest_jsonmatch import evaluate_records, match_json
from tests.helpers import fuzz_values as fv

METRICS = ["field_match_normalized", "field_match", "field_f1", "json_similarity", "structural_f1"]
BIG = 10**400


def _cyclic() -> list[Any]:
    value: list[Any] = [1]
    value.append(value)
    return value


# each refused kind twice: the same content built in two insertion orders (the same object
# where there is no order to choose)
REFUSED = {
    "infinity": (math.inf, math.inf),
    "nan": (math.nan, math.nan),
    "frozenset": (frozenset([1, "a"]), frozenset(["a", 1])),
    "set": ({2, "b"}, {"b", 2}),
    "bytes": (b"x", b"x"),
    "date": (datetime.date(2024, 5, 3), datetime.date(2024, 5, 3)),
    "key 10**400": ({BIG: 1, "a": 2}, {"a": 2, BIG: 1}),
    "inf inside": ({"x": math.inf, BIG: 1}, {BIG: 1, "x": math.inf}),
    "holds itself": (_cyclic(), _cyclic()),
}


def _outcome(metric: str, expected: Any, actual: Any, **options: Any) -> object:
    try:
        return match_json(actual, expected, metric=metric, **options).score
    except Exception as exc:  # noqa: BLE001 - the outcome, whatever it is, is compared
        return f"{type(exc).__name__}: {exc}"


@pytest.mark.parametrize("metric", METRICS)
@pytest.mark.parametrize("kind", sorted(REFUSED))
def test_a_refused_value_under_an_ignored_path_scores_alike_in_both_key_orders(metric, kind):
    one, other = REFUSED[kind]
    expected = {"id": [one], "name": "José"}
    outcomes = {
        _outcome(metric, expected, actual, ignore=["id[*]"])
        for actual in (
            {"id": [one], "name": "José"},
            {"name": "José", "id": [other]},  # the other order, outside and inside
            {"id": [other], "name": "José"},
        )
    }
    # name matches; id's one element is ignored, in its place on both sides: id matches
    # under field_match (2 of 2 fields: 1.0), and is skipped elsewhere (1 of 1 field: 1.0)
    assert outcomes == {1.0}


@pytest.mark.parametrize("metric", ["field_match_normalized", "field_match"])
@pytest.mark.parametrize("kind", sorted(REFUSED))
def test_an_ignored_element_compared_whole_counts_by_its_place_not_its_content(metric, kind):
    one, other = REFUSED[kind]
    for ignored in ([one], [other], [1], ["anything"], [{"a": [2]}]):
        result = match_json(
            {"id": ignored, "n": 1}, {"id": [one], "n": 1}, metric=metric, ignore="id[*]"
        )
        # id: one element on each side, ignored: a match; n: a match. 2 of 2 = 1.0
        assert result.score == 1.0, ignored
    # the place still counts: two elements against one is a mismatch (1 of 2 = 0.5)
    longer = match_json(
        {"id": [one, 2], "n": 1}, {"id": [one], "n": 1}, metric=metric, ignore="id[*]"
    )
    assert longer.score == 0.5
    assert [(f.path, f.status) for f in longer.fields] == [("id", "mismatch"), ("n", "match")]


@pytest.mark.parametrize("metric", ["field_match_normalized", "field_match"])
def test_an_index_pattern_leaves_the_other_elements_compared(metric):
    def score(actual_id: list[Any]) -> float:
        expected = {"id": [math.inf, "B"]}
        return match_json({"id": actual_id}, expected, metric=metric, ignore="id[0]").score

    # id[0] is ignored on both sides, id[1] compared: "b" folds to "B" only when normalized
    assert score([{BIG: 1, "a": 2}, "B"]) == 1.0
    assert score([{"a": 2, BIG: 1}, "C"]) == 0.0
    assert score([{"a": 2, BIG: 1}, "b"]) == (1.0 if metric == "field_match_normalized" else 0.0)


def test_evaluate_records_agrees_with_match_json_in_both_orders():
    one, other = REFUSED["key 10**400"]
    expected = [{"id": [one], "name": "a"}, {"name": "a", "id": [other]}]
    actual = [{"name": "A", "id": [other]}, {"id": [one], "name": "A"}]
    run = evaluate_records(expected, actual, "field_match_normalized", ignore=["id[*]"])
    # each record: name folds to a match, id's ignored element is in its place: 2 of 2
    assert [r.score for r in run.records] == [1.0, 1.0]


# -- the property: any key order, any content under the ignored path ----------------------------


def _reordered(value: Any, rng: random.Random) -> Any:
    """``value`` with every mapping's (and set's) insertion order shuffled, at any depth;
    anything else as it is (a value that holds itself stays itself)."""
    if type(value) is dict:
        keys = list(value)
        rng.shuffle(keys)
        return {k: _reordered(value[k], rng) for k in keys}
    if type(value) is list:
        return [_reordered(v, rng) for v in value]
    if type(value) in (set, frozenset):
        items = list(value)
        rng.shuffle(items)
        return type(value)(items)
    return value


RECORDS = st.dictionaries(st.sampled_from(["a", "b", "name", "é"]), fv.JSON_VALUES, max_size=3)
# what an ignored element may hold: JSON, what JSON cannot hold, and mappings with keys that
# are not strings (whose description lists them in insertion order), nested
REFUSED_LEAVES = st.one_of(
    fv.NON_FINITE,
    st.sampled_from([b"x", {1, "a"}, frozenset(["a", 2]), datetime.date(2024, 5, 3), object()]),
    # an int past the 4,300 digits Python prints (st.just of it fails: its repr prints it)
    st.just(None).map(lambda _: 10**5000),
)
CONTENT = st.recursive(
    st.one_of(fv.JSON_SCALARS, REFUSED_LEAVES),
    lambda inner: st.one_of(
        st.lists(inner, max_size=3),
        st.dictionaries(st.one_of(fv.PLAIN_KEYS, fv.ODD_KEYS), inner, min_size=1, max_size=3),
    ),
    max_leaves=6,
)
IGNORED_EXTRA = st.lists(CONTENT, max_size=1)
# the ignored elements of both sides, place by place, and what actual holds past them
IGNORED = st.tuples(st.lists(st.tuples(CONTENT, CONTENT), min_size=1, max_size=3), IGNORED_EXTRA)


@settings(
    max_examples=60,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(
    metric=st.sampled_from(METRICS),
    expected=RECORDS,
    actual=RECORDS,
    ignored=IGNORED,
    seed=st.integers(0, 2**32),
)
def test_no_key_order_and_no_ignored_content_changes_a_score(
    metric, expected, actual, ignored, seed
):
    rng = random.Random(seed)
    places, extra = ignored
    ignored_e = [e for e, _ in places]
    ignored_a = [a for _, a in places] + extra
    with_ignored = ({**expected, "id": ignored_e}, {**actual, "id": ignored_a})
    # the same places, each holding null: what the score must be whatever they hold
    plain = ({**expected, "id": [None] * len(ignored_e)}, {**actual, "id": [None] * len(ignored_a)})
    wanted = _outcome(metric, *plain, ignore=["id[*]"])
    assert _outcome(metric, *with_ignored, ignore=["id[*]"]) == wanted
    shuffled = (_reordered(with_ignored[0], rng), _reordered(with_ignored[1], rng))
    assert _outcome(metric, *shuffled, ignore=["id[*]"]) == wanted
