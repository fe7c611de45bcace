"""Slotted and HashedSlotted give the classes built on them what a dataclass generated:
equality and a repr over the fields, a hash over the hashed ones, ``replace``, pickling."""

from __future__ import annotations

import pickle
from functools import cached_property

import pytest

from pytest_jsonmatch.engine.core.slotted import HashedSlotted, Slotted
from pytest_jsonmatch.engine.schemas.eval_schema import SchemaNode
from pytest_jsonmatch.reporting.run_model.comparisons import PASSED, Comparison


class Point(HashedSlotted):
    __slots__ = ("x", "y", "extra")
    _unhashed = frozenset({"extra"})

    def __init__(self, x: int, y: int = 0, extra: dict[str, int] | None = None) -> None:
        self.x = x
        self.y = y
        self.extra = {} if extra is None else extra


class Cached(HashedSlotted):
    __slots__ = ("__dict__", "value")

    def __init__(self, value: int) -> None:
        self.value = value

    @cached_property
    def double(self) -> int:
        return self.value * 2


class Box(Slotted):
    __slots__ = ("item", "cache")
    _uncompared = frozenset({"cache"})

    def __init__(self, item: object, cache: dict[str, object] | None = None) -> None:
        self.item = item
        self.cache = {} if cache is None else cache


def test_equality_reads_every_field_and_only_the_same_class():
    assert Point(1, 2) == Point(1, 2)
    assert Point(1, 2) != Point(1, 3)
    assert Point(1, 2, {"a": 1}) != Point(1, 2, {"a": 2})  # compared, though not hashed
    assert Point(1, 2) != (1, 2, {})  # another type is never equal

    class Other(HashedSlotted):
        __slots__ = ("x", "y", "extra")

        def __init__(self, x: int, y: int, extra: dict[str, int]) -> None:
            self.x, self.y, self.extra = x, y, extra

    assert Point(1, 2) != Other(1, 2, {})


def test_the_hash_leaves_out_the_unhashed_fields():
    # the mapping is not hashable: a hash over it would raise
    assert hash(Point(1, 2, {"a": 1})) == hash(Point(1, 2, {"b": 2})) == hash((1, 2))
    assert len({Point(1, 2), Point(1, 2), Point(2, 1)}) == 2


def test_a_class_not_frozen_is_unhashable():
    with pytest.raises(TypeError, match="unhashable"):
        hash(Box(1))


def test_compared_fields_are_what_equality_and_the_repr_read():
    assert Box(1, {"a": 1}) == Box(1, {"b": 2})
    assert Box(1) != Box(2)
    assert repr(Box(1, {"a": 1})) == "Box(item=1)"
    assert repr(Point(1, 2)) == "Point(x=1, y=2, extra={})"


def test_replace_makes_a_copy_through_init():
    one = Point(1, 2, {"a": 1})
    two = one.replace(y=5)
    assert (two.x, two.y, two.extra) == (1, 5, {"a": 1}) and one.y == 2
    with pytest.raises(TypeError):
        one.replace(z=1)  # no such field: __init__ refuses it


def test_a_dict_slot_holds_cached_properties_and_is_no_field():
    one = Cached(3)
    assert one.double == 6
    assert Cached._fields == ("value",)
    assert one == Cached(3) and hash(one) == hash(Cached(3))  # the cache is not compared
    assert one.replace(value=4).double == 8


def test_instances_pickle_with_their_fields():
    one = Point(1, 2, {"a": 1})
    assert pickle.loads(pickle.dumps(one)) == one
    cached = Cached(3)
    assert cached.double == 6
    again = pickle.loads(pickle.dumps(cached))
    assert again == cached and again.double == 6


def test_the_converted_classes_keep_their_value_semantics():
    """Comparison was a frozen dataclass whose mappings were left out of its hash;
    SchemaNode one that was not frozen, its caches left out of its equality."""
    base = Comparison(
        case_id="a",
        nodeid="n",
        metric="field_f1",
        score=1.0,
        threshold=1.0,
        status=PASSED,
        call={"latency_s": 1.0},
    )
    same = base.replace(call={"latency_s": 2.0})
    assert base != same and hash(base) == hash(same)
    assert base.replace(score=0.5).score == 0.5 and base.score == 1.0
    node = SchemaNode("object")
    other = SchemaNode("object")
    other.scorers["shape"] = object()
    assert node == other
