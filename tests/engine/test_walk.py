"""Reliability of JSON input: NaN and Infinity, 100,000 levels of nesting, 10 MB strings,
brace soup and unterminated nesting (linear time), invalid UTF-8. Every bad input is a
ParseError (a JsonMatchError) with a short message saying what is wrong, within a bounded
time; never a RecursionError, never a hang.

tests/test_engine_parse.py covers the parsing rules on small inputs and the two 10 MB
brace inputs of the spec; this module covers the rest of the adversarial inputs.
"""

from __future__ import annotations

import random

import pytest

from pytest_jsonmatch import (JsonMatchError, MatchResult, ParseError, match_json, parse_actual,
                              parse_expected)
from tests.helpers.timeout import GENEROUS, within

METRICS = ["field_match", "field_match_normalized", "json_similarity", "structural_f1", "field_f1"]
DEPTH = 100_000
MAX_MESSAGE = 400  # an error about a 10 MB input must not be 10 MB long


def raised(fn, *args, **kwargs) -> BaseException:
    """The exception ``fn`` raises within the bound; RecursionError and any exception outside
    the project's family fail the test with what was raised."""
    with within(GENEROUS, getattr(fn, "__name__", "the call")):
        try:
            value = fn(*args, **kwargs)
        except JsonMatchError as exc:
            assert len(str(exc)) <= MAX_MESSAGE, f"message of {len(str(exc))} characters"
            return exc
        except RecursionError:
            pytest.fail("RecursionError escaped: deep input must be a JsonMatchError")
    pytest.fail(f"no error raised; returned {value!r:.200}")


def deep_object_text(depth: int = DEPTH) -> str:
    return '{"a": ' * depth + "1" + "}" * depth


def deep_dict(depth: int = DEPTH) -> dict:
    value: object = 1
    for _ in range(depth):
        value = {"a": value}
    return value  # type: ignore[return-value]


def deep_list(depth: int = DEPTH) -> dict:
    value: object = 1
    for _ in range(depth):
        value = [value]
    return {"a": value}


# -- NaN and Infinity ----------------------------------------------------------------------------


@pytest.mark.parametrize(("text", "constant"), [
    ('{"price": NaN}', "NaN"),
    ('{"items": [{"price": 1}, {"price": Infinity}]}', "Infinity"),
    ('{"a": {"b": {"c": -Infinity}}}', "-Infinity"),
    (b'{"total": NaN}', "NaN"),
])
def test_nan_and_infinity_anywhere_in_strict_text_are_named(text, constant):
    exc = raised(parse_expected, text)
    assert type(exc) is ParseError
    shown = text.decode() if isinstance(text, bytes) else text
    assert str(exc) == f"expected is not valid JSON: {constant} is not JSON (text starts {shown!r})"


@pytest.mark.parametrize("metric", METRICS)
def test_nan_in_expected_text_is_a_parse_error_under_every_metric(metric):
    exc = raised(match_json, {"price": 1.0}, '{"price": NaN}', metric=metric)
    assert type(exc) is ParseError
    assert "NaN is not JSON" in str(exc)


@pytest.mark.parametrize("constant", ["nan", "inf", "-inf"])
def test_nan_or_infinity_in_an_expected_mapping_is_a_parse_error_naming_the_path(constant):
    # "NaN and ±Infinity are not JSON": a mapping is taken as it is, but not with non-JSON values
    exc = raised(match_json, {"items": [{"price": 1.0}]}, {"items": [{"price": float(constant)}]},
                 metric="json_similarity")
    assert isinstance(exc, ParseError)
    assert "items[0].price" in str(exc)
    assert "not JSON" in str(exc) or "not a JSON value" in str(exc)


@pytest.mark.parametrize("metric", ["json_similarity", "structural_f1", "field_f1"])
def test_the_same_infinity_on_both_sides_is_still_a_parse_error_naming_the_path(metric):
    # equal values of one type skip the comparator; an infinity equals itself, and must not
    exc = raised(match_json, {"items": [{"price": float("inf")}]},
                 {"items": [{"price": float("inf")}]}, metric=metric)
    assert isinstance(exc, ParseError)
    assert "items[0].price" in str(exc) and "expected" in str(exc)


