"""``jsonmatch score`` on JSONL files of tool-call records: gold records are expected calls
(BFCL's possible answers with their function documents, here), predictions are whatever the
models returned (OpenAI messages, Anthropic messages, BFCL's decoded form); the per-field
table is keyed by function and argument, the same with worker processes, and gated."""

from __future__ import annotations

import json
import re

from tests.cli.run import jsonmatch

DOC = {
    "name": "get_weather",
    "parameters": {
        "type": "dict",
        "properties": {"location": {"type": "string"}, "unit": {"type": "string"}},
        "required": ["location"],
    },
}
GOLD = [
    {
        "possible_answer": [{"get_weather": {"location": ["Paris"], "unit": ["celsius", ""]}}],
        "function": [DOC],
    },
    {"possible_answer": [{"get_weather": {"location": ["Rome"], "unit": [""]}}], "function": [DOC]},
    {"possible_answer": [{"get_weather": {"location": ["Oslo"], "unit": [""]}}], "function": [DOC]},
]
PRED = [
    {
        "role": "assistant",
        "tool_calls": [
            {
                "type": "function",
                "function": {"name": "get_weather", "arguments": '{"location": "Paris"}'},
            }
        ],
    },
    {
        "role": "assistant",
        "content": [
            {"type": "tool_use", "id": "t", "name": "get_weather", "input": {"location": "Roma"}}
        ],
    },
    [{"get_weather": {"location": "Oslo", "unit": "kelvin"}}],
]


def _files(tmp_path):
    for name, records in (("gold.jsonl", GOLD), ("pred.jsonl", PRED)):
        (tmp_path / name).write_text("".join(json.dumps(r) + "\n" for r in records))
    return str(tmp_path / "gold.jsonl"), str(tmp_path / "pred.jsonl")


def test_tool_call_records_are_scored_field_by_field(tmp_path):
    gold, pred = _files(tmp_path)
    # Paris: name, location, unit (optional, left out) match -> 1.0. Roma: name match,
    # location mismatch, unit match (left out, as it must be) -> 2/3. Oslo: unit kelvin is
    # not acceptable (only left out is) -> 2/3.
    done = jsonmatch("score", gold, pred, "-m", "tool_calls", "--format", "json", "-j", "2")
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    scores = sorted(c["score"] for c in report["comparisons"])
    assert scores == [2 / 3, 2 / 3, 1.0]
    fields = report["fields"]
    assert (
        fields["get_weather.location"]["match"],
        fields["get_weather.location"]["mismatch"],
    ) == (2, 1)
    assert (fields["get_weather.unit"]["match"], fields["get_weather.unit"]["mismatch"]) == (2, 1)
    # under BFCL's rules a case passes (threshold 1.0) exactly when the leaderboard's
    # checker would: one of three
    bfcl = jsonmatch(
        "score", gold, pred, "-m", "tool_calls", "--option", "rules=bfcl", "--format", "json"
    )
    statuses = sorted(c["status"] for c in json.loads(bfcl.stdout)["comparisons"])
    assert statuses == ["failed", "failed", "passed"]
    # gated on one argument's mean score: location is right 2 times in 3
    gated = jsonmatch(
        "score", gold, pred, "-m", "tool_calls", "--field-floor", "get_weather.location=0.9"
    )
    assert gated.returncode == 1
    assert "get_weather.location" in gated.stdout + gated.stderr


def test_a_baseline_of_tool_call_records_catches_a_drop(tmp_path):
    gold, pred = _files(tmp_path)
    right = tmp_path / "right.jsonl"
    # BFCL's own result files: an object a line, the decoded calls under "result"
    right.write_text(
        "".join(
            json.dumps({"id": f"r{i}", "result": [{"get_weather": {"location": city}}]}) + "\n"
            for i, city in enumerate(("Paris", "Rome", "Oslo"))
        )
    )
    base = tmp_path / "base.json"
    first = jsonmatch(
        "score",
        gold,
        str(right),
        "-m",
        "tool_calls",
        "--pred-field",
        "result",
        "--report",
        str(base),
    )
    assert first.returncode == 0, first.stdout + first.stderr
    # now: 1.0, 2/3, 2/3 against 1.0 each
    second = jsonmatch(
        "score", gold, pred, "-m", "tool_calls", "--baseline", str(base), "--max-drop", "0.05"
    )
    assert second.returncode == 1
    out = second.stdout + second.stderr
    # the two cases that lost a field fail the gate; the fields are held to the baseline's
    # by function and argument
    assert out.count("dropped from 1.0000 to 0.6667, by more than --max-drop 0.0500") == 2
    assert re.search(r"get_weather\.location +3 +1\.0000 +0\.6667 +-0\.3333", out)
