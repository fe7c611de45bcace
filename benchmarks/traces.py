"""The traces section: a trace file read and scored as an agent's run (issue 98: "reading
and scoring a trace file of 100,000 spans takes under 2 s on this machine").

The files, written once (not timed), as the OpenTelemetry Collector's file exporter writes
OTLP JSON: one ``ExportTraceServiceRequest`` a line, ids in hex, times as strings of
nanoseconds, enums as integers, attributes as ``{key, value: {stringValue...}}``; the spans
follow the GenAI semantic conventions as pydantic-ai's instrumentation writes them (each
model call's ``gen_ai.input.messages`` holding the conversation so far).

- **many runs**: ``--trace-spans`` spans (100,000) as runs of ten spans, ten runs a line:
  an agent (``invoke_agent``, its ``session.id``), three turns of a model call that calls a
  tool and the tool's span (one tool in ten fails: status ERROR and an ``exception``
  event), the last model call's answer, and an HTTP span inside the first and the last
  model call (no step). The case selects its run by ``session.id`` and scores it: its
  three calls (``expected_run``, superset) and its answer's fields (``expected``).
- **one long run**: one agent run of ``--trace-spans`` spans: a model call, its HTTP span
  and a tool call a turn; scored against ten of its calls (superset) and its answer.

Each row times ``read_trace`` (the file read, its run selected, the run's spans read
whole and into its conversation and steps; the long run, a file of one run and no
selection, read a line at a time and whole at once by ``trace_formats.json_run``) then
``RunScorer.scored`` on the trace (the conversation scored), the scorer built once outside
the timing, as a session builds it; against the baseline ``json.loads`` of every line of
the same file (read from disk too), what it parsed dropped as soon as it is timed. CPU
time, ABBA, ``--runs`` runs (11 at most): the median, the ratio as the median of the paired
ratios with its min and max, the times' min, median and max; the target is the issue's,
under 2 s.
"""

from __future__ import annotations

import argparse
import gc
import json
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

SECTION = "traces"
TARGET_S = 2.0
RUN_SPANS = 10  # spans of a run in the file of many runs
RUNS_A_LINE = 10
TOOLS = ("search_flights", "book_flight", "send_email")
NS = 1_000_000  # a millisecond, in nanoseconds


def _value(value: object) -> dict[str, Any]:
    if isinstance(value, bool):
        return {"boolValue": value}
    if isinstance(value, int):
        return {"intValue": str(value)}
    return {"stringValue": value if isinstance(value, str) else json.dumps(value)}


def _span(
    trace: str, span: str, parent: str | None, name: str, start: int, end: int, attrs: dict
) -> dict[str, Any]:
    out: dict[str, Any] = {"traceId": trace, "spanId": span}
    if parent:
        out["parentSpanId"] = parent
    out |= {
        "name": name,
        "kind": 3 if name.startswith(("chat", "POST")) else 1,
        "startTimeUnixNano": str(start),
        "endTimeUnixNano": str(end),
        "attributes": [{"key": k, "value": _value(v)} for k, v in attrs.items()],
        "status": {},
    }
    return out


class _Ids:
    def __init__(self) -> None:
        self.n = 0

    def span(self) -> str:
        self.n += 1
        return f"{self.n:016x}"