@pytest.mark.parametrize("metric", ["field_match", "field_match_normalized"])
def test_the_same_infinity_inside_a_whole_value_is_a_parse_error_naming_its_own_field(metric):
    # the field-match metrics compare each top-level value whole; the error still names the
    # field inside it that holds the infinity, and the side
    exc = raised(match_json, {"items": [{"price": float("inf")}]},
                 {"items": [{"price": float("inf")}]}, metric=metric)
    assert isinstance(exc, ParseError)
    assert str(exc) == ("items[0].price: inf in expected is not a JSON number "
                        "(NaN and Infinity are not JSON)")


@pytest.mark.parametrize("metric", METRICS)
def test_nan_deep_in_actual_is_named_by_its_field_and_side_under_every_metric(metric):
    expected = {"items": [{"price": 1.0}, {"dims": {"w": 2.0}}]}
    actual = {"items": [{"price": 1.0}, {"dims": {"w": float("nan")}}]}
    exc = raised(match_json, actual, expected, metric=metric)
    assert isinstance(exc, ParseError)
    assert str(exc).startswith("items[1].dims.w: nan in actual is not a JSON number")


@pytest.mark.parametrize("metric", METRICS)
def test_a_python_object_deep_in_a_value_is_named_by_its_field_under_every_metric(metric):
    exc = raised(match_json, {"tags": {"a": [1, {2, 3}]}}, {"tags": {"a": [1, 2]}}, metric=metric)
    assert isinstance(exc, ParseError)
    assert str(exc).startswith("tags.a[1]: set is not a JSON value")


def test_invalid_inside_finds_the_first_bad_value_in_document_order():
    from pytest_jsonmatch.engine.values import invalid_inside

    value = {"a": [1.0, {"b": float("-inf")}], "c": float("nan")}
    assert str(invalid_inside(value, "root", "actual")) == (
        "root.a[1].b: -inf in actual is not a JSON number (NaN and Infinity are not JSON)")
    assert str(invalid_inside({"x": float("nan")}, "", "expected")).startswith("x: nan in expected")
    assert invalid_inside({"a": [1, "two", None, True, {"b": 2.5}]}, "", "expected") is None


NOT_JSON = "is not a JSON number (NaN and Infinity are not JSON)"


@pytest.mark.parametrize("metric", METRICS)
def test_nan_in_a_field_actual_lacks_is_named_as_expected_s(metric):
    # an omission is counted without being compared: nothing else would look at the value
    exc = raised(match_json, {"a": 1}, {"a": 1, "b": float("nan")}, metric=metric)
    assert str(exc) == f"b: nan in expected {NOT_JSON}"


@pytest.mark.parametrize("metric", METRICS)
def test_infinity_deep_in_an_omitted_value_is_named_by_its_own_field(metric):
    expected = {"a": 1, "b": {"c": [1.5, {"d": float("-inf")}]}}
    exc = raised(match_json, {"a": 1}, expected, metric=metric)
    assert str(exc) == f"b.c[1].d: -inf in expected {NOT_JSON}"


@pytest.mark.parametrize("metric", ["structural_f1", "field_f1"])
def test_nan_in_a_hallucinated_field_is_named_as_actual_s(metric):
    # the F1 metrics count extra actual fields, so they are read too
    exc = raised(match_json, {"a": 1, "extra": [2.0, float("nan")]}, {"a": 1}, metric=metric)
    assert str(exc) == f"extra[1]: nan in actual {NOT_JSON}"


@pytest.mark.parametrize("metric", METRICS)
def test_nan_in_an_unpaired_array_element_is_named(metric):
    exc = raised(match_json, {"items": [{"p": 1.0}]},
                 {"items": [{"p": 1.0}, {"p": float("nan")}]}, metric=metric)
    assert str(exc) == f"items[1].p: nan in expected {NOT_JSON}"


@pytest.mark.parametrize("metric", ["field_match", "field_match_normalized"])
@pytest.mark.parametrize(("actual", "where"), [
    ([1, 2, float("nan")], "items[2]"),  # lengths differ: the comparison reads no element
    ({"x": 9, "y": float("inf")}, "items.y"),  # x differs first: y is never reached
], ids=["array-lengths", "object-first-field"])
def test_a_nan_past_the_first_difference_of_a_whole_value_is_still_named(metric, actual, where):
    expected = {"items": [1, 2]} if isinstance(actual, list) else {"items": {"x": 1, "y": 2}}
    exc = raised(match_json, {"items": actual}, expected, metric=metric)
    value = "nan" if isinstance(actual, list) else "inf"
    assert str(exc) == f"{where}: {value} in actual {NOT_JSON}"


