"""tool_calls: calls paired, the name and every argument a field, P/R/F1 over them."""

from __future__ import annotations

import json

import pytest

from pytest_jsonmatch import ConfigError, TruncatedError, evaluate_records, match_json

WEATHER_TOOL = {
    "type": "function",
    "function": {
        "name": "get_weather",
        "parameters": {
            "type": "object",
            "properties": {
                "location": {"type": "string"},
                "unit": {"type": "string"},
                "days": {"type": "integer"},
            },
            "required": ["location"],
        },
    },
}


def openai(*calls):
    """A chat-completions message with these (name, arguments) calls, arguments as text."""
    return {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {
                "id": f"call_{i}",
                "type": "function",
                "function": {"name": name, "arguments": json.dumps(args)},
            }
            for i, (name, args) in enumerate(calls)
        ],
    }


def tc(actual, expected, **options):
    return match_json(actual, expected, metric="tool_calls", **options)


def rows(result):
    return [(f.path, f.status, f.score) for f in result.fields]


def test_every_field_matches():
    expected = {"calls": [{"name": "get_weather", "arguments": {"location": "Paris"}}]}
    result = tc(openai(("get_weather", {"location": "Paris"})), expected)
    assert rows(result) == [("get_weather", "match", 1.0), ("get_weather.location", "match", 1.0)]
    assert (result.score, result.precision, result.recall) == (1.0, 1.0, 1.0)


def test_a_wrong_value_and_a_hallucinated_argument():
    # name match, location match, unit mismatch, days hallucinated:
    # P = 2 / (3 + 1) = 0.5, R = 2 / 3, F1 = 2 * 0.5 * (2/3) / (0.5 + 2/3) = 4/7
    expected = [{"name": "get_weather", "arguments": {"location": "Paris", "unit": "celsius"}}]
    actual = openai(("get_weather", {"location": "Paris", "unit": "fahrenheit", "days": 3}))
    result = tc(actual, expected)
    assert rows(result) == [
        ("get_weather", "match", 1.0),
        ("get_weather.location", "match", 1.0),
        ("get_weather.unit", "mismatch", 0.0),
        ("get_weather.days", "hallucination", 0.0),
    ]
    assert result.precision == 0.5
    assert result.recall == pytest.approx(2 / 3)
    assert result.score == pytest.approx(4 / 7)


def test_parallel_calls_pair_in_any_order_by_default_and_by_index_when_strict():
    expected = [
        {"name": "get_weather", "arguments": {"location": "Paris"}},
        {"name": "get_weather", "arguments": {"location": "Rome"}},
    ]
    actual = openai(("get_weather", {"location": "Rome"}), ("get_weather", {"location": "Paris"}))
    assert tc(actual, expected).score == 1.0
    strict = tc(actual, expected, order="strict")
    # each pair: name match, location mismatch -> P = R = 2/4
    assert rows(strict) == [
        ("get_weather[0]", "match", 1.0),
        ("get_weather[0].location", "mismatch", 0.0),
        ("get_weather[1]", "match", 1.0),
        ("get_weather[1].location", "mismatch", 0.0),
    ]
    assert strict.score == 0.5


def test_a_missing_call_and_an_unexpected_call():
    # expected get_weather(location) and get_time(zone); the model called get_weather right
    # and send_email(to). Fields: 2 matches, 1 mismatch, 1 omission, 1 hallucination:
    # P = 2 / (3 + 1) = 0.5, R = 2 / (3 + 1) = 0.5, F1 = 0.5
    expected = [
        {"name": "get_weather", "arguments": {"location": "Paris"}},
        {"name": "get_time", "arguments": {"zone": "CET"}},
    ]
    actual = openai(("send_email", {"to": "a@b.c"}), ("get_weather", {"location": "Paris"}))
    result = tc(actual, expected)
    # the optimal pairing puts get_time beside send_email (no call of get_time was made):
    # get_time's name mismatched, its zone omitted, send_email's argument hallucinated
    assert rows(result) == [
        ("get_weather", "match", 1.0),
        ("get_weather.location", "match", 1.0),
        ("get_time", "mismatch", 0.0),
        ("get_time.zone", "omission", 0.0),
        ("send_email.to", "hallucination", 0.0),
    ]
    assert result.score == 0.5


