"""One call of the run against one expected call: its arguments under the argument mode.

The argument modes are agentevals' (``tool_args_match_mode``), stated for the two sides it
names, the *output* call and the *reference* call:

- ``exact``: the arguments are equal (every argument a field);
- ``ignore``: the arguments are not compared (no argument field);
- ``subset``: every argument of the output is in the reference with an equal value (the
  output's arguments are the fields);
- ``superset``: every argument of the reference is in the output with an equal value (the
  reference's arguments are the fields).

A tool may have its own rule (``tool_args``): one of those modes, a list of argument names
(dotted for nested ones: ``filters.city``) compared for equality, an absent value and
``null`` alike, the others ignored (agentevals' list override), or a mapping of argument name
to a comparator spec of the registry (``{"query": "fuzzy"}``), each scoring its argument, the
others ignored. Values are equal as JSON values are (a boolean is never a number).

Which side is the output depends on the trajectory mode: in ``subset`` agentevals matches
the run's calls into the reference's, so the expected call stands as the output
(``swapped``) and ``subset`` and ``superset`` trade places. A pair is valid exactly when
every field it gives is a match, so that a pairing of valid pairs scores 1.0.

What a check costs is weighed before pairs are tried (step_pairing.py bounds the sum): a call's
compared arguments weigh one step per JSON value and per ``TEXT_PER_STEP`` characters of
text; a pair costs ``PAIR_STEPS`` and both calls' weights, and for each argument a comparator
scores, what that comparator says comparing its two texts costs (``BoundComparator.text_cost``,
comparing/edit_distance.py: an edit distance the product of the lengths over
``TEXT_PAIRS_PER_STEP``, ``fuzzy``'s ``partial`` the longer length times the square of the
shorter's). A rule that compares by equality alone (``exact``, ``ignore``, a list of names)
gives each call an equality key instead (:func:`equality_key`): two calls of one function
agree exactly when their keys are equal, so their pairs need no check.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from math import isnan
from typing import NamedTuple

from ..comparing.comparators import BoundComparator
from ..comparing.edit_distance import EDIT_COST, PAIRS_PER_STEP, TextCost
from ..comparing.registry import Registry
from ..core.errors import ComparatorError, ConfigError, did_you_mean, shown
from ..core.values import (
    ARRAY,
    MISSING,
    OBJECT,
    SCALAR_TYPES,
    TYPE_OF,
    JsonObject,
    json_equal,
    json_type,
)
from ..results.field_results import HALLUCINATION, MATCH, MISMATCH, OMISSION, SCORE_EPSILON

ARG_MODES = ("exact", "ignore", "subset", "superset")
# the rule of a list override, and of a mapping of comparators
FIELDS, COMPARE = "fields", "compare"
_SWAPPED = {"subset": "superset", "superset": "subset"}


class ArgRule(NamedTuple):
    """How one tool's arguments are compared: a mode of ARG_MODES, ``fields`` (the named
    ``keys`` compared for equality) or ``compare`` (each named argument by its comparator)."""

    mode: str
    keys: tuple[str, ...] = ()
    comparators: Mapping[str, BoundComparator] | None = None

    def facing(self, swapped: bool) -> ArgRule:
        """This rule with the expected call as agentevals' output (``swapped``)."""
        if swapped and self.mode in _SWAPPED:
            return self._replace(mode=_SWAPPED[self.mode])
        return self

    def both_ways(self) -> ArgRule:
        """The rule a pair must meet in both directions (``unordered``): ``subset`` and
        ``superset`` both ways are equality."""
        return self._replace(mode="exact") if self.mode in _SWAPPED else self


class ArgVerdict(NamedTuple):
    """One argument's verdict: its name, status, score and both values (MISSING: absent)."""

    argument: str
    status: str
    score: float
    expected: object
    actual: object


def read_rules(
    args: str, tool_args: object, registry: Registry
) -> tuple[ArgRule, dict[str, ArgRule]]:
    """The default rule (``args``) and each tool's own (``tool_args``), or ConfigError."""
    default = ArgRule(args)
    if tool_args is None:
        return default, {}
    if not isinstance(tool_args, Mapping):
        raise ConfigError(
            f"trajectory option tool_args must map tool names to a rule, not {shown(tool_args)}"
        )
    return default, {
        str(name): _rule(str(name), rule, registry) for name, rule in tool_args.items()
    }


