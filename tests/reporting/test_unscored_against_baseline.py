"""A case one run could not score is not compared against the baseline (verdicts/baseline.py
``compare``): it is reported once, as unscored, never also as a score that dropped to 0; the
terminal folds the unscored cases into one line per cause (render/text.py ``error_cause``)."""

from __future__ import annotations

import pytest

from pytest_jsonmatch.reporting.render.text import error_cause
from pytest_jsonmatch.reporting.run_model.aggregate import summarize
from pytest_jsonmatch.reporting.run_model.comparisons import Comparison, ReportedField, Status
from pytest_jsonmatch.reporting.verdicts.baseline import Baseline, cases_of, compare
from pytest_jsonmatch.reporting.verdicts.gates import GateSettings, decision_of


def _comparison(case_id: str, score: float, error: str = "") -> Comparison:
    status = "error" if error else "passed" if score >= 0.5 else "failed"
    return Comparison(
        case_id=case_id,
        nodeid=case_id,
        metric="field_f1",
        score=0.0 if error else score,
        threshold=0.5,
        status=Status(status),
        precision=score,
        recall=score,
        f1=score,
        fields=()
        if error
        else (ReportedField("a", "a", "match" if score == 1 else "mismatch", score),),
        error=error or None,
    )


DOWN = "target raised ConnectionError: the model's server refused the connection"


def _held(before: list[Comparison], now: list[Comparison]):
    baseline = Baseline("base.json", 4, cases_of(before))
    return compare(cases_of(now), baseline)


def test_a_case_unscored_now_or_before_is_left_out_of_every_difference():
    before = [
        _comparison("a", 1.0),
        _comparison("b", 1.0),
        _comparison("c", 1.0),
        _comparison("d", 0.0, error=DOWN),
    ]
    now = [
        _comparison("a", 0.5),
        _comparison("b", 0.0, error=DOWN),
        _comparison("c", 1.0),
        _comparison("d", 1.0),
    ]
    held = _held(before, now)
    # b could not be scored now, d could not be scored before: a and c alone are compared
    assert held.unscored == ("b", "d")
    assert held.shared == 2
    # before (1.0 + 1.0) / 2 = 1.0; after (0.5 + 1.0) / 2 = 0.75
    assert (held.before, held.after) == (1.0, 0.75)
    assert [(d.case_id, d.delta) for d in held.cases] == [("a", -0.5), ("c", 0.0)]
    # field a: b held none now, d none before: 2 pairs, a's 1.0 -> 0.5 and c's 1.0 -> 1.0
    (row,) = held.fields
    assert (row.path, row.difference.n, row.before, row.after) == ("a", 2, 1.0, 0.75)


def test_an_outage_fails_as_unscored_and_never_as_dropped_cases():
    before = [_comparison(f"c{n}", 1.0) for n in range(8)]
    now = [_comparison(f"c{n}", 1.0) for n in range(2)]
    now += [_comparison(f"c{n}", 0.0, error=DOWN) for n in range(2, 8)]
    held = _held(before, now)
    verdict = decision_of(summarize(now), GateSettings(max_drop=0.0), held)
    # 6 of 8 unscored, above the 25% a passing gate allows: that one failure, and no case
    # "dropped from 1.0000 to 0.0000", no mean drop, no baseline that shares too few cases
    assert verdict.failures == [
        "6 of 8 cases could not be scored, more than the 25% a passing gate allows: no "
        "gate is judged as passed on what was not scored"
    ]
    assert verdict.blocked == []


def test_one_unscored_case_within_the_share_is_no_drop_either():
    before = [_comparison(f"c{n}", 1.0) for n in range(8)]
    now = [_comparison(f"c{n}", 1.0) for n in range(7)] + [_comparison("c7", 0.0, error=DOWN)]
    held = _held(before, now)
    verdict = decision_of(summarize(now), GateSettings(max_drop=0.0), held)
    # 1 of 8 = 12.5% unscored is within 25%; the 7 compared cases did not move
    assert verdict.failures == []
    assert (held.shared, held.unscored) == (7, ("c7",))


@pytest.mark.parametrize(
    ("error", "cause"),
    [
        (
            "field_f1: 1 field could not be scored (judge 'j' at http://h/v1: not asked) at s",
            "field_f1: fields could not be scored (judge 'j' at http://h/v1: not asked)",
        ),
        (
            "field_f1: 3 fields could not be scored (judge 'j': cut off) at a, b[0].c, d",
            "field_f1: fields could not be scored (judge 'j': cut off)",
        ),
        (DOWN, DOWN),  # any other message is its own cause
    ],
)
def test_a_cause_is_the_message_without_what_is_the_cases_own(error, cause):
    assert error_cause(error) == cause
