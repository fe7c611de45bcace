"""An agent case's expected parts are held to one rule, wherever they are given: a case
file's keys and ``assert_json_match``'s keywords that cannot be scored together are refused
with the same reason (cases/agent_expectations.py's ``refusal``), the file's with its line."""

from __future__ import annotations

import pytest

from pytest_jsonmatch import ConfigError, assert_json_match
from pytest_jsonmatch.cases.case_files import CaseFiles
from pytest_jsonmatch.engine.core.errors import CaseFileError

RUN = {"messages": [{"role": "assistant", "content": '{"a": 1}'}], "state": {}}


def test_calls_beside_a_run_are_refused_in_the_same_words_by_a_file_and_a_call(tmp_path):
    path = tmp_path / "r.jsonmatch.yaml"
    path.write_text("input: {q: 1}\nexpected: {a: 1}\nexpected_calls: []\nexpected_run: []\n")
    with pytest.raises(CaseFileError) as in_file:
        CaseFiles(root=tmp_path).load(path)
    with pytest.raises(ConfigError) as in_call:
        assert_json_match(RUN, {"a": 1}, expected_calls=[], expected_run=[])
    reason = str(in_call.value)
    assert reason.startswith("expected_calls score one reply")
    assert str(in_file.value).endswith(f"r.jsonmatch.yaml:3: case 'r': {reason}")
