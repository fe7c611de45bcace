"""A judge that stops answering mid-run reads as one outage (issue 64, item 2): against a
baseline, the cases it could not judge are reported once, as unscored with the cause, never
also as cases that dropped to 0; the terminal folds them into one line per cause with the
count, and the reports keep each case's whole message.

Against a real judge server on 127.0.0.1 that answers its first 4 requests, then 503s."""

from __future__ import annotations

import json

from tests.helpers.http_models import serving
from tests.helpers.judge_server import JudgeServer
from tests.helpers.plugin_cases import ARGS, write

CASES = 12


def _suite(pytester, url: str) -> None:
    # one request per case, one at a time, no retry: the server counts them exactly
    write(
        pytester,
        "pytest.ini",
        f"[pytest]\njsonmatch_judge = model=j endpoint={url} retries=0 concurrency=1\n",
    )
    body = "".join(
        f"- id: c{n:02}\n  options: {{fields: {{s: {{comparator: semantic}}}}}}\n"
        f"  expected: {{id: {n}, s: 'two boxes {n}'}}\n  actual: {{id: {n}, s: '2 boxes {n}'}}\n"
        for n in range(CASES)
    )
    write(pytester, "cases/m.jsonmatch.yaml", "cases:\n" + body)


def _run(pytester, srv: JudgeServer, *flags: str):
    with serving(srv):
        return pytester.runpytest_inprocess(*ARGS, "cases", *flags)


def _judge(down_after: int | None) -> JudgeServer:
    srv = JudgeServer()
    srv.answer = lambda items: json.dumps({"results": [1] * len(items)})  # all the same
    srv.down_after = down_after
    return srv


def test_an_outage_is_reported_once_as_unscored_not_as_drops(pytester):
    up = _judge(None)
    _suite(pytester, up.url)
    _run(pytester, up, "--jsonmatch-report=base.json").assert_outcomes(passed=CASES)
    down = _judge(4)
    _suite(pytester, down.url)
    result = _run(
        pytester,
        down,
        "--jsonmatch-baseline=base.json",
        "--jsonmatch-report=now.json",
        "--jsonmatch-report=now.md",
    )
    # 4 requests answered, the 5th refused (the judge is then asked nothing more): 4 cases
    # pass, 8 could not be scored
    result.assert_outcomes(passed=4, failed=8)
    assert down.total == 5
    out = result.stdout.str()
    assert "dropped from" not in out
    report = json.loads((pytester.path / "now.json").read_text())
    failures = report["gates"]["failures"]
    assert len(failures) == 2, failures
    assert failures[0].startswith("the judge left 8 comparisons undecided (")
    assert failures[1].startswith("8 of 12 cases could not be scored, more than the 25%")
    baseline = report["baseline"]
    assert (baseline["shared"], len(baseline["unscored"]), baseline["changed"]) == (4, 8, [])
    # the terminal: one line per cause with its count (the refused request's case, and the
    # 7 never asked), the baseline's line saying what it did not compare
    assert "could not be scored (counted as 0): 8 cases, 2 causes" in out
    result.stdout.fnmatch_lines(
        [
            "  7 cases (cases/m.jsonmatch.yaml::c*, cases/m.jsonmatch.yaml::c*,",
            "    cases/m.jsonmatch.yaml::c* and 4 more): field_f1: fields could not be",
            "    scored (judge 'j' at http://127.0.0.1:*/v1: not asked: judge 'j' at",
        ]
    )
    result.stdout.fnmatch_lines(["  1 case (cases/m.jsonmatch.yaml::c*): field_f1: fields*"])
    said = " ".join(out.split())  # (the baseline's path is long: its line wraps)
    assert "base.json: 4 cases shared, 0 added, 0 removed, 8 not compared (could not" in said
    # the reports keep every case's whole message
    errors = [c["error"] for c in report["cases"] if c["status"] == "error"]
    assert len(errors) == 8 and all("HTTP 503" in e and " at s" in e for e in errors)
    markdown = (pytester.path / "now.md").read_text()
    assert "8 not compared: they could not be scored." in markdown
