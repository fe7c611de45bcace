"""The trajectory metric's work is bounded, whatever the run holds (pairing/call_pairing.py).

Calls compared by equality (``args="exact"``, the default) pair through a queue per equality
key, in linear time and with first fit's pairs; pairs that must be checked one by one
(``subset``/``superset`` arguments, tool_args' comparators) may cost at most PairBudget.STEPS
steps in one comparison, counted before any pair is tried, else the comparison is refused;
the optimal assignment is solved only within the steps left, else first fit stands.

The comparisons that used to take minutes run in a subprocess with a timeout, so that a
regression fails instead of hanging the suite.
"""

from __future__ import annotations

import json
import random
import subprocess
import sys
import textwrap
from collections.abc import Callable
from typing import NamedTuple

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pytest_jsonmatch import ConfigError, match_json
from pytest_jsonmatch.engine.comparing import edit_distance
from pytest_jsonmatch.engine.comparing.registry import REGISTRY
from pytest_jsonmatch.engine.core.values import json_equal
from pytest_jsonmatch.engine.pairing.call_pairing import (
    CELLS_UNCOUNTED,
    Calls,
    greedy,
    leftovers_in_order,
    optimal,
)
from pytest_jsonmatch.engine.pairing.pair_budget import PairBudget, Weight, check_steps
from pytest_jsonmatch.engine.results.field_results import MATCH
from pytest_jsonmatch.engine.tool_calls.argument_checks import (
    ArgRule,
    agrees,
    arg_verdicts,
    equality_key,
    json_key,
    read_rules,
    weigh,
)


def Budget() -> PairBudget:  # noqa: N802
    return PairBudget(PairBudget.STEPS)


# A comparison that used to run 40 s to minutes takes well under a second now, in a
# subprocess whose own start and imports take about half a second (a few on a loaded machine)
TIMEOUT = 20


def _bounded(script: str) -> dict:
    """``script`` run in a fresh interpreter (``call`` and ``match_json`` at hand), within
    TIMEOUT seconds; what it prints is JSON: a score, or an error's type and message."""
    prelude = textwrap.dedent(
        """
        import json
        from pytest_jsonmatch import match_json

        def call(name, **arguments):
            return {"name": name, "arguments": arguments}

        def scored(run, expected, **options):
            try:
                r = match_json(run, expected, metric="trajectory", **options)
            except Exception as error:
                print(json.dumps({"error": type(error).__name__, "message": str(error)}))
            else:
                print(json.dumps({"score": r.score, "fields": len(r.fields)}))
        """
    )
    done = subprocess.run(
        [sys.executable, "-c", prelude + textwrap.dedent(script)],
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
        check=True,
    )
    return json.loads(done.stdout)


def call(name, **arguments):
    return {"name": name, "arguments": arguments}


def traj(run, expected, **options):
    return match_json(run, expected, metric="trajectory", **options)


# -- finding 2: thousands of calls of one tool, none matching --------------------------------


@pytest.mark.parametrize(
    "options",
    [
        {"mode": "superset"},
        {"mode": "subset"},
        {"mode": "unordered"},
        {"mode": "unordered", "pairing": "agentevals"},
    ],
)
def test_five_thousand_calls_a_side_compared_by_equality_pair_in_linear_time(options):
    # first fit tried all 25,000,000 pairs (39 to 47 s); equality keys pair in one pass
    out = _bounded(
        f"""
        run = [call("f", q=i) for i in range(5000)]
        expected = [call("f", q=-i - 1) for i in range(5000)]
        scored(run, expected, **{options!r})
        """
    )
    # no pair is valid; the calls left pair in order: each pair's name matches and its q
    # mismatches, 10,000 fields, 5,000 matched, none omitted or invented (every call is
    # paired): precision = recall = F1 = 1/2
    assert out == {"score": 0.5, "fields": 10_000}


def test_five_thousand_calls_a_side_checked_one_by_one_are_refused_at_once():
    out = _bounded(
        """
        run = [call("f", q=i) for i in range(5000)]
        expected = [call("f", q=-i - 1) for i in range(5000)]
        scored(run, expected, mode="superset", args="superset")
        """
    )
    # each call's arguments {"q": i}: an object and a number, 2 steps; a pair 2 steps more.
    # 5,000 x 5,000 pairs: 25,000,000 x 2 + 5,000 x (5,000 x 2) on each side = 150,000,000
    assert out["error"] == "ConfigError"
    assert out["message"].startswith(
        "trajectory: pairing these calls would take 150,000,000 steps, past the limit of "
        "5,000,000 for one comparison: 'f': 5,000 expected calls x 5,000 of the run, "
        "150,000,000 steps."
    )


