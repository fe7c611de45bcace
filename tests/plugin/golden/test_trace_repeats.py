"""A trace file holding several runs of one scenario scored as the repeats of one case
(``trace: {..., runs: each}``): each run a repeat, as ``repeat: k`` of an ``input`` case is,
so that the repeat rule, pass^k and the report's repeats count them; the runs from a file the
Collector's file exporter writes of spans the real ``opentelemetry-sdk`` recorded
(docs/golden-cases.md, docs/agents.md)."""

from __future__ import annotations

import json

import pytest

from tests.helpers.plugin_cases import ARGS, write
from tests.helpers.reports import held

pytestmark = pytest.mark.slow  # (CONTRIBUTING.md: the inner loop leaves it out)

otel = pytest.importorskip("opentelemetry.sdk")  # (the test extra installs it)

from tests.helpers.otel_traces import collector_json_lines, genai_run, recording  # noqa: E402

# Oslo twice right, Rome once: its answer {city: Rome, temp: 3} 1 of 2 rows, its step's
# name right and its city wrong, 1 of 2: (1 + 1) / 4 = 0.5
CASE = """
threshold: 1.0
run_options: {mode: superset}
cases:
  - id: weather
    actual_file: traces/runs.jsonl
    trace: {attribute: service.name=weather, runs: each}
    expected_run: [{name: get_weather, arguments: {city: Oslo}}]
    expected: {city: Oslo, temp: 3}
"""


def _trace_file(pytester, cities=("Oslo", "Rome", "Oslo")) -> None:
    """The runs of the weather scenario, a line each, with another scenario's run between."""
    lines = []
    for n, city in enumerate(cities):
        with recording("weather") as (tracer, exporter):
            genai_run(tracer, session=f"w{n}", city=city)
            lines.append(collector_json_lines(exporter.get_finished_spans()))
        if n == 0:
            with recording("other") as (tracer, exporter):
                genai_run(tracer, session="o", city="Paris")
                lines.append(collector_json_lines(exporter.get_finished_spans()))
    write(pytester, "traces/runs.jsonl", "".join(lines))


def test_each_run_of_the_scenario_is_a_repeat_of_the_case(pytester):
    _trace_file(pytester)
    write(pytester, "weather.jsonmatch.yaml", CASE)
    ini = "[pytest]\njsonmatch_gates = pass_k=2\njsonmatch_repeat = all\n"
    pytester.makeini(ini)
    result = pytester.runpytest_inprocess(*ARGS, "--jsonmatch-report=r.json")
    result.assert_outcomes(failed=1)
    # the rule `all`: one run below the threshold fails the case
    result.stdout.fnmatch_lines(
        ["*repeated case failed (all): mean score 0.8333 over 3 runs, 2/3 at or above*"]
    )
    report = held((pytester.path / "r.json").read_text())
    runs = sorted(report["comparisons"], key=lambda c: c["repeat"])
    assert [(c["repeat"], c["score"], c["repeats"]) for c in runs] == [
        (0, 1.0, 3),
        (1, 0.5, 3),
        (2, 1.0, 3),
    ]
    assert all(c["source"] == "case" for c in runs)
    (case,) = report["cases"]
    assert (case["runs"], case["passed_runs"], case["status"]) == (3, 2, "failed")
    reliability = report["reliability"]
    # 3 runs, 2 passed: pass^2 = C(2,2)/C(3,2) = 1/3; pass@2 = 1 - C(1,2)/C(3,2) = 1
    assert reliability["k"] == 2 and reliability["repeated"] == 1
    assert reliability["pass_hat_k"]["mean"] == pytest.approx(1 / 3)
    assert reliability["pass_at_k"]["mean"] == 1.0
    assert reliability["flaky"] == [case["case_id"]]
    # the trace file is read, never recorded, and left as it was
    assert not (pytester.path / "__recordings__").exists()


def test_a_repeat_that_asks_for_another_count_is_the_case_s_error(pytester):
    _trace_file(pytester)
    write(pytester, "weather.jsonmatch.yaml", "repeat: 5\n" + CASE.lstrip())
    result = pytester.runpytest_inprocess(*ARGS, "--jsonmatch-report=r.json")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            "*weather.jsonmatch.yaml:5: case 'weather': trace file '*runs.jsonl' holds 3 runs "
            "that attribute='service.name=weather' selects, but repeat: asks for 5*"
        ]
    )
    (comparison,) = json.loads((pytester.path / "r.json").read_text())["comparisons"]
    assert comparison["status"] == "error"
    # the count it holds passes
    write(pytester, "weather.jsonmatch.yaml", "repeat: 3\n" + CASE.lstrip())
    again = pytester.runpytest_inprocess(*ARGS, "--jsonmatch-report=r.json")
    again.assert_outcomes(failed=1)  # (the mean rule: 0.8333 < 1.0)
    assert len(json.loads((pytester.path / "r.json").read_text())["comparisons"]) == 3


def test_one_run_selected_stays_one_run_and_several_stay_an_error(pytester):
    _trace_file(pytester)
    one = CASE.replace("service.name=weather, runs: each", "session.id=w1")
    several = CASE.replace("id: weather", "id: several").replace(", runs: each", "")
    write(pytester, "weather.jsonmatch.yaml", one + several.split("cases:\n")[1])
    result = pytester.runpytest_inprocess(*ARGS, "-v")
    result.assert_outcomes(failed=2)
    result.stdout.fnmatch_lines(
        [
            "*trajectory: score 0.5000 < threshold 1.0000*",
            "*case 'several': trace file '*runs.jsonl': 3 traces match "
            "attribute={'service.name': 'weather'}*",
        ]
    )


@pytest.mark.parametrize(
    ("trace", "said"),
    [
        ("{runs: all}", "trace's runs must be one (the one run it selects, the default) or each"),
        ("{trace_id: 4bf92f3577b34da6a3ce929d0e0e4736, runs: each}", "a trace id names one run"),
        ("{}", "trace must name its run by one of trace_id, root (a root span's name) or "),
        ("{runs: each, root: a, attribute: b=c}", "trace must name its run by one of"),
    ],
)
def test_a_runs_mistake_names_the_file_line_and_case(pytester, trace, said):
    write(pytester, "traces/runs.jsonl", "{}\n")
    write(
        pytester,
        "c.jsonmatch.yaml",
        f"cases:\n  - id: c\n    actual_file: traces/runs.jsonl\n    trace: {trace}\n"
        "    expected_run: [{name: f, arguments: {}}]\n",
    )
    result = pytester.runpytest_inprocess(*ARGS)
    assert result.ret != 0
    result.stdout.fnmatch_lines([f"*c.jsonmatch.yaml:*case 'c': {said}*"])


def test_every_trace_of_the_file_with_runs_each_alone(pytester):
    with recording("weather") as (tracer, exporter):
        genai_run(tracer, session="a", city="Oslo")
        genai_run(tracer, session="b", city="Oslo")
        write(pytester, "traces/runs.jsonl", collector_json_lines(exporter.get_finished_spans()))
    write(pytester, "w.jsonmatch.yaml", CASE.replace("attribute: service.name=weather, ", ""))
    result = pytester.runpytest_inprocess(*ARGS, "--jsonmatch-report=r.json")
    result.assert_outcomes(passed=1)
    report = json.loads((pytester.path / "r.json").read_text())
    assert [c["score"] for c in report["comparisons"]] == [1.0, 1.0]
