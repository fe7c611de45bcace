"""A dataset run that keeps no comparison builds each case from its result alone
(``one_run_case``): the same case, field for field, as the comparison's ``case_result``."""

from __future__ import annotations

import itertools
import json
import random

import pytest

from pytest_jsonmatch import match_json
from pytest_jsonmatch.reporting.run_model import aggregate
from pytest_jsonmatch.reporting.run_model.aggregate import SCORE_EPSILON, case_result, one_run_case
from pytest_jsonmatch.reporting.run_model.comparisons import Comparison, Status

SCHEMA = {
    "type": "object",
    "required": ["id", "total", "items"],
    "properties": {
        "id": {"type": "string"},
        "total": {"type": "integer", "minimum": 0},
        "items": {
            "type": "array",
            "items": {
                "type": "object",
                "required": ["sku"],
                "properties": {"sku": {"type": "string"}, "qty": {"type": "integer"}},
            },
        },
    },
}


def _answers(rng: random.Random, gold: dict) -> list:
    """Answers to ``gold``: itself, damaged, of the wrong types (invalid against SCHEMA,
    several violations), and cut off (scored closed under truncated=close)."""
    damaged = json.loads(json.dumps(gold))
    damaged["total"] = -damaged["total"] - 1  # breaks "minimum": 0
    damaged["items"][0]["qty"] = "two"
    wrong = {"id": 7, "total": "x", "items": [{"qty": "a"}, {"qty": "b"}, {"sku": 3}]}
    # more violations than a comparison keeps (VIOLATIONS_KEPT, 20), the last of another kind
    many = {**gold, "items": [{"sku": k} for k in range(22)] + [{"sku": "A", "qty": "x"}]}
    text = json.dumps(gold)
    return [
        gold,
        damaged,
        wrong,
        many,
        text[: -rng.randint(3, 12)],
        {**gold, "extra": True},
        {"items": []},
    ]


def _results():
    rng = random.Random(3)
    options = [
        {"metric": "field_f1", "schema": SCHEMA},
        {"metric": "field_f1", "schema": SCHEMA, "truncated": "close"},
        {"metric": "field_f1", "schema": SCHEMA, "conformance": False},
        {"metric": "field_match", "fields": {"total": {"min_score": 1.0}}},
        {"metric": "json_similarity", "schema": SCHEMA},
        {"metric": "structural_f1"},
    ]
    for k in range(6):
        gold = {
            "id": f"r{k}",
            "total": rng.randint(0, 9),
            "items": [{"sku": s, "qty": rng.randint(1, 3)} for s in rng.sample("ABCD", 2)],
        }
        for answer, opts in itertools.product(_answers(rng, gold), options):
            opts = dict(opts)
            metric = opts.pop("metric")
            try:
                yield match_json(answer, gold, metric=metric, **opts)
            except Exception:  # noqa: BLE001 - an answer this metric cannot score: not a case here
                continue


RESULTS = list(_results())


def test_the_results_cover_what_a_case_reads():
    assert len(RESULTS) > 150
    assert any(
        r.conformance is not None and not r.conformance.valid and len(r.conformance.violations) > 1
        for r in RESULTS
    )
    assert any(r.conformance is not None and r.conformance.valid for r in RESULTS)
    assert any(r.conformance is not None and len(r.conformance.violations) > 20 for r in RESULTS)
    assert any(r.truncated is not None for r in RESULTS)
    assert any(
        r.floor_failures for r in RESULTS
    )  # (passed() fails; at threshold 0 the case passes)
    assert len({r.score for r in RESULTS}) > 4


