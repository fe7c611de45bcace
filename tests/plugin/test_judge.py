"""The judge in a pytest session (calls/judge_calls.py through plugin/hooks.py): golden cases
and ``assert_json_match`` use the ``jsonmatch_judge`` setting; every request goes through the
judge's runner (retries with ``Retry-After``, a bounded total when the judge is down); a bad
setting stops the session naming it.

Against a real OpenAI-compatible server on 127.0.0.1 (tests/helpers/judge_server.py),
called by the standard library's HTTP client."""

from __future__ import annotations

import json
import socket
import time

import pytest

from pytest_jsonmatch.calls import retries
from tests.helpers.http_models import InFlight, serving
from tests.helpers.judge_server import JudgeServer
from tests.helpers.plugin_cases import ARGS, write

pytestmark = pytest.mark.slow  # (CONTRIBUTING.md: the inner loop leaves it out)


@pytest.fixture
def server():
    srv = JudgeServer()
    with serving(srv):
        yield srv


def _suite(pytester, judge: str, cases: int = 3) -> None:
    write(pytester, "pytest.ini", f"[pytest]\njsonmatch_judge = {judge}\n")
    body = "".join(
        f"- id: c{n}\n"
        f"  options: {{fields: {{summary: {{comparator: semantic}}}}}}\n"
        f"  expected: {{id: {n}, summary: 'two boxes, Monday'}}\n"
        f"  actual: {{id: {n}, summary: '{'2 boxes on Monday' if n % 2 else 'three boxes'}'}}\n"
        for n in range(cases)
    )
    write(pytester, "cases/m.jsonmatch.yaml", "cases:\n" + body)
    write(pytester, "conftest.py", "")


def test_golden_cases_are_judged_through_the_setting(pytester, server):
    server.same.add(frozenset(("two boxes, monday", "2 boxes on monday")))
    _suite(pytester, f"model=judge-1 endpoint={server.url}")
    result = pytester.runpytest_inprocess(*ARGS, "cases")
    # c1 is judged the same (1 of 1 judged field, id exact): passes; c0 and c2 are not
    result.assert_outcomes(passed=1, failed=2)
    # three cases, three records: one request each; c0 and c2 ask the same item, once
    assert server.total == 2


def test_a_429_storm_is_retried_as_retry_after_says(pytester, server):
    server.storm, server.after = 2, "1"
    server.same.add(frozenset(("two boxes, monday", "three boxes")))  # c0 the same, c1 not
    _suite(pytester, f"model=judge-1 endpoint={server.url} retries=3", cases=2)
    start = time.monotonic()
    result = pytester.runpytest_inprocess(*ARGS, "cases")
    took = time.monotonic() - start
    result.assert_outcomes(passed=1, failed=1)
    # two 429s then the answer for c0, one request for c1 (its item differs)
    assert server.total == 4
    gaps = [b - a for a, b in zip(server.started, server.started[1:3])]
    assert all(gap >= 0.95 for gap in gaps), gaps  # Retry-After: 1 waited each time
    assert took < 30


def test_a_judge_that_is_down_costs_a_bounded_time_and_says_so(pytester, monkeypatch):
    # the runner's backoff between attempts (0.5 s, then 1 s, jittered down to half) made a
    # fifth as long: the attempts and what the run says are the promise, not their spacing
    monkeypatch.setattr(retries, "BACKOFF_BASE_S", 0.1)
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    _suite(pytester, f"model=judge-1 endpoint=http://127.0.0.1:{port}/v1 retries=2", cases=12)
    start = time.monotonic()
    result = pytester.runpytest_inprocess(*ARGS, "cases", "-rA")
    took = time.monotonic() - start
    # every case fails: its one judged field could not be judged (left out of precision
    # and recall), and the id alone is not the case
    assert took < 15, took
    out = result.stdout.str()
    # the judge named once, then what failed (not "judge ... failed:" again)
    assert f"judge 'judge-1' at http://127.0.0.1:{port}/v1: the request failed: cannot reach" in out
    assert "(3 attempts)" in out
    assert "not asked" in out


