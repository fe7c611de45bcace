"""The judge under replay (issue 76 item 3; calls/judge_calls.py, judge_recordings.py): a
session that recorded every judged comparison through a real judge (an OpenAI-compatible
server on 127.0.0.1, tests/helpers/judge_server.py) replays under
``--jsonmatch-record=none`` with none of the judge's variables set, with the same scores and
not one request; a verdict missing from the recording fails its case, naming the case, the
field and how to record it."""

from __future__ import annotations

import json

import pytest

from tests.helpers.http_models import serving
from tests.helpers.judge_server import JudgeServer
from tests.helpers.plugin_cases import ARGS, write
from tests.helpers.reports import held

pytestmark = pytest.mark.slow  # (three sessions: CONTRIBUTING.md's inner loop leaves it out)

VARIABLES = ("JUDGE_MODEL", "JUDGE_BASE_URL", "JUDGE_KEY")
CASES = """\
cases:
- id: a
  options: {fields: {s: {comparator: semantic}, t: {comparator: semantic}}}
  expected: {s: two boxes, t: Monday}
  actual: {s: 2 boxes, t: monday}
- id: b
  threshold: 0
  options: {fields: {s: {comparator: semantic}}}
  expected: {s: fragile}
  actual: {s: handle with care}
"""


@pytest.fixture
def server():
    srv = JudgeServer()
    srv.same.add(frozenset(("two boxes", "2 boxes")))
    with serving(srv):
        yield srv


def _run(pytester, mode: str) -> tuple[pytest.RunResult, dict[str, float]]:
    result = pytester.runpytest_inprocess(
        *ARGS, "cases", f"--jsonmatch-record={mode}", "--jsonmatch-report=r.json"
    )
    report = held((pytester.path / "r.json").read_text())
    return result, {c["case_id"].rpartition("::")[2]: c["score"] for c in report["comparisons"]}


def test_a_replay_needs_none_of_the_judges_variables(pytester, server, monkeypatch):
    setting = "model_env=JUDGE_MODEL endpoint_env=JUDGE_BASE_URL key_env=JUDGE_KEY"
    write(pytester, "pytest.ini", f"[pytest]\njsonmatch_judge = {setting}\n")
    write(pytester, "cases/m.jsonmatch.yaml", CASES)
    for name, value in zip(VARIABLES, ("judge-4", server.url, "test-key")):
        monkeypatch.setenv(name, value)
    live, scores = _run(pytester, "once")
    live.assert_outcomes(passed=2)
    assert server.total == 2  # one request per case, three items

    for name in VARIABLES:  # CI's replay job: no model, no endpoint, no key
        monkeypatch.delenv(name)
    replay, replayed = _run(pytester, "none")
    replay.assert_outcomes(passed=2)
    assert replayed == scores == {"a": 1.0, "b": 0.0}
    assert server.total == 2  # not one request more
    report = json.loads((pytester.path / "r.json").read_text())
    assert report["run"]["provenance"]["judge_setup"]["model"] == "judge-4"  # the recorded one

    path = pytester.path / "__recordings__" / "judgments.json"
    recorded = json.loads(path.read_text())
    (judge,) = recorded["judges"].values()
    judge["verdicts"] = [v for v in judge["verdicts"] if v["field"] != "t"]
    path.write_text(json.dumps(recorded))
    missing, _ = _run(pytester, "none")
    missing.assert_outcomes(passed=1, failed=1)
    said = missing.stdout.str()
    assert "FAILED cases/m.jsonmatch.yaml::a" in said  # (pytest 7.4 prints no message there)
    assert (  # the case, the field and how to record it
        'case \'a\': no recorded judgment of field t: "Monday" against "monday" in '
        "__recordings__/judgments.json; record it with --jsonmatch-record=once, JUDGE_MODEL "
        "and JUDGE_BASE_URL set (record=none never asks the judge)"
    ) in said
    assert server.total == 2
