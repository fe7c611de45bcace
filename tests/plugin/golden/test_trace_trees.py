"""A trace case's span tree kept with it (issue 98, item 4): the JSON report's ``trace``
(each span, the scored steps' rows marked), the HTML page's tree (hostile span names and
attributes stay text), shards merged with their trees and a forged tree refused, the
OpenTelemetry events on the trace's own spans as the real OTLP receiver decodes them, and
``assert_json_match`` given a ``Trace``. Traces recorded by the real ``opentelemetry-sdk``
and written as the Collector's file exporter writes them."""

from __future__ import annotations

import json

import pytest

from pytest_jsonmatch.cli.app import main
from pytest_jsonmatch.reporting.render.html import render_html
from tests.cli.html_data import page_data
from tests.helpers.plugin_cases import ARGS, write
from tests.helpers.reports import held

pytestmark = pytest.mark.slow  # (CONTRIBUTING.md: the inner loop leaves it out)

otel = pytest.importorskip("opentelemetry.sdk")

from tests.helpers.otel_traces import collector_json_lines, genai_run, recording  # noqa: E402

HOSTILE = "</script><script>alert(1)</script>"

CASES = """
cases:
  - id: oslo
    actual_file: traces/weather.jsonl
    trace: {attribute: session.id=s1}
    expected_run: [{name: get_weather, arguments: {city: Oslo}, status: ok}]
    run_options: {mode: superset}
    expected: {city: Oslo, temp: 3}
  - id: rome
    actual_file: traces/weather.jsonl
    trace: {attribute: session.id=s2}
    expected_run: [{name: get_weather, arguments: {city: Oslo}, status: ok}]
    run_options: {mode: superset}
"""


def _suite(pytester) -> dict[tuple[str, str], str]:
    """The case file and its trace file: s1 a run under a request span whose name and
    output are hostile, s2 a run whose tool failed. Each span's name by its trace's and
    its own id."""
    with recording() as (tracer, exporter):
        with tracer.start_as_current_span(HOSTILE, attributes={"output.value": HOSTILE}):
            genai_run(tracer, session="s1", city="Oslo")
        genai_run(tracer, session="s2", city="Rome", fail=True)
        spans = exporter.get_finished_spans()
    write(pytester, "traces/weather.jsonl", collector_json_lines(spans))
    write(pytester, "weather.jsonmatch.yaml", CASES)
    return {(f"{s.context.trace_id:032x}", f"{s.context.span_id:016x}"): s.name for s in spans}


def _by_case(report) -> dict:
    return {c["case_id"].rpartition("::")[2]: c for c in report["comparisons"]}


def test_the_report_keeps_each_trace_cases_span_tree_and_the_page_shows_it(pytester):
    _suite(pytester)
    result = pytester.runpytest_inprocess(*ARGS, "--jsonmatch-report=r.json")
    result.assert_outcomes(passed=1, failed=1)
    report = held((pytester.path / "r.json").read_text())
    oslo, rome = _by_case(report)["oslo"]["trace"], _by_case(report)["rome"]["trace"]
    # oslo: the request span (no step), the agent, its model calls and its tool
    assert [(s["name"], s.get("rows"), s.get("answer", False)) for s in oslo["spans"]] == [
        (HOSTILE, None, False),
        ("invoke_agent weather", None, False),
        ("chat m", ["run[0].get_weather"], False),
        ("execute_tool get_weather", ["run[0].get_weather"], False),
        ("chat m", None, True),
    ]
    assert oslo["span_id"] == oslo["spans"][1]["span_id"]  # the agent's, not the root's
    assert oslo["spans"][0]["attributes"] == {"output.value": HOSTILE}
    failed = rome["spans"][2]
    assert (failed["status"], failed["message"], failed["rows"]) == (
        "error",
        "timed out",
        ["run[0].get_weather"],
    )
    # the page: the tree in its data block, each step's row linked by its index
    page = render_html(report)
    assert HOSTILE not in page and page.count("<script>") == 1
    data = page_data(page)
    shown = {data["strings"][r[2]]: r[8]["spans"] for r in data["runs"]}
    total, cut, spans = shown["failed"]
    assert total == 4 and cut == "1 values cut short"
    tool = spans[2]
    # [level, name, start, duration, error, message, what, rows, attributes, evaluated]
    assert tool[0] == 1 and tool[4:8] == [
        1,
        "timed out",
        "tool get_weather",
        [[0, "run[0].get_weather"]],
    ]
    passed = shown["passed"][2]
    assert passed[0][1] == HOSTILE and json.loads(passed[0][8]) == {"output.value": HOSTILE}
    # the answer's span links to the answer's first row (city: row 0), the call to its row
    assert passed[4][7] == [[0, "the answer"]] and passed[2][7] == [[2, "run[0].get_weather"]]
    assert [s[0] for s in passed] == [0, 1, 2, 2, 2] and [s[9] for s in passed] == [0, 1, 0, 0, 0]