def test_assert_json_match_uses_the_sessions_judge(pytester, server):
    write(pytester, "pytest.ini", f"[pytest]\njsonmatch_judge = model=j endpoint={server.url}\n")
    pytester.makepyfile(
        """
        from pytest_jsonmatch import assert_json_match

        def test_it():
            assert_json_match({"s": "NYC"}, {"s": "New York City"},
                              fields={"s": {"comparator": "semantic"}})
        """
    )
    server.same.add(frozenset(("nyc", "new york city")))
    pytester.runpytest_inprocess(*ARGS).assert_outcomes(passed=1)
    assert server.total == 1


@pytest.mark.parametrize(
    ("setting", "message"),
    [
        ("endpoint=http://x", "jsonmatch_judge: name the judge's model"),
        ("model=m key=sk-1", "jsonmatch_judge: give key_env=NAME"),
        ("model=m retries=many", "jsonmatch_judge: retries"),
        ("model=m prompt=nope.txt", "the prompt template 'nope.txt' is not a file"),
    ],
)
def test_a_bad_judge_setting_stops_the_session(pytester, setting, message):
    write(pytester, "pytest.ini", f"[pytest]\njsonmatch_judge = {setting}\n")
    pytester.makepyfile("def test_x():\n    pass\n")
    result = pytester.runpytest_inprocess(*ARGS)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert message in result.stderr.str()


def test_judging_of_different_cases_overlaps_up_to_the_judges_concurrency(pytester, server):
    server.calls.reset(gather=8)  # each request waits until 8 are in flight together
    server.calls.patience = 2.0  # (at most 2 s each: a serial judge never gathers them)
    server.delay = 0.05
    write(
        pytester,
        "pytest.ini",
        f"[pytest]\njsonmatch_judge = model=j endpoint={server.url} concurrency=8\n",
    )
    body = "".join(
        f"- id: c{n}\n"
        f"  options: {{fields: {{s: {{comparator: semantic}}}}}}\n"
        f"  expected: {{s: 'reference {n}'}}\n"
        f"  actual: {{s: 'produced {n}'}}\n"
        for n in range(40)
    )
    write(pytester, "cases/m.jsonmatch.yaml", "cases:\n" + body)
    result = pytester.runpytest_inprocess(*ARGS, "cases")
    result.assert_outcomes(failed=40)  # every item differs: judged 0
    # one request per case, never a second for a case its test found being asked
    assert server.total == 40
    assert server.max_in_flight == 8


def test_cases_with_a_live_target_are_judged_overlapping(pytester, server):
    # four cases whose output comes from a live call of the target: each request waits (5 s
    # at most) until four are at the server together. Judged as each call returns, in the
    # judge's threads, they are; judged one by one in each case's own test, one at a time
    server.calls = InFlight(gather=4, patience=5)
    write(
        pytester,
        "pytest.ini",
        f"[pytest]\npythonpath = .\njsonmatch_target = targets:answer\n"
        f"jsonmatch_calls = concurrency=4\n"
        f"jsonmatch_judge = model=j endpoint={server.url} concurrency=4\n",
    )
    write(pytester, "targets.py", "def answer(text):\n    return {'s': 'produced ' + text}\n")
    body = "".join(
        f"- id: c{n}\n  options: {{fields: {{s: {{comparator: semantic}}}}}}\n"
        f"  input: '{n}'\n  expected: {{s: 'reference {n}'}}\n"
        for n in range(4)
    )
    write(pytester, "cases/m.jsonmatch.yaml", "cases:\n" + body)
    start = time.monotonic()
    result = pytester.runpytest_inprocess(*ARGS, "cases")
    took = time.monotonic() - start
    result.assert_outcomes(failed=4)  # every pair judged different, each by its own request
    assert (server.total, server.max_in_flight) == (4, 4)
    assert took < 4 * 5, took  # one by one, each request would wait out its 5 s
    # each case's request is its own: counted once, in its comparison
    assert "judge: 4 requests" in result.stdout.str()


