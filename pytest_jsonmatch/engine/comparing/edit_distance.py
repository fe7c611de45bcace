"""Exact Levenshtein distance in time that follows the distance, not the strings' lengths.

The full computation of the distance between two strings of n characters costs about
n * n / 64 machine-word steps (RapidFuzz's bit-parallel algorithm): 40 seconds for two
megabyte strings. When the distance is known to be at most k, only a band of width 2k + 1
around the diagonal matters, and RapidFuzz computes it in about n * k / 64 steps (its
``score_cutoff``). So the distance is asked for under a bound that doubles until the
distance fits: near-identical strings, the common case for a long field, cost a few bands.

Two cheap facts frame the search. The distance is at least the difference in length, so the
first bound starts there. It is at most the Hamming distance of the strings padded to equal
length (substitute every differing position, insert or delete the tail), so the bound never
grows past it, and the last attempt always succeeds. Strings that share nothing still cost
what the full computation does, about twice over (see docs/performance.md).
"""

from __future__ import annotations

from functools import cache
from types import ModuleType

# The first bound tried: a band of this width costs no more than one machine word per character.
FIRST_BOUND = 64
# Up to this length the full computation is as cheap as the first band: one call does it.
SHORT = 4 * FIRST_BOUND


@cache
def _rapidfuzz() -> tuple[ModuleType, ModuleType]:
    """RapidFuzz's Levenshtein and Hamming, imported on first use."""
    from rapidfuzz.distance import Hamming, Levenshtein

    return Levenshtein, Hamming


def levenshtein_distance(expected: str, actual: str) -> int:
    """The exact Levenshtein distance (unit costs) between two strings."""
    levenshtein, hamming = _rapidfuzz()
    # the Hamming distance of the strings padded to equal length, never below the distance
    # (the common prefix's Hamming distance plus the surplus; RapidFuzz 3.0 has no pad=)
    common = min(len(expected), len(actual))
    ceiling = hamming.distance(expected[:common], actual[:common]) + abs(
        len(expected) - len(actual)
    )
    bound = max(FIRST_BOUND, abs(len(expected) - len(actual)))
    while bound < ceiling:
        distance = levenshtein.distance(expected, actual, score_cutoff=bound)
        if distance <= bound:  # above the bound, RapidFuzz answers bound + 1
            return int(distance)
        bound *= 2
    return int(levenshtein.distance(expected, actual, score_cutoff=ceiling))


def levenshtein_similarity(expected: str, actual: str) -> float:
    """1 - distance / the longer length (1 for two empty strings): RapidFuzz's
    ``Levenshtein.normalized_similarity``, computed the same way, bit for bit."""
    longest = max(len(expected), len(actual))
    if longest <= SHORT:
        return float(_rapidfuzz()[0].normalized_similarity(expected, actual))
    return 1.0 - levenshtein_distance(expected, actual) / longest
