"""match_reply: one agent reply (answer and tool calls) scored as one comparison, one field
table, one score: the parts' headline scores weighted by the rows each counts
(docs/metrics.md, "An agent's reply: answer and calls"). Every score below is worked by hand
from those rules."""

from __future__ import annotations

import json
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pytest_jsonmatch import ConfigError, ParseError, TargetResult, match_json, match_reply
from tests.engine.tool_calls.test_no_call import NO_CALL

ANSWER = {"reply_summary": "Rebooked on LH401 tomorrow", "status": "rebooked"}
CALL = {"pnr": "ABC123", "flight_no": "LH401", "date": "2026-11-26"}
EXPECTED_CALLS = [{"name": "rebook_flight", "arguments": CALL}]


def _openai_call(name: str, arguments: dict, i: int = 0) -> dict:
    return {
        "id": f"call_{i}",
        "type": "function",
        "function": {"name": name, "arguments": json.dumps(arguments)},
    }


def _reply(answer: object = ANSWER, calls: list | None = None) -> object:
    """The assistant message a target gives with TargetResult (its answer as JSON text)."""
    text = answer if isinstance(answer, str) or answer is None else json.dumps(answer)
    calls = [_openai_call("rebook_flight", CALL)] if calls is None else calls
    return TargetResult(text, tool_calls=calls).answer()


def _rows(result) -> list[tuple[str, str, float]]:
    return [(f.path, f.status, f.score) for f in result.fields]


def test_a_right_reply_scores_1_with_the_answer_then_the_calls():
    result = match_reply(_reply(), ANSWER, EXPECTED_CALLS)
    assert result.metric == "field_f1+tool_calls"
    assert _rows(result) == [
        ("reply_summary", "match", 1.0),
        ("status", "match", 1.0),
        ("rebook_flight", "match", 1.0),
        ("rebook_flight.pnr", "match", 1.0),
        ("rebook_flight.flight_no", "match", 1.0),
        ("rebook_flight.date", "match", 1.0),
    ]
    assert (result.score, result.precision, result.recall, result.f1) == (1.0, 1.0, 1.0, 1.0)
    assert result.passed()


def test_a_wrong_argument_costs_its_row_in_the_weighted_mean():
    # answer: 2 rows, both match: field_f1 1.0. calls: name, pnr, date match, flight_no
    # mismatches: TP 3 of 4 compared, P = R = F1 = 3/4.
    # score = (2 * 1 + 4 * 3/4) / (2 + 4) = 5/6; over all 6 rows TP = 5: P = R = F1 = 5/6
    wrong = dict(CALL, flight_no="LH400")
    result = match_reply(
        _reply(calls=[_openai_call("rebook_flight", wrong)]), ANSWER, EXPECTED_CALLS
    )
    assert result.score == pytest.approx(5 / 6)
    assert (result.precision, result.recall) == (pytest.approx(5 / 6), pytest.approx(5 / 6))
    assert ("rebook_flight.flight_no", "mismatch", 0.0) in _rows(result)
    assert not result.passed()


def test_a_wrong_answer_field_costs_its_row_in_the_weighted_mean():
    # answer: reply_summary matches, status mismatches: P = R = F1 = 1/2 over 2 rows;
    # calls: 4 rows, F1 1. score = (2 * 1/2 + 4 * 1) / 6 = 5/6
    result = match_reply(_reply(dict(ANSWER, status="cancelled")), ANSWER, EXPECTED_CALLS)
    assert result.score == pytest.approx(5 / 6)
    assert ("status", "mismatch", 0.0) in _rows(result)


def test_the_parts_weigh_by_their_rows_not_half_each():
    # answer: 4 rows, one wrong: F1 3/4; calls: 4 rows, all wrong but the name: the
    # three arguments mismatch: F1 1/4. score = (4 * 3/4 + 4 * 1/4) / 8 = 1/2; a
    # half-and-half mean would give the same here, so the answer gets 2 more rows:
    # answer 6 rows, 5 right: 5/6; score = (6 * 5/6 + 4 * 1/4) / 10 = 6/10
    expected = {"a": 1, "b": 2, "c": 3, "d": 4, "e": 5, "f": 6}
    answer = dict(expected, f=0)
    bad = {"pnr": "X", "flight_no": "Y", "date": "Z"}
    result = match_reply(
        _reply(answer, [_openai_call("rebook_flight", bad)]), expected, EXPECTED_CALLS
    )
    assert result.score == pytest.approx(6 / 10)
    # precision and recall over all 10 rows: TP = 5 + 1 = 6 of 10 compared
    assert (result.precision, result.recall) == (pytest.approx(0.6), pytest.approx(0.6))


