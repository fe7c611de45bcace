"""jsonmatch compare with an OpenTelemetry trace file as ACTUAL (issue 98, item 1): the run
its ``--trace-...`` options select, read from the file the Collector's file exporter writes
of spans the real ``opentelemetry-sdk`` recorded (OTLP JSON lines, protobuf), scored against
a run case's keys in EXPECTED with the golden case's rows; each mistake one line naming the
file or the option, exit status 2."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.helpers.plugin_cases import ARGS, write
from tests.helpers.reports import held

from .run import one_error_line

otel = pytest.importorskip("opentelemetry.sdk")  # (the test extra installs it)

from tests.helpers.otel_traces import (  # noqa: E402
    collector_json_lines,
    collector_proto,
    genai_run,
    recording,
)

# what a run case expects: the answer, the step (its status too) under superset
EXPECTED = """\
expected: {city: Oslo, temp: 3}
run_options: {mode: superset}
expected_run: [{name: get_weather, arguments: {city: Oslo}, status: ok}]
"""


@pytest.fixture(scope="module")
def spans() -> list:
    """Two runs of the weather agent: s1 in Oslo, s2 in Rome, its tool failing."""
    with recording("weather") as (tracer, exporter):
        genai_run(tracer, session="s1", city="Oslo")
        genai_run(tracer, session="s2", city="Rome", fail=True)
        return list(exporter.get_finished_spans())


@pytest.fixture
def files(tmp_path: Path, spans: list) -> Path:
    (tmp_path / "t.jsonl").write_text(collector_json_lines(spans[:4], spans[4:]))
    (tmp_path / "t.pb").write_bytes(collector_proto(spans[:4], spans[4:]))
    (tmp_path / "expected.yaml").write_text(EXPECTED)
    return tmp_path


def _rows(report: dict) -> list[tuple]:
    (comparison,) = report["comparisons"]
    return [(f["path"], f["status"], f["score"]) for f in comparison["fields"]]


def test_the_selected_run_is_scored_as_a_run_case(files, jsonmatch_main):
    proc = jsonmatch_main(
        "compare", str(files / "t.jsonl"), str(files / "expected.yaml"),
        "--trace-attribute", "session.id=s2", "--format", "json",
    )  # fmt: skip
    assert proc.returncode == 1, proc.stderr  # below the threshold 1.0
    report = held(proc.stdout)
    (comparison,) = report["comparisons"]
    # Rome: the answer's city wrong, its temp right (2 rows, 1); the step's name right, its
    # city wrong and its status error, not ok (3 rows, 1): 2 of 5 rows, 0.4
    assert comparison["metric"] == "field_f1+trajectory"
    assert comparison["score"] == pytest.approx(0.4)
    assert _rows(report) == [
        ("city", "mismatch", 0.0),
        ("temp", "match", 1.0),
        ("run[0].get_weather", "match", 1.0),
        ("run[0].get_weather.city", "mismatch", 0.0),
        ("run[0].get_weather.status", "mismatch", 0.0),
    ]
    assert comparison["case_id"] == str(files / "t.jsonl")


@pytest.mark.parametrize(
    ("actual", "selection"),
    [
        ("t.jsonl", ["--trace-attribute", "session.id=s1"]),
        # two attributes: both must hold (the resource's service.name, the span's session)
        ("t.jsonl", ["--trace-attribute", "service.name=weather", "--trace-attribute", "session.id=s1"]),
        ("t.pb", ["--trace-format", "proto", "--trace-attribute", "session.id=s1"]),
        ("t.jsonl", ["--trace-format", "json", "--trace-id", "TRACE"]),
    ],
)  # fmt: skip
def test_each_way_of_selecting_the_run_gives_the_same_rows(
    files, spans, jsonmatch_main, actual, selection
):
    trace_id = f"{spans[0].context.trace_id:032x}"
    selection = [trace_id if word == "TRACE" else word for word in selection]
    proc = jsonmatch_main(
        "compare", str(files / actual), str(files / "expected.yaml"), *selection, "-f", "json"
    )
    assert proc.returncode == 0, proc.stderr
    # Oslo: every row of the answer (2) and the step (3) matches
    assert [(p, s) for p, s, _ in _rows(held(proc.stdout))] == [
        ("city", "match"),
        ("temp", "match"),
        ("run[0].get_weather", "match"),
        ("run[0].get_weather.city", "match"),
        ("run[0].get_weather.status", "match"),
    ]


def test_the_rows_are_the_golden_case_s(files, pytester, jsonmatch_main):
    """The same trace, selection and expectations as a golden case and on the command line:
    the same rows, scores and metric."""
    write(pytester, "traces/t.jsonl", (files / "t.jsonl").read_text())
    case = "\n".join("    " + line for line in EXPECTED.splitlines())
    write(
        pytester,
        "w.jsonmatch.yaml",
        "cases:\n  - id: rome\n    actual_file: traces/t.jsonl\n"
        f"    trace: {{attribute: session.id=s2}}\n{case}\n",
    )
    pytester.runpytest_inprocess(*ARGS, "--jsonmatch-report=r.json")
    golden = held((pytester.path / "r.json").read_text())
    proc = jsonmatch_main(
        "compare", str(files / "t.jsonl"), str(files / "expected.yaml"),
        "--trace-attribute", "session.id=s2", "-f", "json",
    )  # fmt: skip
    command = held(proc.stdout)
    assert _rows(command) == _rows(golden)
    (one,), (other,) = golden["comparisons"], command["comparisons"]
    assert (one["metric"], one["score"]) == (other["metric"], other["score"])


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["--trace-id", "xyz"], "--trace-id: trace_id must be 32 hex digits (or an int), not 'xyz'"),
        (["--trace-attribute", "session.id"], "--trace-attribute wants KEY=VALUE, not 'session.id'"),
        (
            ["--trace-attribute", "a=1", "--trace-attribute", "a=2"],
            "--trace-attribute a is given twice",
        ),
        (
            ["--trace-attribute", "session.id=s9"],
            "trace file '{dir}/t.jsonl': no trace matches attribute={{'session.id': 's9'}}; "
            "it holds ",
        ),
        (
            ["--trace-root", "invoke_agent weather"],
            "trace file '{dir}/t.jsonl': 2 traces match root='invoke_agent weather': ",
        ),
        (
            ["--trace-format", "proto", "--trace-root", "x"],
            "{dir}/t.jsonl: --trace-format proto, but the file is OTLP JSON",
        ),
        (
            ["--trace-format", "json"],
            "trace file '{dir}/t.jsonl' holds 2 traces: select one by trace_id, root or ",
        ),
    ],
)  # fmt: skip
def test_a_selection_mistake_is_one_line_naming_the_option_or_file(
    files, jsonmatch_main, args, said
):
    proc = jsonmatch_main("compare", str(files / "t.jsonl"), str(files / "expected.yaml"), *args)
    line = one_error_line(proc)
    assert line.startswith("jsonmatch: error: " + said.format(dir=files)), line
    if "traces match" in said:  # (named as this command selects)
        assert line.endswith("(--trace-id, --trace-root or --trace-attribute)")


@pytest.mark.parametrize(
    ("expected", "said"),
    [
        ("[1, 2]", "with a trace as ACTUAL, EXPECTED is a mapping of a run case's keys"),
        ("expected: {a: 1}", "a trace gives an agent's run: give expected_run or expected_state"),
        (
            "expected_runs: []",
            "unknown key 'expected_runs' (did you mean 'expected_run' or 'expected'?); a run case's "
            "keys: expected, expected_run, run_options, expected_state",
        ),
        ("expected_run: nope", "expected_run must be the run's steps or messages (a list)"),
        ("expected_run: []\nrun_options: {mode: sideways}", "run_options: "),
        (
            "expected_run: []\nexpected_calls: []",
            "unknown key 'expected_calls'",
        ),
    ],
)
def test_an_expected_mistake_is_one_line_naming_the_file(files, jsonmatch_main, expected, said):
    (files / "e.yaml").write_text(expected + "\n")
    proc = jsonmatch_main(
        "compare", str(files / "t.jsonl"), str(files / "e.yaml"), "--trace-id", "0" * 32
    )
    line = one_error_line(proc)
    assert line.startswith(f"jsonmatch: error: {files / 'e.yaml'}: {said}"), line


def test_a_trace_is_read_from_a_file_and_a_run_metric_is_refused(files, jsonmatch_main):
    line = one_error_line(
        jsonmatch_main("compare", "-", str(files / "expected.yaml"), "--trace-root", "a")
    )
    assert line == "jsonmatch: error: a trace is read from a file: give its path as ACTUAL, not -"
    proc = jsonmatch_main(
        "compare", str(files / "t.jsonl"), str(files / "expected.yaml"),
        "--trace-attribute", "session.id=s1", "--metric", "trajectory",
    )  # fmt: skip
    assert "expected_run is scored beside the answer's metric" in one_error_line(proc)


def test_score_refuses_a_trace_for_records_and_says_where_a_trace_is_scored(files, jsonmatch_main):
    """A trace file's lines are exports of spans: scored as records they would match nothing
    (each a record of one field, ``resourceSpans``), so ``score`` refuses one, either side."""
    gold = files / "gold.jsonl"
    gold.write_text('{"city": "Oslo"}\n{"city": "Rome"}\n')
    for args, side in (((gold, files / "t.jsonl"), "PRED"), ((files / "t.jsonl", gold), "GOLD")):
        line = one_error_line(jsonmatch_main("score", *map(str, args)))
        assert line.startswith(
            f"jsonmatch: error: {side} {files / 't.jsonl'}: an OpenTelemetry trace (OTLP JSON: "
            f"resourceSpans), not records: score the run a trace holds with jsonmatch compare "
        ), line
