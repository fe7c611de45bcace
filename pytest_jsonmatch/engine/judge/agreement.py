"""How far a judge's verdicts agree with a person's: the statistics of a calibration, pure
NumPy, no I/O (docs/judge.md, "Measuring the judge").

Two raters, two categories: the judge's verdict and the person's label, each ``same`` or
``different``. The four cells of their confusion matrix are ``tp`` (both same: a true pass),
``fp`` (the judge same, the person different: a false accept, the costly error of a gate),
``tn`` (both different: a true fail) and ``fn`` (the judge different, the person same). Every
figure is a function of these four counts:

- raw agreement ``(tp + tn) / n``; the true-pass rate ``tp / (tp + fn)``; the true-fail rate
  ``tn / (tn + fp)``; the false-accept rate ``fp / (fp + tn)``; the prevalence of ``same``
  in the labels ``(tp + fn) / n``; the constant-verdict baseline, the agreement of a judge
  that always gives the labels' majority verdict, ``max(prevalence, 1 - prevalence)``;
- Cohen's kappa (Cohen 1960): ``(po - pe) / (1 - pe)``, ``pe`` the agreement expected from
  each rater's own marginals; undefined where ``pe`` is 1 (both raters gave one verdict);
- Gwet's AC1 (Gwet 2008): the same with ``pe = 2 pi (1 - pi)``, ``pi`` the mean share of
  ``same`` over both raters; defined for any n > 0, and not misled by skewed labels as kappa
  is (the kappa paradox: high agreement, low kappa).

Each comes with two 95% intervals. The bootstrap percentile one (Efron 1979) resamples the
items with replacement, 2,000 times from a fixed seed: one matrix of item indices (a row per
resample, made from uniform draws, whose stream NumPy keeps stable across versions), each
row's four counts taken at once; every figure is then computed for all rows as arrays. A
resample where a figure is undefined (a rate over zero items) is left out of that figure's
percentiles. The analytic
one where it exists: Wilson's score interval (Wilson 1927) for each proportion, the
large-sample standard error of kappa (Fleiss, Cohen and Everitt 1969) and Gwet's variance
of AC1 (Gwet 2008, with no finite-population correction), each Wald interval clipped to
[-1, 1]. A figure that is undefined is None, never 0 or NaN.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import NamedTuple

import numpy as np
from numpy.typing import NDArray

Z95 = 1.959963984540054  # the standard normal's 97.5th percentile
SEED = 0
RESAMPLES = 2000
RULES = ("majority", "unanimous")

Floats = NDArray[np.float64]


class Counts(NamedTuple):
    """The judge against the person: the four cells of their confusion matrix."""

    tp: int
    fp: int
    tn: int
    fn: int

    @property
    def n(self) -> int:
        return self.tp + self.fp + self.tn + self.fn


class Figure(NamedTuple):
    """One figure and its 95% intervals: bootstrap percentile (``low``, ``high``) and
    analytic (``analytic_low``, ``analytic_high``); None where undefined or none exists."""

    value: float | None
    low: float | None = None
    high: float | None = None
    analytic_low: float | None = None
    analytic_high: float | None = None


FIGURE_NAMES = (
    "agreement",
    "kappa",
    "ac1",
    "true_pass_rate",
    "true_fail_rate",
    "false_accept_rate",
    "prevalence_same",
    "constant_baseline",
)


def confusion(judge: Sequence[bool], human: Sequence[bool]) -> Counts:
    """The confusion matrix of the judge's verdicts against the person's labels (True:
    ``same``), item by item."""
    if len(judge) != len(human):
        raise ValueError(f"{len(judge)} verdicts against {len(human)} labels")
    j = np.asarray(judge, dtype=bool)
    h = np.asarray(human, dtype=bool)
    return Counts(
        int(np.sum(j & h)), int(np.sum(j & ~h)), int(np.sum(~j & ~h)), int(np.sum(~j & h))
    )


def _ratio(top: Floats, bottom: Floats) -> Floats:
    """top / bottom, NaN where bottom is 0 (an undefined figure, until it leaves NumPy)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(bottom > 0, top / np.where(bottom > 0, bottom, 1.0), np.nan)


