"""A trace read into the one conversation without its JSON form read back
(``Trace.run_conversation``), and the reading's fast steps held to the general ones: the
plain chat message read at once (``agent_messages.CHAT_FAST``) as ``_item`` reads it, the
steps of a run whose spans do not start in their tree's order, open calls answered by id
and by name, and what a span's numbers may be written as.

Every run here is recorded by the real OpenTelemetry SDK (``tests/helpers/otel_traces.py``)
and read from memory and from the file the Collector's file exporter writes."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from opentelemetry import trace as trace_api

from pytest_jsonmatch import ParseError, match_run
from pytest_jsonmatch.engine.agents.agent_run import read_run
from pytest_jsonmatch.engine.reading import agent_messages, trace_conversation, trace_spans
from pytest_jsonmatch.engine.reading.agent_messages import conversation_of
from pytest_jsonmatch.engine.reading.trace_conversation import chat_conversation
from pytest_jsonmatch.engine.reading.trace_spans import Trace, read_trace
from tests.helpers import otel_traces as ot

NS = 1_000_000  # a millisecond, in nanoseconds


@contextmanager
def chat_fast(on: bool) -> Iterator[None]:
    before = agent_messages.CHAT_FAST
    agent_messages.CHAT_FAST = on
    try:
        yield
    finally:
        agent_messages.CHAT_FAST = before


def _run_spans(tracer: trace_api.Tracer) -> None:
    """A run of every kind of step this reader writes a message for: the conversation it
    was given (a system instruction), a model call that makes two calls (one answered by
    its id, one by its name only), a failed tool, a tool span no model call made (two
    siblings that overlap: one assistant message), a model call that answers in text with
    blanks around it, and the agent's span."""
    user = {"role": "user", "parts": [{"type": "text", "content": "Book Oslo"}]}
    two = {
        "role": "assistant",
        "parts": [
            {"type": "text", "content": "   "},
            {"type": "tool_call", "id": "c1", "name": "search", "arguments": '{"to": "Oslo"}'},
            {"type": "tool_call", "id": None, "name": "book", "arguments": {"seat": "2A"}},
        ],
    }
    answer = {"role": "assistant", "parts": [{"type": "text", "content": '  {"pnr": "X1"} '}]}
    with tracer.start_as_current_span(
        "invoke_agent a", attributes={"gen_ai.operation.name": "invoke_agent"}
    ):
        with tracer.start_as_current_span("chat m") as chat:
            chat.set_attributes(
                {
                    "gen_ai.operation.name": "chat",
                    "gen_ai.system_instructions": json.dumps(
                        [{"type": "text", "content": "Be brief."}]
                    ),
                    "gen_ai.input.messages": json.dumps([user]),
                    "gen_ai.output.messages": json.dumps([two]),
                    "gen_ai.usage.input_tokens": 40,
                }
            )
        for name, call_id, result in (("search", "c1", '{"ok": true}'), ("book", "", "")):
            with tracer.start_as_current_span(f"execute_tool {name}") as tool:
                tool.set_attributes({"gen_ai.operation.name": "execute_tool"})
                tool.set_attributes({"gen_ai.tool.name": name, "gen_ai.tool.call.id": call_id})
                if result:
                    tool.set_attribute("gen_ai.tool.call.result", result)
                else:
                    tool.set_status(trace_api.Status(trace_api.StatusCode.ERROR, "no seat"))
        now = trace_api.get_current_span().get_span_context()  # (the agent's)
        assert now.is_valid
        start = time.time_ns()
        for k, city in enumerate(("Rome", "Paris")):  # (siblings that overlap in time)
            tool = tracer.start_span(f"execute_tool weather {city}", start_time=start + k)
            tool.set_attributes(
                {
                    "gen_ai.operation.name": "execute_tool",
                    "gen_ai.tool.name": "weather",
                    "gen_ai.tool.call.arguments": json.dumps({"city": city}),
                    "gen_ai.tool.call.result": f"error: {city} unknown" if k else "sunny",
                }
            )
            tool.end(end_time=start + 10)
        with tracer.start_as_current_span("chat m") as chat:
            chat.set_attributes(
                {
                    "gen_ai.operation.name": "chat",
                    "gen_ai.output.messages": json.dumps([answer]),
                }
            )


def _recorded(run: object = _run_spans) -> list:
    with ot.recording() as (tracer, exporter):
        run(tracer)  # type: ignore[operator]
        return list(exporter.get_finished_spans())


def _read_back(trace: Trace) -> agent_messages.Conversation:
    """The run as a recording holds it, read by the one reader (through the door)."""
    return read_run(json.loads(json.dumps(trace.run_json())))