def test_a_serial_judge_sends_one_request_at_a_time(pytester, server):
    write(pytester, "pytest.ini", f"[pytest]\njsonmatch_judge = model=j endpoint={server.url}\n")
    body = "".join(
        f"- id: c{n}\n  options: {{fields: {{s: {{comparator: semantic}}}}}}\n"
        f"  expected: {{s: 'a{n}'}}\n  actual: {{s: 'b{n}'}}\n"
        for n in range(6)
    )
    write(pytester, "cases/m.jsonmatch.yaml", "cases:\n" + body)
    pytester.runpytest_inprocess(*ARGS, "cases").assert_outcomes(failed=6)
    assert (server.total, server.max_in_flight) == (6, 1)


def _judged_suite(pytester, judge: str, prompt: str | None = None) -> None:
    if prompt is not None:
        write(pytester, "prompt.txt", prompt)
    write(pytester, "pytest.ini", f"[pytest]\njsonmatch_judge = {judge}\n")
    write(
        pytester,
        "cases/m.jsonmatch.yaml",
        """\
        cases:
        - id: a
          options: {fields: {s: {comparator: semantic}, t: {comparator: semantic}}}
          expected: {s: two boxes, t: Monday}
          actual: {s: 2 boxes, t: Tuesday}
        - id: b
          options: {fields: {s: {comparator: semantic}}}
          expected: {s: fragile}
          actual: {s: handle with care}
        """,
    )


def test_judgments_are_recorded_and_replayed_with_no_request(pytester, server):
    server.same.add(frozenset(("two boxes", "2 boxes")))
    _judged_suite(pytester, f"model=j endpoint={server.url}")
    first = pytester.runpytest_inprocess(*ARGS, "cases", "--jsonmatch-record=once")
    first.assert_outcomes(failed=2)  # a: t differs; b: judged different
    assert server.total == 2  # one request per case
    recorded = json.loads((pytester.path / "__recordings__/judgments.json").read_text())
    (judge,) = recorded["judges"].values()
    assert judge["model"] == "j"
    assert sorted((v["field"], v["verdict"]) for v in judge["verdicts"]) == [
        ("s", 0),
        ("s", 1),
        ("t", 0),
    ]
    again = pytester.runpytest_inprocess(*ARGS, "cases", "--jsonmatch-record=none")
    again.assert_outcomes(failed=2)
    assert server.total == 2  # replayed: not one request more
    assert "0 requests" in again.stdout.str()


def test_a_changed_prompt_makes_the_judgments_stale_under_record_none(pytester, server):
    _judged_suite(pytester, f"model=j endpoint={server.url} prompt=prompt.txt", "v1:\n{pairs}")
    pytester.runpytest_inprocess(*ARGS, "cases", "--jsonmatch-record=once")
    assert server.total == 2
    write(pytester, "prompt.txt", "v2, reworded:\n{pairs}")
    stale = pytester.runpytest_inprocess(*ARGS, "cases", "--jsonmatch-record=none")
    assert server.total == 2  # record=none never asks
    out = stale.stdout.str()
    assert (
        "is stale: it was recorded by another judge (model 'j', or a prompt since changed)" in out
    )
    stale.assert_outcomes(failed=2)
    # recorded again: only this judge's items are asked, then replayed; prune drops the old
    pytester.runpytest_inprocess(*ARGS, "cases", "--jsonmatch-record=once prune")
    assert server.total == 4
    recorded = json.loads((pytester.path / "__recordings__/judgments.json").read_text())
    assert len(recorded["judges"]) == 1


def _recorded(pytester) -> list[tuple[str, str, int, list[str]]]:
    recorded = json.loads((pytester.path / "__recordings__/judgments.json").read_text())
    return sorted(
        (v["field"], v["expected"], v["verdict"], v.get("cases", []))
        for judge in recorded["judges"].values()
        for v in judge["verdicts"]
    )


