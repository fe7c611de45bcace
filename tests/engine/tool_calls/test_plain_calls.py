"""The plain calls' one-pass reading (tool_calls/plain_calls.py), a call's check with its
scalar arguments compared by ``==`` and its rows made from their fields (argument_checks.py),
and the collector paused while many calls are scored: each gives what the general way gives."""

from __future__ import annotations

import gc

from hypothesis import given, settings
from hypothesis import strategies as st

from pytest_jsonmatch import match_json
from pytest_jsonmatch.engine.core.paths import key_forms
from pytest_jsonmatch.engine.core.values import MISSING, json_equal
from pytest_jsonmatch.engine.reading.agent_messages import ToolCall, read_calls
from pytest_jsonmatch.engine.results.field_results import (
    HALLUCINATION,
    MATCH,
    MISMATCH,
    OMISSION,
    FieldResult,
)
from pytest_jsonmatch.engine.tool_calls import ExpectedCall, ToolDoc, read_expected_calls
from pytest_jsonmatch.engine.tool_calls.argument_checks import (
    CallCheck,
    FieldVerdict,
    _argument_verdict,
    _why_invented,
    call_rows,
    check_arguments,
)
from pytest_jsonmatch.engine.tool_calls.metric import TOOL_CALLS
from pytest_jsonmatch.engine.tool_calls.plain_calls import calls_read, plain_items

# values where Python's == and JSON equality part: True == 1 == 1.0, [1] == [1.0]
SCALARS = st.sampled_from([0, 1, 1.0, 2, 2.5, True, False, None, "", "a", "A", "1"])
VALUES = st.one_of(SCALARS, st.lists(SCALARS, max_size=2), st.dictionaries(st.just("k"), SCALARS))
ARGS = st.sampled_from(["city", "n", "a.b", "x y", "status"])
ARGUMENTS = st.dictionaries(ARGS, VALUES, max_size=4)
NAMES = st.sampled_from(["f", "g", "get weather"])
PLAIN = st.fixed_dictionaries({"name": NAMES, "arguments": ARGUMENTS})
# items the one pass must leave to the general reader: another key, a name or arguments
# of another type, another form of a call
NEAR = st.one_of(
    st.fixed_dictionaries({"name": NAMES, "arguments": ARGUMENTS, "id": st.just("c1")}),
    st.fixed_dictionaries({"name": NAMES, "args": ARGUMENTS}),
    st.fixed_dictionaries({"name": NAMES}),
    st.fixed_dictionaries({"name": NAMES, "arguments": st.sampled_from(['{"n": 1}', None])}),
    st.builds(lambda name, args: {name: args}, NAMES, ARGUMENTS),
)


def test_a_plain_list_is_read_at_once_into_the_calls_the_general_reader_makes():
    value = [{"name": "f", "arguments": {"n": 1}}, {"name": "g", "arguments": {}}]
    assert plain_items(value) is value
    assert calls_read(value, "actual") == [
        ToolCall("f", {"n": 1}, "[0]"),
        ToolCall("g", {}, "[1]"),
    ]
    assert calls_read(value, "actual") == read_calls(value)
    # the arguments are the reader's own copy, as the general reader makes it
    assert calls_read(value, "actual")[0].arguments is not value[0]["arguments"]


def test_anything_but_a_list_of_plain_calls_goes_the_general_way():
    for value in (
        {"calls": [{"name": "f", "arguments": {}}]},
        [{"name": "f", "arguments": {}}, {"name": "f", "arguments": {}, "id": "c1"}],
        [{"name": 3, "arguments": {}}],
        [{"name": "f", "arguments": "{}"}],
        [{"name": "f", "arguments": {}}, "text"],
    ):
        assert plain_items(value) is None, value


@settings(max_examples=80, deadline=None, derandomize=True)
@given(st.lists(st.one_of(PLAIN, NEAR), max_size=5), st.booleans())
def test_calls_and_expected_calls_are_read_as_the_general_reader_reads_them(items, plain):
    value = [item for item in items if not plain or item.keys() == {"name", "arguments"}]
    assert calls_read(value, "actual") == read_calls(value)
    made = read_expected_calls(value).calls
    general = tuple(
        ExpectedCall(c.name, {a: (v,) for a, v in c.arguments.items()}) for c in read_calls(value)
    )
    assert made == general
    assert [c.optional for c in made] == [frozenset()] * len(made)
    assert all(c.given is None for c in made)


def _general_check(want, tool, call):
    """check_arguments as the general verdict gives every field (no == shortcut)."""
    properties = tool.properties if tool is not None else None
    required = tool.required if tool is not None else ()
    if call.name != want.name:
        return check_arguments(want, tool, call)  # (another function: no shortcut taken)
    fields = [FieldVerdict(None, MATCH, want.name, call.name, "")]
    fields += [
        _argument_verdict(a, vs, want.optional, properties, required, call.arguments)
        for a, vs in want.accepted.items()
    ]
    fields += [
        FieldVerdict(a, OMISSION, MISSING, MISSING, "required by the tool, left out")
        for a in required
        if a not in want.accepted and a not in call.arguments
    ]
    fields += [
        FieldVerdict(a, HALLUCINATION, MISSING, v, _why_invented(a, properties))
        for a, v in call.arguments.items()
        if a not in want.accepted
    ]
    failed = next((f for f in fields if f.status != MATCH), None)
    return CallCheck(tuple(fields), failed is None, "" if failed is None else failed.reason)


TOOLS = st.one_of(
    st.none(),
    st.builds(
        lambda props, required: ToolDoc("f", props, tuple(required), {}),
        st.dictionaries(ARGS, st.sampled_from([{"type": "integer"}, {"type": "string"}, {}])),
        st.lists(ARGS, max_size=2, unique=True),
    ),
    st.just(ToolDoc("f", {}, (), {})),
)


