"""A trace as an agent's output (reading/trace_spans.py): spans recorded by the real
OpenTelemetry SDK, by hand and by pydantic-ai's own instrumentation, read from memory and
from the files the Collector's file exporter writes (JSON lines, one JSON request,
protobuf), a run selected out of them, read into one conversation that scores as the run's
messages score; and every bad trace an error naming the file, or a bounded read."""

from __future__ import annotations

import gzip
import itertools
import json
import os
import sys
from pathlib import Path

import pytest
from google.protobuf import json_format
from opentelemetry import trace as trace_api
from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans

from pytest_jsonmatch import ConfigError, ParseError, match_run
from pytest_jsonmatch.engine.agents.agent_run import read_run
from pytest_jsonmatch.engine.reading import trace_formats, trace_spans
from pytest_jsonmatch.engine.reading.trace_spans import Trace, read_trace
from tests.helpers import otel_traces as ot


def _spans(*runs: dict) -> list:
    """The spans of agent runs recorded by hand through the SDK (``genai_run``'s)."""
    with ot.recording() as (tracer, exporter):
        for run in runs:
            ot.genai_run(tracer, **run)
    return list(exporter.get_finished_spans())


def _steps(trace: Trace) -> list[tuple]:
    return [
        (s.operation, s.tool, s.status, s.error, s.input_tokens, s.output_tokens, s.message)
        for s in trace.steps
    ]


# -- a run read from its spans --------------------------------------------------------------


def test_a_pydantic_ai_run_is_read_from_the_spans_its_instrumentation_records():
    pytest.importorskip("pydantic_ai")  # (the test extra brings it, with pydantic-evals)
    spans, _ = ot.pydantic_ai_run()
    trace = read_trace(spans)
    call = {"name": "get_weather", "arguments": '{"city": "Oslo"}'}
    assert trace.messages == (
        {"role": "user", "content": "Weather in Oslo?"},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [{"id": "call_1", "type": "function", "function": call}],
        },
        {
            "role": "tool",
            "tool_call_id": "call_1",
            "content": '{"city":"Oslo","temp":3}',
            "status": "ok",
        },
        {"role": "assistant", "content": '{"city":"Oslo","temp":3}'},
    )
    assert [s.name for s in trace.steps] == [
        "invoke_agent agent",
        "chat m",
        "execute_tool get_weather",
        "chat m",
    ]
    assert _steps(trace) == [
        ("invoke_agent", None, "ok", None, None, None, None),
        ("chat", None, "ok", None, 50, 10, 1),  # (ChatModel reports 50 and 10 tokens a call)
        ("execute_tool", "get_weather", "ok", None, None, None, 2),
        ("chat", None, "ok", None, 50, 10, 3),
    ]
    assert all(s.duration_ms >= 0 for s in trace.steps)
    root = trace.steps[0].span_id
    assert [s.parent_id for s in trace.steps] == [None, root, root, root]
    run = read_run(trace)
    assert run.answer == '{"city":"Oslo","temp":3}'
    assert [(c.name, c.arguments) for c in run.calls] == [("get_weather", {"city": "Oslo"})]
    assert run.start == 1  # (the user's message is the conversation it was given)


@pytest.mark.parametrize("city", ["Oslo", "Rome"])
def test_the_same_run_scores_the_same_as_its_messages_or_as_its_trace(city):
    pytest.importorskip("pydantic_ai")
    spans, messages = ot.pydantic_ai_run()
    expected = {"city": "Oslo", "temp": 3}
    expected_run = [{"name": "get_weather", "arguments": {"city": city}}]
    as_messages = match_run(messages, expected, expected_run, run_options={"mode": "superset"})
    as_trace = match_run(
        read_trace(spans), expected, expected_run, run_options={"mode": "superset"}
    )
    assert as_trace.score == as_messages.score
    assert as_trace.fields == as_messages.fields
    # its answer (2 rows), its call's name and argument (2 rows); Rome: the argument fails
    rows = [(f.path, f.status) for f in as_trace.fields]
    wanted = "match" if city == "Oslo" else "mismatch"
    assert rows == [
        ("city", "match"),
        ("temp", "match"),
        ("run[0].get_weather", "match"),
        ("run[0].get_weather.city", wanted),
    ]
    # Rome: the answer's 2 rows score 1.0, the run's F1 0.5 (1 of 2 rows), weighted by rows
    assert as_trace.score == (1.0 if city == "Oslo" else 0.75)


def _json_format_default(spans: list) -> str:
    """What ``json_format`` writes of the request itself: base64 ids, enums by name."""
    return json_format.MessageToJson(encode_spans(spans))


