"""JSON text read whole at any depth the door takes (engine/reading/deep_json.py): where the
standard library's reader runs out of recursion, the reader without recursion reads the
same values by the same rules (``LENIENT_JSON``'s), refuses the same texts with a
ValueError, and refuses nesting past 2,000 levels with the door's error naming where."""

from __future__ import annotations

import json
import random

import pytest

from pytest_jsonmatch import ParseError
from pytest_jsonmatch.engine.core.depth import call_with_depth
from pytest_jsonmatch.engine.reading.deep_json import _Reader, read_whole
from pytest_jsonmatch.engine.reading.parse import LENIENT_JSON

SAME = [
    '{"a": 1}',
    "  [1, -2, 3.5, -0.0, 1e3, 2E-2, 0, true, false, null]\n",
    '{"a": {"b": [[], {}, [{}], "x"]}, "c": ""}',
    r'{"esc": "\" \\ \/ \b \f \n \r \t \u00e9 \ud83d\ude00", "k\u00e9y": "v"}',
    '{"a": 1, "a": 2, "b": 3}',  # a key given twice keeps its last value, in its first place
    '"text"',
    "12345678901234567890123",
    ' { "a" : [ 1 , 2 ] , "b" : { } } ',
    "[" * 50 + "]" * 50,
]

REFUSED = [
    "",
    "{",
    '{"a": 1,}',
    "[1, 2,]",
    "[1 2]",
    '{"a" 1}',
    "{a: 1}",
    "[NaN]",
    "[Infinity]",
    "[-Infinity]",
    "[01]",
    "[1.]",
    "[.5]",
    "[+1]",
    '["tab\there"]',  # a control character inside a string
    '["unterminated]',
    '{"a": 1} {"b": 2}',
    "[1]]",
    "[tru]",
    "[" + "1" * 5_000 + "]",  # an integer past Python's digit limit, as json's reader
]


@pytest.mark.parametrize("text", SAME)
def test_the_reader_without_recursion_reads_what_json_reads(text):
    expected = LENIENT_JSON.decode(text.strip())
    read = _Reader(text.strip(), "x").value()
    assert read == expected
    assert json.dumps(read) == json.dumps(expected)  # (the keys' order too)


@pytest.mark.parametrize("text", REFUSED)
def test_the_reader_without_recursion_refuses_what_json_refuses(text):
    with pytest.raises(ValueError):
        LENIENT_JSON.decode(text)
    with pytest.raises(ValueError) as refused:
        _Reader(text, "x").value()
    assert not isinstance(refused.value, ParseError)  # (not JSON, not too deep)


def test_random_documents_read_alike():
    rng = random.Random(7)

    def value(depth: int) -> object:
        kind = rng.randrange(6 if depth < 6 else 3)
        if kind == 0:
            return rng.choice([0, -7, 2.5e-3, 10**30, True, False, None])
        if kind == 1:
            return "".join(rng.choice('ab"\\\n\u00e9/') for _ in range(rng.randrange(5)))
        if kind == 2:
            return rng.random()
        if kind in (3, 4):
            return [value(depth + 1) for _ in range(rng.randrange(4))]
        return {str(rng.randrange(5)): value(depth + 1) for _ in range(rng.randrange(4))}

    for _ in range(300):
        text = json.dumps(value(0), indent=rng.choice([None, 1]))
        assert _Reader(text, "x").value() == json.loads(text)


