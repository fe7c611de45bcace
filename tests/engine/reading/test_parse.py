"""Parsing (section 2 of metrics.md, engine/reading/parse.py): expected is read strictly, actual
leniently (the whole text, a fence, or the first balanced object in prose); top-level arrays.

Then the hostile inputs: NaN and Infinity in text, 100,000 levels of nesting, 10 MB strings,
10 MB of brace soup (linear time), invalid UTF-8. Each is a ParseError with a short message
saying what is wrong, within a bounded time; never a RecursionError, never a hang."""

from __future__ import annotations

import random

import pytest

from pytest_jsonmatch import (
    JsonMatchError,
    ParseError,
    TruncatedError,
    match_json,
    parse_actual,
    parse_expected,
)
from tests.helpers.bounded_errors import raised
from tests.helpers.timeout import GENEROUS, within

pytestmark = pytest.mark.slow  # (CONTRIBUTING.md: the inner loop leaves it out)

METRICS = ["field_match", "field_match_normalized", "json_similarity", "structural_f1", "field_f1"]
DEPTH = 100_000


def deep_object_text(depth: int = DEPTH) -> str:
    return '{"a": ' * depth + "1" + "}" * depth


def cut_off(opened: tuple[int, int], ends: tuple[int, int], chars: int, text: str) -> str:
    """The message of an answer cut off (test_truncation.py)."""
    return (
        f"actual was cut off: its JSON value opened at line {opened[0]}, column {opened[1]} "
        f"is not closed when the text ends at line {ends[0]}, column {ends[1]}, after {chars:,} "
        f"character{'' if chars == 1 else 's'} (the answer was truncated, e.g. by max_tokens): "
        f"{'...' if len(text) > 30 else ''}{text[-30:]!r}"
    )


# -- strict: expected -------------------------------------------------------------------------


def test_expected_mapping_is_taken_as_it_is():
    value = {"a": 1}
    assert parse_expected(value) == {"a": 1}


def test_expected_string_holding_one_object_is_parsed():
    assert parse_expected(' {"a": [1, 2], "b": null} ') == {"a": [1, 2], "b": None}


def test_expected_bytes_holding_one_object_is_parsed():
    assert parse_expected(b'{"a": "\xc3\xa9"}') == {"a": "é"}


@pytest.mark.parametrize("text", ['{"a": NaN}', '{"a": Infinity}', '{"a": -Infinity}'])
def test_strict_parsing_rejects_nan_and_infinity(text):
    with pytest.raises(ParseError):
        parse_expected(text)


def test_expected_array_text_is_an_error_that_says_array():
    with pytest.raises(ParseError, match="array"):
        parse_expected("[1, 2]")


def test_expected_number_text_is_an_error_that_says_what_was_found():
    with pytest.raises(ParseError) as info:
        parse_expected("42")
    assert "int" in str(info.value) or "number" in str(info.value)


def test_expected_text_with_prose_around_the_object_is_an_error():
    # strict: exactly one JSON object, no lenient extraction
    with pytest.raises(ParseError):
        parse_expected('Here it is: {"a": 1}')


def test_expected_text_with_two_objects_is_an_error():
    with pytest.raises(ParseError):
        parse_expected('{"a": 1} {"b": 2}')


def test_expected_of_a_non_json_type_is_an_error_naming_the_type():
    with pytest.raises(ParseError, match="int"):
        parse_expected(42)


def test_parse_error_is_a_jsonmatch_error():
    assert issubclass(ParseError, JsonMatchError)


def test_match_json_rejects_expected_with_nan_text():
    with pytest.raises(ParseError):
        match_json({"a": 1}, '{"a": NaN}', metric="field_match")


def test_match_json_parses_expected_strictly():
    from pytest_jsonmatch import ParseError

    with pytest.raises(ParseError):
        match_json({"a": 1}, 'Here: {"a": 1}', metric="field_match")