FORMS = {
    "json lines": lambda s: ot.collector_json_lines(s[:2], s[2:]).encode(),
    "one request, pretty-printed": lambda s: json.dumps(ot.collector_request(s), indent=2).encode(),
    "json_format's own": lambda s: _json_format_default(s).encode(),
    "protobuf, framed": lambda s: ot.collector_proto(s[:3], s[3:]),
    "protobuf, one request": lambda s: ot.collector_proto(s, framed=False),
}


@pytest.mark.parametrize("form", FORMS)
def test_every_file_form_reads_as_the_spans_in_memory(tmp_path, form):
    spans = _spans({})
    path = tmp_path / "trace.out"
    path.write_bytes(FORMS[form](spans))
    from_file, in_memory = read_trace(path), read_trace(spans)
    assert from_file.spans == in_memory.spans
    assert from_file.messages == in_memory.messages
    assert from_file.steps == in_memory.steps
    assert from_file.source == f"trace file {str(path)!r}"


def test_a_run_recorded_by_hand_with_the_genai_conventions():
    trace = read_trace(_spans({"city": "Lima"}))
    call = {"name": "get_weather", "arguments": {"city": "Lima"}}
    assert trace.messages == (
        {"role": "user", "content": "Weather in Lima?"},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [{"id": "call_s1", "type": "function", "function": call}],
        },
        {
            "role": "tool",
            "tool_call_id": "call_s1",
            "content": '{"city": "Lima", "temp": 3}',
            "status": "ok",
        },
        {"role": "assistant", "content": '{"city": "Lima", "temp": 3}'},
    )
    assert _steps(trace) == [
        ("invoke_agent", None, "ok", None, None, None, None),
        ("chat", None, "ok", None, 50, 10, 1),
        ("execute_tool", "get_weather", "ok", None, None, None, 2),
        ("chat", None, "ok", None, 80, 12, 3),
    ]
    assert trace.steps_json()[2]["tool"] == "get_weather"
    assert trace.run_json() == {"messages": list(trace.messages), "state": None}


def test_a_failed_tool_step_is_kept_on_its_result():
    trace = read_trace(_spans({"fail": True}))
    assert trace.messages[2] == {
        "role": "tool",
        "tool_call_id": "call_s1",
        "content": None,  # (it gave no result)
        "status": "error",
        "error": "timed out",  # (the status's message)
    }
    assert _steps(trace)[2] == ("execute_tool", "get_weather", "error", "timed out", None, None, 2)


def test_an_exception_event_alone_fails_the_step():
    with ot.recording() as (tracer, exporter):
        with tracer.start_as_current_span(
            "invoke_agent a", attributes={"gen_ai.operation.name": "invoke_agent"}
        ):
            attributes = {"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "refund"}
            with tracer.start_as_current_span("execute_tool refund", attributes=attributes) as t:
                t.add_event(
                    "exception", {"exception.type": "KeyError", "exception.message": "no order A1"}
                )
    trace = read_trace(exporter)
    assert trace.messages[1]["status"] == "error"
    assert trace.messages[1]["error"] == "no order A1"
    assert trace.steps[1].status == "error"


def test_the_older_gen_ai_events():
    # semconv 1.28-1.36: each message an event; the choice the model's reply
    with ot.recording() as (tracer, exporter):
        with tracer.start_as_current_span("POST /refund"):  # (one trace)
            with tracer.start_as_current_span("chat gpt") as chat:
                chat.set_attribute("gen_ai.operation.name", "chat")
                chat.add_event("gen_ai.system.message", {"content": "Be brief."})
                chat.add_event("gen_ai.user.message", {"content": "Refund order A1"})
                calls = [
                    {
                        "id": "c1",
                        "type": "function",
                        "function": {"name": "refund", "arguments": '{"order": "A1"}'},
                    }
                ]
                chat.add_event(
                    "gen_ai.choice",
                    {"index": 0, "message": json.dumps({"role": "assistant", "tool_calls": calls})},
                )
            with tracer.start_as_current_span(
                "refund", attributes={"gen_ai.tool.name": "refund", "gen_ai.tool.call.id": "c1"}
            ):
                pass
            with tracer.start_as_current_span("chat gpt") as chat:
                chat.add_event(
                    "gen_ai.choice", {"index": 0, "message": json.dumps({"content": "Refunded."})}
                )
    trace = read_trace(exporter)
    assert trace.messages == (
        {"role": "system", "content": "Be brief."},
        {"role": "user", "content": "Refund order A1"},
        {"role": "assistant", "content": None, "tool_calls": calls},
        {"role": "tool", "tool_call_id": "c1", "content": None, "status": "ok"},
        {"role": "assistant", "content": "Refunded."},
    )
    run = read_run(trace)
    assert [(c.name, c.arguments) for c in run.calls] == [("refund", {"order": "A1"})]
    assert run.answer == "Refunded."


def test_openinference_spans():
    llm = {"openinference.span.kind": "LLM"}
    with ot.recording() as (tracer, exporter):
        with tracer.start_as_current_span("agent", attributes={"openinference.span.kind": "AGENT"}):
            first = {
                **llm,
                "llm.input_messages.0.message.role": "user",
                "llm.input_messages.0.message.content": "Refund A1",
                "llm.output_messages.0.message.role": "assistant",
                "llm.output_messages.0.message.tool_calls.0.tool_call.id": "t1",
                "llm.output_messages.0.message.tool_calls.0.tool_call.function.name": "refund",
                "llm.output_messages.0.message.tool_calls.0.tool_call.function.arguments": '{"order": "A1"}',
                "llm.token_count.prompt": 30,
                "llm.token_count.completion": 7,
            }
            with tracer.start_as_current_span("ChatCompletion", attributes=first):
                pass
            tool = {
                "openinference.span.kind": "TOOL",
                "tool.name": "refund",
                "input.value": '{"order": "A1"}',
                "output.value": '{"refunded": 12.5}',
            }
            with tracer.start_as_current_span("refund", attributes=tool):
                pass
            last = {
                **llm,
                "llm.output_messages.0.message.role": "assistant",
                "llm.output_messages.0.message.contents.0.message_content.type": "text",
                "llm.output_messages.0.message.contents.0.message_content.text": "Done: 12.5",
            }
            with tracer.start_as_current_span("ChatCompletion", attributes=last):
                pass
    trace = read_trace(exporter)
    call = {"name": "refund", "arguments": '{"order": "A1"}'}
    assert trace.messages == (
        {"role": "user", "content": "Refund A1"},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [{"id": "t1", "type": "function", "function": call}],
        },
        {"role": "tool", "tool_call_id": "t1", "content": '{"refunded": 12.5}', "status": "ok"},
        {"role": "assistant", "content": "Done: 12.5"},
    )
    assert _steps(trace)[1] == ("chat", None, "ok", None, 30, 7, 1)


