"""Which call of one side stands for which call of the other: tool calls, a run's calls.

Calls pair only with calls of one function, under the budget rule of pairing/__init__.py.
:func:`greedy` is agentevals' first fit: each call of the side it walks (``outer``) takes the
first call of the other side (``inner``) not yet taken that is valid for it. That misses a
valid assignment where an early call takes the partner a later one needed (the reference
``[search({}), search({q: "a"})]`` against the run ``[search({q: "a"}), search({q: "b"})]``
with superset arguments: ``search({})`` takes ``search({q: "a"})``, and ``search({q: "a"})``
finds nothing left). :func:`optimal` finds the most valid pairs (an optimal assignment,
:func:`assigned`), the rest paired for the most matched fields, so that a comparison passes
whenever any pairing would pass it; where first fit already pairs every call it must, it is
kept: it is optimal then, and costs no more than agentevals' own loop.

Where a function's rule compares by equality alone (its calls have equality keys), first fit
takes each call's partner from a queue of the calls with its key, in linear time and with
the same pairs (the proof is at :func:`greedy`). Where the rule must check each pair, first
fit's checks are weighed before any pair is tried, and past the budget the comparison is
refused (ConfigError naming the functions that cost most).

:func:`first_fit` is the one first-fit loop, agentevals' and BFCL's parallel pairing's
(engine/bfcl/: each expected call, in order, takes the first call left that BFCL's rules
accept, its pairs held to the budget at a flat cost a pair, pair_budget.UNWEIGHED_PAIRS);
:func:`left_beside` pairs what first fit left over in order, whatever the function.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Hashable, Iterable, Sequence
from itertools import filterfalse
from typing import NamedTuple, Protocol

from ..core.errors import ConfigError, shown
from ..core.values import JsonObject
from .assignment import Floats, assign
from .pair_budget import PAIR_STEPS, TABLE_CELLS, PairBudget, Weight, block_steps
from .pair_scores import SMALL_PAIRS

# (outer index, inner index) -> whether the pair is valid; and -> the pair's gain
Valid = Callable[[int, int], bool]
Gain = Callable[[int, int], float]

# Up to this many pairs, an assignment is solved without counting its steps: each call meets
# at most this many others, each pair compared by equality or by a check first fit has
# counted, so the work stays within a constant times the calls' size
CELLS_UNCOUNTED = 64


class Call(Protocol):
    """A call: its function's name and its arguments (a trajectory's Step, a tool call)."""

    @property
    def name(self) -> str: ...

    @property
    def arguments(self) -> JsonObject: ...


class CallRule(Protocol):
    """How a function's calls are compared (argument_checks.ArgRule): whether each pair must
    be checked (``checked``; else equal keys decide), a call's key, and its weight."""

    @property
    def checked(self) -> bool: ...

    def key(self, arguments: JsonObject) -> Hashable: ...

    def weight(self, arguments: JsonObject) -> Weight: ...


class Calls(NamedTuple):
    """One side's calls as the pairing reads them: the side (``expected``, ``run``), the
    calls' indices in order (``at``), the steps they index, and each function's rule."""

    side: str
    at: Sequence[int]
    steps: Sequence[Call]
    rule: Callable[[str], CallRule]

    def only(self, at: Sequence[int]) -> Calls:
        """These calls, at the indices ``at`` only (one message's)."""
        return Calls(self.side, at, self.steps, self.rule)

    def name(self, s: int) -> str:
        return self.steps[s].name

    def key(self, s: int) -> Hashable | None:
        """Call ``s``'s equality key; None where its rule checks pairs one by one."""
        step = self.steps[s]
        rule = self.rule(step.name)
        return None if rule.checked else rule.key(step.arguments)

    def weight(self, s: int) -> Weight:
        step = self.steps[s]
        return self.rule(step.name).weight(step.arguments)


