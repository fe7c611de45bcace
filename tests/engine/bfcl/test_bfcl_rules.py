"""rules="bfcl": the same verdict as the Berkeley Function Calling Leaderboard's AST checker.

The differential test runs BFCL's own checker (``bfcl_eval``, installed with ``--no-deps``;
tests/helpers/bfcl_entries.py imports it without its providers' clients) on BFCL's own
entries of every AST category, with model outputs made from each entry: each possible
answer, and each kind of wrong one. ``bfcl_verdict`` and ``match_json(..., rules="bfcl")``
(its score 1.0 exactly when valid) must give the checker's verdict for every one, or raise
ConfigError where it raises. docs/metrics.md lists the deliberate differences; none of them
occurs in BFCL's data.
"""

from __future__ import annotations

import collections
import json

import pytest

from pytest_jsonmatch import (
    BfclChecker,
    BfclVerdict,
    ConfigError,
    JsonMatchError,
    bfcl_verdict,
    match_json,
)
from tests.helpers.bfcl_entries import (
    CATEGORIES,
    DOTS_MODEL,
    PLAIN_MODEL,
    Entry,
    entries,
    language_of,
    load_checker,
    outputs,
)

AST_CHECKER, LANGUAGE = load_checker()


def theirs(entry, output, model):
    language = getattr(LANGUAGE, language_of(entry.category).upper())
    try:
        checked = AST_CHECKER(
            entry.functions, output, entry.possible_answer, language, entry.category, model
        )
    except Exception:  # noqa: BLE001 (the checker's own crash is a verdict here)
        return "raises"
    return checked["valid"]


def ours(entry, output, model):
    try:
        return bfcl_verdict(
            entry.functions,
            output,
            entry.possible_answer,
            entry.category,
            underscore_to_dot=model == DOTS_MODEL,
        ).valid
    except ConfigError:
        return "raises"


def full_result(entry, output):
    expected = {"possible_answer": entry.possible_answer, "function": entry.functions}
    try:
        return match_json(
            output, expected, metric="tool_calls", rules="bfcl", category=entry.category
        )
    except ConfigError:
        return "raises"


def scored(entry, output):
    result = full_result(entry, output)
    if result == "raises":
        return result
    assert 0.0 <= result.score <= 1.0
    return result.score == 1.0


def checked(checker, output):
    """The checker's verdict and its result's scores (the same entry, read once)."""
    try:
        verdict = checker.verdict(output).valid
    except ConfigError:
        verdict = "raises"
    try:
        result = checker.score(output)
    except ConfigError:
        return verdict, "raises"
    return verdict, (result.score, result.precision, result.recall, result.f1)


@pytest.mark.parametrize("category", CATEGORIES)
def test_the_verdict_is_the_checkers_on_every_entry_and_output(category):
    counts: collections.Counter[object] = collections.Counter()
    differ = []
    for i, entry in enumerate(entries(category)):
        # one checker per entry, every output checked with it (the entry read once)
        checker = BfclChecker(entry.functions, entry.possible_answer, entry.category)
        for kind, output in outputs(entry):
            verdict = theirs(entry, output, PLAIN_MODEL)
            counts[verdict] += 1
            if ours(entry, output, PLAIN_MODEL) != verdict:
                differ.append((entry.id, kind, "verdict", verdict))
            reused, result = checked(checker, output)
            if reused != verdict:
                differ.append((entry.id, kind, "BfclChecker.verdict", verdict))
            if (result == "raises") != (verdict == "raises") or (
                result != "raises" and (result[0] == 1.0) != verdict
            ):
                differ.append((entry.id, kind, "BfclChecker.score", verdict))
            # the metric's result in full, on every third entry (the same rules; it keeps the
            # run short): BfclChecker.score gives the same scores
            if i % 3 == 0:
                full = full_result(entry, output)
                if full == "raises" or result == "raises":
                    same = full == result
                else:
                    same = result == (full.score, full.precision, full.recall, full.f1)
                if not same or (full != "raises" and (full.score == 1.0) != verdict):
                    differ.append((entry.id, kind, "match_json", verdict))
            # a model that writes dots as underscores, on the entries whose names have dots
            names = [name for call in entry.possible_answer for name in call]
            if any("." in name for name in names) and i % 3 == 1:
                if ours(entry, output, DOTS_MODEL) != theirs(entry, output, DOTS_MODEL):
                    differ.append((entry.id, kind, "underscore_to_dot", verdict))
    assert differ == []
    # the outputs put the rules to work: the checker passes some and fails others
    assert counts[True] > 0 and counts[False] > 0


