"""In a pytest session, a comparison the judge left undecided passes no gate, and the judge's
figures count every comparison, whatever the target returns (reporting/verdicts/undecided_verdicts.py,
session/judge_ahead.py). Against a real judge server on 127.0.0.1 that answers in prose,
answers 503 always, or dies after its first answer; ``jsonmatch report`` of the report the
session wrote fails its gate as the session did."""

from __future__ import annotations

import json

import pytest

from tests.cli.run import jsonmatch
from tests.helpers.http_models import serving
from tests.helpers.judge_server import JudgeServer
from tests.helpers.plugin_cases import ARGS, write

NO_GATE = "no gate passes on a comparison the judge did not decide"


def _cases(pytester, judge: str) -> None:
    """Four golden cases, one of them judged: three pass, the judged one is undecided."""
    write(pytester, "pytest.ini", f"[pytest]\njsonmatch_judge = {judge}\n")
    body = "".join(
        f"- id: c{n}\n  expected: {{id: {n}}}\n  actual: {{id: {n}}}\n" for n in range(3)
    )
    body += (
        "- id: judged\n  options: {fields: {s: {comparator: semantic}}}\n"
        "  expected: {id: 3, s: two boxes}\n  actual: {id: 3, s: 2 boxes}\n"
    )
    write(pytester, "cases/m.jsonmatch.yaml", "cases:\n" + body)


@pytest.mark.parametrize("kind", ["prose", "503"])
def test_an_undecided_case_fails_the_gates_though_the_rest_pass(pytester, kind):
    srv = JudgeServer()
    if kind == "prose":
        srv.answer = lambda items: "They all look the same to me."
    else:
        srv.storm, srv.status = 10**6, 503  # every request, its retries too
    _cases(pytester, f"model=j endpoint={srv.url} retries=0")
    with serving(srv):
        result = pytester.runpytest_inprocess(
            *ARGS, "cases", "--jsonmatch-gates=fail_under=0.7", "--jsonmatch-report=out.json"
        )
    # 1 of 4 unscored is within the 25% the unscored rule allows and the overall score
    # 3 / 4 = 0.75 meets 0.7: only the undecided comparison fails the gates
    result.assert_outcomes(passed=3, failed=1)
    out = result.stdout.str()
    assert "the judge left 1 comparison undecided (field_f1: 1 field could not be scored" in out
    assert NO_GATE in out
    report = json.loads((pytester.path / "out.json").read_text())
    assert report["overall"] == 0.75
    assert report["gates"]["passed"] is False
    (judged,) = [c for c in report["comparisons"] if c.get("undecided")]
    assert (judged["status"], judged["score"], judged["judge"]["not_judged"]) == ("error", 0.0, 1)
    proc = jsonmatch("report", "out.json", "-f", "text", cwd=pytester.path)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert NO_GATE in proc.stdout


TARGET = """
from pytest_jsonmatch import TargetResult

def pytest_jsonmatch_target(case, config, target):
    return TargetResult({"note": "2 boxes " + str(case.input["n"])}, input_tokens=5)
"""


def test_a_target_result_targets_judge_figures_count_every_comparison(pytester):
    # six live cases, a TargetResult each. c0 and c1 expect the output itself: equal, never
    # sent. c2..c5 differ: one request each, one at a time; the judge answers the first and
    # dies (503), so of those four, one is decided (a mismatch) and three are left undecided
    srv = JudgeServer()
    srv.down_after = 1
    pytester.makeconftest(TARGET)
    write(
        pytester,
        "pytest.ini",
        f"[pytest]\njsonmatch_judge = model=j endpoint={srv.url} retries=0 concurrency=1\n"
        "jsonmatch_calls = concurrency=1\n",
    )
    body = "".join(
        f"- id: c{n}\n  input: {{n: {n}}}\n"
        f"  options: {{fields: {{note: {{comparator: semantic}}}}}}\n"
        f"  expected: {{note: '{'2 boxes ' + str(n) if n < 2 else 'two boxes'}'}}\n"
        for n in range(6)
    )
    write(pytester, "cases/m.jsonmatch.yaml", "cases:\n" + body)
    with serving(srv):
        result = pytester.runpytest_inprocess(
            *ARGS,
            "cases",
            "--jsonmatch-report=out.json",
            "--jsonmatch-report=out.md",
            "--jsonmatch-report=out.html",
        )
    result.assert_outcomes(passed=2, failed=4)
    report = json.loads((pytester.path / "out.json").read_text())
    comparisons = report["comparisons"]
    assert all("judge" in c for c in comparisons), [c["case_id"] for c in comparisons]
    unscored = [c for c in comparisons if c["status"] == "error"]
    assert len(unscored) == 3
    assert sum(c["judge"]["not_judged"] for c in comparisons) == 3
    assert [c.get("undecided", 0) for c in unscored] == [1, 1, 1]
    assert sum(c["judge"]["equal"] for c in comparisons) == 2
    said = "2 equal (not sent), 0 reused, 3 not judged"
    assert said in result.stdout.str()
    assert said.replace("(", "\\(").replace(")", "\\)") in (pytester.path / "out.md").read_text()
    assert said in (pytester.path / "out.html").read_text()
    assert "the judge left 3 comparisons undecided (" in result.stdout.str()