def test_a_call_of_another_function_mismatches_its_name():
    # paired (one call each side): name mismatch, location omitted, city hallucinated under
    # the called function's path. P = 0 / (1 + 1) = 0, R = 0 / (1 + 1) = 0
    result = tc(
        openai(("get_forecast", {"city": "Paris"})),
        [{"name": "get_weather", "arguments": {"location": "Paris"}}],
    )
    assert rows(result) == [
        ("get_weather", "mismatch", 0.0),
        ("get_weather.location", "omission", 0.0),
        ("get_forecast.city", "hallucination", 0.0),
    ]
    assert result.fields[0].reason == "called 'get_forecast' instead of 'get_weather'"
    assert result.score == 0.0


def test_possible_answers_acceptable_values_and_optional_arguments():
    expected = {
        "possible_answer": [
            {"get_weather": {"location": ["Paris", "Paris, France"], "unit": ["celsius", ""]}}
        ],
        "tools": [WEATHER_TOOL],
    }
    left_out = tc(openai(("get_weather", {"location": "Paris, France"})), expected)
    assert rows(left_out) == [
        ("get_weather", "match", 1.0),
        ("get_weather.location", "match", 1.0),
        ("get_weather.unit", "match", 1.0),
    ]
    assert left_out.fields[2].reason == "optional, left out"
    wrong = tc(openai(("get_weather", {"location": "paris"})), expected)
    assert rows(wrong)[1] == ("get_weather.location", "mismatch", 0.0)  # exact by default
    assert wrong.fields[1].reason == "not an acceptable value"


def test_a_required_argument_may_not_be_left_out_even_where_the_answer_allows_it():
    # the tool requires location; the possible answer marks it optional: still an omission.
    # name match, location omission: P = 1/1, R = 1/2, F1 = 2/3
    expected = {
        "possible_answer": [{"get_weather": {"location": ["Paris", ""]}}],
        "tools": [WEATHER_TOOL],
    }
    result = tc(openai(("get_weather", {})), expected)
    assert rows(result) == [
        ("get_weather", "match", 1.0),
        ("get_weather.location", "omission", 0.0),
    ]
    assert result.fields[1].reason == "required, left out"
    assert result.score == pytest.approx(2 / 3)


def test_types_are_checked_against_the_declared_schema():
    expected = {
        "calls": [{"name": "get_weather", "arguments": {"location": "Paris", "days": 3}}],
        "tools": [WEATHER_TOOL],
    }
    # 3.0 is an integer by JSON Schema's rule; "3" is not
    assert tc(openai(("get_weather", {"location": "Paris", "days": 3.0})), expected).score == 1.0
    result = tc(openai(("get_weather", {"location": "Paris", "days": "3"})), expected)
    assert rows(result)[2] == ("get_weather.days", "mismatch", 0.0)
    assert result.fields[2].reason == "type: expected integer, got string"
    # an argument the tool does not declare
    extra = tc(openai(("get_weather", {"location": "Paris", "days": 3, "hourly": True})), expected)
    assert extra.fields[-1].status == "hallucination"
    assert extra.fields[-1].reason == "not declared by the tool"


def test_the_tools_may_come_as_an_option():
    expected = [{"name": "get_weather", "arguments": {"days": 2}}]
    actual = openai(("get_weather", {"days": 2}))
    assert tc(actual, expected).score == 1.0
    # with the tool: location is required and given by neither side: an omission.
    # P = 2/2, R = 2/3, F1 = 0.8
    result = tc(actual, expected, tools=[WEATHER_TOOL])
    assert result.fields[-1][:2] == ("get_weather.location", "omission")
    assert result.score == pytest.approx(0.8)


