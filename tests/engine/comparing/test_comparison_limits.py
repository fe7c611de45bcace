"""One comparison of two values is bounded, whatever the texts (engine/comparing/edit_distance.py).

Each comparator that runs on text says what comparing two lengths costs (``TextCost``), and
a comparison costing more than MAX_COMPARISON_STEPS is a ComparatorError naming the
comparator, the lengths and the limit, before any of the work: RapidFuzz's ``partial_ratio``
grows with the product of the longer text's length and the square of the shorter's (one
pair of a 2,000-character reference and a 100,000-character answer took 47 s), the edit
distances with the product of the lengths. The same holds in the all-pairs forms and in the
trajectory's budget. Within the limit every score is RapidFuzz's own, bit for bit.

What a comparator keeps between comparisons is bounded too: the ``date`` comparator
remembers only short texts, the ``cosine`` comparator's vectors a bounded number of
characters of text.

The comparisons that used to take from tens of seconds to minutes run in a subprocess with
a timeout, so that a regression fails instead of hanging the suite.
"""

from __future__ import annotations

import gc
import json
import subprocess
import sys
import textwrap
import tracemalloc

import pytest
from rapidfuzz import fuzz

from pytest_jsonmatch import match_json
from pytest_jsonmatch.engine.comparing import comparators, edit_distance, embeddings
from pytest_jsonmatch.engine.comparing.comparators import bind_date, bind_fuzzy, bind_levenshtein
from pytest_jsonmatch.engine.comparing.registry import REGISTRY

# Work that took 9 s to minutes ends in well under a second now, in a subprocess whose own
# start and imports take about half a second (a few on a loaded machine)
TIMEOUT = 20

REFERENCE = ("lorem ipsum dolor sit amet " * 80)[:2000]  # an author's 2,000 characters


def _bounded(script: str) -> dict:
    """``script`` run in a fresh interpreter within TIMEOUT seconds; it prints JSON: a
    score, or an error's type and message."""
    prelude = textwrap.dedent(
        """
        import json
        from pytest_jsonmatch import match_json

        REFERENCE = ("lorem ipsum dolor sit amet " * 80)[:2000]

        def scored(actual, expected, **options):
            try:
                r = match_json(actual, expected, **options)
            except Exception as error:
                print(json.dumps({"error": type(error).__name__, "message": str(error)}))
            else:
                print(json.dumps({"score": r.score}))
        """
    )
    done = subprocess.run(
        [sys.executable, "-c", prelude + textwrap.dedent(script)],
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
    )
    assert done.returncode == 0, done.stderr
    out: dict = json.loads(done.stdout.strip().splitlines()[-1])
    return out


# -- fuzzy partial: the finding ---------------------------------------------------------------


def test_a_long_answer_against_a_long_reference_under_partial_is_refused_at_once():
    # 2,000 characters of reference against 100,000 of answer took 32 to 47 s (and 1,000,000
    # more than a minute): now a ComparatorError naming the sizes, the steps and the limit
    out = _bounded(
        """
        answer = ("abcdefghij" * 10_000)[:100_000]
        scored({"q": answer}, {"q": REFERENCE},
               fields={"q": {"comparator": {"fuzzy": {"method": "partial"}}}})
        """
    )
    assert out["error"] == "ComparatorError"
    assert out["message"] == (
        "comparator 'fuzzy' (method 'partial'): comparing a text of 2,000 characters with one "
        "of 100,000 would take 102,001,000 steps, past the limit of 5,000,000 for one "
        "comparison; compare shorter texts, or use method 'token_set' at q"
    )


def test_the_all_pairs_form_refuses_the_same_pair():
    # elements of an array are scored through the comparator's matrix (RapidFuzz's cdist):
    # the same pair is refused there, not computed for 40 s
    out = _bounded(
        """
        answer = ("abcdefghij" * 10_000)[:100_000]
        scored({"q": [answer, "x"]}, {"q": [REFERENCE, "y"]},
               fields={"q[*]": {"comparator": {"fuzzy": {"method": "partial"}}}})
        """
    )
    assert out["error"] == "ComparatorError"
    assert "comparing a text of 2,000 characters with one of 100,000 would take" in out["message"]