def test_no_call_expected_and_none_made_adds_nothing():
    # answer: F1 1/2 over 2 rows; calls: no row: the score is the answer's alone
    result = match_reply(
        TargetResult(json.dumps(dict(ANSWER, status="cancelled")), tool_calls=None).answer(),
        ANSWER,
        [],
    )
    assert result.score == 0.5
    assert [f.path for f in result.fields] == ["reply_summary", "status"]


def test_no_call_expected_and_one_made_costs_its_rows():
    # answer: 2 rows, F1 1. calls: the call is invented: its name and 3 arguments are
    # hallucinations: P = 0/4, R = 1 (nothing expected), F1 0.
    # score = (2 * 1 + 4 * 0) / 6 = 1/3; over all rows TP = 2: P = 2/6, R = 2/2, F1 = 1/2
    result = match_reply(_reply(), ANSWER, [])
    assert result.score == pytest.approx(1 / 3)
    assert (result.precision, result.recall, result.f1) == (
        pytest.approx(1 / 3),
        1.0,
        pytest.approx(0.5),
    )
    assert [f.status for f in result.fields[2:]] == ["hallucination"] * 4


@pytest.mark.parametrize("actual", list(NO_CALL.values()), ids=list(NO_CALL))
def test_a_reply_with_no_call_in_any_shape_has_no_call_rows(actual):
    # whatever its content holds, none of it is a call: every row is the answer's
    result = match_reply(actual, {"answer": "Paris"}, [])
    assert all(f.comparator not in ("tool_call", "bfcl") for f in result.fields)


@pytest.mark.parametrize(
    "actual",
    [v for k, v in NO_CALL.items() if "content null" not in k and "call-like" not in k],
    ids=[k for k in NO_CALL if "content null" not in k and "call-like" not in k],
)
def test_a_reply_with_no_call_is_scored_on_its_answer(actual):
    result = match_reply(actual, {"answer": "Paris"}, [])
    assert (_rows(result), result.score) == ([("answer", "match", 1.0)], 1.0)


def test_a_reply_that_wrote_no_answer_leaves_out_every_expected_field():
    # answer: both fields omissions: R = 0, F1 0 over 2 rows; calls: F1 1 over 4 rows.
    # score = (2 * 0 + 4 * 1) / 6 = 2/3
    result = match_reply(_reply(None), ANSWER, EXPECTED_CALLS)
    assert result.score == pytest.approx(2 / 3)
    assert _rows(result)[:2] == [("reply_summary", "omission", 0.0), ("status", "omission", 0.0)]


def test_the_answer_text_is_read_leniently():
    text = "Done.\n```json\n" + json.dumps(ANSWER) + "\n```"
    assert match_reply(_reply(text), ANSWER, EXPECTED_CALLS).score == 1.0


VENDOR_SHAPES = {
    "chat completions response": {
        "choices": [
            {
                "index": 0,
                "message": {
                    "role": "assistant",
                    "content": json.dumps(ANSWER),
                    "tool_calls": [_openai_call("rebook_flight", CALL)],
                },
            }
        ]
    },
    "Anthropic message": {
        "type": "message",
        "role": "assistant",
        "content": [
            {"type": "text", "text": json.dumps(ANSWER)},
            {"type": "tool_use", "id": "tu_1", "name": "rebook_flight", "input": CALL},
        ],
    },
    "Responses output": {
        "object": "response",
        "output": [
            {"type": "reasoning", "id": "rs_1", "summary": []},
            {
                "type": "message",
                "role": "assistant",
                "content": [{"type": "output_text", "text": json.dumps(ANSWER)}],
            },
            {
                "type": "function_call",
                "call_id": "c1",
                "name": "rebook_flight",
                "arguments": json.dumps(CALL),
            },
        ],
    },
    "Gemini content": {
        "role": "model",
        "parts": [
            {"text": json.dumps(ANSWER)},
            {"functionCall": {"name": "rebook_flight", "args": CALL}},
        ],
    },
    "message with JSON content": TargetResult(
        ANSWER, tool_calls=[_openai_call("rebook_flight", CALL)]
    ).answer(),
    "JSON text of a message": json.dumps(_reply()),
}