def test_a_removed_cases_verdicts_are_listed_then_pruned_and_a_kept_cases_kept(pytester, server):
    _judged_suite(pytester, f"model=j endpoint={server.url}")
    pytester.runpytest_inprocess(*ARGS, "cases", "--jsonmatch-record=once")
    a, b = "cases/m.jsonmatch.yaml::a", "cases/m.jsonmatch.yaml::b"
    # each verdict keeps the cases that used it
    assert _recorded(pytester) == [
        ("s", "fragile", 0, [b]),
        ("s", "two boxes", 0, [a]),
        ("t", "Monday", 0, [a]),
    ]
    text = (pytester.path / "cases/m.jsonmatch.yaml").read_text()
    (pytester.path / "cases/m.jsonmatch.yaml").write_text(text[: text.index("- id: b")])
    listed = pytester.runpytest_inprocess(*ARGS, "cases", "--jsonmatch-record=once")
    assert "1 recorded judgment(s) in __recordings__/judgments.json no collected case uses" in (
        listed.stdout.str()
    )
    assert len(_recorded(pytester)) == 3  # listed, not removed
    pruned = pytester.runpytest_inprocess(*ARGS, "cases", "--jsonmatch-record=once prune")
    assert "removed 1 unused recorded judgment(s)" in pruned.stdout.str()
    assert _recorded(pytester) == [("s", "two boxes", 0, [a]), ("t", "Monday", 0, [a])]
    # a's verdicts still replay: no request since the first run (a's two items, b's one)
    assert server.total == 2
    pytester.runpytest_inprocess(*ARGS, "cases", "--jsonmatch-record=none").assert_outcomes(
        failed=1
    )
    assert server.total == 2


def test_what_the_judge_did_is_kept_per_comparison_and_totalled(pytester, server):
    write(
        pytester,
        "pytest.ini",
        f"[pytest]\njsonmatch_judge = model=j endpoint={server.url} price_in=2 price_out=8\n",
    )
    write(
        pytester,
        "cases/m.jsonmatch.yaml",
        """\
        cases:
        - id: a
          options: {fields: {s: {comparator: semantic}, t: {comparator: semantic}}}
          expected: {s: two boxes, t: Monday}
          actual: {s: 2 boxes, t: monday}
        - id: b
          options: {fields: {s: {comparator: semantic}}}
          expected: {s: fragile}
          actual: {s: handle with care}
        - id: c
          options: {fields: {s: {comparator: semantic}}}
          expected: {s: fragile}
          actual: {s: handle with care}
        """,
    )
    result = pytester.runpytest_inprocess(
        *ARGS, "cases", "--jsonmatch-report=out.json", "--jsonmatch-report=out.md"
    )
    result.assert_outcomes(failed=3)
    report = json.loads((pytester.path / "out.json").read_text())
    judged = {c["case_id"].split("::")[-1]: c["judge"] for c in report["comparisons"]}
    # one request of 100 tokens in and 10 out (the server's usage) costs
    # 100 * 2 / 1e6 + 10 * 8 / 1e6 = 0.00028
    # a: "Monday" against "monday" differ (no transform): sent with s, in one request
    assert judged["a"] == {
        "requests": 1,
        "attempts": 1,
        "sent": 2,
        "equal": 0,
        "reused": 0,
        "not_judged": 0,
        "failed_requests": 0,
        "input_tokens": 100,
        "output_tokens": 10,
        "cost": pytest.approx(0.00028),
        "latency_s": pytest.approx(judged["a"]["latency_s"]),
    }
    assert (judged["b"]["requests"], judged["b"]["sent"], judged["b"]["reused"]) == (1, 1, 0)
    # c asks what b asked: answered from memory, at no cost
    assert (judged["c"]["requests"], judged["c"]["reused"], judged["c"]["cost"]) == (0, 1, None)
    assert server.total == 2
    out = result.stdout.str()
    line = (
        "judge: 2 requests (2 attempts, ...), 3 items sent, 0 equal (not sent), 1 reused, "
        "0 not judged; tokens 200 in, 20 out, cost "
    )
    assert any(
        ln.startswith(line.split("...")[0]) and line.split("...")[1] in ln
        for ln in out.splitlines()
    ), out
    assert "tokens 200 in, 20 out" in (pytester.path / "out.md").read_text()


