"""pass^k and pass@k of repeated cases (reporting/verdicts/reliability.py): the unbiased estimators
worked by hand, runs that could not be scored counted apart, k never cut silently, the
bootstrap interval the same whatever order the cases come in."""

from __future__ import annotations

import math
import random

import pytest

from pytest_jsonmatch.reporting.run_model.comparisons import (
    ERROR,
    FAILED,
    PASSED,
    XFAILED,
    Comparison,
    ReportedField,
)
from pytest_jsonmatch.reporting.verdicts.reliability import (
    estimate,
    matched_fields,
    pass_at_k,
    pass_hat_k,
    reliability,
)


def _runs(case_id: str, outcomes: str, metric: str = "field_f1", target: str = "") -> list:
    """A case's comparisons, one a letter: p passed, f failed, e not scored, x xfailed."""
    status = {"p": PASSED, "f": FAILED, "e": ERROR, "x": XFAILED}
    return [
        Comparison(
            case_id=case_id,
            nodeid=case_id,
            metric=metric,
            score=1.0 if o == "p" else 0.0,
            threshold=1.0,
            status=status[o],
            repeat=i,
            file="c.yaml",
            target=target,
        )
        for i, o in enumerate(outcomes)
    ]


def test_three_passes_of_five_at_k_2():
    # pass^2 = C(3, 2) / C(5, 2) = 3 / 10; pass@2 = 1 - C(2, 2) / C(5, 2) = 1 - 1 / 10
    assert pass_hat_k(5, 3, 2) == 0.3
    assert pass_at_k(5, 3, 2) == 0.9
    # the biased shortcut some tools use gives 0.6^2 = 0.36: not this estimator
    assert pass_hat_k(5, 3, 2) != pytest.approx(0.6**2)


@pytest.mark.parametrize(
    ("n", "c", "k", "hat", "at"),
    [
        (5, 5, 5, 1.0, 1.0),  # every run passed
        (5, 0, 1, 0.0, 0.0),  # none did
        (5, 4, 5, 0.0, 1.0),  # C(4, 5) = 0: one failure of five, no five-in-a-row estimate
        (4, 2, 1, 0.5, 0.5),  # k = 1: both are the pass rate, 2 / 4
        (6, 3, 3, 1 / 20, 19 / 20),  # C(3, 3) / C(6, 3) = 1 / 20; 1 - C(3, 3) / 20
    ],
)
def test_the_estimators_by_hand(n, c, k, hat, at):
    assert pass_hat_k(n, c, k) == hat
    assert pass_at_k(n, c, k) == at


def test_large_counts_stay_exact_and_in_range():
    # C(1000, 500) is a 300-digit number: divided once as integers, never overflowing
    value = pass_hat_k(1000, 999, 500)  # C(999, 500) / C(1000, 500) = 500 / 1000
    assert value == 0.5
    assert 0.0 <= pass_at_k(1000, 1, 999) <= 1.0


@pytest.mark.parametrize(("n", "c", "k"), [(3, 4, 1), (3, 1, 4), (3, 1, 0), (0, 0, 1)])
def test_impossible_counts_are_refused(n, c, k):
    with pytest.raises(ValueError, match="pass@k needs"):
        pass_hat_k(n, c, k)


def test_the_run_figure_is_the_mean_over_cases_with_unscored_runs_apart():
    comparisons = [
        *_runs("a", "pppff"),  # 3 of 5: pass^2 0.3, pass@2 0.9
        *_runs("b", "ppppp"),  # 5 of 5: 1.0, 1.0
        *_runs("c", "pepf"),  # 3 scored, 2 passed: pass^2 = C(2, 2) / C(3, 2) = 1 / 3,
        # pass@2 = 1 - C(1, 2) / 3 = 1; the error is neither a pass nor a failure
        *_runs("one", "f"),  # run once: not a repeated case
        *_runs("x", "xx"),  # xfail-marked: not counted
    ]
    found = reliability(comparisons)
    assert found is not None
    # k: the fewest runs of a repeated case all of whose runs were scored (a and b: 5); c has
    # an unscored run, so its 4 runs do not decide k
    assert found.k == 5 and not found.given
    # at k = 5 only a and b have 5 scored runs: c is named, not cut to a smaller k
    assert found.too_few_scored == ("c",) and found.too_few_runs == ()
    assert found.pass_hat is not None and found.pass_at is not None
    # a: C(3, 5) / C(5, 5) = 0, b: 1 -> mean 0.5; pass@5: a 1 - C(2, 5) / 1 = 1, b 1 -> 1
    assert (found.pass_hat.mean, found.pass_hat.cases) == (0.5, 2)
    assert found.pass_at.mean == 1.0
    assert found.unscored == 1
    assert found.flaky == ("a", "c")

    at_two = reliability(comparisons, given_k=2)
    assert at_two is not None and at_two.given
    # (0.3 + 1.0 + 1/3) / 3 = 0.5444...; pass@2: (0.9 + 1 + 1) / 3 = 0.9667
    assert at_two.pass_hat is not None and at_two.pass_at is not None
    assert at_two.pass_hat.mean == pytest.approx((0.3 + 1.0 + 1 / 3) / 3, abs=1e-15)
    assert at_two.pass_at.mean == pytest.approx(2.9 / 3, abs=1e-15)
    cases = {f.runs.case_id: (f.pass_hat, f.pass_at) for f in at_two.cases}
    assert cases == {"a": (0.3, 0.9), "b": (1.0, 1.0), "c": (1 / 3, 1.0)}