# -- lenient: actual --------------------------------------------------------------------------


def test_actual_mapping_is_taken_as_it_is():
    assert parse_actual({"a": 1}) == {"a": 1}


def test_actual_whole_text_stripped_is_an_object():
    assert parse_actual('  \n {"a": 1} \n\t') == {"a": 1}


def test_actual_bytes_are_decoded():
    assert parse_actual(b'{"a": 1}') == {"a": 1}


def test_actual_in_a_json_fence_is_found():
    text = 'Sure, here it is:\n```json\n{"a": 1}\n```\nHope that helps.'
    assert parse_actual(text) == {"a": 1}


def test_actual_in_a_fence_without_language_tag_is_found():
    text = 'Result:\n```\n{"b": 2}\n```'
    assert parse_actual(text) == {"b": 2}


def test_first_fence_that_parses_to_an_object_wins():
    text = 'A:\n```\nnot json at all\n```\nB:\n```json\n{"b": 2}\n```\nC:\n```json\n{"c": 3}\n```'
    assert parse_actual(text) == {"b": 2}


def test_fenced_bodies_that_are_not_whole_objects_are_passed_over():
    # cut short, and followed by prose: neither body is one object, so the third fence wins
    text = '```json\n{"a": 1,\n```\n```json\n{"b": 2} and more\n```\n```json\n  {"c": 3}  \n```'
    assert parse_actual(text) == {"c": 3}


def test_a_fenced_object_wrapped_in_any_unicode_whitespace_is_found():
    # whitespace around the body is what str.strip() removes: form feeds, no-break spaces
    assert parse_actual('```json\n\x0c\u00a0{"a": 1}\u00a0\u2003\n```') == {"a": 1}


def test_fence_comes_before_a_balanced_span_in_the_text():
    # order of the rules: (2) a fenced body beats (3) an earlier bare {...} span
    text = 'draft {"z": 0} final:\n```json\n{"a": 1}\n```'
    assert parse_actual(text) == {"a": 1}


def test_first_balanced_span_in_prose_is_found():
    assert parse_actual('The answer is {"a": 1} and also {"b": 2}.') == {"a": 1}


def test_balanced_span_that_does_not_parse_is_passed_over():
    assert parse_actual('see {not json} then {"a": 1}') == {"a": 1}


def test_outer_balanced_span_is_taken_whole():
    assert parse_actual('x {"a": {"b": 1}} y') == {"a": {"b": 1}}


def test_braces_inside_json_strings_do_not_count():
    assert parse_actual('prefix {"a": "}{ and }", "b": 1} suffix') == {"a": "}{ and }", "b": 1}


def test_escaped_quote_inside_a_string_does_not_end_it():
    assert parse_actual(r'note {"a": "say \"}\" ok", "b": 2} end') == {"a": 'say "}" ok', "b": 2}


def test_no_object_found_names_the_first_80_characters():
    text = "x" * 80 + "TAIL_MARKER no json here"
    with pytest.raises(ParseError) as info:
        parse_actual(text)
    message = str(info.value)
    assert "x" * 80 in message
    assert "TAIL_MARKER" not in message


def test_short_text_without_object_is_quoted_whole():
    with pytest.raises(ParseError, match="nothing to see"):
        parse_actual("nothing to see")


def test_empty_text_is_a_parse_error():
    with pytest.raises(ParseError):
        parse_actual("")


def test_ten_megabytes_of_open_braces_answer_with_a_parse_error():
    with pytest.raises(ParseError):
        parse_actual("{" * 10_000_000)


def test_ten_megabytes_of_unterminated_nested_objects_answer_with_a_parse_error():
    text = '{"a": ' * 1_700_000  # 6 bytes each: ~10 MB, never closed: an answer cut off
    assert len(text) >= 10_000_000
    with pytest.raises(TruncatedError):
        parse_actual(text)


