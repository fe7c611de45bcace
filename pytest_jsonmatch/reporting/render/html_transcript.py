"""A conversation on the HTML page, turn by turn: its transcript as the page data holds it
(:func:`transcript_of`, read from a comparison's kept output) and the script and CSS that
show it (:data:`TRANSCRIPT_SCRIPT`, part of html_script.py's, :data:`TRANSCRIPT_CSS`).

A conversation case's comparison (its parts each a turn's, engine/agents/
conversation_scoring.py) keeps the whole conversation as its output, one run's JSON form. Read
once (``read_run``, any vendor's messages) and cut at each user message (``turns_of``), each
turn is a block headed ``turn k`` (numbered from 0, as its rows' ``turns[k]``): the user's
message, then the agent's messages (its text, each tool call with its arguments, each tool's
result, each shortened to :data:`SAID_LIMIT` characters), beside that turn's field rows; the
first turn with a row that is neither a match nor skipped is boxed and labelled "first failing
turn"; the end state's rows follow the last turn. An output kept cut short (values kept
``short``) is read as far as it goes, closed where it was cut: the turns past the cut say
so. An output that cannot be read as a conversation, or rows that are not each a turn's or
the state's in order, give no transcript: the page shows the output and the one field table,
as for any case. Every text is data, set on the page as text (``textContent``).

The page data's ``transcript`` (html_cases.py): ``[lead, turns, state, first, cut]``: ``lead``
the messages before the first user message (a system prompt), ``turns`` each ``[user, said,
start, end]`` (``user`` the user's message, None for a turn the output does not hold;
``said`` the agent's messages; its rows ``start`` to ``end`` of the comparison's), ``state``
its rows ``[start, end]`` (0: none), ``first`` the first failing turn (-1: none), ``cut`` 1
where the output was kept cut short. A message is ``[kind, name, text, cut]``: kind ``user``,
``assistant`` (its text), ``call`` (``name`` the function, ``text`` its arguments),
``result``, or ``other`` (``name`` its role); ``cut`` 1 where its text was shortened.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import TYPE_CHECKING, cast

from ...engine.results.field_results import MATCH, SKIPPED
from ..run_model.report_types import ComparisonDict, FieldDict

if TYPE_CHECKING:
    from ...engine.reading.agent_messages import Conversation, Message

SAID_LIMIT = 600  # the most characters of one message the transcript shows
TURN_ROW = re.compile(r"turns\[(\d+)\](?=$|[.\[])")  # a turn's row: ``turns[k]...``
_FINE = frozenset({MATCH, SKIPPED})  # the rows that do not fail a turn
_CUT_MARK = "..."  # what ends an output a report kept cut short (shown_values.py)

Item = list[object]  # a message as the page data holds it: [kind, name, text, cut]


def transcript_of(run: ComparisonDict) -> list[object] | None:
    """The transcript of a conversation's comparison as the page data holds it, or None
    where it is no conversation's (no part of it is a turn's), keeps no output, or its
    output or rows cannot be read turn by turn."""
    output = run.get("output")
    talk = any("turn" in part for part in run.get("parts", ()))  # (a conversation's parts)
    if not talk or output is None or run["status"] == "error":
        return None
    cut = bool(run.get("output_cut"))
    read = _read(output, cut)
    groups = _row_groups(run["fields"])
    if read is None or groups is None:
        return None
    raw, conversation, partway = read
    ranges, state = groups
    from ...engine.agents.conversation_scoring import turns_of

    turns = turns_of(conversation)
    if not turns:
        return None
    first_user = turns[0].messages[0].item
    lead = [i for m in conversation.messages if m.item < first_user for i in _items(m, raw)]
    shown: list[list[object]] = []
    for k in range(max(len(turns), max(ranges, default=-1) + 1)):
        start, end = ranges.get(k, (0, 0))
        if k < len(turns):
            user, *said = turns[k].messages
            items = [i for m in said for i in _items(m, raw)]
            shown.append([["user", "", *_short(_text(raw, user.item))], items, start, end])
        else:
            shown.append([None, [], start, end])
    if partway:  # the last message, written partway where the output was cut: shortened
        last = shown[len(turns) - 1]
        said_last = cast("list[Item]", last[1]) or [cast("Item", last[0])]
        said_last[-1][3] = 1
    first = _first_failing(run["fields"], ranges)
    return [lead, shown, list(state) if state else 0, first, 1 if cut else 0]


def _read(output: object, cut: bool) -> tuple[list[object], Conversation, bool] | None:
    """The output's raw messages, its Conversation and whether its last message is one
    written partway, or None where it is no conversation. An output kept cut short is closed
    where it was cut: its last message is cut where the cut fell among the messages (the
    last key it holds), and dropped where it cannot be read so."""
    from ...engine.agents.agent_run import read_run
    from ...engine.reading.agent_messages import agent_data

    try:
        if cut:
            from ...engine.reading.truncation import close_truncated

            if not isinstance(output, str) or not output.endswith(_CUT_MARK):
                return None
            output = json.loads(close_truncated(output[: -len(_CUT_MARK)]))
        value = agent_data(output, "output")
    except Exception:  # noqa: BLE001 - a page is written whatever an output holds
        return None
    raw = value.get("messages") if isinstance(value, dict) else value
    if type(raw) is not list:
        return None
    partway = cut and (not isinstance(value, dict) or list(value)[-1] == "messages")
    for held in (raw, raw[:-1]) if partway and raw else (raw,):
        try:
            return held, read_run({"messages": held}), partway and held is raw
        except Exception:  # noqa: BLE001 - (as above)
            continue
    return None


def _row_groups(
    fields: Sequence[FieldDict],
) -> tuple[dict[int, tuple[int, int]], tuple[int, int] | None] | None:
    """Each turn's rows (``turns[k]...``) and the state's (``state...``) as ranges of
    ``fields``; None where a row is neither's or a turn's rows are not together."""
    ranges: dict[int | str, tuple[int, int]] = {}
    last: int | str | None = None
    for k, f in enumerate(fields):
        path = f["path"]
        found = TURN_ROW.match(path)
        if found is not None:
            key: int | str = int(found.group(1))
        elif path.startswith(("state.", "state[", "tau2.", "rubric[")) or path == "state":
            key = "state"  # (the whole conversation's rows: its end state, tau2-bench's, rubric)
        else:
            return None
        if key != last:
            if key in ranges:
                return None
            ranges[key], last = (k, k), key
        ranges[key] = (ranges[key][0], k + 1)
    state = ranges.pop("state", None)
    return {int(k): r for k, r in ranges.items()}, state


def _first_failing(fields: Sequence[FieldDict], ranges: dict[int, tuple[int, int]]) -> int:
    """The first turn with a row that is neither a match nor skipped (-1: none)."""
    failing = (
        k
        for k in sorted(ranges)
        if any(f["status"] not in _FINE for f in fields[ranges[k][0] : ranges[k][1]])
    )
    return next(failing, -1)


def _short(value: object) -> tuple[str, int]:
    """A value as the transcript shows it (text as it is, JSON as compact text), cut to
    :data:`SAID_LIMIT` characters; and 1 where it was cut."""
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    if len(text) > SAID_LIMIT:
        return text[:SAID_LIMIT], 1
    return text, 0


def _items(message: Message, raw: list[object]) -> list[Item]:
    """One message as page data: an assistant's its text, then each call (one item each); a
    tool's its result; any other (a system prompt) its text, named by its role."""
    if message.role == "assistant":  # (the roles by OpenAI's names, as a Message has them)
        said: list[Item] = []
        if message.answer is not None:
            said.append(["assistant", "", *_short(message.answer)])
        return said + [["call", call.name, *_short(call.arguments)] for call in message.calls]
    if message.role == "tool":
        return [["result", "", *_short(message.result)]]
    return [["other", message.role, *_short(_text(raw, message.item))]]