def test_a_given_k_above_a_case_s_runs_is_named_never_cut():
    found = reliability([*_runs("a", "ppp"), *_runs("b", "pfpfp")], given_k=5)
    assert found is not None
    assert found.k == 5 and found.too_few_runs == ("a",)
    # b alone makes the figure: C(3, 5) = 0 -> pass^5 0; a is not estimated at a smaller k
    assert found.pass_hat is not None and found.pass_hat.cases == 1
    assert [f.pass_hat for f in found.cases] == [None, 0.0]


def test_no_repeated_case_no_reliability():
    assert reliability([*_runs("a", "p"), *_runs("b", "f")]) is None


def test_groups_and_targets_have_their_own_figures():
    comparisons = [
        *_runs("a[big]", "pp", target="big"),
        *_runs("a[small]", "pf", target="small"),
        *_runs("b", "ff", metric="field_match"),
    ]
    found = reliability(comparisons, given_k=2)
    assert found is not None
    hats = {key: pair[0].mean for key, pair in found.groups.items() if pair[0] is not None}
    # a[big]: C(2, 2) / C(2, 2) = 1; a[small]: C(1, 2) = 0; b: 0
    assert hats == {"field_f1 [big]": 1.0, "field_f1 [small]": 0.0, "field_match": 0.0}
    assert {k: p[0].mean for k, p in found.targets.items() if p[0]} == {"big": 1.0, "small": 0.0}


def test_the_interval_holds_the_mean_and_ignores_the_order_of_cases():
    values = [0.0, 0.3, 1.0, 1.0, 0.9, 0.5, 0.25, 1.0]
    first = estimate(values)
    assert first is not None and first.low is not None and first.high is not None
    assert 0.0 <= first.low <= first.mean <= first.high <= 1.0
    assert first.mean == math.fsum(values) / 8
    # comparisons in any order (xdist, shards) give the same cases in id order, same figures
    comparisons = [c for i, v in enumerate("pfpfppfpffpp") for c in _runs(f"c{i}", "pp" + v)]
    shuffled = list(comparisons)
    random.Random(1).shuffle(shuffled)
    assert reliability(comparisons) == reliability(shuffled)


def test_an_interval_needs_two_cases_and_spread():
    one = estimate([0.3])
    assert one is not None and (one.low, one.high) == (None, None)
    same = estimate([1.0, 1.0, 1.0])
    assert same is not None and (same.low, same.high) == (1.0, 1.0)
    assert estimate([]) is None


def _fielded(case_id: str, runs: list[list[tuple[str, str]]], outcomes: str) -> list:
    """A case's comparisons (as :func:`_runs`), each run with its fields, (field path,
    status) each: a match scores 1, anything else 0."""
    return [
        comparison.replace(
            fields=tuple(
                ReportedField(path, path, status, 1.0 if status == "match" else 0.0)
                for path, status in fields
            ),
        )
        for comparison, fields in zip(_runs(case_id, outcomes), runs, strict=True)
    ]