def _rule(tool: str, rule: object, registry: Registry) -> ArgRule:
    if isinstance(rule, str):
        if rule not in ARG_MODES:
            raise ConfigError(
                f"trajectory option tool_args[{tool!r}] must be one of "
                f"{', '.join(map(repr, ARG_MODES))}, a list of argument names or a mapping of "
                f"argument to comparator, not {shown(rule)}{did_you_mean(rule, ARG_MODES)}"
            )
        return ArgRule(rule)
    if type(rule) is list and rule and all(isinstance(k, str) and k for k in rule):
        return ArgRule(FIELDS, tuple(rule))
    if isinstance(rule, Mapping) and rule:
        comparators = {}
        for argument, spec in rule.items():
            try:
                bound = registry.comparator(spec)
            except ConfigError as error:
                raise ConfigError(
                    f"trajectory option tool_args[{tool!r}][{argument!r}]: {error}"
                ) from None
            if bound.batch:
                raise ConfigError(
                    f"trajectory option tool_args[{tool!r}][{argument!r}]: {bound.name!r} is a "
                    f"batch comparator (an LLM judge); a trajectory's arguments take a plain one"
                )
            comparators[str(argument)] = bound
        return ArgRule(COMPARE, tuple(comparators), comparators)
    raise ConfigError(
        f"trajectory option tool_args[{tool!r}] must be an argument mode, a non-empty list of "
        f"argument names or a non-empty mapping of argument to comparator, not {shown(rule)}"
    )


def agrees(rule: ArgRule, expected: JsonObject, actual: JsonObject) -> bool:
    """Whether the pair is valid under ``rule`` (already facing its direction): the quick
    form of :func:`arg_verdicts`, every verdict a match."""
    mode = rule.mode
    if mode == "ignore":
        return True
    if mode == "exact":
        return json_equal(expected, actual)
    if mode == "superset":
        return all(k in actual and json_equal(v, actual[k]) for k, v in expected.items())
    if mode == "subset":
        return all(k in expected and json_equal(expected[k], v) for k, v in actual.items())
    return all(v.status == MATCH for v in arg_verdicts(rule, expected, actual))


def arg_verdicts(rule: ArgRule, expected: JsonObject, actual: JsonObject) -> list[ArgVerdict]:
    """Each compared argument's verdict under ``rule`` (already facing its direction)."""
    mode = rule.mode
    if mode == "ignore":
        return []
    if mode == FIELDS:
        return [_nested_verdict(key, expected, actual) for key in rule.keys]
    if mode == COMPARE:
        assert rule.comparators is not None
        return [
            _compared(key, comparator, expected.get(key, MISSING), actual.get(key, MISSING))
            for key, comparator in rule.comparators.items()
            if key in expected or key in actual
        ]
    if mode == "superset":
        keys: Sequence[str] = list(expected)
    elif mode == "subset":
        keys = list(actual)
    else:
        keys = list(expected) + [k for k in actual if k not in expected]
    return [_verdict(key, expected.get(key, MISSING), actual.get(key, MISSING)) for key in keys]


def counted(rule: ArgRule, arguments: JsonObject, expected_side: bool) -> list[str]:
    """The arguments of a call left unpaired that count as fields (omitted on the expected
    side, invented on the run's): the ones ``rule`` (facing its direction) compares there."""
    mode = rule.mode
    if mode == "ignore" or mode == ("subset" if expected_side else "superset"):
        return []
    if mode == FIELDS:
        return [key for key in rule.keys if _nested(arguments, key) is not None]
    if mode == COMPARE:
        return [key for key in rule.keys if key in arguments]
    return list(arguments)


def value_of(rule: ArgRule, arguments: JsonObject, key: str) -> object:
    if rule.mode == FIELDS:
        value = _nested(arguments, key)
        return MISSING if value is None else value
    return arguments.get(key, MISSING)


def _verdict(key: str, expected: object, actual: object) -> ArgVerdict:
    if expected is MISSING:
        return ArgVerdict(key, HALLUCINATION, 0.0, MISSING, actual)
    if actual is MISSING:
        return ArgVerdict(key, OMISSION, 0.0, expected, MISSING)
    if json_equal(expected, actual):
        return ArgVerdict(key, MATCH, 1.0, expected, actual)
    return ArgVerdict(key, MISMATCH, 0.0, expected, actual)


def _nested(arguments: JsonObject, key: str) -> object:
    """agentevals' reading of a dotted name: None where any part is absent or null."""
    current: object = arguments
    for part in key.split("."):
        if not isinstance(current, Mapping):
            return None
        current = current.get(part)
        if current is None:
            return None
    return current


def _nested_verdict(key: str, expected: JsonObject, actual: JsonObject) -> ArgVerdict:
    e, a = _nested(expected, key), _nested(actual, key)
    if e is None and a is None:  # (both absent or null: agentevals' values are equal)
        return ArgVerdict(key, MATCH, 1.0, None, None)
    return _verdict(key, MISSING if e is None else e, MISSING if a is None else a)


def _compared(
    key: str, comparator: BoundComparator, expected: object, actual: object
) -> ArgVerdict:
    if expected is MISSING or actual is MISSING:
        return _verdict(key, expected, actual)
    score = comparator.score(expected, actual)
    if not isinstance(score, (int, float)) or isnan(score):
        raise ComparatorError(
            f"comparator {comparator.name!r} gave {shown(score)} for argument {key!r}, not a "
            f"score in [0, 1]"
        )
    score = min(1.0, max(0.0, float(score)))
    if score >= 1.0 - SCORE_EPSILON:
        return ArgVerdict(key, MATCH, 1.0, expected, actual)
    return ArgVerdict(key, MISMATCH, score, expected, actual)


