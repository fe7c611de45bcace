"""state_reading.read_apart: two differing values read along what differs gives the fields a
reading of the whole values gives, less the matches (what the multi-turn verdict's fields
are made from, read at each failing turn)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from pytest_jsonmatch import match_json
from pytest_jsonmatch.engine.agents.state_reading import read_apart, read_state_at
from pytest_jsonmatch.engine.core.values import MISSING


class Folder:
    def __init__(self, name, contents, parent=None):
        self.name, self.contents, self.parent = name, contents, parent
        self._cache = object()  # private: never read


def _not_matched(model, truth):
    result = match_json({"s": model}, {"s": truth}, "field_f1")
    return sorted((f.path, f.status, f.expected, f.actual) for f in result.fields if f.score < 1)


def test_a_large_tree_is_read_along_its_one_change():
    files = {f"f{i}": f"text {i}" for i in range(500)}
    truth = Folder("root", {"docs": Folder("docs", dict(files))})
    model = Folder("root", {"docs": Folder("docs", {**files, "f7": "changed"})})
    read_model, read_truth = read_apart(model, truth, "root")
    # the name and the 499 equal files are left out on both sides
    assert read_model == {"contents": {"docs": {"contents": {"f7": "changed"}}}}
    assert read_truth == {"contents": {"docs": {"contents": {"f7": "text 7"}}}}
    whole = read_state_at(model, "root"), read_state_at(truth, "root")
    assert _not_matched(read_model, read_truth) == _not_matched(*whole)


def test_a_member_on_one_side_only_is_read_whole_and_an_object_never_left_empty():
    truth = {"a": 1, "b": {"x": 1}}
    model = {"a": 1, "b": {"x": 1, "extra": [1, 2]}}
    read_model, read_truth = read_apart(model, truth, "s")
    # "a" is equal: left out. Under "b" the truth would be left empty, and an empty object
    # is compared as a value: its equal member "x" is kept on both sides
    assert (read_model, read_truth) == ({"b": {"extra": [1, 2], "x": 1}}, {"b": {"x": 1}})
    assert _not_matched(read_model, read_truth) == [("s.b.extra", "hallucination", MISSING, [1, 2])]


def test_values_of_other_kinds_are_read_whole_and_a_parent_link_stays_a_reference():
    assert read_apart([1, 2], [1, 3], "s") == ([1, 2], [1, 3])
    assert read_apart({"a": 1}, Folder("x", {}), "s") == (
        {"a": 1},
        {"name": "x", "contents": {}, "parent": None},
    )
    root = Folder("root", {})
    child = Folder("child", {}, root)
    root.contents["child"] = child
    other = Folder("root", {})
    other.contents["child"] = Folder("child", {"new": "file"}, other)
    read_model, _ = read_apart(other, root, "root")
    assert read_model["contents"]["child"]["parent"] == "<ref root>"


leaves = st.one_of(st.integers(-3, 3), st.sampled_from(["a", "b"]), st.none())
trees = st.recursive(
    leaves, lambda inner: st.dictionaries(st.sampled_from("pqrs"), inner, max_size=4), max_leaves=12
)


@settings(max_examples=150, deadline=None, derandomize=True)
@given(trees, trees)
def test_read_apart_gives_the_fields_of_the_whole_values_less_the_matches(model, truth):
    if model == truth:
        return
    apart = read_apart(model, truth, "s")
    assert _not_matched(*apart) == _not_matched(model, truth)