def test_tool_spans_without_the_model_calls_content():
    # no model call recorded its messages: each tool span is its own call, two that overlap
    # in time one assistant message; the answer is the agent's output, never a tool's result
    with ot.recording() as (tracer, exporter):
        agent = tracer.start_span(
            "invoke_agent a", attributes={"gen_ai.operation.name": "invoke_agent"}
        )
        with trace_api.use_span(agent):

            def tool(name: str, **arguments: object) -> object:
                attrs = {
                    "gen_ai.operation.name": "execute_tool",
                    "gen_ai.tool.name": name,
                    "gen_ai.tool.call.arguments": json.dumps(arguments),
                    "gen_ai.tool.call.result": "ok",
                }
                return tracer.start_span(f"execute_tool {name}", attributes=attrs)

            first, second = tool("search", q="a"), tool("search", q="b")  # (in parallel)
            first.end()
            second.end()
            tool("book", flight="SK1").end()
        agent.end()
    trace = read_trace(exporter)
    roles = [
        (m["role"], [c["function"]["name"] for c in m.get("tool_calls", [])])
        for m in trace.messages
    ]
    assert roles == [
        ("assistant", ["search", "search"]),
        ("tool", []),
        ("tool", []),
        ("assistant", ["book"]),
        ("tool", []),
    ]
    run = read_run(trace)
    assert [c.arguments for c in run.calls] == [{"q": "a"}, {"q": "b"}, {"flight": "SK1"}]
    assert run.answer is None  # (the last tool said "ok": no answer)


def test_the_agents_output_is_the_answer_where_the_model_wrote_none():
    with ot.recording() as (tracer, exporter):
        attrs = {
            "gen_ai.operation.name": "invoke_agent",
            "gen_ai.output.messages": json.dumps(
                [{"role": "assistant", "parts": [{"type": "text", "content": '{"ok": true}'}]}]
            ),
        }
        with tracer.start_as_current_span("invoke_agent a", attributes=attrs):
            tool = {
                "gen_ai.operation.name": "execute_tool",
                "gen_ai.tool.name": "final",
                "gen_ai.tool.call.result": "x",
            }
            with tracer.start_as_current_span("execute_tool final", attributes=tool):
                pass
    trace = read_trace(exporter)
    assert trace.messages[-1] == {"role": "assistant", "content": '{"ok": true}'}
    assert trace.steps[0].message == len(trace.messages) - 1
    assert read_run(trace).answer == '{"ok": true}'


# -- selecting the run ----------------------------------------------------------------------


