"""The trajectory metric against agentevals 0.0.9's trajectory match itself, on seeded pairs.

Every trajectory mode x argument mode, per-tool overrides of every kind (an argument mode, a
list of argument names, a comparator per argument: agentevals is given a callable that does
what the comparator does), and every input shape agentevals reads (OpenAI chat messages,
Anthropic messages, LangChain message dicts, a ``{"messages": [...]}`` state), each side in
its own shape. With ``pairing="agentevals"`` the verdict (score 1.0) is agentevals' on every
pair. By default it is agentevals' except where a brute-force search over every pairing finds
a valid one that first fit missed: there the comparison passes, and agentevals fails it.
"""

from __future__ import annotations

import itertools
import random
from collections import Counter
from collections.abc import Callable

import agentevals.trajectory.match as agentevals_match
import agentevals.trajectory.utils as agentevals_utils
import pytest

from pytest_jsonmatch import match_json
from tests.helpers import trajectory_pairs as pairs

# (about 3 to 5 s: agentevals' evaluator on 1,500 pairs). Collected only where agentevals is
# installed (conftest.py): CI's main run installs it, the floor run cannot
pytestmark = pytest.mark.slow

MODES = ("strict", "unordered", "subset", "superset")
ARGS = ("exact", "ignore", "subset", "superset")
# (the pairs' generator and shapes are shared with benchmarks/agents.py)
_messages, _mutated, _openai = pairs.messages, pairs.mutated, pairs.openai
SHAPES = pairs.SHAPES


# -- the overrides -------------------------------------------------------------------------


def _near(key: str) -> Callable[[dict, dict], bool]:
    """agentevals' form of the comparator {"numeric": {"abs": 1}} on one argument (the
    other arguments ignored): both absent agree, one absent does not."""

    def matcher(output: dict, reference: dict) -> bool:
        if key not in output and key not in reference:
            return True
        if key not in output or key not in reference:
            return False
        return abs(output[key] - reference[key]) <= 1

    return matcher


# (ours, agentevals') per tool
OVERRIDES = (
    (None, None),
    ({"search": ["q"]}, {"search": ["q"]}),
    ({"book": "superset", "search": "ignore"}, {"book": "superset", "search": "ignore"}),
    ({"book": {"n": {"numeric": {"abs": 1}}}}, {"book": _near("n")}),
)


# -- brute force ---------------------------------------------------------------------------


def _normalized_calls(messages: list) -> list[dict]:
    return agentevals_utils._extract_tool_calls(_openai_normalized(messages))


def _openai_normalized(messages: list) -> list[dict]:
    return agentevals_utils._normalize_to_openai_messages_list(_openai(messages))


def _injective(outer: list[dict], inner: list[dict], valid: Callable[[dict, dict], bool]) -> bool:
    """Whether every call of ``outer`` can take its own call of ``inner`` that is valid."""
    if len(outer) > len(inner):
        return False
    return any(
        all(valid(o, inner[k]) for o, k in zip(outer, chosen))
        for chosen in itertools.permutations(range(len(inner)), len(outer))
    )


def _brute(mode: str, args: str, overrides: dict | None, run: list, ref: list) -> bool:
    """Whether any pairing passes ``mode``, agentevals' matchers deciding each pair."""

    def matcher(name: str) -> Callable[[dict, dict], bool]:
        return agentevals_utils._get_matcher_for_tool_name(name, args, overrides)

    def fits(out: dict, reference: dict) -> bool:  # agentevals' (output, reference) order
        return out["name"] == reference["name"] and matcher(reference["name"])(
            out["args"], reference["args"]
        )

    if mode == "strict":
        a, b = _openai_normalized(run), _openai_normalized(ref)
        if len(a) != len(b):
            return False
        for x, y in zip(a, b):
            if x["role"] != y["role"] or bool(x.get("tool_calls")) != bool(y.get("tool_calls")):
                return False
            if x.get("tool_calls"):
                xs = agentevals_utils._extract_tool_calls([x])
                ys = agentevals_utils._extract_tool_calls([y])
                if len(xs) != len(ys) or not _injective(xs, ys, fits):
                    return False
        return True
    out, reference = _normalized_calls(run), _normalized_calls(ref)
    superset = _injective(reference, out, lambda r, o: fits(o, r))
    subset = _injective(out, reference, lambda o, r: fits(r, o))
    return {"superset": superset, "subset": subset, "unordered": superset and subset}[mode]


# -- the test ------------------------------------------------------------------------------

PAIRS_PER_SETTING = 24


