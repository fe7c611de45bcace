"""Which call of the run stands for which expected call.

agentevals pairs greedily, first fit: each call of the side it walks (``outer``) takes the
first call of the other side (``inner``) not yet taken that is valid for it. That misses a
valid assignment where an early call takes the partner a later one needed (the reference
``[search({}), search({q: "a"})]`` against the run ``[search({q: "a"}), search({q: "b"})]``
with superset arguments: ``search({})`` takes ``search({q: "a"})``, and ``search({q: "a"})``
finds nothing left). :func:`greedy` is that pairing (``pairing="agentevals"``);
:func:`optimal` finds the most valid pairs (a maximum matching: an optimal assignment), the
rest paired for the most matched fields, so that a comparison passes whenever any pairing
would pass it. Where first fit already pairs every call it must, it is kept: it is optimal
then, and costs no more than agentevals' own loop.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

# (outer index, inner index) -> whether the pair is valid; and its share of matched fields
Valid = Callable[[int, int], bool]
Share = Callable[[int, int], float]

# Past this many pairs to weigh, the assignment is not solved: first fit and the calls
# left over paired in order (a trajectory of thousands of calls stays linear-ish)
CELLS_SOLVED = 250_000


def greedy(outer: Sequence[int], inner: Sequence[int], valid: Valid) -> dict[int, int]:
    """agentevals' first fit: outer index -> inner index, for the outer calls that found one."""
    taken: set[int] = set()
    pairs: dict[int, int] = {}
    for o in outer:
        for i in inner:
            if i not in taken and valid(o, i):
                pairs[o] = i
                taken.add(i)
                break
    return pairs


def leftovers_in_order(
    pairs: dict[int, int], outer: Sequence[int], inner: Sequence[int], may_pair: Valid
) -> dict[int, int]:
    """``pairs`` with the calls left unpaired on both sides paired in order where
    ``may_pair`` allows (calls of one function; in a strict step, any two calls), for the
    detail of what differs: none of them is valid, or first fit would have taken it."""
    out = dict(pairs)
    taken = set(pairs.values())
    rest = [i for i in inner if i not in taken]
    for o in outer:
        if o in out:
            continue
        for k, i in enumerate(rest):
            if may_pair(o, i):
                out[o] = i
                del rest[k]
                break
    return out


def optimal(
    outer: Sequence[int],
    inner: Sequence[int],
    valid: Valid,
    may_pair: Valid,
    share: Share,
    needed: int,
) -> dict[int, int]:
    """The most valid pairs, then the most matched fields among the pairs ``may_pair``
    allows. ``needed``: how many valid pairs first fit must find to be kept as it is."""
    first = greedy(outer, inner, valid)
    if len(first) >= needed or len(outer) * len(inner) > CELLS_SOLVED:
        return leftovers_in_order(first, outer, inner, may_pair)
    import numpy
    from scipy.optimize import linear_sum_assignment  # (only where first fit falls short)

    big = float(min(len(outer), len(inner)) + 1)  # one valid pair outweighs every share
    gains = numpy.zeros((len(outer), len(inner)))
    allowed = numpy.zeros((len(outer), len(inner)), dtype=bool)
    for r, o in enumerate(outer):
        for c, i in enumerate(inner):
            if may_pair(o, i):
                allowed[r, c] = True
                gains[r, c] = big if valid(o, i) else 0.5 + 0.5 * share(o, i)
    rows, cols = linear_sum_assignment(gains, maximize=True)
    return {outer[int(r)]: inner[int(c)] for r, c in zip(rows, cols) if allowed[r, c]}
