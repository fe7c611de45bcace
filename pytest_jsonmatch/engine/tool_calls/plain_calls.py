"""Calls given in the plain form, read in one pass: the form a test or a dataset writes most.

``[{"name": ..., "arguments": {...}}, ...]``: a list whose every item is an object of exactly
those two keys, a name that is text and arguments that are an object. The general reader
(``reading/agent_messages.read_calls``) tries every vendor's shape on each item before it
finds a plain call, and builds a message around each call; here the list is checked once
and each call made at once, the same :class:`ToolCall` the general reader makes (its place
``[i]``, no id, status or required status). Anything else, one item in another form
included, is left to the general reader, which reads it or names what is wrong.
"""

from __future__ import annotations

from typing import TypedDict, cast

from ..core.values import JsonObject
from ..reading.agent_messages import ToolCall, read_calls


class PlainCall(TypedDict):
    """One call in the plain form, as :func:`plain_items` has checked it."""

    name: str
    arguments: JsonObject


_PLAIN_KEYS = frozenset(PlainCall.__annotations__)


def plain_items(value: object) -> list[PlainCall] | None:
    """``value`` itself when it is a list of plain calls, else None."""
    if type(value) is not list:
        return None
    keys = _PLAIN_KEYS
    for item in value:
        if type(item) is not dict or item.keys() != keys:
            return None
        if type(item["name"]) is not str or type(item["arguments"]) is not dict:
            return None
    return cast(list[PlainCall], value)


def calls_read(value: object, side: str) -> list[ToolCall]:
    """Every tool call in ``value``, in order, as ``read_calls`` reads them (``side`` names
    ``value`` in its errors)."""
    items = plain_items(value)
    if items is None:
        return read_calls(value, side)
    make = tuple.__new__  # (ToolCall's own __new__ fills its defaults: once per call)
    return [
        make(ToolCall, (item["name"], dict(item["arguments"]), f"[{i}]", None, None, None))
        for i, item in enumerate(items)
    ]
