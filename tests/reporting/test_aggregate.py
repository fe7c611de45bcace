"""A run's aggregates (reporting/run_model/aggregate.py): every attempted comparison counts (an error
scores 0), xfail-marked ones stand apart, a repeated case counts once with its mean, and
sums are exact, so any order and any split into parts give the same bits."""

from __future__ import annotations

import math
import pickle
import random
from fractions import Fraction

import pytest

from pytest_jsonmatch.engine.results.field_results import ExactSum, FieldAggregate
from pytest_jsonmatch.reporting.run_model.aggregate import (
    Aggregates,
    CaseResult,
    case_passes,
    case_result,
    summarize,
)
from pytest_jsonmatch.reporting.run_model.comparisons import Comparison, ReportedField, Status


def comparison(case_id, score, status="passed", repeat=0, metric="field_f1", fields=(), error=""):
    return Comparison(
        case_id=case_id,
        nodeid=case_id,
        metric=metric,
        score=score,
        threshold=0.5,
        status=Status(status),
        precision=score,
        recall=score,
        f1=score,
        repeat=repeat,
        error=error,
        file="t.py",
        fields=tuple(fields),
    )


def test_errors_count_as_zero_and_xfail_cases_stand_apart():
    summary = summarize(
        [
            comparison("a", 1.0),
            comparison("b", 0.0, "error", error="no JSON"),
            comparison("c", 0.2, "xfailed"),
            comparison("d", 1.0, "xpassed"),
        ]
    )
    # counted: a (1.0) and b (an error, 0): overall 0.5; c and d apart
    assert summary.overall == 0.5 and summary.count == 2
    assert (summary.errors, summary.xfailed, summary.xpassed) == (1, 1, 1)
    tally = summary.metrics["field_f1"]
    assert (tally.cases, tally.passed, tally.failed, tally.errors) == (2, 1, 0, 1)


def test_a_repeated_case_counts_once_with_its_mean():
    runs = [
        comparison("r", s, "passed" if s >= 0.5 else "failed", repeat=k)
        for k, s in enumerate([1.0, 0.25, 0.75])
    ]
    summary = summarize(runs + [comparison("s", 0.5)])
    case = summary.cases["r"]
    # mean (1 + 0.25 + 0.75) / 3 = 2/3; min 0.25, max 1.0; 2 of 3 runs passed
    assert (case.runs, case.mean, case.low, case.high, case.passed_runs) == (
        3,
        pytest.approx(2 / 3),
        0.25,
        1.0,
        2,
    )
    assert summary.overall == pytest.approx((2 / 3 + 0.5) / 2) and summary.count == 2


@pytest.mark.parametrize(
    ("rule", "scores", "passes"),
    [
        ("mean", [1.0, 0.2, 0.4], True),  # mean 0.5333 >= 0.5
        ("mean", [0.4, 0.5, 0.5], False),  # mean 0.4667
        ("all", [1.0, 0.5, 0.49], False),
        ("all", [0.5, 0.5], True),
        ("majority", [1.0, 0.0, 0.6], True),  # 2 of 3
        ("majority", [1.0, 0.0], False),  # 1 of 2 is not more than half
    ],
)
def test_repeat_rules(rule, scores, passes):
    assert case_passes(scores, 0.5, rule) is passes


def test_a_case_with_an_errored_run_is_an_error():
    case = case_result(
        [comparison("r", 1.0, repeat=0), comparison("r", 0.0, "error", repeat=1, error="timeout")]
    )
    assert (case.status, case.error, case.mean) == ("error", "timeout", 0.5)


def test_exact_sums_do_not_depend_on_order_or_grouping():
    rng = random.Random(5)
    values = [rng.random() * 10 ** rng.randint(-8, 3) for _ in range(2000)]
    whole = ExactSum()
    for v in values:
        whole.add(v)
    shuffled = values[:]
    rng.shuffle(shuffled)
    parts = [ExactSum() for _ in range(7)]
    for i, v in enumerate(shuffled):
        parts[i % 7].add(v)
    merged = ExactSum()
    for part in reversed(parts):
        merged.merge(part)
    assert merged.value == whole.value  # the same bits
    assert whole.value == math.fsum(values)  # the correctly rounded sum