# -- what a check costs, and the rules that need none ----------------------------------------

# A step is about a microsecond of checking, on a laptop: a pair's own work, a JSON value
# compared, 64 characters of text compared (Python's string equality), or 4,096 pairs of
# characters weighed by a comparator (comparing/edit_distance.py: the edit distances of fuzzy
# and levenshtein take time in the product of the two lengths, fuzzy's partial more).
PAIR_STEPS = 2
TEXT_PER_STEP = 64
TEXT_PAIRS_PER_STEP = PAIRS_PER_STEP


class Weight(NamedTuple):
    """What checking a call's compared arguments costs under one rule: ``steps`` to compare
    them for equality (one per JSON value, one more per TEXT_PER_STEP characters of text),
    and, under a rule of comparators, each compared argument's text length (0: absent, not
    text, or compared by a comparator that equality decides), in the rule's order, with
    what its comparator says comparing two texts costs (``costs``; left out, an edit
    distance's)."""

    steps: int
    texts: tuple[int, ...] = ()
    costs: tuple[TextCost, ...] = ()

    def text_costs(self) -> tuple[TextCost, ...]:
        return self.costs or (EDIT_COST,) * len(self.texts)


NO_WEIGHT = Weight(0)


def weigh(rule: ArgRule, arguments: JsonObject) -> Weight:
    """The weight of a call's ``arguments`` as ``rule`` compares them (only the arguments it
    reads count)."""
    mode = rule.mode
    if mode == "ignore":
        return NO_WEIGHT
    if mode == FIELDS:
        return Weight(sum(_steps_of(_nested(arguments, key)) for key in rule.keys))
    if mode == COMPARE:
        assert rule.comparators is not None
        values = [arguments.get(key) for key in rule.keys]
        texts = tuple(
            len(v) if type(v) is str and not rule.comparators[key].unequal_zero else 0
            for key, v in zip(rule.keys, values)
        )  # (a comparator that equality decides compares texts as equality does)
        costs = tuple(rule.comparators[key].text_cost for key in rule.keys)
        return Weight(sum(_steps_of(v) for v in values), texts, costs)
    return Weight(_steps_of(arguments))


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


def _steps_of(value: object) -> int:
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


def by_equality(rule: ArgRule) -> bool:
    """Whether ``rule`` compares by equality alone, so that :func:`equality_key` decides."""
    return rule.mode in ("exact", "ignore", FIELDS)


def equality_key(rule: ArgRule, arguments: JsonObject) -> Hashable:
    """A key under which two calls of one function agree under ``rule`` (one that compares
    by equality alone: :func:`by_equality`) exactly when their keys are equal: ``exact``,
    the arguments' :func:`json_key`; ``ignore``, every call alike; a list of names, each
    named value's key, None for absent or null (which agentevals reads alike)."""
    mode = rule.mode
    if mode == "ignore":
        return ()
    if mode == FIELDS:
        values = [_nested(arguments, key) for key in rule.keys]
        return tuple(None if v is None else json_key(v) for v in values)
    return json_key(arguments)


def json_key(value: object) -> Hashable:
    """A hashable key of a JSON value: two values have equal keys exactly when they are
    equal by :func:`json_equal` (the door hands on no NaN, the one value unequal to itself).

    A flat object (scalar values only: the usual arguments) is keyed by its (key, JSON type,
    value) triples in key order, marked ``_FLAT``; it equals only flat objects, so the other
    form never meets it. Any other value is written out as tokens, depth first, each a (tag,
    payload) pair: an object its size and then, in key order, each key and its value's
    tokens; an array its length and then its elements; a scalar its JSON type and itself.
    With the type, a boolean is never a number, and equal numbers (1 and 1.0) give equal
    keys, as they compare equal; sizes make a writing read back one way only, so equal
    tokens mean equal values. Written without recursion, for values of any depth."""
    if type(value) is dict:
        try:  # (keys are distinct, so the sort never compares two values)
            return _FLAT, tuple((k, _SCALAR_TAGS[type(v)], v) for k, v in sorted(value.items()))
        except KeyError:  # (a value nests)
            pass
    tokens: list[tuple[str, object]] = []
    stack: list[object] = [value]
    while stack:
        item = stack.pop()
        if type(item) is _Key:
            tokens.append(("key", item.name))
            continue
        tag = json_type(item)
        if tag == OBJECT:
            assert isinstance(item, Mapping)
            tokens.append((OBJECT, len(item)))
            for key in sorted(item, reverse=True):  # (popped in key order)
                stack.append(item[key])
                stack.append(_Key(key))
        elif tag == ARRAY:
            assert isinstance(item, (list, tuple))
            tokens.append((ARRAY, len(item)))
            stack.extend(reversed(item))
        else:
            tokens.append((tag, item))
    return tuple(tokens)


_FLAT = "flat object"
_SCALAR_TAGS = {t: tag for t, tag in TYPE_OF.items() if t in SCALAR_TYPES}


class _Key(NamedTuple):
    """An object's key, in the stack of values :func:`json_key` writes out."""

    name: str
