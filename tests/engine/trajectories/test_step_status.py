"""A step's success as a field: an expected call's ``status`` (``ok`` or ``error``) against
the status of the tool result that answers the run's call (reading/agent_messages.py reads
it once, in each vendor's words; trajectories/trajectory_metric.py makes the row
``run[k].NAME.status``). An expected call without ``status`` makes no such row."""

from __future__ import annotations

import json

import pytest

from pytest_jsonmatch import ConfigError, ParseError, match_json, match_run
from pytest_jsonmatch.engine.agents.agent_run import read_run
from pytest_jsonmatch.engine.reading.agent_messages import read_messages
from pytest_jsonmatch.engine.reading.trace_spans import read_trace
from tests.helpers import otel_traces as ot


def _chat_call(call_id: str, name: str, arguments: dict) -> dict:
    function = {"name": name, "arguments": json.dumps(arguments)}
    return {"id": call_id, "type": "function", "function": function}


# a refund run in OpenAI's chat form: two calls in one turn, answered out of order; the
# refund fails as run_tools writes a failure (``error: ...``)
REFUND_RUN = [
    {"role": "user", "content": "Refund order A1."},
    {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            _chat_call("c1", "lookup", {"order": "A1"}),
            _chat_call("c2", "refund", {"order": "A1"}),
        ],
    },
    {"role": "tool", "tool_call_id": "c2", "content": "error: the order was refunded already"},
    {"role": "tool", "tool_call_id": "c1", "content": '{"order": "A1", "paid": 40}'},
    {"role": "assistant", "content": "It was refunded already."},
]


UNORDERED = {"mode": "unordered"}  # (the calls alone: the results and answer are no row)


def step(name: str, status: str | None = None, **arguments: object) -> dict:
    out: dict = {"name": name, "arguments": arguments}
    if status is not None:
        out["status"] = status
    return out


def rows(result) -> list[tuple]:
    return [(f.path, f.status, f.expected, f.actual) for f in result.fields]


# -- the rows and the score, worked by hand ---------------------------------------------------


def test_each_expected_status_is_a_row_against_the_result_that_answers_the_call():
    expected = [step("lookup", "ok", order="A1"), step("refund", "ok", order="A1")]
    result = match_run(REFUND_RUN, expected_run=expected, run_options=UNORDERED)
    assert rows(result) == [
        ("run[0].lookup", "match", "lookup", "lookup"),
        ("run[0].lookup.order", "match", "A1", "A1"),
        ("run[0].lookup.status", "match", "ok", "ok"),
        ("run[1].refund", "match", "refund", "refund"),
        ("run[1].refund.order", "match", "A1", "A1"),
        ("run[1].refund.status", "mismatch", "ok", "error"),  # (answered by id, not order)
    ]
    # 5 of 6 rows match: precision 5/6, recall 5/6, F1 5/6
    assert result.score == pytest.approx(5 / 6)
    assert [f.field_path for f in result.fields][-1] == "run[].refund.status"
    assert [f.comparator for f in result.fields][-1] == "exact"


def test_a_step_expected_to_fail_matches_a_failed_step():
    expected = [step("lookup", order="A1"), step("refund", "error", order="A1")]
    result = match_run(REFUND_RUN, expected_run=expected, run_options=UNORDERED)
    assert rows(result)[-1] == ("run[1].refund.status", "match", "error", "error")
    assert len(result.fields) == 5  # (lookup gives no status: no row of it)
    assert result.score == 1.0


def test_without_status_the_rows_and_score_are_as_before():
    expected = [step("lookup", order="A1"), step("refund", order="A1")]
    result = match_run(REFUND_RUN, expected_run=expected, run_options=UNORDERED)
    assert [f.path for f in result.fields] == [
        "run[0].lookup",
        "run[0].lookup.order",
        "run[1].refund",
        "run[1].refund.order",
    ]
    assert result.score == 1.0  # (the failed refund costs nothing where no status is asked)
    for mode in ("strict", "unordered", "subset", "superset"):
        plain = match_json(REFUND_RUN[1:], expected, metric="trajectory", mode=mode)
        assert all(not f.path.endswith(".status") for f in plain.fields)


def test_strict_mode_scores_the_status_with_the_steps():
    # strict: message by message; the tool results are expected steps (their role a row)
    run = [
        {"name": "search", "arguments": {"to": "Oslo"}},
        {"result": "error: no seats left"},
        {"answer": "none left"},
    ]
    expected = [step("search", "ok", to="Oslo"), {"result": "r"}, {"answer": "x"}]
    result = match_json(run, expected, metric="trajectory")
    assert [(f.path, f.status) for f in result.fields] == [
        ("[0].search", "match"),
        ("[0].search.to", "match"),
        ("[0].search.status", "mismatch"),
        ("[1]", "match"),
        ("[2]", "match"),
    ]
    assert result.score == pytest.approx(4 / 5)


