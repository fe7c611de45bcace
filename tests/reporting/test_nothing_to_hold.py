"""Every gate that holds a run's counted cases, given a run that counted none
(reporting/verdicts/gates.py ``nothing_counted``): a failure each in a run of the whole
suite, naming why nothing was counted; one warning naming them all in a run of part of it.
The same verdict in every output (text, Markdown, HTML), which never says the gates passed."""

from __future__ import annotations

from pytest_jsonmatch.reporting.render.html import render_html
from pytest_jsonmatch.reporting.render.markdown import render_markdown
from pytest_jsonmatch.reporting.render.text import render_text
from pytest_jsonmatch.reporting.run_model.comparisons import (
    FAILED,
    XFAILED,
    XPASSED,
    Comparison,
    Status,
)
from pytest_jsonmatch.reporting.verdicts.baseline import Baseline, cases_of
from pytest_jsonmatch.reporting.verdicts.gate_settings import Floor, GateSettings
from pytest_jsonmatch.reporting.verdicts.report import conclude

QUARANTINE = ("flips b", "2026-11-30")
EVERY_GATE = GateSettings(
    fail_under=0.9,
    min_valid=0.5,
    floors=(Floor("total", 0.8), Floor("name", 0.7, "field_f1")),
    strict=True,
    max_drop=0.05,
    max_case_drop=0.2,
    allow_regressions=1,
    min_pass_hat_k=0.5,
)


def _comparison(case: str, status: Status, quarantined: bool = False) -> Comparison:
    return Comparison(
        case_id=f"g.yaml::{case}",
        nodeid=f"g.yaml::{case}",
        metric="field_f1",
        score=0.0,
        threshold=0.5,
        status=status,
        file="g.yaml",
        quarantine=QUARANTINE if quarantined else None,
    )


def _judged(comparisons: list[Comparison], gates: GateSettings = EVERY_GATE):
    before = [_comparison("c1", FAILED), _comparison("c2", FAILED)]
    baseline = Baseline("main.json", 4, cases_of(before))
    return conclude(comparisons, gates, {}, baseline=baseline)  # type: ignore[typeddict-item]


def test_every_gate_fails_a_whole_run_whose_cases_were_all_quarantined():
    quarantined = [_comparison("c1", FAILED, True), _comparison("c2", FAILED, True)]
    report, verdict = _judged(quarantined)
    why = (
        "every case of this run is quarantined (2 cases; a gate holds a case again once its "
        "quarantine ends): nothing to hold to it"
    )
    assert verdict.failures == [
        f"fail_under 0.9000: {why}",
        f"min_valid 0.5000: {why}",
        f"field floors 'total', 'field_f1:name': {why}",
        f"max_drop 0.0500 against the baseline main.json: {why}",
        f"min_pass_hat_k 0.5000: {why}",  # (reliability_gates.py, in the same words)
    ]
    assert verdict.checked == [] and report["gates"]["passed"] is False
    assert "FAILED: jsonmatch gates: 5 failures" in render_text(report)
    assert "**Gates: FAILED**" in render_markdown(report)
    html = render_html(report)
    assert "Gates FAILED" in html and "Gates passed" not in html


def test_the_words_say_which_cases_were_left_out():
    _, xfail = _judged([_comparison("c1", XFAILED), _comparison("c2", XPASSED)])
    assert xfail.failures[0] == (
        "fail_under 0.9000: every case of this run is marked xfail (1 xfailed, 1 xpassed; a "
        "gate holds a case without the mark): nothing to hold to it"
    )
    _, both = _judged([_comparison("c1", XFAILED), _comparison("c2", FAILED, True)])
    assert both.failures[0] == (
        "fail_under 0.9000: no case of this run was counted (1 quarantined, 1 xfailed, 0 "
        "xpassed; a gate holds a case that is neither quarantined nor marked xfail): nothing "
        "to hold to it"
    )
    _, none = _judged([])
    assert none.failures[0] == (
        "fail_under 0.9000: this run compared no case (none was collected: are the golden "
        "cases where the run looks?): nothing to hold to it"
    )


def test_a_run_of_part_of_the_suite_names_the_gates_it_did_not_hold():
    # (the floors of pass^k and pass@k are left out: reliability_gates.py judges them alike in
    # every run)
    part = EVERY_GATE.replace(part_of_suite="-k 'c1'", min_pass_hat_k=None)
    _, verdict = _judged([_comparison("c1", FAILED, True)], part)
    assert verdict.failures == []
    assert verdict.warnings[-1] == (
        "4 gates not held, as this run is part of the suite (-k 'c1') and counted no case (1 "
        "quarantined): fail_under 0.9000, min_valid 0.5000, field floors 'total', 'field_f1:name', "
        "max_drop 0.0500 against the baseline main.json"
    )


def test_no_gate_given_no_verdict():
    _, verdict = conclude([_comparison("c1", FAILED, True)], GateSettings(), {})  # type: ignore[typeddict-item]
    assert (verdict.failures, verdict.checked) == ([], [])
