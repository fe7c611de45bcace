"""What comparing two texts costs and the most one comparison may cost; exact Levenshtein
distance within it, in time that follows the distance, not the strings' lengths.

**Costs.** A comparator that runs on text says what comparing a text of x characters with
one of y costs (:class:`TextCost`), in character pairs, :data:`PAIRS_PER_STEP` of them a
step (64 machine words of RapidFuzz's bit-parallel algorithms: a microsecond or less). An
edit distance computed whole costs the product of the lengths. RapidFuzz's
``partial_ratio`` slides the shorter text over the longer one and computes an edit distance
at each place, so it costs about the longer length times the square of the shorter one's:
one 2,000-character text against 100,000 characters took 47 s. A comparison costing more
than :data:`MAX_COMPARISON_STEPS` is refused before any of the work, a ComparatorError
naming the lengths and the limit (:func:`refuse_past_the_limit`); the trajectory metric
weighs its pair checks with the same costs. Worst cases measured (docs/performance.md):
about a second at the limit.

**Levenshtein.** The full computation of the distance between two strings of n characters
costs about n * n / 64 machine-word steps: 40 seconds for two megabyte strings. When the
distance is known to be at most k, only a band of width 2k + 1 around the diagonal
matters, and RapidFuzz computes it in about n * k / 64 steps (its ``score_cutoff``). So the
distance is asked for under a bound that doubles until the distance fits: near-identical
strings, the common case for a long field, cost a few bands.

Two cheap facts frame the search. The distance is at least the difference in length, so the
first bound starts there. It is at most the Hamming distance of the strings padded to equal
length (substitute every differing position, insert or delete the tail), so the bound never
grows past it, and the last attempt always succeeds. A band at least half as wide as that
last one is not tried: the last is taken at once, so the bands cost at most twice the last.
Each band costs at most the limit of one comparison: past the widest band within it, the
comparison is refused. Strings that share nothing cost what the full computation does, about
twice over (see docs/performance.md).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from functools import cache
from types import ModuleType

from ..core.errors import ComparatorError

# The first bound tried: a band of this width costs no more than one machine word per character.
FIRST_BOUND = 64
# Up to this length the full computation is as cheap as the first band: one call does it.
SHORT = 4 * FIRST_BOUND

# -- what comparing two texts costs ------------------------------------------------------------

PAIRS_PER_STEP = 4_096  # character pairs a step: 64 machine words of 64 bits
MAX_COMPARISON_STEPS = 5_000_000  # one comparison of two values: about a second at most
MAX_COMPARISON_PAIRS = MAX_COMPARISON_STEPS * PAIRS_PER_STEP
_WORD = 64  # characters a machine word holds in the bit-parallel algorithms
# Past this many distinct pairs of lengths, a block's lengths are rounded up (to 4 significant
# bits: at most an eighth more each) before its pairs are summed
_EXACT_GROUPS = 4_096


class TextCost:
    """What comparing a text of ``x`` characters with one of ``y`` costs, in character
    pairs (:meth:`pair`; the same either way round, and never less for a longer text), and
    over every pair of two lists of lengths (:meth:`block`)."""

    __slots__ = ("name",)

    def __init__(self, name: str) -> None:
        self.name = name

    def __repr__(self) -> str:
        return f"TextCost({self.name!r})"

    def pair(self, x: int, y: int) -> int:
        raise NotImplementedError

    def block(self, xs: Sequence[int], ys: Sequence[int]) -> int:
        """The sum of :meth:`pair` over every (x, y): exact for a few distinct lengths,
        else at least that sum (each length rounded up, which never costs less)."""
        left, right = Counter(xs), Counter(ys)
        if len(left) * len(right) > _EXACT_GROUPS:
            left, right = _rounded_up(left), _rounded_up(right)
        return sum(n * m * self.pair(x, y) for x, n in left.items() for y, m in right.items())


def _rounded_up(lengths: Counter[int]) -> Counter[int]:
    """``lengths`` each rounded up to its first 4 significant bits (at most 1/8 more): a few
    values per power of two."""
    out: Counter[int] = Counter()
    for length, count in lengths.items():
        shift = max(0, length.bit_length() - 4)
        out[-(-length >> shift) << shift] += count
    return out


class _Product(TextCost):
    """An edit distance computed whole: ``times`` the product of the lengths."""

    __slots__ = ("times",)

    def __init__(self, name: str, times: int) -> None:
        super().__init__(name)
        self.times = times

    def pair(self, x: int, y: int) -> int:
        return self.times * x * y

    def block(self, xs: Sequence[int], ys: Sequence[int]) -> int:
        return self.times * sum(xs) * sum(ys)


class _Linear(TextCost):
    """Each text read once or twice: a step per 64 characters of either."""

    __slots__ = ()

    def pair(self, x: int, y: int) -> int:
        return (x + y) * (PAIRS_PER_STEP // _WORD)

    def block(self, xs: Sequence[int], ys: Sequence[int]) -> int:
        return (len(ys) * sum(xs) + len(xs) * sum(ys)) * (PAIRS_PER_STEP // _WORD)


class _Partial(TextCost):
    """RapidFuzz's ``partial_ratio``: the shorter text compared with each window of the
    longer one, and with its prefixes and suffixes, each an edit distance of the shorter's
    length: (longer + shorter + 1) places x shorter x its machine words (a needle of 32
    characters or fewer costs what one of 32 does, as measured)."""

    __slots__ = ()

    def pair(self, x: int, y: int) -> int:
        short, long = min(x, y), max(x, y)
        if short == 0:
            return 0
        return (long + short + 1) * max(short, 32) * -(-short // _WORD) * _WORD


EDIT_COST = _Product("edit distance", 1)
BANDED_COST = _Product("levenshtein", 2)  # (the bands double up to the last: at most twice)
LINEAR_COST = _Linear("linear")
PARTIAL_COST = _Partial("partial")


def comparison_steps(cost: TextCost, x: int, y: int) -> int:
    """The steps of comparing a text of ``x`` characters with one of ``y``."""
    return cost.pair(x, y) // PAIRS_PER_STEP


def refuse_past_the_limit(what: str, cost: TextCost, x: int, y: int, hint: str = "") -> None:
    """ComparatorError where comparing a text of ``x`` characters (expected) with one of
    ``y`` would cost more than MAX_COMPARISON_STEPS; ``what`` names the comparator."""
    pairs = cost.pair(x, y)
    if pairs > MAX_COMPARISON_PAIRS:
        raise ComparatorError(
            f"{what}: comparing a text of {x:,} characters with one of {y:,} would take "
            f"{pairs // PAIRS_PER_STEP:,} steps, past the limit of {MAX_COMPARISON_STEPS:,} "
            f"for one comparison{hint}"
        )


# -- exact Levenshtein within the limit ---------------------------------------------------------


@cache
def _rapidfuzz() -> tuple[ModuleType, ModuleType]:
    """RapidFuzz's Levenshtein and Hamming, imported on first use."""
    from rapidfuzz.distance import Hamming, Levenshtein

    return Levenshtein, Hamming