@pytest.mark.parametrize("actual", list(VENDOR_SHAPES.values()), ids=list(VENDOR_SHAPES))
def test_every_vendor_shape_gives_the_same_table(actual):
    expected = match_reply(_reply(), ANSWER, EXPECTED_CALLS)
    result = match_reply(actual, ANSWER, EXPECTED_CALLS)
    assert (_rows(result), result.score) == (_rows(expected), 1.0)


def test_the_openai_clients_message_object():
    openai = pytest.importorskip("openai")
    from openai.types.chat import ChatCompletionMessage

    message = ChatCompletionMessage.model_validate(
        {
            "role": "assistant",
            "content": json.dumps(ANSWER),
            "tool_calls": [_openai_call("rebook_flight", CALL)],
        }
    )
    assert openai is not None
    assert match_reply(message, ANSWER, EXPECTED_CALLS).score == 1.0
    # the target's form: TargetResult holding the client's call objects
    output = TargetResult(message.content, tool_calls=message.tool_calls).answer()
    assert match_reply(output, ANSWER, EXPECTED_CALLS).score == 1.0


def test_the_answers_options_reach_the_answer_and_the_call_options_the_calls():
    # ignore skips status in the answer: a skipped row counts nowhere, so the answer puts
    # 1 counted row in the table and the score is (1 * 1 + 4 * 1) / 5 = 1
    result = match_reply(
        _reply(dict(ANSWER, status="x")), ANSWER, EXPECTED_CALLS, ignore=["status"]
    )
    assert result.score == 1.0
    assert [f.status for f in result.fields if f.path == "status"] == ["skipped"]
    # the calls pair in any order by default; order="strict" pairs them as given
    two = [
        {"name": "get_seat", "arguments": {"pnr": "ABC123"}},
        {"name": "rebook_flight", "arguments": CALL},
    ]
    made = [_openai_call("rebook_flight", CALL), _openai_call("get_seat", {"pnr": "ABC123"}, 1)]
    assert match_reply(_reply(calls=made), ANSWER, two).score == 1.0
    # strict: expected get_seat against the made rebook_flight, and the other way round. A
    # call of another function shares no argument with it: each pair's name mismatches,
    # the expected arguments are left out and the made ones invented. Calls: 2 + 4 + 4 =
    # 10 rows, TP 0: F1 0; answer: 2 rows, F1 1. score = (2 * 1 + 10 * 0) / 12 = 1/6
    strict = match_reply(_reply(calls=made), ANSWER, two, call_options={"order": "strict"})
    assert [f.status for f in strict.fields].count("mismatch") == 2
    assert strict.score == pytest.approx(1 / 6)


def test_the_tools_in_the_call_options_check_argument_types():
    tools = [
        {
            "name": "rebook_flight",
            "parameters": {"type": "object", "properties": {"pnr": {"type": "string"}}},
        }
    ]
    result = match_reply(_reply(), ANSWER, EXPECTED_CALLS, call_options={"tools": tools})
    assert result.score == 1.0


def test_the_same_name_in_both_expected_parts_is_refused():
    expected = {"rebook_flight": "done"}
    with pytest.raises(
        ConfigError,
        match=r"expected answer key 'rebook_flight' is also the function of an expected call \(expected_calls: rebook_flight\(\.\.\.\)\): their fields would share the path 'rebook_flight'",
    ):
        match_reply(_reply(), expected, EXPECTED_CALLS)


def test_a_call_named_as_an_answer_key_moves_under_its_name_with_parentheses():
    # the model called a function named reply_summary, which nothing expects: that call's
    # rows move to ["reply_summary()"]; the answer's reply_summary keeps its path
    made = [_openai_call("rebook_flight", CALL), _openai_call("reply_summary", {"text": "x"}, 1)]
    result = match_reply(_reply(calls=made), ANSWER, EXPECTED_CALLS)
    paths = [f.path for f in result.fields]
    assert paths[:2] == ["reply_summary", "status"]
    assert paths[-2:] == ['["reply_summary()"]', '["reply_summary()"].text']
    assert len(set(paths)) == len(paths)
    assert [f.field_path for f in result.fields][-1] == '["reply_summary()"].text'