# -- finding 1: a fuzzy comparator on arguments of 100 KB --------------------------------------


def test_twenty_calls_of_100kb_compared_by_fuzzy_are_refused_before_any_pair_is_tried():
    # 1,200 fuzzy comparisons of 100 KB texts took 45 to 66 s; now refused from the sizes
    out = _bounded(
        """
        import random
        rng = random.Random(7)
        words = [f"w{i}" for i in range(5000)]

        def text():  # 100,000 characters
            return " ".join(rng.choice(words) for _ in range(25_000))[:100_000].ljust(100_000)

        run = [call("f", a=text()) for _ in range(20)]
        expected = [call("f", a=text()) for _ in range(20)]
        scored(run, expected, mode="unordered", tool_args={"f": {"a": "fuzzy"}})
        """
    )
    # a call weighs 1 + 100,000 // 64 = 1,563 steps and its text 100,000 characters.
    # 20 x 20 pairs: 400 x 2 + 20 x (20 x 1,563) on each side = 800 + 1,250,400, and the
    # texts (20 x 100,000) x (20 x 100,000) / 4,096 = 976,562,500: 977,813,700 in all
    assert out["error"] == "ConfigError"
    assert out["message"].startswith(
        "trajectory: pairing these calls would take 977,813,700 steps, past the limit of "
        "5,000,000 for one comparison: 'f': 20 expected calls x 20 of the run"
    )


def test_one_pair_of_100kb_texts_is_within_the_budget_two_are_not():
    text = "a" * 100_000
    fuzzy = {"tool_args": {"f": {"a": "fuzzy"}}, "mode": "unordered"}
    # one pair: 2 + 1,563 x 2 + 100,000 x 100,000 // 4,096 (2,441,406) = 2,444,534 steps
    assert traj([call("f", a=text)], [call("f", a=text)], **fuzzy).score == 1.0
    # two a side: 4 pairs, 4 x 2 + 2 x (2 x 1,563) on each side + (2 x 100,000) x
    # (2 x 100,000) // 4,096 = 8 + 12,504 + 9,765,625 = 9,778,137
    with pytest.raises(ConfigError, match=r"would take 9,778,137 steps, past the limit"):
        traj([call("f", a=text)] * 2, [call("f", a=text)] * 2, **fuzzy)


def test_one_pair_under_fuzzy_partial_weighs_what_partial_ratio_costs():
    # a 2,000-character expected text against 100,000 characters took 47 s, weighed as
    # 2,000 x 100,000 / 4,096 = 48,828 steps: partial_ratio costs about the longer length
    # times the square of the shorter one's, and the pair is refused before it is tried
    out = _bounded(
        """
        expected = [call("f", q=("lorem ipsum dolor sit amet " * 80)[:2000])]
        run = [call("f", q=("abcdefghij" * 10_000)[:100_000])]
        scored(run, expected, mode="superset", tool_args={"f": {"q": {"fuzzy": {"method": "partial"}}}})
        """
    )
    # 2 + (1 + 2,000 // 64) + (1 + 100,000 // 64) + the texts: (100,000 + 2,000 + 1) places
    # x 2,000 x 32 machine words, 64 words a step (102,001,000): 102,002,597
    assert out["error"] == "ConfigError"
    assert out["message"].startswith(
        "trajectory: pairing these calls would take 102,002,597 steps, past the limit of "
        "5,000,000 for one comparison: 'f': 1 expected call x 1 of the run"
    )


def test_a_comparator_that_equality_decides_weighs_texts_as_equality_does():
    text = "a" * 100_000
    exact = {"tool_args": {"f": {"a": "exact"}}, "mode": "unordered"}
    # no product of lengths: 4 pairs of 2 + 1,563 x 2 steps = 12,512, far within the budget
    assert traj([call("f", a=text)] * 2, [call("f", a=text)] * 2, **exact).score == 1.0


def test_the_messages_of_a_strict_run_share_one_budget():
    text = "b" * 100_000
    fuzzy = {"tool_args": {"f": {"a": "fuzzy"}}}
    # strict: each call its own message, paired with the message at its place. A pair
    # costs 2,444,534 steps (above): two pairs 4,889,068, within 5,000,000; a third is not
    assert traj([call("f", a=text)] * 2, [call("f", a=text)] * 2, **fuzzy).score == 1.0
    with pytest.raises(ConfigError) as raised:
        traj([call("f", a=text)] * 3, [call("f", a=text)] * 3, **fuzzy)
    assert "(4,889,068 of them spent on earlier steps)" in str(raised.value)
    assert "'f': 1 expected call x 1 of the run, 2,444,534 steps" in str(raised.value)