def test_a_targets_total_cost_limit_counts_its_judges_requests(pytester, server):
    server.same.add(frozenset(("two boxes", "2 boxes")))
    pytester.makeconftest(
        """
        from pytest_jsonmatch import TargetResult

        def pytest_jsonmatch_target(case, config, target):
            note = "two boxes" if target == "today" else "2 boxes"
            return TargetResult({"note": note}, cost=0.001)
        """
    )
    judge = f"model=j endpoint={server.url} price_in=1000 price_out=1000"
    write(
        pytester,
        "pytest.ini",
        f"[pytest]\njsonmatch_judge = {judge}\njsonmatch_targets =\n    today\n    cheap\n"
        "jsonmatch_reference = today cost=1.5x total_cost=1.5x\n",
    )
    body = "".join(
        f"- id: c{n}\n  input: {{n: {n}}}\n"
        f"  options: {{fields: {{note: {{comparator: semantic}}}}}}\n"
        f"  expected: {{note: two boxes}}\n"
        for n in range(2)
    )
    write(pytester, "cases/m.jsonmatch.yaml", "cases:\n" + body)
    result = pytester.runpytest_inprocess(*ARGS, "cases", "--jsonmatch-report=out.json")
    result.assert_outcomes(passed=4)  # cheap's paraphrase is judged the same
    gates = json.loads((pytester.path / "out.json").read_text())["gates"]
    # today: 2 x 0.001 for its calls, nothing judged (equal). cheap: the same for its calls,
    # and one request for its first case (the second reuses the verdict) of 100 tokens in
    # and 10 out at 1000 a million: 0.1 + 0.01 = 0.11; 0.002 + 0.11 = 0.112 > 1.5 x 0.002
    assert any(
        f.startswith("target cheap against today: total cost with the judge's 0.112")
        and f.endswith("(jsonmatch_reference total_cost=1.5x)")
        for f in gates["failures"]
    ), gates
    assert not any("(jsonmatch_reference cost=1.5x)" in f for f in gates["failures"])
    assert server.total == 1


def test_under_xdist_every_workers_verdicts_are_recorded_and_replayed(pytester, server):
    write(pytester, "pytest.ini", f"[pytest]\njsonmatch_judge = model=j endpoint={server.url}\n")
    body = "".join(
        f"- id: c{n}\n  options: {{fields: {{s: {{comparator: semantic}}}}}}\n"
        f"  expected: {{s: 'reference {n}'}}\n  actual: {{s: 'produced {n}'}}\n"
        for n in range(8)
    )
    write(pytester, "cases/m.jsonmatch.yaml", "cases:\n" + body)
    plugins = ARGS
    first = pytester.runpytest_subprocess(
        *plugins, "cases", "-n", "2", "--jsonmatch-record=once", "--jsonmatch-report=a.json"
    )
    first.assert_outcomes(failed=8)
    assert server.total == 8
    recorded = json.loads((pytester.path / "__recordings__/judgments.json").read_text())
    (judge,) = recorded["judges"].values()
    assert len(judge["verdicts"]) == 8  # both workers' verdicts, merged
    # what the judge did reaches the controller with each comparison: 8 requests in all
    report = json.loads((pytester.path / "a.json").read_text())
    assert sum(c["judge"]["requests"] for c in report["comparisons"]) == 8
    again = pytester.runpytest_subprocess(*plugins, "cases", "-n", "2", "--jsonmatch-record=none")
    again.assert_outcomes(failed=8)
    assert server.total == 8  # replayed in both workers: no request


def test_a_case_judged_ahead_reads_its_schemas_refs_only_where_its_test_may(pytester, server):
    # the thread that judges a case ahead is held to the test root as the test is: a $ref
    # outside it is refused, never read (and never cached for the test to find)
    outside = pytester.path.parent / f"{pytester.path.name}-outside"
    outside.mkdir()
    (outside / "x.json").write_text('{"type": "string", "x-eval-compare": "semantic"}')
    (pytester.path / "s.json").write_text(
        json.dumps({"type": "object", "properties": {"a": {"$ref": str(outside / "x.json")}}})
    )
    write(pytester, "pytest.ini", f"[pytest]\njsonmatch_judge = model=j endpoint={server.url}\n")
    write(pytester, "c.jsonmatch.yaml", "schema: s.json\nexpected: {a: x}\nactual: {a: y}\n")
    result = pytester.runpytest_inprocess(*ARGS)
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*$ref * reads outside *: refused, unread*"])
    assert server.total == 0  # nothing was judged from the refused schema