@pytest.fixture
def three_runs(tmp_path: Path) -> tuple[Path, list[str], list]:
    """A JSON-lines file of three runs (sessions s1, s2, s3), a line each; their ids; the
    spans."""
    spans = _spans({"session": "s1"}, {"session": "s2", "city": "Rome"}, {"session": "s3"})
    ids = list(dict.fromkeys(f"{s.context.trace_id:032x}" for s in spans))
    by_run = [[s for s in spans if f"{s.context.trace_id:032x}" == i] for i in ids]
    path = tmp_path / "traces.jsonl"
    path.write_text(ot.collector_json_lines(*by_run))
    return path, ids, spans


def test_a_run_is_selected_by_trace_id_root_or_attribute(three_runs):
    path, ids, spans = three_runs
    rome = read_trace(path, attribute="session.id=s2")
    assert rome.trace_id == ids[1]
    assert rome.messages[0] == {"role": "user", "content": "Weather in Rome?"}
    assert read_trace(path, trace_id=ids[1]).spans == rome.spans
    assert read_trace(path, trace_id=int(ids[1], 16)).spans == rome.spans
    assert read_trace(path, trace_id=ids[1].upper()).spans == rome.spans
    assert read_trace(path, attribute={"session.id": "s2"}).spans == rome.spans
    both = read_trace(path, root="invoke_agent weather", attribute="session.id=s2")
    assert both.spans == rome.spans
    # the same run as the spans in memory give it (the file read narrowed to its line)
    in_memory = read_trace(spans, attribute="session.id=s2")
    assert (in_memory.spans, in_memory.messages, in_memory.steps) == (
        rome.spans,
        rome.messages,
        rome.steps,
    )
    assert read_trace(path, attribute="service.name=agent", trace_id=ids[2]).trace_id == ids[2]


def test_a_selection_that_matches_no_run_or_several(three_runs):
    path, ids, spans = three_runs
    with pytest.raises(ParseError) as caught:
        read_trace(path, attribute="session.id=s9")
    message = str(caught.value)
    assert message.startswith(f"trace file {str(path)!r}: no trace matches attribute=")
    assert f"{ids[0]} (root 'invoke_agent weather', 4 spans)" in message
    with pytest.raises(ConfigError, match=r"3 traces match root='invoke_agent weather'"):
        read_trace(path, root="invoke_agent weather")
    with pytest.raises(
        ConfigError, match=r"holds 3 traces: select one by trace_id, root or attribute"
    ):
        read_trace(path)
    with pytest.raises(ParseError, match="no trace matches root='chat m'"):
        read_trace(path, root="chat m")  # (a span of that name, but no root)
    with pytest.raises(ParseError, match="spans in memory: no trace matches attribute="):
        read_trace(iter(spans), attribute="session.id=s9")  # (spans given once)


@pytest.mark.parametrize(
    ("selection", "said"),
    [
        ({"trace_id": "xyz"}, "trace_id must be 32 hex digits"),
        ({"root": 3}, "root must be a span's name"),
        ({"attribute": "session.id"}, "attribute must be 'KEY=VALUE'"),
        ({"attribute": {}}, "attribute must be 'KEY=VALUE'"),
    ],
)
def test_a_selection_of_no_kind_it_takes(three_runs, selection, said):
    with pytest.raises(ConfigError, match=said):
        read_trace(three_runs[0], **selection)


def test_an_attribute_given_as_text_matches_a_number(tmp_path):
    with ot.recording() as (tracer, exporter):
        for case in (7, 8):
            attrs = {"gen_ai.operation.name": "invoke_agent", "case.number": case, "case.ok": True}
            with tracer.start_as_current_span("invoke_agent a", attributes=attrs):
                pass
    path = tmp_path / "t.jsonl"
    path.write_text(ot.collector_json_lines(exporter.get_finished_spans()))
    assert read_trace(path, attribute="case.number=8").spans[0].attributes["case.number"] == 8
    assert (
        read_trace(exporter, attribute={"case.number": 7}).spans[0].attributes["case.number"] == 7
    )
    with pytest.raises(ConfigError, match="2 traces match"):
        read_trace(path, attribute="case.ok=true")


# -- bad traces -----------------------------------------------------------------------------


def test_a_truncated_json_lines_file(three_runs):
    path = three_runs[0]
    text = path.read_text()
    path.write_text(text[: len(text) - 200])
    with pytest.raises(ParseError) as caught:
        read_trace(path, attribute="session.id=s3")
    message = str(caught.value)
    assert message.startswith(f"trace file {str(path)!r} line 3 is not JSON: ")
    assert message.endswith("(the file ends inside it: cut off?)")
    # a line left unread (it holds no span of the run) is still found cut off
    with pytest.raises(ParseError, match="line 3 is not JSON"):
        read_trace(path, attribute="session.id=s1")


def test_a_truncated_whole_file_request(tmp_path):
    path = tmp_path / "trace.json"
    text = json.dumps(ot.collector_request(_spans({})), indent=2)
    path.write_text(text[:-40])
    with pytest.raises(
        ParseError,
        match=r"is not OTLP JSON: .* at line \d+ column \d+ \(the file ends inside it: cut off\?\)",
    ):
        read_trace(path)


