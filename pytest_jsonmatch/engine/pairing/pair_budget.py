"""The one budget of a comparison's pairings, and what scoring a candidate pair costs.

The rule is pairing/__init__.py's. ``PairBudget`` holds one comparison's account: a record's
candidate walks of array elements (``WALKS`` units, charged as walks are made: a walk is one
unit, and one more per 16 fields it made), or the checks of its calls (``STEPS``, the steps
one comparison may take, spent before the pairs are checked, from their ``Weight``). Past
the walks, an array's candidate pair is scored by the overlap of the two elements' leaf
values (Dice: twice the shared leaves over the sum of both counts), a lookup per leaf; only
which pairs are chosen can change, as chosen pairs are always walked exactly.

A call's ``Weight``: one step per JSON value of the arguments a check compares and per
``TEXT_PER_STEP`` characters of text; a pair costs ``PAIR_STEPS`` and both calls' weights,
and for each argument a comparator scores, what that comparator says comparing its two
texts costs (``BoundComparator.text_cost``, comparing/edit_distance.py: an edit distance the
product of the lengths over ``TEXT_PAIRS_PER_STEP``, ``fuzzy``'s ``partial`` the longer
length times the square of the shorter's). A step is about a microsecond, on a laptop.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Hashable, Mapping, Sequence
from typing import cast

from ..comparing.edit_distance import EDIT_COST, MAX_COMPARISON_STEPS, PAIRS_PER_STEP, TextCost
from ..core.slotted import HashedSlotted
from ..core.values import JsonArray, JsonValue, canonical_key

# The most cells of the table one assignment solves (8 bytes a cell); past it, an array's
# pairs are scored a block at a time (blockwise.py) and calls are assigned one function apart
TABLE_CELLS = 1_000_000


class PairBudget:
    """One comparison's budget for scoring candidate pairs (shared by a walk and its
    sub-walks; by the pairings of a run's messages)."""

    WALKS = 3_000
    STEPS = MAX_COMPARISON_STEPS
    __slots__ = ("limit", "spent", "_leaves")

    def __init__(self, limit: int = WALKS) -> None:
        self.limit = limit
        self.spent = 0
        # each container's leaf values (by id; the values outlive the walk that reads them)
        self._leaves: dict[int, tuple[JsonValue, Counter[Hashable]]] = {}

    @property
    def exhausted(self) -> bool:
        return self.spent > self.limit

    def charge(self, fields: int) -> None:
        """Count one candidate walk that made ``fields`` field results."""
        self.spent += 1 + fields // 16

    def affords(self, steps: int) -> bool:
        """Whether ``steps`` are left (taking nothing)."""
        return self.spent + steps <= self.limit

    def spend(self, steps: int) -> bool:
        """Whether ``steps`` are left, taking them if so."""
        if not self.affords(steps):
            return False
        self.spent += steps
        return True

    def leaf_overlap(self, expected: JsonValue, actual: JsonValue) -> float:
        """The stand-in pair score: Dice overlap of the two values' leaf values, in [0, 1]."""
        leaves_e, leaves_a = self._leaves_of(expected), self._leaves_of(actual)
        total = sum(leaves_e.values()) + sum(leaves_a.values())
        if total == 0:
            return 1.0
        shared = sum((leaves_e & leaves_a).values())
        return 2.0 * shared / total

    def _leaves_of(self, value: JsonValue) -> Counter[Hashable]:
        """The multiset of a value's leaf values; a container's is built from its children's
        (each kept), so every leaf is counted once per container above it, iteratively."""
        if type(value) not in (dict, list):
            return Counter({canonical_key(value): 1})
        known = self._leaves.get(id(value))
        if known is not None and known[0] is value:
            return known[1]
        stack: list[tuple[JsonValue, bool]] = [(value, False)]
        while stack:
            node, ready = stack.pop()
            if id(node) in self._leaves and self._leaves[id(node)][0] is node:
                continue
            # (a container: only those are stacked)
            children = list(node.values()) if type(node) is dict else cast(JsonArray, node)
            if not ready:
                stack.append((node, True))
                stack.extend((c, False) for c in children if type(c) in (dict, list))
                continue
            counts: Counter[Hashable] = Counter()
            for child in children:
                if type(child) in (dict, list):
                    counts.update(self._leaves[id(child)][1])
                else:
                    counts[canonical_key(child)] += 1
            self._leaves[id(node)] = (node, counts)
        return self._leaves[id(value)][1]