@pytest.mark.parametrize("source", ["memory", "file"])
def test_a_trace_reads_into_the_conversation_its_json_form_reads_into(tmp_path, source):
    spans = _recorded()
    if source == "file":
        path = tmp_path / "t.jsonl"
        path.write_text(ot.collector_json_lines(spans[:3], spans[3:]))
        trace = read_trace(path)
    else:
        trace = read_trace(spans)
    read = trace.run_conversation()
    assert read == _read_back(trace)  # (every message, call, status, place and the depth)
    assert read_run(trace) is read  # (read once, then kept)
    # the conversation given: the instruction and the user; then the two calls, their
    # results (search's by its id; book's by its name: its span names no id), the calls
    # no model call made (one message: the siblings overlap), their results, the answer
    assert [m.role for m in read.messages] == [
        "system",
        "user",
        "assistant",
        "tool",
        "tool",
        "assistant",
        "tool",
        "tool",
        "assistant",
    ]
    assert read.start == 2
    calls = [(c.name, c.arguments, c.status) for c in read.calls]
    assert calls == [
        ("search", {"to": "Oslo"}, "ok"),
        ("book", {"seat": "2A"}, "error"),  # (its span's status ERROR)
        ("weather", {"city": "Rome"}, "ok"),
        ("weather", {"city": "Paris"}, "error"),  # (its result says "error: ...")
    ]
    assert read.answer == '  {"pnr": "X1"} '  # (as the reply wrote it, blanks and all)
    assert read.messages[2].answer is None  # (a text of blanks only is no answer)
    # its depth as the door counts it: message > tool_calls > call > function > arguments
    assert read.depth == 5  # (book's arguments are an object: 4 levels above its 1)


def test_the_same_run_scores_the_same_from_its_trace_or_its_json_form():
    trace = read_trace(_recorded())
    expected_run = [
        {"name": "search", "arguments": {"to": "Oslo"}},
        {"name": "book", "arguments": {"seat": "2A"}, "status": "ok"},
    ]
    from_trace = match_run(trace, {"pnr": "X1"}, expected_run, run_options={"mode": "superset"})
    from_json = match_run(
        trace.run_json(), {"pnr": "X1"}, expected_run, run_options={"mode": "superset"}
    )
    assert from_trace.fields == from_json.fields
    assert from_trace.score == from_json.score
    # the answer's 1 row matches; of the run's 5 rows (search, its argument; book, its
    # argument, its status) book's status fails: the run scores 4/5 = 0.8, the two parts
    # weighted by rows: (1 + 4) / 6
    assert [f.status for f in from_trace.fields].count("match") == 5
    assert from_trace.score == pytest.approx(5 / 6)


# -- the plain chat message read at once, as the general reading reads it ---------------------

CHAT_MESSAGES = [
    {"role": "user", "content": "hi"},
    {"role": "system", "content": None},
    {"role": "human", "content": "a LangChain role name"},
    {"role": "ai", "content": " x "},
    {"role": "assistant", "content": "   "},
    {"role": "assistant", "content": None, "tool_calls": None},
    {"role": "assistant", "content": None, "tool_calls": []},
    {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {"id": "a", "type": "function", "function": {"name": "f", "arguments": '{"x": 1}'}},
            {"id": "", "tool_call_id": "b", "function": {"name": "g", "arguments": None}},
            {"function": {"name": "h", "arguments": {"y": [1, {"z": 2}]}}},
            {"id": 7, "type": "function", "function": {"name": "k"}},
        ],
    },
    {"role": "tool", "tool_call_id": "a", "content": {"ok": True}, "status": "ok"},
    {"role": "tool", "tool_call_id": "", "content": "error: boom", "name": "f"},
    {"role": "tool", "tool_call_id": "b", "content": [{"text": "error: x"}], "name": 3},
    {"role": "tool", "content": None, "status": "error", "error": "timed out"},
    # of other forms, read by the general reading (or refused by it)
    {"role": "assistant", "content": [{"type": "text", "text": "blocks"}]},
    {"role": "assistant", "content": {"answer": 1}},
    {"role": "assistant", "content": None, "tool_calls": [{"function": {"name": "f"}}]},
    {"role": "assistant", "tool_calls": [{"type": "function", "name": "plain", "arguments": {}}]},
    {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t", "content": "r"}]},
]
REFUSED = [
    {"role": 3, "content": "x"},
    {"role": "assistant", "content": None, "tool_calls": {}},
    {"role": "assistant", "content": None, "tool_calls": 0},
    {"role": "assistant", "content": None, "tool_calls": ["f"]},
    {"role": "assistant", "tool_calls": [{"function": {"name": 4, "arguments": "{}"}}]},
    {"role": "assistant", "tool_calls": [{"function": {"name": "f", "arguments": "[1, 2]"}}]},
    {"role": "assistant", "tool_calls": [{"function": {"name": "f", "arguments": 5}}]},
]


