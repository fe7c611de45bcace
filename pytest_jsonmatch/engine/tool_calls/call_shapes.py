"""Tool calls as models give them, read into one form: a name and its arguments.

The actual side may be an OpenAI chat-completions response, message or ``tool_calls`` list
(``arguments`` a JSON string, read as deeply as the door reads, else leniently: see
:func:`read_arguments`; a string cut off is a TruncatedError naming the call), an OpenAI
Responses response or its ``function_call`` items, an Anthropic message or its ``tool_use``
blocks, a Gemini response, content or its ``functionCall`` parts, plain ``{name,
arguments}`` objects, or BFCL's decoded form ``[{name: {arg: value}}]``. Content that is
no call (text blocks and parts, reasoning items) is passed over.

The expected side is calls in any of those forms, or BFCL's possible answers (each argument
a list of acceptable values, ``""`` meaning it may be left out), with or without the tools:
``{"calls": [...]}`` or ``{"possible_answer": [...]}`` (``ground_truth`` as BFCL names it),
beside ``"tools"`` (``"function"`` as BFCL names it). Tools are OpenAI, Anthropic or Gemini
tool definitions or BFCL's function documents, read into :class:`ToolDoc`.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import NamedTuple

from ..core.errors import ParseError, shown
from ..core.paths import index_segment, key_segment
from ..core.values import JsonObject, JsonValue
from ..reading.deep_json import read_whole
from ..reading.parse import parse_actual_checked

# the keys a plain call's arguments may be under
_ARGUMENT_KEYS = ("arguments", "args", "input", "parameters")
# the keys of content that is no call (a text part, a thought, a refusal)
_CONTENT_KEYS = frozenset({"text", "thought", "thinking", "refusal", "content", "role"})


class ToolCall(NamedTuple):
    """One call read from a model's answer: the function's name, its arguments, and where in
    the answer it was (``choices[0].message.tool_calls[1]``)."""

    name: str
    arguments: JsonObject
    where: str


class ToolDoc(NamedTuple):
    """A tool's declaration: its name, each parameter's schema (JSON Schema, or BFCL's
    types), the required ones, and the declaration as given (BFCL's rules read it)."""

    name: str
    properties: JsonObject
    required: tuple[str, ...]
    doc: JsonObject


class ExpectedCall(NamedTuple):
    """One expected call: each argument's acceptable values, the arguments that may be left
    out, and BFCL's possible-answer form of it (``{name: {arg: [values]}}``)."""

    name: str
    accepted: dict[str, tuple[JsonValue, ...]]
    optional: frozenset[str]
    possible: dict[str, dict[str, list[JsonValue]]]


class ExpectedCalls(NamedTuple):
    """The expected side: its calls and, where given, the tools they are made with."""

    calls: tuple[ExpectedCall, ...]
    tools: tuple[ToolDoc, ...] | None


def read_calls(value: object, side: str = "actual") -> list[ToolCall]:
    """Every tool call in ``value``, in the order the answer gives them (ParseError naming
    the place when something that should be a call is not one)."""
    return list(_calls(value, "", side))


def _calls(value: object, where: str, side: str) -> Iterator[ToolCall]:
    if type(value) is list:
        for i, item in enumerate(value):
            yield from _calls(item, index_segment(where, i), side)
        return
    if not isinstance(value, Mapping):
        if where:
            return  # a string or number among content: no call
        raise ParseError(f"{side} holds no tool calls: {shown(value)}")
    if "choices" in value and type(value["choices"]) is list:  # chat completions
        choices = value["choices"]
        if choices:
            first = choices[0]
            message = first.get("message") if isinstance(first, Mapping) else None
            if message is not None:
                yield from _calls(
                    message, key_segment(index_segment("choices", 0), "message"), side
                )
        return
    if "candidates" in value and type(value["candidates"]) is list:  # Gemini response
        if value["candidates"]:
            first = value["candidates"][0]
            content = first.get("content") if isinstance(first, Mapping) else None
            if content is not None:
                yield from _calls(content, _at(where, "candidates[0].content"), side)
        return
    if "tool_calls" in value and (  # an OpenAI chat message: its calls are there, or none
        "role" in value or value["tool_calls"] is None or type(value["tool_calls"]) is list
    ):
        yield from _message_calls(value, where, side)
        return
    for key in ("output", "content", "parts", "calls"):
        inner = value.get(key)
        if type(inner) is list:
            if key in ("content", "parts"):
                yield from _block_calls(inner, key_segment(where, key), side)
            else:
                yield from _calls(inner, key_segment(where, key), side)
            return
    call = _one_call(value, where, side)
    if call is not None:
        yield call
    elif not where and "role" not in value:  # (a message with no call in it: none)
        raise ParseError(
            f"{side} holds no tool calls: {shown(value)} is neither a call nor a message, "
            f"response or list of calls"
        )


def _message_calls(message: Mapping[str, JsonValue], where: str, side: str) -> Iterator[ToolCall]:
    """The calls of an OpenAI chat message: its ``tool_calls`` list; ``None`` (or ``[]``) is a
    message that called no tool, whose legacy ``function_call`` is its one call where it has
    one. Its content is never read as calls: it is text, or JSON the model wrote as its
    answer."""
    calls = message["tool_calls"]
    if type(calls) is list:
        yield from _calls(calls, key_segment(where, "tool_calls"), side)
        return
    if calls is not None:
        raise ParseError(
            f"{side} message at {where or '$'}: its tool_calls must be a list of calls or "
            f"null (no call), not {shown(calls)}"
        )
    legacy = message.get("function_call")
    if isinstance(legacy, Mapping):
        yield _call(legacy, ("arguments",), key_segment(where, "function_call"), side)


def _block_calls(blocks: list[JsonValue], where: str, side: str) -> Iterator[ToolCall]:
    """The calls among a message's content blocks (Anthropic's content, Gemini's parts, an
    item of a Responses output): the blocks a vendor marks as calls (``tool_use``,
    ``function_call``, ``functionCall``). Any other block is content, never a call, whatever
    its keys."""
    for i, block in enumerate(blocks):
        if isinstance(block, Mapping):
            call = _vendor_call(block, index_segment(where, i), side)
            if call is not None:
                yield call


def _at(where: str, tail: str) -> str:
    return f"{where}.{tail}" if where else tail


def _one_call(value: Mapping[str, JsonValue], where: str, side: str) -> ToolCall | None:
    """``value`` read as one call, or None when it is content that is no call."""
    call = _vendor_call(value, where, side)
    if call is not None:
        return call
    kind = value.get("type")
    if kind is not None and kind != "function":
        return None  # a text block, a reasoning item, a message item
    if "name" in value and (
        len(value) == 1 or any(key in value for key in (*_ARGUMENT_KEYS, "id", "type"))
    ):
        return _call(value, _ARGUMENT_KEYS, where, side)
    if len(value) == 1:
        ((name, arguments),) = value.items()
        if name in _CONTENT_KEYS and not isinstance(arguments, Mapping):
            return None
        if isinstance(arguments, Mapping):  # BFCL's decoded form
            return ToolCall(name, dict(arguments), where)
        raise ParseError(
            f"{side} call at {where or '$'} ({name!r}): its arguments must be an object, "
            f"not {shown(arguments)}"
        )
    if "text" in value or "role" in value:
        return None
    if where and len(value) > 1 and all(isinstance(v, Mapping) for v in value.values()):
        raise ParseError(
            f"{side} call at {where} names {len(value)} functions "
            f"({', '.join(map(repr, value))}): a call in BFCL's form has one"
        )
    return None


def _vendor_call(value: Mapping[str, JsonValue], where: str, side: str) -> ToolCall | None:
    """``value`` read as a call in a vendor's own form (a chat-completions tool call, a
    Responses ``function_call`` item, an Anthropic ``tool_use`` block, a Gemini
    ``functionCall`` part), or None when it is none of them."""
    kind = value.get("type")
    function = value.get("function")
    if isinstance(function, Mapping) and "name" in function:  # chat completions
        return _call(function, ("arguments",), _at(where, "function"), side)
    if kind == "function_call" or kind == "tool_use":  # Responses, Anthropic
        return _call(value, ("arguments", "input"), where, side)
    for key in ("functionCall", "function_call"):  # Gemini (and OpenAI's legacy message)
        inner = value.get(key)
        if isinstance(inner, Mapping):
            return _call(inner, ("args", "arguments"), key_segment(where, key), side)
    return None


def _call(value: Mapping[str, JsonValue], keys: tuple[str, ...], where: str, side: str) -> ToolCall:
    name = value.get("name")
    if not isinstance(name, str):
        raise ParseError(f"{side} call at {where or '$'}: its name must be text, not {shown(name)}")
    arguments: object = {}
    key = "arguments"
    for key in keys:
        if key in value:
            arguments = value[key]
            break
    if arguments is None:
        arguments = {}
    if isinstance(arguments, str):
        arguments = read_arguments(arguments, f"{side} {key_segment(where, key)} (call {name!r})")
    if not isinstance(arguments, Mapping):
        raise ParseError(
            f"{side} call at {where or '$'} ({name!r}): its {key} must be an object or "
            f"JSON text holding one, not {shown(arguments)}"
        )
    return ToolCall(name, dict(arguments), where)


def read_arguments(text: str, what: str) -> object:
    """A call's arguments given as JSON text (OpenAI's chat and Responses forms; what
    ``run_tools`` calls a function with): the whole text as a JSON object nested as deeply
    as the door reads (past it, the door's ParseError, ``what`` its side), else read
    leniently; empty text is no arguments; text cut off is a TruncatedError naming
    ``what``."""
    stripped = text.strip()
    if not stripped:
        return {}
    try:
        whole = read_whole(stripped, what)
    except ParseError:
        raise
    except ValueError:
        whole = None  # not one JSON value: read leniently (prose, a fence, a cut text)
    if isinstance(whole, dict):
        return whole
    parsed, _ = parse_actual_checked(text, what=what)
    return parsed


def read_expected_calls(value: object, side: str = "expected") -> ExpectedCalls:
    """The expected side: calls in any form or BFCL's possible answers, and the tools where
    given (ParseError naming what is malformed)."""
    tools = None
    if isinstance(value, Mapping):
        for key in ("tools", "function", "functions"):
            if key in value:
                tools = read_tools(value[key], f"{side}.{key}")
                break
        for key in ("possible_answer", "ground_truth"):
            if key in value:
                return ExpectedCalls(_possible_answers(value[key], f"{side}.{key}"), tools)
        if "calls" in value:
            value = value["calls"]
        elif tools is not None:
            raise ParseError(
                f"{side} gives tools but no calls: put the expected calls under 'calls' "
                f"(or BFCL's possible answers under 'possible_answer')"
            )
    calls = tuple(
        ExpectedCall(
            call.name,
            {arg: (v,) for arg, v in call.arguments.items()},
            frozenset(),
            {call.name: {arg: [v] for arg, v in call.arguments.items()}},
        )
        for call in read_calls(value, side)
    )
    return ExpectedCalls(calls, tools)


def _possible_answers(value: object, side: str) -> tuple[ExpectedCall, ...]:
    if type(value) is not list:
        raise ParseError(f"{side} must be a list of calls {{name: {{arg: [values]}}}}")
    calls = []
    for i, item in enumerate(value):
        if not isinstance(item, Mapping) or len(item) != 1:
            raise ParseError(f"{side}[{i}] must be one function's possible answer {{name: ...}}")
        ((name, arguments),) = item.items()
        if not isinstance(arguments, Mapping):
            raise ParseError(f"{side}[{i}] ({name!r}): its arguments must be an object")
        accepted: dict[str, tuple[JsonValue, ...]] = {}
        optional = set()
        for arg, values in arguments.items():
            if type(values) is not list:
                raise ParseError(
                    f"{side}[{i}].{name}.{arg} must be a list of acceptable values "
                    f"('' for: may be left out), not {shown(values)}"
                )
            accepted[arg] = tuple(v for v in values if not (type(v) is str and v == ""))
            if "" in values:
                optional.add(arg)
        calls.append(ExpectedCall(name, accepted, frozenset(optional), {name: dict(arguments)}))
    return tuple(calls)


def _is_mapping(value: object) -> bool:
    """isinstance(value, Mapping), a dict (nearly every value) found without the ABC's
    check."""
    return type(value) is dict or isinstance(value, Mapping)


def read_tools(value: object, side: str = "tools") -> tuple[ToolDoc, ...]:
    """Tool definitions (OpenAI chat or Responses, Anthropic, Gemini, BFCL's function
    documents), each read into a :class:`ToolDoc`."""
    if _is_mapping(value):
        value = [value]
    if type(value) is not list:
        raise ParseError(f"{side} must be a list of tool definitions, not {shown(value)}")
    docs: list[ToolDoc] = []
    for i, item in enumerate(value):
        where = f"{side}[{i}]"
        if not _is_mapping(item):
            raise ParseError(f"{where} must be a tool definition, not {shown(item)}")
        declarations = item.get("functionDeclarations", item.get("function_declarations"))
        if type(declarations) is list:  # Gemini: a tool of several functions
            docs.extend(read_tools(declarations, f"{where}.functionDeclarations"))
            continue
        function = item.get("function")
        doc = function if _is_mapping(function) else item
        name = doc.get("name")
        if not isinstance(name, str):
            raise ParseError(f"{where}: a tool definition needs a name, not {shown(name)}")
        schema = doc.get("parameters", doc.get("input_schema", {})) or {}
        if not _is_mapping(schema):
            raise ParseError(f"{where} ({name!r}): its parameters must be an object schema")
        properties = schema.get("properties", {}) or {}
        required = schema.get("required", []) or []
        if (
            not _is_mapping(properties)
            or type(required) is not list
            or not all(isinstance(item, str) for item in required)
        ):
            raise ParseError(
                f"{where} ({name!r}): parameters.properties must be an object and "
                f"parameters.required a list of names"
            )
        docs.append(ToolDoc(name, dict(properties), tuple(required), dict(doc)))
    return tuple(docs)
