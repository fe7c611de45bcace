"""Every vendor's words stand in one table (``agent_messages.VOCABULARIES``), and the reader
and the record setting's scrub of call ids read only what it gives: each word of each entry
is read here as its entry says, so that a vendor added to the table is held by these tests
at once (and by one test of its own shapes beside them)."""

from __future__ import annotations

import pytest

from pytest_jsonmatch.calls.stable_form import stable_form
from pytest_jsonmatch.engine.reading.agent_messages import (
    ASSISTANT,
    ID_KEYS,
    TOOL,
    VOCABULARIES,
    Conversation,
    read_messages,
)

WORDS = [
    (vocabulary.vendor, field, word)
    for vocabulary in VOCABULARIES
    for field in ("calls", "results", "texts", "call_keys", "result_keys")
    for word in getattr(vocabulary, field)
]


def test_the_table_names_the_five_vendors_the_docs_name():
    assert [v.vendor for v in VOCABULARIES] == [
        "OpenAI chat",
        "OpenAI Responses",
        "Anthropic",
        "Gemini",
        "LangChain",
    ]


@pytest.mark.parametrize(("vendor", "field", "word"), WORDS)
def test_each_word_is_read_as_its_entry_says(vendor: str, field: str, word: str):
    vocabulary = next(v for v in VOCABULARIES if v.vendor == vendor)
    key = vocabulary.arguments[0] if vocabulary.arguments else "arguments"
    if field == "calls":
        item: dict[str, object] = {"type": word, "name": "f", key: {"x": 1}}
        if word == "function":  # (a chat call: its function object holds name and arguments)
            item = {"type": word, "id": "c1", "function": {"name": "f", key: '{"x": 1}'}}
        (message,) = read_messages([item])
        assert message.role == ASSISTANT
        assert [(c.name, c.arguments) for c in message.calls] == [("f", {"x": 1})]
    elif field == "call_keys":
        call = {word: {"name": "f", key: {"x": 1}}}
        # (Gemini's call is a part of a content; OpenAI's legacy one, the message's own key)
        message_of = {"role": "model", "parts": [call]} if vendor == "Gemini" else call
        (message,) = read_messages([{"role": "assistant", **message_of}])
        assert [(c.name, c.arguments) for c in message.calls] == [("f", {"x": 1})]
    elif field == "results":
        held = "output" if word == "function_call_output" else "content"
        (message,) = read_messages([{"type": word, held: "done"}])
        assert (message.role, message.result) == (TOOL, "done")
    elif field == "result_keys":
        part = {word: {"name": "f", "response": {"ok": 1}}}
        (message,) = read_messages([{"role": "user", "parts": [part]}])
        assert (message.role, message.result) == (TOOL, {"ok": 1})
    else:  # a text block: the answer
        (message,) = read_messages(
            [{"role": "assistant", "content": [{"type": word, "text": "hi"}]}]
        )
        assert message.answer == "hi"


@pytest.mark.parametrize(
    ("name", "role"), [(n, r) for v in VOCABULARIES for n, r in v.roles.items()]
)
def test_each_role_name_is_read_as_openais(name: str, role: str):
    (message,) = read_messages([{"role": name, "content": "x"}])
    assert message.role == role


@pytest.mark.parametrize(("of_type", "key"), ID_KEYS)
def test_each_id_key_is_numbered_by_the_record_settings_scrub(of_type: str | None, key: str):
    # (a recording's stable form renames each call id by its order: the same id, the same)
    item: dict[str, object] = {key: "call_Zx81", "type": of_type or "message"}
    if of_type == "function":
        item["function"] = {"name": "f", "arguments": "{}"}
    stable = stable_form({"messages": [item, dict(item)]}, agent="run")
    ids = [message[key] for message in stable["messages"]]  # type: ignore[index]
    assert ids == ["call_1", "call_1"]


def test_a_conversation_is_read_once_and_given_back_as_it_is():
    read = read_messages([{"role": "user", "content": "hi"}, {"role": "tool", "content": "r"}])
    conversation = Conversation(tuple(read))
    assert read_messages(conversation) == read
    assert conversation.results == ("r",) and conversation.answer is None


@pytest.mark.parametrize(
    ("message", "result"),
    [
        ({"role": "tool", "tool_call_id": "c1", "content": '{"ok": 1}'}, '{"ok": 1}'),  # OpenAI
        ({"type": "tool", "content": "done", "tool_call_id": "c1"}, "done"),  # LangChain
        ({"result": {"rows": 2}}, {"rows": 2}),  # a plain step
        ({"type": "function_call_output", "call_id": "c1", "output": "7"}, "7"),  # Responses
        (  # Anthropic: one user message of two results, both kept, in order
            {
                "role": "user",
                "content": [
                    {"type": "tool_result", "tool_use_id": "a", "content": "first"},
                    {"type": "tool_result", "tool_use_id": "b", "content": "second"},
                ],
            },
            ["first", "second"],
        ),
        (  # Gemini: a content of one functionResponse part
            {"role": "user", "parts": [{"functionResponse": {"name": "f", "response": {"t": 1}}}]},
            {"t": 1},
        ),
    ],
)
def test_each_vendors_tool_result_is_kept_as_the_tool_gave_it(message: dict, result: object):
    (read,) = read_messages([message])
    assert read.role == TOOL and read.result == result
    assert Conversation((read,)).results == (result,)