def _points(tp: Floats, fp: Floats, tn: Floats, fn: Floats) -> dict[str, Floats]:
    """Every figure from arrays of counts (one element per resample), NaN where undefined."""
    n = tp + fp + tn + fn
    po = _ratio(tp + tn, n)
    judge_same, human_same = _ratio(tp + fp, n), _ratio(tp + fn, n)
    pe_kappa = judge_same * human_same + (1 - judge_same) * (1 - human_same)
    pi = (judge_same + human_same) / 2
    pe_ac1 = 2 * pi * (1 - pi)
    # pe is exactly 1 (and kappa 0/0, undefined) only where both raters gave one verdict
    kappa = _ratio(po - pe_kappa, 1 - pe_kappa)
    return {
        "agreement": po,
        "kappa": kappa,
        "ac1": _ratio(po - pe_ac1, 1 - pe_ac1),
        "true_pass_rate": _ratio(tp, tp + fn),
        "true_fail_rate": _ratio(tn, tn + fp),
        "false_accept_rate": _ratio(fp, fp + tn),
        "prevalence_same": human_same,
        "constant_baseline": np.maximum(human_same, 1 - human_same),
    }


def _value(x: float) -> float | None:
    return None if math.isnan(x) else float(x)


def wilson(k: int, n: int) -> tuple[float, float] | None:
    """Wilson's 95% score interval for the proportion k/n (Wilson 1927); None for n = 0."""
    if n <= 0:
        return None
    p, z2 = k / n, Z95 * Z95
    centre = (p + z2 / (2 * n)) / (1 + z2 / n)
    half = Z95 / (1 + z2 / n) * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n))
    return max(0.0, centre - half), min(1.0, centre + half)


def _table(c: Counts) -> Floats:
    """The confusion matrix as shares: rows the judge (same, different), columns the
    person (same, different)."""
    return np.array([[c.tp, c.fp], [c.fn, c.tn]], dtype=np.float64) / c.n


def kappa_se(c: Counts) -> float | None:
    """Kappa's large-sample standard error (Fleiss, Cohen and Everitt 1969); None where
    kappa is undefined."""
    if c.n == 0:
        return None
    p = _table(c)
    rows, cols = p.sum(axis=1), p.sum(axis=0)
    po, pe = float(np.trace(p)), float(rows @ cols)
    if pe >= 1:  # both raters gave one verdict: kappa is undefined
        return None
    kappa = (po - pe) / (1 - pe)
    diagonal = float(np.sum(np.diag(p) * (1 - (rows + cols) * (1 - kappa)) ** 2))
    crossed = cols[:, None] + rows[None, :]  # cell (i, j): p.i + pj.
    np.fill_diagonal(crossed, 0.0)
    off = (1 - kappa) ** 2 * float(np.sum(p * crossed**2))
    variance = (diagonal + off - (kappa - pe * (1 - kappa)) ** 2) / (c.n * (1 - pe) ** 2)
    return math.sqrt(max(variance, 0.0))


def ac1_se(c: Counts) -> float | None:
    """AC1's standard error by Gwet's variance (Gwet 2008; two raters, two categories, no
    finite-population correction); None for n = 0."""
    if c.n == 0:
        return None
    p = _table(c)
    pi = (p.sum(axis=1) + p.sum(axis=0)) / 2  # each category's mean share over both raters
    pa = float(np.trace(p))
    pe = float(np.sum(pi * (1 - pi)))  # / (q - 1), q = 2
    ac1 = (pa - pe) / (1 - pe)
    second = float(np.sum(np.diag(p) * (1 - pi))) - pa * pe
    third = float(np.sum(p * (1 - (pi[:, None] + pi[None, :]) / 2) ** 2)) - pe * pe
    variance = (pa * (1 - pa) - 4 * (1 - ac1) * second + 4 * (1 - ac1) ** 2 * third) / (
        c.n * (1 - pe) ** 2
    )
    return math.sqrt(max(variance, 0.0))


def _wald(value: float, se: float | None) -> tuple[float | None, float | None]:
    if se is None:
        return None, None
    return max(-1.0, value - Z95 * se), min(1.0, value + Z95 * se)


def _analytic(name: str, c: Counts, value: float) -> tuple[float | None, float | None]:
    """The analytic 95% interval of one defined figure."""
    if name == "kappa":
        return _wald(value, kappa_se(c))
    if name == "ac1":
        return _wald(value, ac1_se(c))
    same = c.tp + c.fn
    k, n = {
        "agreement": (c.tp + c.tn, c.n),
        "true_pass_rate": (c.tp, same),
        "true_fail_rate": (c.tn, c.tn + c.fp),
        "false_accept_rate": (c.fp, c.fp + c.tn),
        "prevalence_same": (same, c.n),
        "constant_baseline": (max(same, c.n - same), c.n),
    }[name]
    return wilson(k, n) or (None, None)