def test_no_call_made_scores_zero():
    result = tc({"role": "assistant", "content": "Sunny."}, [{"name": "f", "arguments": {"a": 1}}])
    assert rows(result) == [("f", "omission", 0.0), ("f.a", "omission", 0.0)]
    assert result.score == 0.0


def test_per_field_tables_are_keyed_by_function_and_argument():
    expected = [{"name": "get_weather", "arguments": {"location": "Paris"}}]
    run = evaluate_records(
        [expected, expected],
        [
            openai(("get_weather", {"location": "Paris"})),
            openai(("get_weather", {"location": "Rome"})),
        ],
        metric="tool_calls",
    )
    location = run.per_field["get_weather.location"]
    assert (location.match, location.mismatch, location.score_sum) == (1, 1, 1.0)
    assert run.per_field["get_weather"].match == 2
    assert [r.score for r in run.records] == [1.0, 0.5]


@pytest.mark.parametrize(
    ("options", "words"),
    [
        ({"order": "random"}, "order must be one of 'any', 'strict'"),
        ({"rules": "bfc"}, "did you mean 'bfcl'"),
        ({"language": "python"}, "applies under rules='bfcl' only"),
        ({"rules": "bfcl", "order": "any"}, "order does not apply under rules='bfcl'"),
        ({"rules": "bfcl", "language": "rust"}, "language must be one of python, java"),
        ({"rules": "bfcl"}, "needs the tools' function documents"),
        ({"tools": 3}, "option tools must be a list of tool definitions"),
        ({"fields": {}}, "unknown option 'fields' for metric 'tool_calls'"),
    ],
)
def test_bad_options_are_config_errors(options, words):
    with pytest.raises(ConfigError, match=words):
        tc(openai(("f", {})), [{"name": "f", "arguments": {}}], **options)


@pytest.mark.parametrize(
    ("options", "words"),
    [
        ({"rules": "bfcl", "language": "python"}, r"language must be one of .* not array\("),
        ({"order": "any"}, r"order must be one of 'any', 'strict', not array\("),
    ],
)
def test_a_choice_that_is_not_text_is_refused_not_compared_element_by_element(options, words):
    # a numpy array of one "python" equals "python" element by element: `in` a tuple of
    # names took it for the name (and the option's text was then the array's, "['any']")
    import numpy as np

    arrays = {
        name: np.array([value]) if name != "rules" else value for name, value in options.items()
    }
    with pytest.raises(ConfigError, match=words):
        tc(openai(("f", {})), [{"name": "f", "arguments": {}}], **arrays)


def test_when_no_call_is_expected_any_call_is_a_hallucination():
    # nothing expected and nothing made: no field, precision and recall 1 by the accounting
    assert tc({"role": "assistant", "content": "Hello!"}, {"calls": []}).score == 1.0
    # two calls nobody asked for: four hallucinations, P = 0, R = 1 (no expected field), F1 = 0
    result = tc(openai(("f", {"a": 1}), ("g", {})), {"calls": []})
    assert rows(result) == [
        ("f", "hallucination", 0.0),
        ("f.a", "hallucination", 0.0),
        ("g", "hallucination", 0.0),
    ]
    assert (result.precision, result.recall, result.score) == (0.0, 1.0, 0.0)
    # and the other way round: two expected calls, none made
    missed = tc(
        {"role": "assistant", "content": "No."},
        [{"name": "f", "arguments": {}}, {"name": "g", "arguments": {}}],
    )
    assert rows(missed) == [("f", "omission", 0.0), ("g", "omission", 0.0)]


