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

The work is bounded, whatever the run holds. A pair is valid only for calls of one function,
so only those are ever tried. Where the function's rule compares by equality alone (the
default, ``exact``), first fit takes each call's partner from a queue of the calls with its
equality key, in linear time and with the same pairs (the proof is at :func:`greedy`). Where
the rule must check each pair (``subset``, ``superset``, comparators), the checks of one
comparison may cost at most ``PAIRING_STEPS`` steps (step_checks.py weighs them from the
arguments' sizes), counted from the calls before any pair is tried: past that the comparison
is refused (ConfigError). The optimal assignment, which weighs every pair, is solved only
within ``CELLS_SOLVED`` pairs and within the steps left (up to ``CELLS_UNCOUNTED`` pairs,
always); else first fit stands.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Hashable, Sequence
from typing import NamedTuple, Protocol

from ..core.errors import ConfigError, shown
from ..core.values import JsonObject
from .step_checks import ArgRule, Weight, block_steps, by_equality, equality_key, weigh

# (outer index, inner index) -> whether the pair is valid; and (whether it is valid, its share
# of matched fields), both from one check
Valid = Callable[[int, int], bool]
Judge = Callable[[int, int], tuple[bool, float]]

# Past this many pairs to weigh, the assignment is not solved: first fit and the calls left
# over paired in order
CELLS_SOLVED = 250_000
# Up to this many, it is solved without counting its steps: each call meets at most this
# many others, each pair compared by equality or by a check first fit has counted, so the
# work stays within a constant times the calls' size (and a short run is not weighed twice)
CELLS_UNCOUNTED = 64
# The steps (about a microsecond each: step_checks.py) one comparison's pairs may cost
PAIRING_STEPS = 5_000_000


class Call(Protocol):
    """A step that is a call: its function's name and its arguments (trajectory_metric.Step)."""

    @property
    def name(self) -> str: ...

    @property
    def arguments(self) -> JsonObject: ...


class Calls(NamedTuple):
    """One side's calls as the pairing reads them: the side (``expected``, ``run``), the
    calls' step indices in order (``at``), the steps, and the rule a function's calls are
    checked by (step_checks.py)."""

    side: str
    at: Sequence[int]
    steps: Sequence[Call]
    rule: Callable[[str], ArgRule]

    def only(self, at: Sequence[int]) -> Calls:
        """These calls, at the step indices ``at`` only (one message's)."""
        return Calls(self.side, at, self.steps, self.rule)

    def name(self, s: int) -> str:
        return self.steps[s].name

    def key(self, s: int) -> Hashable | None:
        """Call ``s``'s equality key; None where its rule checks pairs one by one."""
        step = self.steps[s]
        rule = self.rule(step.name)
        return equality_key(rule, step.arguments) if by_equality(rule) else None

    def weight(self, s: int) -> Weight:
        step = self.steps[s]
        return weigh(self.rule(step.name), step.arguments)


class Budget:
    """The steps left to one comparison's pairings (each message's in ``strict``, both
    directions of agentevals' ``unordered``), PAIRING_STEPS at first."""

    def __init__(self, steps: int = PAIRING_STEPS) -> None:
        self.limit = self.left = steps

    def spend(self, steps: int) -> bool:
        """Whether ``steps`` are left, taking them if so."""
        if steps > self.left:
            return False
        self.left -= steps
        return True


def greedy(outer: Calls, inner: Calls, valid: Valid, budget: Budget) -> dict[int, int]:
    """agentevals' first fit: outer index -> inner index, for the outer calls that found one
    (ConfigError, before any pair is tried, where the pairs to check cost more than the
    steps left in ``budget``).

    The same pairs as trying, for each outer call in order, every inner call in order until
    one not yet taken is valid. A pair is valid only for calls of one function, and both
    sides' calls of one function are read by one rule. (1) Under a rule of equality, a pair is
    valid exactly when the two equality keys are equal (step_checks.equality_key). The
    queue of a (function, key) holds that slot's inner calls not yet taken, in order: it
    starts with all of them, and an inner call is taken only by an outer call of its own
    slot (a valid pair), which pops it from its queue's head. So the queue's head is the
    first inner call not yet taken that is valid for the outer one, which is what trying
    each inner call in order finds. (2) Under a rule that checks pairs, the calls of the
    outer call's function not yet taken are tried in order, skipping only the calls of
    other functions, for which ``valid`` is false without checking anything: the same checks
    in the same order, the same pair (and the same error, if a comparator raises)."""
    steps = checked_steps(outer, inner)
    if not budget.spend(steps):
        raise ConfigError(_past_budget(outer, inner, steps, budget))
    if len(outer.at) * len(inner.at) <= CELLS_UNCOUNTED:
        return _first_fit(outer, inner, valid)  # (a few pairs: checked as they are)
    queues: dict[tuple[str, Hashable], deque[int]] = {}
    checked: dict[str, list[int]] = {}
    for i in inner.at:
        key = inner.key(i)
        if key is None:
            checked.setdefault(inner.name(i), []).append(i)
        else:
            queues.setdefault((inner.name(i), key), deque()).append(i)
    pairs: dict[int, int] = {}
    for o in outer.at:
        key = outer.key(o)
        if key is not None:
            queue = queues.get((outer.name(o), key))
            if queue:
                pairs[o] = queue.popleft()
            continue
        candidates = checked.get(outer.name(o), [])
        for k, i in enumerate(candidates):
            if valid(o, i):
                pairs[o] = i
                del candidates[k]
                break
    return pairs


def _first_fit(outer: Calls, inner: Calls, valid: Valid) -> dict[int, int]:
    """First fit as agentevals writes it, every pair tried in order until one is valid."""
    taken: set[int] = set()
    pairs: dict[int, int] = {}
    for o in outer.at:
        for i in inner.at:
            if i not in taken and valid(o, i):
                pairs[o] = i
                taken.add(i)
                break
    return pairs


def leftovers_in_order(pairs: dict[int, int], outer: Calls, inner: Calls) -> dict[int, int]:
    """``pairs`` with the calls left unpaired on both sides paired in order, calls of one
    function only, for the detail of what differs: none of them is valid, or first fit would
    have taken it (a call of another function is never paired: omitted and invented).

    In order: each outer call left takes the first inner call left that it may pair with,
    which is the head of the queue of inner calls left of its function (the queues keep the
    inner order, and only heads are taken), in linear time."""
    out = dict(pairs)
    taken = set(pairs.values())
    waiting: dict[str, deque[int]] = {}
    for i in inner.at:
        if i not in taken:
            waiting.setdefault(inner.name(i), deque()).append(i)
    for o in outer.at:
        if o not in out:
            queue = waiting.get(outer.name(o))
            if queue:
                out[o] = queue.popleft()
    return out


def optimal(
    outer: Calls,
    inner: Calls,
    valid: Valid,
    judge: Judge,
    needed: int,
    budget: Budget,
) -> dict[int, int]:
    """The most valid pairs, then the most matched fields among the pairs allowed (calls of
    one function). ``needed``: how many valid pairs first fit must find to be kept as it
    is."""
    first = greedy(outer, inner, valid, budget)
    cells = len(outer.at) * len(inner.at)
    if (
        len(first) >= needed
        or cells > CELLS_SOLVED
        or (
            cells > CELLS_UNCOUNTED
            and not budget.spend(cells + checked_steps(outer, inner, every_rule=True))
        )
    ):
        return leftovers_in_order(first, outer, inner)
    import numpy
    from scipy.optimize import linear_sum_assignment  # (only where first fit falls short)

    big = float(min(len(outer.at), len(inner.at)) + 1)  # one valid pair outweighs every share
    gains = numpy.zeros((len(outer.at), len(inner.at)))
    allowed = numpy.zeros((len(outer.at), len(inner.at)), dtype=bool)
    for r, o in enumerate(outer.at):
        for c, i in enumerate(inner.at):
            if outer.name(o) == inner.name(i):
                allowed[r, c] = True
                is_valid, share = judge(o, i)
                gains[r, c] = big if is_valid else 0.5 + 0.5 * share
    rows, cols = linear_sum_assignment(gains, maximize=True)
    return {outer.at[int(r)]: inner.at[int(c)] for r, c in zip(rows, cols) if allowed[r, c]}


def checked_steps(outer: Calls, inner: Calls, every_rule: bool = False) -> int:
    """The steps of checking every pair of calls of one function, counted from the calls'
    weights: of the functions whose rule checks pairs one by one (``every_rule``: of all,
    as the optimal assignment weighs every pair)."""
    return sum(steps for _, _, _, steps in _blocks(outer, inner, every_rule))


def _blocks(outer: Calls, inner: Calls, every_rule: bool) -> list[tuple[str, int, int, int]]:
    """Each function both sides call (under a rule checking pairs, unless ``every_rule``):
    its name, its calls on each side and the steps of checking all their pairs."""
    mine = _by_name(outer, every_rule)
    if not mine:
        return []
    theirs = _by_name(inner, every_rule)
    return [
        (name, len(ones), len(theirs[name]), block_steps(ones, theirs[name]))
        for name, ones in mine.items()
        if name in theirs
    ]


def _by_name(calls: Calls, every_rule: bool) -> dict[str, list[Weight]]:
    out: dict[str, list[Weight]] = {}
    for s in calls.at:
        name = calls.name(s)
        if every_rule or not by_equality(calls.rule(name)):
            out.setdefault(name, []).append(calls.weight(s))
    return out


def _past_budget(outer: Calls, inner: Calls, steps: int, budget: Budget) -> str:
    """The refusal's message: the steps against the limit, and the functions that cost most."""
    blocks = sorted(_blocks(outer, inner, False), key=lambda b: -b[3])
    if outer.side != "expected":
        blocks = [(name, m, n, cost) for name, n, m, cost in blocks]
    shown_blocks = "; ".join(
        f"{shown(name)}: {n:,} expected call{'s' * (n != 1)} x {m:,} of the run, {cost:,} steps"
        for name, n, m, cost in blocks[:3]
    )
    spent = budget.limit - budget.left
    already = f" ({spent:,} of them spent on earlier steps)" if spent else ""
    return (
        f"trajectory: pairing these calls would take {steps:,} steps, past the limit of "
        f"{budget.limit:,} for one comparison{already}: {shown_blocks}. Their pairs are "
        f"checked one by one (args 'subset' or 'superset', or tool_args' comparators), each "
        f"costing steps by its arguments' size (docs/metrics.md, trajectory); compare fewer "
        f"or shorter arguments, or by equality (args 'exact', a list of argument names)"
    )