def test_a_truncated_protobuf_file(tmp_path):
    spans = _spans({})
    path = tmp_path / "trace.pb"
    data = ot.collector_proto(spans[:2], spans[2:])
    path.write_bytes(data[:-10])
    with pytest.raises(
        ParseError,
        match=r"request 2 should hold [\d,]+ bytes but the file ends after [\d,]+: cut off\?",
    ):
        read_trace(path)
    path.write_bytes(ot.collector_proto(spans, framed=False)[:-10])
    with pytest.raises(
        ParseError, match=r"trace\.pb' request 1 is not OTLP protobuf \(cut off\?\)"
    ):
        read_trace(path)


def _line_with(span: dict) -> str:
    return json.dumps({"resourceSpans": [{"scopeSpans": [{"spans": [span]}]}]})


def _span(span_id: str, parent: str | None = None, **more: object) -> dict:
    span = {"traceId": "ab" * 16, "spanId": span_id, "name": f"s{span_id[-1]}"}
    if parent:
        span["parentSpanId"] = parent
    attributes = [{"key": "gen_ai.operation.name", "value": {"stringValue": "chat"}}]
    return {**span, "attributes": attributes, **more}


def test_an_attribute_of_no_otlp_shape(tmp_path):
    path = tmp_path / "t.jsonl"
    bad = {"key": "x", "value": {"weirdValue": 1}}
    good = _span("00000000000000a1")
    path.write_text(
        _line_with(good)
        + "\n"
        + _line_with({**good, "spanId": "00000000000000a2", "attributes": [bad]})
        + "\n"
    )
    with pytest.raises(ParseError) as caught:
        read_trace(path)
    assert str(caught.value) == (
        f"trace file {str(path)!r} line 2, resourceSpans[0].scopeSpans[0].spans[0] (span 's1'): "
        "attribute 'x': {'weirdValue': 1} is no OTLP value (one of stringValue, intValue, "
        "boolValue, doubleValue, arrayValue, kvlistValue, bytesValue)"
    )


def test_a_value_nested_past_the_bound(tmp_path):
    value: dict = {"stringValue": "deep"}
    for _ in range(trace_formats.MAX_NESTING + 1):
        value = {"arrayValue": {"values": [value]}}
    path = tmp_path / "t.jsonl"
    path.write_text(
        _line_with(_span("00000000000000a1", attributes=[{"key": "d", "value": value}]))
    )
    with pytest.raises(
        ParseError, match=r"\(span 's1'\): attribute 'd': its value nests more than 64 levels"
    ):
        read_trace(path)
    path.write_text("[" * 100_000 + "]" * 100_000 + "\n{}\n")
    with pytest.raises(ParseError, match=r"nests too deeply to be a trace|line 1: a request must"):
        read_trace(path)


def test_spans_without_their_parents_are_the_roots(tmp_path):
    # the agent's span is missing (exported later, or lost): its children are the roots
    spans = [s for s in _spans({}) if not s.name.startswith("invoke_agent")]
    path = tmp_path / "t.jsonl"
    path.write_text(ot.collector_json_lines(spans))
    trace = read_trace(path, root="execute_tool get_weather")
    assert [s.operation for s in trace.steps] == ["chat", "execute_tool", "chat"]
    assert read_run(trace).answer == '{"city": "Oslo", "temp": 3}'


@pytest.mark.parametrize("listed", ["in order", "child first", "later start first"])
def test_spans_are_read_by_start_then_level_whatever_order_the_file_lists_them(tmp_path, listed):
    # a1 (a root) and a2 (its child, its parent's id in capitals) start at 10, a3 (a root)
    # at 5: read as a3, a1, a2 however listed; a2 is a model call inside a1's, no step
    a1 = _span("00000000000000a1", startTimeUnixNano="10")
    a2 = _span("00000000000000a2", "00000000000000A1", startTimeUnixNano="10")
    a3 = _span("00000000000000a3", startTimeUnixNano="5")
    order = {
        "in order": [a3, a1, a2],
        "child first": [a3, a2, a1],
        "later start first": [a1, a2, a3],
    }[listed]
    path = tmp_path / "t.jsonl"
    path.write_text("\n".join(_line_with(span) for span in order) + "\n")
    trace = read_trace(path)
    assert [s.span_id for s in trace.spans] == [
        "00000000000000a3",
        "00000000000000a1",
        "00000000000000a2",
    ]
    assert trace.spans[2].parent_id == "00000000000000a1"
    assert [s.span_id for s in trace.steps] == ["00000000000000a3", "00000000000000a1"]