def test_object_after_a_megabyte_of_open_braces_is_found():
    assert parse_actual("{" * 1_000_000 + ' {"a": 1}') == {"a": 1}


# -- a fenced block of broken JSON: its error, line and column ------------------------------


def test_a_truncated_answer_in_an_unclosed_fence_is_named_as_cut_off_and_where():
    # it was "no JSON object found ... broken JSON: Expecting ',' delimiter": the answer was
    # cut, not broken (test_truncation.py has the rule)
    text = 'Here you go:\n```json\n{"vendor": "ACME",\n "items": [{"sku": "A1"'
    exc = raised(parse_actual, text)
    assert type(exc) is TruncatedError
    assert str(exc) == cut_off((3, 1), (4, 24), 42, text)


def test_a_closed_fence_with_a_missing_comma_names_the_json_error_and_where():
    text = 'Result:\n```json\n{\n  "a": 1\n  "b": 2\n}\n```\nHope that helps.'
    exc = raised(parse_actual, text)
    assert str(exc) == (
        "no JSON object found in actual: its code fence holds broken JSON: "
        "Expecting ',' delimiter (line 5, column 3) (text starts " + repr(text) + ")"
    )


def test_the_fenced_block_is_reported_among_several_candidates():
    # prose braces before, a fence of prose first: the fenced object is what was meant
    # (a missing comma: its message reads the same on every CPython; 3.13 words a trailing
    # comma otherwise than 3.10)
    text = (
        'I tried {not json} and {"x": NaN}.\n```\nno object here\n```\n```json\n  {"a": [1 2]}\n```'
    )
    exc = raised(parse_actual, text)
    assert str(exc) == (
        "no JSON object found in actual: its code fence holds broken JSON: "
        "Expecting ',' delimiter (line 6, column 12) (text starts " + repr(text[:80]) + "...)"
    )


def test_nan_in_a_fenced_block_is_named_without_a_position():
    text = '```json\n{"price": NaN}\n```'
    assert str(raised(parse_actual, text)) == (
        "no JSON object found in actual: its code fence holds broken JSON: NaN is not a "
        "JSON number (text starts " + repr(text) + ")"
    )


def test_a_broken_fence_does_not_hide_a_later_fence_or_span_that_parses():
    assert parse_actual('```json\n{"a": 1,\n```\nthen\n```json\n{"b": 2}\n```') == {"b": 2}
    assert parse_actual('```json\n{"a": 1,\n```\nor rather {"c": 3}') == {"c": 3}


def test_a_fine_fenced_block_still_parses():
    assert parse_actual('Sure:\n```json\n{"a": {"b": [1, 2]}}\n```') == {"a": {"b": [1, 2]}}


def test_a_fenced_block_error_goes_through_match_json_as_it_is():
    text = '```json\n{"a": 1 "b": 2}\n```'
    exc = raised(match_json, text, {"a": 1, "b": 2}, metric="field_match")
    assert type(exc) is ParseError
    assert str(exc) == (
        "no JSON object found in actual: its code fence holds broken JSON: "
        "Expecting ',' delimiter (line 2, column 9) (text starts " + repr(text) + ")"
    )


def test_a_truncated_10mb_fenced_answer_is_named_in_bounded_time():
    text = "Here:\n```json\n" + '{"a": "' + "x" * 10_000_000
    with within(GENEROUS):
        exc = raised(parse_actual, text)
    assert str(exc) == cut_off((3, 1), (3, 10_000_008), 10_000_007, text)


# -- top-level arrays -------------------------------------------------------------------------


@pytest.mark.parametrize("metric", ["field_match", "field_match_normalized"])
def test_top_level_array_actual_is_an_error_for_field_match_metrics(metric):
    with pytest.raises(ParseError):
        match_json([{"a": 1}], {"a": 1}, metric=metric)