def greedy(outer: Calls, inner: Calls, valid: Valid, budget: PairBudget) -> dict[int, int]:
    """agentevals' first fit: outer index -> inner index, for the outer calls that found one
    (ConfigError, before any pair is tried, where the pairs to check cost more than the
    steps left in ``budget``).

    The same pairs as trying, for each outer call in order, every inner call in order until
    one not yet taken is valid. A pair is valid only for calls of one function, and both
    sides' calls of one function are read by one rule. (1) Under a rule of equality, a pair is
    valid exactly when the two equality keys are equal (argument_checks.equality_key). The
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
        return first_fit(outer.at, inner.at, valid)  # (a few pairs: checked as they are)
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


class _Never(Exception):
    """(no check raises it: first fit lets every exception through)"""


def first_fit(
    outer: Iterable[int],
    inner: Sequence[int],
    valid: Valid,
    stop: bool = False,
    quiet: type[Exception] = _Never,
    live: bool = True,
) -> dict[int, int]:
    """First fit as agentevals and BFCL's checker write it: each outer index, in order, takes
    the first inner index not yet taken for which ``valid`` is true, every pair tried in order
    until one is (outer -> inner, for the outer indices that found one). ``stop``: end at the
    first outer index that finds none (a checker's first failure ends its check). ``quiet``:
    once an outer index has found none (from the start where not ``live``), a pair whose
    check raises it is not valid: the checker imitated has stopped there, never reaching that
    check, and the pairing goes on only to show why."""
    left = list(inner)  # the inner indices not yet taken, in order
    pairs: dict[int, int] = {}
    for o in outer:
        for i in left:
            try:
                fits = valid(o, i)
            except quiet:
                if live:
                    raise
                fits = False
            if fits:
                pairs[o] = i
                left.remove(i)  # (the loop ends here: the list is not walked again)
                break
        else:
            if stop:
                break
            live = False
    return pairs


def left_beside(pairs: dict[int, int], n: int, m: int) -> Iterable[tuple[int, int]]:
    """The outer indices of ``range(n)`` and inner ones of ``range(m)`` that ``pairs`` left,
    beside each other in order (the first left with the first left, and so on)."""
    if len(pairs) == n or len(pairs) == m:
        return ()
    taken = set(pairs.values())
    return zip(filterfalse(pairs.__contains__, range(n)), filterfalse(taken.__contains__, range(m)))


def leftovers_in_order(pairs: dict[int, int], outer: Calls, inner: Calls) -> dict[int, int]:
    """``pairs`` with the calls left unpaired on both sides paired in order, calls of one
    function only (a call of another function is never paired here).

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
    judge: Callable[[int, int], tuple[bool, float]],
    needed: int,
    budget: PairBudget,
) -> dict[int, int]:
    """The most valid pairs, then the most matched fields among the pairs allowed (calls of
    one function), ``judge`` giving a pair's validity and share of matched fields. ``needed``:
    how many valid pairs first fit must find to be kept as it is; first fit stands too where
    the assignment is past the budget."""
    first = greedy(outer, inner, valid, budget)
    if len(first) < needed:
        big = float(min(len(outer.at), len(inner.at)) + 1)  # a valid pair outweighs all shares

        def gain(o: int, i: int) -> float:
            is_valid, share = judge(o, i)
            return big if is_valid else 0.5 + 0.5 * share

        found = assigned(outer, inner, gain, budget, keep_above=0.0)
        if found is not None:
            return found
    return leftovers_in_order(first, outer, inner)


def assigned(
    outer: Calls, inner: Calls, gain: Gain, budget: PairBudget, keep_above: float
) -> dict[int, int] | None:
    """The optimal assignment (outer index -> inner index) where a pair of calls of one
    function gains ``gain`` (above 0) and any other pair 0, pairs gaining ``keep_above`` or
    less dropped; None where its table's cells and the checks of its pairs cost more steps
    than ``budget`` has left (past CELLS_UNCOUNTED pairs; the pairs are counted before the
    calls are weighed, so that calls whose pairs alone are past it are not weighed). One
    table up to TABLE_CELLS cells, else each function's calls apart."""
    n, m = len(outer.at), len(inner.at)
    rows: dict[str, list[int]] = {}
    for r, o in enumerate(outer.at):
        rows.setdefault(outer.name(o), []).append(r)
    cols: dict[str, list[int]] = {}
    for c, i in enumerate(inner.at):
        cols.setdefault(inner.name(i), []).append(c)
    groups = [(rs, cols[name]) for name, rs in rows.items() if name in cols]
    whole = n * m <= TABLE_CELLS
    if n * m > CELLS_UNCOUNTED:
        cells = n * m if whole else 0
        # every pair of one function costs PAIR_STEPS before its calls' weights
        # (block_steps), so this many steps at least
        least = cells + PAIR_STEPS * sum(len(rs) * len(cs) for rs, cs in groups)
        if not budget.affords(least) or not budget.spend(
            cells + checked_steps(outer, inner, every_rule=True)
        ):
            return None
    if whole:
        pairs = _solved(outer, inner, list(range(n)), list(range(m)), groups, gain, keep_above)
    else:
        pairs = [
            pair
            for rs, cs in groups
            for pair in _solved(
                outer, inner, rs, cs, [([*range(len(rs))], [*range(len(cs))])], gain, keep_above
            )
        ]
    return {outer.at[r]: inner.at[c] for r, c in sorted(pairs)}