def test_a_status_the_run_has_no_result_for_is_omitted():
    # the run stops after its call: no result answers it
    run = [
        {"role": "user", "content": "go"},
        {
            "role": "assistant",
            "tool_calls": [_chat_call("c1", "refund", {"order": "A1"})],
            "content": None,
        },
    ]
    result = match_run(run, expected_run=[step("refund", "ok", order="A1")])
    assert rows(result)[-1][:3] == ("run[0].refund.status", "omission", "ok")
    assert result.fields[-1].reason == "no result answers the call"
    # 2 of 3 expected rows found, none invented: precision 1, recall 2/3, F1 0.8
    assert result.score == pytest.approx(0.8)


def test_a_call_not_made_omits_its_status_too():
    expected = [step("lookup", order="A1"), step("refund", "ok", order="A1"), step("notify", "ok")]
    result = match_run(REFUND_RUN, expected_run=expected, run_options={"mode": "superset"})
    assert [(f.path, f.status) for f in result.fields][-2:] == [
        ("run[2].notify", "omission"),
        ("run[2].notify.status", "omission"),
    ]
    # 4 of 7 expected rows (the refund's status a mismatch, notify's two omitted): recall
    # 4/7; precision 4/5 (superset counts no hallucination): F1 = 2*(4/5)*(4/7)/(4/5+4/7)
    assert result.score == pytest.approx(2 * (4 / 5) * (4 / 7) / (4 / 5 + 4 / 7))


# -- each vendor's failure, in its own words ---------------------------------------------------

ARGS = {"order": "A1"}
VENDOR_RUNS = {
    "OpenAI chat (run_tools' error text)": [
        {
            "role": "assistant",
            "tool_calls": [_chat_call("c1", "lookup", ARGS), _chat_call("c2", "refund", ARGS)],
        },
        {"role": "tool", "tool_call_id": "c1", "content": "{}"},
        {"role": "tool", "tool_call_id": "c2", "content": "error: ValueError: refunded"},
    ],
    "a trace's tool message": [
        {
            "role": "assistant",
            "tool_calls": [_chat_call("c1", "lookup", ARGS), _chat_call("c2", "refund", ARGS)],
        },
        {
            "role": "tool",
            "tool_call_id": "c2",
            "content": None,
            "status": "error",
            "error": "timed out",
        },
        {"role": "tool", "tool_call_id": "c1", "content": "{}", "status": "ok"},
    ],
    "OpenAI Responses": [
        {
            "type": "function_call",
            "call_id": "c1",
            "name": "lookup",
            "arguments": '{"order": "A1"}',
        },
        {
            "type": "function_call",
            "call_id": "c2",
            "name": "refund",
            "arguments": '{"order": "A1"}',
        },
        {"type": "function_call_output", "call_id": "c2", "output": "error: refunded"},
        {"type": "function_call_output", "call_id": "c1", "output": "{}"},
    ],
    "Anthropic": [
        {
            "role": "assistant",
            "content": [
                {"type": "tool_use", "id": "t1", "name": "lookup", "input": ARGS},
                {"type": "tool_use", "id": "t2", "name": "refund", "input": ARGS},
            ],
        },
        {
            "role": "user",
            "content": [
                {
                    "type": "tool_result",
                    "tool_use_id": "t2",
                    "content": "refunded",
                    "is_error": True,
                },
                {"type": "tool_result", "tool_use_id": "t1", "content": "{}"},
            ],
        },
    ],
    "Gemini": [
        {
            "role": "model",
            "parts": [
                {"functionCall": {"name": "lookup", "args": ARGS}},
                {"functionCall": {"name": "refund", "args": ARGS}},
            ],
        },
        {
            "role": "user",
            "parts": [
                {"functionResponse": {"name": "refund", "response": {"error": "refunded"}}},
                {"functionResponse": {"name": "lookup", "response": {"output": {}}}},
            ],
        },
    ],
    "LangChain": [
        {
            "type": "ai",
            "content": "",
            "tool_calls": [
                {"type": "tool_call", "id": "l1", "name": "lookup", "args": ARGS},
                {"type": "tool_call", "id": "l2", "name": "refund", "args": ARGS},
            ],
        },
        {"type": "tool", "tool_call_id": "l1", "content": "{}", "status": "success"},
        {"type": "tool", "tool_call_id": "l2", "content": "refunded", "status": "error"},
    ],
    "plain steps": [
        {"name": "lookup", "arguments": ARGS},
        {"name": "refund", "arguments": ARGS},
        {"result": "{}"},
        {"result": "error: refunded"},
    ],
}


