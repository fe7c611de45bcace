"""The golden suite of the case-path matrix (tests/plugin/test_case_path_matrix.py): every
kind of case in a folder of its own, and the stand-in model its ``input:`` cases ask.

Two session configurations hold it, since one session takes either ``jsonmatch_target`` or
``jsonmatch_targets``, never both (plugin/settings.py refuses the pair): ``main`` (one target,
the judge, a quarantine, floors and a pass^k floor) holds every kind but one; ``versus`` (two
named targets, ``base`` the reference) holds the model comparison.

Each kind has a case that passes and one that fails in part (a score strictly between 0 and
1), so that every figure compared is one a wrong merge, replay or rendering would change.

The trace kinds' cases read their runs from one trace file beside them, which ``build``
writes from spans the real ``opentelemetry-sdk`` records (``trace_file``: the test extra
installs it), the same bytes every build.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

# The stand-in model. A case's input scripts what it answers: ``say`` the answer (a mapping),
# ``runs`` one answer per run of a repeated case, in turn (the k-th run of the case in this
# process answers runs[k % len(runs)]: a case's runs all run in one process, in order);
# ``reply`` and ``calls`` an assistant's reply, its content and tool calls; ``run`` an agent's
# whole run (its steps, answer and end state). ``cand`` is what the candidate named target
# answers instead (else it answers as the reference does).
AGENT = '''
"""The matrix suite's stand-in model: it answers what each case's input scripts."""
import collections
import json

from pytest_jsonmatch import AgentRun, TargetResult

_asked = collections.Counter()


def _call(n, name, arguments):
    return {"id": f"call_{n}", "type": "function",
            "function": {"name": name, "arguments": json.dumps(arguments)}}


def _run(script, question):
    messages = [{"role": "user", "content": question}]
    for n, (name, arguments, result) in enumerate(script["steps"]):
        messages.append({"role": "assistant", "content": None,
                         "tool_calls": [_call(n, name, arguments)]})
        messages.append({"role": "tool", "tool_call_id": f"call_{n}",
                         "content": json.dumps(result)})
    messages.append({"role": "assistant", "content": json.dumps(script["answer"])})
    return AgentRun(messages, state=script["state"], input_tokens=50, output_tokens=10)


def _say(case_input, said):
    if "run" in case_input:
        return _run(case_input["run"], case_input["question"])
    if "calls" in case_input:
        reply = case_input["reply"]
        calls = [_call(n, c["name"], c["arguments"]) for n, c in enumerate(case_input["calls"])]
        content = None if reply is None else json.dumps(reply)
        return TargetResult(content, tool_calls=calls, input_tokens=40, output_tokens=8)
    return TargetResult(said, input_tokens=20, output_tokens=5, cost=0.001)


_stores = {}


def _talk(case_input):
    """A conversation's turn: the agent asks for the order, then refunds it (its number the
    digits of the user's last message, or the input's ``order`` where it misreads them);
    what it holds kept by conversation, so that each conversation starts fresh."""
    store = _stores.setdefault(case_input["conversation_id"], {"refunds": []})
    messages = case_input["messages"]
    digits = "".join(c for c in messages[-1]["content"] if c.isdigit())
    if not digits:
        ask = {"asks_for": case_input.get("asks_for", "order_id")}
        return {"messages": [{"role": "assistant", "content": json.dumps(ask)}], "state": store}
    order = case_input.get("order", digits)
    store["refunds"].append({"order": order})
    steps = [{"role": "assistant", "content": None,
              "tool_calls": [_call(0, "refund", {"order": order})]},
             {"role": "tool", "tool_call_id": "call_0", "content": json.dumps({"ok": True})},
             {"role": "assistant", "content": json.dumps({"refund": "done", "order": order})}]
    return AgentRun(messages + steps, state=store, input_tokens=30, output_tokens=6)


def answer(case_input):
    if "conversation_id" in case_input:
        return _talk(case_input)
    key = json.dumps(case_input, sort_keys=True)
    k = _asked[key]
    _asked[key] += 1
    runs = case_input.get("runs")
    said = runs[k % len(runs)] if runs is not None else case_input.get("say")
    return _say(case_input, said)


def base(case_input):
    return _say(case_input, case_input["say"])


def cand(case_input):
    return _say(case_input, case_input.get("cand", case_input["say"]))
'''

# The judge's verdicts (tests/helpers/judge_server.py: equal ignoring case, or listed here).
SAME_MEANING = (
    ("two boxes, ships monday", "2 boxes, monday"),
    ("aisle", "on the aisle"),
)

TODAY = "2026-06-01"  # JSONMATCH_TODAY: the quarantine below holds on this day

# vat_split is quarantined through the year; vat_whole's entry ran out the day before TODAY
# (a file that has kept an old entry): it gates again, and the summary says so
QUARANTINE = """
- case: golden/quarantined/cases.yaml::vat_whole
  reason: the VAT was rounded, ticket 17
  until: 2026-05-31