def _text(depth: int) -> str:
    return '[{"k": ' * (depth // 2) + "1" + "}]" * (depth // 2)


def test_deep_text_is_read_to_the_doors_depth_and_refused_past_it_naming_where():
    value = read_whole(_text(2_000), "actual")
    for _ in range(1_000):
        value = value[0]["k"]
    assert value == 1
    with pytest.raises(ParseError) as refused:
        read_whole(_text(2_002), "actual")
    assert str(refused.value) == (
        "actual: values nest too deeply (more than 2,000 levels, at "
        + ("[0].k" * 400)[:60]
        + "...)"
    )


def test_text_the_standard_reader_reads_past_the_door_is_refused_too():
    # on a Python whose reader recurses that far (3.13), or with the room made here
    with pytest.raises(ParseError, match=r"more than 2,000 levels"):
        call_with_depth(2_100, read_whole, _text(2_100), "actual")


def test_text_of_many_brackets_that_nests_shallowly_is_read_where_the_reader_could_go_deeper():
    text = json.dumps([{"i": [i]} for i in range(3_000)])
    assert call_with_depth(2_100, read_whole, text, "actual") == json.loads(text)
    assert read_whole(text, "actual") == json.loads(text)


# -- the reader without recursion breaks where the standard reader breaks -----------------------


def _verdict(read, text: str, start: int) -> tuple:
    """What reading the value at ``start`` gives: the value (written out) and its end, or
    the error: a JSONDecodeError's message and position, another ValueError's message."""
    try:
        value, end = read(text, start)
    except json.JSONDecodeError as error:
        return ("JSONDecodeError", error.msg, error.pos)
    except ValueError as error:
        return ("ValueError", str(error))
    return ("value", json.dumps(value), end)


def _mutated(rng: random.Random, text: str) -> str:
    chars = list(text)
    for _ in range(rng.randrange(1, 4)):
        at = rng.randrange(len(chars) + 1)
        kind = rng.random()
        if kind < 0.35 and at < len(chars):
            del chars[at]
        elif kind < 0.7:
            chars.insert(at, rng.choice([",", ":", "[", "]", "{", "}", '"', "1", " ", "e", "-"]))
        elif kind < 0.85:
            chars = chars[:at]  # cut off
        else:
            chars.insert(at, rng.choice(["NaN", "Infinity", "-Infinity", "tru", "nul", "1e", "0."]))
    return "".join(chars)


def test_the_reader_without_recursion_breaks_where_the_standard_reader_breaks():
    # the lenient search (parse.py) resumes where an attempt broke: the two readers must
    # break at the same place with the same message, so the search takes the same steps
    # wherever it runs
    rng = random.Random(13)
    docs = [
        '{"a": [1, 2.5, {"b": null}], "c": "x\\"y", "d": {"e": [true, false, []]}}',
        '[{"k": "v"}, [1, [2, [3]]], -0.5e-3, "\\u00e9"]',
        '{"a": {"b": {"c": {"d": [[[[]]]]}}}}',
    ]
    differ = []
    for _ in range(3_000):
        text = _mutated(rng, rng.choice(docs))
        start = rng.choice([0, 0, 0, 1])
        standard = _verdict(LENIENT_JSON.raw_decode, text, start)
        ours = _verdict(lambda t, s: _Reader(t, "x", s).read(), text, start)
        if standard != ours:
            differ.append((text, start, standard, ours))
    assert differ == []


@pytest.mark.parametrize("text", REFUSED)
def test_each_refused_text_breaks_alike(text):
    standard = _verdict(lambda t, s: (LENIENT_JSON.decode(t), len(t)), text, 0)
    assert _verdict(lambda t, s: (_Reader(t, "x").value(), len(t)), text, 0) == standard


def test_broken_text_is_the_standard_reader_s_error_from_any_stack():
    # broken past the depth the standard reader reaches from here: its own error still,
    # given room (so the lenient search resumes at the same place from anywhere)
    for levels in (1_500, 2_500):
        broken = "[" * levels + "1 2" + "]" * levels
        for read in (
            lambda b=broken: read_whole(b, "actual"),
            lambda b=broken: call_with_depth(2_200, read_whole, b, "actual"),
        ):
            with pytest.raises(json.JSONDecodeError) as refused:
                read()
            assert (refused.value.msg, refused.value.pos) == ("Expecting ',' delimiter", levels + 2)


def test_text_nesting_past_any_reader_s_reach_is_the_door_s_error_from_any_stack():
    # 40,000 levels: past the standard reader even with room; the reader without recursion
    # reaches the door first
    text = "[" * 40_000 + "oops"
    for read in (
        lambda: read_whole(text, "actual"),
        lambda: call_with_depth(2_200, read_whole, text, "actual"),
    ):
        with pytest.raises(ParseError) as refused:
            read()
        assert str(refused.value) == (
            "actual: values nest too deeply (more than 2,000 levels, at " + "[0]" * 20 + "...)"
        )