@pytest.mark.parametrize("metric", ["field_match", "field_match_normalized"])
def test_top_level_array_expected_is_an_error_for_field_match_metrics(metric):
    with pytest.raises(ParseError):
        match_json({"a": 1}, "[1, 2]", metric=metric)


@pytest.mark.parametrize("metric", ["structural_f1", "field_f1"])
def test_top_level_array_is_allowed_by_f1_metrics(metric):
    result = match_json("[1, 2]", [1, 2], metric=metric)
    assert result.f1 == 1.0
    assert result.score == 1.0


def test_match_json_parses_actual_leniently():
    result = match_json(
        'Output:\n```json\n{"a": 1, "b": 2}\n```', {"a": 1, "b": 2}, metric="field_match"
    )
    assert result.score == 1.0


# -- NaN and Infinity in text -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "constant"),
    [
        ('{"price": NaN}', "NaN"),
        ('{"items": [{"price": 1}, {"price": Infinity}]}', "Infinity"),
        ('{"a": {"b": {"c": -Infinity}}}', "-Infinity"),
        (b'{"total": NaN}', "NaN"),
    ],
)
def test_nan_and_infinity_anywhere_in_strict_text_are_named(text, constant):
    exc = raised(parse_expected, text)
    assert type(exc) is ParseError
    shown = text.decode() if isinstance(text, bytes) else text
    assert (
        str(exc)
        == f"expected is not valid JSON: {constant} is not a JSON number (text starts {shown!r})"
    )


@pytest.mark.parametrize("metric", METRICS)
def test_nan_in_expected_text_is_a_parse_error_under_every_metric(metric):
    exc = raised(match_json, {"price": 1.0}, '{"price": NaN}', metric=metric)
    assert type(exc) is ParseError
    assert "NaN is not a JSON number" in str(exc)


def test_nan_in_lenient_actual_text_is_not_taken_for_an_object():
    exc = raised(parse_actual, '{"price": NaN}')
    assert str(exc) == "no JSON object found in actual: '{\"price\": NaN}'"


def test_lenient_parsing_passes_over_a_nan_object_to_the_next_one():
    with within(GENEROUS):
        assert parse_actual('first {"a": NaN} then {"a": 1}') == {"a": 1}


# -- empty text under every metric ------------------------------------------------------------


@pytest.mark.parametrize("metric", METRICS)
def test_empty_text_actual_is_a_parse_error_not_a_crash(metric):
    with pytest.raises(JsonMatchError) as info:
        match_json("   ", {"a": 1}, metric=metric)
    assert str(info.value) == "no JSON object found in actual: '   '"


# -- 100,000 levels ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [deep_object_text(), '{"a": ' + "[" * DEPTH + "]" * DEPTH + "}"],
    ids=["objects", "arrays"],
)
def test_deep_strict_text_is_a_parse_error_saying_it_nests_too_deeply(text):
    exc = raised(parse_expected, text)
    assert type(exc) is ParseError
    assert str(exc) == f"expected nests too deeply to read (text starts {text[:80]!r}...)"


@pytest.mark.parametrize(
    "text",
    [
        deep_object_text(),
        "Here you go: " + deep_object_text() + " Done.",
        "```json\n" + deep_object_text() + "\n```",
    ],
    ids=["whole", "in-prose", "in-a-fence"],
)
def test_deep_lenient_text_is_the_door_s_error_naming_where(text):
    # it was "no JSON object found" (where the standard reader ran out of stack): the text
    # is JSON, nested past the door's 2,000 levels, wherever it is read from
    exc = raised(parse_actual, text)
    assert type(exc) is ParseError
    assert str(exc) == (
        "actual: values nest too deeply (more than 2,000 levels, at " + ("a." * 30)[:60] + "...)"
    )


def test_an_object_after_a_deep_unreadable_one_is_found():
    text = deep_object_text() + ' and then {"ok": 1}'
    with within(GENEROUS):
        assert parse_actual(text) == {"ok": 1}