def test_shards_merge_with_their_trees_and_a_forged_tree_is_refused(pytester, capsys):
    _suite(pytester)
    for k, case in ((1, "oslo"), (2, "rome")):
        result = pytester.runpytest_inprocess(
            *ARGS, f"--jsonmatch-shard={k}/2", "-k", case, f"--jsonmatch-report=s{k}.json"
        )
        assert result.ret in (0, 1)
    shards = [str(pytester.path / f"s{k}.json") for k in (1, 2)]
    merged = str(pytester.path / "m.json")
    # (the merge judges the run's gates: none is set, so none fails)
    assert main(["merge", *shards, "-o", merged, "--format", "json"]) == 0
    kept = {k: c["trace"] for k, c in _by_case(json.loads(open(merged).read())).items()}
    one = json.loads(open(shards[1]).read())["comparisons"][0]["trace"]
    assert kept["rome"] == one and kept["oslo"]["total"] == 5
    # a tree naming a row its comparison does not hold (a step made to look scored)
    report = json.loads(open(shards[1]).read())
    report["comparisons"][0]["trace"]["spans"][1]["rows"] = ["run[3].refund"]
    open(shards[1], "w").write(json.dumps(report))
    capsys.readouterr()
    assert main(["merge", *shards, "-o", merged, "--format", "json"]) == 2
    assert "its trace's span" in capsys.readouterr().err
    # and a tree the schema refuses (a status no span has)
    report["comparisons"][0]["trace"]["spans"][1]["rows"] = ["run[0].get_weather"]
    report["comparisons"][0]["trace"]["spans"][1]["status"] = "great"
    open(shards[1], "w").write(json.dumps(report))
    assert main(["merge", *shards, "-o", merged, "--format", "json"]) == 2
    assert "trace.spans[1].status" in capsys.readouterr().err


def test_the_events_of_a_trace_case_are_on_the_traces_own_spans(pytester, monkeypatch):
    pytest.importorskip("opentelemetry.exporter.otlp.proto.http")
    from tests.helpers.otlp_receiver import Receiver

    ids = _suite(pytester)
    with Receiver() as receiver:
        monkeypatch.setenv("OTEL_EXPORTER_OTLP_ENDPOINT", receiver.url)
        monkeypatch.delenv("OTEL_SDK_DISABLED", raising=False)
        result = pytester.runpytest_inprocess(*ARGS, "--jsonmatch-otel=fields flush=5")
        result.assert_outcomes(passed=1, failed=1)
        got = receiver.received
    # no span of the plugin's own: each event is on a span of the case's trace
    assert not [s for s in got.spans if s.name == "jsonmatch.case"]
    where = {}
    for event in got.events:
        case = event.attributes["jsonmatch.case_id"].rpartition("::")[2]
        where[(case, event.attributes.get("jsonmatch.field"))] = (event.trace_id, event.span_id)
    # the case's own event: the agent's span; the call's rows: the model call's; its
    # status: the tool's; the answer's rows: the agent's
    assert {k: ids[at] for k, at in where.items()} == {
        ("oslo", None): "invoke_agent weather",
        ("oslo", "city"): "invoke_agent weather",
        ("oslo", "temp"): "invoke_agent weather",
        ("oslo", "run[0].get_weather"): "chat m",
        ("oslo", "run[0].get_weather.city"): "chat m",
        ("oslo", "run[0].get_weather.status"): "execute_tool get_weather",
        ("rome", None): "invoke_agent weather",
        ("rome", "run[0].get_weather"): "chat m",
        ("rome", "run[0].get_weather.city"): "chat m",
        ("rome", "run[0].get_weather.status"): "execute_tool get_weather",
    }
    # each case's events on its own run's trace: the file's two traces
    assert {trace for trace, _ in where.values()} == {trace for trace, _ in ids}
    assert where[("oslo", None)][0] != where[("rome", None)][0]


def test_assert_json_match_given_a_trace_keeps_its_tree(pytester):
    write(
        pytester,
        "test_traced.py",
        """
        from pytest_jsonmatch import assert_json_match, read_trace

        def test_weather():
            trace = read_trace("traces/weather.jsonl", attribute="session.id=s2")
            assert_json_match(
                trace,
                {"city": "Rome", "temp": 3},
                expected_run=[{"name": "get_weather", "arguments": {"city": "Rome"}}],
                run_options={"mode": "superset"},
            )
        """,
    )
    _suite(pytester)
    result = pytester.runpytest_inprocess(*ARGS, "--jsonmatch-report=r.json", "test_traced.py")
    result.assert_outcomes(passed=1)
    (comparison,) = held((pytester.path / "r.json").read_text())["comparisons"]
    tool = comparison["trace"]["spans"][2]
    assert tool["status"] == "error" and tool["rows"] == ["run[0].get_weather"]


def test_a_browser_shows_the_tree_marks_the_failed_span_and_links_its_row(pytester, tmp_path):
    from tests.cli.test_browser import offline_browser

    _suite(pytester)
    result = pytester.runpytest_inprocess(*ARGS, "--jsonmatch-report=r.json")
    result.assert_outcomes(passed=1, failed=1)
    page_file = tmp_path / "traces.html"
    page_file.write_text(render_html(held((pytester.path / "r.json").read_text())))
    with offline_browser() as (load, _):
        page, problems = load(page_file)
        page.click("details.case.failed summary")
        failed = page.locator("details.case.failed")
        failed.locator(".span-tree").wait_for()
        names = failed.locator(".span-tree .span-name").all_inner_texts()
        marked = failed.locator(".span-tree li.failed-span").all_inner_texts()
        failed.locator(".span-tree li.failed-span a.span-row").click()
        linked = failed.locator("tr.linked td.path").all_inner_texts()
        page.click("details.case.passed summary")
        passed = page.locator("details.case.passed")
        passed.locator(".span-tree").wait_for()
        hostile = passed.locator(".span-tree .span-name").first.inner_text()
        scripts = page.evaluate("document.querySelectorAll('script').length")
    assert problems == [] and scripts == 2  # (ours and the data block: none from the trace)
    assert names == ["invoke_agent weather", "chat m", "execute_tool get_weather", "chat m"]
    # the tool's span marked failed, with what failed and the row of its step
    assert len(marked) == 1 and "error: timed out" in marked[0]
    assert "run[0].get_weather" in marked[0]
    assert linked == ["run[0].get_weather"]  # its link marks the step's row
    assert hostile == HOSTILE  # a hostile span name is text on the page
