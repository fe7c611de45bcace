"""A conversation its simulated user spoiled (status ``simulator``) is neither the agent's
pass nor its failure: counted in no score, no gate and no pass^k, named apart in every
output, summed across shards, set aside against a baseline, and refused by the merge where
a shard marks a case so that could not have been."""

from __future__ import annotations

import copy
import io
import json

import pytest

from pytest_jsonmatch.reporting.render.html import render_html
from pytest_jsonmatch.reporting.render.markdown import render_markdown
from pytest_jsonmatch.reporting.render.text import render_text
from pytest_jsonmatch.reporting.run_model.aggregate import Aggregates, case_result, summarize
from pytest_jsonmatch.reporting.run_model.comparisons import (
    FAILED,
    PASSED,
    SIMULATOR,
    Comparison,
    Status,
)
from pytest_jsonmatch.reporting.run_model.spool import dump_report
from pytest_jsonmatch.reporting.run_model.validation import check_report
from pytest_jsonmatch.reporting.verdicts.baseline import cases_of, uncounted_of
from pytest_jsonmatch.reporting.verdicts.gate_settings import GateSettings
from pytest_jsonmatch.reporting.verdicts.reliability import case_repeats
from pytest_jsonmatch.reporting.verdicts.report import conclude
from pytest_jsonmatch.reporting.verdicts.shard_checks import ShardError, check_comparisons

CONVERSATION = "field_f1+turns+state"
FAULT = "simulator: the simulated user revealed 'jane@example.com' at turn 1 (withhold)"


def _run(case: str, status: Status, score: float, repeat: int = 0, **more: object) -> Comparison:
    return Comparison(
        case_id=f"desk.yaml::{case}",
        nodeid=f"desk.yaml::{case}",
        metric=CONVERSATION,
        score=score,
        threshold=0.8,
        status=status,
        precision=score,
        recall=score,
        f1=score,
        repeat=repeat,
        file="desk.yaml",
        error=FAULT if status == SIMULATOR else "",
        **more,  # type: ignore[arg-type]
    )


RUN = [_run("a", PASSED, 1.0), _run("b", FAILED, 0.5), _run("c", SIMULATOR, 0.0)]


def test_a_spoiled_conversation_counts_in_no_score_and_is_named_apart():
    report, decision = conclude(RUN, GateSettings(fail_under=0.7), {})
    # (1.0 + 0.5) / 2: the spoiled conversation is in neither the count nor the mean
    assert report["overall"] == 0.75 and report["count"] == 2 and report["errors"] == 0
    assert report["simulator"] == 1
    assert [c["status"] for c in report["cases"]] == ["passed", "failed", "simulator"]
    assert decision.failures == []  # fail_under 0.7 holds on the two counted: 0.75
    written = io.StringIO()
    dump_report(
        written,
        {k: v for k, v in report.items() if k not in ("cases", "comparisons")},
        report["cases"],
        report["comparisons"],
    )
    check_report(json.loads(written.getvalue()), "r.json")  # the shipped schema takes it
    assert (
        "simulator: 1 conversation spoiled by its simulated user, not counted (neither\n"
        "  the agent's pass nor its failure): desk.yaml::c"
    ) in render_text(report)
    assert "1 conversation spoiled by its simulated user, not counted" in render_markdown(report)
    html = render_html(report)
    assert 'data-figure="simulator">1<' in html


def test_a_run_without_one_reports_as_before():
    report, _ = conclude(RUN[:2], GateSettings(), {})
    assert "simulator" not in report
    assert "simulator" not in render_text(report) and "simulated" not in render_markdown(report)


def test_a_gate_over_spoiled_conversations_alone_holds_nothing():
    _, decision = conclude([RUN[2]], GateSettings(fail_under=0.7), {})
    assert decision.failures == [
        "fail_under 0.7000: every case of this run is a conversation its simulated user "
        "spoiled (1; a gate holds a conversation whose simulated user kept to its "
        "instructions): nothing to hold to it"
    ]


def test_shards_sum_their_spoiled_conversations():
    one, two = Aggregates(), Aggregates()
    for aggregate, runs in ((one, RUN[:2]), (two, [RUN[2], _run("d", SIMULATOR, 0.0)])):
        for run in runs:
            aggregate.add_case(case_result([run]), [run])
    merged = Aggregates.merged([one, two]).summary()
    assert (merged.spoiled, merged.count, merged.overall) == (2, 2, 0.75)


def test_a_repeated_conversation_spoiled_in_one_run_is_spoiled_and_out_of_pass_k():
    runs = [_run("r", PASSED, 1.0, 0), _run("r", SIMULATOR, 0.0, 1)]
    assert case_result(runs).status == SIMULATOR
    assert summarize(runs).spoiled == 1 and summarize(runs).count == 0
    # pass^k holds the cases all of whose runs were the agent's: none here
    assert case_repeats(runs + [_run("s", PASSED, 1.0, 0), _run("s", FAILED, 0.0, 1)]).keys() == {
        "desk.yaml::s"
    }


def test_against_a_baseline_it_is_set_aside():
    assert "desk.yaml::c" not in cases_of(RUN)
    assert set(uncounted_of(RUN)) == {"desk.yaml::c"}


@pytest.mark.parametrize(
    ("change", "said"),
    [
        ({"metric": "field_f1"}, "yet its metric 'field_f1' is no conversation's"),
        ({"error": "the agent timed out"}, "yet says no fault of the simulator"),
        ({"score": 0.5}, "yet scores 0.5"),
    ],
)
def test_the_merge_refuses_a_case_marked_spoiled_that_could_not_have_been(change, said):
    forged = copy.copy(RUN[2]).replace(**change)
    with pytest.raises(ShardError, match=said):
        check_comparisons("shard-1.json", [forged])
    check_comparisons("shard-1.json", [RUN[2]])  # (the true one passes)