@pytest.mark.parametrize(
    "spec, steps",
    [
        # two unrelated texts of 1,000,000 characters: the product of their lengths
        ({"fuzzy": {"method": "token_set"}}, "244,140,625"),
    ],
)
def test_two_long_unrelated_texts_under_an_edit_distance_are_refused_at_once(spec, steps):
    # RapidFuzz's token_set_ratio of two megabyte texts sharing no word took about 45 s
    out = _bounded(
        f"""
        import random
        rng = random.Random(3)
        one, two = rng.randbytes(500_000).hex(), rng.randbytes(500_000).hex()
        one = " ".join(one[i:i + 9] for i in range(0, len(one), 10)).ljust(1_000_000)
        two = " ".join(two[i:i + 9] for i in range(0, len(two), 10)).ljust(1_000_000)
        scored({{"t": two}}, {{"t": one}}, fields={{"t": {{"comparator": {spec!r}}}}})
        """
    )
    assert out["error"] == "ComparatorError"
    assert out["message"].startswith(
        "comparator 'fuzzy' (method 'token_set'): comparing a text of 1,000,000 characters "
        f"with one of 1,000,000 would take {steps} steps, past the limit of 5,000,000"
    )


def test_two_long_unrelated_texts_under_levenshtein_are_refused_within_the_limit():
    # the distance of two unrelated megabyte texts took 40 to 80 s (docs/performance.md): the
    # bands it may try stay within the limit, and past the widest one it is refused
    out = _bounded(
        """
        import random
        rng = random.Random(4)
        one, two = rng.randbytes(500_000).hex(), rng.randbytes(500_000).hex()
        scored({"t": two}, {"t": one}, fields={"t": {"comparator": "levenshtein"}})
        """
    )
    assert out["error"] == "ComparatorError"
    assert out["message"] == (
        "comparator 'levenshtein': texts of 1,000,000 and 1,000,000 characters more than "
        "10,239 edits apart: their distance would take more than 5,000,000 steps, the limit "
        "for one comparison at t"
    )


# -- what a comparison costs ----------------------------------------------------------------


def test_what_a_comparison_of_two_lengths_costs():
    comparison_steps = comparators.comparison_steps
    partial, token_set = bind_fuzzy({"method": "partial"}), bind_fuzzy()
    # partial: (100,000 + 2,000 + 1) x 2,000 x 32 machine words, 64 words a step
    assert comparison_steps(partial, 2_000, 100_000) == 102_001_000
    assert comparison_steps(partial, 100_000, 2_000) == 102_001_000  # either way round
    # an edit distance: the product of the lengths, 4,096 character pairs a step
    assert comparison_steps(token_set, 100_000, 100_000) == 2_441_406
    # levenshtein's bands double up to the whole: at most twice one whole computation
    assert comparison_steps(bind_levenshtein(), 100_000, 100_000) == 4_882_812
    # a comparator that reads each text once: a step per 64 characters
    assert comparison_steps(bind_date(), 6_400, 6_400) == 200
    assert comparison_steps(partial, 0, 100_000) == 0


def test_texts_within_the_limit_score_as_rapidfuzz_scores_them():
    # a 500-character reference against 20,000 characters: 4,000,000 steps or so, scored
    partial = bind_fuzzy({"method": "partial"})
    reference = ("a quick brown fox jumps over " * 20)[:500]
    answer = ("the lazy dog sleeps; " * 1000)[:20_000]
    steps = comparators.comparison_steps(partial, len(reference), len(answer))
    assert steps <= edit_distance.MAX_COMPARISON_STEPS
    assert partial.score(reference, answer) == fuzz.partial_ratio(reference, answer) / 100
    matrix = partial.matrix([reference, "fox"], [answer, "fox jumps"])
    assert matrix[0, 0] == partial.score(reference, answer)
    assert matrix[1, 1] == 1.0 and matrix[1, 0] == partial.score("fox", answer)


