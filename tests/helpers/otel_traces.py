"""Traces for the tests of reading a trace as an agent's output, made by real parts: spans
recorded by the real ``opentelemetry-sdk`` (a provider of its own, its
``InMemorySpanExporter``), written out as the OpenTelemetry Collector's file exporter writes
them (``encode_spans``, the OTLP exporters' own encoder, to an ``ExportTraceServiceRequest``;
``google.protobuf.json_format`` for JSON, ids turned to hex and enums to integers as
OTLP/JSON has them; protobuf as one request or each after its 4-byte length), and an agent
run recorded by pydantic-ai's own instrumentation against a chat model on 127.0.0.1."""

from __future__ import annotations

import base64
import contextlib
import json
from collections.abc import Iterator, Sequence
from typing import Any

from google.protobuf import json_format
from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import Status, StatusCode, Tracer

from tests.helpers.http_models import ChatModel, serving


@contextlib.contextmanager
def recording(service: str = "agent") -> Iterator[tuple[Tracer, InMemorySpanExporter]]:
    """A tracer of a provider of its own (never the global one) and the exporter that keeps
    what it records."""
    exporter = InMemorySpanExporter()
    provider = TracerProvider(resource=Resource.create({"service.name": service}))
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    try:
        yield provider.get_tracer("tests.otel_traces"), exporter
    finally:
        provider.shutdown()


def _hex_ids(value: Any) -> Any:
    """A request as json_format wrote it, its ids turned from base64 to hex (OTLP/JSON)."""
    if isinstance(value, list):
        return [_hex_ids(v) for v in value]
    if not isinstance(value, dict):
        return value
    out = {}
    for key, inner in value.items():
        if key in ("traceId", "spanId", "parentSpanId") and isinstance(inner, str):
            inner = base64.b64decode(inner).hex()
        out[key] = _hex_ids(inner)
    return out


def collector_request(spans: Sequence[ReadableSpan]) -> dict[str, Any]:
    """One ``ExportTraceServiceRequest`` of ``spans`` as the Collector writes it in JSON."""
    message = encode_spans(spans)
    return _hex_ids(json_format.MessageToDict(message, use_integers_for_enums=True))


def collector_json_lines(*batches: Sequence[ReadableSpan]) -> str:
    """A file exporter's JSON file: one request a line, one line per batch exported."""
    return "".join(json.dumps(collector_request(b), separators=(",", ":")) + "\n" for b in batches)


def collector_proto(*batches: Sequence[ReadableSpan], framed: bool = True) -> bytes:
    """A file exporter's protobuf file (``format: proto``: each request after its length, 4
    bytes big-endian); ``framed=False``: one serialized request (of the first batch)."""
    chunks = [encode_spans(b).SerializeToString() for b in batches]
    if not framed:
        return chunks[0]
    return b"".join(len(c).to_bytes(4, "big") + c for c in chunks)


def genai_run(tracer: Tracer, session: str = "s1", city: str = "Oslo", fail: bool = False) -> None:
    """An agent run recorded by hand through the SDK, as the GenAI semantic conventions
    (1.37 on) have it: the agent, a model call that asks for ``get_weather``, the tool's
    span (failing with ``fail``: an exception recorded, status ERROR), the model's answer."""
    user = {"role": "user", "parts": [{"type": "text", "content": f"Weather in {city}?"}]}
    call = {"type": "tool_call", "id": f"call_{session}", "name": "get_weather"}
    asked = {"role": "assistant", "parts": [{**call, "arguments": {"city": city}}]}
    result = {"city": city, "temp": 3}
    with tracer.start_as_current_span(
        "invoke_agent weather",
        attributes={"gen_ai.operation.name": "invoke_agent", "session.id": session},
    ):
        with tracer.start_as_current_span("chat m") as chat:
            chat.set_attributes(
                {
                    "gen_ai.operation.name": "chat",
                    "gen_ai.input.messages": json.dumps([user]),
                    "gen_ai.output.messages": json.dumps([asked]),
                    "gen_ai.usage.input_tokens": 50,
                    "gen_ai.usage.output_tokens": 10,
                }
            )
        with tracer.start_as_current_span("execute_tool get_weather") as tool:
            tool.set_attributes(
                {
                    "gen_ai.operation.name": "execute_tool",
                    "gen_ai.tool.name": "get_weather",
                    "gen_ai.tool.call.id": f"call_{session}",
                    "gen_ai.tool.call.arguments": json.dumps({"city": city}),
                }
            )
            if fail:
                tool.record_exception(TimeoutError("the weather service timed out"))
                tool.set_status(Status(StatusCode.ERROR, "timed out"))
            else:
                tool.set_attribute("gen_ai.tool.call.result", json.dumps(result))
        response = {"type": "tool_call_response", "id": f"call_{session}", "response": result}
        answer = {"role": "assistant", "parts": [{"type": "text", "content": json.dumps(result)}]}
        with tracer.start_as_current_span("chat m") as chat:
            chat.set_attributes(
                {
                    "gen_ai.operation.name": "chat",
                    "gen_ai.input.messages": json.dumps(
                        [user, asked, {"role": "tool", "parts": [response]}]
                    ),
                    "gen_ai.output.messages": json.dumps([answer]),
                    "gen_ai.usage.input_tokens": 80,
                    "gen_ai.usage.output_tokens": 12,
                }
            )


def weather_model(body: dict) -> tuple[dict, str]:
    """A model that asks for the weather in Oslo, then answers with what the tool said."""
    results = [m for m in body["messages"] if m["role"] == "tool"]
    if results:
        return {"role": "assistant", "content": results[-1]["content"]}, "stop"
    function = {"name": "get_weather", "arguments": '{"city": "Oslo"}'}
    call = {"id": "call_1", "type": "function", "function": function}
    return {"role": "assistant", "content": None, "tool_calls": [call]}, "tool_calls"


def pydantic_ai_run() -> tuple[list[ReadableSpan], list[dict]]:
    """A pydantic-ai agent (its own instrumentation on, into a provider of this module's)
    that calls ``get_weather`` once and answers, against ``weather_model`` on 127.0.0.1:
    the spans it recorded, and the run as chat messages (what the model was last sent, and
    its answer)."""
    from pydantic_ai import Agent
    from pydantic_ai.capabilities import Instrumentation
    from pydantic_ai.models.instrumented import InstrumentationSettings
    from pydantic_ai.models.openai import OpenAIChatModel
    from pydantic_ai.providers.openai import OpenAIProvider

    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    server = ChatModel(weather_model)
    with serving(server):
        model = OpenAIChatModel("m", provider=OpenAIProvider(base_url=server.url, api_key="k"))
        settings = InstrumentationSettings(tracer_provider=provider)
        agent = Agent(model, capabilities=[Instrumentation(settings=settings)])

        @agent.tool_plain
        def get_weather(city: str) -> dict:
            return {"city": city, "temp": 3}

        agent.run_sync("Weather in Oslo?")
    provider.shutdown()
    last = server.asked[-1]["messages"]
    answer = weather_model(server.asked[-1])[0]
    return list(exporter.get_finished_spans()), [*last, answer]
