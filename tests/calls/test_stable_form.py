"""The stable form of a recorded output (calls/stable_form.py): tool-call ids renamed in order
of appearance in every vendor's shape, the links kept, no score moved through any agent API;
``scrub=`` of the record setting (paths and /REGEX/) parsed, refused when malformed, applied."""

from __future__ import annotations

import json

import pytest

from pytest_jsonmatch.calls.fingerprints import RecordSettings
from pytest_jsonmatch.calls.stable_form import PLACEHOLDER, Scrub, stable_form
from pytest_jsonmatch.engine.core.errors import ConfigError
from tests.engine.agents.test_shapes_agree import RUNS, _through_every_api

# where each shape keeps a call's id and its result's link to it
IDS = {
    "openai chat": [(1, "tool_calls", 0, "id"), (2, "tool_call_id"), (3, "tool_calls", 0, "id")],
    "openai responses": [(2, "call_id"), (3, "call_id"), (4, "call_id"), (5, "call_id")],
    "anthropic": [(1, "content", 0, "id"), (2, "content", 0, "tool_use_id")],
    "langchain": [(1, "tool_calls", 0, "id"), (2, "tool_call_id"), (3, "tool_calls", 0, "id")],
}


def _at(value, path):
    for step in path:
        value = value[step]
    return value


@pytest.mark.parametrize("shape", sorted(IDS))
def test_call_ids_are_renamed_in_order_of_appearance_with_their_links(shape):
    raw = RUNS[shape]()
    stable = stable_form(raw)
    # each shape's first call is c1/t1, its result the same: call_1, and so on
    assert [_at(stable, p) for p in IDS[shape]] == [_expected_id(_at(raw, p)) for p in IDS[shape]]
    assert stable_form(stable) == stable  # the stable form of a stable form is itself
    assert json.dumps(raw) != json.dumps(stable)
    assert RUNS[shape]() == raw  # the output itself is left as it was


def _expected_id(raw_id: str) -> str:
    # the fixtures number their ids in order: c1/t1 first, c2/t2 second
    return f"call_{raw_id[-1]}"


@pytest.mark.parametrize("shape", sorted(RUNS))
def test_no_agent_api_reads_an_id_so_no_score_moves(shape):
    raw = RUNS[shape]()
    assert _through_every_api(stable_form(raw)) == _through_every_api(raw)


def test_ids_given_in_any_order_keep_their_links():
    calls = [
        {"id": "call_zz", "type": "function", "function": {"name": "f", "arguments": "{}"}},
        {"id": "call_aa", "type": "function", "function": {"name": "g", "arguments": "{}"}},
    ]
    run = [
        {"role": "assistant", "content": None, "tool_calls": calls},
        {"role": "tool", "tool_call_id": "call_aa", "content": "g's"},
        {"role": "tool", "tool_call_id": "call_zz", "content": "f's"},
        # an id that is no call's (an object typed "function" without one): left alone
        {"type": "function", "id": "keep", "name": "x"},
    ]
    out = stable_form(run)
    assert [c["id"] for c in out[0]["tool_calls"]] == ["call_1", "call_2"]
    assert [m["tool_call_id"] for m in out[1:3]] == ["call_2", "call_1"]
    assert out[3]["id"] == "keep"


def test_scrub_replaces_what_its_paths_and_patterns_name():
    scrub = Scrub.parse("**.created_at,state.orders[*].id", "s") + Scrub.parse(
        r"/req_[0-9a-f]{8}/", "s"
    )
    output = {
        "messages": [{"role": "tool", "content": "done by req_0123abcd at noon"}],
        "state": {"orders": [{"id": 7, "created_at": "t1", "n": 1}], "created_at": {"deep": 1}},
    }
    assert stable_form(output, scrub) == {
        "messages": [{"role": "tool", "content": f"done by {PLACEHOLDER} at noon"}],
        "state": {
            "orders": [{"id": PLACEHOLDER, "created_at": PLACEHOLDER, "n": 1}],
            "created_at": PLACEHOLDER,  # a value named is replaced whole
        },
    }
    assert stable_form("req_0123abcd", scrub) == PLACEHOLDER  # text output: the pattern only


def test_a_deep_output_is_rebuilt_past_pythons_recursion_limit():
    deep: object = {"created_at": 1}
    for _ in range(3000):
        deep = {"a": [deep]}
    out = stable_form(deep, Scrub.parse("**.created_at", "s"))
    for _ in range(3000):
        out = out["a"][0]
    assert out == {"created_at": PLACEHOLDER}


def test_scrub_is_a_key_of_the_record_setting():
    settings = RecordSettings.parse(
        [("once scrub=**.created_at,**.request_id prune", "jsonmatch_record")]
    )
    assert (settings.mode, settings.prune) == ("once", True)
    assert settings.scrub.named() == ["**.created_at", "**.request_id"]
    # a regular expression keeps its commas; the flag's parts override the ini's
    both = RecordSettings.parse(
        [("once scrub=**.id", "jsonmatch_record"), ("all scrub=/a{1,3}/", "--jsonmatch-record")]
    )
    assert (both.mode, both.scrub.named()) == ("all", ["/a{1,3}/"])


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("once scrub=items[", "jsonmatch_record: scrub path 'items['"),
        ("once scrub=a,,b", "jsonmatch_record: scrub='a,,b' names an empty path"),
        ("once scrub=/(/", "jsonmatch_record: scrub='/(/' is no regular expression"),
        ("once scrub=", "optionally files=GLOB, fingerprint=MODULE:FUNCTION, prune, scrub="),
    ],
)
def test_a_malformed_scrub_names_the_setting_and_the_value(text, message):
    with pytest.raises(ConfigError) as caught:
        RecordSettings.parse([(text, "jsonmatch_record")])
    assert message in str(caught.value)
    assert "\n" not in str(caught.value)


def test_a_scrub_pattern_that_backtracks_on_a_models_text_is_cut_at_its_budget():
    # the ini is part of what a pull request may change, and the text is the model's: a
    # pattern that backtracks catastrophically ((a|aa)+$ on 40 a's and a b: about 1.6^40
    # steps)
    # stops at the masks' budget with the setting named, not a hung run
    import subprocess
    import sys

    code = (
        "from pytest_jsonmatch.calls.stable_form import Scrub, stable_form\n"
        "from pytest_jsonmatch.engine.core.errors import ConfigError\n"
        "try:\n"
        "    stable_form({'note': 'a' * 40 + 'b'}, Scrub.parse('/(a|aa)+$/', 'jsonmatch_record'))\n"
        "except ConfigError as e:\n"
        "    print(e)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=20, check=True
    )
    said = done.stdout.strip()
    assert said.startswith("jsonmatch_record: scrub='/(a|aa)+$/' took more than 0.1 s"), said
    assert "41 characters" in said
