"""Golden cases whose output is a run read from an OpenTelemetry trace file
(``actual_file`` with ``trace:``): the file as the Collector's file exporter writes it from
spans the real ``opentelemetry-sdk`` recorded, each case choosing its run by an attribute,
scored as the same run given as messages is (docs/agents.md, "Traces as output")."""

from __future__ import annotations

import pytest

from tests.helpers.plugin_cases import ARGS, write
from tests.helpers.reports import held

pytestmark = pytest.mark.slow  # (CONTRIBUTING.md: the inner loop leaves it out)

otel = pytest.importorskip("opentelemetry.sdk")  # (the test extra installs it)

from tests.helpers.otel_traces import collector_json_lines, genai_run, recording  # noqa: E402

CASES = """
run_options: {mode: superset}
cases:
  - id: oslo
    actual_file: traces/weather.jsonl
    trace: {attribute: session.id=s1}
    expected_run: [{name: get_weather, arguments: {city: Oslo}}]
    expected: {city: Oslo, temp: 3}
  - id: rome
    actual_file: traces/weather.jsonl
    trace: {attribute: session.id=s2}
    expected_run: [{name: get_weather, arguments: {city: Oslo}}]
  - id: nobody
    actual_file: traces/weather.jsonl
    trace: {attribute: session.id=s9}
    expected_run: [{name: get_weather, arguments: {city: Oslo}}]
"""


def _trace_file(pytester) -> None:
    with recording() as (tracer, exporter):
        genai_run(tracer, session="s1", city="Oslo")
        genai_run(tracer, session="s2", city="Rome", fail=True)
        spans = exporter.get_finished_spans()
    write(pytester, "traces/weather.jsonl", collector_json_lines(spans[:4], spans[4:]))


def test_a_run_read_from_a_trace_file_is_scored_as_a_run(pytester):
    _trace_file(pytester)
    write(pytester, "weather.jsonmatch.yaml", CASES)
    result = pytester.runpytest_inprocess(*ARGS, "--jsonmatch-report=r.json", "-v")
    result.assert_outcomes(passed=1, failed=2)
    # rome: the call's name matches, its city does not: F1 1/2
    result.stdout.fnmatch_lines(
        [
            "*trajectory: score 0.5000 < threshold 1.0000*",
            "*run?0?.get_weather.city*mismatch*",
            # no run holds the attribute: the error names the file and what it holds
            "*case 'nobody': trace file '*weather.jsonl': no trace matches "
            "attribute={'session.id': 's9'}; it holds * (root 'invoke_agent weather', 4 spans)*",
        ]
    )
    report = held((pytester.path / "r.json").read_text())
    by_id = {c["case_id"].rsplit("::", 1)[1]: c for c in report["comparisons"]}
    assert by_id["oslo"]["score"] == 1.0 and by_id["oslo"]["metric"] == "field_f1+trajectory"
    assert by_id["rome"]["score"] == 0.5
    assert by_id["nobody"]["status"] == "error"


@pytest.mark.parametrize(
    ("case", "said"),
    [
        (
            "actual: {a: 1}\ntrace: {root: agent}\nexpected_run: [{name: f, arguments: {}}]",
            "case 'c': trace names a run of a trace file: give the file as actual_file",
        ),
        (
            "actual_file: traces/weather.jsonl\ntrace: {root: agent}\nexpected: {a: 1}",
            "case 'c': a trace gives an agent's run: give expected_run or expected_state",
        ),
        (
            "actual_file: traces/weather.jsonl\ntrace: {root: a, trace_id: b}\n"
            "expected_run: [{name: f, arguments: {}}]",
            "case 'c': trace must name its run by one of trace_id, root",
        ),
        (
            "conversation: [{user: hi, expected: {a: 1}}]\ntrace: {root: a}",
            "case 'c': a conversation is made by its target, turn by turn: trace cannot give it",
        ),
    ],
)
def test_a_trace_case_mistake_names_the_file_line_and_case(pytester, case, said):
    _trace_file(pytester)
    body = "\n".join("    " + line for line in case.splitlines())
    write(pytester, "weather.jsonmatch.yaml", f"cases:\n  - id: c\n{body}\n")
    write(pytester, "agent.py", "def agent(value):\n    return value\n")
    pytester.makeini("[pytest]\npythonpath = .\njsonmatch_target = agent:agent\n")
    result = pytester.runpytest_inprocess(*ARGS)
    assert result.ret != 0
    result.stdout.fnmatch_lines([f"*weather.jsonmatch.yaml:*{said}*"])