def test_many_calls_of_one_function_pair_in_order_in_linear_time():
    # 300 x 300 calls of f, each with 30 padding values: a pair's check weighs 70 steps
    # (2, the expected call's 35 values, the call's 33), 6,300,000 steps for the 90,000 pairs
    # and 90,000 for the table's cells: past the budget of 5,000,000 (pairing/__init__.py),
    # so the k-th expected call of f pairs with the k-th call of f. The model answered every
    # call but the last one's value (299 -> 0): 300 names, 300 pads and 299 values match,
    # one value mismatches. P = R = 899/900
    pad = list(range(30))
    expected = [{"name": "f", "arguments": {"n": n, "pad": pad}} for n in range(300)]
    actual = [{"f": {"n": n if n < 299 else 0, "pad": pad}} for n in range(300)]
    result = tc(actual, expected)
    assert len(result.fields) == 900
    assert result.fields[-2][:2] == ("f[299].n", "mismatch")
    assert result.score == pytest.approx(899 / 900)


def test_calls_whose_checks_cost_past_the_budget_are_not_all_checked():
    # 200 x 200 calls of f, each with a list of 2,000 numbers: checking all 40,000 pairs
    # took 20 s or more; each pair weighs over 4,000 steps, 160,000,000 in all, past the
    # budget, so they pair in order at once (each with its equal partner: every field
    # matches). The alarm fails the test instead of letting a regression run on
    import signal

    data = list(range(2000))
    expected = [{"name": "f", "arguments": {"n": n, "data": data}} for n in range(200)]
    actual = [{"f": {"n": n, "data": data}} for n in range(200)]

    def too_slow(signum, frame):
        raise TimeoutError("tool_calls checked every pair of calls past the budget")

    previous = signal.signal(signal.SIGALRM, too_slow)
    signal.alarm(10)
    try:
        result = tc(actual, expected)
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)
    assert result.score == 1.0 and len(result.fields) == 600


def test_malformed_tool_definitions_are_parse_errors():
    from pytest_jsonmatch import ParseError

    bad = [{"name": "f", "parameters": {"type": "object", "properties": {}, "required": [["a"]]}}]
    with pytest.raises(ParseError, match="parameters.required a list of names"):
        tc([{"f": {}}], {"calls": [{"name": "f", "arguments": {}}], "tools": bad})
    # under BFCL's rules a document the checker cannot read is a ConfigError, not a traceback
    # (a document without "required": the checker raises a KeyError)
    doc = [{"name": "f", "parameters": {"type": "dict", "properties": {"a": {"type": "integer"}}}}]
    with pytest.raises(ConfigError, match="BFCL's checker cannot check these calls"):
        tc(
            [{"f": {"a": 1}}],
            {"possible_answer": [{"f": {"a": [1]}}], "function": doc},
            rules="bfcl",
        )


def test_the_openai_clients_own_objects_are_read_as_they_are():
    from openai.types.chat import ChatCompletion  # (the test extra installs openai)

    reply = ChatCompletion.model_validate(
        {
            "id": "chatcmpl-1",
            "object": "chat.completion",
            "created": 0,
            "model": "m",
            "choices": [
                {"index": 0, "finish_reason": "tool_calls", "message": openai(("f", {"a": 1}))}
            ],
        }
    )
    expected = [{"name": "f", "arguments": {"a": 1}}]
    message = reply.choices[0].message
    for answer in (reply, message, message.tool_calls):
        assert tc(answer, expected).score == 1.0


