"""Section 2 of metrics.md: strict parsing of expected, lenient parsing of actual."""

from __future__ import annotations

import pytest

from pytest_jsonmatch import JsonMatchError, ParseError, match_json, parse_actual, parse_expected

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
    text = ('```json\n{"a": 1,\n```\n```json\n{"b": 2} and more\n```\n'
            '```json\n  {"c": 3}  \n```')
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
    text = '{"a": ' * 1_700_000  # 6 bytes each: ~10 MB, never closed
    assert len(text) >= 10_000_000
    with pytest.raises(ParseError):
        parse_actual(text)


def test_object_after_a_megabyte_of_open_braces_is_found():
    assert parse_actual("{" * 1_000_000 + ' {"a": 1}') == {"a": 1}


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
    result = match_json('Output:\n```json\n{"a": 1, "b": 2}\n```', {"a": 1, "b": 2},
                        metric="field_match")
    assert result.score == 1.0
