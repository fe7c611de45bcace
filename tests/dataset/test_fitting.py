"""The test of whether a gold record would change a guessed schema (dataset/fitting.py): the
guess's sketch merged with the records that do not fit, chunk by chunk, infers exactly the
schema of all the records (``infer_schema``); the generated test says what the walk says."""

from __future__ import annotations

import contextlib
import functools
import warnings

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pytest_jsonmatch import SchemaWarning, infer_schema
from pytest_jsonmatch.dataset import SchemaSketch
from pytest_jsonmatch.dataset import fitting as fitting_module
from pytest_jsonmatch.dataset.fitting import fits, fitting, fitting_source

pytestmark = pytest.mark.slow  # (CONTRIBUTING.md: the inner loop leaves it out)

KEYS = st.sampled_from(["a", "b", "items", "name", "n"])
LEAVES = st.one_of(
    st.none(), st.booleans(), st.integers(-3, 3), st.floats(-2, 2), st.text(max_size=3)
)
VALUES = st.recursive(
    LEAVES,
    lambda inner: st.one_of(st.lists(inner, max_size=3), st.dictionaries(KEYS, inner, max_size=4)),
    max_leaves=12,
)
RECORDS = st.lists(st.dictionaries(KEYS, VALUES, max_size=4), min_size=2, max_size=10)


def _quiet(make):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SchemaWarning)  # several types at a path
        return make()


def _guess_checked(records: list, first: int, cut: int) -> tuple[dict, int]:
    """What ``jsonmatch score`` does: the guess from ``records[:first]``, the rest in two
    chunks, each sketching only its records that do not fit; the merged schema, and how
    many records were sketched after the guess."""
    guess = SchemaSketch.of(records[:first])
    test = fitting(guess)
    assert test is not None
    seen = SchemaSketch().merge(guess)
    sketched = 0
    for chunk in (records[first:cut], records[cut:]):
        for record in chunk:
            assert test(record) == fits(guess.prototype, record)  # generated == walked
        left = [r for r in chunk if not test(r)]
        sketched += len(left)
        seen.merge(SchemaSketch.of(left))
    return _quiet(seen.schema), sketched


@settings(max_examples=250, deadline=None)
@given(records=RECORDS, first=st.integers(1, 4), cut=st.integers(0, 10))
def test_the_records_that_fit_can_be_left_unsketched(records, first, cut):
    first = min(first, len(records))
    cut = min(max(cut, first), len(records))
    schema, sketched = _guess_checked(records, first, cut)
    assert schema == _quiet(lambda: infer_schema(records))
    if sketched == 0:  # nothing sketched after the guess: the guess was the schema
        assert _quiet(SchemaSketch.of(records[:first]).schema) == schema


@contextlib.contextmanager
def _generated_depth(depth: int):
    kept = fitting_module.GENERATED_DEPTH
    fitting_module.GENERATED_DEPTH = depth
    fitting_module._FACTORIES.clear()
    try:
        yield
    finally:
        fitting_module.GENERATED_DEPTH = kept
        fitting_module._FACTORIES.clear()


@settings(max_examples=120, deadline=None)
@given(records=RECORDS, first=st.integers(1, 4))
def test_the_generated_text_hands_deep_values_to_the_walk(records, first):
    # at depth 0 the generated test is one call of fits(); at 1, one level, then fits()
    first = min(first, len(records))
    for depth in (0, 1):
        with _generated_depth(depth):
            if depth == 0:  # (a record is an object: the whole of it by the walk)
                assert "fits(c0, r)" in fitting_source(SchemaSketch.of(records[:first]))
            schema, _ = _guess_checked(records, first, len(records))
        assert schema == _quiet(lambda: infer_schema(records))


def test_a_deep_value_is_read_by_the_walk():
    deep = {"a": {"a": {"a": {"a": {"b": 1}}}}}
    with _generated_depth(2):
        guess = SchemaSketch.of([deep])
        assert "fits(c" in fitting_source(guess)
        test = fitting(guess)
        assert test(deep) is True
        assert test({"a": {"a": {"a": {"a": {"c": 1}}}}}) is False  # a new key, four down


GUESS = [
    {"id": "a", "po": None, "lines": [], "vendor": {"name": "x"}, "tags": [{"t": "x"}], "total": 3}
]


@pytest.mark.parametrize(
    "record, fit, changes",
    [
        ({"id": "b", "po": None, "lines": [], "vendor": {}, "total": 4}, True, False),  # missing
        ({"id": 7, "total": "three"}, True, False),  # a scalar after a scalar: the first decides
        ({"id": {"new": 1}, "total": [1, {"k": 2}]}, True, False),  # containers after a scalar
        ({"vendor": "a string", "tags": {"t": 1}}, True, False),  # another kind after a container
        ({"tags": [{"t": None}, "x", [1]]}, True, False),  # elements of other kinds
        ({"note": None}, False, True),  # a new key, even holding null
        ({"vendor": {"name": "y", "city": "z"}}, False, True),  # a new key below
        ({"tags": [{"t": "y"}, {"u": 1}]}, False, True),  # a new key in an element
        ({"po": {"n": 1}}, False, True),  # a value where every record so far held null
        ({"lines": [1]}, False, True),  # elements where every array so far was empty
        # the test is cautious: null followed by a string infers what null alone does, and an
        # array of nulls what an empty one does, but such a record is sketched all the same
        ({"po": "P-1"}, False, False),
        ({"lines": [None]}, False, False),
    ],
)
def test_what_changes_a_schema_and_what_does_not(record, fit, changes):
    guess = SchemaSketch.of(GUESS)
    assert fitting(guess)(record) is fit
    assert fits(guess.prototype, record) is fit
    merged = _quiet(SchemaSketch().merge(guess).merge(SchemaSketch.of([record])).schema)
    assert (merged != _quiet(guess.schema)) is changes


def test_a_key_is_never_part_of_the_generated_text():
    key = "'); import os; ('"
    guess = SchemaSketch.of([{key: {"inner": 1}, "n": None}])
    source = fitting_source(guess)
    assert "import os" not in source and "inner" not in source
    compile(source, "<test>", "exec")  # (it is valid Python)
    test = fitting(guess)
    assert test({key: {"inner": 2}}) is True
    assert test({key: {"other": 2}}) is False


def test_a_sketch_of_no_record_has_no_test():
    assert fitting(SchemaSketch()) is None


def test_a_few_records_are_tested_by_the_walk_and_many_by_a_generated_test(monkeypatch):
    # a small chunk gets fits itself (compiling would cost more than it saves); a chunk of
    # GENERATE_FROM records and more, or an unknown count, gets the generated function; a
    # prototype that has one already keeps it, whatever the count
    monkeypatch.setattr(fitting_module, "_FACTORIES", {})
    guess = SchemaSketch.of([{"a": {"b": 1}, "items": [{"n": 1}]}])
    few = fitting(guess, fitting_module.GENERATE_FROM - 1)
    assert isinstance(few, functools.partial) and few.func is fits
    assert fitting_module._FACTORIES == {}
    for test in (fitting(guess, fitting_module.GENERATE_FROM), fitting(guess)):
        assert not isinstance(test, functools.partial)
    assert len(fitting_module._FACTORIES) == 1
    assert not isinstance(fitting(guess, 1), functools.partial)
    for record, fit in (({"a": {"b": 2}}, True), ({"a": {"c": 2}}, False)):
        assert few(record) is fit and fitting(guess)(record) is fit
