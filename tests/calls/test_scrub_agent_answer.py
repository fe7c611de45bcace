"""``scrub=`` reaches an agent's answer, the JSON its last assistant message writes as text
(calls/answer_scrub.py), in each vendor's shape; and a comparison that ``ignore`` or a scrub
left with no field to compare fails, naming the case and the pattern
(session/assertion.py). The golden-case stages run as a library: a real target recorded
under ``tmp_path``, then replayed, then re-recorded."""

from __future__ import annotations

import json
import uuid

import pytest

from pytest_jsonmatch import assert_json_match
from pytest_jsonmatch.calls.call_settings import CallSettings
from pytest_jsonmatch.calls.case_outputs import Outputs
from pytest_jsonmatch.calls.fingerprints import RecordSettings
from pytest_jsonmatch.calls.live_calls import LiveCalls
from pytest_jsonmatch.calls.produced import Produced
from pytest_jsonmatch.calls.stable_form import PLACEHOLDER, Scrub, stable_form
from pytest_jsonmatch.cases.agent_expectations import AgentExpectations
from pytest_jsonmatch.cases.case_files import GoldenCase
from pytest_jsonmatch.engine.core.depth import deep_dumps
from pytest_jsonmatch.engine.core.errors import ConfigError
from pytest_jsonmatch.session.assertion import compare_and_send
from pytest_jsonmatch.session.channel import Channel

EXPECTED = {"status": "booked", "hotel": "Alba"}


def _answer(ticket: str) -> dict[str, object]:
    return {"status": "booked", "hotel": "Alba", "request_id": f"req-{ticket}", "ticket": ticket}


def _openai(text: str) -> list[dict[str, object]]:
    return [
        {"role": "user", "content": "book Alba"},
        {"role": "assistant", "content": text},
    ]


def _anthropic(text: str) -> list[dict[str, object]]:
    return [
        {"role": "user", "content": "book Alba"},
        {
            "role": "assistant",
            "content": [{"type": "thinking", "thinking": "ok"}, {"type": "text", "text": text}],
        },
    ]


def _responses(text: str) -> list[dict[str, object]]:
    return [
        {"role": "user", "content": "book Alba"},
        {
            "type": "message",
            "role": "assistant",
            "content": [{"type": "output_text", "text": text}],
        },
    ]


def _gemini(text: str) -> list[dict[str, object]]:
    return [
        {"role": "user", "parts": [{"text": "book Alba"}]},
        {"role": "model", "parts": [{"text": "thinking...", "thought": True}, {"text": text}]},
    ]


def _responses_items(text: str) -> list[dict[str, object]]:
    """Responses output items given bare: a reasoning item, then the text as its own piece."""
    return [
        {"role": "user", "content": "book Alba"},
        {"type": "reasoning", "summary": []},
        {"type": "output_text", "text": text},
    ]


def _steps(text: str) -> list[dict[str, object]]:
    """Plain steps: a call, its result, the answer."""
    return [
        {"name": "book", "arguments": {"hotel": "Alba"}},
        {"result": "ok"},
        {"answer": text},
    ]


SHAPES = [_openai, _anthropic, _responses, _gemini, _responses_items, _steps]


@pytest.mark.parametrize("shape", SHAPES, ids=lambda f: f.__name__.strip("_"))
@pytest.mark.parametrize("prose", [False, True], ids=["json", "prose"])
def test_a_scrub_path_reaches_the_json_of_a_runs_answer_in_every_shape(shape, prose):
    text = json.dumps(_answer("TCK-1a2b3c4d"))
    if prose:
        text = f"Done! Here it is:\n```json\n{text}\n```"
    run = {"messages": shape(text), "state": {"tickets": {"n": 1}}}
    form = stable_form(run, Scrub.parse("**.request_id", "s"), "run")
    written = json.dumps(form["messages"][-1])
    assert "req-TCK" not in written  # the id left the recording
    assert written.count(PLACEHOLDER) == 1
    # idempotent: the stable form of a stable form is itself (a re-record writes no change)
    assert stable_form(form, Scrub.parse("**.request_id", "s"), "run") == form
    # the same run read as a reply (its messages alone) is scrubbed alike
    reply = stable_form(shape(text), Scrub.parse("**.request_id", "s"), "reply")
    assert "req-TCK" not in json.dumps(reply)


def test_a_plain_targets_messages_are_not_read_as_an_answer():
    """A plain target whose JSON happens to hold messages is scrubbed by its structure."""
    output = {"messages": _openai(json.dumps(_answer("TCK-1")))}
    assert stable_form(output, Scrub.parse("**.request_id", "s")) == output


def test_an_answer_without_the_scrubbed_field_is_left_byte_for_byte():
    text = '{ "status" : "booked" }'  # (its spacing kept: nothing was replaced)
    run = {"messages": _openai(text), "state": None}
    assert stable_form(run, Scrub.parse("**.request_id", "s"), "run") == run


def test_state_paths_stay_in_the_state_and_answer_paths_in_the_answer():
    answer = {"id": "a-1", "status": "booked"}
    run = {"messages": _openai(json.dumps(answer)), "state": {"id": "s-1", "n": 2}}
    form = stable_form(run, Scrub.parse("state.id", "s"), "run")
    assert form["state"] == {"id": PLACEHOLDER, "n": 2}
    assert json.loads(form["messages"][-1]["content"]) == answer
    form = stable_form(run, Scrub.parse("id", "s"), "run")
    assert form["state"] == {"id": "s-1", "n": 2}
    assert json.loads(form["messages"][-1]["content"])["id"] == PLACEHOLDER