def _both_ways(messages: list) -> tuple[object, object]:
    def read() -> object:
        try:
            return conversation_of(messages, "actual", 3)
        except ParseError as exc:
            return f"ParseError: {exc}"

    with chat_fast(False):
        general = read()
    return read(), general


def test_plain_chat_messages_read_at_once_as_the_general_reading_reads_them():
    fast, general = _both_ways(CHAT_MESSAGES)
    assert fast == general
    assert isinstance(fast, agent_messages.Conversation)
    statuses = [m.status for m in fast.messages if m.role == "tool"]
    assert statuses == ["ok", "error", "error", "error", "ok"]  # (the last: Anthropic's result)
    assert [c.id for c in fast.calls][:4] == ["a", "b", None, None]


@pytest.mark.parametrize("message", REFUSED, ids=[str(n) for n in range(len(REFUSED))])
def test_a_chat_message_of_no_plain_form_is_refused_as_the_general_reading_refuses_it(message):
    fast, general = _both_ways([{"role": "user", "content": "go"}, message])
    assert fast == general
    assert isinstance(fast, str) and "messages[1]" in fast  # (an error naming where)


def test_the_switch_turns_the_fast_reading_off(monkeypatch):
    """Not vacuous: with the switch on, a plain message never reaches the general
    reading's envelope test; off, every message does."""
    seen: list[object] = []
    general = agent_messages._held

    def held(value: object, where: str) -> object:
        seen.append(value)
        return general(value, where)  # type: ignore[arg-type]

    monkeypatch.setattr(agent_messages, "_held", held)
    message = {"role": "user", "content": "hi"}
    conversation_of([message], "actual")
    assert message not in seen
    with chat_fast(False):
        conversation_of([message], "actual")
    assert message in seen


# -- the steps of spans that do not start in their tree's order --------------------------------