def test_verdicts_agree_with_agentevals_except_where_first_fit_misses():
    rng = random.Random(62)
    counts: Counter[tuple[str, str]] = Counter()
    for mode, args, (ours, theirs) in itertools.product(MODES, ARGS, OVERRIDES):
        evaluator = agentevals_match.create_trajectory_match_evaluator(
            trajectory_match_mode=mode,
            tool_args_match_mode=args,
            tool_args_match_overrides=theirs,
        )
        options = {"mode": mode, "args": args, **({"tool_args": ours} if ours else {})}
        for k in range(PAIRS_PER_SETTING):
            ref = _messages(rng)
            run = _mutated(rng, ref) if k % 4 else ref
            run_shape, ref_shape = rng.choice(SHAPES), rng.choice(SHAPES)
            theirs_pass = bool(
                evaluator(outputs=run_shape(run), reference_outputs=ref_shape(ref))["score"]
            )
            greedy = match_json(
                run_shape(run), ref_shape(ref), metric="trajectory", pairing="agentevals", **options
            )
            best = match_json(run_shape(run), ref_shape(ref), metric="trajectory", **options)
            brute = _brute(mode, args, theirs, run, ref)
            where = (mode, args, ours, run, ref)
            assert 0.0 <= greedy.score <= 1.0 and 0.0 <= best.score <= 1.0, where
            assert (greedy.score == 1.0) == theirs_pass, where
            assert (best.score == 1.0) == brute, where
            assert brute or not theirs_pass, where
            counts[mode, "pass" if theirs_pass else "fail"] += 1
            if brute and not theirs_pass:
                counts[mode, "first fit missed"] += 1
    # every mode met passing and failing pairs, and the default parted from agentevals on
    # some pairs of every mode (where arguments compare as sets, or by a comparator)
    for mode in MODES:
        assert counts[mode, "pass"] and counts[mode, "fail"], counts
    # (docs/metrics.md quotes these counts: 1,536 pairs, 11 where first fit missed)
    missed = {mode: counts[mode, "first fit missed"] for mode in MODES}
    assert missed == {"strict": 2, "unordered": 2, "subset": 3, "superset": 4}, counts


def test_the_issue_example_passes_by_default_and_fails_as_agentevals_pairs():
    # reference [search({}), search({q: "a"})], run [search({q: "a"}), search({q: "b"})],
    # superset arguments: first fit gives search({}) the run's search({q: "a"}), and the
    # reference's search({q: "a"}) is left with search({q: "b"}); pairing search({}) with
    # search({q: "b"}) instead passes both.
    ref = [("calls", [("search", {}), ("search", {"q": "a"})])]
    run = [("calls", [("search", {"q": "a"}), ("search", {"q": "b"})])]
    evaluator = agentevals_match.create_trajectory_match_evaluator(
        trajectory_match_mode="superset", tool_args_match_mode="superset"
    )
    assert evaluator(outputs=_openai(run), reference_outputs=_openai(ref))["score"] is False
    options = {"mode": "superset", "args": "superset"}
    best = match_json(_openai(run), _openai(ref), metric="trajectory", **options)
    assert best.score == 1.0
    greedy = match_json(
        _openai(run), _openai(ref), metric="trajectory", pairing="agentevals", **options
    )
    # first fit: [0].search matched (no argument to compare), [1].search matched, its q
    # mismatched ("a" against "b"): F1 over 3 fields with 2 matched, no hallucination
    # (superset): precision = recall = 2/3
    assert greedy.score == pytest.approx(2 / 3)
    assert [(f.path, f.status) for f in greedy.fields] == [
        ("[0].search", "match"),
        ("[1].search", "match"),
        ("[1].search.q", "mismatch"),
    ]


def test_a_wrong_tool_at_a_step_fails_as_agentevals_fails_it_with_its_calls_apart():
    # the reference searches then answers; the run books instead of searching. agentevals'
    # strict match pairs a message's calls by name, so it fails the run; here the expected
    # search is omitted with its arguments and the booking invented with its own: the
    # search's name and 2 arguments (3 omissions) and the booking's name and 1 argument (2
    # hallucinations) beside the answer, which matches: TP = 1, P = 1 / (1 + 2) = 1/3,
    # R = 1 / (1 + 3) = 1/4, F1 = 2 * 1/3 * 1/4 / (1/3 + 1/4) = 2/7, for either pairing
    ref = [("calls", [("search_flights", {"to": "Oslo", "date": "2026-11-26"})]), ("answer", "ok")]
    run = [("calls", [("book_flight", {"flight": "SK1"})]), ("answer", "ok")]
    evaluator = agentevals_match.create_trajectory_match_evaluator(trajectory_match_mode="strict")
    assert evaluator(outputs=_openai(run), reference_outputs=_openai(ref))["score"] is False
    for pairing in ("optimal", "agentevals"):
        result = match_json(_openai(run), _openai(ref), metric="trajectory", pairing=pairing)
        assert result.score == pytest.approx(2 / 7)
        assert [(f.path, f.status) for f in result.fields if f.status != "match"] == [
            ("[0].search_flights", "omission"),
            ("[0].search_flights.to", "omission"),
            ("[0].search_flights.date", "omission"),
            ("[0].book_flight", "hallucination"),
            ("[0].book_flight.flight", "hallucination"),
        ]