def test_parent_ids_that_form_a_cycle(tmp_path):
    path = tmp_path / "t.jsonl"
    spans = [
        _span("00000000000000a1"),
        _span("00000000000000a2", "00000000000000a3"),
        _span("00000000000000a3", "00000000000000a2"),
    ]
    path.write_text(
        _line_with(spans[0])
        + "\n"
        + json.dumps({"resourceSpans": [{"scopeSpans": [{"spans": spans[1:]}]}]})
        + "\n"
    )
    with pytest.raises(ParseError) as caught:
        read_trace(path)
    assert str(caught.value) == (
        f"trace file {str(path)!r}: the parent ids of 2 spans form a cycle (00000000000000a2 -> "
        "00000000000000a3 -> 00000000000000a2, the first: "
        f"trace file {str(path)!r} line 2, resourceSpans[0].scopeSpans[0].spans[0] (span 's2')): "
        "no span of it has a root"
    )


def test_a_million_spans_and_one_are_refused():
    span = _spans({})[0]
    with pytest.raises(ParseError) as caught:
        read_trace(itertools.repeat(span, 10**6 + 1))
    assert str(caught.value) == (
        "spans in memory holds more than 1,000,000 spans (passed at spans[1000000]): give the "
        "run's own spans"
    )


def test_a_file_past_the_bound_names_where(monkeypatch, three_runs):
    monkeypatch.setattr(trace_spans, "MAX_SPANS", 5)
    with pytest.raises(
        ParseError,
        match=r"holds more than 5 spans \(passed at line 2, resourceSpans\[0\]\.scopeSpans\[0\]\.spans\[1\]\)",
    ):
        read_trace(three_runs[0])


def test_a_hundred_megabytes_of_attributes_are_refused():
    with ot.recording() as (tracer, exporter):
        attrs = {"gen_ai.operation.name": "chat", "gen_ai.input.messages": "x" * 100_000_000}
        with tracer.start_as_current_span("chat m", attributes=attrs):
            pass
    with pytest.raises(ParseError) as caught:
        read_trace(exporter)
    assert str(caught.value) == (
        "spans in memory spans[0] (span 'chat m'): attribute 'gen_ai.input.messages': the run's "
        "attributes hold more than 67,108,864 characters of text (this value 100,000,000): too "
        "large to read as a run"
    )


def test_attributes_past_the_bound_in_a_file(monkeypatch, three_runs):
    monkeypatch.setattr(trace_formats, "MAX_RUN_TEXT", 100)
    with pytest.raises(
        ParseError,
        match=r"traces\.jsonl' line 1, resourceSpans\[0\]\.scopeSpans\[0\]\.spans\[\d\] \(span '.*'\): attribute '.*': the run's attributes hold more than 100 characters",
    ):
        read_trace(three_runs[0], attribute="session.id=s1")


@pytest.mark.parametrize(
    ("content", "said"),
    [
        (b"", "is empty: it holds no spans"),
        (b'{"resourceMetrics": []}\n', "holds no spans"),
        (b'{"hello": 1}\n', "holds no resourceSpans: not an OTLP ExportTraceServiceRequest"),
        (
            gzip.compress(b'{"resourceSpans": []}', mtime=0),
            r"is compressed \(gzip\): decompress it first",
        ),
        (b"\x0a\x05garbage", r"request 1 is not OTLP protobuf"),
        (
            b'{"resourceSpans": [{"scopeSpans": [{"spans": [{"traceId": "x", "spanId": "00000000000000a1"}]}]}]}',
            r"traceId 'x' is not an id of 16 bytes",
        ),
    ],
)
def test_files_that_hold_no_trace(tmp_path, content, said):
    path = tmp_path / "t.out"
    path.write_bytes(content)
    with pytest.raises(ParseError, match=said):
        read_trace(path)


def test_a_trace_of_no_agent(tmp_path):
    with ot.recording() as (tracer, exporter):
        with tracer.start_as_current_span("GET /health"):
            pass
    with pytest.raises(
        ParseError, match=r"holds no model call, tool call or agent among its 1 spans"
    ):
        read_trace(exporter)


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
def test_a_fifo_is_refused(tmp_path):
    fifo = tmp_path / "trace.fifo"
    os.mkfifo(fifo)
    with pytest.raises(
        ParseError, match=r"trace file '.*trace\.fifo' is not a regular file \(a FIFO\)"
    ):
        read_trace(fifo)


def test_protobuf_without_opentelemetry_proto(monkeypatch, tmp_path):
    path = tmp_path / "trace.pb"
    path.write_bytes(ot.collector_proto(_spans({})))
    monkeypatch.setitem(sys.modules, "opentelemetry.proto.collector.trace.v1", None)
    with pytest.raises(ConfigError, match=r'not installed: pip install "pytest-jsonmatch\[otel\]"'):
        read_trace(path)