def _out_of_order(tracer: trace_api.Tracer) -> None:
    """A model call whose own client span (a model call inside it: read once, as the outer
    one) starts before it, as clocks that disagree record them; and a tool span inside a
    tool of its name (read once), which starts before its parent too."""
    t = 1_700_000_000_000 * NS
    reply = {"role": "assistant", "parts": [{"type": "tool_call", "id": "c", "name": "f"}]}
    done = {"role": "assistant", "parts": [{"type": "text", "content": "done"}]}
    agent = tracer.start_span("invoke_agent a", start_time=t)
    agent.set_attribute("gen_ai.operation.name", "invoke_agent")
    inside = trace_api.set_span_in_context(agent)
    chat = tracer.start_span("chat outer", context=inside, start_time=t + 5)
    chat.set_attributes(
        {"gen_ai.operation.name": "chat", "gen_ai.output.messages": json.dumps([reply])}
    )
    client = tracer.start_span(
        "chat client", context=trace_api.set_span_in_context(chat), start_time=t + 1
    )
    client.set_attributes({"gen_ai.operation.name": "chat", "gen_ai.output.messages": "[]"})
    tool = tracer.start_span("execute_tool f", context=inside, start_time=t + 20)
    tool.set_attributes({"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "f"})
    tool.set_attribute("gen_ai.tool.call.result", "r")
    again = tracer.start_span(
        "execute_tool f", context=trace_api.set_span_in_context(tool), start_time=t + 10
    )
    again.set_attributes({"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "f"})
    last = tracer.start_span("chat last", context=inside, start_time=t + 30)
    last.set_attributes(
        {"gen_ai.operation.name": "chat", "gen_ai.output.messages": json.dumps([done])}
    )
    for span, end in ((client, 6), (chat, 9), (again, 21), (tool, 25), (last, 35), (agent, 40)):
        span.end(end_time=t + end)


def test_steps_inside_steps_are_read_once_whatever_order_their_spans_start_in():
    trace = read_trace(_recorded(_out_of_order))
    # the spans in the order they start: the client's span first, then its parent
    assert [s.name for s in trace.spans][:3] == ["invoke_agent a", "chat client", "chat outer"]
    assert [(s.name, s.operation) for s in trace.steps] == [
        ("invoke_agent a", "invoke_agent"),
        ("chat outer", "chat"),
        ("execute_tool f", "execute_tool"),  # (the outer one: it starts at t + 20)
        ("chat last", "chat"),
    ]
    assert [s.name for s in trace.spans][3:5] == ["execute_tool f", "execute_tool f"]
    assert trace.steps[2].span_id == trace.spans[4].span_id  # (the outer: the inner, [3])
    assert trace.run_conversation() == _read_back(trace)
    assert [(c.name, c.status) for c in trace.run_conversation().calls] == [("f", "ok")]


def test_many_calls_left_open_are_answered_by_id_then_by_name():
    """Tool spans answer the calls a model call made by their id, else by their name (the
    first open), in constant time each: a run of 2,000 calls, the odd ones answered by id
    in reverse, the even ones by name."""
    calls = [
        {"type": "tool_call", "id": f"c{n}", "name": f"t{n % 2}", "arguments": "{}"}
        for n in range(2000)
    ]
    reply = {"role": "assistant", "parts": calls}

    def run(tracer: trace_api.Tracer) -> None:
        with tracer.start_as_current_span("invoke_agent a"):
            with tracer.start_as_current_span("chat m") as chat:
                chat.set_attribute("gen_ai.operation.name", "chat")
                chat.set_attribute("gen_ai.output.messages", json.dumps([reply]))
            for n in [*range(1999, 0, -2), *range(0, 2000, 2)]:
                with tracer.start_as_current_span(f"execute_tool t{n % 2}") as tool:
                    tool.set_attributes({"gen_ai.operation.name": "execute_tool"})
                    tool.set_attribute("gen_ai.tool.name", f"t{n % 2}")
                    tool.set_attribute("gen_ai.tool.call.id", f"c{n}" if n % 2 else "")
                    tool.set_attribute("gen_ai.tool.call.result", f"r{n}")

    trace = read_trace(_recorded(run))
    answered = [(m["tool_call_id"], m["content"]) for m in trace.messages if m["role"] == "tool"]
    odd = [(f"c{n}", f"r{n}") for n in range(1999, 0, -2)]
    # (the even ones by name, the first open call of t0 each time: c0, c2, ...)
    even = [(f"c{n}", f"r{n}") for n in range(0, 2000, 2)]
    assert answered == odd + even
    assert trace.run_conversation() == _read_back(trace)


# -- what a span's numbers may be written as -------------------------------------------------


def _file_with(tmp_path: Path, **fields: object) -> Path:
    span = {
        "traceId": "0" * 31 + "1",
        "spanId": "0" * 15 + "1",
        "name": "chat m",
        "startTimeUnixNano": "1",
        "endTimeUnixNano": "2",
        "attributes": [{"key": "gen_ai.operation.name", "value": {"stringValue": "chat"}}],
        **fields,
    }
    request = {"resourceSpans": [{"scopeSpans": [{"spans": [span]}]}]}
    path = tmp_path / "t.jsonl"
    path.write_text(json.dumps(request) + "\n", encoding="utf-8")
    return path


@pytest.mark.parametrize(
    ("fields", "said"),
    [
        ({"startTimeUnixNano": "²"}, "startTimeUnixNano '²' is not a time in nanoseconds"),
        ({"endTimeUnixNano": "-5"}, "endTimeUnixNano '-5' is not a time in nanoseconds"),
        (
            {"attributes": [{"key": "n", "value": {"intValue": "²"}}]},
            "attribute 'n': {'intValue': '²'} is no OTLP value",
        ),
        (
            {"attributes": [{"key": "n", "value": {"intValue": "--5"}}]},
            "attribute 'n': {'intValue': '--5'} is no OTLP value",
        ),
    ],
    ids=["superscript time", "negative time", "superscript int", "two signs"],
)
def test_numbers_no_digits_write_are_refused_naming_the_span(tmp_path, fields, said):
    """(A superscript two is a digit to ``str.isdigit`` but no number to ``int``.)"""
    path = _file_with(tmp_path, **fields)
    with pytest.raises(ParseError) as caught:
        read_trace(path)
    assert str(caught.value).startswith(
        f"trace file {str(path)!r} resourceSpans[0].scopeSpans[0].spans[0] (span 'chat m'): "
    )
    assert said in str(caught.value)


def test_a_number_written_with_a_sign_or_at_length_is_read_as_written(tmp_path):
    path = _file_with(
        tmp_path,
        attributes=[
            {"key": "gen_ai.operation.name", "value": {"stringValue": "chat"}},
            {"key": "a", "value": {"intValue": "-7"}},
            {"key": "b", "value": {"intValue": "12345678901234567890"}},  # (20 digits)
            {"key": "gen_ai.output.messages", "value": {"stringValue": "[]"}},
        ],
    )
    attributes = read_trace(path).spans[0].attributes
    assert (attributes["a"], attributes["b"]) == (-7, 12345678901234567890)


# -- the run read in one pass (trace_conversation.py), as the general reading reads it --------


@contextmanager
def trace_fast(on: bool) -> Iterator[None]:
    before = trace_conversation.TRACE_FAST
    trace_conversation.TRACE_FAST = on
    try:
        yield
    finally:
        trace_conversation.TRACE_FAST = before


def _failing_run(tracer: trace_api.Tracer) -> None:
    ot.genai_run(tracer, fail=True)


def _by_name_run(tracer: trace_api.Tracer, call_id: object = "c") -> None:
    """A model call's call answered by a tool span that names no id (by its name only)."""
    call = {"type": "tool_call", "id": call_id, "name": "f"}
    reply = {"role": "assistant", "parts": [call]}
    with tracer.start_as_current_span("invoke_agent a"):
        with tracer.start_as_current_span("chat m") as chat:
            chat.set_attribute("gen_ai.operation.name", "chat")
            chat.set_attribute("gen_ai.output.messages", json.dumps([reply]))
        with tracer.start_as_current_span("execute_tool f") as tool:
            tool.set_attributes({"gen_ai.operation.name": "execute_tool"})
            tool.set_attributes({"gen_ai.tool.name": "f", "gen_ai.tool.call.result": "r"})


def _bad_arguments_run(tracer: trace_api.Tracer) -> None:
    """A model call whose call's arguments are JSON text of no object."""
    call = {"type": "tool_call", "id": "c", "name": "f", "arguments": "[1, 2]"}
    with tracer.start_as_current_span("chat m") as chat:
        chat.set_attribute("gen_ai.operation.name", "chat")
        chat.set_attribute(
            "gen_ai.output.messages", json.dumps([{"role": "assistant", "parts": [call]}])
        )


RUNS = {
    "every step": (_run_spans, True),
    "spans out of their tree's order": (_out_of_order, True),
    "a failed tool": (_failing_run, True),
    "a call answered by name": (_by_name_run, True),  # (its result names the call's id)
    # (a number is no call id to the reader: its result is linked in order, by the general
    # reading's steps)
    "a call whose id is a number": (lambda tracer: _by_name_run(tracer, 7), False),
}


def _read_both_ways(trace: Trace) -> tuple[object, object]:
    def read() -> object:
        try:
            return Trace(
                trace.spans, trace.source, trace.trace_id, trace.messages, trace.steps
            ).run_conversation()
        except ParseError as exc:
            return f"ParseError: {exc}"

    with trace_fast(False):
        general = read()
    return read(), general


@pytest.mark.parametrize("source", ["memory", "file"])
@pytest.mark.parametrize("run", list(RUNS))
def test_a_traces_run_read_in_one_pass_is_the_run_the_general_reading_reads(tmp_path, source, run):
    make, in_one_pass = RUNS[run]
    spans = _recorded(make)
    if source == "file":
        path = tmp_path / "t.jsonl"
        path.write_text(ot.collector_json_lines(spans))
        trace = read_trace(path)
    else:
        trace = read_trace(spans)
    fast, general = _read_both_ways(trace)
    assert isinstance(fast, agent_messages.Conversation)
    assert fast == general  # (every message, call, status, place, its start and depth)
    assert fast == _read_back(trace)
    one_pass = chat_conversation(trace.messages, "actual")
    assert (one_pass is not None) is in_one_pass
    if one_pass is not None:
        assert one_pass == fast


def test_a_pydantic_ai_run_reads_in_one_pass_as_the_general_reading_reads_it():
    pytest.importorskip("pydantic_ai")  # (the test extra brings it; the floors run has none)
    spans, _ = ot.pydantic_ai_run()
    trace = read_trace(spans)
    one_pass = chat_conversation(trace.messages, "actual")
    assert one_pass is not None
    fast, general = _read_both_ways(trace)
    assert one_pass == fast == general
    # the call get_weather({"city": "Oslo"}), answered by its result: ok
    assert [(c.name, c.arguments, c.status) for c in one_pass.calls] == [
        ("get_weather", {"city": "Oslo"}, "ok")
    ]


def test_a_run_the_reader_refuses_is_refused_with_the_general_readings_error():
    trace = read_trace(_recorded(_bad_arguments_run))
    fast, general = _read_both_ways(trace)
    assert fast == general
    assert isinstance(fast, str)
    assert "actual messages[0].tool_calls[0].function.arguments (call 'f')" in fast


@pytest.mark.parametrize(
    "messages",
    [
        [{"role": "tool", "tool_call_id": "c", "content": float("nan")}],  # (the door's)
        [{"role": "assistant", "content": None, "tool_calls": [{"function": {"name": "f"}}]}],
        [{"role": "assistant", "content": [{"type": "text", "text": "blocks"}]}],
        [{"role": "user", "content": "x", "type": "message"}],  # (a key of no chat message)
        [{"role": "tool", "tool_call_id": "c", "content": "no call of its id open"}],
    ],
    ids=["nan", "a call of no id", "blocks", "typed", "unanswered id"],
)
def test_messages_of_another_form_are_left_to_the_general_reading(messages):
    """(A call without an id, read in one pass, could be answered by name or in order:
    the general reading's steps; a result whose id no open call has, likewise.)"""
    if "function" in str(messages):
        messages = [*messages, {"role": "tool", "tool_call_id": "x", "content": "r"}]
    assert chat_conversation(messages, "actual") is None


def test_messages_read_in_one_pass_link_each_result_to_the_first_open_call_of_its_id():
    call = {"id": "a", "type": "function", "function": {"name": "f", "arguments": "{}"}}
    messages = [
        {"role": "assistant", "content": None, "tool_calls": [call, call]},
        {"role": "tool", "tool_call_id": "a", "content": "error: x"},
        {"role": "assistant", "content": None, "tool_calls": [call]},
        {"role": "tool", "tool_call_id": "a", "content": "r"},
    ]
    one_pass = chat_conversation(messages, "actual")
    assert one_pass == conversation_of(messages, "actual", 4)
    # the first result takes the first call of id a; the second call of id a was never
    # open by its id (the first held it), so the second result takes the third call
    assert [c.status for c in one_pass.calls] == ["error", None, "ok"]
    assert one_pass.depth == 4  # (message > tool_calls > call > function: text arguments)


def test_the_switch_turns_the_one_pass_reading_off(monkeypatch):
    """Not vacuous: with the switch on, a trace's run never reaches ``conversation_of``;
    off, it does."""
    seen: list[object] = []
    general = trace_spans.conversation_of

    def reading(*args: object) -> object:
        seen.append(args)
        return general(*args)  # type: ignore[arg-type]

    monkeypatch.setattr(trace_spans, "conversation_of", reading)
    trace = read_trace(_recorded())
    trace.run_conversation()
    assert seen == []
    with trace_fast(False):
        read_trace(_recorded()).run_conversation()
    assert len(seen) == 1


# -- the run read straight from its spans (trace_conversation.straight_run), as the general
# reading reads it: its chat messages made, then read by the door and conversation_of --------


def _output_tool_run(tracer: trace_api.Tracer) -> None:
    """A run whose model ends on a call (an output tool): the answer is the agent's own
    output (``final_result``); a tool's result that is structured (an object), one that
    says ``error: ...`` in its text, and a call whose arguments are an object (not text)."""
    with tracer.start_as_current_span(
        "invoke_agent a",
        attributes={"gen_ai.operation.name": "invoke_agent", "final_result": '{"pnr": "Q"}'},
    ):
        calls = [
            {"type": "tool_call", "id": "c1", "name": "find", "arguments": {"q": {"to": "Oslo"}}},
            {"type": "tool_call", "id": "c2", "name": "hold", "arguments": '{"seat": 1}'},
        ]
        with tracer.start_as_current_span("chat m") as chat:
            chat.set_attribute("gen_ai.operation.name", "chat")
            chat.set_attribute(
                "gen_ai.output.messages", json.dumps([{"role": "assistant", "parts": calls}])
            )
            chat.set_attribute("gen_ai.usage.output_tokens", 9)
        for call, result in ((calls[0], ["Oslo", 2]), (calls[1], "error: no seat")):
            with tracer.start_as_current_span(f"execute_tool {call['name']}") as tool:
                tool.set_attributes(
                    {
                        "gen_ai.operation.name": "execute_tool",
                        "gen_ai.tool.name": call["name"],
                        "gen_ai.tool.call.id": call["id"],
                        "gen_ai.tool.call.result": result,  # (a list of values; text)
                    }
                )
        final = {"type": "tool_call", "id": "c3", "name": "final_result", "arguments": "{}"}
        with tracer.start_as_current_span("chat m") as chat:
            chat.set_attribute("gen_ai.operation.name", "chat")
            chat.set_attribute(
                "gen_ai.output.messages", json.dumps([{"role": "assistant", "parts": [final]}])
            )


def _given_id_twice_run(tracer: trace_api.Tracer) -> None:
    """Two model calls that name their calls by the same id: left to the general reading,
    which answers each tool span with the first open call of that id."""
    call = {"type": "tool_call", "id": "same", "name": "f", "arguments": "{}"}
    reply = json.dumps([{"role": "assistant", "parts": [call]}])
    with tracer.start_as_current_span("invoke_agent a"):
        for _ in range(2):
            with tracer.start_as_current_span("chat m") as chat:
                chat.set_attributes({"gen_ai.operation.name": "chat"})
                chat.set_attributes({"gen_ai.output.messages": reply})
            with tracer.start_as_current_span("execute_tool f") as tool:
                tool.set_attributes({"gen_ai.operation.name": "execute_tool"})
                tool.set_attributes({"gen_ai.tool.name": "f", "gen_ai.tool.call.id": "same"})
                tool.set_attributes({"gen_ai.tool.call.result": "r"})


def _older_events_run(tracer: trace_api.Tracer) -> None:
    """Semconv 1.28-1.36's events: the messages given, each a ``gen_ai.*.message`` event;
    the reply a ``gen_ai.choice`` event, its calls in OpenAI's chat shape."""
    call = {"id": "c1", "type": "function", "function": {"name": "f", "arguments": '{"a": 1}'}}
    with tracer.start_as_current_span("POST /run"):
        with tracer.start_as_current_span("chat m") as chat:
            chat.set_attribute("gen_ai.operation.name", "chat")
            chat.add_event("gen_ai.user.message", {"content": "go"})
            message = json.dumps({"role": "assistant", "tool_calls": [call]})
            chat.add_event("gen_ai.choice", {"index": 0, "message": message})
        attributes = {"gen_ai.tool.name": "f", "gen_ai.tool.call.id": "c1", "output.value": "r"}
        with tracer.start_as_current_span("f", attributes=attributes):
            pass
        with tracer.start_as_current_span("chat m") as chat:
            chat.add_event("gen_ai.choice", {"index": 0, "message": '{"content": "done"}'})


def _openinference_run(tracer: trace_api.Tracer) -> None:
    """OpenInference's flattened messages; its tool span names its call's id."""
    reply = "llm.output_messages.0.message"
    with tracer.start_as_current_span("agent", attributes={"openinference.span.kind": "AGENT"}):
        first = {
            "openinference.span.kind": "LLM",
            "llm.input_messages.0.message.role": "user",
            "llm.input_messages.0.message.content": "go",
            f"{reply}.role": "assistant",
            f"{reply}.tool_calls.0.tool_call.id": "t1",
            f"{reply}.tool_calls.0.tool_call.function.name": "f",
            f"{reply}.tool_calls.0.tool_call.function.arguments": '{"a": 1}',
        }
        with tracer.start_as_current_span("ChatCompletion", attributes=first):
            pass
        tool = {"openinference.span.kind": "TOOL", "tool.name": "f", "tool_call.id": "t1"}
        with tracer.start_as_current_span("f", attributes={**tool, "output.value": "r"}):
            pass
        last = {"openinference.span.kind": "LLM", f"{reply}.content": "done"}
        with tracer.start_as_current_span("ChatCompletion", attributes=last):
            pass


# each run, and whether it is read straight (else by the general reading: a call the reader
# makes for a tool span, a result found by name, an id that is no text or given twice)
STRAIGHT_RUNS = {
    **{name: (make, False) for name, (make, _) in RUNS.items()},
    "a failed tool": (_failing_run, True),
    "spans out of their tree's order": (_out_of_order, False),  # (its tool names no id)
    "a model call answered by the genai conventions": (lambda tracer: ot.genai_run(tracer), True),
    "an output tool, structured results and arguments": (_output_tool_run, True),
    "an id given twice": (_given_id_twice_run, False),
    "the older gen_ai events": (_older_events_run, True),
    "openinference's flattened messages": (_openinference_run, True),
}


def _both_readings(make: object, source: str, tmp_path: Path) -> tuple[Trace, Trace]:
    spans = _recorded(make)
    path = tmp_path / "t.jsonl"
    path.write_text(ot.collector_json_lines(spans))
    given: object = path if source == "file" else spans
    straight = read_trace(given)
    with trace_fast(False):
        general = read_trace(given)
    return straight, general


@pytest.mark.parametrize("source", ["memory", "file"])
@pytest.mark.parametrize("run", list(STRAIGHT_RUNS))
def test_a_run_read_straight_from_its_spans_is_the_run_the_general_reading_reads(
    tmp_path, source, run
):
    make, straight_read = STRAIGHT_RUNS[run]
    straight, general = _both_readings(make, source, tmp_path)
    assert (straight._read is not None) is straight_read  # (read with the trace, or not)
    assert general._read is None and general._messages is not None
    read = straight.run_conversation()
    with trace_fast(False):
        assert read == general.run_conversation()  # (every message, call, status, place, depth)
    assert straight.steps == general.steps
    assert straight.spans == general.spans
    assert straight.messages == general.messages  # (made on first use where read straight)
    assert straight == general
    assert read == _read_back(straight)


def test_a_run_read_straight_keeps_its_answer_its_statuses_and_its_depth(tmp_path):
    straight, _ = _both_readings(_output_tool_run, "file", tmp_path)
    read = straight.run_conversation()
    assert [(c.name, c.arguments, c.status) for c in read.calls] == [
        ("find", {"q": {"to": "Oslo"}}, "ok"),
        ("hold", {"seat": 1}, "error"),  # (its result's text starts "error: ")
        ("final_result", {}, None),  # (no tool span answers it)
    ]
    # the agent's output is the answer: the last model call only called a tool
    assert read.answer == '{"pnr": "Q"}'
    assert [m.role for m in read.messages] == [
        "assistant",
        "tool",
        "tool",
        "assistant",
        "assistant",
    ]
    # message > tool_calls > call > function > arguments {q} > {to}: 6 levels
    assert read.depth == 6
    assert [s.message for s in straight.steps] == [4, 0, 1, 2, 3]  # (the agent's: the answer)


def test_a_pydantic_ai_run_is_read_straight_as_the_general_reading_reads_it(tmp_path):
    pytest.importorskip("pydantic_ai")  # (the test extra brings it; the floors run has none)
    spans, _ = ot.pydantic_ai_run()
    path = tmp_path / "t.jsonl"
    path.write_text(ot.collector_json_lines(spans))
    for given in (spans, path):
        straight = read_trace(given)
        assert straight._read is not None
        with trace_fast(False):
            general = read_trace(given)
            assert straight.run_conversation() == general.run_conversation()
        assert straight == general


def test_a_long_run_is_read_straight_as_the_general_reading_reads_it(tmp_path):
    """The benchmark's long run (benchmarks/traces.py: a model call, its HTTP span and a
    tool a turn, one tool in ten failing), at 301 spans."""
    import benchmarks.traces as bench

    path = tmp_path / "long.jsonl"
    bench.write_long(path, 301)
    straight = read_trace(path)
    assert straight._read is not None
    with trace_fast(False):
        general = read_trace(path)
        assert straight.run_conversation() == general.run_conversation()
    assert straight == general
    # (301 - 4) // 3 = 99 turns. Messages: the task given, 99 replies that call a tool and
    # 99 results, the answer: 1 + 99 + 99 + 1 = 200. Steps: 100 model calls, 99 tools and
    # the agent: 200. Spans: those and 100 HTTP spans, 300.
    assert (len(straight.messages), len(straight.steps), len(straight.spans)) == (200, 200, 300)


def test_a_run_the_reader_refuses_is_refused_alike_when_read_straight(tmp_path):
    straight, general = _both_readings(_bad_arguments_run, "file", tmp_path)
    assert straight._read is None  # (its arguments cannot be read: the general reading's)
    with pytest.raises(ParseError) as first:
        straight.run_conversation()
    with trace_fast(False), pytest.raises(ParseError) as second:
        general.run_conversation()
    assert str(first.value) == str(second.value)


def test_a_run_whose_first_model_call_holds_no_input_is_read_in_two_passes_alike(tmp_path):
    """The straight reading finds the steps' kinds in its own pass and reads the given
    conversation at the first model call; where that call records no input (a later one
    does), it reads the run again with its kinds first, as the general reading does."""
    import benchmarks.traces as bench

    path = tmp_path / "long.jsonl"
    bench.write_long(path, 31)
    request = json.loads(path.read_text())
    spans = request["resourceSpans"][0]["scopeSpans"][0]["spans"]
    first = spans[1]  # (the first model call: after the agent)
    first["attributes"] = [a for a in first["attributes"] if a["key"] != "gen_ai.input.messages"]
    path.write_text(json.dumps(request) + "\n")
    straight = read_trace(path)
    assert straight._read is not None
    with trace_fast(False):
        general = read_trace(path)
        assert straight.run_conversation() == general.run_conversation()
    assert straight == general
    # the given conversation is the second model call's input, "[]": no task message; the
    # 9 replies that call a tool, their 9 results and the answer: 19 messages
    assert len(straight.messages) == 19 and straight.messages[0]["role"] == "assistant"