@pytest.mark.parametrize("invalid_fails", [False, True])
def test_a_case_from_its_result_is_the_case_of_its_comparison(invalid_fails):
    thresholds = (0.0, 0.5, 1.0)
    checked = 0
    for i, result in enumerate(RESULTS):
        # the thresholds at, just above and just below the score test the epsilon
        for threshold in (
            *thresholds,
            float(result.score) + SCORE_EPSILON / 2,
            float(result.score) + 2 * SCORE_EPSILON,
        ):
            where = {"case_id": f"c{i}", "file": "g.jsonl", "line": i + 1}
            comparison = Comparison.of_result(
                result,
                nodeid=where["case_id"],
                threshold=threshold,
                passed=result.passed(threshold, invalid_fails),
                values=None,
                invalid_fails=invalid_fails,
                **where,
            )
            expected = case_result([comparison])
            got = one_run_case(result, threshold=threshold, invalid_fails=invalid_fails, **where)
            assert got == expected, (i, threshold)
            checked += 1
    assert checked == 5 * len(RESULTS)


def test_a_field_below_its_floor_fails_the_case_whatever_its_score():
    # b scores 0 under its min_score 1; c and d match: F1 2/3 >= the threshold 0.5, and the
    # test fails on the floor: the case is failed, as its comparison and its test are
    result = match_json(
        {"b": 2, "c": 1, "d": 1}, {"b": 1, "c": 1, "d": 1}, fields={"b": {"min_score": 1}}
    )
    assert float(result.score) == pytest.approx(2 / 3) and result.floor_failures
    where = {"case_id": "floored", "file": "g.yaml", "line": 3}
    comparison = Comparison.of_result(
        result,
        nodeid="floored",
        threshold=0.5,
        passed=result.passed(0.5, False),
        values=None,
        invalid_fails=False,
        **where,
    )
    assert comparison.status == "failed"
    assert case_result([comparison]).status == "failed"
    assert one_run_case(result, threshold=0.5, invalid_fails=False, **where).status == "failed"
    # two runs, the second within its floor: a run that failed its floor fails the case
    clean = Comparison.of_result(
        match_json({"b": 1, "c": 1, "d": 1}, {"b": 1, "c": 1, "d": 1}),
        nodeid="floored",
        threshold=0.5,
        passed=True,
        values=None,
        invalid_fails=False,
        **where,
    )
    assert case_result([comparison, clean]).status == "failed"


def _one_run_comparisons():
    """Comparisons of one run each, as a session records them: scored (passed or failed,
    their tests' outcomes among them), errors, undecided, quarantined, xfailed and
    xpassed, scores of -0.0 and outside the threshold's epsilon."""
    rng = random.Random(11)
    statuses = ("passed", "failed", "error", "xfailed", "xpassed")
    for i, result in enumerate(RESULTS):
        for invalid_fails in (False, True):
            threshold = rng.choice((0.0, 0.5, 1.0, float(result.score) + SCORE_EPSILON / 2))
            comparison = Comparison.of_result(
                result,
                case_id=f"c{i}",
                nodeid=f"c{i}",
                threshold=threshold,
                passed=result.passed(threshold, invalid_fails),
                values=None,
                invalid_fails=invalid_fails,
                file="g.yaml",
                line=i + 1,
                target=rng.choice(("", "cheap")),
            )
            yield comparison
            yield comparison.replace(status=Status(rng.choice(statuses)))
            yield comparison.replace(status=Status.ERROR, error="it broke", score=0.0)
            yield comparison.replace(undecided=2, error="the judge timed out")
            yield comparison.replace(quarantine=("flaky", "2027-01-01"))
            yield comparison.replace(score=-0.0, precision=-0.0, recall=0.0, f1=-0.0)


@pytest.mark.parametrize("rule", ["mean", "all", "majority"])
def test_a_case_run_once_is_the_same_built_either_way(rule, monkeypatch):
    """The ONE_RUN fast path: a case of one run, read from the run alone, is the case the
    general path builds from a list of runs (bit for bit: -0.0 made 0.0 in both)."""
    comparisons = list(_one_run_comparisons())
    assert len(comparisons) > 1000
    fast = [case_result([c], rule) for c in comparisons]
    monkeypatch.setattr(aggregate, "ONE_RUN", False)
    general = [case_result([c], rule) for c in comparisons]
    assert fast == general
    assert [repr(c) for c in fast] == [repr(c) for c in general]  # (-0.0 and 0.0 told apart)
    assert {c.status for c in fast} >= {"passed", "failed", "error", "xfailed", "xpassed"}