@pytest.mark.parametrize("metric", METRICS)
def test_deep_text_on_either_side_is_a_parse_error_under_every_metric(metric):
    text = deep_object_text()
    assert "nests too deeply" in str(raised(match_json, {"a": 1}, text, metric=metric))
    assert "actual: values nest too deeply (more than 2,000 levels" in str(
        raised(match_json, text, {"a": 1}, metric=metric)
    )


# -- 10 MB strings ----------------------------------------------------------------------------

BIG = "x" * 10_000_000


def test_a_10mb_string_value_is_read_strictly_and_leniently():
    with within(GENEROUS):
        assert len(parse_expected('{"a": "' + BIG + '"}')["a"]) == len(BIG)
        assert len(parse_actual('Sure: {"a": "' + BIG + '"} ok?')["a"]) == len(BIG)
        assert len(parse_actual('```json\n{"a": "' + BIG + '"}\n```')["a"]) == len(BIG)


def test_an_unterminated_10mb_string_is_a_short_strict_error():
    exc = raised(parse_expected, '{"a": "' + BIG)
    assert type(exc) is ParseError
    assert str(exc).startswith("expected is not valid JSON: Unterminated string starting at")
    assert "(line 1, column 7)" in str(exc)
    assert "at at" not in str(exc)


def test_an_unterminated_10mb_string_is_a_short_lenient_error():
    text = 'Result: {"a": "' + BIG  # an answer cut off in its string
    exc = raised(parse_actual, text)
    assert str(exc) == cut_off((1, 9), (1, len(text) + 1), len(text) - 8, text)


def test_10mb_of_prose_without_json_is_a_short_error():
    exc = raised(parse_actual, "I could not find the invoice total. " * 300_000)
    assert str(exc).startswith(
        "no JSON object found in actual: 'I could not find the invoice total."
    )


# -- brace soup and unterminated nesting: linear time -----------------------------------------

SOUP_SIZE = 10_000_000


def _soup(alphabet: str, seed: int) -> str:
    rnd = random.Random(seed)
    return "".join(rnd.choices(alphabet, k=SOUP_SIZE))