- case: golden/quarantined/cases.yaml::vat_split
  reason: the model drops a digit of the VAT, ticket 41
  until: 2026-12-31
"""

MAIN_INI = """
[pytest]
pythonpath = .
jsonmatch_golden = golden
jsonmatch_target = agent:answer
jsonmatch_judge = model=judge-1 endpoint={judge}
jsonmatch_quarantine = quarantine.yaml
jsonmatch_report = group_by=folder
jsonmatch_gates = fail_under=0.3 pass_k=2 min_pass_hat_k=0.2
jsonmatch_field_floors =
    total=0.5
    status=0.9
"""

VERSUS_INI = """
[pytest]
pythonpath = .
jsonmatch_golden = golden
jsonmatch_targets =
    base = agent:base
    cand = agent:cand
jsonmatch_reference = base
jsonmatch_report = group_by=folder
jsonmatch_gates = fail_under=0.3 max_case_drop=0.6 allow=1
jsonmatch_field_floors =
    total=0.5
"""

# Each kind's case file, by the kind's folder. The arithmetic of each partial score is beside
# its case.
CASE_FILES = {
    "plain": """
        cases:
          - id: exact
            expected: {vendor: ACME, total: 120.0}
            actual: |
              Here is the invoice:
              ```json
              {"vendor": "ACME", "total": 120.0}
              ```
          # total misread: 2 of 3 fields match, F1 2/3
          - id: misread
            threshold: 0.9
            expected: {vendor: Blue Sky, total: 75.5, currency: EUR}
            actual: {vendor: Blue Sky, total: 57.5, currency: EUR}
    """,
    "input": """
        cases:
          - id: right
            input: {say: {vendor: Zeta, total: 9}}
            expected: {vendor: Zeta, total: 9}
          # tax_id made up: precision 2/3, recall 1, F1 0.8
          - id: invented
            input: {say: {vendor: Hooli, total: 12.5, tax_id: X1}}
            expected: {vendor: Hooli, total: 12.5}
    """,
    "reply": """
        threshold: 1.0
        cases:
          - id: rebook
            input:
              reply: {status: rebooked, pnr: ABC123}
              calls: [{name: rebook_flight, arguments: {pnr: ABC123, date: "2026-11-26"}}]
            expected: {status: rebooked, pnr: ABC123}
            expected_calls:
              - {name: rebook_flight, arguments: {pnr: ABC123, date: "2026-11-26"}}
          # the call's date wrong; the answer's status wrong and a note made up
          - id: wrong_date
            input:
              reply: {status: pending, pnr: DEF456, note: waitlisted}
              calls: [{name: rebook_flight, arguments: {pnr: DEF456, date: "2026-11-25"}}]
            expected: {status: rebooked, pnr: DEF456}
            expected_calls:
              - {name: rebook_flight, arguments: {pnr: DEF456, date: "2026-11-26"}}
          # the answer in other words (its 2 fields left out, a note made up: 3 rows, F1 0);
          # the call right but for a seat made up (4 rows, 3 match: F1 6/7). The case scores
          # its parts by their rows, (3 * 0 + 4 * 6/7) / 7 = 24/49, under the precision 3/5
          # and recall 3/5 of all its rows
          - id: chatty
            input:
              reply: {note: rebooked as asked}
              calls:
                - {name: rebook_flight, arguments: {pnr: GHI789, date: "2026-11-27", seat: 12A}}
            expected: {status: rebooked, pnr: GHI789}
            expected_calls:
              - {name: rebook_flight, arguments: {pnr: GHI789, date: "2026-11-27"}}
    """,
    "tool_only": """
        threshold: 1.0
        cases:
          # a reply that only calls: no `expected:`, its calls alone scored (tool_calls)
          - id: cancel
            input:
              reply: null
              calls: [{name: cancel_booking, arguments: {pnr: JKL012, reason: weather}}]
            expected_calls:
              - {name: cancel_booking, arguments: {pnr: JKL012, reason: illness}}
          # the calls alone, under the tool_calls metric: the unit left out
          - id: weather
            metric: tool_calls
            input:
              reply: null
              calls: [{name: get_weather, arguments: {location: Oslo}}]
            expected:
              calls: [{name: get_weather, arguments: {location: Oslo, unit: celsius}}]
          - id: paris
            metric: tool_calls
            input:
              reply: null
              calls: [{name: get_weather, arguments: {location: Paris}}]
            expected:
              calls: [{name: get_weather, arguments: {location: Paris}}]
    """,
    "run": """
        threshold: 1.0
        run_options: {mode: superset}
        cases:
          - id: oslo
            input:
              question: Book the first flight to Oslo on 1 December
              run:
                steps:
                  - [search_flights, {to: Oslo, date: "2026-12-01"}, [{flight: SK401}]]
                  - [book_flight, {flight: SK401, date: "2026-12-01"}, {pnr: PNR1}]
                answer: {pnr: PNR1, status: booked}
                state: {bookings: [{pnr: PNR1, flight: SK401, date: "2026-12-01"}]}
            expected: {pnr: PNR1, status: booked}
            expected_run:
              - {name: search_flights, arguments: {to: Oslo, date: "2026-12-01"}}
              - {name: book_flight, arguments: {flight: SK401, date: "2026-12-01"}}
            expected_state:
              bookings: [{pnr: PNR1, flight: SK401, date: "2026-12-01"}]
          # the 2nd of December booked: both calls' date and the booking's date wrong
          - id: rome
            input:
              question: Book the first flight to Rome on 1 December
              run:
                steps:
                  - [search_flights, {to: Rome, date: "2026-12-02"}, [{flight: AZ12}]]
                  - [book_flight, {flight: AZ12, date: "2026-12-02"}, {pnr: PNR1}]
                answer: {pnr: PNR1, status: booked}
                state: {bookings: [{pnr: PNR1, flight: AZ12, date: "2026-12-02"}]}
            expected: {pnr: PNR1, status: booked}
            expected_run:
              - {name: search_flights, arguments: {to: Rome, date: "2026-12-01"}}
              - {name: book_flight, arguments: {flight: AZ12, date: "2026-12-01"}}
            expected_state:
              bookings: [{pnr: PNR1, flight: AZ12, date: "2026-12-01"}]
    """,
    "judged": """
        options: {fields: {summary: {comparator: semantic}}}
        cases:
          - id: same_meaning
            expected: {id: 1, summary: "two boxes, ships Monday"}
            actual: {id: 1, summary: "2 boxes, Monday"}
          # the judge finds the summary different: 1 of 2 fields, F1 1/2
          - id: different
            input: {say: {id: 2, summary: three boxes}}
            expected: {id: 2, summary: "two boxes, ships Monday"}
    """,
    "repeated": """
        repeat: 3
        options: {fields: {note: {comparator: semantic}}}
        cases:
          - id: steady
            input: {say: {seat: 12A, note: window}}
            expected: {seat: 12A, note: window}
          # run 1 right, run 2 the seat wrong (1/2), run 3 right by the judge: mean 5/6
          - id: flaky
            input:
              runs:
                - {seat: 14C, note: aisle}
                - {seat: 14D, note: aisle}
                - {seat: 14C, note: on the aisle}
            expected: {seat: 14C, note: aisle}
    """,
    "quarantined": """
        cases:
          # quarantined (quarantine.yaml): the VAT wrong, 1 of 2 fields
          - id: vat_split
            expected: {net: 100, vat: 20}
            actual: {net: 100, vat: 2}
          - id: vat_whole
            expected: {net: 50, vat: 10}
            actual: {net: 50, vat: 10}
    """,
    "xfail_fields": """
        cases:
          # only the field the mark names is wrong: an expected failure
          - id: known
            marks: [{xfail: {reason: flight number transposed (FL-12), fields: [flight_number]}}]
            expected: {flight_number: BA117, date: "2026-05-01", origin: LHR}
            actual: {flight_number: BA171, date: "2026-05-01", origin: LHR}
          # the date wrong too: a real failure, counted (1 of 3 fields)
          - id: regressed
            marks: [{xfail: {reason: flight number transposed (FL-12), fields: [flight_number]}}]
            expected: {flight_number: BA117, date: "2026-05-01", origin: LHR}
            actual: {flight_number: BA171, date: "2026-05-02", origin: LHR}
    """,
    "targets": """
        cases:
          # cand lowercases the vendor: 1 of 2 fields
          - id: acme
            input: {say: {vendor: ACME, total: 10}, cand: {vendor: acme, total: 10}}
            expected: {vendor: ACME, total: 10}
          - id: blue
            input: {say: {vendor: Blue, total: 20}}
            expected: {vendor: Blue, total: 20}
          # base makes up a note (F1 0.8); cand drops a digit of the total too
          - id: zeta
            input: {say: {vendor: Zeta, total: 40, note: x}, cand: {vendor: Zeta, total: 4}}
            expected: {vendor: Zeta, total: 40}
          - id: given
            expected: {vendor: Q, total: 1}
            actual: {vendor: Q, total: 1}
    """,
    "conversation": """
        threshold: 1.0
        run_options: {mode: superset}
        cases:
          - id: refund
            conversation:
              - user: I want my money back
                expected: {asks_for: order_id}
              - user: It is order 1234
                expected_run: [{name: refund, arguments: {order: "1234"}}]
                expected: {refund: done, order: "1234"}
            expected_state: {refunds: [{order: "1234"}]}
          # the agent misreads the order (4312): turn 0's answer right (1 row); turn 1's
          # answer (2 rows) and step (2 rows: its name, its order) 1 of 2 each; the state's
          # one row wrong: (1 + 2 * 1/2 + 2 * 1/2 + 0) / 6 = 1/2
          - id: misread_order
            input: {order: "4312"}
            conversation:
              - user: I want my money back
                expected: {asks_for: order_id}
              - user: It is order 1234
                expected_run: [{name: refund, arguments: {order: "1234"}}]
                expected: {refund: done, order: "1234"}
            expected_state: {refunds: [{order: "1234"}]}
    """,
    # each case a run of one shared trace file (trace_file below): the Collector's JSON of
    # three runs the real SDK recorded, chosen by an attribute (as key=value, as a mapping)
    # or by a trace id
    "trace": """
        threshold: 1.0
        run_options: {mode: superset}
        cases:
          - id: oslo
            actual_file: traces/weather.jsonl
            trace: {attribute: session.id=s1}
            expected: {city: Oslo, temp: 3}
            expected_run: [{name: get_weather, arguments: {city: Oslo}}]
          # the temperature misread: the answer (2 rows) 1 of 2; the step (2 rows: its name,
          # its city) right: (2 * 1/2 + 2 * 1) / 4 = 3/4
          - id: rome
            actual_file: traces/weather.jsonl
            trace: {trace_id: 5b8efff798038103d269b633813fc60c}
            expected: {city: Rome, temp: 5}
            expected_run: [{name: get_weather, arguments: {city: Rome}}]
          # its tool failed (the span's status ERROR, its exception recorded): the step was
          # still asked for as expected, and the answer is right
          - id: bergen
            actual_file: traces/weather.jsonl
            trace: {attribute: {session.id: s3}}
            expected: {city: Bergen, temp: 3}
            expected_run: [{name: get_weather, arguments: {city: Bergen}}]
    """,
    # a scenario's runs in one trace file, each a repeat of its case (runs: each): the same
    # file as the trace kind's, its three runs under one root and one resource attribute
    "scenario": """
        threshold: 1.0
        run_options: {mode: superset, args: ignore}
        cases:
          # each run calls get_weather (its one row): 1.0 three times
          - id: called
            actual_file: traces/weather.jsonl
            trace: {root: invoke_agent weather, runs: each}
            expected_run: [{name: get_weather, arguments: {}}]
          # the step's status too: Oslo's and Rome's ok (2 rows, 1.0), Bergen's tool failed
          # (its status row wrong: 1/2); mean 5/6, 2 of 3 runs passed: pass^2 = 1/3
          - id: tool_ok
            actual_file: traces/weather.jsonl
            trace: {attribute: service.name=agent, runs: each}
            expected_run: [{name: get_weather, arguments: {}, status: ok}]
    """,
}

# Which session configuration holds each folder's cases.
SUITE_OF = {kind: "versus" if kind == "targets" else "main" for kind in CASE_FILES}
SUITES = {"main": MAIN_INI, "versus": VERSUS_INI}


# The trace kind's runs, each recorded through the real SDK (otel_traces.genai_run) as its
# session, city, trace id and its tool's failure say; the span ids and the clock are counted,
# so that every build writes the same bytes (and every path's copy of the suite holds them).
TRACES = (
    ("s1", "Oslo", "4bf92f3577b34da6a3ce929d0e0e4736", False),
    ("s2", "Rome", "5b8efff798038103d269b633813fc60c", False),
    ("s3", "Bergen", "6c9aaaa1a2b3c4d5e6f708192a3b4c5d", True),  # its tool fails
)


def trace_file() -> str:
    """The trace kind's file: the runs of TRACES as the Collector's file exporter writes
    them (a line per export, a run each), from spans the real ``opentelemetry-sdk`` recorded
    with ids and times counted rather than drawn."""
    import itertools
    from unittest import mock

    import opentelemetry.sdk.trace as sdk_trace
    from opentelemetry.sdk.resources import Resource
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
    from opentelemetry.sdk.trace.id_generator import IdGenerator

    from tests.helpers.otel_traces import collector_json_lines, genai_run

    class Counted(IdGenerator):
        def __init__(self) -> None:
            self.traces = iter(int(t[2], 16) for t in TRACES)
            self.spans = itertools.count(0x1001)

        def generate_trace_id(self) -> int:
            return next(self.traces)

        def generate_span_id(self) -> int:
            return next(self.spans)

    clock = itertools.count(1_780_000_000_000_000_000, 1_000_000)  # a millisecond a tick
    exporter = InMemorySpanExporter()
    provider = sdk_trace.TracerProvider(
        resource=Resource({"service.name": "agent"}), id_generator=Counted()
    )
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    batches = []
    with mock.patch.object(sdk_trace, "time_ns", lambda: next(clock)):
        for session, city, _, fail in TRACES:
            tracer = provider.get_tracer("tests.matrix_suite")
            genai_run(tracer, session=session, city=city, fail=fail)
            batches.append(exporter.get_finished_spans())
            exporter.clear()
    provider.shutdown()
    return collector_json_lines(*batches)


def build(root: Path, suite: str, judge_url: str) -> Path:
    """Write the ``suite`` configuration's files below ``root``; gives its folder."""
    folder = root / suite
    folder.mkdir(parents=True)
    (folder / "pytest.ini").write_text(SUITES[suite].format(judge=judge_url).lstrip())
    (folder / "agent.py").write_text(AGENT.lstrip())
    (folder / "quarantine.yaml").write_text(QUARANTINE.lstrip())
    for kind, text in CASE_FILES.items():
        if SUITE_OF[kind] == suite:
            path = folder / "golden" / kind / "cases.yaml"
            path.parent.mkdir(parents=True)
            path.write_text(textwrap.dedent(text).lstrip())
    for kind in ("trace", "scenario"):
        if SUITE_OF[kind] == suite:
            (folder / "golden" / kind / "traces").mkdir()
            (folder / "golden" / kind / "traces" / "weather.jsonl").write_text(trace_file())
    return folder
