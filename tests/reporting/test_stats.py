"""The statistics of a baseline comparison (reporting/verdicts/stats.py), against values worked out by
hand: the paired t interval, the smallest detectable drop, Holm's step-down correction and
the exact McNemar test."""

from __future__ import annotations

import math

import pytest

from pytest_jsonmatch.reporting.verdicts.stats import holm, mcnemar_exact, paired_difference

pytestmark = pytest.mark.slow  # (CONTRIBUTING.md: the inner loop leaves it out)


def test_a_paired_difference_by_hand():
    # d = -0.25, -0.25, +0.25, 0, 0, 0: mean -1/24 = -0.041667
    # squared deviations: 2 * (0.208333)^2 + (0.291667)^2 + 3 * (0.041667)^2 = 0.177083
    # s^2 = 0.177083 / 5 = 0.0354167, s = 0.188193, SE = s / sqrt(6) = 0.076830
    # t(0.975, 5) = 2.570582: half width 0.197497, interval -0.239164 to +0.155830;
    # (z(0.975) + z(0.8)) = 1.959964 + 0.841621
    # = 2.801585: detectable 0.215244; t = -0.041667 / 0.076830 = -0.542326, two-sided
    # p = 2 * P(T5 < -0.542326) = 0.6109
    d = paired_difference([-0.25, -0.25, 0.25, 0.0, 0.0, 0.0])
    assert d.n == 6
    assert d.mean == pytest.approx(-1 / 24)
    assert d.se == pytest.approx(0.076830, abs=1e-6)
    assert (d.low, d.high) == (
        pytest.approx(-0.239164, abs=1e-6),
        pytest.approx(0.155830, abs=1e-6),
    )
    assert d.detectable == pytest.approx(0.215244, abs=1e-6)
    assert d.p_value == pytest.approx(0.6109, abs=1e-4)
    assert not d.clearly_below_zero


def test_the_same_drop_in_every_case_is_clearly_below_zero():
    d = paired_difference([-0.5] * 4)
    assert (d.mean, d.low, d.high, d.se, d.detectable, d.p_value) == (
        -0.5,
        -0.5,
        -0.5,
        0.0,
        0.0,
        0.0,
    )
    assert d.clearly_below_zero


@pytest.mark.parametrize("diffs", [[], [-0.3]])
def test_fewer_than_two_pairs_have_no_interval(diffs):
    d = paired_difference(diffs)
    assert (d.low, d.high, d.se, d.detectable, d.p_value) == (None,) * 5
    assert not d.clearly_below_zero
    assert d.mean == (diffs[0] if diffs else 0.0)


def test_a_large_consistent_drop_is_clearly_below_zero():
    # mean -0.1 and little spread: the interval stays below zero
    diffs = [-0.09, -0.11] * 5
    d = paired_difference(diffs)
    s = math.sqrt(sum((x + 0.1) ** 2 for x in diffs) / 9)
    assert d.se == pytest.approx(s / math.sqrt(10))
    assert d.high < 0 and d.clearly_below_zero


def test_holm_by_hand():
    # sorted: 0.005 <= 0.05/4 = 0.0125 reject; 0.01 <= 0.05/3 = 0.0167 reject;
    # 0.03 > 0.05/2 = 0.025: stop (0.04 is not rejected either)
    assert holm([0.01, 0.04, 0.03, 0.005]) == [True, False, False, True]
    assert holm([]) == []
    assert holm([0.049]) == [True] and holm([0.051]) == [False]


@pytest.mark.parametrize(
    ("worse", "better", "p"),
    [
        (0, 0, 1.0),
        (5, 1, 2 * 7 / 64),  # n = 6: (C(6,0) + C(6,1)) / 2^6 = 7/64, doubled
        (6, 0, 2 / 64),  # C(6,0) / 2^6, doubled
        (3, 3, 1.0),  # 2 * 42/64 > 1: capped
        (10, 2, 2 * 79 / 4096),  # n = 12: C(12,0) + C(12,1) + C(12,2) = 1 + 12 + 66 = 79
    ],
)
def test_mcnemar_exact_by_hand(worse, better, p):
    assert mcnemar_exact(worse, better) == pytest.approx(p)
    assert mcnemar_exact(better, worse) == pytest.approx(p)  # two-sided: symmetric


