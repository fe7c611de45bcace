"""The judge's agreement with a person's labels: every figure and interval of
engine/judge/agreement.py held to values worked by hand, to its edge cases, and its
variances to the spread of the estimates over simulated label sets."""

from __future__ import annotations

import math

import numpy as np
import pytest

from pytest_jsonmatch.engine.judge import agreement
from pytest_jsonmatch.engine.judge.agreement import (
    FIGURE_NAMES,
    Counts,
    Figure,
    ac1_se,
    confusion,
    figures,
    held,
    kappa_se,
    panel,
    share,
    wilson,
)

# The worked example (docs/judge.md, "Measuring the judge"): 10 labels, 6 "same", 4
# "different"; the judge says same on 5 of the 6 and on 1 of the 4:
#   tp = 5, fn = 1, fp = 1, tn = 3
# agreement po = (5 + 3) / 10 = 0.8
# judge same = (5 + 1) / 10 = 0.6, person same = (5 + 1) / 10 = 0.6
# kappa: pe = 0.6 * 0.6 + 0.4 * 0.4 = 0.52, kappa = (0.8 - 0.52) / (1 - 0.52) = 0.28 / 0.48
#        = 7/12 = 0.58333
# AC1:   pi = (0.6 + 0.6) / 2 = 0.6, pe = 2 * 0.6 * 0.4 = 0.48,
#        AC1 = (0.8 - 0.48) / (1 - 0.48) = 0.32 / 0.52 = 8/13 = 0.61538
# true-pass 5/6, true-fail 3/4, false accept 1/4, prevalence 0.6, baseline max(.6, .4) = .6
WORKED = Counts(tp=5, fp=1, tn=3, fn=1)
JUDGE = [True] * 5 + [False] + [True] + [False] * 3
HUMAN = [True] * 6 + [False] * 4


def test_the_confusion_matrix_is_counted_item_by_item() -> None:
    assert confusion(JUDGE, HUMAN) == WORKED and WORKED.n == 10
    with pytest.raises(ValueError, match="3 verdicts against 2 labels"):
        confusion([True] * 3, [True] * 2)


def test_the_figures_of_the_worked_example() -> None:
    got = {name: f.value for name, f in figures(WORKED).items()}
    assert got == pytest.approx(
        {
            "agreement": 0.8,
            "kappa": 7 / 12,
            "ac1": 8 / 13,
            "true_pass_rate": 5 / 6,
            "true_fail_rate": 0.75,
            "false_accept_rate": 0.25,
            "prevalence_same": 0.6,
            "constant_baseline": 0.6,
        }
    )


def test_wilson_worked_by_hand() -> None:
    # 8 of 10, z = 1.959964, z^2 = 3.841459:
    # centre = (0.8 + z^2/20) / (1 + z^2/10) = 0.992073 / 1.384146 = 0.716741
    # half = z / 1.384146 * sqrt(0.8 * 0.2 / 10 + z^2 / 400) = 1.415999 * 0.160011 = 0.226577
    assert wilson(8, 10) == pytest.approx((0.490162, 0.943318), abs=1e-6)
    assert wilson(0, 0) is None
    low, high = wilson(0, 5) or (None, None)
    assert low == 0.0 and high == pytest.approx(0.434482, abs=1e-6)


def test_kappas_standard_error_worked_by_hand() -> None:
    # Fleiss, Cohen and Everitt (1969); shares p11 = .5, p12 = .1 (judge same, person
    # different), p21 = .1, p22 = .3; marginals .6/.4 both ways; kappa = 7/12, 1 - kappa = 5/12
    # A = .5 * (1 - 1.2 * 5/12)^2 + .3 * (1 - .8 * 5/12)^2 = .125 + .133333 = .258333
    # B = (5/12)^2 * (.1 * (.6 + .4)^2 + .1 * (.4 + .6)^2) = .173611 * .2 = .034722
    # C = (7/12 - .52 * 5/12)^2 = .366667^2 = .134444
    # var = (A + B - C) / (10 * .48^2) = .158611 / 2.304 = .068842; se = .262377
    assert kappa_se(WORKED) == pytest.approx(0.262377, abs=1e-6)
    kappa = figures(WORKED)["kappa"]
    # 7/12 +- 1.959964 * .262377 = [.069084, 1.097583], clipped to [-1, 1]
    assert (kappa.analytic_low, kappa.analytic_high) == pytest.approx((0.069084, 1.0), abs=1e-5)