@pytest.mark.parametrize("vendor", list(VENDOR_RUNS))
def test_each_vendor_says_a_step_failed_in_its_own_words(vendor):
    run = VENDOR_RUNS[vendor]
    calls = [c for m in read_messages(run) for c in m.calls]
    assert [(c.name, c.status) for c in calls] == [("lookup", "ok"), ("refund", "error")]
    expected = [step("lookup", "ok", **ARGS), step("refund", "ok", **ARGS)]
    result = match_json(run, expected, metric="trajectory", mode="unordered")
    assert [(f.path, f.status) for f in result.fields if f.path.endswith("status")] == [
        ("[0].lookup.status", "match"),
        ("[1].refund.status", "mismatch"),
    ]


def test_a_result_message_carries_its_status():
    anthropic = read_messages(VENDOR_RUNS["Anthropic"])[1]
    assert [a.status for a in anthropic.answers] == ["error", "ok"]
    assert [a.call_id for a in anthropic.answers] == ["t2", "t1"]
    assert anthropic.status == "error"  # (one of its results failed)
    (ok,) = read_messages([{"role": "tool", "tool_call_id": "c", "content": "fine"}])
    assert ok.status == "ok"
    (said,) = read_messages([{"role": "user", "content": "hi"}])
    assert said.status is None and said.answers == ()


def test_a_result_without_an_id_answers_the_first_open_call():
    run = [
        {"name": "a", "arguments": {}},
        {"name": "b", "arguments": {}},
        {"result": "error: x"},
        {"result": "y"},
        {"name": "c", "arguments": {}},
    ]
    calls = [c for m in read_messages(run) for c in m.calls]
    assert [(c.name, c.status) for c in calls] == [("a", "error"), ("b", "ok"), ("c", None)]


# -- a trace's failed step ----------------------------------------------------------------------


def _trace(fail: bool):
    with ot.recording() as (tracer, exporter):
        ot.genai_run(tracer, fail=fail)
    return read_trace(exporter)


@pytest.mark.parametrize("fail", [False, True])
def test_a_traces_failed_step_is_scored_as_a_field(fail):
    trace = _trace(fail)
    assert [c.status for c in read_run(trace).calls] == ["error" if fail else "ok"]
    expected_run = [step("get_weather", "ok", city="Oslo")]
    result = match_run(
        trace,
        expected_run=expected_run,
        run_options={"mode": "superset"},
        fields={"run[].get_weather.status": {"min_score": 1}},
    )
    status = "mismatch" if fail else "match"
    assert rows(result)[-1] == (
        "run[0].get_weather.status",
        status,
        "ok",
        "error" if fail else "ok",
    )
    # 3 rows (name, argument, status): all match, or 2 of 3 (F1 2/3)
    assert result.score == pytest.approx(2 / 3 if fail else 1.0)
    floors = [(f.path, f.min_score, f.score) for f in result.floor_failures]
    assert floors == ([("run[0].get_weather.status", 1.0, 0.0)] if fail else [])


# -- the case's mistakes --------------------------------------------------------------------------


def test_a_status_other_than_ok_or_error_is_the_cases_mistake_naming_the_step():
    expected = [step("lookup"), step("refund", "failed", order="A1")]
    with pytest.raises(
        ConfigError, match=r"expected_run: .*\[1\].*'refund'.*'ok'.*'error'.*'failed'"
    ):
        match_run(REFUND_RUN, expected_run=expected)
    with pytest.raises(ParseError, match=r"\[1\].*'refund'.*status must be"):
        match_json(REFUND_RUN[1:], expected, metric="trajectory")


def test_a_status_beside_an_argument_named_status_is_refused():
    expected = [{"name": "set_order", "arguments": {"status": "shipped"}, "status": "ok"}]
    with pytest.raises(ConfigError, match="both an argument named status and a status"):
        match_run(REFUND_RUN, expected_run=expected)


def test_a_runs_own_word_for_status_is_no_status():
    # a run given as plain steps may say anything under status: its results say how it went
    run = [{"name": "refund", "arguments": ARGS, "status": "completed"}, {"result": "done"}]
    (call,) = [c for m in read_messages(run) for c in m.calls]
    assert (call.status, call.required) == ("ok", None)