# -- at any size: 0 to 10,000,000 cases, finite and right --------------------------------------


@pytest.mark.parametrize(
    ("worse", "better", "p"),
    [
        (0, 0, 1.0),  # nothing flipped
        (1, 0, 1.0),  # 2 * (1/2)^1 = 1
        (1023, 0, 2.0**-1022),  # 2 * (1/2)^1023: the smallest normal float
        (1024, 0, 2.0**-1023),  # 2 * (1/2)^1024: the old float sum overflowed here
        (1000, 24, None),  # 1,024 flips, both ways: scipy's binomtest
        (10**6, 0, 0.0),  # 2^-999999 underflows to 0: finite, not an error
        (500_000, 500_000, 1.0),  # 10^6 flips, even: the tails meet
        (499_000, 501_000, None),
    ],
)
def test_mcnemar_is_finite_and_exact_at_any_count(worse, better, p):
    from scipy.stats import binomtest

    expected = p if p is not None else binomtest(min(worse, better), worse + better, 0.5).pvalue
    got = mcnemar_exact(worse, better)
    assert math.isfinite(got) and 0.0 <= got <= 1.0
    assert got == pytest.approx(expected, rel=1e-12, abs=0.0)
    assert mcnemar_exact(better, worse) == got  # symmetric


def test_a_paired_difference_of_ten_million_cases_is_finite_and_right():
    # half the cases dropped by 0.001, half did not move: mean -0.0005, s = 0.0005 * sqrt(n /
    # (n - 1)) (a two-point spread), SE = s / sqrt(n); the t interval is mean -/+ 1.96 SE
    n = 10_000_000
    diff = paired_difference([-0.001] * (n // 2) + [0.0] * (n // 2))
    assert diff.n == n and diff.mean == pytest.approx(-0.0005, rel=1e-12)
    se = 0.0005 * math.sqrt(n / (n - 1)) / math.sqrt(n)
    assert diff.se == pytest.approx(se, rel=1e-9)
    assert (diff.low, diff.high) == (
        pytest.approx(-0.0005 - 1.959964 * se, rel=1e-6),
        pytest.approx(-0.0005 + 1.959964 * se, rel=1e-6),
    )
    assert diff.p_value == 0.0 and diff.clearly_below_zero  # t = -3162: as sure as can be


def test_ten_million_equal_differences_have_an_interval_of_that_difference():
    diff = paired_difference([-0.25] * 10_000_000)
    assert (diff.mean, diff.low, diff.high, diff.se, diff.detectable, diff.p_value) == (
        -0.25,
        -0.25,
        -0.25,
        0.0,
        0.0,
        0.0,
    )
    assert paired_difference([0.0] * 10_000_000).p_value == 1.0


def test_holm_at_the_edges():
    from pytest_jsonmatch.reporting.verdicts.stats import holm_adjusted

    assert holm([]) == [] and holm_adjusted([]) == []
    assert holm([0.05]) == [True] and holm_adjusted([0.05]) == [0.05]
    # 0.01, 0.02, 0.04 over m = 3: 3 * 0.01 = 0.03, 2 * 0.02 = 0.04, 1 * 0.04 = 0.04
    assert holm_adjusted([0.04, 0.01, 0.02]) == [
        pytest.approx(0.04),
        pytest.approx(0.03),
        pytest.approx(0.04),
    ]
    # never above 1, and non-decreasing in p's order: 3 * 0.5 -> 1, then max(1, 2 * 0.6) = 1
    assert holm_adjusted([0.5, 0.6, 0.9]) == [1.0, 1.0, 1.0]
    p_values = [i / 1_000_000 for i in range(1_000_000)]  # a million rows: no overflow
    assert holm(p_values)[:1] == [True] and all(0.0 <= a <= 1.0 for a in holm_adjusted(p_values))


def test_equal_differences_that_floats_cannot_sum_exactly_are_that_difference():
    # 0.1 + 0.1 + 0.1 is 0.30000000000000004 in floats: a mean taken by summing would be
    # 0.10000000000000002, with a spread of 1e-17 and a p-value of 1e-32 for no reason
    diff = paired_difference([0.1, 0.1, 0.1])
    assert (diff.mean, diff.low, diff.high, diff.se, diff.p_value) == (0.1, 0.1, 0.1, 0.0, 0.0)
