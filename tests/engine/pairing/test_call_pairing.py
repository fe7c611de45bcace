"""The optimal assignment of calls (pairing/call_pairing.assigned) weighs only what it may
solve: every pair of calls of one function costs PAIR_STEPS before either call's weight, so
where those steps alone are past the budget the calls are not weighed at all (a pass over
every call's arguments, 200,000 of them for 100,000 parallel calls), and nothing is spent.
"""

from __future__ import annotations

from collections.abc import Hashable

import pytest

from pytest_jsonmatch.engine.core.values import JsonObject
from pytest_jsonmatch.engine.pairing.call_pairing import CELLS_UNCOUNTED, Calls, assigned, first_fit
from pytest_jsonmatch.engine.pairing.pair_budget import PAIR_STEPS, PairBudget, Weight
from pytest_jsonmatch.engine.reading.agent_messages import ToolCall


class CountedRule:
    """A rule of equality that records each call it weighs (one step a call)."""

    checked = False

    def __init__(self) -> None:
        self.weighed: list[JsonObject] = []

    def key(self, arguments: JsonObject) -> Hashable:
        return tuple(sorted(arguments.items()))

    def weight(self, arguments: JsonObject) -> Weight:
        self.weighed.append(arguments)
        return Weight(1)


def sides(n: int, m: int, rule: CountedRule) -> tuple[Calls, Calls]:
    want = [ToolCall("f", {"n": i}, "") for i in range(n)]
    made = [ToolCall("f", {"n": m - 1 - i}, "") for i in range(m)]
    return (
        Calls("expected", range(n), want, lambda name: rule),
        Calls("run", range(m), made, lambda name: rule),
    )


def gain(i: int, j: int) -> float:
    return 1.0


def test_calls_whose_pairs_alone_are_past_the_budget_are_not_weighed() -> None:
    # 40 x 40 calls of f: 1,600 pairs, 3,200 steps before any weight, and the 1,600 cells of
    # the table: past a budget of 4,000, so nothing is weighed, solved or spent
    rule = CountedRule()
    outer, inner = sides(40, 40, rule)
    assert 40 * 40 > CELLS_UNCOUNTED and 1600 + 1600 * PAIR_STEPS > 4000
    budget = PairBudget(4000)
    assert assigned(outer, inner, gain, budget, keep_above=0.0) is None
    assert rule.weighed == []
    assert budget.spent == 0


def test_calls_within_the_pairs_steps_are_weighed_then_refused_or_solved() -> None:
    # 20 x 20 calls: 400 cells + 800 steps of pairs fit 2,000; each call weighs 1, so the
    # checks cost 400 x (2 + 1 + 1) = 1,600 steps and the whole 2,000: past 1,999 (weighed,
    # refused, nothing spent), within 2,000 (solved: each call paired with its equal one)
    rule = CountedRule()
    outer, inner = sides(20, 20, rule)
    tight = PairBudget(1999)
    assert assigned(outer, inner, gain, tight, keep_above=0.0) is None
    assert len(rule.weighed) == 40 and tight.spent == 0

    def equal(i: int, j: int) -> float:
        return 1.0 if i == 19 - j else 0.5

    budget = PairBudget(2000)
    found = assigned(outer, inner, equal, budget, keep_above=0.0)
    assert found == {i: 19 - i for i in range(20)}
    assert budget.spent == 2000


# -- first fit: agentevals' and BFCL's checker's pairing, one loop -----------------------------


def test_first_fit_takes_the_first_free_inner_index_in_order() -> None:
    # outer 0 fits inner 1 and 2 (takes 1); outer 1 fits 1 and 2 (1 is taken: takes 2);
    # outer 2 fits only 1 (taken): unpaired, and the pairing goes on
    fits = {(0, 1), (0, 2), (1, 1), (1, 2), (2, 1)}
    assert first_fit(range(3), [0, 1, 2], lambda o, i: (o, i) in fits) == {0: 1, 1: 2}


def test_first_fit_with_stop_ends_at_the_first_outer_index_that_finds_none() -> None:
    fits = {(0, 0), (2, 1)}  # (outer 1 finds none: outer 2 is never tried)
    tried: list[int] = []

    def valid(o: int, i: int) -> bool:
        tried.append(o)
        return (o, i) in fits

    assert first_fit(range(3), [0, 1], valid, stop=True) == {0: 0}
    assert 2 not in tried


def test_a_check_that_raises_fails_the_pairing_until_a_miss_and_is_passed_over_after() -> None:
    class Unreached(Exception):
        pass

    def valid(o: int, i: int) -> bool:
        if (o, i) == (2, 1):
            raise Unreached
        return (o, i) == (0, 0)

    # outer 1 misses (inner 0 is taken, (1, 1) does not fit): the check raising at (2, 1) is
    # one the checker imitated never reached; it fails, and the pairing goes on
    assert first_fit(range(3), [0, 1], valid, quiet=Unreached) == {0: 0}
    # before any outer index has missed, the checker would have reached it: it is raised
    with pytest.raises(Unreached):
        first_fit([0, 2], [0, 1], valid, quiet=Unreached)
    # not live from the start: never raised
    assert first_fit([2], [1], valid, quiet=Unreached, live=False) == {}
    # an exception of another kind is always raised
    with pytest.raises(Unreached):
        first_fit(range(3), [0, 1], valid)
