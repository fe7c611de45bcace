"""A golden run case (an agent's whole run, its end state and its final answer scored as one
comparison: docs/agents.md) as the Markdown summary and the OpenTelemetry events carry it:
the run's steps and arguments as ``run[i]...`` fields, the state's as ``state...`` fields, the
combined metric's name, and for the failing case the "why" of the Markdown table and the
explanation of its event naming the step's argument and the state field that were wrong.

The target is a stand-in agent in plain Python that returns an ``AgentRun``: it searches, then
books the date its case's input scripts, and leaves the booking in its state. One case books
the asked date (it passes); the other books the next day, so its run goes wrong at its second
step's ``date`` argument and its state at the booking's ``date``. The events are read back by
a real OTLP/HTTP receiver on 127.0.0.1 (tests/helpers/otlp_receiver.py)."""

from __future__ import annotations

import pytest

pytest.importorskip("opentelemetry.sdk")  # (the otel extra: the test extra installs it)
pytest.importorskip("opentelemetry.proto")

from tests.helpers.otlp_receiver import Receiver
from tests.helpers.plugin_cases import ARGS, write

AGENT = """
import json
import os
from pytest_jsonmatch import AgentRun

def call(n, name, **arguments):
    return {"role": "assistant", "content": None, "tool_calls": [{"id": f"c{n}",
        "type": "function", "function": {"name": name, "arguments": json.dumps(arguments)}}]}

def agent(case_input):
    if os.environ.get("AGENT_GONE"):  # a replay must not call it
        raise RuntimeError("the agent was called")
    booked = case_input["books"]
    messages = [
        {"role": "user", "content": case_input["ask"]},
        call(1, "search_flights", to="Oslo", date="2026-12-01"),
        {"role": "tool", "tool_call_id": "c1", "content": '[{"flight": "SK401"}]'},
        call(2, "book_flight", flight="SK401", date=booked),
        {"role": "tool", "tool_call_id": "c2", "content": '{"pnr": "PNR1"}'},
        {"role": "assistant", "content": '{"status": "booked"}'},
    ]
    state = {"bookings": [{"flight": "SK401", "date": booked}]}
    return AgentRun(messages, state=state, input_tokens=120, output_tokens=30)
"""

# Both cases expect the same run; the input scripts the date the agent books.
CASES = """
run_options: {mode: superset}
cases:
  - id: on_the_day
    input: {ask: "Book a flight to Oslo on 1 December", books: "2026-12-01"}
    expected: {status: booked}
    expected_run: &run
      - {name: search_flights, arguments: {to: Oslo, date: "2026-12-01"}}
      - {name: book_flight, arguments: {flight: SK401, date: "2026-12-01"}}
    expected_state: &state {bookings: [{flight: SK401, date: "2026-12-01"}]}
  - id: day_late
    input: {ask: "Book a flight to Oslo on 1 December", books: "2026-12-02"}
    expected: {status: booked}
    expected_run: *run
    expected_state: *state
"""

METRIC = "field_f1+trajectory+state"
FILE = "trips.jsonmatch.yaml"
LATE = f"{FILE}::day_late"

# day_late, by the rules of docs/metrics.md ("An agent's run: answer, trajectory, state"):
# the answer puts 1 row (status), right: F1 1. The trajectory puts 6 rows (each call's name
# and its arguments: to, date; flight, date), the second step's date wrong: F1 5/6. The state
# puts 2 (flight, date), the date wrong: F1 1/2. Weighted by rows:
# (1 * 1 + 6 * 5/6 + 2 * 1/2) / (1 + 6 + 2) = (1 + 5 + 1) / 9 = 7/9 = 0.7778.
LATE_SCORE = 7 / 9
# on_the_day scores 1; the run's mean (1 + 7/9) / 2 = 8/9 = 0.8889, and over both cases'
# 18 rows 16 match: precision = recall = F1 = 16/18 = 0.8889
MEAN = 8 / 9

# each case's rows in the order the comparison lists them: the answer's, the run's step by
# step, the state's
ROWS = [
    "status",
    "run[0].search_flights",
    "run[0].search_flights.to",
    "run[0].search_flights.date",
    "run[1].book_flight",
    "run[1].book_flight.flight",
    "run[1].book_flight.date",
    "state.bookings[0].flight",
    "state.bookings[0].date",
]
WRONG = {"run[1].book_flight.date", "state.bookings[0].date"}
PART_OF = {row: ("answer", "trajectory", "state")[(k > 0) + (k > 6)] for k, row in enumerate(ROWS)}