def _percentiles(values: Floats) -> tuple[float | None, float | None]:
    """The 2.5th and 97.5th percentiles of the resamples where the figure is defined."""
    defined = values[~np.isnan(values)]
    if defined.size == 0:
        return None, None
    low, high = np.percentile(defined, [2.5, 97.5])
    return float(low), float(high)


def _resampled(counts: Sequence[int], seed: int, resamples: int) -> NDArray[np.int64]:
    """How many items of each kind (``counts[k]`` items of kind k) each of ``resamples``
    bootstrap resamples holds, one row each: the items resampled with replacement by an
    index matrix of uniform draws (rows made a chunk at a time, so memory stays bounded for
    any number of items), each index's kind then counted."""
    kinds = np.repeat(np.arange(len(counts)), counts)
    n = kinds.size
    rng = np.random.default_rng(seed)
    out = np.empty((resamples, len(counts)), dtype=np.int64)
    rows = max(1, _CHUNK // n)
    for start in range(0, resamples, rows):
        stop = min(resamples, start + rows)
        drawn = kinds[(rng.random((stop - start, n)) * n).astype(np.int64)]
        drawn += (np.arange(stop - start) * len(counts))[:, None]  # each row's own bins
        out[start:stop] = np.bincount(
            drawn.ravel(), minlength=drawn.shape[0] * len(counts)
        ).reshape(-1, len(counts))
    return out


_CHUNK = 4_000_000  # draws held at once (32 MB of doubles)


def figures(c: Counts, seed: int = SEED, resamples: int = RESAMPLES) -> dict[str, Figure]:
    """Every figure of ``c`` with its intervals, by name (FIGURE_NAMES' order)."""
    if c.n == 0:
        return {name: Figure(None) for name in FIGURE_NAMES}
    one = np.array(c, dtype=np.float64)[:, None]
    points = _points(*one)
    drawn = _resampled(c, seed, resamples).T.astype(np.float64)
    spread = _points(*drawn)
    out = {}
    for name in FIGURE_NAMES:
        value = _value(float(points[name][0]))
        if value is None:
            out[name] = Figure(None)
            continue
        low, high = _percentiles(spread[name])
        out[name] = Figure(value, low, high, *_analytic(name, c, value))
    return out


def share(held: int, n: int, seed: int = SEED, resamples: int = RESAMPLES) -> Figure:
    """The share of ``n`` items that ``held`` (a consistency: the verdict the same when
    swapped, asked again or padded), with its bootstrap and Wilson intervals."""
    if not 0 <= held <= n:
        raise ValueError(f"{held} items held of {n}")
    if n == 0:
        return Figure(None)
    drawn = _resampled([held, n - held], seed, resamples)[:, 0] / n  # the items resampled
    low, high = _percentiles(drawn.astype(np.float64))
    return Figure(held / n, low, high, *(wilson(held, n) or (None, None)))


def held(verdicts: Sequence[Sequence[bool]]) -> list[bool]:
    """Per item, whether every asking gave it the same verdict (rows: the askings, e.g. the
    verdict as asked and as swapped, or the k repeats; columns: the items)."""
    table = np.asarray(verdicts, dtype=bool)
    if table.ndim != 2 or table.shape[0] == 0:
        raise ValueError("held() takes one row of verdicts per asking, at least one")
    return [bool(x) for x in np.all(table == table[0], axis=0)]


def panel(verdicts: Sequence[Sequence[bool]], rule: str) -> list[bool]:
    """A panel's verdict per item from its judges' (rows: the judges; True: ``same``).
    ``majority``: more than half of the judges say same (a tie is ``different``: a gate
    passes nothing the panel is split on); ``unanimous``: every judge says same."""
    if rule not in RULES:
        raise ValueError(f"a panel's rule is one of {', '.join(RULES)}, not {rule!r}")
    table = np.asarray(verdicts, dtype=bool)
    if table.ndim != 2 or table.shape[0] == 0:
        raise ValueError("panel() takes one row of verdicts per judge, at least one")
    if rule == "unanimous":
        return [bool(x) for x in np.all(table, axis=0)]
    return [bool(x) for x in 2 * table.sum(axis=0) > table.shape[0]]