def _text(raw: list[object], index: int) -> object:
    """What a raw message (a user's, a system prompt) says: its content's text, its text
    blocks' or parts' texts one a line, else its content (shown as compact JSON)."""
    message = raw[index] if 0 <= index < len(raw) else None
    if not isinstance(message, dict):
        return message
    content = message.get("content", message.get("parts"))
    if isinstance(content, list):
        texts = [
            b["text"] for b in content if isinstance(b, dict) and isinstance(b.get("text"), str)
        ]
        if texts:
            return "\n".join(texts)
    return content


TRANSCRIPT_CSS = """
.transcript { margin: 6px 0; }
.turn { border: 1px solid var(--line); border-radius: 6px; margin: 8px 0; padding: 4px 10px 8px; }
.turn.first-failing { outline: 3px solid #cf222e; outline-offset: 1px; border-color: #cf222e; }
.turn > h4 { margin: 4px 0; }
.turn .badge.first-failing { margin-left: 8px; }
.turn-cols { display: flex; gap: 16px; flex-wrap: wrap; align-items: flex-start; }
.turn-cols > .said { flex: 1 1 320px; min-width: 0; }
.turn-cols > .turn-rows { flex: 2 1 420px; min-width: 0; overflow-x: auto; }
.said .msg { border-left: 3px solid var(--line); padding: 2px 8px; margin: 4px 0; }
.said .msg.user { border-left-color: #0969da; } .said .msg.call { border-left-color: #8250df; }
.said .msg.result { border-left-color: #9a6700; } .said .msg.assistant { border-left-color: #1a7f37; }
.said .who { color: var(--muted); font-size: 12px; display: block; }
"""