def _suite(pytester: pytest.Pytester) -> None:
    write(pytester, "agent.py", AGENT)
    write(pytester, FILE, CASES)
    pytester.makeini("[pytest]\npythonpath = .\njsonmatch_target = agent:agent\n")


def _agent_gone(monkeypatch: pytest.MonkeyPatch) -> None:
    """From now on the agent fails if called (its code unchanged: the recordings of its runs
    stay fresh)."""
    monkeypatch.setenv("AGENT_GONE", "1")


def _section(text: str, title: str) -> list[str]:
    """The lines of a Markdown section's table, its header and rule included."""
    after = text.split(f"\n{title}\n\n", 1)[1]
    return after.split("\n\n", 1)[0].splitlines()


def test_the_markdown_summary_carries_the_run_and_names_the_wrong_argument_and_state(
    pytester, monkeypatch
):
    _suite(pytester)
    live = pytester.runpytest_inprocess(*ARGS, "--jsonmatch-record=once", "--jsonmatch-report=r.md")
    live.assert_outcomes(passed=1, failed=1)
    text = (pytester.path / "r.md").read_text(encoding="utf-8")

    assert _section(text, "**Gates: passed**")[2] == (
        r"| field\_f1\+trajectory\+state | 2 | 1 | 1 | 0 | 0.8889 | 0.8889 | 0.8889 | 0.8889 |"
    )
    assert f"Overall score **{MEAN:.4f}** over 2 cases." in text
    # only the failing case, its why naming the second step's argument and the state field
    # that cost it points (both score 0: in path order)
    assert _section(text, "### Cases that failed or could not be scored")[2:] == [
        r"| trips.jsonmatch.yaml::day\_late | trips.jsonmatch.yaml:11 | 0.7778 | "
        r"score below threshold 1.0000: run\[1\].book\_flight.date mismatch, "
        r"state.bookings\[0\].date mismatch |"
    ]
    # every field of the run and the state, folded over the two cases, worst first: the two
    # dates right in one case and wrong in the other score (1 + 0) / 2
    assert _section(text, "### Fields")[2:] == [
        r"| run\[\].book\_flight.date | 0.5000 | 1 | 1 | 0 | 0 |",
        r"| state.bookings\[\].date | 0.5000 | 1 | 1 | 0 | 0 |",
        r"| run\[\].book\_flight | 1.0000 | 2 | 0 | 0 | 0 |",
        r"| run\[\].book\_flight.flight | 1.0000 | 2 | 0 | 0 | 0 |",
        r"| run\[\].search\_flights | 1.0000 | 2 | 0 | 0 | 0 |",
        r"| run\[\].search\_flights.date | 1.0000 | 2 | 0 | 0 | 0 |",
        r"| run\[\].search\_flights.to | 1.0000 | 2 | 0 | 0 | 0 |",
        r"| state.bookings\[\].flight | 1.0000 | 2 | 0 | 0 | 0 |",
        r"| status | 1.0000 | 2 | 0 | 0 | 0 |",
    ]

    # the calls line totals the two runs' usage: 2 * 120 in, 2 * 30 out
    assert "tokens 240 in, 60 out" in text

    # replayed from the recordings with the agent gone: the same tables, word for word (only
    # the calls line differs: a replay's figures are the recorded ones)
    _agent_gone(monkeypatch)
    again = pytester.runpytest_inprocess(
        *ARGS, "--jsonmatch-record=none", "--jsonmatch-report=again.md"
    )
    again.assert_outcomes(passed=1, failed=1)
    replayed = (pytester.path / "again.md").read_text(encoding="utf-8")
    assert "replayed calls (recorded figures): 2," in replayed.replace("\\", "")
    for title in (
        "**Gates: passed**",
        "### Cases that failed or could not be scored",
        "### Fields",
    ):
        assert _section(replayed, title) == _section(text, title)


@pytest.fixture
def receiver(monkeypatch):
    with Receiver() as rec:
        monkeypatch.setenv("OTEL_EXPORTER_OTLP_ENDPOINT", rec.url)
        for name in ("OTEL_SERVICE_NAME", "OTEL_SDK_DISABLED", "OTEL_RESOURCE_ATTRIBUTES"):
            monkeypatch.delenv(name, raising=False)
        yield rec