def test_each_field_has_pass_hat_k_and_pass_at_k_over_the_cases_that_have_it():
    hit, miss = ("a", "match"), ("a", "mismatch")
    comparisons = [
        # one: a matched in 3 of 3 runs; b too, but as an item of a list (items[].b, two
        # rows a run), whose second run has one item left out: that run fails items[].b
        *_fielded(
            "one",
            [
                [hit, ("items[].b", "match"), ("items[].b", "match")],
                [hit, ("items[].b", "match"), ("items[].b", "omission")],
                [hit, ("items[].b", "match"), ("items[].b", "match")],
            ],
            "ppp",
        ),
        # two: a matched in 2 of 3 runs; a field the output made up (hallucination) and one
        # not scored (skipped) are not fields of the case
        *_fielded(
            "two",
            [[hit, ("x", "hallucination")], [miss, ("y", "skipped")], [hit]],
            "pfp",
        ),
        # three: 4 runs, one not scored: its fields count for nothing (n = 3 scored, a 1 of 3)
        *_fielded("three", [[hit], [miss], [("a", "batch_error")], [miss]], "pfef"),
    ]
    found = reliability(comparisons, given_k=2)
    assert found is not None and found.fields is not None
    assert list(found.fields) == ["a", "items[].b"]
    a, b = found.fields["a"], found.fields["items[].b"]
    assert a.pass_hat is not None and a.pass_at is not None
    # a, k = 2: one: C(3, 2) / C(3, 2) = 1; two: C(2, 2) / C(3, 2) = 1/3; three: C(1, 2) = 0
    # -> pass^2 = (1 + 1/3 + 0) / 3 = 4/9
    # pass@2: one 1; two 1 - C(1, 2) / 3 = 1; three 1 - C(2, 2) / C(3, 2) = 2/3 -> 8/9
    assert a.cases == 3 and a.pass_hat.cases == 3
    assert a.pass_hat.mean == pytest.approx(4 / 9, abs=1e-15)
    assert a.pass_at.mean == pytest.approx(8 / 9, abs=1e-15)
    # items[].b: only case one, 2 of 3 runs: pass^2 = 1/3, pass@2 = 1 - C(1, 2) / 3 = 1
    assert b.cases == 1 and b.pass_hat is not None and b.pass_at is not None
    assert (b.pass_hat.mean, b.pass_hat.low, b.pass_at.mean) == (1 / 3, None, 1.0)
    # the report's section carries them, estimates as the run's are written
    section = found.to_dict()
    assert section["fields"]["items[].b"] == {
        "pass_hat_k": {"mean": 1 / 3, "low": None, "high": None, "cases": 1},
        "pass_at_k": {"mean": 1.0, "low": None, "high": None, "cases": 1},
        "cases": 1,
    }
    assert "fields_not_kept" not in section


def test_the_brief_s_worked_example_two_cases_three_runs():
    hit, miss = ("a", "match"), ("a", "mismatch")
    comparisons = [
        *_fielded("c1", [[hit], [hit], [hit]], "ppp"),
        *_fielded("c2", [[hit], [miss], [hit]], "pfp"),
    ]
    found = reliability(comparisons, given_k=2)
    assert found is not None and found.fields is not None
    a = found.fields["a"]
    assert a.pass_hat is not None and a.pass_at is not None
    # pass^2: c1 C(3, 2) / C(3, 2) = 1, c2 C(2, 2) / C(3, 2) = 1/3 -> mean 2/3
    # pass@2: c1 1, c2 1 - C(1, 2) / C(3, 2) = 1 -> mean 1
    assert a.pass_hat.mean == pytest.approx(2 / 3, abs=1e-15)
    assert (a.pass_at.mean, a.pass_at.low, a.pass_at.high) == (1.0, 1.0, 1.0)


def test_a_field_of_a_case_short_of_k_scored_runs_is_counted_but_not_estimated():
    hit = ("a", "match")
    comparisons = [
        *_fielded("full", [[hit], [hit]], "pp"),
        *_fielded("short", [[hit], [("a", "batch_error")]], "pe"),  # 1 scored run of 2
    ]
    found = reliability(comparisons, given_k=2)
    assert found is not None and found.fields is not None
    a = found.fields["a"]
    assert a.cases == 2 and a.pass_hat is not None and a.pass_hat.cases == 1


def test_field_passes_counted_apart_give_the_figures_of_the_records():
    # a session that keeps no field records counts each case's field passes as its
    # comparisons come (field_counts.FieldCounts.passes): the same figures
    hit, miss = ("a", "match"), ("a", "mismatch")
    comparisons = [
        *_fielded("c1", [[hit], [hit], [hit]], "ppp"),
        *_fielded("c2", [[hit], [miss], [hit]], "pfp"),
    ]
    kept = reliability(comparisons, given_k=2)
    assert kept is not None
    passes = matched_fields(comparisons, [f.runs for f in kept.cases])
    counted = reliability(comparisons, given_k=2, passes=passes)
    assert counted is not None
    assert counted.to_dict() == kept.to_dict() and kept.fields