def test_past_the_budget_the_assignment_is_not_solved_and_first_fit_stands():
    # 500 x 500 calls of one function, none equal: 250,000 pairs (within CELLS_SOLVED).
    # Expected call i shares k0 with run call i + 1 (a share of 1/10), nothing with run call
    # i: the optimal assignment would pair it with run call i + 1. Each call's arguments
    # weigh 1 + 10 = 11 steps (ten numbers), so weighing every pair takes 250,000 cells +
    # 250,000 x 2 + 500 x (500 x 11) on each side = 6,250,000 steps, past the budget: first
    # fit stands (it found no valid pair), the calls paired in order
    run = [call("f", **{f"k{j}": i for j in range(10)}) for i in range(500)]
    expected = [
        call("f", k0=i + 1, **{f"k{j}": -i - 1000 for j in range(1, 10)}) for i in range(500)
    ]
    r = traj(run, expected, mode="unordered")
    assert [f.actual for f in r.fields[:2]] == ["f", 0]  # (expected call 0 with run call 0)
    assert [f.actual for f in r.fields[11:13]] == ["f", 1]
    # every pair: its name matched, its ten arguments mismatched: 500 of 5,500 fields
    assert r.score == pytest.approx(500 / 5500)


# -- first fit by equality keys: the same pairs as trying every pair ---------------------------


def _first_fit_pair_by_pair(outer, inner, valid):
    """agentevals' loop as written: each outer call takes the first inner call not yet taken
    that is valid for it."""
    taken, pairs = set(), {}
    for o in outer:
        for i in inner:
            if i not in taken and valid(o, i):
                pairs[o] = i
                taken.add(i)
                break
    return pairs


def _leftovers_pair_by_pair(pairs, outer, inner, may_pair):
    out = dict(pairs)
    rest = [i for i in inner if i not in set(pairs.values())]
    for o in outer:
        if o not in out:
            for k, i in enumerate(rest):
                if may_pair(o, i):
                    out[o] = i
                    del rest[k]
                    break
    return out


def _optimal_pair_by_pair(outer, inner, valid, may_pair, share, needed):
    """The optimal assignment as written before the budget: every allowed pair weighed."""
    import numpy
    from scipy.optimize import linear_sum_assignment

    first = _first_fit_pair_by_pair(outer, inner, valid)
    if len(first) >= needed:
        return _leftovers_pair_by_pair(first, outer, inner, may_pair)
    big = float(min(len(outer), len(inner)) + 1)
    gains = numpy.zeros((len(outer), len(inner)))
    allowed = numpy.zeros((len(outer), len(inner)), dtype=bool)
    for r, o in enumerate(outer):
        for c, i in enumerate(inner):
            if may_pair(o, i):
                allowed[r, c] = True
                gains[r, c] = big if valid(o, i) else 0.5 + 0.5 * share(o, i)
    rows, cols = linear_sum_assignment(gains, maximize=True)
    return {outer[int(r)]: inner[int(c)] for r, c in zip(rows, cols) if allowed[r, c]}


# each function's rule: by equality (exact, a list of names, ignore) or checked pair by pair
_, RULES = read_rules(
    "exact",
    {
        "f": "exact",
        "g": "superset",
        "h": ["q", "r.s"],
        "i": "ignore",
        "j": {"q": {"numeric": {"abs": 1}}},
        "k": "subset",
    },
    REGISTRY,
)
VALUES = (0, 1, 1.0, True, False, None, "a", "b", [1], [1.0], [True], {"s": 1}, {"s": 1.0})


def _random_calls(rng: random.Random, count: int) -> list[tuple[str, dict]]:
    names = rng.sample(sorted(RULES), rng.randint(1, 3))
    return [
        (
            rng.choice(names),
            {key: rng.choice(VALUES) for key in ("q", "r") if rng.random() < 0.6},
        )
        for _ in range(count)
    ]


class _Call(NamedTuple):
    name: str
    arguments: dict


def _side(side: str, calls: list[tuple[str, dict]]) -> Calls:
    return Calls(side, list(range(len(calls))), [_Call(*c) for c in calls], RULES.__getitem__)


def _checks(want, made) -> tuple[Callable, Callable, Callable]:
    def valid(e, a):
        return want[e][0] == made[a][0] and agrees(RULES[want[e][0]], want[e][1], made[a][1])

    def share(e, a):
        if want[e][0] != made[a][0]:
            return -0.5
        found = arg_verdicts(RULES[want[e][0]], want[e][1], made[a][1])
        return sum(v.status == MATCH for v in found) / len(found) if found else 0.0

    def judge(e, a):
        if want[e][0] != made[a][0]:
            return False, -0.5
        found = arg_verdicts(RULES[want[e][0]], want[e][1], made[a][1])
        matched = sum(v.status == MATCH for v in found)
        return matched == len(found), matched / len(found) if found else 0.0

    return valid, share, judge


