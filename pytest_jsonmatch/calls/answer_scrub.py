"""The record setting's ``scrub=`` inside an agent's answer: the JSON its last assistant
message writes as text.

An agent's output (a reply, or a whole run: ``{"messages": [...], "state": ...}``) holds its
answer as text: a string ``content``, or the text blocks or parts of its last assistant
message. A scrub path walks the output's structure, so it never reached the fields of that
text: the comparison left them out (``ignore`` reads the answer's fields), but the recording
kept their values, and each re-record rewrote it. Here the answer is read as the door reads
it, the paths that name the answer's fields (``ignore``'s split of a run: ``state.`` names
the end state, ``run[...]`` the trajectory, every other path the answer, ``**.`` both) are
applied to it, and where they replaced a value the answer's text is written back as that JSON
(the prose around it, if any, is not kept: the value scored is the same). The fields a
``/REGEX/`` replaced whole in the answer are found the same way, for the comparison to leave
out (stable_form.py's ``Scrub.ignored``).
"""

from __future__ import annotations

from collections.abc import Mapping

from ..engine.core.errors import JsonMatchError
from ..engine.core.paths import PathPattern

# the roles and item types whose text is an assistant's answer (agent_messages.py's reading)
_TEXT_TYPES = frozenset({"text", "output_text"})


class AnswerText:
    """Where the answer of an agent's ``output`` is written: the objects and keys holding its
    text pieces, in order, and the JSON value the door reads from it (None: the output wrote
    no answer, or none that holds JSON)."""

    __slots__ = ("holders", "value")

    def __init__(self, holders: list[tuple[dict[str, object], str]], value: object) -> None:
        self.holders, self.value = holders, value

    def write(self, value: object) -> None:
        """Write ``value`` as the answer's text: its JSON in the first piece, the others
        emptied (their texts are joined with line breaks into the answer)."""
        from ..engine.core.depth import deep_dumps

        text = deep_dumps(value, ensure_ascii=False, separators=(", ", ": "))
        for index, (holder, key) in enumerate(self.holders):
            holder[key] = text if index == 0 else ""


def answer_text(output: object, is_run: bool) -> AnswerText | None:
    """The answer of an agent's ``output`` (a run's JSON form, or a reply), located in that
    very structure so that it can be written back; None where there is none to read."""
    from ..engine.reading.agent_messages import ASSISTANT, read_messages
    from ..engine.reading.parse import parse_actual

    if is_run:
        if not (isinstance(output, dict) and type(output.get("messages")) is list):
            return None
        items: list[object] = output["messages"]
        read_from: object = {"messages": items}
    else:
        items = output if type(output) is list else [output]
        read_from = output
    try:
        messages = read_messages(read_from, "actual")
    except JsonMatchError:
        return None  # (scoring names what cannot be read)
    replies = [m for m in messages if m.role == ASSISTANT and m.answer is not None]
    if not replies or not isinstance(replies[-1].answer, str):
        return None
    last = replies[-1]
    later = [m.item for m in messages if m.item > last.item]
    holders: list[tuple[dict[str, object], str]] = []
    for item in items[last.item : later[0] if later else len(items)]:
        holders += _text_holders(item)
    if "\n".join(str(h[k]) for h, k in holders) != last.answer:
        return None  # (a shape whose pieces are not found as read: left as it is)
    try:
        value = parse_actual(last.answer, allow_array=True)
    except JsonMatchError:
        return None  # (text that holds no JSON: nothing a path can name)
    return AnswerText(holders, value)


def _text_holders(item: object) -> list[tuple[dict[str, object], str]]:
    """The places in ``item`` (a message, a piece of one, or a response holding one) whose
    text the answer is read from, in document order, as agent_messages.py reads them: a
    string ``content``, or the ``text`` of a text block or part (not a Gemini thought). A
    call's arguments are never entered."""
    if type(item) is list:
        return [found for element in item for found in _text_holders(element)]
    if type(item) is not dict:
        return []
    for key in ("choices", "candidates"):  # a response: its first choice, as it is read
        listed = item.get(key)
        if type(listed) is list and listed:
            return _text_holders(listed[0])
    for key in ("message", "output"):
        if type(item.get(key)) in (dict, list):
            return _text_holders(item[key])
    if _is_text_block(item):  # a bare piece of a turn (a Responses output_text item)
        return [(item, "text")]
    blocks = item.get("parts", item.get("content"))
    if type(blocks) is dict:  # a Gemini candidate's content
        return _text_holders(blocks)
    if type(blocks) is list:
        return [(b, "text") for b in blocks if type(b) is dict and _is_text_block(b)]
    return [(item, "content")] if isinstance(blocks, str) else []


def _is_text_block(block: dict[str, object]) -> bool:
    return (
        isinstance(block.get("text"), str)
        and block.get("type", "text") in _TEXT_TYPES
        and block.get("thought") is not True
    )


def answer_paths(paths: tuple[PathPattern, ...], output: object) -> tuple[PathPattern, ...]:
    """The scrub ``paths`` that name an agent answer's fields, each relative to the answer,
    as a run's ``ignore`` sends them (run_paths.py)."""
    from ..engine.agents.run_paths import split_paths

    has_state = isinstance(output, Mapping) and output.get("state") is not None
    parts = frozenset({"run", "state"} if has_state else {"run"})
    named = split_paths({"ignore": [p.text for p in paths]}, parts).answer.get("ignore", [])
    assert isinstance(named, list)
    return tuple(PathPattern(text) for text in named)
