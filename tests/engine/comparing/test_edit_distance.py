"""Exact Levenshtein under a growing bound (engine/comparing/edit_distance.py): the distance and the
similarity equal RapidFuzz's full computation, bit for bit, for short and long strings,
near-identical and unrelated; a megabyte string one percent changed scores within a
generous bound under json_similarity."""

from __future__ import annotations

import random
import string

import pytest
from rapidfuzz.distance import Levenshtein

from pytest_jsonmatch import match_json
from pytest_jsonmatch.engine.comparing.edit_distance import (
    FIRST_BOUND,
    SHORT,
    levenshtein_distance,
    levenshtein_similarity,
)
from tests.helpers.timeout import GENEROUS, within


def _damaged(rng: random.Random, text: str, edits: int) -> str:
    chars = list(text)
    for _ in range(edits):
        at = rng.randrange(len(chars) + 1)
        kind = rng.random()
        if kind < 0.4 and at < len(chars):
            chars[at] = rng.choice(string.ascii_letters)
        elif kind < 0.7 and at < len(chars):
            del chars[at]
        else:
            chars.insert(at, rng.choice(string.ascii_letters))
    return "".join(chars)


@pytest.mark.parametrize("seed", range(6))
def test_distance_and_similarity_equal_the_full_computation(seed):
    rng = random.Random(seed)
    for length in (0, 1, 5, SHORT - 1, SHORT + 1, 3_000, 20_000):
        text = "".join(rng.choices("ab c", k=length))
        # few edits (one band), many (the bound doubles), and an unrelated string
        for other in (
            _damaged(rng, text, 3),
            _damaged(rng, text, length // 7 + 1),
            "".join(rng.choices("abc ", k=rng.randint(0, length + 50))),
        ):
            assert levenshtein_distance(text, other) == Levenshtein.distance(text, other)
            assert levenshtein_similarity(text, other) == Levenshtein.normalized_similarity(
                text, other
            )


def test_a_distance_just_past_each_bound_is_still_exact():
    # distance FIRST_BOUND + 1 fails the first band (RapidFuzz answers bound + 1) and fits
    # the second; lengths equal, so the Hamming ceiling is the substitutions themselves
    text = "a" * 5_000
    for distance in (FIRST_BOUND - 1, FIRST_BOUND, FIRST_BOUND + 1, 2 * FIRST_BOUND + 1):
        other = "b" * distance + text[distance:]
        assert levenshtein_distance(text, other) == distance


def test_a_shift_by_one_costs_two_edits_not_the_hamming_ceiling():
    # Hamming (padded) sees every position differ; Levenshtein deletes one character at the
    # front and inserts one at the end: 2
    text = "".join(random.Random(1).choices(string.ascii_letters, k=10_000))
    assert levenshtein_distance(text, text[1:] + "Z") == 2


def test_similarity_of_two_empty_strings_is_one():
    assert levenshtein_similarity("", "") == 1.0


def test_megabyte_string_one_percent_changed_scores_exactly_and_quickly():
    rng = random.Random(5)
    text = "".join(rng.choices(string.ascii_letters + " ", k=1_000_000))
    chars = list(text)
    for _ in range(10_000):
        chars[rng.randrange(len(chars))] = rng.choice(string.ascii_letters)
    changed = "".join(chars)
    with within(GENEROUS, "json_similarity on a 1 MB string, 1% changed"):
        result = match_json({"t": changed}, {"t": text}, metric="json_similarity")
    distance = sum(x != y for x, y in zip(text, changed))  # substitutions only: at most this
    assert levenshtein_distance(text, changed) <= distance
    assert result.score == 1.0 - levenshtein_distance(text, changed) / 1_000_000
    assert 0.99 <= result.score < 1.0