@pytest.mark.parametrize("given", [42, b"{}", {"resourceSpans": []}])
def test_what_read_trace_does_not_take(given):
    with pytest.raises(
        ConfigError, match="read_trace takes a trace file's path or OpenTelemetry SDK spans"
    ):
        read_trace(given)


def test_objects_that_are_no_spans():
    with pytest.raises(ParseError, match=r"spans\[1\] is not a span \('no'\)"):
        read_trace([_spans({})[0], "no"])


# -- a file of one run read at once ---------------------------------------------------------


def _at_once_and_span_by_span(path: Path) -> tuple[Trace, Trace]:
    """The run of ``path`` read at once (no selection: ``trace_formats.json_run``) and
    span by span (selected by its trace id: a RawSpan a span, then the span read whole)."""
    at_once = read_trace(path)
    return at_once, read_trace(path, trace_id=at_once.trace_id)


def test_a_file_of_one_run_is_read_at_once_as_span_by_span(tmp_path):
    import benchmarks.traces as bench

    sdk = tmp_path / "sdk.jsonl"
    sdk.write_text(ot.collector_json_lines(_spans({"fail": True})))
    long = tmp_path / "long.jsonl"
    bench.write_long(long, 301)
    for path in (sdk, long):
        text = path.read_text()
        requests = trace_formats.json_requests(text, "t")
        assert trace_formats.json_run(requests, trace_formats.Budget(), 10**6) is not None
        at_once, span_by_span = _at_once_and_span_by_span(path)
        assert at_once.spans == span_by_span.spans
        assert at_once.steps == span_by_span.steps
        assert at_once.messages == span_by_span.messages
        assert at_once == span_by_span
    # 301 spans asked for: (301 - 4) // 3 = 99 turns of 3 spans, the agent and the answer's
    # model call and HTTP span: 1 + 297 + 2 = 300
    assert len(read_trace(long).spans) == 300


@pytest.mark.parametrize(
    ("text", "read"),
    [
        ('{"a":1}', [(0, {"a": 1})]),  # (one request: line 0, as json_requests says it)
        ('{"a":1}\n\n', [(0, {"a": 1})]),
        ('{\n "a": 1\n}\n', [(0, {"a": 1})]),  # (pretty-printed, the whole file)
        ('{"a":1}\n{"b":2}\n', [(1, {"a": 1}), (2, {"b": 2})]),
        ('{"a":1}\n{"b":2}', [(1, {"a": 1}), (2, {"b": 2})]),
        ('{"a":1}\n\n{"b":2}\n', None),  # (a blank line: json_requests reads it)
        (' {"a":1}', None),
        ('{"a":1} \n{"b":2}', None),
        ('{"a":1}\r\n{"b":2}\r\n', None),
        ('{"a":1}\n[1]\n', None),
        ('{"a":1}\n{"b":', None),  # (cut off: json_requests names it)
        ('{"a":1}{"b":2}\n', None),
        ('{\n"a":1}\n{"b":2}\n', None),  # (a request over two lines, then another)
    ],
)
def test_lines_read_in_place_as_json_requests_reads_them_or_left_to_it(text, read):
    if read is None:
        with pytest.raises(ParseError, match="not read at once"):
            list(trace_formats.json_lines(text))
        return
    assert list(trace_formats.json_lines(text)) == read
    assert list(trace_formats.json_requests(text, "t")) == read


@pytest.mark.parametrize(
    ("text", "read"),
    [
        ('{"a":1}', [(0, {"a": 1})]),  # (a file of one line: one request, line 0)
        ('{"a":1}\n', [(0, {"a": 1})]),
        ('{"a":1}\n{"b":2}\n', [(1, {"a": 1}), (2, {"b": 2})]),
        ('{"a":1}\n{"b":2}', [(1, {"a": 1}), (2, {"b": 2})]),
        ('{"a":1}\n{"b":2}\n{"c":3}\n', [(1, {"a": 1}), (2, {"b": 2}), (3, {"c": 3})]),
        ('{"a":1}\n\n', None),  # (a blank line, a byte-order mark, a line's own spaces or
        ('\ufeff{"a":1}\n', None),  # carriage return, a request over several lines, a
        ('{"a":1} \n{"b":2}', None),  # line cut off or of no JSON: json_requests reads the
        ('{"a":1}\r\n{"b":2}\r\n', None),  # file, and names what is wrong)
        ('{\n"a":1\n}\n', None),
        ('{"a":1}\n{"b":', None),
        ('{"a":1}\n{"b":2}{"c":3}\n', None),
        ('{"a":"\u00e9"}\n', [(0, {"a": "\u00e9"})]),
    ],
)
def test_lines_read_one_at_a_time_as_json_requests_reads_them_or_left_to_it(text, read):
    import io

    lines = io.BytesIO(text.encode())
    if read is None:
        with pytest.raises(ParseError, match="not read at once"):
            list(trace_formats.json_file_lines(lines, 10**6))
        return
    assert list(trace_formats.json_file_lines(lines, 10**6)) == read
    assert list(trace_formats.json_requests(text, "t")) == read
    # past the bound of bytes: left to the reading that refuses the file by its size
    with pytest.raises(ParseError, match="not read at once"):
        list(trace_formats.json_file_lines(io.BytesIO(text.encode()), len(text.encode()) - 1))