SOUPS = {
    "openers-only": (lambda: _soup('{[":, a1', 3)),
    "key-colon-chain": (lambda: '{"":' * (SOUP_SIZE // 4)),
    "unterminated-strings": (lambda: '{"a": "' * (SOUP_SIZE // 7)),
    "unterminated-arrays": (lambda: '{"a": [' * (SOUP_SIZE // 7)),
    "closers-only": (lambda: "}" * SOUP_SIZE),
    "fence-soup": (lambda: "```json\n{" * (SOUP_SIZE // 9)),
    "bare-fences": (lambda: "```\n" * (SOUP_SIZE // 4)),
}


# Soups that end inside a JSON value are answers cut off (test_truncation.py has the rule):
# the chain of keys and the chain of arrays from their first character; the unterminated
# strings from the last '{"a": "' (7 characters, each '{' before it breaks off at its
# string's "a"); the fences from the "{" of the last one, left open.
SOUP_CUTS = {
    "key-colon-chain": lambda text: (1, 1),
    "unterminated-strings": lambda text: (1, len(text) - 6),
    "unterminated-arrays": lambda text: (1, 1),
    "fence-soup": lambda text: (text.count("\n") + 1, 1),
}


@pytest.mark.parametrize("name", list(SOUPS))
def test_10mb_of_brace_soup_without_an_object_is_a_parse_error_in_bounded_time(name):
    text = SOUPS[name]()
    exc = raised(parse_actual, text)
    if name in SOUP_CUTS:
        line, column = SOUP_CUTS[name](text)
        chars = len(text) - (text.rfind("\n") + 1 if line > 1 else 0) - column + 1
        ends = (text.count("\n") + 1, len(text) - text.rfind("\n"))
        assert type(exc) is TruncatedError
        assert str(exc) == cut_off((line, column), ends, chars, text)
    else:
        assert type(exc) is ParseError
        assert str(exc) == f"no JSON object found in actual: {text[:80]!r}..."


def test_random_brace_soup_with_closers_answers_in_bounded_time():
    text = _soup('{}[]":, a1', 11)
    with within(GENEROUS):
        try:
            found = parse_actual(text)
        except ParseError:
            return
    assert isinstance(found, dict)


@pytest.mark.parametrize("name", ["openers-only", "unterminated-strings", "unterminated-arrays"])
def test_an_object_after_10mb_of_soup_is_found(name):
    # the arrays soup breaks off at its end ("[}"), so the object after it is the answer
    text = SOUPS[name]() + ("}" if name == "unterminated-arrays" else "") + ' {"ok": 1}'
    with within(GENEROUS):
        assert parse_actual(text) == {"ok": 1}


def test_unterminated_nesting_then_an_object_is_found():
    text = '{"a": ' * 1_500_000 + '] {"ok": 1}'  # "]" where a value is due: no JSON value
    with within(GENEROUS):
        assert parse_actual(text) == {"ok": 1}


@pytest.mark.parametrize(
    "nesting", ['{"a": ' * 1_500_000, '{"a": [' * 1_400_000], ids=["objects", "objects-and-arrays"]
)
def test_an_object_inside_10mb_of_unterminated_nesting_is_not_the_answer(nesting):
    # it was: the object was found. The nesting is a JSON value the text ends inside, so the
    # object is part of an answer cut off, never the answer
    text = nesting + ' {"ok": 1}'
    exc = raised(parse_actual, text)
    assert type(exc) is TruncatedError and (exc.opened_column, exc.chars) == (1, len(text))


# -- invalid UTF-8 ----------------------------------------------------------------------------

BAD_BYTES = [
    ("latin-1", b'{"a": "caf\xe9"}', 10, 0xE9),
    ("lone-continuation", b'{"a": "\x80"}', 7, 0x80),
    ("overlong", b'{"a": "\xc0\xaf"}', 7, 0xC0),
    ("encoded-surrogate", b'{"a": "\xed\xa0\x80"}', 7, 0xED),
    ("truncated-at-end", b'{"a": "\xe2\x82', 7, 0xE2),
    ("utf-16", '{"a": 1}'.encode("utf-16"), 0, 0xFF),
]


@pytest.mark.parametrize(
    ("data", "index", "byte"), [b[1:] for b in BAD_BYTES], ids=[b[0] for b in BAD_BYTES]
)
def test_invalid_utf8_names_the_byte_strictly_and_leniently(data, index, byte):
    exc = raised(parse_expected, data)
    assert str(exc) == f"expected is not valid UTF-8: byte {index} is 0x{byte:02x}"
    exc = raised(parse_actual, bytearray(data))
    assert str(exc) == f"actual is not valid UTF-8: byte {index} is 0x{byte:02x}"


@pytest.mark.parametrize("metric", METRICS)
def test_invalid_utf8_through_match_json_is_a_parse_error(metric):
    exc = raised(match_json, b'\xff{"a": 1}', {"a": 1}, metric=metric)
    assert type(exc) is ParseError
    assert str(exc) == "actual is not valid UTF-8: byte 0 is 0xff"


def test_invalid_utf8_deep_in_10mb_names_the_byte_offset():
    data = b'{"a": "' + b"x" * 10_000_000 + b'\xff"}'
    exc = raised(parse_actual, data)
    assert str(exc) == f"actual is not valid UTF-8: byte {7 + 10_000_000} is 0xff"


def test_a_lone_surrogate_escape_is_compared_not_crashed():
    with within(GENEROUS):
        result = match_json('{"a": "\\ud800"}', {"a": "\ud800"}, metric="json_similarity")
    assert result.score == 1.0
