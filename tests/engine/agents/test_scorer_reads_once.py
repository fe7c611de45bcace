"""An agent case has one scorer, built once for its settings: each side's messages are read
once (the expected run when the scorer is built, each output once as it is scored), and the
parts are scored from that one reading, through entries the scorer holds, never through
``match_json`` again. Counted here, through the case's own expectations as a golden case and
``assert_json_match`` hold them."""

from __future__ import annotations

import json
from collections import Counter

import pytest

from pytest_jsonmatch import AgentRun, assert_json_match
from pytest_jsonmatch.cases.agent_expectations import PLAIN, AgentExpectations
from pytest_jsonmatch.engine import entry as entry_module
from pytest_jsonmatch.engine import match as match_module
from pytest_jsonmatch.engine.reading import agent_messages


def _call(name: str, **arguments: object) -> dict:
    call = {"id": f"c_{name}", "type": "function", "function": {"name": name, "arguments": ""}}
    call["function"]["arguments"] = json.dumps(arguments)
    return {"role": "assistant", "content": None, "tool_calls": [call]}


MESSAGES = [
    {"role": "user", "content": "Book SK401 on 2 December"},
    _call("book_flight", flight="SK401", date="2026-12-02"),
    {"role": "tool", "tool_call_id": "c_book_flight", "content": '{"pnr": "AB12"}'},
    {"role": "assistant", "content": '{"pnr": "AB12", "status": "booked"}'},
]
STATE = {"bookings": [{"pnr": "AB12", "flight": "SK401"}]}
EXPECTED_RUN = MESSAGES[1:]  # (the run from its first assistant message on, step by step)


@pytest.fixture
def counted(monkeypatch: pytest.MonkeyPatch) -> Counter[str]:
    """How many times each side's messages are read, the engine's public door is entered
    and an entry is built, while the test runs."""
    counts: Counter[str] = Counter()
    read, door, built = agent_messages._read_messages, match_module.match_json, entry_module.Entry

    def reading(value: object, side: str, places: object) -> object:
        counts[f"read {side.split()[0]}"] += 1
        return read(value, side, places)  # type: ignore[arg-type]

    def entering(*args: object, **kwargs: object) -> object:
        counts["match_json"] += 1
        return door(*args, **kwargs)  # type: ignore[arg-type]

    class Counted(built):  # type: ignore[misc, valid-type]
        def __init__(self, *args: object, **kwargs: object) -> None:
            counts["entries"] += 1
            super().__init__(*args, **kwargs)

    monkeypatch.setattr(agent_messages, "_read_messages", reading)
    monkeypatch.setattr(match_module, "match_json", entering)
    monkeypatch.setattr(entry_module, "Entry", Counted)  # (what entry_for builds)
    return counts


def test_a_run_case_scored_three_times_reads_its_expected_run_once(counted: Counter[str]):
    case = AgentExpectations(run=EXPECTED_RUN, state=STATE)
    expected = {"pnr": "AB12", "status": "booked"}
    scores = [
        case.scored({"messages": MESSAGES, "state": STATE}, expected, "field_f1", {})
        for _ in range(3)
    ]
    # (the answer's row, the trajectory's steps and arguments, the state's rows: all match)
    assert [s.score for s in scores] == [1.0, 1.0, 1.0]
    assert scores[0].metric == "field_f1+trajectory+state"
    assert counted["read expected"] == 1  # the expected run, when the scorer was built
    assert counted["read actual"] == 3  # each output, once
    assert counted["match_json"] == 0  # every part from the one reading
    assert counted["entries"] == 3  # the answer's, the trajectory's, the state's: once


def test_a_reply_case_reads_each_reply_once(counted: Counter[str]):
    case = AgentExpectations(calls=[{"book_flight": {"flight": "SK401"}}])
    reply = {
        "role": "assistant",
        "content": '{"ok": true}',
        "tool_calls": _call("book_flight", flight="SK401")["tool_calls"],
    }
    expected = {"ok": True}
    for _ in range(2):
        result = case.scored(reply, expected, "field_f1", {})
        assert result.metric == "field_f1+tool_calls" and result.score == 1.0
    assert counted["read actual"] == 2
    assert counted["read expected_calls"] == 1  # when the scorer was built
    assert counted["match_json"] == 0
    assert counted["entries"] == 2  # the answer's and the calls': once


def test_other_settings_build_another_scorer(counted: Counter[str]):
    case = AgentExpectations(run=EXPECTED_RUN)
    run = AgentRun(MESSAGES)
    case.scored(run, None, "field_f1", {})
    case.scored(run, None, "field_f1", {"ignore": ["x"]})  # (another ignore: built again)
    case.scored(run, None, "field_f1", {"ignore": ["x"]})
    assert counted["read expected"] == 2
    assert counted["read actual"] == 3


def test_assert_json_match_reads_a_run_once(counted: Counter[str]):
    result = assert_json_match(
        AgentRun(MESSAGES, STATE), None, expected_run=EXPECTED_RUN, expected_state=STATE
    )
    assert result.metric == "trajectory+state" and result.score == 1.0  # (no answer expected)
    assert counted["read actual"] == 1 and counted["read expected"] == 1
    assert counted["match_json"] == 0


def test_a_plain_case_is_scored_by_the_plain_scorer(counted: Counter[str]):
    assert PLAIN.kind is None and PLAIN.label("field_f1", {}) == "field_f1"
    assert PLAIN.scored({"a": 1}, {"a": 1}, "field_f1", {}).score == 1.0
    assert counted["match_json"] == 1  # its one way in