def test_a_file_not_of_utf8_is_left_to_the_reading_that_names_its_byte(tmp_path):
    path = tmp_path / "t.jsonl"
    path.write_bytes(b'{"resourceSpans":[]}\n{"a":"\xff"}\n')
    # the bad byte after the first line's 20 characters and its newline, then '{"a":"': 27
    with pytest.raises(ParseError, match=r"is not UTF-8 text: byte 0xff at offset 27 \(line 2\)"):
        read_trace(path)


def test_a_run_read_at_once_finds_its_levels_and_order_as_read_after(tmp_path):
    import benchmarks.traces as bench

    long = tmp_path / "long.jsonl"
    bench.write_long(long, 31)
    read = trace_formats.json_run(
        trace_formats.json_requests(long.read_text(), "t"), trace_formats.Budget(), 10**6
    )
    assert read is not None and read.levels is not None
    depth, parents_first, in_order = trace_spans._depths(read.spans, "t", str)
    assert (read.levels, read.in_order) == (depth, in_order) and parents_first
    # the agent at level 0, its model calls and tools at 1, each model call's HTTP span at 2:
    # (31 - 4) // 3 = 9 turns and the answer's model call: 1 + 2 * 10 + 9 = 30 spans
    assert sorted(read.levels.values()) == [0] + [1] * 19 + [2] * 10
    assert read.in_order
    # a child listed before its parent: no levels found as read (trace_spans finds them)
    request = json.loads(long.read_text().splitlines()[0])
    spans = request["resourceSpans"][0]["scopeSpans"][0]["spans"]
    spans[1], spans[2] = spans[2], spans[1]  # (the first model call's HTTP span first)
    swapped = trace_formats.json_run(iter([(1, request)]), trace_formats.Budget(), 10**6)
    assert swapped is not None and swapped.levels is None and not swapped.in_order
    path = tmp_path / "swapped.jsonl"
    path.write_text(json.dumps(request) + "\n")
    before, after = read_trace(long), read_trace(path)  # (sorted: the same run)
    assert (after.spans, after.steps, after.messages) == (
        before.spans,
        before.steps,
        before.messages,
    )


@pytest.mark.parametrize(
    "change",
    ["a span given twice", "an id in capitals", "a second trace", "scopes under their old name"],
)
def test_a_file_not_read_at_once_is_read_span_by_span(tmp_path, change):
    one = _spans({})
    path = tmp_path / "t.jsonl"
    path.write_text(ot.collector_json_lines(one))
    request = json.loads(path.read_text())
    spans = request["resourceSpans"][0]["scopeSpans"][0]["spans"]
    if change == "a span given twice":  # (an export retried: the first kept)
        spans.append({**spans[0], "name": "again"})
    elif change == "an id in capitals":
        spans[0]["spanId"] = spans[0]["spanId"].upper()
    elif change == "a second trace":
        spans.append({**spans[0], "traceId": "cd" * 16})
    else:
        held = request["resourceSpans"][0]
        held["instrumentationLibrarySpans"] = held.pop("scopeSpans")
    changed = tmp_path / "changed.jsonl"
    changed.write_text(json.dumps(request) + "\n")
    requests = trace_formats.json_requests(changed.read_text(), "t")
    assert trace_formats.json_run(requests, trace_formats.Budget(), 10**6) is None
    if change == "a second trace":
        with pytest.raises(ConfigError, match="holds 2 traces: select one"):
            read_trace(changed)
        return
    read, before = read_trace(changed), read_trace(path)  # (the same run: ids written lower)
    assert (read.spans, read.steps, read.messages) == (before.spans, before.steps, before.messages)


def test_a_file_of_one_run_past_the_bound_of_spans_is_read_span_by_span(tmp_path):
    path = tmp_path / "t.jsonl"
    path.write_text(ot.collector_json_lines(_spans({})))
    requests = list(trace_formats.json_requests(path.read_text(), "t"))
    spans = len(requests[0][1]["resourceSpans"][0]["scopeSpans"][0]["spans"])
    assert trace_formats.json_run(iter(requests), trace_formats.Budget(), spans) is not None
    assert trace_formats.json_run(iter(requests), trace_formats.Budget(), spans - 1) is None
