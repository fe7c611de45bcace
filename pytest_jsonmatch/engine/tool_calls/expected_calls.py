"""The expected side of the ``tool_calls`` metric: calls, BFCL's possible answers, tools.

The expected calls are calls in any form the agent reader takes (engine/reading/
agent_messages.py), or BFCL's possible answers (each argument a list of acceptable values,
``""`` meaning it may be left out), with or without the tools: ``{"calls": [...]}`` or
``{"possible_answer": [...]}`` (``ground_truth`` as BFCL names it), beside ``"tools"``
(``"function"`` as BFCL names it). Tools are OpenAI, Anthropic or Gemini tool definitions or
BFCL's function documents, read into :class:`ToolDoc`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import NamedTuple

from ..core.errors import ParseError, shown
from ..core.values import JsonObject, JsonValue
from ..reading.agent_messages import read_calls
from .plain_calls import plain_items


class ToolDoc(NamedTuple):
    """A tool's declaration: its name, each parameter's schema (JSON Schema, or BFCL's
    types), the required ones, and the declaration as given (BFCL's rules read it)."""

    name: str
    properties: JsonObject
    required: tuple[str, ...]
    doc: JsonObject


class ExpectedCall(NamedTuple):
    """One expected call: each argument's acceptable values, the arguments that may be left
    out, and BFCL's possible answer's arguments as written (``given``; None for a call read
    as a plain call, whose possible answer its acceptable values are: :attr:`possible`)."""

    name: str
    accepted: dict[str, tuple[JsonValue, ...]]
    optional: frozenset[str] = frozenset()
    given: dict[str, list[JsonValue]] | None = None

    @property
    def arguments(self) -> JsonObject:
        """Each argument's acceptable values as a list: what a check against this call
        compares, as the pairing weighs it (pairing/pair_budget.py)."""
        return {arg: list(values) for arg, values in self.accepted.items()}

    @property
    def possible(self) -> dict[str, dict[str, list[JsonValue]]]:
        """BFCL's possible-answer form of the call, ``{name: {arg: [values]}}`` (made when
        read: only BFCL's rules read it)."""
        given = self.given
        if given is None:
            given = {arg: list(values) for arg, values in self.accepted.items()}
        return {self.name: given}


class ExpectedCalls(NamedTuple):
    """The expected side: its calls and, where given, the tools they are made with."""

    calls: tuple[ExpectedCall, ...]
    tools: tuple[ToolDoc, ...] | None


def read_expected_calls(value: object, side: str = "expected") -> ExpectedCalls:
    """The expected side: calls in any form or BFCL's possible answers, and the tools where
    given (ParseError naming what is malformed); read already (an agent case's scorer reads
    them once), as they are."""
    if type(value) is ExpectedCalls:
        return value
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
    items = plain_items(value)
    if items is not None:  # (each call made from its item at once, as read below)
        make = tuple.__new__
        none: frozenset[str] = frozenset()
        calls = tuple(
            make(
                ExpectedCall, (c["name"], {a: (v,) for a, v in c["arguments"].items()}, none, None)
            )
            for c in items
        )
    else:
        calls = tuple(
            ExpectedCall(call.name, {arg: (v,) for arg, v in call.arguments.items()})
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
        calls.append(ExpectedCall(name, accepted, frozenset(optional), dict(arguments)))
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