def run_spans(run: int, turns: int, ids: _Ids, long: bool = False) -> tuple[list, dict]:
    """One agent run's spans (``turns`` model calls that call a tool, then the answer) and
    its case: the calls it makes and its answer. ``long``: an HTTP span inside every model
    call (else inside the first and the last only), and the conversation so far recorded by
    the first model call only (else by each, which would grow as the square of the turns)."""
    trace = f"{run + 1:032x}"
    agent = ids.span()
    t = 1_700_000_000_000 * NS + run * 10_000 * NS
    history: list[dict] = [{"role": "user", "parts": [{"type": "text", "content": f"Task {run}"}]}]
    spans: list[dict] = []
    calls = []
    for turn in range(turns + 1):
        chat, start = ids.span(), t + (2 * turn + 1) * NS
        last = turn == turns
        if last:
            answer = {"task": run, "status": "booked", "pnr": f"PNR{run}"}
            reply = {
                "role": "assistant",
                "parts": [{"type": "text", "content": json.dumps(answer)}],
            }
        else:
            name = TOOLS[turn % len(TOOLS)]
            arguments = {"to": f"City{run % 7}", "turn": turn, "ref": f"r{run}.{turn}"}
            call_id = f"call_{run}_{turn}"
            calls.append({"name": name, "arguments": arguments})
            part = {"type": "tool_call", "id": call_id, "name": name}
            reply = {"role": "assistant", "parts": [{**part, "arguments": json.dumps(arguments)}]}
        attrs = {
            "gen_ai.operation.name": "chat",
            "gen_ai.request.model": "m",
            "gen_ai.input.messages": history if turn == 0 or not long else [],
            "gen_ai.output.messages": [reply],
            "gen_ai.usage.input_tokens": 50 + 10 * turn,
            "gen_ai.usage.output_tokens": 10,
        }
        spans.append(_span(trace, chat, agent, "chat m", start, start + NS // 2, attrs))
        if long or turn in (0, turns):
            http = {"http.request.method": "POST", "url.full": "http://127.0.0.1/v1/chat"}
            spans.append(_span(trace, ids.span(), chat, "POST", start + 1, start + NS // 3, http))
        history = [*history, reply]
        if last:
            break
        tool, start = ids.span(), t + (2 * turn + 2) * NS
        result = {"ok": True, "ref": f"r{run}.{turn}"}
        attrs = {
            "gen_ai.operation.name": "execute_tool",
            "gen_ai.tool.name": name,
            "gen_ai.tool.call.id": call_id,
            "gen_ai.tool.call.arguments": arguments,
            "gen_ai.tool.call.result": result,
        }
        span = _span(trace, tool, agent, f"execute_tool {name}", start, start + NS // 4, attrs)
        if run % 10 == 9 and turn == 1:  # one tool in ten fails
            span["status"] = {"code": 2, "message": "timeout"}
            span["events"] = [
                {"timeUnixNano": str(start + 1), "name": "exception", "attributes": []}
            ]
        spans.append(span)
        response = {"type": "tool_call_response", "id": call_id, "result": result}
        history = [*history, {"role": "user", "parts": [response]}]
    agent_attrs = {
        "gen_ai.operation.name": "invoke_agent",
        "gen_ai.agent.name": "agent",
        "session.id": f"s{run}",
        "final_result": json.dumps(answer),
    }
    end = t + (2 * turns + 3) * NS
    spans.insert(0, _span(trace, agent, None, "invoke_agent agent", t, end, agent_attrs))
    return spans, {"calls": calls, "answer": answer}


def _line(spans: list[dict]) -> str:
    scope = {"scope": {"name": "pydantic-ai", "version": "2.62.0"}, "spans": spans}
    resource = {"attributes": [{"key": "service.name", "value": {"stringValue": "agent"}}]}
    request = {"resourceSpans": [{"resource": resource, "scopeSpans": [scope]}]}
    return json.dumps(request, separators=(",", ":"))


def write_many(path: Path, total: int) -> dict[int, dict]:
    """A file of ``total`` spans as runs of RUN_SPANS; each run's case, by run."""
    ids, cases, lines, batch = _Ids(), {}, [], []
    for run in range(total // RUN_SPANS):
        spans, cases[run] = run_spans(run, 3, ids)
        assert len(spans) == RUN_SPANS
        batch += spans
        if (run + 1) % RUNS_A_LINE == 0:
            lines.append(_line(batch))
            batch = []
    if batch:
        lines.append(_line(batch))
    path.write_text("\n".join(lines) + "\n")
    return cases


def write_long(path: Path, total: int) -> dict:
    """A file of one run of about ``total`` spans (three a turn); its case."""
    spans, case = run_spans(0, max(1, (total - 4) // 3), _Ids(), long=True)
    lines = [_line(spans[k : k + 1000]) for k in range(0, len(spans), 1000)]
    path.write_text("\n".join(lines) + "\n")
    case["spans"] = len(spans)
    return case


def _cpu(fn: Callable[[], Any]) -> tuple[float, Any]:
    gc.collect()
    t0 = time.process_time()
    out = fn()
    return time.process_time() - t0, out


def _abba(mine: Callable[[], Any], base: Callable[[], Any], runs: int) -> tuple[list, list, Any]:
    """Each side timed ``runs`` times, alternated; what the baseline gave (the whole file
    parsed: hundreds of megabytes) dropped at once, not held through the other side's
    timing; what ``mine`` gave last (a score) kept."""
    m: list[float] = []
    b: list[float] = []
    result = None
    for k in range(runs):
        for fn, acc in ((base, b), (mine, m)) if k % 2 == 0 else ((mine, m), (base, b)):
            took, out = _cpu(fn)
            acc.append(took)
            if fn is mine:
                result = out
            del out
    return m, b, result


def _baseline(path: Path) -> Callable[[], Any]:
    def base() -> list:
        text = path.read_bytes().decode()
        return [json.loads(line) for line in text.split("\n") if line]

    return base


def _row(make_row: Callable[..., Any], case: str, path: Path, m: list, b: list, note: str) -> Any:
    ratios = sorted(x / y for x, y in zip(m, b))
    ratio = statistics.median(ratios)
    t = statistics.median(m)
    spread = f"ratio min {ratios[0]:.2f}x median {ratio:.2f}x max {ratios[-1]:.2f}x"
    times = "/".join(f"{v:.3g}" for v in (min(m), t, max(m)))
    size = path.stat().st_size / 2**20
    return make_row(
        SECTION,
        case,
        t,
        f"json.loads of each line of the same file ({size:.1f} MB)",
        statistics.median(b),
        ratio,
        f"< {TARGET_S:g} s",
        "PASS" if t < TARGET_S else "MISS",
        len(m),
        f"{spread}; times (s) {times}; {note}",
    )


def bench(args: argparse.Namespace, make_row: Callable[..., Any]) -> list[Any]:
    """The section's rows: one run selected out of many, then one long run."""
    from pytest_jsonmatch.engine.agents.agent_scorers import RunScorer
    from pytest_jsonmatch.engine.reading.trace_spans import read_trace

    total, runs = args.trace_spans, min(args.runs, 11)  # (a row takes seconds a run)
    rows = []
    with tempfile.TemporaryDirectory(prefix="jm-bench-traces-") as tmp:
        many, long = Path(tmp) / "many.jsonl", Path(tmp) / "long.jsonl"
        cases = write_many(many, total)
        chosen = len(cases) // 2 + 9  # a run whose second tool failed
        case = cases[chosen]
        scorer = RunScorer(
            case["answer"], case["calls"], None, "field_f1", {"mode": "superset"}, {}
        )

        def mine() -> Any:
            return scorer.scored(read_trace(many, attribute=f"session.id=s{chosen}"))

        m, b, result = _abba(mine, _baseline(many), runs)
        note = (
            f"{len(cases):,} runs of {RUN_SPANS} spans, {RUNS_A_LINE} runs a line; run "
            f"{chosen} selected by session.id, scored {result.score:.2f} over "
            f"{len(result.fields)} rows (its answer, its 3 calls)"
        )
        rows.append(
            _row(make_row, f"{total:,} spans, one run selected and scored", many, m, b, note)
        )
        # the process holds what a user's holds while the long run is timed: the scorer of
        # the 10 expected calls, not the generator's cases and every call it made (their
        # objects, left alive among the reading's, cost it 0.2-0.3 s here)
        del cases, case
        long_case = write_long(long, total)
        wanted = long_case["calls"][:: max(1, len(long_case["calls"]) // 10)][:10]
        scorer = RunScorer(long_case["answer"], wanted, None, "field_f1", {"mode": "superset"}, {})
        made = f"one run of {long_case['spans']:,} spans ({len(long_case['calls']):,} tool calls)"
        del long_case, wanted

        def mine_long() -> Any:
            return scorer.scored(read_trace(long))

        m, b, result = _abba(mine_long, _baseline(long), runs)
        note = (
            f"{made}, scored {result.score:.2f} against 10 of its calls (superset) and its answer"
        )
        rows.append(_row(make_row, f"one run of {total:,} spans read and scored", long, m, b, note))
    return rows
