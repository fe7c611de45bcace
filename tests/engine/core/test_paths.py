"""Path patterns: which prefixes of a path a pattern matches, and whether it may match
anything below a path (what pairing asks before it gives up scoring a column at a time)."""

from __future__ import annotations

import pytest

from pytest_jsonmatch import match_json
from pytest_jsonmatch.engine.core.paths import PathPattern, key_forms, key_segment, path_segments


@pytest.mark.parametrize(
    "pattern, path, expected",
    [
        ("items[1].sku", "items", True),
        ("items[1].sku", "items[1]", True),
        ("items[1].sku", "items[1].sku", False),  # the path itself, nothing below it
        ("items[1].sku", "other", False),
        ("a.id.x[1]", "[1]", False),
        ("a.id.x[1]", "", True),
        ("**.x[1]", "deep[3][0]", True),  # ** may reach anything
        ("a.**", "a", True),
        ("a.*", "b", False),
        ("[*][2]", "[0]", True),
    ],
)
def test_may_match_below(pattern, path, expected):
    assert PathPattern(pattern).may_match_below(path) is expected


@pytest.mark.parametrize("pattern", ["a.b", "a.*", "**.b", "a.**", "**", "a[*].b", "[1].**.b"])
@pytest.mark.parametrize("path", ["a", "a.b", "a.b.b", "[1].a.b", "a[0].b", ""])
def test_matching_prefixes_is_matches_segments_of_each_prefix(pattern, path):
    compiled, segments = PathPattern(pattern), path_segments(path)
    assert compiled.matching_prefixes(segments) == [
        compiled.matches_segments(segments[:d]) for d in range(len(segments) + 1)
    ]


def _nested(depth: int) -> list:
    value: list = [0]
    for k in range(depth):
        value = [value, k]
    return value


def test_a_rule_for_one_index_elsewhere_changes_no_pairing_under_structural_f1():
    # arrays of two elements nested 60 and 240 deep: a rule naming one index that no path
    # under "x" can match leaves "x"'s pairs to the column scores, with the same answer
    expected, actual = {"x": _nested(60), "y": [1, 2]}, {"x": _nested(240), "y": [2, 1]}
    plain = match_json(actual, expected, metric="structural_f1")
    ruled = match_json(
        actual, expected, metric="structural_f1", fields={"y[1]": {"min_score": 0.0}}
    )
    assert ruled.score == plain.score and ruled.pairings == plain.pairings
    assert [(f.path, f.status) for f in ruled.fields] == [(f.path, f.status) for f in plain.fields]


# paths the walk writes (plain and quoted keys, indices) and some it never writes (a key
# that needs quotes written plain), each against patterns of one literal last step
_PATHS = [
    "",
    "a",
    "a.b",
    "ab",
    "a.ab",
    "c.a",
    "items[0].sku",
    "items[1].sku",
    '["unit price"]',
    'a["x.y"]',
    "a.x.y",
    "[3]",
    "a[3]",
    "a[13]",
    'a[""]',
    'x["1x"]',
    "x.1x",
    'a["b"]',
    'a["b]"]',
]
_PATTERNS = ["a", "b", "a.b", "items[0].sku", '["unit price"]', 'a["x.y"]', "[3]", 'a[""]']
_PATTERNS += ['x["1x"]', "a[*]", "*", 'a["b*"]', "**.b", 'a["b]"]']


@pytest.mark.parametrize("pattern", _PATTERNS)
def test_matches_refuses_by_the_last_segment_only_what_the_segments_refuse(pattern):
    # (matches refuses a path whose text cannot end in the pattern's last step without
    # reading its segments: the same answer as reading them, for every path here)
    compiled = PathPattern(pattern)
    for path in _PATHS:
        assert compiled.matches(path) == compiled.matches_segments(path_segments(path)), path
    assert PathPattern("a.b").matches("a.b") and not PathPattern("a.b").matches("a.ab")
    assert PathPattern("a[3]").matches("a[3]") and not PathPattern("a[3]").matches("a[13]")


# object paths the walk writes, and keys of the objects there (a plain key, a quoted one)
_OBJECT_PATHS = ["", "a", "b", "a.b", "items[0]", "items[1]", '["unit price"]', "a[0].b"]
_KEYS = ["a", "b", "sku", "x", "unit price", "id"]


@pytest.mark.parametrize("pattern", [*_PATTERNS, "a.b.c", "items[*].sku", "items[0]", "**"])
def test_keys_below_name_every_key_through_which_the_pattern_reaches_below(pattern):
    # (the inline loop scores a key's leaves itself unless a rule reaches it: a key left out
    # of keys_below must be one the pattern matches neither at nor below)
    compiled = PathPattern(pattern)
    for path in _OBJECT_PATHS:
        keys = compiled.keys_below(path)
        assert (keys is None or bool(keys)) == compiled.may_match_below(path), path
        for key in _KEYS:
            child = key_segment(path, key)
            reached = compiled.matches(child) or compiled.may_match_below(child)
            if reached:
                assert keys is None or key in keys, (path, key)


@pytest.mark.parametrize(
    "pattern, path, expected",
    [
        ("a", "", {"a"}),
        ("a", "b", set()),
        ("a.b", "", {"a"}),
        ("a.b", "a", {"b"}),
        ("a.b", "x", set()),
        ('["unit price"].x', "", {"unit price"}),
        ("*", "", None),
        ("a.*", "a", None),
        ("**.b", "a", None),
        ("[0].a", "", None),  # (the root holds an array there, not an object's key)
    ],
)
def test_keys_below(pattern, path, expected):
    keys = PathPattern(pattern).keys_below(path)
    assert (None if keys is None else set(keys)) == expected


@pytest.mark.parametrize("key", ["a", "total", "_id", "k_x_12", "None", "ñame", "unit price"])
def test_a_plain_key_is_the_pattern_its_quoted_form_reads(key):
    # one plain key is made without the tokens' reading: the same steps, end and positions
    # as its quoted form read by them; a key that is not a plain ASCII one is read as ever
    plain, quoted = PathPattern(key_forms(key)[0]), PathPattern(f'["{key}"]')
    assert (plain._steps, plain._globbed, plain._ends, plain._start) == (
        quoted._steps,
        quoted._globbed,
        quoted._ends,
        quoted._start,
    )
    assert plain.root_key() == quoted.root_key() == key
    for path in ("", key_forms(key)[0], key_segment("x", key), key_segment(key_forms(key)[0], "y")):
        assert plain.matches(path) == quoted.matches(path) == (path == key_forms(key)[0])


@pytest.mark.parametrize("pattern", ["a.b", "*", "**.a", "[0]", '["a*"]', "a[*]", "$"])
def test_only_a_pattern_of_one_root_key_names_one(pattern):
    assert PathPattern(pattern).root_key() is None
