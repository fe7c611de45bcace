"""Every run of one scenario out of a trace (reading/trace_runs.py): the runs a selection
matches, from spans the real OpenTelemetry SDK recorded (in memory, and written as the
Collector's file exporter writes them), each read as ``read_trace`` reads it, in the order
the source first names them; none matching, or too many, an error naming the source."""

from __future__ import annotations

import pytest

from pytest_jsonmatch import ConfigError, ParseError
from pytest_jsonmatch.engine.reading.trace_runs import read_traces
from pytest_jsonmatch.engine.reading.trace_spans import read_trace
from tests.helpers import otel_traces as ot


def _runs(service: str, *cities: str, fail: tuple[str, ...] = ()) -> list:
    """The spans of one agent run per city, recorded by a provider whose resource names
    ``service`` (each run's root is ``invoke_agent weather``)."""
    with ot.recording(service) as (tracer, exporter):
        for n, city in enumerate(cities):
            ot.genai_run(tracer, session=f"{service}-{n}", city=city, fail=city in fail)
    return list(exporter.get_finished_spans())


def _cities(traces) -> list[str]:
    return [t.messages[0]["content"].removeprefix("Weather in ").rstrip("?") for t in traces]


def test_each_run_an_attribute_selects_is_read_in_the_order_the_file_names_them(tmp_path):
    refund = _runs("refund", "Oslo", "Rome", "Bergen", fail=("Rome",))
    other = _runs("other", "Paris")
    # a run a line (4 spans each), the other scenario's between the first two
    path = tmp_path / "t.jsonl"
    path.write_text(ot.collector_json_lines(refund[:4], other, refund[4:8], refund[8:]))
    traces = read_traces(path, attribute="service.name=refund")
    assert _cities(traces) == ["Oslo", "Rome", "Bergen"]
    for trace in traces:  # each the run read_trace gives under its trace id
        alone = read_trace(path, trace_id=trace.trace_id)
        assert (trace.messages, trace.steps) == (alone.messages, alone.steps)
    assert [s.status for s in traces[1].steps if s.operation == "execute_tool"] == ["error"]


def test_the_order_is_the_first_span_s_place_whichever_lines_were_read(tmp_path):
    # Rome's first line holds no span that carries the attribute (its agent's root span is
    # exported last, on a line of its own): its place is still its first line's
    spans = _runs("refund", "Oslo", "Rome")
    oslo, rome = spans[:4], spans[4:]
    root = [s for s in rome if s.name == "invoke_agent weather"]
    rest = [s for s in rome if s.name != "invoke_agent weather"]
    path = tmp_path / "t.jsonl"
    path.write_text(ot.collector_json_lines(rest, oslo, root))
    by_attribute = read_traces(path, attribute={"session.id": "refund-1"})
    assert _cities(by_attribute) == ["Rome"]
    assert _cities(read_traces(path, root="invoke_agent weather")) == ["Rome", "Oslo"]


def test_runs_of_one_root_from_memory_and_from_protobuf(tmp_path):
    spans = _runs("agent", "Oslo", "Rome")
    assert _cities(read_traces(spans, root="invoke_agent weather")) == ["Oslo", "Rome"]
    # a one-pass iterable is read as often as the runs need
    assert _cities(read_traces(iter(spans))) == ["Oslo", "Rome"]
    path = tmp_path / "t.pb"
    path.write_bytes(ot.collector_proto(spans[:4], spans[4:]))
    assert _cities(read_traces(path)) == ["Oslo", "Rome"]


def test_no_run_matching_names_the_file_and_what_it_holds(tmp_path):
    path = tmp_path / "t.jsonl"
    path.write_text(ot.collector_json_lines(_runs("agent", "Oslo")))
    with pytest.raises(ParseError, match=r"t\.jsonl': no trace matches root='nope'; it holds "):
        read_traces(path, root="nope")
    with pytest.raises(ParseError, match=r"no trace matches attribute=\{'scenario': 'refund'\}"):
        read_traces(path, attribute="scenario=refund")


def test_more_runs_than_a_selection_may_give_is_refused(tmp_path):
    path = tmp_path / "t.jsonl"
    spans = _runs("agent", "Oslo", "Rome", "Bergen")
    path.write_text(ot.collector_json_lines(spans))
    assert len(read_traces(path, most=3)) == 3
    with pytest.raises(ConfigError, match=r"3 traces match, more than the 2 runs one selection"):
        read_traces(path, most=2)
    with pytest.raises(ConfigError, match="attribute must be 'KEY=VALUE'"):
        read_traces(path, attribute="scenario")