def _events(received, start: int = 0):
    """(case events by case id, field events as (case, field, score, label) in order) of
    the events received from ``start`` on."""
    cases, fields = {}, []
    for event in received.events[start:]:
        attributes = event.attributes
        case = attributes["jsonmatch.case_id"].rpartition("::")[2]
        if "jsonmatch.field" in attributes:
            assert attributes["gen_ai.evaluation.name"] == METRIC
            # each row names its part, from the comparison's parts (not its path's head)
            assert attributes["jsonmatch.part"] == PART_OF[attributes["jsonmatch.field"]]
            fields.append(
                (
                    case,
                    attributes["jsonmatch.field"],
                    attributes["gen_ai.evaluation.score.value"],
                    attributes["gen_ai.evaluation.score.label"],
                )
            )
        else:
            cases[case] = event
    return cases, fields


def test_the_otel_events_carry_the_run_its_fields_and_the_wrong_argument(
    pytester, receiver, monkeypatch
):
    _suite(pytester)
    otel = "--jsonmatch-otel=fields flush=5"
    live = pytester.runpytest_inprocess(*ARGS, "--jsonmatch-record=once", otel)
    live.assert_outcomes(passed=1, failed=1)
    got = receiver.received
    cases, fields = _events(got)

    assert set(cases) == {"on_the_day", "day_late"}
    late = cases["day_late"].attributes
    assert late == {
        "gen_ai.evaluation.name": METRIC,
        "gen_ai.evaluation.score.value": pytest.approx(LATE_SCORE),
        "gen_ai.evaluation.score.label": "fail",
        # the three worst fields (two cost points): the step's argument, the state's field
        "gen_ai.evaluation.explanation": "score 0.7778 < threshold 1; worst fields: "
        "run[1].book_flight.date 0 (mismatch), state.bookings[0].date 0 (mismatch)",
        "jsonmatch.case_id": LATE,
        "jsonmatch.threshold": 1.0,
        # each part's own score, read from the comparison's parts
        "jsonmatch.part.answer.score": 1.0,
        "jsonmatch.part.trajectory.score": pytest.approx(5 / 6),
        "jsonmatch.part.state.score": 0.5,
    }
    passed = cases["on_the_day"].attributes
    assert (
        passed["gen_ai.evaluation.name"],
        passed["gen_ai.evaluation.score.value"],
        passed["gen_ai.evaluation.score.label"],
        passed["gen_ai.evaluation.explanation"],
    ) == (METRIC, 1.0, "pass", "score 1 >= threshold 1")
    # one event per row of each case, the run step by step and the state, in the
    # comparison's order; day_late's two dates mismatch (score 0), all else matches
    assert fields == [
        (case, row, 0.0, "mismatch")
        if case == "day_late" and row in WRONG
        else (case, row, 1.0, "match")
        for case in ("on_the_day", "day_late")
        for row in ROWS
    ]
    # each case's events in the span of its call, which holds the run's usage
    spans = {s.span_id: s for s in got.spans}
    assert len(spans) == 2
    for event in got.events:
        case = cases[event.attributes["jsonmatch.case_id"].rpartition("::")[2]]
        assert (event.trace_id, event.span_id) == (case.trace_id, case.span_id)
    span = spans[cases["day_late"].span_id]
    assert (
        span.name,
        span.attributes["jsonmatch.case_id"],
        span.attributes["jsonmatch.source"],
        span.attributes["gen_ai.usage.input_tokens"],
        span.attributes["gen_ai.usage.output_tokens"],
    ) == ("jsonmatch.case", LATE, "live", 120, 30)

    # replayed with the agent gone: the same events, from the recorded run
    _agent_gone(monkeypatch)
    sent = len(got.events)
    replay = pytester.runpytest_inprocess(*ARGS, "--jsonmatch-record=none", otel)
    replay.assert_outcomes(passed=1, failed=1)
    again, again_fields = _events(got, sent)
    assert again_fields == fields
    assert {c: e.attributes for c, e in again.items()} == {
        c: e.attributes for c, e in cases.items()
    }
    replayed = {s.span_id: s for s in got.spans}[again["day_late"].span_id]
    assert replayed.attributes["jsonmatch.source"] == "replayed"