# -- what a check of two calls costs ---------------------------------------------------------

# A step: a pair's own work, a JSON value compared, 64 characters of text compared (Python's
# string equality), or 4,096 pairs of characters weighed by a comparator
PAIR_STEPS = 2
TEXT_PER_STEP = 64
TEXT_PAIRS_PER_STEP = PAIRS_PER_STEP


class Weight(HashedSlotted):
    """What checking a call's compared arguments costs under one rule (the module's words):
    its ``steps``, and under a rule of comparators each compared text's length (0: absent,
    not text, or decided by equality) with what its comparator costs (left out: an edit
    distance's)."""

    __slots__ = ("steps", "texts", "costs")

    def __init__(
        self,
        steps: int,
        texts: tuple[int, ...] = (),
        costs: tuple[TextCost, ...] = (),
    ) -> None:
        self.steps = steps
        self.texts = texts
        self.costs = costs

    def text_costs(self) -> tuple[TextCost, ...]:
        return self.costs or (EDIT_COST,) * len(self.texts)


# A pair of a first fit whose checks are not weighed from the calls (BFCL's parallel pairing,
# each pair checked by BFCL's rules, which stop at the first failure): a flat cost, so that
# one comparison tries at most UNWEIGHED_PAIRS = STEPS // UNWEIGHED_PAIR_STEPS = 40,000 pairs
# (the cut-off of BFCL's pairing here, not its checker's, which has none). Such a pairing is
# all its comparison pays for, so it is held to the whole budget, with no account kept.
UNWEIGHED_PAIR_STEPS = 125
UNWEIGHED_PAIRS = PairBudget.STEPS // UNWEIGHED_PAIR_STEPS


def check_steps(one: Weight, other: Weight) -> int:
    """The steps of checking one pair of calls of these weights (one function's: the same
    rule, so the same comparators)."""
    texts = sum(cost.pair(x, y) for cost, x, y in zip(one.text_costs(), one.texts, other.texts))
    return PAIR_STEPS + one.steps + other.steps + texts // TEXT_PAIRS_PER_STEP


def block_steps(ones: Sequence[Weight], others: Sequence[Weight]) -> int:
    """The steps of checking every pair of ``ones`` x ``others`` (at least the sum of
    :func:`check_steps` over the pairs), worked out from the lengths (TextCost.block),
    without the pairs."""
    n, m = len(ones), len(others)
    texts = 0
    if ones and others:
        costs = ones[0].text_costs()
        for k in range(min(len(ones[0].texts), len(others[0].texts))):
            texts += costs[k].block([w.texts[k] for w in ones], [w.texts[k] for w in others])
    return (
        n * m * PAIR_STEPS
        + m * sum(w.steps for w in ones)
        + n * sum(w.steps for w in others)
        + texts // TEXT_PAIRS_PER_STEP
    )


def steps_of(value: object) -> int:
    """One step per JSON value in ``value`` (None: nothing), one more per TEXT_PER_STEP
    characters of its texts and keys; counted without recursion."""
    if value is None:
        return 0
    steps = 0
    stack = [value]
    while stack:
        item = stack.pop()
        steps += 1
        if isinstance(item, str):
            steps += len(item) // TEXT_PER_STEP
        elif isinstance(item, Mapping):
            steps += sum(len(key) for key in item) // TEXT_PER_STEP
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return steps