@pytest.mark.parametrize("metric", ["field_match", "json_similarity", "structural_f1", "field_f1"])
def test_a_container_against_an_expected_scalar_is_read_for_non_json_values(metric):
    # json_similarity does not count the container's leaves; it must still not hide a set
    exc = raised(match_json, {"a": {"x": {1, 2}}}, {"a": "text"}, metric=metric)
    assert str(exc).startswith("a.x: set is not a JSON value")


def test_a_key_the_schema_does_not_know_is_read_for_non_json_values():
    schema = {"type": "object", "properties": {"a": {"type": "integer"}}}
    exc = raised(match_json, {"a": 1, "debug": {"t": float("inf")}}, {"a": 1},
                 metric="field_f1", schema=schema)
    assert str(exc) == f"debug.t: inf in actual {NOT_JSON}"


@pytest.mark.parametrize(("metric", "score"), [
    ("field_match", 0.5), ("field_match_normalized", 0.5),  # a matches once a.y is pruned; b missing
    ("json_similarity", 0.5),  # leaves a.x (1) and b.m (0): 1 / 2
    ("structural_f1", 2 / 3), ("field_f1", 2 / 3),  # a.x matches, b.m omitted: P 1/1, R 1/2
])
def test_values_the_ignore_option_names_are_not_read(metric, score):
    # ignored fields are not looked at, inside a whole value or a one-sided one
    result = match_json({"a": {"x": 1, "y": float("nan")}},
                        {"a": {"x": 1, "y": 2}, "b": {"n": float("nan"), "m": 1}},
                        metric=metric, ignore=["a.y", "b.n"])
    assert result.score == pytest.approx(score, abs=1e-12)


@pytest.mark.parametrize("metric", METRICS)
def test_an_omitted_value_that_holds_itself_is_a_parse_error_not_a_hang(metric):
    loop: list = [1]
    loop.append(loop)
    exc = raised(match_json, {"a": 1}, {"a": 1, "b": loop}, metric=metric)
    assert str(exc) == "the values nest too deeply to compare (more levels than Python's recursion limit allows)"


@pytest.mark.parametrize("metric", ["field_match", "json_similarity"])
def test_extra_actual_keys_a_metric_does_not_score_are_not_read(metric):
    # these two metrics ignore actual's extra keys (their rule); their values are not read
    assert match_json({"a": 1, "extra": float("nan")}, {"a": 1}, metric=metric).score == 1.0


def test_check_json_inside_passes_valid_tuples_and_mappings_and_reads_a_cycle_once():
    from types import MappingProxyType

    from pytest_jsonmatch.engine.values import check_json_inside, invalid_inside

    check_json_inside((1, "a", MappingProxyType({"k": [None, True]})), "v", "actual")  # no error
    loop: list = [1.0]
    loop.append(loop)  # holds itself: read once, not forever
    with within(GENEROUS, "invalid_inside"):
        assert invalid_inside({"a": loop, "b": [loop]}, "", "actual") is None
    with pytest.raises(ParseError) as info:
        check_json_inside({"a": (1, float("nan"))}, "v", "expected")
    assert str(info.value) == f"v.a[1]: nan in expected {NOT_JSON}"


def test_nan_in_lenient_actual_text_is_not_taken_for_an_object():
    exc = raised(parse_actual, '{"price": NaN}')
    assert str(exc) == "no JSON object found in actual: '{\"price\": NaN}'"


def test_lenient_parsing_passes_over_a_nan_object_to_the_next_one():
    with within(GENEROUS):
        assert parse_actual('first {"a": NaN} then {"a": 1}') == {"a": 1}


# -- 100,000 levels --------------------------------------------------------------------------------


@pytest.mark.parametrize("text", [deep_object_text(), '{"a": ' + "[" * DEPTH + "]" * DEPTH + "}"],
                         ids=["objects", "arrays"])
def test_deep_strict_text_is_a_parse_error_saying_it_nests_too_deeply(text):
    exc = raised(parse_expected, text)
    assert type(exc) is ParseError
    assert str(exc) == f"expected nests too deeply to read (text starts {text[:80]!r}...)"


@pytest.mark.parametrize("text", [deep_object_text(), "Here you go: " + deep_object_text() + " Done.",
                                  "```json\n" + deep_object_text() + "\n```"],
                         ids=["whole", "in-prose", "in-a-fence"])
def test_deep_lenient_text_is_a_parse_error_naming_the_start_of_the_text(text):
    exc = raised(parse_actual, text)
    assert type(exc) is ParseError
    assert str(exc) == f"no JSON object found in actual: {text[:80]!r}..."