def test_first_fit_by_equality_keys_pairs_as_trying_every_pair_does():
    rng = random.Random(72)
    differing = queued = 0
    for _ in range(600):
        want = _random_calls(rng, rng.randint(0, 18))
        made = _random_calls(rng, rng.randint(0, 18))
        outer, inner = _side("expected", want), _side("run", made)
        valid, share, judge = _checks(want, made)

        def may_pair(e, a, want=want, made=made):  # (calls of one function, in every mode)
            return want[e][0] == made[a][0]

        first = greedy(outer, inner, valid, Budget())
        assert first == _first_fit_pair_by_pair(outer.at, inner.at, valid)
        assert leftovers_in_order(first, outer, inner) == _leftovers_pair_by_pair(
            first, outer.at, inner.at, may_pair
        )
        needed = max(len(want), len(made))
        best = optimal(outer, inner, valid, judge, needed, Budget())
        assert best == _optimal_pair_by_pair(outer.at, inner.at, valid, may_pair, share, needed)
        differing += best != leftovers_in_order(first, outer, inner)
        queued += len(want) * len(made) > CELLS_UNCOUNTED
    # (both paths exercised: the queues, past 64 pairs; the optimal assignment differing
    # from first fit)
    assert queued > 200
    assert differing > 100


JSON = st.recursive(
    st.none()
    | st.booleans()
    | st.sampled_from([0, 1, 1.0, -0.0, 2**53, 2.0**53])
    | st.text("ab", max_size=2),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text("ab", max_size=1), inner, max_size=3)
    ),
    max_leaves=8,
)


@settings(max_examples=150, derandomize=True, deadline=None)
@given(JSON, JSON)
def test_equal_json_keys_are_equal_json_values(one, other):
    assert (json_key(one) == json_key(other)) == json_equal(one, other)
    if json_key(one) == json_key(other):
        assert hash(json_key(one)) == hash(json_key(other))


def test_a_flat_object_is_keyed_by_its_typed_items():
    assert json_key({"b": 1, "a": True}) == (
        "flat object",
        (("a", "boolean", True), ("b", "number", 1)),
    )
    assert json_key({"q": 1}) == json_key({"q": 1.0}) != json_key({"q": True})


def test_a_json_key_is_written_without_recursion():
    deep: object = 1
    for _ in range(20_000):
        deep = [deep]
    assert json_key(deep)[:2] == (("array", 1), ("array", 1))
    assert json_key({"b": 1, "a": [True]}) == (
        ("object", 2),
        ("key", "a"),
        ("array", 1),
        ("boolean", True),
        ("key", "b"),
        ("number", 1),
    )


def test_equality_keys_of_a_list_of_names_read_absent_and_null_alike():
    names = RULES["h"]  # q and r.s compared, the others ignored
    key = equality_key(names, {"q": 1})
    assert key == equality_key(names, {"q": 1.0, "r": {"s": None}, "other": 5})
    assert key != equality_key(names, {"q": True})
    assert key != equality_key(names, {"q": 1, "r": {"s": 0}})
    # each key what agrees finds: valid exactly when the keys are equal
    assert agrees(names, {"q": 1}, {"q": 1.0, "r": {"s": None}, "other": 5})
    assert not agrees(names, {"q": 1}, {"q": 1, "r": {"s": 0}})


# -- what a check weighs ----------------------------------------------------------------------


def test_a_call_weighs_its_compared_values_and_text():
    args = {"q": "x" * 130, "n": [1, 2], "skip": "y" * 1000}
    # exact: the object, q (1 + 130 // 64 = 3), n (1 + 2), skip (1 + 1000 // 64 = 16): 23
    assert weigh(ArgRule("exact"), args) == Weight(23)
    assert weigh(ArgRule("ignore"), args) == Weight(0)
    # a list of names: q and n only, 3 + 3
    assert weigh(RULES["h"]._replace(keys=("q", "n")), args) == Weight(6)
    # a comparator: q's steps, its text's length and what its comparator's texts cost
    _, fuzzy = read_rules("exact", {"t": {"q": "fuzzy"}}, REGISTRY)
    assert weigh(fuzzy["t"], args) == Weight(3, (130,), (edit_distance.EDIT_COST,))
    # a pair: 2 + 3 + 3, and 130 x 130 // 4,096 = 4
    assert check_steps(Weight(3, (130,)), Weight(3, (130,))) == 12
    assert PairBudget.STEPS == 5_000_000