def test_ac1s_standard_error_worked_by_hand() -> None:
    # Gwet (2008), q = 2, f = 0: pa = .8, pe = .48, AC1 = 8/13, 1 - AC1 = 5/13; pi = (.6, .4)
    # second = .5 * (1 - .6) + .3 * (1 - .4) - .8 * .48 = .2 + .18 - .384 = -.004
    # third = .5 * .4^2 + .1 * .5^2 + .1 * .5^2 + .3 * .6^2 - .48^2 = .238 - .2304 = .0076
    # var = (.16 - 4 * 5/13 * -.004 + 4 * (5/13)^2 * .0076) / (10 * .52^2)
    #     = (.16 + .006154 + .004497) / 2.704 = .063110; se = .251218
    assert ac1_se(WORKED) == pytest.approx(0.251218, abs=1e-6)
    ac1 = figures(WORKED)["ac1"]
    assert (ac1.analytic_low, ac1.analytic_high) == pytest.approx((0.123006, 1.0), abs=1e-5)


def test_every_figure_has_both_intervals_around_it() -> None:
    for name, f in figures(WORKED).items():
        assert f.value is not None and None not in f, name
        assert f.low <= f.value <= f.high, name  # type: ignore[operator]
        assert f.analytic_low <= f.value <= f.analytic_high, name  # type: ignore[operator]


def test_the_bootstrap_is_seeded_and_the_seed_matters() -> None:
    assert figures(WORKED, seed=3) == figures(WORKED, seed=3)
    big = Counts(50, 9, 31, 10)
    assert figures(big, seed=1)["kappa"].low != figures(big, seed=2)["kappa"].low


def test_the_bootstrap_resamples_the_items() -> None:
    # the counts are drawn from their multinomial: the same percentiles, to the resolution
    # of one item (1/40), as resampling the 40 items by an index matrix
    human = np.array([True] * 22 + [False] * 18)
    judge = human.copy()
    judge[[0, 1, 2, 25, 30]] = ~judge[[0, 1, 2, 25, 30]]
    c = confusion(judge.tolist(), human.tolist())
    rows = np.random.default_rng(7).integers(0, 40, size=(20_000, 40))
    agree = (judge[rows] == human[rows]).mean(axis=1)
    ours = figures(c, resamples=20_000)["agreement"]
    assert (ours.low, ours.high) == pytest.approx(
        tuple(np.percentile(agree, [2.5, 97.5])), abs=0.026
    )


def test_all_one_class_kappa_undefined_ac1_defined() -> None:
    # 12 labels all "same", the judge says same to all: po = 1, pe(kappa) = 1*1 + 0*0 = 1,
    # kappa = 0/0 undefined; pi = 1, pe(AC1) = 2 * 1 * 0 = 0, AC1 = (1 - 0) / 1 = 1
    f = figures(Counts(12, 0, 0, 0))
    assert f["kappa"] == Figure(None)
    assert f["ac1"].value == 1.0 and f["agreement"].value == 1.0
    # no "different" label: the true-fail and false-accept rates are over nothing
    assert f["true_fail_rate"] == Figure(None) and f["false_accept_rate"] == Figure(None)
    assert f["prevalence_same"].value == 1.0 and f["constant_baseline"].value == 1.0


