"""The span tree a comparison keeps when its output was a run read from a trace
(reporting/run_model/span_trees.py): each span that gave a scored step marked with the
step's row, for every way the trajectory metric names a step (paired in strict mode, a step
the run took unexpected, two calls of one function paired out of order by their
arguments), the answer's span marked; the tree carried through a report's dict; a forged
tree refused as a shard's merge refuses one; which span each OpenTelemetry event goes to.
Traces recorded by the real OpenTelemetry SDK, scored by ``match_run``."""

from __future__ import annotations

import copy
import json

import pytest

from pytest_jsonmatch import match_run
from pytest_jsonmatch.engine.reading.trace_spans import read_trace
from pytest_jsonmatch.reporting.run_model.comparisons import Comparison
from pytest_jsonmatch.reporting.run_model.span_trees import event_spans, kept_tree, tree_problem
from tests.helpers import otel_traces as ot

WEATHER = {"name": "get_weather", "arguments": {"city": "Oslo"}}


def _weather(fail: bool = False):
    with ot.recording() as (tracer, exporter):
        ot.genai_run(tracer, fail=fail)
        spans = list(exporter.get_finished_spans())
    return read_trace(spans)


def _marks(tree) -> list[tuple[str, list[str] | None, bool]]:
    return [(s["name"], s.get("rows"), s.get("answer", False)) for s in tree["spans"]]


def _tree(trace, values="short", **scored):
    result = match_run(trace, expected={"city": "Oslo"}, **scored)
    return result, kept_tree(trace, result.fields, result.parts, values)


def test_a_strict_runs_steps_are_marked_on_the_spans_that_gave_them():
    trace = _weather(fail=True)
    result, tree = _tree(
        trace,
        expected_run=[{**WEATHER, "status": "ok"}, {"result": None}, {"answer": {"city": "Oslo"}}],
    )
    assert [f.path for f in result.fields][2:] == [
        "run[0].get_weather",
        "run[0].get_weather.city",
        "run[0].get_weather.status",
        "run[1]",
        "run[2]",
    ]
    # the call: the model call that made it and the tool that answered it; the tool's
    # result: the tool's span; the answer: the last model call's
    assert _marks(tree) == [
        ("invoke_agent weather", None, False),
        ("chat m", ["run[0].get_weather"], False),
        ("execute_tool get_weather", ["run[0].get_weather", "run[1]"], False),
        ("chat m", ["run[2]"], True),
    ]


def test_steps_the_run_took_unexpected_are_marked_by_where_their_rows_found_them():
    trace = _weather()
    result, tree = _tree(trace, expected_run=[])
    assert {f.path: f.status for f in result.fields if f.path.startswith("run")} == {
        "run[0].get_weather": "hallucination",
        "run[0].get_weather.city": "hallucination",
        "run[1]": "hallucination",
        "run[2]": "hallucination",
    }
    assert [m[1] for m in _marks(tree)] == [
        None,
        ["run[0].get_weather"],
        ["run[0].get_weather", "run[1]"],
        ["run[2]"],
    ]


def _two_calls():
    """A model call that asks for the weather in Oslo, then Rome (ids o and r), each tool
    span answering its call, then the answer."""
    calls = [
        {"type": "tool_call", "id": "o", "name": "get_weather", "arguments": {"city": "Oslo"}},
        {"type": "tool_call", "id": "r", "name": "get_weather", "arguments": {"city": "Rome"}},
    ]
    user = {"role": "user", "parts": [{"type": "text", "content": "Oslo and Rome?"}]}
    with ot.recording() as (tracer, exporter):
        with tracer.start_as_current_span(
            "invoke_agent", attributes={"gen_ai.operation.name": "invoke_agent"}
        ):
            with tracer.start_as_current_span("chat m") as chat:
                chat.set_attributes(
                    {
                        "gen_ai.operation.name": "chat",
                        "gen_ai.input.messages": json.dumps([user]),
                        "gen_ai.output.messages": json.dumps(
                            [{"role": "assistant", "parts": calls}]
                        ),
                    }
                )
            for call in calls:
                with tracer.start_as_current_span(f"tool {call['id']}") as tool:
                    tool.set_attributes(
                        {
                            "gen_ai.operation.name": "execute_tool",
                            "gen_ai.tool.name": "get_weather",
                            "gen_ai.tool.call.id": call["id"],
                            "gen_ai.tool.call.result": "3",
                        }
                    )
            with tracer.start_as_current_span("chat m") as chat:
                answer = [{"type": "text", "content": '{"city": "Oslo"}'}]
                chat.set_attributes(
                    {
                        "gen_ai.operation.name": "chat",
                        "gen_ai.output.messages": json.dumps(
                            [{"role": "assistant", "parts": answer}]
                        ),
                    }
                )
        spans = list(exporter.get_finished_spans())
    return read_trace(spans)