def test_python_takes_an_integer_where_a_float_is_declared():
    functions = [
        {
            "name": "area",
            "parameters": {
                "type": "dict",
                "properties": {"radius": {"type": "float"}, "unit": {"type": "string"}},
                "required": ["radius"],
            },
        }
    ]
    answer = [{"area": {"radius": [5.0], "unit": ["Square Meters", ""]}}]
    assert bfcl_verdict(functions, [{"area": {"radius": 5}}], answer, "simple_python").valid
    # strings lose spaces and ,./-_*^ and case before they are compared
    assert bfcl_verdict(
        functions, [{"area": {"radius": 5, "unit": "square_meters"}}], answer, "simple_python"
    ).valid
    wrong = bfcl_verdict(functions, [{"area": {"radius": "5"}}], answer, "simple_python")
    assert wrong == BfclVerdict(False, "type of 'radius': expected float, got str")


def test_java_and_javascript_values_are_source_text_converted_by_type():
    functions = [
        {
            "name": "Cache.put",
            "parameters": {
                "type": "dict",
                "properties": {
                    "ttl": {"type": "long"},
                    "keys": {"type": "ArrayList", "items": {"type": "String"}},
                },
                "required": ["ttl", "keys"],
            },
        }
    ]
    # the possible answers hold the values the text converts to
    answer = [{"Cache.put": {"ttl": [300], "keys": [["a", "b"]]}}]
    keys = 'new ArrayList<>(Arrays.asList("a", "b"))'
    call = [{"Cache.put": {"ttl": "300L", "keys": keys}}]
    assert theirs_simple(functions, call, answer, "simple_java") is True
    assert bfcl_verdict(functions, call, answer, "simple_java").valid
    for wrong in ({"ttl": 300, "keys": keys}, {"ttl": "300", "keys": keys}):
        # a number where Java text is due; an int literal where a long is declared
        output = [{"Cache.put": wrong}]
        assert theirs_simple(functions, output, answer, "simple_java") is False
        assert not bfcl_verdict(functions, output, answer, "simple_java").valid
    js = [
        {
            "name": "draw",
            "parameters": {
                "type": "dict",
                "properties": {"points": {"type": "array", "items": {"type": "integer"}}},
                "required": ["points"],
            },
        }
    ]
    js_answer = [{"draw": {"points": [[1, 2, 3]]}}]
    for text, valid in (("[1, 2, 3]", True), ("new Array(1, 2, 3)", True), ("[1, 2]", False)):
        output = [{"draw": {"points": text}}]
        assert theirs_simple(js, output, js_answer, "simple_javascript") is valid
        assert bfcl_verdict(js, output, js_answer, "simple_javascript").valid is valid


def theirs_simple(functions, output, answer, category):
    language = getattr(LANGUAGE, language_of(category).upper())
    return AST_CHECKER(functions, output, answer, language, category, PLAIN_MODEL)["valid"]


def test_parallel_calls_are_matched_greedily_as_the_checker_does():
    # the first expected call takes the first call it accepts (a=1), leaving a=2 for the
    # second, which accepts only a=1: invalid, though another pairing would pass. The
    # metric's own rules (order="any") find that pairing.
    functions = [
        {
            "name": "f",
            "parameters": {
                "type": "dict",
                "properties": {"a": {"type": "integer"}},
                "required": [],
            },
        }
    ]
    answer = [{"f": {"a": [1, 2]}}, {"f": {"a": [1]}}]
    output = [{"f": {"a": 1}}, {"f": {"a": 2}}]
    assert theirs_simple(functions, output, answer, "parallel") is False
    assert not bfcl_verdict(functions, output, answer, "parallel").valid
    expected = {"possible_answer": answer, "function": functions}
    assert match_json(output, expected, metric="tool_calls").score == 1.0
    bfcl = match_json(output, expected, metric="tool_calls", rules="bfcl", category="parallel")
    assert bfcl.score < 1.0


def test_any_vendor_form_gives_the_same_verdict():
    functions = [
        {
            "name": "get_weather",
            "parameters": {
                "type": "dict",
                "properties": {"city": {"type": "string"}},
                "required": ["city"],
            },
        }
    ]
    answer = [{"get_weather": {"city": ["Paris"]}}]
    openai = {
        "tool_calls": [
            {
                "type": "function",
                "function": {"name": "get_weather", "arguments": '{"city": "paris"}'},
            }
        ]
    }
    assert bfcl_verdict(functions, openai, answer, "live_simple") == BfclVerdict(True, "")


