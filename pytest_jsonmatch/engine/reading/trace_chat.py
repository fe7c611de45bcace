"""What a model call's span says was said, as chat messages in OpenAI's shape: the GenAI
semantic conventions' messages (``{role, parts}``, semconv 1.37 on) in their attributes or
on an event, the older per-message events (semconv 1.28-1.36), and OpenInference's
flattened ``llm.input_messages`` and ``llm.output_messages`` (``trace_messages.py`` says
which span gives which, and what becomes of them).

A GenAI message becomes a ``tool`` message for each ``tool_call_response`` part
(``response``, or ``result`` as pydantic-ai writes it), then the message's own: its
``text`` parts joined as its content, its ``tool_call`` parts as ``tool_calls``
(``{id, type: function, function: {name, arguments}}``, the arguments as given: JSON text
stays text); parts of other types (reasoning, media) are no step. JSON held as text (an
attribute on a span, a field of an event) is read by ``deep_json.read_whole``; what is not
JSON, or not of the shape, is a ParseError naming the span and the attribute.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..core.errors import ParseError, shown
from ..core.values import JsonValue
from .deep_json import LENIENT_JSON, read_whole
from .trace_formats import Span

Chat = dict[str, Any]  # a chat message, plain JSON
_INPUT_EVENTS = {
    "gen_ai.system.message": "system",
    "gen_ai.user.message": "user",
    "gen_ai.assistant.message": "assistant",
    "gen_ai.tool.message": "tool",
}


# JSON text shorter than this is read by the standard reader at once: it cannot nest past the
# door (MAX_DEPTH, 2,000 levels), so ``read_whole``'s checks of depth have nothing to find
SHORT_JSON = 512
# (a value at a place: read_whole's reader, without its checks)
_SCAN: Callable[[str, int], tuple[Any, int]] = LENIENT_JSON.scan_once  # type: ignore[attr-defined]


def json_text(text: str, what: str) -> JsonValue:
    """``deep_json.read_whole(text, what)``: the same value, or the same error."""
    if len(text) < SHORT_JSON:
        try:
            value, end = _SCAN(text, 0)
        except (StopIteration, ValueError, RecursionError):
            return read_whole(text, what)  # (refused as it refuses, or read with room)
        if end == len(text):
            return value  # type: ignore[no-any-return]
    return read_whole(text, what)


def json_attribute(value: JsonValue, what: str) -> JsonValue:
    """An attribute that holds JSON, as JSON: text read (ParseError naming ``what`` where it
    is not JSON), a structured value as it is."""
    if not isinstance(value, str):
        return value
    try:
        return json_text(value, what)
    except ParseError:
        raise
    except ValueError as exc:
        raise ParseError(f"{what} is not JSON text: {exc}") from None


# -- messages -------------------------------------------------------------------------------


def attribute_messages(span: Span, key: str) -> list[Any] | None:
    """The messages an attribute (or an event's attribute) of ``span`` holds; None: none."""
    if key in span.attributes:
        return _messages_in(span.attributes[key], key)
    for event in span.events:
        if key in event.attributes:
            return _messages_in(event.attributes[key], f"{key} (an event's)")
    return None


def _messages_in(value: JsonValue, what: str) -> list[Any]:
    listed = json_attribute(value, what)
    if type(listed) is not list:
        raise ParseError(f"{what} must be a list of messages, not {shown(listed)}")
    return [json_attribute(m, what) if isinstance(m, str) else m for m in listed]


def inputs(span: Span) -> list[Chat] | None:
    """A model call's input as chat messages (None: it records none)."""
    listed = attribute_messages(span, "gen_ai.input.messages")
    if listed is not None:
        return with_instructions(span, listed)
    events = [e for e in span.events if e.name in _INPUT_EVENTS]
    if events:
        return [_event_message(_INPUT_EVENTS[e.name], e.attributes, e.name) for e in events]
    flat = _flattened(span, "llm.input_messages.")
    return flat or None


def with_instructions(span: Span, listed: list[Any]) -> list[Chat]:
    """GenAI input messages as chat messages, ``gen_ai.system_instructions`` a system
    message ahead of them where they hold none."""
    out = [m for message in listed for m in _from_parts(message, "gen_ai.input.messages")]
    instructions = span.attributes.get("gen_ai.system_instructions")
    if instructions is not None and not any(m.get("role") == "system" for m in out):
        parts = json_attribute(instructions, "gen_ai.system_instructions")
        text = parts if isinstance(parts, str) else _texts(parts if type(parts) is list else [])
        out.insert(0, {"role": "system", "content": text})
    return out


def output(span: Span) -> Chat | None:
    """A model call's reply (its first choice) as an assistant message; None: none."""
    listed = attribute_messages(span, "gen_ai.output.messages")
    if listed is not None:
        at = "gen_ai.output.messages"
        replies = [m for message in listed[:1] for m in _from_parts(message, at)]
        return replies[-1] if replies else None
    choices = [e for e in span.events if e.name == "gen_ai.choice"]
    if choices:
        first = min(choices, key=lambda e: _index(e.attributes.get("index")))
        message = json_attribute(first.attributes.get("message", first.attributes), "gen_ai.choice")
        return _event_message("assistant", message, "gen_ai.choice")
    flat = _flattened(span, "llm.output_messages.")
    return flat[0] if flat else None


def agent_output(agent: Span) -> JsonValue | None:
    """An agent's output: its output messages' text, else ``output.value`` or
    ``final_result`` as the span holds it (None: none)."""
    listed = attribute_messages(agent, "gen_ai.output.messages")
    if listed:
        reply = _from_parts(listed[0], "gen_ai.output.messages")
        return reply[-1].get("content") if reply else None
    for key in ("output.value", "final_result"):
        if key in agent.attributes:
            return agent.attributes[key]
    return None


def _index(value: JsonValue) -> int:
    return value if type(value) is int else 0


def _texts(parts: list[Any]) -> str | None:
    texts = [
        p["content"]
        for p in parts
        if isinstance(p, dict) and p.get("type") == "text" and isinstance(p.get("content"), str)
    ]
    return "\n".join(texts) if texts else None


def _from_parts(message: object, at: str) -> list[Chat]:
    """A GenAI message (``{role, parts}``) as chat messages: a tool message for each
    ``tool_call_response`` part, then the message's text and calls (parts of other types,
    reasoning or media, are no step)."""
    if not isinstance(message, dict) or not isinstance(message.get("role"), str):
        raise ParseError(f"{at}: a message must be an object with a role, not {shown(message)}")
    parts = message.get("parts", [])
    if type(parts) is not list:
        raise ParseError(f"{at}: a message's parts must be a list, not {shown(parts)}")
    role, calls, out, texts = message["role"], [], [], []
    for part in parts:
        kind = part.get("type") if isinstance(part, dict) else None
        if kind == "text":
            content = part.get("content")
            if isinstance(content, str):
                texts.append(content)
        elif kind == "tool_call":
            arguments = part.get("arguments")
            function = {
                "name": part.get("name"),
                "arguments": {} if arguments is None else arguments,
            }
            calls.append({"id": part.get("id"), "type": "function", "function": function})
        elif kind == "tool_call_response":
            result = part.get("response", part.get("result"))
            out.append({"role": "tool", "tool_call_id": part.get("id"), "content": result})
    text = "\n".join(texts) if texts else None  # (as _texts reads them)
    if role == "assistant":
        reply: Chat = {"role": "assistant", "content": text}
        if calls:
            reply["tool_calls"] = calls
        out.append(reply)
    elif text is not None or not out:
        out.append({"role": role, "content": text})
    return out


def _event_message(role: str, fields: JsonValue, at: str) -> Chat:
    """An older GenAI event (its body's fields as attributes) as a chat message."""
    if not isinstance(fields, dict):
        raise ParseError(f"{at}: a gen_ai message event must hold fields, not {shown(fields)}")
    if role == "tool":
        return {"role": "tool", "tool_call_id": fields.get("id"), "content": fields.get("content")}
    message: Chat = {"role": role, "content": fields.get("content")}
    calls = json_attribute(fields.get("tool_calls"), f"{at}: tool_calls")
    if calls:
        if type(calls) is not list:
            raise ParseError(f"{at}: tool_calls must be a list of calls, not {shown(calls)}")
        message["tool_calls"] = calls
    return message


def _flattened(span: Span, prefix: str) -> list[Chat]:
    """OpenInference's flattened messages (``llm.input_messages.0.message.role``...) as
    chat messages, in their order."""
    tree: dict[str, Any] = {}
    for key, value in span.attributes.items():
        if key.startswith(prefix):
            node = tree
            *path, leaf = key[len(prefix) :].split(".")
            for segment in path:
                node = node.setdefault(segment, {})
                if type(node) is not dict:
                    raise ParseError(f"{key} is under a value, not a message")
            node[leaf] = value
    out = []
    for index in sorted((k for k in tree if k.isdecimal()), key=int):
        message = tree[index].get("message", {})
        out.append(_openinference(message if type(message) is dict else {}))
    return out


def _openinference(message: dict[str, Any]) -> Chat:
    """One OpenInference message (its flattened attributes gathered) as a chat message."""
    role = message.get("role", "assistant")
    content = message.get("content")
    if content is None:
        items = [c.get("message_content", {}) for c in _indexed(message.get("contents"))]
        texts = [i["text"] for i in items if i.get("type", "text") == "text" and "text" in i]
        content = "\n".join(map(str, texts)) or None
    if role == "tool":
        return {"role": "tool", "tool_call_id": message.get("tool_call_id"), "content": content}
    out: Chat = {"role": role, "content": content}
    calls = []
    for listed in _indexed(message.get("tool_calls")):
        call = listed.get("tool_call", {})
        function = call.get("function", {}) if type(call) is dict else {}
        arguments = function.get("arguments")
        calls.append(
            {
                "id": call.get("id"),
                "type": "function",
                "function": {
                    "name": function.get("name"),
                    "arguments": {} if arguments is None else arguments,
                },
            }
        )
    if calls:
        out["tool_calls"] = calls
    return out


def _indexed(node: object) -> list[dict[str, Any]]:
    """The objects under a flattened list's indexes (``contents.0``...), in their order."""
    if type(node) is not dict:
        return []
    keys = sorted((k for k in node if k.isdecimal()), key=int)
    return [node[k] for k in keys if type(node[k]) is dict]
