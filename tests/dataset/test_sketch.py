"""SchemaSketch: the schema of all gold records, built one record at a time, is exactly the
one evaluate_records infers from the whole list (``infer_schema``), for any records and any
split of them into parts merged in order."""

from __future__ import annotations

import copy
import pickle
import warnings

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pytest_jsonmatch import SchemaWarning, infer_schema
from pytest_jsonmatch.dataset import SchemaSketch

pytestmark = pytest.mark.slow  # (CONTRIBUTING.md: the inner loop leaves it out)

KEYS = st.sampled_from(["a", "b", "items", "name", "n"])
LEAVES = st.one_of(
    st.none(), st.booleans(), st.integers(-3, 3), st.floats(-2, 2), st.text(max_size=3)
)
VALUES = st.recursive(
    LEAVES,
    lambda inner: st.one_of(st.lists(inner, max_size=3), st.dictionaries(KEYS, inner, max_size=4)),
    max_leaves=10,
)
RECORDS = st.lists(st.dictionaries(KEYS, VALUES, max_size=4), min_size=1, max_size=6)


def _inferred(records: list) -> dict:
    with warnings.catch_warnings():
        # several types at a path: the first is kept, said once
        warnings.simplefilter("ignore", SchemaWarning)
        return infer_schema(records)


def _sketched(parts: list[list]) -> dict:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SchemaWarning)
        return SchemaSketch.merged(SchemaSketch.of(part) for part in parts).schema()


@settings(max_examples=300, deadline=None)
@given(records=RECORDS, cut=st.integers(0, 6))
def test_a_sketch_infers_what_the_whole_list_infers(records, cut):
    before = copy.deepcopy(records)
    assert _sketched([records]) == _inferred(records)
    assert _sketched([records[:cut], records[cut:]]) == _inferred(records)
    assert records == before  # the records are read, never changed


def test_a_later_record_fills_in_what_earlier_ones_left_open():
    records = [
        {"a": None, "items": []},
        {"a": {"b": 1}, "items": [{"n": "x"}]},
        {"a": {"c": True}, "items": [{"n": 2, "m": None}]},
        {"a": "text"},
    ]
    schema = _sketched([records])
    assert schema == _inferred(records)
    assert schema["properties"]["a"]["type"] == "object"  # the first value that is not null
    assert set(schema["properties"]["a"]["properties"]) == {"b", "c"}
    assert set(schema["properties"]["items"]["items"]["properties"]) == {"n", "m"}
    assert schema["properties"]["items"]["items"]["properties"]["n"]["type"] == "string"


def test_merging_a_sketch_leaves_the_other_one_as_it_was():
    first, second = SchemaSketch.of([{"a": {"b": 1}}]), SchemaSketch.of([{"a": {"c": 1}}])
    kept = second.schema()
    first.merge(second)
    first.add({"a": {"d": 1}})
    assert second.schema() == kept
    assert set(first.schema()["properties"]["a"]["properties"]) == {"b", "c", "d"}


def test_parts_merge_exactly_where_a_path_holds_an_object_and_an_array():
    # hypothesis found it: the second part saw an object at "a" first and lost the array
    # that came after it, which counts once the first part's array decides "a"'s type
    records = [{}, {"a": []}, {"a": {}}, {"a": [False]}]
    for cut in range(len(records) + 1):
        schema = _sketched([records[:cut], records[cut:]])
        assert schema == _inferred(records)
        assert schema["properties"]["a"] == {"type": "array", "items": {"type": "boolean"}}


@settings(max_examples=300, deadline=None)
@given(records=RECORDS, cut=st.integers(0, 6))
def test_sketches_back_from_a_worker_merge_as_those_made_here(records, cut):
    # with `jsonmatch score -j N` each part's sketch comes back pickled; a path that held
    # several kinds keeps the module's sentinels (an array after a scalar and an object
    # made `'object' object is not subscriptable` of the copies)
    parts = [SchemaSketch.of(records[:cut]), SchemaSketch.of(records[cut:])]
    back = [pickle.loads(pickle.dumps(part)) for part in parts]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SchemaWarning)
        assert SchemaSketch.merged(back).schema() == _inferred(records)


def test_a_mixed_path_sketched_in_a_worker_keeps_its_kinds():
    records = [{"a": "s"}, {"a": {"x": 1}}, {"a": [{"y": True}]}]
    first = pickle.loads(pickle.dumps(SchemaSketch.of(records[:2])))
    last = pickle.loads(pickle.dumps(SchemaSketch.of(records[2:])))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SchemaWarning)
        schema = SchemaSketch.merged([first, last]).schema()
    assert schema == _inferred(records)
    assert schema["properties"]["a"] == {"type": "string"}  # the first value decides
