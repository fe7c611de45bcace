"""A tool-only reply: ``match_reply`` with no expected answer (``expected=None``) scores the
reply's calls alone, as the ``tool_calls`` metric scores them; its answer, text or none, is
never read. ``expected={}`` keeps its meaning: the answer must be an empty object, a row of
its own (docs/metrics.md, "An agent's reply: answer and calls"). Scores worked by hand."""

from __future__ import annotations

import json

import pytest

from pytest_jsonmatch import ParseError, TargetResult, match_json, match_reply

CANCEL = [{"name": "cancel_booking", "arguments": {"pnr": "JKL012"}}]


def _reply(text: str | None, name: str, arguments: dict) -> object:
    call = {
        "id": "c1",
        "type": "function",
        "function": {"name": name, "arguments": json.dumps(arguments)},
    }
    return TargetResult(text, tool_calls=[call]).answer()


def _rows(result) -> list[tuple[str, str]]:
    return [(f.path, f.status) for f in result.fields]


WRONG = _reply(None, "book_flight", {"flight": "SK1"})


def test_a_tool_only_reply_whose_only_call_is_wrong_scores_0():
    result = match_reply(WRONG, None, CANCEL)
    # the calls' rows alone: the expected cancel_booking against the call of book_flight, its
    # name mismatched, its pnr omitted, the call's own flight invented: no row right, so
    # TP = 0: precision = recall = F1 = 0, and the calls' part is the whole score
    assert _rows(result) == [
        ("cancel_booking", "mismatch"),
        ("cancel_booking.pnr", "omission"),
        ("book_flight.flight", "hallucination"),
    ]
    assert (result.score, result.precision, result.recall) == (0.0, 0.0, 0.0)
    assert result.metric == "tool_calls"
    # exactly what the tool_calls metric makes of the reply's calls
    alone = match_json(WRONG, {"calls": CANCEL}, metric="tool_calls")
    assert (alone.score, alone.fields) == (result.score, result.fields)


def test_expected_empty_keeps_its_row_an_empty_answer():
    # expected {}: the answer must be empty; the reply wrote none, so its one row ($, the
    # empty object) matches: (1 * 1 + 3 * 0) / 4 = 1/4
    result = match_reply(WRONG, {}, CANCEL)
    assert _rows(result)[0] == ("", "match")
    assert result.score == pytest.approx(1 / 4)
    assert result.metric == "field_f1+tool_calls"


def test_a_tool_only_reply_never_reads_its_text():
    chatty = _reply("Sure, cancelling JKL012 now.", "cancel_booking", {"pnr": "JKL012"})
    # the name and pnr match: 2 rows, F1 1
    assert match_reply(chatty, None, CANCEL).score == 1.0
    # an expected answer would read the text, which holds no JSON
    with pytest.raises(ParseError, match="no JSON object found in actual answer"):
        match_reply(chatty, {}, CANCEL)


def test_a_tool_only_reply_that_must_call_nothing():
    answered = TargetResult('{"status": "ok"}', tool_calls=None).answer()
    # [] met by no call: no row counts, so 1.0; met by a call, its 2 rows are invented: 0
    assert match_reply(answered, None, []).score == 1.0
    assert match_reply(WRONG, None, []).score == 0.0
