"""An agent's reply taken apart: the message its tool calls are read from, and its answer.

A reply comes in a vendor's shape: an assistant chat message (as ``TargetResult.answer()``
builds it, or the ``openai`` client's message object), a chat-completions response, an
Anthropic message (``text`` and ``tool_use`` blocks), an OpenAI Responses output (``message``
and ``function_call`` items, or the response holding them), a Gemini response or content.
The calls are the tool_calls package's to read (``read_calls``) from the whole reply; the
answer is what the model wrote as content: a JSON value given as it is (a target that
returned ``TargetResult({...}, tool_calls=...)``), else the text of its text blocks, which
the answer's metric parses leniently as any answer. Blocks that are no text (calls,
reasoning, refusals) are never part of the answer, and text is never read as a call.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import NamedTuple

from ..core.errors import ParseError, shown
from ..core.values import JsonValue
from ..reading.intake import as_data, read_json
from ..reading.parse import parse_actual

# the types of a content block, part or output item whose ``text`` is the model's answer
_TEXT_TYPES = frozenset({"text", "output_text"})
# the keys that make an object a message (or Gemini content) rather than an answer
_MESSAGE_KEYS = ("role", "tool_calls", "content", "parts")


class ReplyParts(NamedTuple):
    """A reply read: ``message``, the whole reply as plain JSON (its calls are read from it);
    ``answer``, the answer's JSON value, its text (to be parsed), or None where the model
    wrote none."""

    message: JsonValue
    answer: JsonValue | None


def reply_parts(actual: object, side: str = "actual") -> ReplyParts:
    """``actual`` read as an agent's reply (ParseError naming what it is where it is none):
    JSON text holding a reply is read first, leniently."""
    value = as_data(actual, side)
    if isinstance(value, (str, bytes, bytearray)):
        value = parse_actual(value, allow_array=True)
    message, _ = read_json(value, side)
    return ReplyParts(message, _answer_of(message, side))


def _answer_of(reply: JsonValue, side: str) -> JsonValue | None:
    """The answer a reply holds, by its shape."""
    if type(reply) is list:  # a Responses output's items (or a message's content blocks)
        return _joined(_item_texts(reply))
    if not isinstance(reply, Mapping):
        raise _not_a_reply(reply, side)
    choices = reply.get("choices")
    if type(choices) is list:  # a chat-completions response: its first choice's message
        first = choices[0] if choices else None
        message = first.get("message") if isinstance(first, Mapping) else None
        return None if message is None else _answer_of(message, side)
    candidates = reply.get("candidates")
    if type(candidates) is list:  # a Gemini response: its first candidate's content
        first = candidates[0] if candidates else None
        content = first.get("content") if isinstance(first, Mapping) else None
        return None if content is None else _answer_of(content, side)
    output = reply.get("output")
    if type(output) is list:  # a Responses response
        return _joined(_item_texts(output))
    if not any(key in reply for key in _MESSAGE_KEYS):
        raise _not_a_reply(reply, side)
    return _content_answer(reply.get("content", reply.get("parts")))


def _content_answer(content: JsonValue | None) -> JsonValue | None:
    """A message's answer: its content as a JSON value, or the text of its blocks."""
    if content is None or isinstance(content, Mapping):
        return content
    if type(content) is list:
        if content and all(isinstance(b, Mapping) and _is_block(b) for b in content):
            return _joined(_block_texts(content))
        return content  # a JSON array given as the answer itself
    if isinstance(content, str):
        return content if content.strip() else None
    return content


def _is_block(block: Mapping[str, JsonValue]) -> bool:
    """Whether an item of a message's content is a block (typed, or a Gemini part)."""
    return "type" in block or "text" in block or "functionCall" in block


def _block_texts(blocks: list[JsonValue]) -> list[str]:
    """The texts of the text blocks among ``blocks`` (a Gemini part marked as a thought is
    not the answer)."""
    texts = []
    for block in blocks:
        if not isinstance(block, Mapping) or block.get("thought") is True:
            continue
        text = block.get("text")
        kind = block.get("type", "text")
        if isinstance(text, str) and kind in _TEXT_TYPES:
            texts.append(text)
    return texts


def _item_texts(items: list[JsonValue]) -> list[str]:
    """The texts of a Responses output's message items (or of content blocks given bare)."""
    texts: list[str] = []
    for item in items:
        if not isinstance(item, Mapping):
            continue
        content = item.get("content")
        if item.get("type") == "message" and type(content) is list:
            texts += _block_texts(content)
        elif item.get("type") in _TEXT_TYPES:
            texts += _block_texts([item])
    return texts


def _joined(texts: list[str]) -> str | None:
    text = "\n".join(texts)
    return text if text.strip() else None


def _not_a_reply(value: object, side: str) -> ParseError:
    error = ParseError(
        f"{side} is not an agent's reply: {shown(value)}; give the assistant message "
        f"(role, content, tool_calls), a chat-completions response, an Anthropic message, "
        f"or a Responses output"
    )
    error.side = "actual"
    return error


def answer_of(actual: object) -> JsonValue:
    """The answer of a reply, as an expected value is written from it (an update of a golden
    case): its JSON value or text (parsed as an answer is), ``{}`` where it wrote none."""
    answer = reply_parts(actual).answer
    return {} if answer is None else answer