def test_an_object_after_a_deep_unreadable_one_is_found():
    text = deep_object_text() + ' and then {"ok": 1}'
    with within(GENEROUS):
        assert parse_actual(text) == {"ok": 1}


@pytest.mark.parametrize("metric", METRICS)
def test_deep_text_on_either_side_is_a_parse_error_under_every_metric(metric):
    text = deep_object_text()
    assert "nests too deeply" in str(raised(match_json, {"a": 1}, text, metric=metric))
    assert "no JSON object found in actual" in str(raised(match_json, text, {"a": 1}, metric=metric))


@pytest.mark.parametrize("metric", METRICS)
@pytest.mark.parametrize("build", [deep_dict, deep_list], ids=["dict", "list"])
def test_deep_python_values_compared_with_themselves_are_a_jsonmatch_error(metric, build):
    value = build()
    exc = raised(match_json, value, value, metric=metric)
    assert "nest too deeply" in str(exc)


@pytest.mark.parametrize("metric", METRICS)
def test_a_deep_python_expected_against_a_shallow_actual_never_raises_recursion_error(metric):
    value = deep_dict()
    with within(GENEROUS):
        try:
            result = match_json({"a": {"a": 1}}, value, metric=metric)
        except JsonMatchError as exc:
            assert "too deeply" in str(exc)
        except RecursionError:
            pytest.fail("RecursionError escaped")
        else:
            assert isinstance(result, MatchResult) and 0.0 <= result.score < 1.0


@pytest.mark.parametrize("metric", METRICS)
def test_a_deep_python_actual_against_a_shallow_expected_never_raises_recursion_error(metric):
    value = deep_dict()
    with within(GENEROUS):
        try:
            result = match_json(value, {"a": {"a": {"b": 1}}}, metric=metric)
        except JsonMatchError as exc:
            assert "too deeply" in str(exc)
        except RecursionError:
            pytest.fail("RecursionError escaped")
        else:
            assert 0.0 <= result.score < 1.0


# -- 10 MB strings ----------------------------------------------------------------------------------

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
    exc = raised(parse_actual, 'Result: {"a": "' + BIG)
    assert str(exc) == "no JSON object found in actual: " + repr(('Result: {"a": "' + BIG)[:80]) + "..."


def test_10mb_of_prose_without_json_is_a_short_error():
    exc = raised(parse_actual, "I could not find the invoice total. " * 300_000)
    assert str(exc).startswith("no JSON object found in actual: 'I could not find the invoice total.")


@pytest.mark.parametrize("metric", METRICS)
def test_10mb_strings_are_compared_under_every_metric(metric):
    near = BIG[:-1] + "y"
    with within(GENEROUS, f"comparing 10 MB strings under {metric}"):
        result = match_json({"a": near, "b": 1}, {"a": BIG, "b": 1}, metric=metric)
    assert 0.0 <= result.score < 1.0
    assert [f.status for f in result.fields if f.path == "a"] == ["mismatch"]


# -- brace soup and unterminated nesting: linear time ----------------------------------------------

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


@pytest.mark.parametrize("name", list(SOUPS))
def test_10mb_of_brace_soup_without_an_object_is_a_parse_error_in_bounded_time(name):
    text = SOUPS[name]()
    exc = raised(parse_actual, text)
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
    text = SOUPS[name]() + ' {"ok": 1}'
    with within(GENEROUS):
        assert parse_actual(text) == {"ok": 1}


def test_unterminated_nesting_then_an_object_is_found():
    text = '{"a": ' * 1_500_000 + ' {"ok": 1}'
    with within(GENEROUS):
        assert parse_actual(text) == {"ok": 1}


# -- invalid UTF-8 -------------------------------------------------------------------------------

BAD_BYTES = [
    ("latin-1", b'{"a": "caf\xe9"}', 10, 0xE9),
    ("lone-continuation", b'{"a": "\x80"}', 7, 0x80),
    ("overlong", b'{"a": "\xc0\xaf"}', 7, 0xC0),
    ("encoded-surrogate", b'{"a": "\xed\xa0\x80"}', 7, 0xED),
    ("truncated-at-end", b'{"a": "\xe2\x82', 7, 0xE2),
    ("utf-16", '{"a": 1}'.encode("utf-16"), 0, 0xFF),
]


@pytest.mark.parametrize(("data", "index", "byte"), [b[1:] for b in BAD_BYTES], ids=[b[0] for b in BAD_BYTES])
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