# The transcript's part of the page's script (html_script.py puts it inside its own, where
# node, badge and fieldTable are): a conversation's turns, each its messages beside its rows.
TRANSCRIPT_SCRIPT = r"""
  // A conversation (the page data's "transcript", html_transcript.py) turn by turn: each
  // turn's messages beside its rows (rows: the comparison's field rows, in order), the first
  // failing turn boxed, the end state's rows after the last turn.
  function transcriptOf(t, rows, body) {
    var box = node("div", "transcript");
    if (t[4]) {
      box.appendChild(node("p", "muted", "The report kept the output cut short: the " +
        "transcript ends where it was cut."));
    }
    if (t[0].length) { box.appendChild(turnBlock("before the first turn", t[0], [], "lead")); }
    t[1].forEach(function (turn, k) {
      var said = turn[0] ? [turn[0]].concat(turn[1]) : null;
      var block = turnBlock("turn " + k, said, rows.slice(turn[2], turn[3]),
        k === t[3] ? "first-failing" : "", t[4]);
      block.setAttribute("data-turn", String(k));
      box.appendChild(block);
    });
    if (t[2]) {
      var state = node("section", "turn state");
      var after = rows.slice(t[2][0], t[2][1]);
      var whole = after.some(function (tr) {
        var cell = tr.querySelector("td.path");
        return cell !== null && (cell.textContent.indexOf("tau2.") === 0 ||
          cell.textContent.indexOf("rubric[") === 0);
      });
      state.appendChild(node("h4", "", whole ? "after the last turn: the whole " +
        "conversation's rows (end state, tau2-bench's verdict, rubric)" : "end state"));
      state.appendChild(fieldTable(after));
      box.appendChild(state);
    }
    body.appendChild(box);
  }
  function turnBlock(title, said, rows, mark, cut) {
    var who = {user: "user", assistant: "assistant", call: "calls ", result: "tool result"};
    var block = node("section", "turn" + (mark ? " " + mark : ""));
    var head = node("h4", "", title);
    if (mark === "first-failing") {
      head.appendChild(badge("failed first-failing", "", "first failing turn"));
    }
    block.appendChild(head);
    var cols = node("div", "turn-cols"), left = node("div", "said");
    if (said === null) {
      left.appendChild(node("p", "missing", cut ? "past where the report cut the output" :
        "the conversation never reached this turn"));
    }
    (said || []).forEach(function (m) {
      var d = node("div", "msg " + m[0]);
      d.appendChild(node("span", "who", m[0] === "other" ? m[1] :
        who[m[0]] + (m[0] === "call" ? m[1] : "")));
      d.appendChild(node("pre", "value" + (m[3] ? " cut" : ""), m[2]));
      left.appendChild(d);
    });
    cols.appendChild(left);
    if (mark !== "lead") {
      var right = node("div", "turn-rows");
      right.appendChild(rows.length ? fieldTable(rows) :
        node("p", "muted", "nothing expected of this turn"));
      cols.appendChild(right);
    }
    block.appendChild(cols);
    return block;
  }
"""