def test_where_the_checker_raises_the_verdict_is_a_config_error():
    functions = [
        {
            "name": "f",
            "parameters": {"type": "dict", "properties": {"s": {"type": "Set"}}, "required": []},
        }
    ]
    answer = [{"f": {"s": ["x"]}}]
    output = [{"f": {"s": "x"}}]
    with pytest.raises(Exception):  # noqa: B017 (the checker crashes with whatever it meets)
        theirs_simple(functions, output, answer, "simple_java")
    with pytest.raises(ConfigError, match="BFCL's checker cannot check these calls"):
        bfcl_verdict(functions, output, answer, "simple_java")


def test_a_checker_reads_its_entry_once_and_makes_fields_only_when_read():
    functions = [
        {
            "name": "get_weather",
            "parameters": {
                "type": "dict",
                "properties": {
                    "city": {"type": "string"},
                    "unit": {"type": "string"},
                    "days": {"type": "integer"},
                },
                "required": ["city"],
            },
        }
    ]
    answer = [
        {"get_weather": {"city": ["San Francisco, CA"], "unit": ["", "celsius"], "days": [3]}}
    ]
    checker = BfclChecker(functions, answer, "simple_python")
    right = [{"get_weather": {"city": "san francisco ca", "days": 3}}]
    wrong = [{"get_weather": {"city": "Paris", "days": 3, "extra": 1}}]
    assert checker.verdict(right) == BfclVerdict(True, "")
    assert checker.verdict(wrong).valid is False
    expected = {"possible_answer": answer, "function": functions}
    for output in (right, wrong, json.dumps(wrong)):
        result = checker.score(output)
        assert "_make_fields" in result.__dict__  # (not made yet)
        full = match_json(
            output, expected, metric="tool_calls", rules="bfcl", category="simple_python"
        )
        assert (result.score, result.precision, result.recall) == (
            full.score,
            full.precision,
            full.recall,
        )
        assert result.fields == full.fields  # made now, the metric's own
    # the wrong call's fields: name, city, days match; city mismatches; extra invented; unit
    # optional and left out (a match): 3 matches of 4 compared, 1 invented, none omitted:
    # precision 3/5, recall 3/4, F1 2*0.6*0.75/1.35 = 2/3
    result = checker.score(wrong)
    assert (result.precision, result.recall) == (0.6, 0.75)
    assert result.score == pytest.approx(2 / 3)


def test_a_checker_whose_output_changed_before_its_fields_were_read_says_so():
    functions = [
        {
            "name": "f",
            "parameters": {
                "type": "dict",
                "properties": {"x": {"type": "integer"}},
                "required": ["x"],
            },
        }
    ]
    output = [{"f": {"x": 1}}]
    result = BfclChecker(functions, [{"f": {"x": [1]}}], "simple_python").score(output)
    assert result.score == 1.0
    output[0]["f"]["x"] = 2  # (changed in place: its fields would no longer give its score)
    with pytest.raises(JsonMatchError, match="changed in place"):
        result.fields  # noqa: B018


def test_a_checker_refuses_a_bad_option_when_made():
    with pytest.raises(ConfigError, match="language"):
        BfclChecker([], [], "simple_python", language="rust")


def test_a_tuple_given_for_a_tuple_parameter_is_read_as_its_list_as_the_checker_reads_it():
    # BFCL's decoder gives a Python tuple literal as a tuple; its checker turns a tuple into a
    # list where the document declares "tuple" (and only there), then checks it as an array
    functions = [
        {
            "name": "move",
            "parameters": {
                "type": "dict",
                "properties": {
                    "to": {"type": "tuple", "items": {"type": "integer"}},
                    "path": {"type": "array", "items": {"type": "integer"}},
                },
                "required": ["to"],
            },
        }
    ]
    answer = [{"move": {"to": [[3, 4]], "path": ["", [1, 2]]}}]
    entry = Entry("tuple_0", "simple_python", functions, answer)
    cases = [
        [{"move": {"to": (3, 4)}}],  # valid: the tuple read as [3, 4]
        [{"move": {"to": (3, 5)}}],  # wrong value
        [{"move": {"to": (3, 4), "path": (1, 2)}}],  # "array" takes no tuple: a type error
        [{"move": {"to": ("3", 4)}}],  # an item of the wrong type
    ]
    checker = BfclChecker(functions, answer, "simple_python")
    for output in cases:
        want = theirs(entry, output, PLAIN_MODEL)
        assert ours(entry, output, PLAIN_MODEL) == want, output
        assert checker.verdict(output).valid == want, output
    assert [theirs(entry, output, PLAIN_MODEL) for output in cases] == [True, False, False, False]