def test_a_call_being_written_when_the_answer_was_cut_off():
    # BFCL's decoded form, cut inside a second call nobody expected: by default an error
    # naming the cut; closed (truncated="close"), the call the model was still writing is
    # skipped, not invented: f and f.a match, g and g.b count nowhere, P = R = 1
    cut = '[{"f": {"a": 1}}, {"g": {"b": 2'
    expected = [{"name": "f", "arguments": {"a": 1}}]
    with pytest.raises(TruncatedError):
        tc(cut, expected)
    result = tc(cut, expected, truncated="close")
    assert rows(result) == [
        ("f", "match", 1.0),
        ("f.a", "match", 1.0),
        ("g", "skipped", 0.0),
        ("g.b", "skipped", 0.0),
    ]
    assert result.score == 1.0 and result.truncated.elements == ("[1]",)
    # an Anthropic message cut inside the input of an expected call: paired, its argument
    # not yet written is an omission. P = 3/3, R = 3/4, F1 = 6/7
    cut = (
        '{"content": [{"type": "tool_use", "name": "f", "input": {"a": 1}}, '
        '{"type": "tool_use", "name": "g", "input": {"b"'
    )
    expected = [{"name": "f", "arguments": {"a": 1}}, {"name": "g", "arguments": {"b": 2}}]
    result = tc(cut, expected, truncated="close")
    assert rows(result)[-1] == ("g.b", "omission", 0.0)
    assert result.score == pytest.approx(6 / 7)


def test_many_calls_of_one_function_are_counted_from_the_counts():
    # 15,000 x 15,000 calls of f are 2.25e8 same-name pairs: their steps are counted from
    # the counts per name (2 steps a pair, past the budget before any call is weighed), not
    # by enumerating the pairs, and they pair in order (tests/engine/pairing/
    # test_call_pairing.py). Every call matches: 15,000 names + 15,000 values, P = R = 1
    expected = [{"name": "f", "arguments": {"n": n}} for n in range(15000)]
    actual = [{"f": {"n": n}} for n in range(15000)]
    result = tc(actual, expected)
    assert len(result.fields) == 30000
    assert result.score == 1.0


def test_many_calls_of_other_functions_pair_in_order_without_a_full_table():
    # 10,000 expected calls of f0..f9999 against 10,000 calls of g0..g9999: no pair shares a
    # name, 1e8 expected x made pairs are past TABLE_CELLS, so no table of gains is built:
    # the calls pair in order, each pair a name mismatch, its argument missed and invented
    # (3 fields per pair, none matched: P = R = F1 = 0)
    expected = [{"name": f"f{i}", "arguments": {"n": i}} for i in range(10000)]
    actual = [{f"g{i}": {"n": i}} for i in range(10000)]
    result = tc(actual, expected)
    assert len(result.fields) == 30000
    assert rows(result)[:3] == [
        ("f0", "mismatch", 0.0),
        ("f0.n", "omission", 0.0),
        ("g0.n", "hallucination", 0.0),
    ]
    assert result.score == 0.0


def test_a_mixed_list_past_the_table_budget_still_pairs_each_function_optimally():
    # 1,001 x 1,001 calls (past TABLE_CELLS = 1,000,000): f's two calls are assigned apart
    # (the model made them in the other order), the rest pair in order. Fields: f and f[1]
    # names and values match (4), then 999 pairs of other names, each a name mismatch and an
    # omission and a hallucination of n (3 x 999). P = R = 4 / (4 + 2 x 999) = 4 / 2002
    expected = [{"name": "f", "arguments": {"n": 1}}, {"name": "f", "arguments": {"n": 2}}]
    expected += [{"name": f"e{i}", "arguments": {"n": i}} for i in range(999)]
    actual = [{"f": {"n": 2}}, {"f": {"n": 1}}] + [{f"a{i}": {"n": i}} for i in range(999)]
    result = tc(actual, expected)
    assert rows(result)[:4] == [
        ("f[0]", "match", 1.0),
        ("f[0].n", "match", 1.0),
        ("f[1]", "match", 1.0),
        ("f[1].n", "match", 1.0),
    ]
    assert result.score == pytest.approx(4 / 2002)