def test_the_judges_rate_limit_spaces_its_requests(pytester, server):
    _many(pytester, f"model=j endpoint={server.url} concurrency=4 rate=5/s", 5)
    begun = time.monotonic()
    pytester.runpytest_inprocess(*ARGS, "cases").assert_outcomes(failed=5)
    starts = sorted(server.started)
    assert len(starts) == 5
    # 5 a second: the runner starts them 0.2 s apart, whatever the concurrency, so the
    # fifth is sent at least 0.8 s after the first, which is sent after `begun`. Read from
    # `begun`, not from the first arrival: the server shares this process, and a stall of its
    # accepting thread records early arrivals late, never a late one early (CI once saw the
    # first three recorded within 2 ms, then 0.19 s apart). Unlimited, all five arrive within
    # the inner run's start-up, a few tenths of a second
    assert starts[-1] - begun >= 0.8, (begun, starts)
    assert starts[-1] - starts[0] < 5, starts  # and not held up by anything else


def test_stopping_at_the_first_failure_cancels_the_judging_still_to_come(pytester, server):
    server.delay = 0.3
    _many(pytester, f"model=j endpoint={server.url} concurrency=2", 20)
    start = time.monotonic()
    result = pytester.runpytest_inprocess(*ARGS, "cases", "-x")
    result.assert_outcomes(failed=1)
    # the first case's request and at most the two ahead in flight when it failed
    assert server.total <= 4, server.total
    assert time.monotonic() - start < 20 * 0.3 / 2


def _many(pytester, judge: str, cases: int) -> None:
    write(pytester, "pytest.ini", f"[pytest]\njsonmatch_judge = {judge}\n")
    body = "".join(
        f"- id: c{n}\n  options: {{fields: {{s: {{comparator: semantic}}}}}}\n"
        f"  expected: {{s: 'reference {n}'}}\n  actual: {{s: 'produced {n}'}}\n"
        for n in range(cases)
    )
    write(pytester, "cases/m.jsonmatch.yaml", "cases:\n" + body)


def test_under_four_xdist_workers_the_judges_rate_holds_for_the_session(pytester, server):
    # rate=360/min for the judge, four workers: six requests a second in all, whichever
    # worker asks (each worker taking a quarter of the rate and starting at once sent four
    # within milliseconds). Four arrivals then span 0.5 s: never four within 1/6 s, however
    # the threads and sockets jitter (a few milliseconds, seen here)
    _many(pytester, f"model=j endpoint={server.url} concurrency=4 rate=360/min", 6)
    plugins = ARGS
    pytester.runpytest_subprocess(*plugins, "cases", "-n", "4").assert_outcomes(failed=6)
    starts = sorted(server.started)
    assert len(starts) == 6
    assert min(b - a for a, b in zip(starts, starts[3:])) > 1 / 6, starts


def test_a_live_case_judged_ahead_asks_nothing_of_what_scrub_leaves_out(pytester, server):
    # judged ahead in the call's thread, the output is taken as its test takes it: in the
    # recorded form, the scrubbed stamp left out, so the judge is never asked about it
    write(
        pytester, "t.py", "def t(case_input):\n    return {'summary': '2 boxes', 'stamp': 'now'}\n"
    )
    write(
        pytester,
        "pytest.ini",
        f"[pytest]\npythonpath = .\njsonmatch_target = t:t\njsonmatch_record = once scrub=stamp\n"
        f"jsonmatch_judge = model=j endpoint={server.url}\n",
    )
    judged = "{fields: {summary: {comparator: semantic}, stamp: {comparator: semantic}}}"
    write(
        pytester,
        "c.jsonmatch.yaml",
        f"input: x\noptions: {judged}\nexpected: {{summary: two boxes, stamp: then}}\n",
    )
    pytester.runpytest_inprocess(*ARGS).assert_outcomes(failed=1)
    asked = [item for request in server.items_sent for item in request]
    assert asked and all("stamp" not in repr(item) for item in asked), asked
