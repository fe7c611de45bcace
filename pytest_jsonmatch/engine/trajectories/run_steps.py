"""A run of several steps, in any of the shapes agents record it, read into one form.

A trajectory is a list of messages, or an object holding one under ``messages`` (a LangGraph
state, agentevals' form), an OpenAI Responses response (its ``output`` items), or one message
alone. Each message gives one or more steps:

- an assistant message with tool calls (OpenAI chat ``tool_calls``, Anthropic ``tool_use``
  blocks, LangChain ``tool_calls`` of ``{name, args}``): one ``call`` step per call, all in
  the same message;
- an assistant message without calls: the ``answer`` step;
- a ``tool`` message (OpenAI, LangChain), or an Anthropic user message made of
  ``tool_result`` blocks only: one ``result`` step (agentevals reads such a message as one
  tool message, whatever the number of results);
- any other message (user, system): a step of that role;
- OpenAI Responses items: a ``function_call`` item is a call (consecutive ones are one
  message, as the chat form puts parallel calls in one), a ``function_call_output`` a
  result, a ``message`` item a step of its role; reasoning items are passed over;
- a plain step: ``{name, arguments}`` (``args``, ``input``) a call, ``{result: ...}`` (or
  ``tool_result``) a result, ``{answer: ...}`` (or ``final_answer``) the answer.

LangChain's role names are read as OpenAI's (``human`` user, ``ai`` assistant). Only calls
and roles are compared (what agentevals compares); a step's content is never read.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import NamedTuple

from ..core.errors import ParseError, shown
from ..core.paths import index_segment, key_segment
from ..core.values import JsonObject, JsonValue
from ..tool_calls.call_shapes import ToolCall, read_calls

CALL, RESULT, ANSWER, MESSAGE = "call", "result", "answer", "message"

# LangChain's message types and role aliases, as OpenAI roles
_ROLES = {"human": "user", "ai": "assistant", "AIMessageChunk": "assistant"}
_RESULT_KEYS = ("result", "tool_result")
_ANSWER_KEYS = ("answer", "final_answer")


class Step(NamedTuple):
    """One step of a run: its kind (``call``, ``result``, ``answer`` or ``message``), the
    role of its message, a call's function name and arguments (empty for other steps), the
    index of the message it came from, and where it is in the input."""

    kind: str
    role: str
    name: str
    arguments: JsonObject
    message: int
    where: str

    @property
    def label(self) -> str:
        """What the step is, as a failure message shows it: ``call search``, ``tool``."""
        return f"call {self.name}" if self.kind == CALL else self.role


def read_steps(value: object, side: str) -> list[Step]:
    """Every step of the trajectory ``value``, in order (ParseError naming the step and the
    ``side`` when a step cannot be read)."""
    base = ""
    if isinstance(value, Mapping):
        if "messages" in value and "role" not in value:
            value, base = value["messages"], "messages"
        elif type(value.get("output")) is list and "type" not in value:  # a Responses response
            value, base = value["output"], "output"
        elif "role" in value or "type" in value:
            value = [value]
        else:
            raise ParseError(
                f"{side} trajectory: an object must hold its messages under 'messages' (or a "
                f"response's items under 'output') or be one message, not {shown(value)}"
            )
    if type(value) is not list:
        raise ParseError(
            f"{side} trajectory must be a list of messages or steps, not {shown(value)}"
        )
    steps: list[Step] = []
    message = -1
    previous_call_item = False
    for i, item in enumerate(value):
        where = index_segment(base, i)
        if not isinstance(item, Mapping):
            raise ParseError(f"{side} step {where} must be an object, not {shown(item)}")
        call_item = item.get("type") == "function_call"
        if not (call_item and previous_call_item):
            message += 1  # (consecutive Responses calls share one message)
        previous_call_item = call_item
        steps.extend(_message_steps(item, message, where, side))
    return steps


def _message_steps(
    item: Mapping[str, JsonValue], message: int, where: str, side: str
) -> list[Step]:
    kind = item.get("type")
    role = item.get("role")
    if role is None and isinstance(kind, str) and kind not in ("message", "function_call"):
        role = kind  # a LangChain message dict names its role as its type
    if kind == "function_call":
        return [
            _call_step(ToolCall(c.name, c.arguments, where), message)
            for c in read_calls(item, _within(side, where))
        ]
    if kind == "function_call_output":
        return [Step(RESULT, "tool", "", {}, message, where)]
    if kind == "reasoning":
        return []
    if role is None:
        return [_plain_step(item, message, where, side)]
    if not isinstance(role, str):
        raise ParseError(f"{side} step {where}: its role must be text, not {shown(role)}")
    role = _ROLES.get(role, role)
    if role == "assistant" or role == "model":
        calls = _assistant_calls(item, where, side)
        if calls:
            return [_call_step(call, message) for call in calls]
        return [Step(ANSWER, "assistant", "", {}, message, where)]
    if role == "user" and _only_tool_results(item.get("content")):
        return [Step(RESULT, "tool", "", {}, message, where)]
    return [Step(RESULT if role == "tool" else MESSAGE, role, "", {}, message, where)]


def _assistant_calls(item: Mapping[str, JsonValue], where: str, side: str) -> list[ToolCall]:
    """An assistant message's calls: its ``tool_calls`` (OpenAI's, or LangChain's ``{name,
    args}`` marked ``type: tool_call``), or the call blocks of its content (Anthropic)."""
    calls = item.get("tool_calls")
    if calls is not None and type(calls) is not list:
        raise ParseError(
            f"{side} step {where}: its tool_calls must be a list of calls or null (no call), "
            f"not {shown(calls)}"
        )
    if calls:
        found: list[ToolCall] = []
        for j, call in enumerate(calls):
            at = index_segment(key_segment(where, "tool_calls"), j)
            if not isinstance(call, Mapping):
                raise ParseError(f"{side} call at {at} must be an object, not {shown(call)}")
            if call.get("type") == "tool_call":
                call = {key: v for key, v in call.items() if key != "type"}
            found.extend(
                ToolCall(c.name, c.arguments, _joined(at, c.where))
                for c in read_calls(call, _within(side, at))
            )
        return found
    if type(item.get("content")) is list or isinstance(item.get("function_call"), Mapping):
        shape = {key: v for key, v in item.items() if key != "tool_calls"}
        return [
            ToolCall(c.name, c.arguments, _joined(where, c.where))
            for c in read_calls(shape, _within(side, where))
        ]
    return []


def _within(side: str, where: str) -> str:
    """The side as call_shapes names it in errors, with the step the call is in: ``actual
    step [3]`` (its own place follows: ``call at content[1]``)."""
    return f"{side} step {where}"


def _joined(where: str, inner: str) -> str:
    return f"{where}.{inner}" if where and inner else where or inner


def _only_tool_results(content: object) -> bool:
    """Whether an Anthropic user message's content is tool results and no text."""
    if type(content) is not list or not content:
        return False
    kinds = {block.get("type") for block in content if isinstance(block, Mapping)}
    return "tool_result" in kinds and "text" not in kinds


def _plain_step(item: Mapping[str, JsonValue], message: int, where: str, side: str) -> Step:
    if any(key in item for key in _RESULT_KEYS):
        return Step(RESULT, "tool", "", {}, message, where)
    if any(key in item for key in _ANSWER_KEYS):
        return Step(ANSWER, "assistant", "", {}, message, where)
    if "name" in item or "function" in item:
        calls = read_calls(item, _within(side, where))
        if len(calls) == 1:
            return _call_step(ToolCall(calls[0].name, calls[0].arguments, where), message)
    raise ParseError(
        f"{side} step {where} is neither a message (role), a call (name and arguments), a "
        f"tool result (result) nor an answer (answer): {shown(item)}"
    )


def _call_step(call: ToolCall, message: int) -> Step:
    return Step(CALL, "assistant", call.name, call.arguments, message, call.where)


def messages_of(steps: Sequence[Step]) -> list[list[int]]:
    """The indices of the steps of each message, in order."""
    out: list[list[int]] = []
    last = None
    for i, step in enumerate(steps):
        if step.message != last:
            out.append([])
            last = step.message
        out[-1].append(i)
    return out