def test_an_answer_key_named_as_an_expected_call_moves_and_the_call_keeps_its_name():
    answer = dict(ANSWER, rebook_flight="yes")  # an extra key: a hallucination
    result = match_reply(_reply(answer), ANSWER, EXPECTED_CALLS)
    rows = _rows(result)
    assert ('["rebook_flight()"]', "hallucination", 0.0) in rows
    assert [p for p, _, _ in rows if p.startswith("rebook_flight")] == [
        "rebook_flight",
        "rebook_flight.pnr",
        "rebook_flight.flight_no",
        "rebook_flight.date",
    ]


def test_the_moved_name_takes_more_parentheses_until_it_is_free():
    answer = {"reply_summary": "x", "reply_summary()": "y"}
    made = [_openai_call("reply_summary", {}, 0)]
    result = match_reply(_reply(answer, made), answer, [])
    paths = [f.path for f in result.fields]
    assert paths == ["reply_summary", '["reply_summary()"]', '["reply_summary()()"]']


def test_metric_tool_calls_is_refused():
    with pytest.raises(ConfigError, match=r"match_reply scores the calls by tool_calls already"):
        match_reply(_reply(), ANSWER, EXPECTED_CALLS, metric="tool_calls")


def test_bad_call_options_are_named():
    with pytest.raises(ConfigError, match=r"^call_options: .*order"):
        match_reply(_reply(), ANSWER, EXPECTED_CALLS, call_options={"order": "sometimes"})
    with pytest.raises(ConfigError, match=r"call_options must be a mapping"):
        match_reply(_reply(), ANSWER, EXPECTED_CALLS, call_options=["order"])  # type: ignore[arg-type]


def test_malformed_expected_calls_are_named():
    with pytest.raises(ParseError, match=r"expected_calls"):
        match_reply(_reply(), ANSWER, {"possible_answer": "rebook_flight"})


def test_something_that_is_no_reply_is_refused_as_the_answer():
    with pytest.raises(ParseError, match=r"actual is not an agent's reply") as caught:
        match_reply({"reply_summary": "x"}, ANSWER, EXPECTED_CALLS)
    assert caught.value.side == "actual"


def test_the_combined_score_stays_in_0_1_and_matches_match_json_per_part():
    reply = _reply(dict(ANSWER, status="cancelled"))
    answer = match_json(json.dumps(dict(ANSWER, status="cancelled")), ANSWER)
    calls = match_json(reply, EXPECTED_CALLS, metric="tool_calls")
    result = match_reply(reply, ANSWER, EXPECTED_CALLS)
    assert result.fields == answer.fields + calls.fields
    n_a, n_c = len(answer.fields), len(calls.fields)
    assert result.score == (n_a * answer.score + n_c * calls.score) / (n_a + n_c)
    assert 0.0 <= result.score <= 1.0


def test_a_batch_judge_scores_the_answers_fields_and_an_undecided_one_counts_nowhere():
    # a stand-in judge (a batch comparator, registered for this test): it accepts a summary
    # that holds the expected words and cannot decide the status. reply_summary matches;
    # status is a batch_error, counted nowhere: the answer puts 1 row in the table, the
    # calls 4: score (1 * 1 + 4 * 1) / 5 = 1, and the result does not pass (a field nobody
    # scored)
    from pytest_jsonmatch import REGISTRY, register_comparator

    def judge(items):
        return [
            None if item.path == "status" else float(item.expected in item.actual) for item in items
        ]

    register_comparator("reply_test_contains", judge, batch=True)
    answer = dict(ANSWER, reply_summary="Done: Rebooked on LH401 tomorrow, have a nice trip")
    rule = {"comparator": "reply_test_contains"}
    try:
        result = match_reply(
            _reply(answer), ANSWER, EXPECTED_CALLS, fields={"reply_summary": rule, "status": rule}
        )
    finally:
        REGISTRY.unregister("reply_test_contains")
    assert [(f.path, f.status) for f in result.fields[:2]] == [
        ("reply_summary", "match"),
        ("status", "batch_error"),
    ]
    assert (result.score, result.batch_errors, result.passed(0.0)) == (1.0, 1, False)


