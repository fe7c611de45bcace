"""How much walking a record's candidate pairs may take, and the stand-in score beyond it.

Optimal pairing scores every candidate pair of elements, and where elements do not flatten
into columns (they hold arrays of their own) each candidate is scored by walking it; that
walk pairs its nested arrays by scoring their candidates in turn. Arrays of arrays k deep
would cost about 4**k walks. A record may spend ``LIMIT`` units on candidate walks (a walk
is one unit, and one more per 16 fields it made): all ordinary records stay far below it,
and are scored exactly. Beyond it, a candidate pair is scored by the overlap of the two
elements' leaf values (Dice: twice the shared leaves over the sum of both counts), which
costs a lookup per leaf. Only which pairs are chosen can change; chosen pairs are always
walked exactly, so every field result is the walk's own.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Hashable
from typing import cast

from ..core.values import JsonArray, JsonValue, canonical_key


class PairBudget:
    """One record's budget for candidate walks (shared by the walk and its sub-walks)."""

    LIMIT = 3_000
    __slots__ = ("spent", "_leaves")

    def __init__(self) -> None:
        self.spent = 0
        # each container's leaf values (by id; the values outlive the walk that reads them)
        self._leaves: dict[int, tuple[JsonValue, Counter[Hashable]]] = {}

    @property
    def exhausted(self) -> bool:
        return self.spent > self.LIMIT

    def charge(self, fields: int) -> None:
        """Count one candidate walk that made ``fields`` field results."""
        self.spent += 1 + fields // 16

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
