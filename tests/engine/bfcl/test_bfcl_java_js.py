"""BFCL's Java and JavaScript value readers: the leaderboard's readings, in linear time.

BFCL reads a Java or JavaScript argument with regular expressions, some of which backtrack
for minutes on a short hostile value. ``bfcl_java_js`` reads them with scanners instead; the
differential test holds them to BFCL's own converters (``bfcl_eval``, installed with
``--no-deps``) on text built from the tokens the patterns care about, and the hostile values
below each end at once with BFCL's reading (worked by hand from its patterns).
"""

from __future__ import annotations

import contextlib
import io
import random

import pytest
from bfcl_eval.eval_checker.ast_eval.type_convertor.java_type_converter import (
    java_type_converter as java,
)
from bfcl_eval.eval_checker.ast_eval.type_convertor.js_type_converter import (
    js_type_converter as js,
)

from pytest_jsonmatch.engine.bfcl.bfcl_java_js import Unconvertible, java_value, js_value

# the pieces BFCL's patterns look for, and some filler
TOKENS = [
    "new", " ", "  ", "\n", "\t", "ArrayList", "<", ">", "<>", "(", ")", "))", "()", "{",
    "}", "{{", "}}", "[", "]", "[]", ",", ", ", ":", "Arrays.asList(", "add(", 'put("', '",',
    '"', "'", "a", "1", "2L", "3.5f", "true", "HashMap", "Array", "int", "x", ";", "n",
    "new ArrayList<>(", "new HashMap<>() {", "new int[]{", "new Array(", "[[", "]]", "], [",
    "'k': ", "b:",
]  # fmt: skip
JAVA_KINDS = [("ArrayList", None), ("ArrayList", "integer"), ("ArrayList", "String"),
              ("Array", None), ("Array", "long"), ("HashMap", None)]  # fmt: skip
JS_KINDS = [("array", None), ("array", "integer"), ("array", "String"), ("dict", None)]


def outcome(convert, *args):
    """('value', the value's repr) or ('raises',): BFCL prints while it reads a dict."""
    try:
        with contextlib.redirect_stdout(io.StringIO()):
            return ("value", repr(convert(*args)))
    except (Unconvertible, ValueError, NotImplementedError, KeyError):
        return ("raises",)


def test_the_readers_give_bfcls_reading_of_token_soup():
    rng = random.Random(60)
    converted = 0
    for _ in range(1500):
        text = "".join(rng.choice(TOKENS) for _ in range(rng.randint(0, 14)))
        for kind, item in JAVA_KINDS:
            ours = outcome(java_value, text, kind, item)
            assert ours == outcome(java, text, kind, item), (text, kind, item)
            converted += ours != ("value", repr(text))
        for kind, item in JS_KINDS:
            ours = outcome(js_value, text, kind, item)
            assert ours == outcome(js, text, kind, item), (text, kind, item)
            converted += ours != ("value", repr(text))
    assert converted > 1000  # (the soup reaches the readers' matches, not only their misses)


def test_a_hashmap_opened_before_300_spaces_is_read_at_once():
    # BFCL's `\s*\{?\s*(.*?)\s*\}?\s*\}` tail tries every split of the spaces; no `}` follows,
    # so it fails and `new HashMap<>()` alone reads as the empty map
    assert java_value("new HashMap<>() {" + " " * 300, "HashMap") == {}
    assert java_value("new HashMap<>() {" + " " * 300 + 'put("k", 1L); }', "HashMap") == {"k": 1}


def test_an_arraylist_opened_before_100000_spaces_is_read_at_once():
    # no `}}`, so no `{{ add(...) }}` reading: `new ArrayList<>()` is the empty list
    assert java_value("new ArrayList<>() {{" + " " * 10**5, "ArrayList") == []
    text = "new ArrayList<>() {{" + " " * 10**5 + "add(1); add(2); }}"
    assert java_value(text, "ArrayList", "integer") == [1, 2]


def test_a_javascript_object_of_100000_letters_is_read_at_once():
    # `{` then no `}`: not an object, the text stays; with its `}`: no colon, so no pairs
    assert js_value("{" + "a" * 10**5, "dict") == "{" + "a" * 10**5
    assert js_value("{" + "a" * 10**5 + "}", "dict") == {}
    assert js_value("{" + "a" * 10**5 + ": 1}", "dict") == {"a" * 10**5: 1}


@pytest.mark.parametrize(
    ("text", "kind", "expected"),
    [
        # each 'put("' is a start that finds no `",` then `)`: the text stays
        ('put("' * 20000, "HashMap", 'put("' * 20000),
        # every 'put("a",' pairs with the one `}`-less rest: no `)` anywhere, no entry
        ("new HashMap<>() {" + 'put("a",' * 20000 + "}", "HashMap", {}),
        (
            "new ArrayList<>(Arrays.asList(" * 5000,
            "ArrayList",
            "new ArrayList<>(Arrays.asList(" * 5000,
        ),
        ("new ArrayList<>() {{ " + "add(" * 20000 + "}}", "ArrayList", []),
        ("new HashMap<" * 10000, "HashMap", "new HashMap<" * 10000),
        ("new int[]{" * 10000, "Array", "new int[]{" * 10000),
    ],
    ids=["puts", "put-keys", "as-list", "adds", "map-heads", "array-heads"],
)
def test_java_values_repeating_an_opening_are_read_at_once(text, kind, expected):
    assert java_value(text, kind) == expected


def test_javascript_rows_that_never_close_are_read_at_once():
    # `[[a]` then 5,000 `,[a]` and no closing `]`: BFCL's `(,\s*\[.*?\]\s*)*` tries every way
    # to group the rows; none closes, so it is read as a flat array up to the first `]`
    assert js_value("[[a]" + ",[a]" * 5000, "array") == ["[a"]
    # closed, the rows are read: the first keeps BFCL's stray `[` handling
    assert js_value("[[1]" + ",[2]" * 5000 + "]", "array") == [[1]] + [[2]] * 5000


def test_a_javascript_object_of_many_pairs_is_read_at_once():
    text = "{" + ", ".join(f"k{i}: {i}" for i in range(20000)) + "}"
    assert js_value(text, "dict") == {f"k{i}": i for i in range(20000)}