def test_equal_texts_score_one_whatever_their_length():
    # equality is decided before any cost: two equal megabyte texts are a match, not refused.
    # The all-pairs form asked RapidFuzz first (partial_ratio of two equal 100,000-character
    # texts runs past a minute), and set equal pairs to 1 after
    out = _bounded(
        """
        from pytest_jsonmatch.engine.comparing.comparators import bind_fuzzy
        text = "x" * 1_000_000
        partial = bind_fuzzy({"method": "partial"})
        matrix = partial.matrix([text, "abc"], ["abd", text])
        print(json.dumps({"score": [partial.score(text, text), matrix.tolist()]}))
        """
    )
    assert out == {"score": [1.0, [[0.0, 1.0], [0.8, 0.0]]]}  # ("ab" in both: 4 / 5)


def test_the_partial_cost_bounds_rapidfuzz_s_work_over_a_block_of_lengths():
    # a block's cost is the sum over its pairs: exact for few lengths, rounded up for many
    PARTIAL_COST = edit_distance.PARTIAL_COST  # noqa: N806 - the module's constant
    few = PARTIAL_COST.block([10, 2_000, 2_000], [100, 100_000])
    assert few == sum(PARTIAL_COST.pair(x, y) for x in (10, 2_000, 2_000) for y in (100, 100_000))
    xs, ys = list(range(1, 3_000, 7)), list(range(5, 9_000, 11))
    exact = sum(PARTIAL_COST.pair(x, y) for x in xs for y in ys)
    assert exact <= PARTIAL_COST.block(xs, ys) <= 2 * exact


# -- what a comparator keeps ----------------------------------------------------------------


def test_the_date_comparator_keeps_no_long_text():
    # 100 comparisons of five texts of 1 MB each kept 480 MB after the outputs were dropped:
    # only texts short enough to write a date are remembered now
    match_json({"d": ["2024-01-01"]}, {"d": ["2024-01-01"]}, fields={"d[]": {"comparator": "date"}})
    gc.collect()
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        for i in range(20):
            big = {"d": [f"{i}{'x' * 1_000_000}{j}" for j in range(5)]}
            match_json(big, {"d": ["2024-01-01"] * 5}, fields={"d[]": {"comparator": "date"}})
            del big
        gc.collect()
        kept = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    assert kept < 2_000_000  # was 100,000,000 and more: every text, for the session


def test_the_date_comparator_reads_short_dates_as_before_and_long_texts_exactly():
    date = bind_date({"formats": ["%d/%m/%Y"]})
    assert date.score("2024-03-09", " 09/03/2024 ") == 1.0
    assert date.score("2024-03-09T10:00:00+02:00", "20240309") == 1.0
    padded = "2024-03-09" + " " * 500  # whitespace around a date is still taken away
    assert date.score(padded, "09/03/2024") == 1.0
    long_text = "2024-03-09" + "x" * 500
    assert date.score(long_text, long_text) == 1.0 and date.score(long_text, "2024-03-09") == 0.0


def test_the_cosine_cache_keeps_a_bounded_amount_of_text(monkeypatch):
    monkeypatch.setattr(embeddings, "CACHE_CHARS", 10_000)
    embeddings.clear_cache()

    def flat(texts):
        return [[1.0, float(len(t) % 7)] for t in texts]

    handle = REGISTRY.embedders.handle(flat)
    for i in range(30):
        embeddings.unit_vectors(handle, [f"{i}" + "y" * 3_000])
    assert sum(len(text) for _, text in embeddings._CACHE) <= 10_000
    embeddings.unit_vectors(handle, ["z" * 20_000])  # longer than the whole: not kept at all
    assert all(len(text) < 20_000 for _, text in embeddings._CACHE)
    embeddings.clear_cache()