def test_each_call_is_checked_against_the_first_tool_of_its_name():
    # two documents named get_weather: the first declares days an integer, the second a
    # string; the first is the one every check reads, whichever call it checks
    second = json.loads(json.dumps(WEATHER_TOOL))
    second["function"]["parameters"]["properties"]["days"] = {"type": "string"}
    other = {"name": "g", "parameters": {"type": "object", "properties": {}}}
    expected = [
        {"name": "get_weather", "arguments": {"location": "Paris", "days": 2}},
        {"name": "get_weather", "arguments": {"location": "Rome", "days": 3}},
    ]
    actual = openai(("get_weather", {"location": "Rome", "days": "3"}))
    actual["tool_calls"].append(
        openai(("get_weather", {"location": "Paris", "days": 2}))["tool_calls"][0]
    )
    result = tc(actual, {"calls": expected, "tools": [other, WEATHER_TOOL, second]})
    assert [(f.path, f.status, f.reason) for f in result.fields] == [
        ("get_weather[0]", "match", ""),
        ("get_weather[0].location", "match", ""),
        ("get_weather[0].days", "match", ""),
        ("get_weather[1]", "match", ""),
        ("get_weather[1].location", "match", ""),
        ("get_weather[1].days", "mismatch", "type: expected integer, got string"),
    ]


def test_expected_calls_read_as_bfcls_possible_answers():
    from pytest_jsonmatch.engine.tool_calls import read_expected_calls

    (plain,) = read_expected_calls([{"name": "f", "arguments": {"a": 1, "b": [2]}}]).calls
    assert plain.accepted == {"a": (1,), "b": ([2],)} and plain.optional == frozenset()
    assert plain.possible == {"f": {"a": [1], "b": [[2]]}}
    assert plain.arguments == {"a": [1], "b": [[2]]}
    read = read_expected_calls({"possible_answer": [{"f": {"a": [1, ""], "b": ["", "x"]}}]})
    (answer,) = read.calls
    assert answer.accepted == {"a": (1,), "b": ("x",)}
    assert answer.optional == frozenset({"a", "b"})
    assert answer.possible == {"f": {"a": [1, ""], "b": ["", "x"]}}  # (as written)
    assert answer.arguments == {"a": [1], "b": ["x"]}


def test_bfcl_parallel_pairing_past_its_budget_is_refused_before_any_pair_is_tried():
    from pytest_jsonmatch import BfclChecker, bfcl_verdict

    doc = {
        "name": "f",
        "parameters": {"type": "dict", "properties": {"n": {"type": "integer"}}, "required": []},
    }
    expected = {
        "possible_answer": [{"f": {"n": [n]}} for n in range(300)],
        "function": [doc],
    }
    actual = [{"f": {"n": n}} for n in range(300)]
    # 300 x 300 = 90,000 pairs, past 40,000
    with pytest.raises(
        ConfigError,
        match=r"300 expected calls against 300 calls made are "
        r"90,000 pairs for its parallel pairing, past the cut-off of 40,000",
    ):
        tc(actual, expected, rules="bfcl", category="parallel")
    # so does bfcl_verdict, which BfclChecker uses
    with pytest.raises(ConfigError, match="90,000 pairs for its parallel pairing"):
        bfcl_verdict([doc], actual, expected["possible_answer"], "parallel")
    checker = BfclChecker([doc], expected["possible_answer"], "parallel")
    for read in (checker.verdict, checker.score):
        with pytest.raises(ConfigError, match="90,000 pairs for its parallel pairing"):
            read(actual)
    assert checker.score(actual[:299]).score == pytest.approx(1196 / 1198)
    assert not checker.verdict(actual[:299]).valid
    # counts that differ already fail it: the verdict stands, without the pairing, and the
    # calls are shown in order: 299 names and values match, one expected call is missed:
    # P = 1, R = 598 / 600, F1 = 2 x 598 / (600 + 598) = 1196 / 1198
    result = tc(actual[:299], expected, rules="bfcl", category="parallel")
    assert result.score == pytest.approx(1196 / 1198)
    assert not bfcl_verdict([doc], actual[:299], expected["possible_answer"], "parallel").valid
