"""The statistics of a baseline comparison: how much scores moved case by case, and whether
the move is larger than noise.

Paired differences d_i = now_i - baseline_i over the cases both runs scored:
- mean difference d = sum(d_i) / n; standard error SE = s / sqrt(n), s the sample standard
  deviation of the d_i;
- 95% confidence interval: d -/+ t(0.975, n - 1) * SE;
- smallest drop the run could detect (80% power, 5% two-sided): (z(0.975) + z(0.8)) * SE;
- two-sided p-value of the paired t statistic d / SE.
With n < 2 there is no spread to measure: the interval is unknown. When every difference is
the same, SE is 0 and the interval is that difference exactly.

Scores lie in [0, 1], so a difference lies in [-1, 1]: the interval is cut to that range, and a
detectable drop beyond 1 (few cases, wide spread: no drop the scores allow would stand out) is
None, which every message words as too few cases to tell.

Across fields, p-values are held to a Holm correction; pass -> fail and fail -> pass cases
get an exact McNemar p-value. scipy.stats gives the quantiles (imported on first use).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TYPE_CHECKING

from ...engine.core.slotted import HashedSlotted

if TYPE_CHECKING:
    from ..run_model.report_types import DifferenceDict

CONFIDENCE = 0.95
ALPHA = 1.0 - CONFIDENCE  # the family-wise level of the Holm correction
POWER = 0.8
LARGEST = 1.0  # the largest change of a score in [0, 1]


class PairedDifference(HashedSlotted):
    """What a list of paired differences says. ``low``/``high``/``se``/``detectable``/
    ``p_value`` are None when there are fewer than two pairs; ``detectable`` alone is None
    when no drop a score can make would be detected (:attr:`too_few`)."""

    __slots__ = (
        "n",
        "mean",
        "low",
        "high",
        "se",
        "detectable",
        "p_value",
    )

    def __init__(
        self,
        n: int,
        mean: float,
        low: float | None,
        high: float | None,
        se: float | None,
        detectable: float | None,
        p_value: float | None,
    ) -> None:
        self.n, self.mean, self.low, self.high = n, mean, low, high
        self.se, self.detectable, self.p_value = se, detectable, p_value

    @property
    def too_few(self) -> bool:
        """Two or more pairs, yet too few for their spread: no possible drop detectable."""
        return self.se is not None and self.detectable is None

    @property
    def clearly_below_zero(self) -> bool:
        """The whole confidence interval lies below zero: a drop, not noise."""
        return self.high is not None and self.high < 0.0

    def to_dict(self) -> DifferenceDict:
        return {
            "n": self.n,
            "mean": self.mean,
            "low": self.low,
            "high": self.high,
            "se": self.se,
            "detectable": self.detectable,
            "p_value": self.p_value,
        }


def paired_difference(differences: Sequence[float]) -> PairedDifference:
    """The mean of ``differences`` with its t interval, standard error, detectable drop and
    p-value (see the module docstring)."""
    n = len(differences)
    if n == 0:
        return PairedDifference(0, 0.0, None, None, None, None, None)
    mean = math.fsum(differences) / n
    if n < 2:
        return PairedDifference(n, mean, None, None, None, None, None)
    import numpy as np
    from scipy import stats

    values = np.asarray(differences, dtype=float)
    if values.min() == values.max():  # every difference the same: that value, exactly (a
        mean = float(values[0])  # float sum of three 0.1s is not 0.3, its mean not 0.1)
        return PairedDifference(n, mean, mean, mean, 0.0, 0.0, 1.0 if mean == 0.0 else 0.0)
    deviations = values - mean  # numpy: 10 million in 0.1 s
    variance = math.fsum(deviations * deviations) / (n - 1)
    se = math.sqrt(variance / n)
    if se == 0.0:
        p_value = 1.0 if mean == 0.0 else 0.0
        return PairedDifference(n, mean, mean, mean, 0.0, 0.0, p_value)
    half = float(stats.t.ppf(0.5 + CONFIDENCE / 2, n - 1)) * se
    detectable = (float(stats.norm.ppf(0.5 + CONFIDENCE / 2)) + float(stats.norm.ppf(POWER))) * se
    p_value = float(2.0 * stats.t.sf(abs(mean / se), n - 1))
    return PairedDifference(
        n,
        mean,
        max(mean - half, -LARGEST),
        min(mean + half, LARGEST),
        se,
        detectable if detectable <= LARGEST else None,
        min(p_value, 1.0),
    )


def holm(p_values: Sequence[float], alpha: float = ALPHA) -> list[bool]:
    """Which hypotheses Holm's step-down procedure rejects at family-wise level ``alpha``:
    sort the p-values; reject the k-th smallest while p(k) <= alpha / (m - k + 1); stop at
    the first that is not."""
    m = len(p_values)
    rejected = [False] * m
    for rank, index in enumerate(sorted(range(m), key=lambda i: p_values[i])):
        if p_values[index] > alpha / (m - rank):
            break
        rejected[index] = True
    return rejected


def holm_adjusted(p_values: Sequence[float]) -> list[float]:
    """Holm-adjusted p-values: the k-th smallest p (k from 1) times m - k + 1, made
    non-decreasing in that order, at most 1. A hypothesis is rejected at level alpha exactly
    when its adjusted p is at most alpha (:func:`holm`), so a message can quote one number."""
    m = len(p_values)
    adjusted = [1.0] * m
    running = 0.0
    for rank, index in enumerate(sorted(range(m), key=lambda i: p_values[i])):
        running = max(running, min(1.0, (m - rank) * p_values[index]))
        adjusted[index] = running
    return adjusted


def mcnemar_exact(worse: int, better: int) -> float:
    """Exact two-sided McNemar p-value for ``worse`` cases that went pass -> fail and
    ``better`` that went fail -> pass: twice the binomial(worse + better, 1/2) tail of the
    smaller count, at most 1. The tail is scipy's binomial distribution function, finite for
    any count (a sum of its terms in floating point overflows past 1,023 flips)."""
    total = worse + better
    if total == 0:
        return 1.0
    from scipy import stats

    return min(1.0, 2.0 * float(stats.binom.cdf(min(worse, better), total, 0.5)))


def percentile(ordered: Sequence[float], p: float) -> float:
    """The ``p``-th percentile of sorted values (at least one), by linear interpolation
    (NumPy's default)."""
    rank = (len(ordered) - 1) * p / 100
    low = int(rank)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (rank - low)
