"""A golden case file's reply keys, read as a library (no pytest session): ``expected_calls``
beside ``expected``, ``call_options`` merged from the folder to the case as ``options`` is,
and every mistake one CaseFileError with its line; then the case scored through
``assert_json_match``'s keywords and its session path, one comparison."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pytest_jsonmatch import ConfigError, TargetResult, assert_json_match
from pytest_jsonmatch.cases.case_files import CaseFiles
from pytest_jsonmatch.engine.core.errors import CaseFileError

CALL = "{name: rebook_flight, arguments: {pnr: ABC123, flight_no: LH401}}"
REPLY_CASES = f"""\
call_options: {{order: strict}}
cases:
  - id: rebook
    actual: {{a: 1}}
    expected: {{reply_summary: done}}
    expected_calls: [{CALL}]
    call_options: {{tools: [{{name: rebook_flight}}]}}
  - id: answer_only
    actual: {{a: 1}}
    expected: {{reply_summary: done}}
  - id: no_call
    actual: {{a: 1}}
    expected: {{reply_summary: done}}
    expected_calls: []
"""


def _write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def test_a_case_gives_its_calls_and_the_call_options_merge_from_folder_to_case(tmp_path):
    _write(tmp_path / "jsonmatch.yaml", "call_options: {rules: default}\n")
    path = _write(tmp_path / "reply.jsonmatch.yaml", REPLY_CASES)
    rebook, answer_only, no_call = CaseFiles(root=tmp_path).load(path)
    assert rebook.agent.calls == [
        {"name": "rebook_flight", "arguments": {"pnr": "ABC123", "flight_no": "LH401"}}
    ]
    # the folder's, the file's and the case's options, key by key
    assert rebook.agent.call_options == {
        "rules": "default",
        "order": "strict",
        "tools": [{"name": "rebook_flight"}],
    }
    # a case without expected_calls is a plain case (its inherited call options unused)
    assert answer_only.agent is None
    # [] is a reply that must call nothing: not the same as no expected_calls
    assert no_call.agent.calls == []


MISTAKES = [
    (
        "typo",
        "expected: {a: 1}\nactual: {a: 1}\nexpected_call: []\n",
        "r.jsonmatch.yaml:3: case: unknown key 'expected_call' "
        "(did you mean 'expected_calls' or 'expected'?); known keys: ",
    ),
    (
        "call-options typo",
        "expected: {a: 1}\nactual: {a: 1}\ncall_option: {}\n",
        "r.jsonmatch.yaml:3: case: unknown key 'call_option' (did you mean 'call_options'?)",
    ),
    (
        "calls not a list",
        "expected: {a: 1}\nactual: {a: 1}\nexpected_calls: rebook_flight\n",
        "r.jsonmatch.yaml:3: case 'r': expected_calls must be the calls the reply makes "
        "(a list, [] for none, or a mapping with calls or possible_answer)",
    ),
    (
        "null calls",
        "expected: {a: 1}\nactual: {a: 1}\nexpected_calls: null\n",
        "r.jsonmatch.yaml:3: case 'r': expected_calls must be the calls the reply makes",
    ),
    (
        "metric tool_calls",
        "metric: tool_calls\nexpected: {a: 1}\nactual: {a: 1}\nexpected_calls: []\n",
        "r.jsonmatch.yaml:4: case 'r': expected_calls are scored by tool_calls beside the "
        "answer's metric",
    ),
    (
        "bad call option",
        "expected: {a: 1}\nactual: {a: 1}\nexpected_calls: []\ncall_options: {order: sometimes}\n",
        "r.jsonmatch.yaml:4: call_options: tool_calls option order must be one of 'any', "
        "'strict', not 'sometimes'",
    ),
    (
        "unknown call option",
        "expected: {a: 1}\nactual: {a: 1}\nexpected_calls: []\ncall_options: {ordr: any}\n",
        "r.jsonmatch.yaml:4: call_options: ",
    ),
    (
        "call options not a mapping",
        "cases:\n  - id: one\n    expected: {a: 1}\n    actual: {a: 1}\n    call_options: [x]\n",
        "r.jsonmatch.yaml:5: case 'one': call_options must be a mapping of tool_calls options",
    ),
    (
        "file-level expected_calls",
        "expected_calls: []\ncases:\n  - id: one\n    expected: {a: 1}\n    actual: {a: 1}\n",
        "r.jsonmatch.yaml:1: file: unknown key 'expected_calls'",
    ),
]


@pytest.mark.parametrize(
    ("text", "message"), [m[1:] for m in MISTAKES], ids=[m[0] for m in MISTAKES]
)
def test_a_mistake_in_the_reply_keys_names_its_line(tmp_path, text, message):
    path = _write(tmp_path / "r.jsonmatch.yaml", text)
    with pytest.raises(CaseFileError) as caught:
        CaseFiles(root=tmp_path).load(path)
    assert str(caught.value).startswith(message), str(caught.value)


def test_a_bad_call_option_in_a_folder_defaults_file_names_it(tmp_path):
    _write(tmp_path / "jsonmatch.yaml", "call_options: {rules: nearest}\n")
    path = _write(tmp_path / "r.jsonmatch.yaml", "expected: {a: 1}\nactual: {a: 1}\n")
    with pytest.raises(
        CaseFileError, match=r"^jsonmatch.yaml:1: call_options: tool_calls option rules"
    ):
        CaseFiles(root=tmp_path).load(path)


# -- assert_json_match --------------------------------------------------------------------------

MESSAGE = TargetResult(
    json.dumps({"reply_summary": "done"}),
    tool_calls=[
        {
            "id": "c1",
            "type": "function",
            "function": {"name": "rebook_flight", "arguments": '{"pnr": "ABC123"}'},
        }
    ],
).answer()


def test_assert_json_match_takes_the_calls_as_keywords():
    result = assert_json_match(
        MESSAGE,
        {"reply_summary": "done"},
        expected_calls=[{"name": "rebook_flight", "arguments": {"pnr": "ABC123"}}],
        call_options={"order": "strict"},
    )
    assert (result.metric, result.score) == ("field_f1+tool_calls", 1.0)
    assert [f.path for f in result.fields] == [
        "reply_summary",
        "rebook_flight",
        "rebook_flight.pnr",
    ]


def test_assert_json_match_fails_a_reply_on_one_wrong_argument():
    # answer 1 row, F1 1; calls: name matches, pnr mismatches: F1 1/2 over 2 rows.
    # score = (1 * 1 + 2 * 1/2) / 3 = 2/3
    with pytest.raises(AssertionError) as caught:
        assert_json_match(
            MESSAGE,
            {"reply_summary": "done"},
            expected_calls=[{"name": "rebook_flight", "arguments": {"pnr": "XYZ999"}}],
        )
    assert caught.value.result.score == pytest.approx(2 / 3)  # type: ignore[attr-defined]
    assert str(caught.value).startswith("field_f1+tool_calls: score 0.6667 < threshold 1.0000")


def test_no_expected_calls_is_a_plain_comparison_and_call_options_alone_are_refused():
    # expected_calls left out: the message is compared whole, as any answer
    plain = assert_json_match({"a": 1}, {"a": 1})
    assert plain.metric == "field_f1"
    with pytest.raises(ConfigError, match=r"call_options apply to a reply's calls"):
        assert_json_match({"a": 1}, {"a": 1}, call_options={"order": "strict"})
