"""The record setting's ``scrub=`` inside an agent's answer: the JSON its last assistant
message writes as text.

An agent's output (a reply, or a whole run: ``{"messages": [...], "state": ...}``) holds its
answer as text: a string ``content``, or the text blocks or parts of its last assistant
message. A scrub path walks the output's structure and cannot reach the fields of that text
by itself, where the comparison reads them (``ignore`` reads the answer's fields): a recording
would keep their values, and each re-record rewrite it. So the answer is read as the door reads
it (its places from the one reader of vendor messages, ``answer_places``), the paths that name the answer's fields (``ignore``'s split of a run: ``state.`` names
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
    from ..engine.reading.agent_messages import answer_places, read_messages
    from ..engine.reading.parse import parse_actual

    if is_run:
        if not (isinstance(output, dict) and type(output.get("messages")) is list):
            return None
        output = {"messages": output["messages"]}  # (its state holds no message)
    try:
        places = answer_places(output)
        answer = [m.answer for m in read_messages(output) if m.answer is not None]
    except JsonMatchError:
        return None  # (scoring names what cannot be read)
    holders = [(holder, key) for holder, key in places if isinstance(holder, dict)]
    if not holders or not answer or "\n".join(str(h[k]) for h, k in holders) != answer[-1]:
        return None  # (no text answer, or pieces not found as read: left as it is)
    try:
        value = parse_actual(answer[-1], allow_array=True)
    except JsonMatchError:
        return None  # (text that holds no JSON: nothing a path can name)
    return AnswerText(holders, value)


def answer_paths(paths: tuple[PathPattern, ...], output: object) -> tuple[PathPattern, ...]:
    """The scrub ``paths`` that name an agent answer's fields, each relative to the answer,
    as a run's ``ignore`` sends them (run_paths.py)."""
    from ..engine.agents.run_paths import split_paths

    has_state = isinstance(output, Mapping) and output.get("state") is not None
    parts = frozenset({"run", "state"} if has_state else {"run"})
    named = split_paths({"ignore": [p.text for p in paths]}, parts).answer.get("ignore", [])
    assert isinstance(named, list)
    return tuple(PathPattern(text) for text in named)