def test_a_pattern_that_replaced_an_answer_field_whole_leaves_it_out():
    """issue 95's B1: a /REGEX/ that replaced the answer's ticket whole made it an extra
    field `"<scrubbed>"`; now the field is left out as it is for a plain target."""
    scrub = Scrub.parse("/TCK-[0-9a-f]{8}/", "s")
    run = stable_form({"messages": _anthropic(json.dumps(_answer("TCK-1a2b3c4d")))}, scrub, "run")
    assert scrub.ignored(run, "run") == ("ticket",)
    assert scrub.ignored({"messages": _openai('{"ticket": "TCK-1a2b3c4d"}')}, "run") == ()


# -- the golden-case stages: recorded, replayed, re-recorded ---------------------------------


def _booking_agent(case, awaited):
    """An agent whose every run gives a fresh request id and ticket in its JSON answer."""
    ticket = f"TCK-{uuid.uuid4().hex[:8]}"
    return {"messages": _openai(json.dumps(_answer(ticket))), "state": {"booked": 1}}


def _case(tmp_path) -> GoldenCase:
    return GoldenCase(
        id="booking",
        path=tmp_path / "agent.jsonmatch.yaml",
        line=1,
        input={"q": "book Alba"},
        expected=EXPECTED,
        source="input",
        agent=AgentExpectations(state={"booked": 1}),
    )


def _produce(tmp_path, mode: str) -> Produced:
    setting = f"{mode} scrub=**.request_id scrub=/TCK-[0-9a-f]{{8}}/"
    settings = RecordSettings.parse([(setting, "jsonmatch_record")])
    calls = LiveCalls(settings=CallSettings(), target=_booking_agent)
    return Outputs(record=settings, root=tmp_path, calls=calls).produce(_case(tmp_path), "k")


def test_an_agents_scrubbed_answer_is_recorded_stable_and_scored_as_expected(tmp_path):
    case = _case(tmp_path)
    live = _produce(tmp_path, "once")
    [recording] = (tmp_path / "__recordings__").rglob("*.json")
    first = recording.read_bytes()
    assert b"req-TCK" not in first and b"TCK-" not in first
    replayed = _produce(tmp_path, "none")
    _produce(tmp_path, "all")  # a fresh run, fresh ids: the recording does not change
    assert recording.read_bytes() == first
    for produced in (live, replayed):
        result, _ = compare_and_send(
            produced, case.expected, "field_f1", 1.0, {}, Channel(), scorer=case.scorer
        )
        assert result.score == 1.0
        statuses = {f.path: f.status for f in result.fields}
        assert statuses["request_id"] == statuses["ticket"] == "skipped"
        assert statuses["status"] == statuses["hotel"] == "match"


# -- a comparison of nothing -----------------------------------------------------------------


def test_an_ignore_that_leaves_out_every_field_fails_naming_the_pattern():
    with pytest.raises(ConfigError, match=r"ignore '\*\*' left every field out"):
        assert_json_match({"a": 1, "b": [2]}, {"a": 9, "b": [3]}, ignore="**")
    with pytest.raises(ConfigError, match=r"ignore 'a', 'b' left every field out"):
        assert_json_match({"a": 1, "b": 2}, {"a": 9, "b": 3}, ignore=["a", "b"])
    # one field left to compare: scored as before
    assert assert_json_match({"a": 1, "b": 2}, {"a": 9, "b": 2}, ignore="a").score == 1.0


def test_a_scrub_that_leaves_out_every_field_fails_naming_the_case_and_the_scrub():
    produced = Produced(output={"a": PLACEHOLDER}, ignored=("**",))
    with pytest.raises(ConfigError) as caught:
        compare_and_send(produced, {"a": 1}, "field_f1", 1.0, {}, Channel(), case="c.yaml::one")
    assert str(caught.value).startswith(
        "case 'c.yaml::one': the record setting's scrub ('**') left every field out"
    )


# -- a hostile model's depth ------------------------------------------------------------------


def _nested(depth: int, leaf: dict[str, object]) -> dict[str, object]:
    value: dict[str, object] = leaf
    for _ in range(depth):
        value = {"a": value}
    return value


def _deep_text(depth: int) -> str:
    return "{" + '"a": {' * depth + '"request_id": "req-1"' + "}" * (depth + 1)


def test_an_answer_nested_as_deep_as_the_door_takes_is_scrubbed_and_recorded():
    """1,900 levels (the door takes 2,000): the standard writer, reader and == recurse past
    the caller's stack; they were a RecursionError from inside the recording."""
    run = {"messages": _openai(_deep_text(1_900)), "state": None}
    form = stable_form(run, Scrub.parse("**.request_id", "s"), "run")
    assert form["messages"][-1]["content"].endswith(f'"request_id": "{PLACEHOLDER}"' + "}" * 1_901)
    assert stable_form(form, Scrub.parse("**.request_id", "s"), "run") == form


def test_a_plain_output_nested_as_deep_as_the_door_takes_is_recorded(tmp_path):
    case = GoldenCase(
        id="deep", path=tmp_path / "d.jsonmatch.yaml", line=1, input={}, expected={}, source="input"
    )
    settings = RecordSettings.parse([("once", "jsonmatch_record")])
    calls = LiveCalls(settings=CallSettings(), target=lambda c, a: _nested(1_900, {"x": 1}))
    produced = Outputs(record=settings, root=tmp_path, calls=calls).produce(case, "k")
    assert produced.error is None and produced.recording == "recorded"
    [recording] = (tmp_path / "__recordings__").rglob("*.json")
    assert recording.read_text().count('"a"') == 1_900
    settings = RecordSettings.parse([("none", "jsonmatch_record")])
    replayed = Outputs(record=settings, root=tmp_path, calls=calls).produce(case, "k")
    assert (replayed.error, replayed.source) == (None, "replayed")  # (read past the stack too)
    assert deep_dumps(replayed.output) == deep_dumps(produced.output)