def test_exact_sums_count_repeated_terms_exactly_across_their_batches():
    # terms are noted and counted in batches of PENDING, each distinct value once: values
    # that repeat (scores of 1, 0, -0.0, 2/3) across several batches, read between batches
    rng = random.Random(8)
    values = [
        rng.choice([1.0, 0.0, -0.0, 2 / 3, 0.1, 1e-300, 5e-324])
        for _ in range(3 * ExactSum.PENDING + 17)
    ]
    total = ExactSum()
    exact = Fraction(0)
    for i, v in enumerate(values):
        total.add(v)
        exact += Fraction(v)
        if i in (5, ExactSum.PENDING + 3):  # read in the middle: the rest still adds up
            assert total.units == exact * 2**1074
    assert total.units == exact * 2**1074
    assert total.value == float(exact) == math.fsum(values)
    # what pickles (a worker's aggregates) keeps the terms noted but not yet counted
    half = ExactSum()
    for v in values[:100]:
        half.add(v)
    for sums in (half, ExactSum()):  # (an empty sum too: its state is no false value)
        for protocol in range(pickle.HIGHEST_PROTOCOL + 1):
            back = pickle.loads(pickle.dumps(sums, protocol))
            back.add(1.0)
            assert back.units == sums.units + 2**1074
    assert half.units == sum(map(Fraction, values[:100])) * 2**1074


def test_field_aggregates_merge_into_the_same_numbers_as_one_pass():
    records = [
        ReportedField("x", "x", status, score)
        for status, score in [
            ("match", 1.0),
            ("mismatch", 0.1),
            ("omission", 0.0),
            ("mismatch", 0.7),
            ("hallucination", 0.0),
            ("skipped", 0.0),
        ]
    ]
    one = FieldAggregate()
    for r in records:
        one.add(r)
    left, right = FieldAggregate(), FieldAggregate()
    for r in records[:3]:
        left.add(r)
    for r in records[3:]:
        right.add(r)
    right.merge(left)
    assert right.to_dict() == one.to_dict()
    # skipped counts nowhere: 5 scored, (1 + 0.1 + 0 + 0.7 + 0) / 5 = 0.36
    assert (one.scored, one.mean_score) == (5, pytest.approx(0.36))


def test_fields_are_grouped_by_file_or_folder():
    a = Comparison(
        case_id="x",
        nodeid="x",
        metric="field_f1",
        score=1.0,
        threshold=0.5,
        status=Status.PASSED,
        file="golden/inv/a.yaml",
        fields=(ReportedField("total", "total", "match", 1.0),),
    )
    b = Comparison(
        case_id="y",
        nodeid="y",
        metric="field_match",
        score=0.0,
        threshold=0.5,
        status=Status.FAILED,
        file="golden/prod/b.yaml",
        fields=(ReportedField("total", "total", "mismatch", 0.0),),
    )
    assert set(summarize([a, b], "file").groups) == {"golden/inv/a.yaml", "golden/prod/b.yaml"}
    assert set(summarize([a, b], "folder").groups) == {"golden/inv", "golden/prod"}
    by_metric = summarize([a, b], "metric").groups
    assert by_metric["field_f1"]["total"].mean_score == 1.0
    assert by_metric["field_match"]["total"].mean_score == 0.0


def _aggregates_dict(a):
    s = a.summary()
    return (
        s.overall,
        s.count,
        s.errors,
        s.xfailed,
        s.xpassed,
        {k: t.to_dict() for k, t in s.metrics.items()},
        {k: f.to_dict() for k, f in s.fields.items()},
        {g: {k: f.to_dict() for k, f in v.items()} for g, v in s.groups.items()},
    )


def test_aggregates_merge_in_any_grouping_and_order_into_one_pass():
    from pytest_jsonmatch.reporting.run_model.aggregate import Aggregates, case_aggregates

    rng = random.Random(5)
    cases = []
    for i in range(200):
        score = rng.choice([0.0, 0.1, 1 / 3, 0.7, 1.0, rng.random()])
        status = rng.choice(["passed", "failed", "error", "xfailed", "xpassed"])
        fields = [
            ReportedField(p, p, rng.choice(["match", "mismatch", "omission"]), rng.random())
            for p in rng.sample(["a", "b", "c[].d"], 2)
        ]
        cases.append(
            comparison(
                f"c{i:03d}",
                score,
                status,
                metric=rng.choice(["m1", "m2"]),
                fields=fields,
                error="e" if status == "error" else "",
            )
        )
    one_pass = Aggregates()
    for c in cases:
        one_pass.add_case(case_result([c]), [c])
    assert _aggregates_dict(one_pass)[:2] == (summarize(cases).overall, summarize(cases).count)
    for _ in range(5):
        shuffled = cases[:]
        rng.shuffle(shuffled)
        cut = sorted(rng.sample(range(1, 200), 4))
        parts = [shuffled[a:b] for a, b in zip([0, *cut], [*cut, 200])]
        partials = []
        for part in parts:
            partial = Aggregates()
            for c in part:
                partial.merge(case_aggregates(case_result([c]), [c]))
            partials.append(partial)
        rng.shuffle(partials)
        # ((p0 + p1) + p2) + ... and p0 + (p1 + (p2 + ...)): the same bits
        left = Aggregates.merged(partials)
        right = Aggregates()
        for partial in reversed(partials):
            right = Aggregates.merged([partial, right])
        assert _aggregates_dict(left) == _aggregates_dict(right) == _aggregates_dict(one_pass)
    summary = summarize(cases)
    assert summary.overall == one_pass.summary().overall  # exact, not approximately