def test_two_calls_of_one_function_paired_out_of_order_are_told_apart_by_their_arguments():
    trace = _two_calls()
    rome = {"name": "get_weather", "arguments": {"city": "Rome"}}
    # unordered: expected Rome first; the optimal pairing pairs run[0] (Rome) with the
    # run's second call and run[1] (Oslo) with its first
    result, tree = _tree(trace, expected_run=[rome, WEATHER], run_options={"mode": "unordered"})
    assert result.score == 1.0
    assert _marks(tree)[1:4] == [
        ("chat m", ["run[1].get_weather", "run[0].get_weather"], False),
        ("tool o", ["run[1].get_weather"], False),
        ("tool r", ["run[0].get_weather"], False),
    ]


def test_the_tree_survives_a_reports_dict_and_keeps_no_values_under_none():
    trace = _weather()
    result, tree = _tree(
        trace, values="none", expected_run=[WEATHER], run_options={"mode": "superset"}
    )
    assert all("attributes" not in s for s in tree["spans"])
    made = Comparison.of_result(
        result, case_id="c", nodeid="c", threshold=1.0, passed=True, values="full", trace=tree
    )
    data = json.loads(json.dumps(made.to_dict()))
    assert data["trace"] == tree and Comparison.from_dict(data) == made
    assert (
        "trace"
        not in Comparison.of_result(
            result, case_id="c", nodeid="c", threshold=1.0, passed=True, values="full"
        ).to_dict()
    )


def _forged(change):
    trace = _weather()
    result, tree = _tree(trace, expected_run=[WEATHER], run_options={"mode": "superset"})
    paths = [f.path for f in result.fields]
    assert tree_problem(tree, paths) == ""
    forged = copy.deepcopy(tree)
    change(forged)
    return tree_problem(forged, paths)


def _parent_of_agent_is_its_chat(tree):
    tree["spans"][0]["parent_id"] = tree["spans"][1]["span_id"]


@pytest.mark.parametrize(
    ("change", "said"),
    [
        (lambda t: t["spans"][1].update(rows=["run[7].refund"]), "names the row 'run[7].refund'"),
        (lambda t: t["spans"][2].update(span_id=t["spans"][1]["span_id"]), "twice"),
        (lambda t: t.update(total=9), "counts 9 spans, but holds 4 and cut 0"),
        (lambda t: t.update(span_id="ffffffffffffffff"), "evaluated as span 'ffffffffffffffff'"),
        (_parent_of_agent_is_its_chat, "form a cycle"),
    ],
)
def test_a_forged_tree_is_refused(change, said):
    assert said in _forged(change)


def test_each_event_goes_to_the_span_of_the_step_it_scores():
    trace = _weather()
    result, tree = _tree(
        trace, expected_run=[{**WEATHER, "status": "ok"}], run_options={"mode": "superset"}
    )
    paths = [f.path for f in result.fields]
    trace_id, evaluated, rows = event_spans(tree, paths)
    agent, chat, tool, _ = (s["span_id"] for s in tree["spans"])
    assert trace_id == trace.trace_id and evaluated == agent
    # the answer's rows (city, temp): the run's; the call's: the model call's; its status:
    # the tool's, whose result it reads
    assert dict(zip(paths, rows)) == {
        "city": agent,
        "temp": agent,
        "run[0].get_weather": chat,
        "run[0].get_weather.city": chat,
        "run[0].get_weather.status": tool,
    }