@settings(max_examples=150, deadline=None, derandomize=True)
@given(
    ARGUMENTS,
    st.dictionaries(ARGS, st.lists(VALUES, max_size=3).map(tuple), max_size=4),
    st.frozensets(ARGS, max_size=2),
    TOOLS,
)
def test_a_check_gives_the_general_verdict_of_every_argument(given_args, accepted, optional, tool):
    want = ExpectedCall("f", accepted, optional)
    call = ToolCall("f", given_args, "[0]")
    check = check_arguments(want, tool, call)
    assert check == _general_check(want, tool, call)
    assert type(check.fields[0]) is FieldVerdict
    for verdict in check.fields:  # (== shortcut: JSON equality's verdict, True is not 1)
        if verdict.argument in given_args and verdict.argument in accepted:
            values = accepted[verdict.argument]
            if len(values) == 1 and not (tool and tool.properties):
                same = json_equal(given_args[verdict.argument], values[0])
                assert (verdict.status == MATCH) is same


def test_a_boolean_is_not_the_number_one_nor_one_point_zero_an_integer_apart():
    want = ExpectedCall("f", {"flag": (1,), "n": (2,), "x": (1.0,)})
    call = ToolCall("f", {"flag": True, "n": 2.0, "x": 1}, "[0]")
    statuses = [(f.argument, f.status) for f in check_arguments(want, None, call).fields]
    # True is no number; 2.0 and 2 are one JSON number, as are 1 and 1.0
    assert statuses == [(None, MATCH), ("flag", MISMATCH), ("n", MATCH), ("x", MATCH)]


def _general_rows(verdicts, path, field, comparator, at=None, other=None, compared=None):
    """call_rows as each row was made by its keywords."""
    out = []
    for v in verdicts:
        at_path, at_field = path, field
        if v.argument is not None:
            if other is not None and v.status == HALLUCINATION:
                at_path, at_field = other
            root, below = key_forms(v.argument)
            at_path = at_path + below if at_path else root
            at_field = at_field + below if at_field else root
        score = (1.0 if v.status == MATCH else 0.0) if v.score is None else v.score
        out.append(
            FieldResult(
                path=at_path,
                status=v.status,
                score=score,
                expected=MISSING if v.status == HALLUCINATION else v.expected,
                actual=MISSING if v.status == OMISSION else v.actual,
                comparator=(
                    comparator if compared is None or v.argument is None else compared(v.argument)
                ),
                reason=v.reason,
                field_path=at_field,
                actual_path=at if v.status == HALLUCINATION else None,
            )
        )
    return out


VERDICTS = st.lists(
    st.builds(
        FieldVerdict,
        st.one_of(st.none(), ARGS),
        st.sampled_from([MATCH, MISMATCH, OMISSION, HALLUCINATION]),
        VALUES,
        VALUES,
        st.sampled_from(["", "wrong value"]),
        st.sampled_from([None, 0.5]),
    ),
    max_size=5,
)


@settings(max_examples=100, deadline=None, derandomize=True)
@given(
    VERDICTS,
    st.sampled_from(["", "f", "f[1]"]),
    st.sampled_from(["", "f"]),
    st.sampled_from([None, "[2]"]),
    st.sampled_from([None, ("g[0]", "g")]),
    st.booleans(),
)
def test_call_rows_are_the_rows_made_field_by_field(verdicts, path, field, at, other, by_arg):
    compared = (lambda arg: f"cmp:{arg}") if by_arg else None
    rows = call_rows(verdicts, path, field, "tool_call", at, other, compared)
    assert rows == _general_rows(verdicts, path, field, "tool_call", at, other, compared)
    assert all(type(row) is FieldResult and row.weight == 1.0 for row in rows)
    assert all(row.compared is None for row in rows)


def test_many_calls_are_scored_with_the_collector_paused_and_on_again_after():
    calls = [{"name": "f", "arguments": {"city": f"c{i}", "n": i}} for i in range(20_000)]
    passes = []

    def count(phase, info):
        if phase == "start":
            passes.append(info["generation"])

    gc.collect()
    gc.callbacks.append(count)
    try:
        fields = TOOL_CALLS.score_fields(calls, calls, {})
    finally:
        gc.callbacks.remove(count)
    # 20,000 calls make 60,000 rows and as many verdicts: at Python's default threshold
    # (700 new containers) that is over a hundred passes; paused, none but the one over the
    # young objects that the first allocation after the pause starts
    assert passes in ([], [0]), passes
    assert gc.isenabled()
    assert len(fields) == 3 * 20_000 and all(f.status == MATCH for f in fields)


def test_many_parallel_calls_in_order_and_reversed_score_as_worked_out():
    n = 100
    expected = [{"name": "f", "arguments": {"city": f"c{i}", "n": i}} for i in range(n)]
    same = match_json(list(expected), expected, metric="tool_calls")
    assert same.score == 1.0 and len(same.fields) == 3 * n
    # reversed, past nothing but the pairing's choice: the optimal pairing still pairs each
    # call with its copy, every field matched
    back = match_json(expected[::-1], expected, metric="tool_calls")
    assert back.score == 1.0
    # every n one more: each call's name and city match, its n does not: 2 of 3 fields,
    # precision = recall = 2n / 3n, F1 = 2/3
    shifted = [{"name": "f", "arguments": {"city": f"c{i}", "n": i + 1}} for i in range(n)]
    result = match_json(shifted, expected, metric="tool_calls")
    assert abs(result.score - 2 / 3) < 1e-12
    assert sum(f.status == MISMATCH for f in result.fields) == n