def _solved(
    outer: Calls,
    inner: Calls,
    rows: list[int],
    cols: list[int],
    blocks: list[tuple[list[int], list[int]]],
    gain: Gain,
    keep_above: float,
) -> list[tuple[int, int]]:
    """The assignment of the calls at positions ``rows`` x ``cols`` (blocks: the positions in
    those lists of the pairs that gain)."""
    table = _table(
        len(rows), len(cols), blocks, lambda a, b: gain(outer.at[rows[a]], inner.at[cols[b]])
    )
    return [(rows[a], cols[b]) for a, b, _ in assign(table, keep_above)[0]]


def _table(
    n: int, m: int, blocks: list[tuple[list[int], list[int]]], gain: Gain
) -> list[list[float]] | Floats:
    """The gains of ``n`` x ``m`` pairs: ``gain`` within the blocks, 0 elsewhere (rows of
    numbers for a few pairs, where ``assign`` tries its shortcut first; else a matrix)."""
    if n * m <= SMALL_PAIRS:
        table: list[list[float]] | Floats = [[0.0] * m for _ in range(n)]
    else:
        import numpy

        table = numpy.zeros((n, m))
    for rows, cols in blocks:
        for r in rows:
            line = table[r]
            for c in cols:
                line[c] = gain(r, c)
    return table


def checked_steps(outer: Calls, inner: Calls, every_rule: bool = False) -> int:
    """The steps of checking every pair of calls of one function, counted from the calls'
    weights: of the functions whose rule checks pairs one by one (``every_rule``: of all,
    as the optimal assignment weighs every pair)."""
    return sum(steps for _, _, _, steps in _blocks(outer, inner, every_rule))


def _blocks(outer: Calls, inner: Calls, every_rule: bool) -> list[tuple[str, int, int, int]]:
    """Each function both sides call (under a rule checking pairs, unless ``every_rule``):
    its name, its calls on each side and the steps of checking all their pairs."""
    mine = _by_name(outer, every_rule, None)
    if not mine:
        return []
    theirs = _by_name(inner, every_rule, set(mine))
    return [
        (name, len(ones), len(theirs[name]), block_steps(ones, theirs[name]))
        for name, ones in mine.items()
        if name in theirs
    ]


def _by_name(calls: Calls, every_rule: bool, names: set[str] | None) -> dict[str, list[Weight]]:
    """The weights of the calls of each function (of ``names``, where given) whose rule
    checks pairs (of every function: ``every_rule``)."""
    out: dict[str, list[Weight]] = {}
    for s in calls.at:
        name = calls.name(s)
        if (names is None or name in names) and (every_rule or calls.rule(name).checked):
            out.setdefault(name, []).append(calls.weight(s))
    return out


def _past_budget(outer: Calls, inner: Calls, steps: int, budget: PairBudget) -> str:
    """The refusal's message: the steps against the limit, and the functions that cost most."""
    blocks = sorted(_blocks(outer, inner, False), key=lambda b: -b[3])
    if outer.side != "expected":
        blocks = [(name, m, n, cost) for name, n, m, cost in blocks]
    shown_blocks = "; ".join(
        f"{shown(name)}: {n:,} expected call{'s' * (n != 1)} x {m:,} of the run, {cost:,} steps"
        for name, n, m, cost in blocks[:3]
    )
    already = f" ({budget.spent:,} of them spent on earlier steps)" if budget.spent else ""
    return (
        f"trajectory: pairing these calls would take {steps:,} steps, past the limit of "
        f"{budget.limit:,} for one comparison{already}: {shown_blocks}. Their pairs are "
        f"checked one by one (args 'subset' or 'superset', or tool_args' comparators), each "
        f"costing steps by its arguments' size (docs/metrics.md, trajectory); compare fewer "
        f"or shorter arguments, or by equality (args 'exact', a list of argument names)"
    )