def test_merging_aggregates_of_different_groupings_is_refused():
    from pytest_jsonmatch.reporting.run_model.aggregate import Aggregates

    with pytest.raises(ValueError, match="grouped by 'file'"):
        Aggregates("metric").merge(Aggregates("file"))


def _tally_figures(aggregates: Aggregates) -> dict:
    return {
        "overall": aggregates.overall.units,
        "xfailed": aggregates.xfailed,
        "xpassed": aggregates.xpassed,
        **{
            name: (
                t.cases,
                t.passed,
                t.failed,
                t.errors,
                t.checked,
                t.valid,
                t.violated,
                {k: s.units for k, s in t.sums.items()},
            )
            for name, t in aggregates.metrics.items()
        },
    }


@pytest.mark.parametrize("mix", ["one metric", "two metrics", "xfail among them"])
def test_cases_counted_together_give_the_tally_of_cases_counted_one_by_one(mix):
    # a dataset's chunk counts its cases a figure at a time (Aggregates._count_all): the
    # same counts and exact sums as case by case, statuses, checks and violations included
    rng = random.Random(11)
    statuses = [Status.PASSED, Status.FAILED, Status.ERROR]
    if mix == "xfail among them":
        statuses.append(Status.XFAILED)
    cases = []
    for i in range(300):
        score = rng.choice([1.0, 0.0, 0.5, 2 / 3, rng.random()])
        checked = rng.random() < 0.5
        valid = checked and rng.random() < 0.6
        violated = (("a.b", "type"), ("c", "required")) if checked and not valid else ()
        metric = "field_f1" if mix != "two metrics" or i % 3 else "field_match"
        cases.append(
            CaseResult(
                str(i),
                metric,
                1.0,
                rng.choice(statuses),
                1,
                score,
                score,
                score,
                int(score == 1.0),
                rng.random(),
                rng.random(),
                score,
                "f",
                i,
                "",
                0,
                int(checked),
                int(valid),
                violated,
            )
        )
    together, one_by_one = Aggregates(), Aggregates()
    for start in range(0, len(cases), 64):  # in chunks, as a dataset's are counted
        chunk = cases[start : start + 64]
        assert together._count_all(chunk) == any([one_by_one._count(case) for case in chunk])  # noqa: C419 (each counted)
    assert _tally_figures(together) == _tally_figures(one_by_one)
    assert len(together.metrics) == (2 if mix == "two metrics" else 1)
    assert (together.xfailed > 0) == (mix == "xfail among them")
    # and both are the cases' own arithmetic, worked out here
    counted = [c for c in cases if c.status in (Status.PASSED, Status.FAILED, Status.ERROR)]
    expected: dict = {
        "overall": sum(Fraction(c.mean) for c in counted) * 2**1074,
        "xfailed": len(cases) - len(counted),
        "xpassed": 0,
    }
    for metric in {c.metric for c in counted}:
        mine = [c for c in counted if c.metric == metric]
        violated: dict = {}
        for c in mine:
            for place in c.violated:
                violated[place] = violated.get(place, 0) + 1
        expected[metric] = (
            len(mine),
            sum(c.status == Status.PASSED for c in mine),
            sum(c.status == Status.FAILED for c in mine),
            sum(c.status == Status.ERROR for c in mine),
            sum(c.checked for c in mine),
            sum(c.valid for c in mine),
            violated,
            {
                name: sum(Fraction(getattr(c, attr)) for c in mine) * 2**1074
                for name, attr in (
                    ("score", "mean"),
                    ("precision", "precision"),
                    ("recall", "recall"),
                    ("f1", "f1"),
                )
            },
        )
    assert _tally_figures(together) == expected