def test_the_kappa_paradox() -> None:
    # skewed labels (18 same, 2 different), the judge right on 18 of 20 (says same to all):
    # po = .9, pe(kappa) = 1 * .9 + 0 * .1 = .9, kappa = 0; pi = .95, pe(AC1) = .095,
    # AC1 = (.9 - .095) / .905 = .889503
    f = figures(Counts(18, 2, 0, 0))
    assert f["kappa"].value == pytest.approx(0.0, abs=1e-12)
    assert f["ac1"].value == pytest.approx(0.805 / 0.905)
    assert f["false_accept_rate"].value == 1.0  # the two wrong answers both passed


def test_no_labels_no_figures() -> None:
    assert figures(Counts(0, 0, 0, 0)) == {name: Figure(None) for name in FIGURE_NAMES}
    assert kappa_se(Counts(0, 0, 0, 0)) is None and ac1_se(Counts(0, 0, 0, 0)) is None
    assert share(0, 0) == Figure(None)


def test_perfect_agreement() -> None:
    f = figures(Counts(7, 0, 3, 0))
    for name in ("agreement", "kappa", "ac1", "true_pass_rate", "true_fail_rate"):
        assert f[name].value == 1.0, name
    assert f["false_accept_rate"].value == 0.0
    assert kappa_se(Counts(7, 0, 3, 0)) == 0.0  # every resample agrees too: no spread seen
    assert f["kappa"].low == 1.0


def test_no_undefined_figure_is_nan_or_zero_in_any_table() -> None:
    for c in [Counts(a, b, d, e) for a in (0, 3) for b in (0, 2) for d in (0, 1) for e in (0, 4)]:
        for name, f in figures(c).items():
            if f.value is None:  # undefined: no interval either
                assert f == Figure(None), (c, name)
            else:
                assert all(x is None or math.isfinite(x) for x in f), (c, name)


@pytest.mark.parametrize(
    ("counts", "se"), [(Counts(240, 30, 180, 50), kappa_se), (Counts(400, 15, 60, 25), ac1_se)]
)
def test_the_standard_errors_match_the_spread_of_the_estimates(counts: Counts, se) -> None:  # type: ignore[no-untyped-def]
    # 4,000 label sets of 500 items drawn from the table's own shares: the sd of the
    # estimates is the standard error the formula gives, within 5% (a wrong term, e.g. the
    # simple po(1 - po) form for AC1 on skewed labels, misses by more)
    drawn = np.random.default_rng(11).multinomial(counts.n, np.array(counts) / counts.n, 4000)
    name = "kappa" if se is kappa_se else "ac1"
    estimates = agreement._points(*drawn.T.astype(np.float64))[name]
    assert se(counts) == pytest.approx(float(np.std(estimates)), rel=0.05)


def test_a_consistency_share() -> None:
    # 9 of 10 items held: 0.9, Wilson [0.595850, 0.982124]
    s = share(9, 10)
    assert s.value == 0.9 and (s.analytic_low, s.analytic_high) == pytest.approx(
        (0.59585, 0.982124), abs=1e-5
    )
    assert s.low is not None and s.high is not None and s.low <= 0.9 <= s.high
    with pytest.raises(ValueError):
        share(11, 10)


def test_held_items_across_askings() -> None:
    asked = [True, True, False, False]
    swapped = [True, False, False, True]
    assert held([asked, swapped]) == [True, False, True, False]
    assert held([asked]) == [True] * 4  # one asking: nothing to disagree with
    assert held([asked, asked, [True, True, True, False]]) == [True, True, False, True]


def test_a_panels_rules() -> None:
    judges = [[True, True, False, True], [True, False, False, False], [True, True, False, False]]
    assert panel(judges, "majority") == [True, True, False, False]
    assert panel(judges, "unanimous") == [True, False, False, False]
    # two judges split: a tie is not a majority for "same"
    assert panel([[True, False], [False, True]], "majority") == [False, False]
    with pytest.raises(ValueError, match="not 'most'"):
        panel(judges, "most")