def test_the_answers_transforms_and_schema_are_the_answers():
    # a transform folds the status's case; the schema checks the answer, never the calls:
    # the answer lacks no required key, so it conforms
    schema = {
        "type": "object",
        "required": ["reply_summary", "status"],
        "properties": {"reply_summary": {"type": "string"}, "status": {"type": "string"}},
    }
    result = match_reply(
        _reply(dict(ANSWER, status="REBOOKED")),
        ANSWER,
        EXPECTED_CALLS,
        fields={"status": {"transform": "lowercase"}},
        schema=schema,
    )
    assert result.score == 1.0
    assert result.conformance is not None and result.conformance.valid
    broken = match_reply(_reply({"status": "rebooked"}), ANSWER, EXPECTED_CALLS, schema=schema)
    assert broken.conformance is not None and not broken.conformance.valid


def test_an_answer_cut_off_is_refused_unless_scored_closed():
    from pytest_jsonmatch import TruncatedError

    cut = '{"reply_summary": "Rebooked on LH401 tomorrow", "status": "rebo'
    with pytest.raises(TruncatedError):
        match_reply(_reply(cut), ANSWER, EXPECTED_CALLS)
    closed = match_reply(_reply(cut), ANSWER, EXPECTED_CALLS, truncated="close")
    assert closed.truncated is not None
    assert [f.path for f in closed.fields][-4:] == [
        "rebook_flight",
        "rebook_flight.pnr",
        "rebook_flight.flight_no",
        "rebook_flight.date",
    ]


def test_calls_that_cannot_be_read_are_the_replys_error():
    reply = {"role": "assistant", "content": json.dumps(ANSWER), "tool_calls": "rebook_flight"}
    with pytest.raises(ParseError, match=r"its tool_calls must be a list of calls or null") as e:
        match_reply(reply, ANSWER, EXPECTED_CALLS)
    assert e.value.side == "actual"


# -- the parts and the whole, for any reply -------------------------------------------------


_KEYS = st.sampled_from(["a", "b", "status", "f", "g"])
_VALUES = st.one_of(st.integers(0, 2), st.sampled_from(["x", "y"]), st.none())
_OBJECTS = st.dictionaries(_KEYS, _VALUES, max_size=4)
_CALLS = st.lists(
    st.tuples(st.sampled_from(["f", "g", "h"]), st.dictionaries(_KEYS, _VALUES, max_size=3)),
    max_size=3,
)


@settings(max_examples=60, deadline=None, derandomize=True)
@given(expected=_OBJECTS, answer=_OBJECTS, wanted=_CALLS, made=_CALLS)
def test_the_score_is_the_parts_weighted_by_their_rows_and_no_path_is_in_both(
    expected, answer, wanted, made
):
    # the expected side never names an answer key as a call (refused): drop those keys
    names = {name for name, _ in wanted}
    expected = {k: v for k, v in expected.items() if k not in names}
    calls = [{"name": n, "arguments": a} for n, a in wanted]
    message = {
        "role": "assistant",
        "content": json.dumps(answer),
        "tool_calls": [_openai_call(n, a, i) for i, (n, a) in enumerate(made)],
    }
    result = match_reply(message, expected, calls)
    plain = match_json(json.dumps(answer), expected)
    by_calls = match_json(message, calls, metric="tool_calls")
    counted = {"match", "mismatch", "omission", "hallucination"}
    n_a = sum(f.status in counted for f in plain.fields)
    n_c = sum(f.status in counted for f in by_calls.fields)
    want = (n_a * plain.score + n_c * by_calls.score) / (n_a + n_c) if n_a + n_c else 1.0
    assert result.score == want
    assert 0.0 <= result.score <= 1.0 and 0.0 <= result.f1 <= 1.0
    assert len(result.fields) == len(plain.fields) + len(by_calls.fields)
    # each path belongs to one part: the answer's tops and the calls' tops never meet
    answer_rows, call_rows = result.fields[: len(plain.fields)], result.fields[len(plain.fields) :]
    tops = [{_top(f.field_path) for f in part} for part in (answer_rows, call_rows)]
    assert not (tops[0] & tops[1])


def _top(path: str) -> str:
    """A path's first segment: a plain key, or a quoted one (``["f()"]``); the root's is
    ``""`` (an empty answer against an empty expected is a field at the root)."""
    match = re.match(r'\["(?:[^"\\]|\\.)*"\]|[^.\[]+', path)
    return "" if match is None else match.group()