def _band(bound: int, shortest: int, longest: int) -> int:
    """The character pairs of a band of width 2 * bound + 1 (in whole machine words), never
    more than the whole computation's."""
    width = min(2 * bound + 1, shortest)
    return longest * -(-width // _WORD) * _WORD


def _bounds(first: int, ceiling: int, shortest: int, longest: int) -> list[int]:
    """The bounds tried in turn: doubling from ``first`` while a band costs less than half
    the last one, then ``ceiling`` (which always holds the distance); past the widest band
    within the limit, that band is the last one tried."""
    last = _band(ceiling, shortest, longest)
    bounds, bound = [], first
    while bound < ceiling and 2 * _band(bound, shortest, longest) < last:
        bounds.append(bound)
        bound *= 2
    bounds.append(ceiling)
    affordable = [b for b in bounds if _band(b, shortest, longest) <= MAX_COMPARISON_PAIRS]
    if len(affordable) < len(bounds):
        widest = (MAX_COMPARISON_PAIRS // longest // _WORD * _WORD - 1) // 2
        if widest > (affordable[-1] if affordable else -1):
            affordable.append(widest)
    return affordable


def levenshtein_distance(expected: str, actual: str) -> int:
    """The exact Levenshtein distance (unit costs) between two strings; a ComparatorError
    where it lies past the widest band one comparison may compute."""
    levenshtein, hamming = _rapidfuzz()
    shortest, longest = sorted((len(expected), len(actual)))
    # the Hamming distance of the strings padded to equal length, never below the distance
    # (the common prefix's Hamming distance plus the surplus; RapidFuzz 3.0 has no pad=)
    ceiling = hamming.distance(expected[:shortest], actual[:shortest]) + longest - shortest
    bounds = _bounds(max(FIRST_BOUND, longest - shortest), ceiling, shortest, longest)
    for bound in bounds:
        distance = levenshtein.distance(expected, actual, score_cutoff=bound)
        if distance <= bound:  # above the bound, RapidFuzz answers bound + 1
            return int(distance)
    widest = bounds[-1] if bounds else 0
    raise ComparatorError(
        f"comparator 'levenshtein': texts of {len(expected):,} and {len(actual):,} characters "
        f"more than {widest:,} edits apart: their distance would take more than "
        f"{MAX_COMPARISON_STEPS:,} steps, the limit for one comparison"
    )


def levenshtein_similarity(expected: str, actual: str) -> float:
    """1 - distance / the longer length (1 for two empty strings): RapidFuzz's
    ``Levenshtein.normalized_similarity``, computed the same way, bit for bit."""
    n_e, n_a = len(expected), len(actual)
    longest = n_e if n_e > n_a else n_a
    if longest <= SHORT:
        return float((_NORMALIZED or _normalized())(expected, actual))
    return 1.0 - levenshtein_distance(expected, actual) / longest


# RapidFuzz's normalized Levenshtein similarity, once imported (``_normalized``): the import
# statement runs at every call otherwise, a few times the cost of a short comparison
_NORMALIZED: Callable[[str, str], float] | None = None


def _normalized() -> Callable[[str, str], float]:
    global _NORMALIZED
    _NORMALIZED = _rapidfuzz()[0].normalized_similarity
    return _NORMALIZED
