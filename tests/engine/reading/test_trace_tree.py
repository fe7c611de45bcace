"""A run read from a trace as the span tree a report keeps (reading/trace_tree.py): spans
recorded by the real OpenTelemetry SDK and read back by ``read_trace``; each span's ids,
times, status and the attributes the reader reads; the tree bounded (its steps' spans and
their ancestors kept first), values cut and counted; which span gave each message."""

from __future__ import annotations

import json

from pytest_jsonmatch.engine.reading.trace_spans import read_trace
from pytest_jsonmatch.engine.reading.trace_tree import message_spans, span_tree
from tests.helpers import otel_traces as ot


def _trace(**run: object):
    with ot.recording() as (tracer, exporter):
        ot.genai_run(tracer, **run)
        spans = list(exporter.get_finished_spans())
    return read_trace(spans)


def test_each_span_is_kept_with_its_ids_times_status_and_the_attributes_read():
    trace = _trace(session="s1", fail=True)
    tree = span_tree(trace)
    by_name = [(s["name"], s["status"], s.get("operation")) for s in tree["spans"]]
    assert by_name == [
        ("invoke_agent weather", "ok", "invoke_agent"),
        ("chat m", "ok", "chat"),
        ("execute_tool get_weather", "error", "execute_tool"),
        ("chat m", "ok", "chat"),
    ]
    agent, chat, tool, _ = tree["spans"]
    assert tree["trace_id"] == trace.trace_id and tree["total"] == 4
    # one value cut to 200 characters: the second model call's input (three messages)
    assert tree["cut"] == {"values": 1}
    assert tree["span_id"] == agent["span_id"]  # evaluated as the agent's span
    assert agent["parent_id"] is None and {chat["parent_id"], tool["parent_id"]} == {
        agent["span_id"]
    }
    assert agent["start_ms"] == 0.0 and tool["start_ms"] >= chat["start_ms"] >= 0.0
    assert tool["message"] == "timed out" and tool["tool"] == "get_weather"
    assert chat["tokens"] == [50, 10] and "tokens" not in tool
    # the attributes the reader reads, not the selection's own (session.id)
    assert agent["attributes"] == {"gen_ai.operation.name": "invoke_agent"}
    assert tool["attributes"]["gen_ai.tool.call.id"] == "call_s1"
    # the times are the spans' own: nanoseconds to milliseconds
    first = trace.spans[0].start_ns
    assert chat["start_ms"] == round((trace.spans[1].start_ns - first) / 1e6, 3)
    assert tool["duration_ms"] == round((trace.spans[2].end_ns - trace.spans[2].start_ns) / 1e6, 3)


def test_without_values_no_attribute_is_kept():
    tree = span_tree(_trace(), attributes=False)
    assert all("attributes" not in s for s in tree["spans"])


def test_a_value_past_its_limit_is_cut_and_counted():
    trace = _trace()
    tree = span_tree(trace, chars=40)
    chat = tree["spans"][1]
    kept = chat["attributes"]["gen_ai.output.messages"]
    assert len(kept) == 40 and kept.endswith("...")
    # cut: the texts of more than 40 characters, each counted once: the input and output
    # messages of both model calls (the tool's result, 27 characters, is kept)
    longer = [
        v for s in trace.spans for v in s.attributes.values() if isinstance(v, str) and len(v) > 40
    ]
    assert tree["cut"] == {"values": len(longer)} and len(longer) == 4


def _wide_trace(noise: int):
    """An agent run (genai_run's) inside a request span, with ``noise`` database spans
    under the request before the agent starts: each no step."""
    with ot.recording() as (tracer, exporter):
        with tracer.start_as_current_span("POST /chat"):
            for k in range(noise):
                with tracer.start_as_current_span(f"SELECT {k}"):
                    pass
            ot.genai_run(tracer)
        spans = list(exporter.get_finished_spans())
    return read_trace(spans)


def test_a_large_run_keeps_its_steps_and_their_ancestors_first():
    trace = _wide_trace(noise=30)
    tree = span_tree(trace, limit=10)
    names = [s["name"] for s in tree["spans"]]
    # 35 spans: the request, 30 queries, the agent and its 3 steps. The 4 steps' spans (the
    # agent's among them) and their ancestor (the request) first: 5; then the first 5
    # queries by start; kept in the order they start
    assert tree["total"] == 35 and len(names) == 10 and tree["cut"] == {"spans": 25, "values": 1}
    assert names == [
        "POST /chat",
        *(f"SELECT {k}" for k in range(5)),
        "invoke_agent weather",
        "chat m",
        "execute_tool get_weather",
        "chat m",
    ]
    kept = {s["span_id"] for s in tree["spans"]}
    ids = {s.span_id for s in trace.spans}
    for span in tree["spans"]:  # every kept span's parent kept, or none of the run
        assert span["parent_id"] in kept or span["parent_id"] not in ids


def test_a_tool_call_no_model_call_recorded_is_given_by_the_tools_span():
    with ot.recording() as (tracer, exporter):
        with tracer.start_as_current_span(
            "agent", attributes={"gen_ai.operation.name": "invoke_agent"}
        ):
            with tracer.start_as_current_span("execute_tool lookup") as tool:
                tool.set_attributes(
                    {
                        "gen_ai.operation.name": "execute_tool",
                        "gen_ai.tool.name": "lookup",
                        "gen_ai.tool.call.arguments": json.dumps({"q": 1}),
                        "gen_ai.tool.call.result": "found",
                    }
                )
        spans = list(exporter.get_finished_spans())
    trace = read_trace(spans)
    tool_span = next(s.span_id for s in trace.spans if s.name == "execute_tool lookup")
    # messages: the call made for the tool (0), its result (1): both the tool span's
    assert [m["role"] for m in trace.messages] == ["assistant", "tool"]
    assert message_spans(trace) == {0: tool_span, 1: tool_span}
